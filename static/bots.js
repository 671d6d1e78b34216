// The "Bots online" card: the bot accounts whose engines play through the Bot API
// (docs/BOT_API.md), read from `GET /api/bot/online` now and then, each with its ratings
// in the games it takes; and the form that challenges one (game, clock, side, rated),
// then the challenge waiting for the bot's answer. It draws and reads its own nodes;
// sending the challenge, and what its answer does, are the hooks it is handed.

import { el, button } from './dom.js';
import { GAMES, gameTitle } from './boards/index.js';
import { sideName } from './sides.js';
import { timeControlFromChoice } from './time.js';

/**
 * How often the list is read again: every open page asks, and each answer reads every
 * bot's account, so not often; a bot that comes online shows within half a minute.
 */
const REFRESH_EVERY_MS = 30_000;

/** The clocks a challenge offers: a bot's engine usually asks for one (lichess-bot declines games without). */
const CLOCKS = [
  ['fischer:60000:0', '1+0'],
  ['fischer:180000:2000', '3+2'],
  ['fischer:300000:0', '5+0'],
  ['fischer:600000:5000', '10+5'],
  ['none', 'No clock'],
];
const DEFAULT_CLOCK = 'fischer:300000:0';

/** The rating a bot account shows in `game`: chess is rated once, shown under each speed. */
function perfIn(account, game) {
  const perfs = account.perfs ?? {};
  return game === 'chess' ? perfs.blitz : perfs[game];
}

/** The games of a bot account this page can show, in the page's order. */
function gamesOf(account) {
  const taken = Array.isArray(account.games) ? account.games : ['chess'];
  return Object.keys(GAMES).filter((game) => taken.includes(game));
}

/** The lines of an NDJSON body that parse as accounts; others are skipped. */
export function parseAccounts(text) {
  const accounts = [];
  for (const line of String(text).split('\n')) {
    if (!line.trim()) continue;
    try {
      const account = JSON.parse(line);
      if (account && typeof account.username === 'string') accounts.push(account);
    } catch {
      // A line cut short: the next read has it whole.
    }
  }
  return accounts;
}

/** The bots card, and its challenge form. */
export class BotsCard {
  /**
   * nodes = { card, list, empty, form, title, game, clock, side, rated, close, pending, pendingText, cancel }.
   * hooks = { ready(): signed in, reconnecting(): signed in before but not now,
   *           challenge(): the pending challenge ({ name, game }) or null,
   *           send(name, game, { timeControl, seat, rated }), cancel(), changed() }.
   */
  constructor(nodes, hooks) {
    this.nodes = nodes;
    this.hooks = hooks;
    /** The bot accounts online, as last read. */
    this.bots = [];
    /** Why they could not be read, if they could not. */
    this.note = '';
    /** The bot the form challenges, by name, or null while the form is closed. */
    this.chosen = null;
    this.key = null;
    nodes.clock.append(...CLOCKS.map(([value, label]) => new Option(label, value)));
    nodes.clock.value = DEFAULT_CLOCK;
    nodes.game.addEventListener('change', () => this.fillSides());
    nodes.close.addEventListener('click', () => this.choose(null));
    nodes.cancel.addEventListener('click', () => this.hooks.cancel());
    nodes.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.submit();
    });
  }

  /** Reads the bots online now and every few seconds while the page is shown. */
  start() {
    this.refresh();
    setInterval(() => this.refresh(), REFRESH_EVERY_MS);
  }

  /**
   * Reads the bots online once, unless the page is hidden, the browser offline or the
   * page reconnecting to a server out of reach (what was read stays).
   */
  async refresh() {
    if (document.hidden || !navigator.onLine || this.hooks.reconnecting()) return;
    try {
      const res = await fetch('/api/bot/online', { headers: { accept: 'application/x-ndjson' } });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      this.bots = parseAccounts(await res.text());
      this.note = '';
    } catch (err) {
      this.note = `The bots online could not be read (${err.message}).`;
    }
    if (this.chosen && !this.bots.some((bot) => bot.username === this.chosen)) this.chosen = null;
    this.hooks.changed();
  }

  /** Opens the form for the bot named `name` (null closes it). */
  choose(name) {
    this.chosen = name;
    this.key = null;
    const bot = this.bots.find((b) => b.username === name);
    if (bot) {
      const games = gamesOf(bot);
      this.nodes.game.replaceChildren(...games.map((game) => new Option(gameTitle(game), game)));
      this.nodes.game.value = games.includes('chess') ? 'chess' : games[0];
      this.fillSides();
    }
    this.hooks.changed();
    if (bot) this.nodes.game.focus();
  }

  /** The side choices in the form's game: either (drawn at random), or one side. */
  fillSides() {
    const game = this.nodes.game.value;
    const either = new Option('Either (drawn at random)', '');
    const sides = [0, 1].map((seat) => new Option(`${sideName(seat, game, null)}${seat === 0 ? ' (first)' : ''}`, String(seat)));
    this.nodes.side.replaceChildren(either, ...sides);
  }

  /** Sends the form's challenge. */
  submit() {
    const { control, error } = timeControlFromChoice(this.nodes.clock.value);
    if (error || !this.chosen) return;
    const side = this.nodes.side.value;
    this.hooks.send(this.chosen, this.nodes.game.value, {
      timeControl: control.kind === 'none' ? undefined : control,
      seat: side === '' ? undefined : Number(side),
      rated: this.nodes.rated.checked,
    });
  }

  /** Draws the card; rebuilt only when something shown changed, so buttons do not vanish under the pointer. */
  render() {
    const ready = this.hooks.ready();
    const pending = this.hooks.challenge();
    const key = JSON.stringify([ready, pending, this.chosen, this.note, this.bots]);
    if (key === this.key) return;
    this.key = key;
    const { card, list, empty, form, title, pendingText } = this.nodes;
    card.hidden = this.bots.length === 0 && !pending && !this.note;
    empty.hidden = this.bots.length > 0;
    empty.textContent = this.note || 'No bots online right now.';
    list.replaceChildren(...this.bots.map((bot) => this.item(bot, ready, pending)));
    form.hidden = !ready || !this.chosen || Boolean(pending);
    title.textContent = this.chosen ? `Challenge ${this.chosen}` : '';
    this.nodes.pending.hidden = !pending;
    pendingText.textContent = pending
      ? `Waiting for ${pending.name} to answer your challenge to ${gameTitle(pending.game)}…`
      : '';
  }

  /** One bot's entry: its name, its ratings in its games, and the button that challenges it. */
  item(bot, ready, pending) {
    const item = el('li', 'room-item bot-item');
    item.dataset.testid = 'bot-item';
    item.dataset.name = bot.username;
    const main = el('div', 'room-main');
    const name = el('span', 'room-title', bot.username);
    main.append(name, el('span', 'tag', 'BOT'));
    item.append(main);
    const ratings = el('div', 'room-meta bot-ratings');
    ratings.textContent = gamesOf(bot).map((game) => {
      const perf = perfIn(bot, game);
      const rating = Number.isFinite(perf?.rating) ? `${perf.rating}${perf.prov ? '?' : ''}` : '—';
      return `${gameTitle(game)} ${rating}`;
    }).join(' · ');
    item.append(ratings);
    if (ready && !pending) {
      const actions = el('div', 'room-actions');
      actions.append(button('Challenge', 'challenge-bot', () => this.choose(bot.username), 'small primary-btn'));
      item.append(actions);
    }
    return item;
  }
}
