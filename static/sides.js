// How seats are named and shown: the side a seat plays ("X", "White", "Geese", ...),
// a small badge of that side, and a seat's occupant as people read it. Shared by the
// game card and the room list.

import { el, capitalise } from './dom.js';
import { sidesOf, pieceElement, sideIsMark } from './boards/index.js';

/** The name of a seat's side in `game`; `state` (or null) is that game's latest state. */
export function sideName(seat, game, state) {
  const sides = sidesOf(game, state && state.game === game ? state : null);
  return sides.names[seat] ?? `seat ${seat}`;
}

/** A small badge showing a seat's side (a piece of that side). */
export function sideBadge(seat, game, state) {
  const sides = sidesOf(game, state && state.game === game ? state : null);
  const name = sides.names[seat] ?? `seat ${seat}`;
  const badge = el('span', `mark mark-${game} mark-${name.replace(/[^A-Za-z0-9]/g, '')}`);
  const piece = pieceElement(game, sides.codes[seat]);
  if (piece && !sideIsMark(game)) badge.append(piece);
  else badge.textContent = name.slice(0, 1);
  badge.title = name;
  return badge;
}

/** A bot's level from a seat kind such as `bot:hard`, or null for anyone else. */
export function botLevel(kind) {
  return typeof kind === 'string' && kind.startsWith('bot:') ? kind.slice(4) : null;
}

/**
 * A bot as named on screen: "Hard bot". No brackets, since a seat's side often follows
 * in brackets ("Hard bot (Black)").
 */
function botName(level) {
  return `${capitalise(level)} bot`;
}

/** A bot of `level` in a sentence: "an Easy bot", "a Medium bot". */
export function aBot(level) {
  return `${/^[aeiou]/i.test(level) ? 'an' : 'a'} ${botName(level)}`;
}

/**
 * How a seat's occupant is named on screen. A bot is named by this page from its level,
 * not by the server's `name` ("Bot (easy)"), whose brackets would double up with the
 * side's.
 */
export function seatName(seat) {
  if (!seat) return '?';
  const level = botLevel(seat.kind);
  const standIn = seat.stand_in_for;
  if (standIn && typeof standIn === 'object') {
    return `${level ? botName(level) : (seat.name || 'A bot')} playing for ${standIn.name ?? 'someone'}`;
  }
  if (level) return botName(level);
  if (seat.name) return seat.name;
  if (seat.kind === 'open') return 'open seat';
  return 'someone';
}

/**
 * The "BOT" mark beside a bot account's name (an engine playing through the Bot API), or
 * null for anyone else: `who` is a seat or a leaderboard row, which say `bot_account`.
 */
export function botAccountTag(who) {
  if (who?.bot_account !== true) return null;
  const tag = el('span', 'tag bot-account', 'BOT');
  tag.title = 'A bot account: an engine playing through the Bot API';
  return tag;
}

/** A room id as shown: `#` and at most its first eight characters. */
export function roomLabel(id) {
  const text = String(id ?? '');
  return text.length > 10 ? `#${text.slice(0, 8)}…` : `#${text}`;
}
