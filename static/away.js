// A player gone during a game, as Lichess shows it (docs/PROTOCOL.md §6.19, §9.6): while
// a human seat's person is away its seat in each `state` carries `grace_left_ms` (what
// is left of their time to come back) and `claim_left_ms` (until the opponent may claim
// the game). This module keeps them as deadlines on the page's clock, says on the status
// line and the seat that the player left, and draws the panel under the status: the
// countdown to the claim, then "Claim victory" and "Call it a draw" for the opponent
// (spectators see the countdown alone), and what happens if nobody claims. The buttons
// call the `claim(kind)` action it is given. The ticking numbers are written in place
// (not announced); the page is drawn again only when a claim opens or the grace ends.

import { app, ui, markOf } from './state.js';
import { seatName, aBot } from './sides.js';
import { el, button } from './dom.js';
import { update } from './store.js';
import { formatDuration } from './time.js';

/** How often the countdowns are written while someone is away. */
const TICK_MS = 250;

/** The interval that ticks the countdowns, or null. */
let ticker = null;
/** The phase the page was last drawn in (see phaseKey), to draw it again when it changes. */
let drawnPhase = '';

/**
 * Keeps the deadlines of the seats whose person is away, from a room's new state `s`
 * (the one before was `previous`). A state made from a `moved` event shares its seats
 * with the state before (parlor-client.js applyMoved), and its seat fields are as old as
 * those: the deadlines read then are kept.
 */
export function noteAway(room, previous, s, now = performance.now()) {
  if (s.status !== 'playing' || !Array.isArray(s.seats)) {
    room.away.clear();
    return;
  }
  if (previous && s.seats === previous.seats) return;
  room.away.clear();
  for (const seat of s.seats) {
    if (seat.kind !== 'human' || seat.connected !== false || !Number.isFinite(seat.grace_left_ms)) continue;
    const claimLeft = Number.isFinite(seat.claim_left_ms) ? seat.claim_left_ms : seat.grace_left_ms;
    room.away.set(seat.seat, { graceAt: now + seat.grace_left_ms, claimAt: now + claimLeft });
  }
}

