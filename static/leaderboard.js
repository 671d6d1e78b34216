// The leaderboard card: one game's best scores or ratings, from GET /api/leaderboard.

import { el } from './dom.js';
import { gameTitle } from './boards/index.js';
import { SCORE_EXPLAINED, RATING_EXPLAINED } from './scoring_words.js';

const LIMIT = 10;

/** What each board ranks, in plain words. */
const EXPLAINED = {
  score: `Each player's best score in this game. ${SCORE_EXPLAINED}`,
  rating: RATING_EXPLAINED,
};

/** The leaderboard card: loads and draws one game's board at a time. */
export class Leaderboard {
  /**
   * nodes = { list, note, game, by }: the list, the note under it, and the two selects
   * (which game; by score or rating). `myId()` is this player's id, to mark their entry.
   */
  constructor(nodes, myId) {
    this.nodes = nodes;
    this.myId = myId;
    this.ticket = 0; // the latest request; answers to older ones are dropped
    this.loaded = null; // the game last asked for
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
    this.ticket += 1;
    const ticket = this.ticket;
    this.loaded = game;
    let entries;
    try {
      const res = await fetch(`/api/leaderboard?game=${encodeURIComponent(game)}&by=${by}&limit=${LIMIT}`, { headers: { accept: 'application/json' } });
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
    list.replaceChildren(...entries.map((entry, i) => {
      const item = el('li', 'lb-entry');
      if (me && entry.player_id === me) item.classList.add('mine');
      item.append(el('span', 'rank', String(entry.rank ?? i + 1)));
      const name = el('span', 'lb-name', entry.name ?? '?');
      item.append(name);
      if (by === 'rating') {
        const rating = Number(entry.rating);
        const value = el('span', 'score', Number.isFinite(rating) ? String(Math.round(rating)) : '?');
        const deviation = Number(entry.deviation);
        if (Number.isFinite(deviation)) value.title = `Rating ${Math.round(rating)} ± ${Math.round(2 * deviation)}`;
        item.append(value);
        if (typeof entry.games === 'number') name.append(el('span', 'lb-games', ` · ${entry.games} ${entry.games === 1 ? 'game' : 'games'}`));
      } else {
        item.append(el('span', 'score', String(entry.score ?? '')));
      }
      return item;
    }));
    const empty = by === 'rating'
      ? 'No ratings yet. Finish a game from the usual start to get a rating.'
      : 'No scores yet. Win or draw a game to get on the board.';
    note.textContent = entries.length ? EXPLAINED[by] : `${empty} ${EXPLAINED[by]}`;
  }
}
