// Browser test of "Bots online" (docs/PROTOCOL.md §6.20–6.21, docs/BOT_API.md): a person
// challenges a bot account whose engine plays through the Bot API, from the page alone.
//
// Fishbot is a real bot account: a guest made in a browser, upgraded with
// `POST /api/bot/account/upgrade`, taking tic-tac-toe and chess, whose engine (in this
// script, over HTTP and NDJSON only) declines 1+0 games as too fast, leaves 10+5 ones
// unanswered, accepts the rest and plays tic-tac-toe's lowest free cell.
// Checked: the card lists Fishbot with its ratings in its games before Ann signs in,
// and a Challenge button after; a declined challenge says the bot's reason; a challenge
// taken back reaches the bot as `challengeCanceled`; an accepted rated challenge puts Ann
// in the game's room at the side she chose, Fishbot's seat marked BOT, she beats the bot
// (no Rematch offered: an engine plays again when challenged again), and the game is in
// both players' histories and on the rating leaderboard (shown on the page for both,
// Fishbot marked BOT).
// axe-core must find nothing serious on the card and the form, light and dark; screenshots
// of the card go to /tmp/shots/ (E2E_SHOTS overrides).
// Run from the repository root: `node e2e/bots.mjs` (or `bash e2e/run.sh`).

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fail, makeLog, Server, checkServedStatic, launchBrowser, watchPage, runChecks, closers } from './harness.mjs';
import { axeReport } from './a11y.mjs';

const TOTAL_BUDGET_MS = 150_000;
const DESKTOP = { width: 1280, height: 800 };
const BOT_NAME = 'Fishbot';
const SHOTS = process.env.E2E_SHOTS || '/tmp/shots';

const log = makeLog('bots');
const problems = [];
let server = null;
let browser = null;
let ann = null;
let bot = null;

/** The JSON lines of a streamed NDJSON body, as they come; keep-alive blank lines skipped. */
async function* ndjson(body) {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, end).trim();
      buffered = buffered.slice(end + 1);
      if (line) yield JSON.parse(line);
    }
  }
}

/** A bot account's engine, over the Bot API alone: what a third-party bot does. */
class TestBot {
  constructor(base, token, id) {
    this.base = base;
    this.token = token;
    this.id = id;
    this.stop = new AbortController();
    /** Challenges seen, canceled and games played, by id. */
    this.challenges = [];
    this.canceled = [];
    this.games = [];
    this.errors = [];
  }