/** Whole seconds from now to `at`, at least 0. */
function secondsTo(at, now) {
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** The seat of the current room whose person is away and whose departure this page tells of, with its deadlines; or null. */
function awaySeat(s) {
  const room = app.room;
  if (!room || s?.status !== 'playing' || !Array.isArray(s.seats)) return null;
  const mine = room.role === 'player' ? room.seat : null;
  for (const [seat, deadlines] of room.away) {
    if (seat === mine) continue;
    const info = s.seats.find((x) => x.seat === seat);
    if (info) return { info, ...deadlines };
  }
  return null;
}

/** `Bob (O)`: a seat as the status line names it. */
function who(info) {
  return `${seatName(info)} (${markOf(info.seat)})`;
}

/** What happens when the grace runs out and nobody claimed, by the server's takeover rule. */
function whatHappens(name, grace, moves) {
  const takeover = app.roomSettings?.takeover;
  const when = grace > 0 ? `in ${formatDuration(grace * 1000)}` : 'now';
  if (moves === 0) return `Otherwise the game is called off ${when}, as no move has been played.`;
  if (typeof takeover === 'string' && takeover !== 'none') {
    return `Otherwise, ${when}, ${aBot(takeover)} takes over ${name}’s seat and plays on for them.`;
  }
  return `Otherwise the game is decided ${when}: ${name} loses for leaving.`;
}

/** The phase the away panel is in: who is away, whether a claim is open, whether the grace ran out. */
function phaseKey(s, now) {
  const gone = awaySeat(s);
  if (!gone || !app.ready) return '';
  return JSON.stringify([app.room.id, s.game_id, gone.info.seat, now >= gone.claimAt, now >= gone.graceAt, app.room.role]);
}

/** The status line's words while the opponent (or, for a spectator, a player) is away; null when nobody is. */
export function awayStatus(s, now = performance.now()) {
  const gone = awaySeat(s);
  if (!gone) return null;
  const left = `${who(gone.info)} left the game.`;
  if (app.room.role !== 'player') return left;
  return now >= gone.claimAt
    ? `${left} You can claim victory now, or wait for them.`
    : `${left} If they do not come back, you can claim victory soon.`;
}

/** Whether the seat `seat` of the current room is away during the game. */
export function seatIsAway(seat) {
  return Boolean(app.room?.away.has(seat));
}

/** The countdown texts, by the `data-away` of the node they go in. */
function countdownTexts(s, now) {
  const gone = awaySeat(s);
  if (!gone) return {};
  const name = seatName(gone.info);
  const claim = secondsTo(gone.claimAt, now);
  const grace = secondsTo(gone.graceAt, now);
  const player = app.room.role === 'player';
  const other = s.seats.find((x) => x.seat !== gone.info.seat);
  const texts = {
    claim: player ? `You can claim victory in ${claim} s.` : `${seatName(other)} can claim victory in ${claim} s.`,
    decided: whatHappens(name, grace, s.moves),
  };
  if (gone.graceAt <= now) texts.decided = `${name} did not come back in time: the server is ending the game.`;
  return texts;
}

/**
 * The panel under the status line while a player is away: the countdown to the claim,
 * then the claim buttons (for the player present) and what happens if nobody claims.
 * `actions.claim(kind)`, kind 'victory' or 'draw', makes a claim.
 */
export function renderAway(s, { claim }) {
  const box = ui['away-panel'];
  const now = performance.now();
  const key = phaseKey(s, now);
  drawnPhase = key;
  if (box.dataset.key === key) {
    updateAwayCountdowns();
    return;
  }
  box.dataset.key = key;
  const gone = key ? awaySeat(s) : null;
  if (!gone) {
    box.hidden = true;
    box.replaceChildren();
    box.dataset.state = '';
    return;
  }
  const name = seatName(gone.info);
  const open = now >= gone.claimAt;
  const player = app.room.role === 'player';
  const parts = [];
  const countdown = (kind) => {
    const line = el('p', `away-text away-${kind}`);
    line.dataset.away = kind;
    line.dataset.testid = `away-${kind}`;
    return line;
  };
  if (!open) {
    parts.push(countdown('claim'));
  } else if (player) {
    const noMoves = s.moves === 0;
    parts.push(el('p', 'away-text', noMoves
      ? `${name} is still away. No move has been played, so either claim calls the game off.`
      : `${name} is still away. Claim the win, call it a draw, or wait for them.`));
    const row = el('div', 'helper-buttons');
    row.append(
      button('Claim victory', 'claim-victory', () => claim('victory'), 'small primary-btn'),
      button('Call it a draw', 'claim-draw', () => claim('draw'), 'small'),
    );
    parts.push(row);
  } else {
    const other = s.seats.find((x) => x.seat !== gone.info.seat);
    parts.push(el('p', 'away-text', `${name} is still away: ${seatName(other)} may now claim victory or a draw.`));
  }
  parts.push(countdown('decided'));
  box.dataset.state = open ? 'claim-open' : 'counting';
  box.replaceChildren(...parts);
  box.hidden = false;
  updateAwayCountdowns();
}

/** Writes the countdowns' numbers in place; draws the page again when the phase changes. */
export function updateAwayCountdowns() {
  const s = app.room?.state;
  const now = performance.now();
  if (phaseKey(s, now) !== drawnPhase) {
    update();
    return;
  }
  const texts = countdownTexts(s, now);
  for (const node of ui['away-panel'].querySelectorAll('[data-away]')) {
    const text = texts[node.dataset.away] ?? '';
    if (node.textContent !== text) node.textContent = text;
  }
}

/** Runs the countdowns while a player is away (and only then). */
export function syncAwayTicker() {
  const live = Boolean(app.room && !ui.game.hidden && drawnPhase);
  if (live && !ticker) ticker = setInterval(updateAwayCountdowns, TICK_MS);
  if (!live && ticker) {
    clearInterval(ticker);
    ticker = null;
  }
}
