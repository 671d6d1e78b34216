// The "Your recent games" card: this player's latest games, from
// GET /api/players/{id}/games (docs/PROTOCOL.md §14), each with a button to replay it.

import { el, button } from './dom.js';
import { gameTitle } from './boards/index.js';
import { opponentWords } from './scoring_words.js';

const LIMIT = 10;

/** A stored game's outcome for the player who lists it, as a word. */
function outcome(game) {
  if (game.status === 'interrupted') return 'interrupted';
  if (game.status !== 'finished') return 'in progress';
  if (game.reason === 'aborted') return 'aborted';
  if (typeof game.winner !== 'number') return 'draw';
  return game.winner === game.seat ? 'won' : 'lost';
}

/** The recent games card of the signed-in player. */
export class RecentGames {
  /**
   * nodes = { list, empty }: the list and the note shown when it is empty.
   * hooks = { me(): the signed-in player ({ player_id }) or null,
   *           replaying(): the id of the game being replayed, or null,
   *           replay(gameId): opens a game's replay }.
   */
  constructor(nodes, hooks) {
    this.nodes = nodes;
    this.hooks = hooks;
    this.ticket = 0; // the latest request; answers to older ones are dropped
    this.loaded = { player: null, games: [], note: '' };
  }

  /** Loads the signed-in player's games and draws them. */
  async load() {
    const me = this.hooks.me()?.player_id;
    if (!me) return;
    this.ticket += 1;
    const ticket = this.ticket;
    let games = [];
    let note = '';
    try {
      const res = await fetch(`/api/players/${encodeURIComponent(me)}/games?limit=${LIMIT}`, { headers: { accept: 'application/json' } });
      // 404: no stored player yet, so no games.
      if (!res.ok && res.status !== 404) throw new Error(`HTTP ${res.status}`);
      const data = res.ok ? await res.json() : null;
      games = Array.isArray(data?.games) ? data.games.filter((g) => g && typeof g.game_id === 'string') : [];
    } catch (err) {
      note = `Your games could not be loaded (${err.message}).`;
    }
    if (ticket !== this.ticket) return;
    this.loaded = { player: me, games, note };
    this.render();
  }

  /** Draws the list again; cheap when nothing it shows has changed. */
  render() {
    const { list, empty } = this.nodes;
    const me = this.hooks.me();
    const mine = me && this.loaded.player === me.player_id;
    const games = mine ? this.loaded.games : [];
    const replaying = this.hooks.replaying();
    empty.hidden = games.length > 0;
    empty.textContent = (mine && this.loaded.note) ||
      (me ? 'No games yet. Games you play are listed here, to replay them.' : 'Connect to see your games.');
    const key = JSON.stringify([games, replaying]);
    if (list.dataset.key === key) return;
    list.dataset.key = key;
    list.replaceChildren(...games.map((game) => this.item(game, replaying)));
  }

  /** One game's entry: against whom, how it went and its score, when, and its replay button. */
  item(game, replaying) {
    const item = el('li', 'recent-item');
    item.dataset.testid = 'recent-game';
    item.dataset.gameId = game.game_id;
    const names = Array.isArray(game.names) ? game.names : [];
    const opponent = names[1 - game.seat] ?? '?';
    const main = el('div', 'recent-main');
    main.append(el('span', 'recent-title', `${gameTitle(game.game)} vs ${opponent}`));
    const when = new Date(game.started_at_ms);
    const date = Number.isNaN(when.getTime()) ? '' : ` · ${when.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' })}`;
    // The score and whom it was earned against: "491 points against Easy bot".
    const against = opponentWords(game.opponent);
    const points = typeof game.score === 'number' ? ` · ${game.score} points${against ? ` against ${against}` : ''}` : '';
    main.append(el('span', 'recent-meta', `${outcome(game)}${points}${date}`));
    item.append(main);
    const replay = button('Replay', 'recent-replay', () => this.hooks.replay(game.game_id), 'small');
    replay.dataset.gameId = game.game_id;
    replay.disabled = replaying === game.game_id;
    item.append(replay);
    return item;
  }
}