  async request(method, path, body) {
    const headers = { authorization: `Bearer ${this.token}` };
    if (body) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(`${this.base}${path}`, { method, headers, body, signal: this.stop.signal });
    if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${await res.text()}`);
    return res;
  }

  /** Reads the event stream until stopped, answering challenges and playing games. */
  async run() {
    const res = await this.request('GET', '/api/stream/event');
    for await (const event of ndjson(res.body)) {
      this.onEvent(event).catch((err) => this.errors.push(String(err)));
    }
  }

  async onEvent(event) {
    if (event.type === 'challenge' && event.challenge.challenger.id !== this.id) {
      const challenge = event.challenge;
      this.challenges.push(challenge);
      const limit = challenge.timeControl?.limit;
      if (limit === 60) await this.request('POST', `/api/challenge/${challenge.id}/decline`, 'reason=tooFast');
      else if (limit !== 600) await this.request('POST', `/api/challenge/${challenge.id}/accept`);
    } else if (event.type === 'challengeCanceled') {
      this.canceled.push(event.challenge.id);
    } else if (event.type === 'gameStart') {
      this.games.push(event.game.gameId);
      await this.play(event.game.gameId);
    }
  }

  /** Plays tic-tac-toe's lowest free cell whenever the game stream says it is this bot's turn. */
  async play(id) {
    const res = await this.request('GET', `/api/bot/game/stream/${id}`);
    let seat = null;
    for await (const line of ndjson(res.body)) {
      let state = line;
      if (line.type === 'gameFull') {
        seat = line.white.id === this.id ? 0 : 1;
        state = line.state;
      }
      if (line.type !== 'gameFull' && line.type !== 'gameState') continue;
      if (state.status !== 'started') return;
      const moves = state.moves.split(' ').filter(Boolean);
      if (moves.length % 2 !== seat) continue;
      const cell = [...Array(9).keys()].find((i) => !moves.includes(String(i)));
      await this.request('POST', `/api/bot/game/${id}/move/${cell}`);
    }
  }
}

/** A browser context signed in as `name`. */
async function signIn(name) {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  watchPage(page, problems, `${name}'s page`);
  await page.goto(`${server.base}/`);
  await page.locator('[data-testid="name-input"]').fill(name);
  await page.locator('[data-testid="connect"]').click();
  await page.locator('[data-testid="play-bot"]').waitFor({ state: 'visible' });
  return { name, page, context, tid: (id) => page.locator(`[data-testid="${id}"]`) };
}

/** Makes Fishbot: a guest signed in once in a browser, then upgraded to a bot account taking two games. */
async function makeBot() {
  const guest = await signIn(BOT_NAME);
  const token = await guest.page.evaluate(() => localStorage.getItem('parlor.token'));
  await guest.context.close();
  if (!token) fail('the page kept no token for its guest');
  const made = new TestBot(server.base, token, null);
  await made.request('POST', '/api/bot/account/upgrade');
  await made.request('POST', '/api/bot/account/games', 'games=tictactoe,chess');
  made.id = (await (await made.request('GET', '/api/account')).json()).id;
  made.run().catch((err) => {
    if (!made.stop.signal.aborted) made.errors.push(String(err));
  });
  return made;
}

/** Fails with what was found if the page or the bot met problems. */
function noProblems() {
  const found = [...problems.splice(0), ...(bot?.errors.splice(0) ?? [])];
  if (found.length) fail(found.join('\n'));
}

/** Waits until `test` holds of the bot, or fails saying `what`. */
async function botSees(test, what) {
  const until = Date.now() + 10_000;
  while (!test()) {
    if (Date.now() > until) fail(`the bot never saw ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A screenshot of the Bots card, to /tmp/shots/ (E2E_SHOTS overrides). */
async function shoot(name) {
  mkdirSync(SHOTS, { recursive: true });
  const file = path.join(SHOTS, `${name}.png`);
  await ann.page.locator('#bots').screenshot({ path: file });
  log(`screenshot ${file}`);
}

async function audit(where) {
  const found = [];
  for (const scheme of ['light', 'dark']) {
    await ann.page.emulateMedia({ colorScheme: scheme });
    const { violations } = await axeReport(ann.page);
    found.push(...violations.map((v) => `${where} (${scheme}): ${v}`));
  }
  await ann.page.emulateMedia({ colorScheme: 'light' });
  if (found.length) fail(`axe-core found:\n  ${found.join('\n  ')}`);
}

async function setUp() {
  server = await Server.start(log);
  await checkServedStatic(server.base, log);
  browser = await launchBrowser();
  bot = await makeBot();
  log(`bot account ${BOT_NAME} (${bot.id}) online`);
}

/** Before signing in the card lists the bot and its ratings; once signed in, it can be challenged. */
async function listedWithRatings() {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  watchPage(page, problems, "Ann's page");
  await page.goto(`${server.base}/`);
  const entry = page.locator(`[data-testid="bot-item"][data-name="${BOT_NAME}"]`);
  await entry.waitFor({ state: 'visible', timeout: 15_000 }).catch(() => fail('the Bots online card does not list Fishbot'));
  const text = (await entry.innerText()).replace(/\s+/g, ' ');
  if (!/BOT/.test(text) || !/Tic-tac-toe 1500\?/.test(text) || !/Chess 1500\?/.test(text) || /Checkers/.test(text)) {
    fail(`Fishbot's entry reads ${JSON.stringify(text)}: not marked a bot, or not its games' provisional ratings`);
  }
  if (await entry.locator('[data-testid="challenge-bot"]').count()) fail('a visitor who has not signed in is offered to challenge');
  await context.close();
  ann = await signIn('Ann');
  await ann.page.locator(`[data-testid="bot-item"][data-name="${BOT_NAME}"] [data-testid="challenge-bot"]`).click();
  await ann.tid('challenge-form').waitFor({ state: 'visible' });
  const title = await ann.tid('challenge-title').innerText();
  if (title !== `Challenge ${BOT_NAME}`) fail(`the form is titled ${JSON.stringify(title)}`);
  const games = await ann.tid('challenge-game').locator('option').evaluateAll((os) => os.map((o) => o.value));
  if (JSON.stringify(games) !== JSON.stringify(['tictactoe', 'chess'])) fail(`the form offers the games ${JSON.stringify(games)}`);
  log(`listed: ${text}`);
  await shoot('bots-challenge-form');
  await audit('the challenge form');
  noProblems();
}

/** A 1+0 challenge is declined by the bot; the page says why in the bot's words. */
async function declinedSaysWhy() {
  await ann.tid('challenge-game').selectOption('chess');
  await ann.tid('challenge-clock').selectOption({ label: '1+0' });
  await ann.tid('challenge-send').click();
  await ann.page.waitForFunction(() => document.querySelector('[data-testid="notice"]')?.textContent.includes('declined'), null, { timeout: 10_000 })
    .catch(() => fail('no notice said the challenge was declined'));
  const notice = await ann.tid('notice').innerText();
  if (!notice.startsWith(`${BOT_NAME} declined your challenge: `) || !/too fast/i.test(notice)) fail(`the notice reads ${JSON.stringify(notice)}`);
  if (await ann.tid('challenge-pending').isVisible()) fail('the declined challenge is still shown as waiting');
  log(`declined: ${notice}`);
  noProblems();
}

/** A 10+5 challenge waits for its answer until taken back; the bot hears it was canceled. */
async function takenBack() {
  await ann.tid('challenge-clock').selectOption({ label: '10+5' });
  await ann.tid('challenge-send').click();
  await ann.tid('challenge-pending').waitFor({ state: 'visible' });
  const waiting = await ann.tid('challenge-pending-text').innerText();
  if (waiting !== `Waiting for ${BOT_NAME} to answer your challenge to Chess…`) fail(`the waiting line reads ${JSON.stringify(waiting)}`);
  await botSees(() => bot.challenges.some((c) => c.timeControl?.limit === 600), 'the 10+5 challenge');
  await shoot('bots-challenge-waiting');
  await audit('a challenge waiting for its answer');
  await ann.tid('challenge-cancel').click();
  const id = bot.challenges.find((c) => c.timeControl?.limit === 600).id;
  await botSees(() => bot.canceled.includes(id), 'the challenge taken back');
  await ann.tid('challenge-pending').waitFor({ state: 'hidden' });
  noProblems();
}

/** Accepted: Ann plays X against the bot, wins, and the rated game is in both histories and on the leaderboard. */
async function acceptedAndPlayed() {
  const entry = ann.page.locator(`[data-testid="bot-item"][data-name="${BOT_NAME}"] [data-testid="challenge-bot"]`);
  if (!(await ann.tid('challenge-form').isVisible())) await entry.click();
  await ann.tid('challenge-game').selectOption('tictactoe');
  await ann.tid('challenge-clock').selectOption('none');
  await ann.tid('challenge-side').selectOption('0');
  await ann.tid('challenge-rated').check();
  await ann.tid('challenge-send').click();
  await ann.tid('board').waitFor({ state: 'visible', timeout: 15_000 }).catch(() => fail('the accepted challenge did not open the game'));
  const seats = (await ann.tid('seats').innerText()).replace(/\s+/g, ' ');
  if (!seats.includes('Ann') || !seats.includes(`${BOT_NAME} BOT`)) fail(`the seats read ${JSON.stringify(seats)}: Fishbot missing, or not marked a bot`);
  // The bot plays the lowest free cell: 1, then 2; Ann's column 0, 3, 6 wins.
  for (const cell of [0, 3, 6]) {
    await ann.page.waitForFunction(() => document.querySelector('[data-testid="board"]')?.dataset.mine === 'true', null, { timeout: 15_000 })
      .catch(() => fail(`Ann's turn to play cell ${cell} never came`));
    await ann.tid(`cell-${cell}`).click();
  }
  await ann.tid('result').waitFor({ state: 'visible', timeout: 15_000 });
  const result = (await ann.tid('result').innerText()).replace(/\s+/g, ' ');
  if (!/You won/i.test(result) || !/rating/i.test(result)) fail(`the result reads ${JSON.stringify(result)}: not Ann's win, or not rated`);
  if (await ann.tid('rematch').count()) fail('a Rematch button is offered against an engine, which never answers one');
  const again = await ann.tid('rematch-status').innerText();
  if (again !== `To play ${BOT_NAME} again, challenge it from Bots online.`) fail(`the rematch line reads ${JSON.stringify(again)}`);
  const roomId = bot.games.at(-1);
  if (!roomId) fail('the bot was never told the game started');
  const room = await (await fetch(`${server.base}/api/rooms/${roomId}`)).json();
  for (const seat of room.seats ?? []) {
    const body = await (await fetch(`${server.base}/api/players/${seat.player_id}/games`)).json();
    const games = Array.isArray(body.games) ? body.games : [];
    const stored = games.find((g) => g.game_id === room.game_id);
    if (stored?.status !== 'finished' || stored.winner !== 0) {
      fail(`${seat.name}'s history does not hold Ann's win ${room.game_id}: ${JSON.stringify(body).slice(0, 400)}`);
    }
  }
  if (room.seats?.[1]?.player_id !== bot.id) fail(`the room's seats are ${JSON.stringify(room.seats)}`);
  await ann.tid('leaderboard-game').selectOption('tictactoe');
  await ann.tid('leaderboard-by').selectOption('rating');
  await ann.page.waitForFunction((name) => {
    const text = document.querySelector('[data-testid="leaderboard"]')?.textContent ?? '';
    return text.includes('Ann') && text.includes(`${name} BOT`);
  }, BOT_NAME, { timeout: 10_000 }).catch(async () => fail(`the rating leaderboard reads ${JSON.stringify(await ann.tid('leaderboard').innerText())}`));
  log(`played: ${result}`);
  noProblems();
}

const close = closers(() => ({ browser, server }));
await runChecks({
  tag: 'bots',
  log,
  checks: [
    ['the card lists a bot online with its ratings; signed in, the form offers its games', listedWithRatings],
    ['a challenge the bot declines says why', declinedSaysWhy],
    ['a challenge waits for its answer and can be taken back', takenBack],
    ['an accepted rated challenge is played in its room and lands in both histories and the leaderboard', acceptedAndPlayed],
  ],
  budgetMs: TOTAL_BUDGET_MS,
  setUp,
  async onFailure() {
    if (server?.output) console.error(`--- last server output ---\n${server.tail(15)}\n---`);
  },
  async tearDown() {
    bot?.stop.abort();
    await close.tearDown();
  },
  abort: close.abort,
});
