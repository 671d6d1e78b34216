// The leaderboard card: one game's best scores against one opponent (people, or a bot
// level, or all of them together), or its ratings, from GET /api/leaderboard.

import { el } from './dom.js';
import { botAccountTag } from './sides.js';
import { gameTitle } from './boards/index.js';
import {
  SCORE_EXPLAINED, RATING_EXPLAINED, PROVISIONAL_EXPLAINED, OPPONENTS, opponentWords,
} from './scoring_words.js';

const LIMIT = 10;

/** The opponent choice that reads every board of a game together. */
const ALL = '';

/** A rating whose deviation is above this is provisional (PROTOCOL.md §13.4), if the server does not say. */
const PROVISIONAL_DEVIATION = 110;

/** "against people", "against Easy bot": whom a board's scores were earned against. */
function againstWords(opponent) {
  return opponent === 'person' ? 'against people' : `against ${opponentWords(opponent) ?? opponent}`;
}

/** What a board ranks, in plain words. */
function explained(by, opponent) {
  if (by === 'rating') return RATING_EXPLAINED;
  const whom = opponent === ALL ? 'against each opponent (people, or each bot level)' : againstWords(opponent);
  return `Each player's best score ${whom} in this game. ${SCORE_EXPLAINED}`;
}

/** What an empty board says. */
function emptyWords(by, opponent) {
  if (by === 'rating') return 'No ratings yet. Finish a game against another person, from the usual start, to get a rating.';
  if (opponent === ALL) return 'No scores yet. Win or draw a game to get on the board.';
  const whom = opponent === 'person' ? 'a person' : opponentWords(opponent) ?? opponent;
  return `No scores ${againstWords(opponent)} yet. Win or draw a game against ${whom} to get on this board.`;
}

/** A rating as shown: "1612", or "1500?" with the mark explained, when provisional. */
function ratingEl(entry) {
  const rating = Number(entry.rating);
  const shown = Number.isFinite(rating) ? String(Math.round(rating)) : '?';
  const value = el('span', 'score', shown);
  const deviation = Number(entry.deviation);
  const provisional = typeof entry.provisional === 'boolean'
    ? entry.provisional
    : Number.isFinite(deviation) && deviation > PROVISIONAL_DEVIATION;
  const spread = Number.isFinite(deviation) ? ` ± ${Math.round(2 * deviation)}` : '';
  if (provisional && Number.isFinite(rating)) {
    value.dataset.provisional = 'true';
    const mark = el('span', 'provisional-mark', '?');
    mark.setAttribute('aria-hidden', 'true');
    value.append(mark);
    value.append(el('span', 'visually-hidden', ' (provisional: too few rated games yet)'));
    value.title = `Provisional rating ${shown}${spread}: too few rated games yet to trust it`;
  } else if (spread) {
    value.title = `Rating ${shown}${spread}`;
  }
  return { value, provisional };
}

/** The leaderboard card: loads and draws one game's board at a time. */
export class Leaderboard {
  /**
   * nodes = { list, note, game, by, opponent }: the list, the note under it, and the three
   * selects (which game; by score or rating; against whom, for scores). `myId()` is this
   * player's id, to mark their entry.
   */
  constructor(nodes, myId) {
    this.nodes = nodes;
    this.myId = myId;
    this.ticket = 0; // the latest request; answers to older ones are dropped
    this.loaded = null; // the game last asked for
    if (nodes.opponent) {
      nodes.opponent.replaceChildren(
        ...OPPONENTS.map(([value, title]) => new Option(title, value)),
        new Option('All opponents', ALL),
      );
      nodes.opponent.value = 'person';
      nodes.opponent.addEventListener('change', () => this.load());
    }
    nodes.game.addEventListener('change', () => this.load());
    nodes.by.addEventListener('change', () => this.load());
  }

  /** Switches to a game's board (and loads it), unless it shows that game already. */
  show(game) {
    const select = this.nodes.game;
    if (![...select.options].some((o) => o.value === game)) return;
    if (select.value === game && this.loaded === game) return;
    select.value = game;
    this.load();
  }

  /** Loads and draws the board chosen in the selects. */
  async load() {
    const { list, note } = this.nodes;
    const game = this.nodes.game.value || this.nodes.game.options[0]?.value;
    const by = this.nodes.by.value === 'rating' ? 'rating' : 'score';
    // Ratings are only of games between people: they have no opponent to choose.
    const picker = this.nodes.opponent;
    if (picker?.parentElement) picker.parentElement.hidden = by === 'rating';
    const opponent = by === 'score' && picker ? picker.value : ALL;
    this.ticket += 1;
    const ticket = this.ticket;
    this.loaded = game;
    const query = new URLSearchParams({ game, by, limit: String(LIMIT) });
    if (opponent !== ALL) query.set('opponent', opponent);
    let entries;
    try {
      const res = await fetch(`/api/leaderboard?${query}`, { headers: { accept: 'application/json' } });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const data = await res.json();
      entries = Array.isArray(data) ? data : (data.entries ?? data.leaderboard ?? data.rows ?? []);
      if (!Array.isArray(entries)) entries = [];
    } catch (err) {
      if (ticket !== this.ticket) return;
      list.replaceChildren();
      note.textContent = `The ${gameTitle(game)} leaderboard could not be loaded (${err.message}).`;
      return;
    }
    if (ticket !== this.ticket) return; // a newer request (another game or view) won
    const me = this.myId();
    list.dataset.by = by;
    list.dataset.opponent = opponent || 'all';
    let provisional = false;
    list.replaceChildren(...entries.map((entry, i) => {
      const item = el('li', 'lb-entry');
      if (me && entry.player_id === me) item.classList.add('mine');
      item.append(el('span', 'rank', String(entry.rank ?? i + 1)));
      const name = el('span', 'lb-name', entry.name ?? '?');
      const bot = botAccountTag(entry);
      if (bot) name.append(' ', bot);
      item.append(name);
      if (by === 'rating') {
        const rating = ratingEl(entry);
        provisional ||= rating.provisional;
        item.append(rating.value);
        if (typeof entry.games === 'number') name.append(el('span', 'lb-games', ` · ${entry.games} ${entry.games === 1 ? 'game' : 'games'}`));
      } else {
        item.append(el('span', 'score', String(entry.score ?? '')));
        // A board of every opponent says whom each score was earned against.
        const against = opponent === ALL ? opponentWords(entry.opponent) : null;
        if (against) {
          const tag = el('span', 'lb-against', ` · against ${against}`);
          tag.dataset.opponent = entry.opponent;
          name.append(tag);
        }
      }
      return item;
    }));
    const words = [explained(by, opponent)];
    if (provisional) words.push(PROVISIONAL_EXPLAINED);
    if (!entries.length) words.unshift(emptyWords(by, opponent));
    note.textContent = words.join(' ');
  }
}
