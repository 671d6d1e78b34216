// Browser smoke test of Parlor's bundled web client.
//
// Starts the real server (E2E_SERVER_BIN, default target/debug/parlor) on a free port with a
// throw-away database, drives Debian's Chromium through playwright-core, and plays against
// `bot:random`: one tic-tac-toe game as X by clicking whatever cells the page offers, then
// a checkers, a chess and a Fox & Geese game by clicking the cells of legal moves (read
// from the board's `data-legal`), at least 10 moves each or until the game ends.
// Then time and results: a chess game under a 20 s clock (the running clock counts
// down, and after a move the other one runs), a per-move clock running out, a draw
// offered to `bot:easy` at the start (declined), a rematch with the seats swapped, draw
// offers and a rematch between two people (a second browser context), a restart of the server in the middle
// of a clocked game (the page reconnects and the game goes on), the leaderboard by
// rating (games against bots are not rated), and the replay of a finished game.
// Run from the repository root: `node e2e/smoke.mjs` (or `bash e2e/run.sh`).
//
// The test first checks that the server serves exactly this checkout's `static/` files
// (a binary built from another checkout would test another client) and fails if not.

import { mkdirSync, existsSync, rmSync, readdirSync } from 'node:fs';
import path from 'node:path';
import {
  ROOT, SHOT_DIR, fail, makeLog, Server, checkServedStatic, launchBrowser, watchPage, runChecks,
  expectBoardInView,
} from './harness.mjs';

const TOTAL_BUDGET_MS = 240_000;
const TTT_BUDGET_MS = 60_000;
// Games played by clicking legal moves: the game, the seat the test takes, and how many
// of its own moves it plays at least (unless the game ends first).
// E2E_GAMES=chess:0,fox_geese:0 plays other games or seats instead.
const BOARD_GAMES = process.env.E2E_GAMES
  ? process.env.E2E_GAMES.split(',').map((spec) => {
    const [game, seat] = spec.split(':');
    return { game, seat: Number(seat ?? 0), moves: 10, keyboard: game === 'chess' };
  })
  : [
    { game: 'checkers', seat: 0, moves: 10 },
    { game: 'chess', seat: 1, moves: 10, keyboard: true },
    { game: 'fox_geese', seat: 1, moves: 10 },
  ];
// Short on purpose: it must fit the server's 24-character limit and still contain markup,
// which the page has to show literally.
const PLAYER_NAME = '<b>Smoke</b> & co';
const OPPONENT_NAME = 'Smoke opponent';

const log = makeLog('smoke');

let server = null;
let browser = null;
let page = null;
let baseUrl = null;
// The finished game of the clocks check, replayed by the replay check.
let clockedGame = null;

const problems = [];
// The frames the page received from the server, by message type.
const framesByType = new Map();
const tid = (id) => page.locator(`[data-testid="${id}"]`);

async function setUp() {
  // Failure screenshots of an earlier run would only mislead.
  if (existsSync(SHOT_DIR)) {
    for (const file of readdirSync(SHOT_DIR)) if (/^failure.*\.png$/.test(file)) rmSync(path.join(SHOT_DIR, file));
  }
  server = await Server.start(log);
  const base = server.base;
  baseUrl = base;
  log(`server listening at ${base}`);

  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 360, height: 780 } });
  await checkServedStatic(base, log);
  page = await context.newPage();
  watchPage(page, problems);
  page.on('websocket', (ws) => ws.on('framereceived', ({ payload }) => {
    const type = typeof payload === 'string' ? /^\{"type":"([a-z_]+)"/.exec(payload)?.[1] : null;
    if (type) framesByType.set(type, (framesByType.get(type) ?? 0) + 1);
  }));

  await page.goto(`${base}/`);
  await tid('name-input').fill(PLAYER_NAME);
  await tid('connect').click();
  await tid('play-bot').waitFor({ state: 'visible' });
  const shownName = await tid('me').textContent();
  if (shownName !== PLAYER_NAME) fail(`signed-in name shows ${JSON.stringify(shownName)}, expected ${JSON.stringify(PLAYER_NAME)}`);
  log('signed in');
}

async function ticTacToe() {
  const begun = Date.now();
  const token = await page.evaluate(() => localStorage.getItem('parlor.token'));
  if (!token) fail('no token was stored in localStorage as parlor.token after welcome');

  await tid('game-tictactoe').check();
  await tid('bot-level').selectOption('random');
  await tid('bot-side').selectOption('0');
  await tid('play-bot').click();
  await tid('cell-8').waitFor({ state: 'visible' });
  log('room created against bot:random, playing X');

  const seatName = await tid('seat-0').locator('.seat-name').textContent();
  if (seatName !== PLAYER_NAME) fail(`seat 0 shows ${JSON.stringify(seatName)}, expected the name verbatim`);

  const enabledCells = '[data-testid^="cell-"]:not([disabled])';
  let clicks = 0;
  for (;;) {
    if (Date.now() - begun > TTT_BUDGET_MS) fail(`the game did not finish in time after ${clicks} moves`);
    // Wait for our turn (some cell enabled) or the end of the game.
    await page.waitForFunction(
      (sel) => {
        const result = document.querySelector('[data-testid="result"]');
        const error = document.querySelector('[data-testid="error"]');
        return (result && !result.hidden) || (error && !error.hidden) || document.querySelector(sel) !== null;
      },
      enabledCells,
      { timeout: 15_000 },
    );
    if (await tid('error').isVisible()) fail(`the page shows an error: ${await tid('error').textContent()}`);
    if (await tid('result').isVisible()) break;
    const cells = page.locator(enabledCells);
    const count = await cells.count();
    if (count === 0) continue;
    const cell = cells.nth(Math.floor(Math.random() * count));
    const id = await cell.getAttribute('data-testid');
    await cell.click();
    clicks += 1;
    log(`clicked ${id}`);
    if (clicks > 9) fail('more than 9 moves were offered to one player in tic-tac-toe');
  }

  const result = (await tid('result').innerText()).replace(/\s+/g, ' ').trim();
  log(`result: ${result}`);
  if (!/won|lost|draw/i.test(result)) fail(`the result panel does not say who won: ${JSON.stringify(result)}`);
  const status = await tid('status').textContent();
  if (!/game over/i.test(status)) fail(`the status line does not say the game is over: ${JSON.stringify(status)}`);
  if (clicks < 3) fail(`the game ended after only ${clicks} moves by X`);
  const errorCount = await tid('error').getAttribute('data-count');
  if (await tid('error').isVisible() || errorCount !== '0') {
    fail(`an error was shown during the game: ${await tid('error').textContent()}`);
  }
  const marks = await page.locator('[data-testid^="cell-"][data-mark="X"]').count();
  if (marks !== clicks) fail(`the board shows ${marks} X marks, but X made ${clicks} moves`);
  const labels = await page.locator('[data-testid^="cell-"]').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
  if (!labels.every((l) => /^row [1-3] column [1-3], (empty|X|O)/.test(l ?? ''))) fail(`unexpected cell labels: ${labels.join(' | ')}`);

  mkdirSync(SHOT_DIR, { recursive: true });
  const shot = path.join(SHOT_DIR, 'tictactoe.png');
  await page.screenshot({ path: shot, fullPage: true });
  log(`screenshot saved to ${path.relative(ROOT, shot)}`);

  // A reload must come back as the same player without typing the name again.
  await page.reload();
  await tid('play-bot').waitFor({ state: 'visible' });
  const again = await tid('me').textContent();
  if (again !== PLAYER_NAME) fail(`after a reload the page signed in as ${JSON.stringify(again)}`);
  const tokenAfter = await page.evaluate(() => localStorage.getItem('parlor.token'));
  if (tokenAfter !== token) fail('the token changed after a reload; the same player was not resumed');
  log('reload resumed the same player');
  if (problems.length) fail(problems.join('\n'));
}

/** The cells a move visits and its suffix, read from its notation (written for the test, not taken from the page). */
function pathOf(game, move) {
  if (game === 'chess') return { path: [move.slice(0, 2), move.slice(2, 4)], suffix: move.slice(4) };
  return { path: move.split(/[-x]/), suffix: '' };
}

/**
 * The move the test plays: a chain of jumps that could go on (to use "Stop here"), else a
 * promotion (to use the chooser), else a path of three cells or more (multi-jumps), else
 * one picked by the move number, so that different pieces move (`turn`).
 */
function chooseMove(game, legal, turn) {
  const paths = legal.map((m) => ({ move: m, ...pathOf(game, m) }));
  const key = (p) => p.path.join('>');
  const keys = new Set(paths.map(key));
  const partial = paths.find((p) => p.path.length > 1 && [...keys].some((k) => k !== key(p) && k.startsWith(`${key(p)}>`)));
  if (partial) return partial;
  const promotion = paths.find((p) => p.suffix);
  if (promotion) return promotion;
  const longest = paths.reduce((best, p) => (p.path.length > best.path.length ? p : best), paths[0]);
  if (longest.path.length > 2) return longest;
  return paths[(turn * 7) % paths.length];
}

/** The pieces on the board, by label. */
async function boardPieces() {
  return page.locator('[data-testid="board"] [data-label]').evaluateAll((els) => els.map((e) => `${e.dataset.label}=${e.dataset.piece ?? ''}`).join(' '));
}

async function waitForTurnOrEnd(game) {
  await page.waitForFunction(
    (g) => {
      const result = document.querySelector('[data-testid="result"]');
      const error = document.querySelector('[data-testid="error"]');
      const board = document.querySelector('[data-testid="board"]');
      return (result && !result.hidden) || (error && !error.hidden) ||
        (board && board.dataset.game === g && board.dataset.mine === 'true');
    },
    game,
    { timeout: 20_000 },
  );
  if (await tid('error').isVisible()) fail(`the page shows an error: ${await tid('error').textContent()}`);
}

/** Clicks, or with the keyboard tabs to, the cell of a label and activates it. */
async function activateCell(label, { keyboard }) {
  const cell = tid(`cell-${label}`);
  if (!keyboard) {
    await cell.click();
    return;
  }
  // Tab through the board from its first focusable cell until this cell has the focus.
  await page.locator('[data-testid="board"] [data-label]:not([disabled]):not([tabindex="-1"])').first().focus();
  for (let i = 0; i < 100; i += 1) {
    const focused = await page.evaluate(() => document.activeElement?.dataset?.label ?? null);
    if (focused === label) {
      await page.keyboard.press('Enter');
      return;
    }
    await page.keyboard.press('Tab');
  }
  fail(`could not reach cell ${label} with the Tab key`);
}

async function boardGame({ game, seat, moves: wanted, keyboard }) {
  const problemsBefore = problems.length;
  const errorsBefore = Number(await tid('error').getAttribute('data-count'));
  await tid(`game-${game}`).check();
  await tid('bot-level').selectOption('random');
  await tid('bot-side').selectOption(String(seat));
  await playBotAndWait(game);
  const title = await tid('game-name').textContent();
  log(`${game}: room created against bot:random, seat ${seat} (${title})`);

  const flipped = await tid('board').getAttribute('data-flipped');
  const expectFlipped = game === 'chess' ? seat === 1 : game === 'checkers' ? seat === 0 : seat === 1;
  if (flipped !== String(expectFlipped)) fail(`${game}: the board is ${flipped === 'true' ? '' : 'not '}turned for seat ${seat}`);

  const used = new Set();
  const eventsBefore = framesByType.get('moved') ?? 0;
  let mine = 0;
  for (;;) {
    await waitForTurnOrEnd(game);
    if (await tid('result').isVisible()) break;
    if (mine >= wanted) break;
    const legal = JSON.parse(await tid('board').getAttribute('data-legal'));
    if (!legal.length) fail(`${game}: it is our turn but data-legal is empty`);
    const choice = chooseMove(game, legal, mine);
    const before = await boardPieces();
    const listed = Number(await tid('moves').getAttribute('data-plies') ?? 0);
    const byKeys = keyboard && mine === 0;
    for (const label of choice.path) await activateCell(label, { keyboard: byKeys });
    if (choice.suffix) {
      await tid(`promote-${choice.suffix}`).click();
      used.add('promotion chooser');
    } else if (await tid('stop-here').isVisible()) {
      if (mine % 2 === 0) {
        await tid('stop-here').click();
        used.add('stop here button');
      } else {
        await activateCell(choice.path[choice.path.length - 1], { keyboard: false });
        used.add('stop by clicking the last point again');
      }
    }
    if (choice.path.length > 2) used.add(`path of ${choice.path.length} cells`);
    if (byKeys) used.add('keyboard (Tab/Enter)');
    mine += 1;
    // The move is in the move list and the board changed. Chess lists moves in SAN, which
    // names the destination square of every move but castling.
    await page.waitForFunction(
      ([n, move, chess]) => {
        // Chess and checkers pair two moves per line ("1. e4 e5"); the others list each
        // move on its own line. Ours is on one of the last two lines either way.
        const list = document.querySelector('[data-testid="moves"]');
        const items = [...list.querySelectorAll('li')];
        const error = document.querySelector('[data-testid="error"]');
        const shown = (text) => (chess ? text.includes(move.slice(2, 4)) || text.includes('O-O') : text.includes(move));
        return (error && !error.hidden) || (Number(list.dataset.plies) > n && items.slice(-2).some((li) => shown(li.textContent)));
      },
      [listed, choice.move, game === 'chess'],
      { timeout: 10_000 },
    ).catch(() => fail(`${game}: move ${choice.move} did not appear in the move list`));
    if (await tid('error').isVisible()) fail(`${game}: after ${choice.move} the page shows an error: ${await tid('error').textContent()}`);
    const after = await boardPieces();
    if (after === before) fail(`${game}: the board did not change after ${choice.move}`);
    log(`${game}: played ${choice.move}`);
  }
  const ended = await tid('result').isVisible();
  if (!ended && mine < wanted) fail(`${game}: stopped after ${mine} moves without a result`);
  // The page asks for moves as `moved` events (PROTOCOL.md §7.14) and drew the board
  // from them: every move above changed it.
  const events = (framesByType.get('moved') ?? 0) - eventsBefore;
  if (mine > 1 && events === 0) fail(`${game}: no move came as a moved event`);
  log(`${game}: ${events} moves came as moved events`);

  // Show a piece selected with its targets in the screenshot, when the game goes on.
  if (!ended) {
    const legal = JSON.parse(await tid('board').getAttribute('data-legal'));
    await tid(`cell-${pathOf(game, legal[0]).path[0]}`).click();
    if (!(await page.locator('[data-testid="board"] .cell.target').count())) fail(`${game}: selecting ${legal[0]}'s piece shows no target`);
  }
  if (!(await page.locator('[data-testid="board"] .cell.last').count())) fail(`${game}: the last move is not highlighted`);
  const shot = path.join(SHOT_DIR, `${game}.png`);
  mkdirSync(SHOT_DIR, { recursive: true });
  await page.screenshot({ path: shot, fullPage: true });
  log(`${game}: screenshot saved to ${path.relative(ROOT, shot)}`);

  if (!ended) {
    await page.keyboard.press('Escape');
    if (await page.locator('[data-testid="board"] .cell.selected').count()) fail(`${game}: Escape did not cancel the selection`);
    await tid('resign').click();
    await tid('resign').click();
    await tid('result').waitFor({ state: 'visible' });
  }
  const result = (await tid('result').innerText()).replace(/\s+/g, ' ').trim();
  log(`${game}: ${mine} moves played (${[...used].join(', ') || 'plain moves'}); result: ${result}`);
  // Only games between two people are rated (PROTOCOL.md §13.4): however long, a game
  // against a bot changes no rating, and the panel says why.
  const unrated = await tid('unrated').textContent().catch(() => null);
  if (!/^Not rated: the opponent was a bot\b/.test(unrated ?? '')) fail(`${game}: a game against bot:random says ${JSON.stringify(unrated)} about its rating`);
  if (await tid('result').locator('.rating-change').count()) fail(`${game}: a game against bot:random shows a rating change: ${result}`);
  if (mine >= 3) {
    // Turns alternate, so the bot made two moves or more too: the game is scored, and
    // the score says whom it was earned against.
    const score = await tid(`score-${seat}`).textContent().catch(() => null);
    if (!/^\d+ points against Random bot$/.test(score ?? '')) fail(`${game}: the game-over panel shows our score as ${JSON.stringify(score)}`);
    // What the points mean is said beside them (no rating was shown, so none is explained).
    const explained = tid('scores-explained');
    await explained.locator('summary').click();
    const words = (await explained.innerText()).replace(/\s+/g, ' ');
    if (!/What are points\?/.test(words) || !/A win scores more/.test(words) || !/against its opponent/.test(words) || /Glicko-2/.test(words)) {
      fail(`${game}: the game-over panel explains its scores as ${JSON.stringify(words)}`);
    }
  }
  if (/_/.test(await tid('result').locator('.reason').textContent())) fail(`${game}: the reason is not a phrase: ${result}`);
  const errorsAfter = Number(await tid('error').getAttribute('data-count'));
  if (errorsAfter !== errorsBefore) fail(`${game}: an error was shown during the game`);
  await tid('play-bot').waitFor({ state: 'visible' });
  if (problems.length > problemsBefore) fail(problems.slice(problemsBefore).join('\n'));
}

/** Creates a room against bot:random from a start position typed into the lobby. */
async function startFrom(game, position, seat) {
  await tid(`game-${game}`).check();
  const details = tid('start-options');
  if (!(await details.evaluate((d) => d.open))) await details.locator('summary').click();
  await tid('start-position').fill(position);
  await tid('bot-level').selectOption('random');
  await tid('bot-side').selectOption(String(seat));
  await playBotAndWait(game);
  await waitForTurnOrEnd(game);
  if (await tid('result').isVisible()) fail(`${game}: the game from ${position} ended at once`);
}

/** Resigns the game unless it is over already; returns the result panel's text. */
async function resignGame() {
  if (!(await tid('result').isVisible())) {
    await tid('resign').click();
    await tid('resign').click();
    await tid('result').waitFor({ state: 'visible' });
  }
  await tid('play-bot').waitFor({ state: 'visible' });
  return (await tid('result').innerText()).replace(/\s+/g, ' ').trim();
}

/** Waits until the move list shows this move, as players write it (or an error). */
async function expectListed(game, move) {
  await page.waitForFunction(
    (m) => [...document.querySelectorAll('[data-testid="moves"] li')].some((li) => li.textContent.split(' ').includes(m)) ||
      !document.querySelector('[data-testid="error"]').hidden,
    move,
    { timeout: 10_000 },
  ).catch(() => fail(`${game}: ${move} did not appear in the move list`));
  if (await tid('error').isVisible()) fail(`${game}: after ${move} the page shows an error: ${await tid('error').innerText()}`);
}

/** Waits until the page has played the sound `name` among its last few (data-recent). */
async function untilSound(name, what) {
  await page.waitForFunction((n) => (document.querySelector('[data-testid="sound"]')?.dataset.recent ?? '').split(' ').includes(n), name, { timeout: 5000 })
    .catch(async () => fail(`${what} did not sound as a ${name}: the last sounds were ${JSON.stringify(await tid('sound').getAttribute('data-recent'))}`));
}

/**
 * What each seat is shown to be ahead by, beside its name: `ahead` maps a seat to the
 * codes of the other side's pieces it is ahead by (joined, as `data-pieces`) and its
 * points; a seat not named must show nothing.
 */
async function expectMaterial(what, ahead) {
  const shown = {};
  for (const seat of [0, 1]) {
    const box = tid(`material-${seat}`);
    if (!(await box.count())) continue;
    const drawn = await box.locator('.piece-icon').count();
    const codes = await box.getAttribute('data-pieces');
    if (drawn !== codes.length) fail(`${what}: seat ${seat} is ahead by ${codes} but ${drawn} pieces are drawn`);
    shown[seat] = [codes, await box.getAttribute('data-points'), await box.getAttribute('aria-label')];
  }
  for (const seat of [0, 1]) {
    const want = ahead[seat];
    const got = shown[seat];
    if (!want && !got) continue;
    if (!want || !got || got[0] !== want[0] || got[1] !== String(want[1])) {
      fail(`${what}: seat ${seat} is shown ahead by ${JSON.stringify(got ?? 'nothing')}, expected ${JSON.stringify(want ?? 'nothing')}`);
    }
  }
  log(`${what}: ${JSON.stringify(Object.values(shown).map((s) => s[2]))}`);
}

/** A promotion through the chooser and a double jump, set up with options.start. */
async function startPositions() {
  const problemsBefore = problems.length;
  await startFrom('chess', '8/4P3/8/8/8/8/k7/4K3 w - - 0 1', 0);
  await expectMaterial('chess: a pawn against none', { 0: ['p', 1] });
  // The pieces are drawn from the credited sprite, kept in the page: the white king
  // fills most of e1.
  const king = await page.waitForFunction(() => {
    const cell = document.querySelector('[data-testid="cell-e1"]');
    const use = cell?.querySelector('use');
    const drawn = use?.getBoundingClientRect().width ?? 0;
    return drawn > cell.getBoundingClientRect().width * 0.5 ? { drawn, href: use.getAttribute('href') } : null;
  }, null, { timeout: 5000 }).then((handle) => handle.jsonValue())
    .catch(() => fail('the white king on e1 is not drawn from the piece sprite'));
  const sprite = await page.evaluate(async () => {
    const res = await fetch('/pieces/cburnett.svg');
    return `${res.status} ${res.headers.get('content-type')}`;
  });
  if (!sprite.startsWith('200 image/svg+xml')) fail(`the piece sprite is served as ${sprite}`);
  if (!(await tid('credits').innerText()).includes('Cburnett')) fail('the page does not credit the chess pieces');
  log(`chess: the king is drawn from ${king?.href} (${Math.round(king?.drawn ?? 0)} px), served as ${sprite}; credited`);
  await tid('cell-e7').click();
  await tid('cell-e8').click();
  const choices = await page.locator('[data-testid^="promote-"]').evaluateAll((els) => els.map((e) => e.dataset.testid).sort());
  if (choices.join() !== 'promote-b,promote-n,promote-q,promote-r') fail(`chess: the promotion chooser offers ${choices.join(', ')}`);
  await tid('promote-n').click();
  await expectListed('chess', 'e8=N');
  const piece = await tid('cell-e8').getAttribute('data-piece');
  if (piece !== 'N') fail(`chess: after e7e8n, e8 holds ${JSON.stringify(piece)}`);
  await expectMaterial('chess: promoted to a knight', { 0: ['n', 3] });
  // King and knight against king: the game may well be over already.
  log(`chess: promoted to a knight through the chooser; result: ${await resignGame()}`);

  await startFrom('checkers', 'B:W10,18,19:B6', 0);
  await expectMaterial('checkers: three men against one', { 1: ['bb', 2] });
  mkdirSync(SHOT_DIR, { recursive: true });
  await tid('seats').screenshot({ path: path.join(SHOT_DIR, 'material.png') });
  await tid('cell-6').click();
  await tid('cell-15').click();
  const targets = await page.locator('[data-testid="board"] .cell.target').evaluateAll((els) => els.map((e) => e.dataset.label).sort());
  if (targets.join() !== '22,24') fail(`checkers: after 6 and 15 the targets are ${targets.join(', ')}, expected 22 and 24`);
  await tid('cell-24').click();
  await expectListed('checkers', '6x15x24');
  for (const label of ['6', '10', '19']) {
    const left = await tid(`cell-${label}`).getAttribute('data-piece');
    if (left) fail(`checkers: after 6x15x24, square ${label} still holds ${left}`);
  }
  await expectMaterial('checkers: one man each after the double jump', {});
  await untilSound('capture', 'the double jump');
  log(`checkers: double jump 6x15x24 made by clicking each landing square; result: ${await resignGame()}`);

  // A check sounds as one: Ra8+ against a lone king.
  await startFrom('chess', '4k3/8/8/8/8/8/8/R3K3 w - - 0 1', 0);
  await tid('cell-a1').click();
  await tid('cell-a8').click();
  await expectListed('chess', 'Ra8+');
  await untilSound('check', 'Ra8+');
  log(`sounds: the capture and the check were heard as such (${await tid('sound').getAttribute('data-recent')})`);
  await resignGame();
  await tid('start-position').fill('');
  if (problems.length > problemsBefore) fail(problems.slice(problemsBefore).join('\n'));
}

// ---------------------------------------------------------------------------
// Time and results

/** Starts a game against a bot with a clock chosen in the lobby (`none`, a preset, or custom seconds). */
async function startBotGame(game, { level = 'random', seat = 0, clock = 'none', base = 300, increment = 0 } = {}) {
  await tid(`game-${game}`).check();
  await tid('time-control').selectOption(clock);
  if (clock === 'custom') {
    await tid('time-control-base').fill(String(base));
    await tid('time-control-increment').fill(String(increment));
  }
  await tid('bot-level').selectOption(level);
  await tid('bot-side').selectOption(String(seat));
  await playBotAndWait(game);
}

/**
 * Clicks "Play" against the bot and waits until the new game's board is drawn (or an
 * error shows): not the board, seats or result of the game before, which stay in the
 * page until the new room's first state comes.
 */
async function playBotAndWait(game) {
  const before = await tid('board').getAttribute('data-game-id');
  await tid('play-bot').click();
  await page.waitForFunction(([g, old]) => {
    const board = document.querySelector('[data-testid="board"]');
    const error = document.querySelector('[data-testid="error"]');
    return (error && !error.hidden) ||
      (board && board.dataset.game === g && board.dataset.gameId && board.dataset.gameId !== old && board.querySelector('[data-label]'));
  }, [game, before]);
  if (await tid('error').isVisible()) fail(`creating a ${game} room failed: ${await tid('error').innerText()}`);
}

/**
 * Sounds: a game's start, each move (ours and the bot's), low time on our clock and the
 * end; the mute switch silences them and is kept across a reload.
 */
async function sounds() {
  const problemsBefore = problems.length;
  const heard = async () => ({
    last: await tid('sound').getAttribute('data-last-sound'),
    played: Number(await tid('sound').getAttribute('data-played') ?? 0),
  });
  if (await tid('sound').getAttribute('aria-pressed') !== 'true') fail('sound is off before the player chose anything');
  await startBotGame('tictactoe', { clock: 'per_move:3000' });
  const atStart = await heard();
  if (atStart.last !== 'start') fail(`a new game sounded ${JSON.stringify(atStart.last)}, not the start`);
  const legal = JSON.parse(await tid('board').getAttribute('data-legal'));
  await tid(`cell-${legal[0]}`).click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="board"] .cell.occupied').length === 2, null, { timeout: 5000 });
  const afterMoves = await heard();
  if (afterMoves.played < atStart.played + 2 || afterMoves.last !== 'move') fail(`after our move and the bot's the sounds were ${JSON.stringify(afterMoves)}, from ${JSON.stringify(atStart)}`);
  await page.waitForFunction(() => document.querySelector('[data-testid="sound"]')?.dataset.lastSound === 'low', null, { timeout: 5000 })
    .catch(() => fail('our per-move clock ran low without a sound'));
  await tid('result').waitFor({ state: 'visible', timeout: 10_000 });
  const atEnd = await heard();
  if (atEnd.last !== 'end') fail(`the end of the game sounded ${JSON.stringify(atEnd.last)}`);
  await tid('sound').click();
  if (await tid('sound').getAttribute('aria-pressed') !== 'false') fail('the sound switch did not mute');
  await page.reload();
  await tid('play-bot').waitFor({ state: 'visible' });
  if (await tid('sound').getAttribute('aria-pressed') !== 'false') fail('after a reload the sound is on again');
  await startBotGame('tictactoe');
  const silent = await heard();
  if (silent.played !== 0) fail(`muted, the page still played ${silent.played} sound(s), the last ${silent.last}`);
  await tid('sound').click();
  log(`sounds: start, move, low time and end heard (${atEnd.played} in all); muted across a reload, none`);
  await resignNow();
  if (problems.length > problemsBefore) fail(problems.slice(problemsBefore).join('\n'));
}

/** Plays the chess move `move` (or the first legal one) and waits for the bot's reply. */
async function playChessMove(move) {
  const legal = JSON.parse(await tid('board').getAttribute('data-legal'));
  const chosen = legal.includes(move) ? move : legal[0];
  const plies = Number(await tid('moves').getAttribute('data-plies'));
  await tid(`cell-${chosen.slice(0, 2)}`).click();
  await tid(`cell-${chosen.slice(2, 4)}`).click();
  await page.waitForFunction((before) => {
    const board = document.querySelector('[data-testid="board"]');
    const result = document.querySelector('[data-testid="result"]');
    return (result && !result.hidden) ||
      (board.dataset.mine === 'true' && Number(document.querySelector('[data-testid="moves"]').dataset.plies) >= before + 2);
  }, plies, { timeout: 10_000 });
  if (await tid('result').isVisible()) fail(`the game ended early: ${await resultText()}`);
}

/** A restart of the server (SIGTERM, then the same binary on the same database) in the middle of a clocked game. */
async function restartMidGame() {
  const problemsBefore = problems.length;
  await startBotGame('chess', { clock: 'custom', base: 120, increment: 0 });
  await waitForTurnOrEnd('chess');
  await playChessMove('d2d4');
  const plies = Number(await tid('moves').getAttribute('data-plies'));
  const gameId = await tid('board').getAttribute('data-game-id');
  const botClock = await tid('clock-1').textContent();
  const beforeRestart = problems.length;
  await server.restart(log);
  log(`server restarted on port ${server.port}`);
  await page.waitForFunction(
    () => document.querySelector('[data-testid="notice"]')?.textContent.includes('goes on where it stopped'),
    null,
    { timeout: 20_000 },
  ).catch(async () => fail(`the page did not say the game was resumed; the notice reads ${JSON.stringify(await tid('notice').textContent())}`));
  await page.waitForFunction((before) => {
    const board = document.querySelector('[data-testid="board"]');
    return board.dataset.mine === 'true' && Number(document.querySelector('[data-testid="moves"]').dataset.plies) === before;
  }, plies, { timeout: 10_000 }).catch(() => fail('after the restart the page is not back at our turn with the same moves'));
  if (await tid('board').getAttribute('data-game-id') !== gameId) fail('after the restart the page shows another game');
  const botClockAfter = await tid('clock-1').textContent();
  if (botClockAfter !== botClock) fail(`the bot's clock showed ${botClock} before the restart and ${botClockAfter} after`);
  if (await tid('error').isVisible()) fail(`the page shows an error after the restart: ${await tid('error').textContent()}`);
  // While the server was down, the browser logs each request the page tried (a
  // reconnection, a look at the room list) as refused: expected, not a problem.
  const refused = problems.splice(beforeRestart).filter((p) => !/ERR_CONNECTION_REFUSED/.test(p));
  problems.push(...refused);
  await playChessMove('e2e4');
  log(`the game went on after the restart: ${plies + 2} plies, the bot's clock still ${botClockAfter}`);
  await resignNow();
  if (problems.length > problemsBefore) fail(problems.slice(problemsBefore).join('\n'));
}

/** Our seat's clock is under the board and the other one above it (as on Lichess). */
async function expectOwnClockBelow(mySeat, what) {
  const where = await page.evaluate((seat) => {
    const top = (id) => document.querySelector(`[data-testid="${id}"]`)?.getBoundingClientRect().top;
    return { board: top('board'), own: top(`clock-${seat}`), other: top(`clock-${1 - seat}`) };
  }, mySeat);
  if (!(where.own > where.board && where.other < where.board)) {
    fail(`${what}: our clock is at ${where.own} px and the other at ${where.other} px, the board at ${where.board} px; ours belongs under the board`);
  }
}

/** Resigns the game in progress (two clicks) and waits for the lobby. */
async function resignNow() {
  if (!(await tid('result').isVisible())) {
    await tid('resign').click();
    await tid('resign').click();
    await tid('result').waitFor({ state: 'visible' });
  }
  await tid('play-bot').waitFor({ state: 'visible' });
}

async function resultText(p = page) {
  return (await p.locator('[data-testid="result"]').innerText()).replace(/\s+/g, ' ').trim();
}

/**
 * A chess game under a 20 s Fischer clock: as on Lichess, neither clock runs before its
 * side's first move; then ours counts down. Our clock sits under the board, the bot's
 * above it.
 */
async function clocks() {
  const problemsBefore = problems.length;
  await startBotGame('chess', { clock: 'custom', base: 20, increment: 0 });
  await waitForTurnOrEnd('chess');
  if (await tid('result').isVisible()) fail('the clocked chess game ended at once');
  const label = await tid('room-time-control').textContent();
  if (!(await tid('room-time-control').isVisible()) || !label.includes('20 s + 0 s')) {
    fail(`the room header shows the time control as ${JSON.stringify(label)}`);
  }
  await expectOwnClockBelow(0, 'a chess game as White');
  const running = async () => [await tid('clock-0').getAttribute('data-running'), await tid('clock-1').getAttribute('data-running')];
  const atStart = await running();
  if (atStart.includes('true')) fail(`before any move the clocks run ${atStart.join('/')}: a side's clock starts with its first move`);
  await page.waitForTimeout(1200);
  const still = [await tid('clock-0').textContent(), await tid('clock-1').textContent()];
  if (still[0] !== '0:20' || still[1] !== '0:20') fail(`1.2 s before the first move the clocks show ${still.join(' and ')}, not 0:20 both`);

  await page.waitForFunction(
    () => document.querySelector('[data-testid="room-item"].current .room-meta')?.textContent.includes('clock 20 s + 0 s'),
    null,
    { timeout: 8000 },
  ).catch(() => fail('the room list does not show the time control of our room'));

  const legal = JSON.parse(await tid('board').getAttribute('data-legal'));
  const move = legal.includes('e2e4') ? 'e2e4' : legal[0];
  await tid(`cell-${move.slice(0, 2)}`).click();
  await tid(`cell-${move.slice(2, 4)}`).click();
  await expectListed('chess', move === 'e2e4' ? 'e4' : move.slice(2, 4));
  await page.waitForFunction(() => {
    const board = document.querySelector('[data-testid="board"]');
    const result = document.querySelector('[data-testid="result"]');
    return (result && !result.hidden) || (board.dataset.mine === 'true' && Number(document.querySelector('[data-testid="moves"]').dataset.plies) >= 2);
  }, null, { timeout: 10_000 });
  if (await tid('result').isVisible()) fail(`the clocked game ended early: ${await resultText()}`);
  // The bot's move glided in: from and to are the cells marked as the last move.
  const glide = await page.evaluate(() => {
    const board = document.querySelector('[data-testid="board"]');
    const last = [...board.querySelectorAll('.cell.last')].map((c) => c.dataset.label).sort();
    return { glided: board.dataset.glided ?? null, last };
  });
  const glidedCells = glide.glided ? [glide.glided.slice(0, 2), glide.glided.slice(2, 4)].sort() : [];
  if (glidedCells.join() !== glide.last.join()) fail(`the bot's move (last move ${glide.last.join('–')}) did not glide in; the last glide was ${JSON.stringify(glide.glided)}`);
  log(`clocks: the bot's move ${glide.glided} glided in`);
  const botClock = await tid('clock-1').textContent();
  if (botClock !== '0:20') fail(`after the bot's first move its clock shows ${JSON.stringify(botClock)}: a first move is free`);
  const afterFirst = await running();
  if (afterFirst[0] !== 'true' || afterFirst[1] !== 'false') fail(`once both sides had moved the clocks run ${afterFirst.join('/')}, expected ours (seat 0) only`);
  const first = await tid('clock-0').textContent();
  await page.waitForTimeout(1200);
  const second = await tid('clock-0').textContent();
  if (first === second) fail(`our running clock still shows ${first} after 1.2 s`);
  log(`clocks: neither ran before the first moves; then ours went from ${first} to ${second} in 1.2 s; the bot's stays at ${botClock}`);
  mkdirSync(SHOT_DIR, { recursive: true });
  const shot = path.join(SHOT_DIR, 'clocks.png');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: shot });
  log(`clocks: screenshot saved to ${path.relative(ROOT, shot)}`);

  // Looking back during play: the first move in the list shows the board after it (all
  // of Black still on ranks 7 and 8), where nothing can be played; Back returns.
  const blackHome = () => page.evaluate(() => [...document.querySelectorAll('[data-testid="board"] [data-label]')]
    .filter((c) => /[78]$/.test(c.dataset.label) && c.dataset.piece).length);
  const liveHome = await blackHome();
  await page.locator('[data-testid="moves"] [data-ply="1"]').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="board"]')?.dataset.browsing === '1', null, { timeout: 3000 })
    .catch(() => fail('clicking the first move in the list did not show the board after it'));
  const thenHome = await blackHome();
  if (thenHome !== 16 || liveHome !== 15) fail(`after move 1 the board shows ${thenHome} pieces on ranks 7–8 (live: ${liveHome}); expected 16, and 15 live`);
  if (await tid('board').getAttribute('data-mine') !== 'false') fail('a board looked back at can still be played on');
  if (!(await tid('browse-bar').isVisible())) fail('looking back, nothing says so or leads back to the game');
  await tid('browse-live').click();
  if (await tid('board').getAttribute('data-browsing') !== '' || await tid('board').getAttribute('data-mine') !== 'true' || await blackHome() !== 15) {
    fail('Back to the game did not bring the live board back, ours to play');
  }
  log(`clocks: move 1 looked back at during play (16 black pieces home, 15 live), then back to the game`);

  // The same by keyboard: from the last move in the list, ArrowLeft steps back to move 1
  // and End returns to the game, the focus staying on the move shown.
  const browsing = () => tid('board').getAttribute('data-browsing');
  const focusedPly = () => page.evaluate(() => document.activeElement?.dataset?.ply ?? null);
  await page.locator('[data-testid="moves"] [data-ply="2"]').focus();
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => document.querySelector('[data-testid="board"]')?.dataset.browsing === '1', null, { timeout: 3000 })
    .catch(async () => fail(`ArrowLeft on move 2 in the list shows ${JSON.stringify(await browsing())}, not the board after move 1`));
  if (await focusedPly() !== '1' || await blackHome() !== 16) fail(`after ArrowLeft the focus is on move ${await focusedPly()} and ${await blackHome()} black pieces are home`);
  await page.keyboard.press('End');
  if (await browsing() !== '' || await focusedPly() !== '2' || await blackHome() !== 15) {
    fail(`End on the list left the board browsing ${JSON.stringify(await browsing())} with the focus on move ${await focusedPly()}`);
  }
  log('clocks: ArrowLeft stepped back to move 1 and End returned to the game, by keyboard');

  clockedGame = { id: await tid('board').getAttribute('data-game-id'), move };
  await resignNow();
  // A game against a bot is never rated, whatever its length (PROTOCOL.md §13.4).
  const unrated = await tid('unrated').textContent().catch(() => null);
  if (unrated !== 'Not rated: the opponent was a bot, and only games between two people are rated.') {
    fail(`a game against bot:random shows ${JSON.stringify(unrated)} for its rating`);
  }
  if (await tid('rating-change-0').count()) fail('a game against bot:random changed our rating');
  log(`clocks: result ${await resultText()}`);
  await tid('time-control').selectOption('none');
  if (problems.length > problemsBefore) fail(problems.slice(problemsBefore).join('\n'));
}

/**
 * A 3 s per-move clock that runs out: not red at once (low time is relative to the
 * control: under 0.6 s here), the waiting side showing its whole 3 s, then red, and the
 * server ends the game.
 */
async function timeout() {
  const problemsBefore = problems.length;
  await startBotGame('tictactoe', { clock: 'per_move:3000' });
  const start = await page.evaluate(() => ['clock-0', 'clock-1'].map((id) => {
    const node = document.querySelector(`[data-testid="${id}"]`);
    return { text: node?.textContent, low: node?.dataset.low };
  }));
  if (start[0].low !== 'false') fail(`with 3 s a move, our clock is marked low at ${start[0].text}, at the start of the turn`);
  // One move each, so that the bot's clock has run once: waiting again, it shows the
  // whole allowance its next turn starts with, not what it left over.
  const legal = JSON.parse(await tid('board').getAttribute('data-legal'));
  await tid(`cell-${legal[0]}`).click();
  await page.waitForFunction(() => document.querySelector('[data-testid="board"]')?.dataset.mine === 'true' &&
    document.querySelectorAll('[data-testid="board"] .cell.occupied').length === 2, null, { timeout: 3000 })
    .catch(() => fail('the bot did not answer our first move under the 3 s clock'));
  const waiting = await tid('clock-1').textContent();
  if (waiting !== '0:03.0') fail(`the waiting side of a 3 s per-move clock shows ${JSON.stringify(waiting)}, not its whole 0:03.0`);
  await page.waitForFunction(() => document.querySelector('[data-testid="clock-0"]')?.dataset.low === 'true', null, { timeout: 5000 })
    .catch(() => fail('a running clock in its last fifth is not marked low'));
  const color = await tid('clock-0').evaluate((e) => getComputedStyle(e).color);
  const [r, g, b] = color.match(/\d+/g).map(Number);
  if (!(r > 150 && g < 100 && b < 100)) fail(`the low clock is not red: ${color}`);
  await tid('result').waitFor({ state: 'visible', timeout: 10_000 });
  const reason = await tid('result').getAttribute('data-reason');
  const text = await resultText();
  if (reason !== 'timeout' || !text.includes('You lost.') || !text.includes('You ran out of time.')) {
    fail(`after the per-move clock ran out the result is ${reason}: ${text}`);
  }
  const shot = path.join(SHOT_DIR, 'clocks-timeout.png');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: shot });
  log(`timeout: ${text} (screenshot ${path.relative(ROOT, shot)})`);
  await tid('play-bot').waitFor({ state: 'visible' });
  await tid('time-control').selectOption('none');
  if (problems.length > problemsBefore) fail(problems.slice(problemsBefore).join('\n'));
}

/**
 * A draw offered to bot:easy in the starting position: a bot accepts a draw only in a
 * drawn position, never at the start, so it declines, the page says so, and the game
 * goes on (then we resign: not rated, since the opponent was a bot).
 */
async function drawWithBot() {
  const problemsBefore = problems.length;
  await startBotGame('chess', { level: 'easy' });
  await waitForTurnOrEnd('chess');
  if (!(await tid('offer-draw').isVisible())) fail('no Offer draw button while playing');
  await tid('offer-draw').click();
  await page.waitForFunction(() => {
    const panel = document.querySelector('[data-testid="draw-panel"]');
    const result = document.querySelector('[data-testid="result"]');
    return (result && !result.hidden) || (panel.dataset.state === 'answered' && panel.textContent.includes('declined'));
  }, null, { timeout: 10_000 }).catch(async () => fail(`after offering bot:easy a draw at the start the draw panel says ${JSON.stringify(await tid('draw-panel').innerText())}`));
  if (await tid('result').isVisible()) fail(`bot:easy accepted a draw at the start: ${await resultText()}`);
  const declined = (await tid('draw-panel').innerText()).replace(/\s+/g, ' ').trim();
  if (await tid('offer-draw').textContent() !== 'Offer draw') fail('after bot:easy declined, Offer draw is not offered again');
  await resignNow();
  const text = await resultText();
  if (await tid('result').getAttribute('data-reason') !== 'resigned') fail(`after the declined draw, resigning ends the game as ${text}`);
  if (await tid('offer-draw').isVisible()) fail('Offer draw is still shown after the game ended');
  if (await tid('rating-change-0').count()) fail('a game against bot:easy changed our rating');
  const unrated = await tid('unrated').textContent().catch(() => null);
  if (!/^Not rated: the opponent was a bot\b/.test(unrated ?? '')) fail(`a game against bot:easy says ${JSON.stringify(unrated)} about its rating`);
  log(`draw offered to bot:easy at the start: ${declined}; then ${text}`);
  await tid('play-bot').waitFor({ state: 'visible' });
  if (problems.length > problemsBefore) fail(problems.slice(problemsBefore).join('\n'));
}

/** Rematch against a bot: a new game starts at once with the seats swapped and the board turned. */
async function rematchWithBot() {
  const problemsBefore = problems.length;
  await startBotGame('chess');
  await waitForTurnOrEnd('chess');
  const firstGame = await tid('board').getAttribute('data-game-id');
  if (await tid('board').getAttribute('data-flipped') !== 'false') fail('as White the board is turned');
  await resignNow();
  await tid('rematch').click();
  await page.waitForFunction((old) => {
    const board = document.querySelector('[data-testid="board"]');
    const error = document.querySelector('[data-testid="error"]');
    return (error && !error.hidden) || (board.dataset.gameId && board.dataset.gameId !== old &&
      document.querySelector('[data-testid="result"]').hidden);
  }, firstGame, { timeout: 10_000 }).catch(() => fail('Rematch did not start a new game'));
  if (await tid('error').isVisible()) fail(`Rematch failed: ${await tid('error').innerText()}`);
  await expectBoardInView(page, 'the rematch began');
  if (!(await tid('seat-1').locator('.tag.you').count()) || (await tid('seat-0').locator('.tag.you').count())) {
    fail('after the rematch we are not in seat 1');
  }
  if (await tid('board').getAttribute('data-flipped') !== 'true') fail('after the rematch, playing Black, the board is not turned');
  if (await tid('play-bot').isVisible()) fail('the lobby is shown while the rematch is being played');
  await waitForTurnOrEnd('chess');
  const status = await tid('status').textContent();
  if (!/you play Black/.test(status)) fail(`after the rematch the status says ${JSON.stringify(status)}`);
  const shot = path.join(SHOT_DIR, 'rematch.png');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: shot });
  log(`rematch with bot:random: new game as Black, board turned (${path.relative(ROOT, shot)})`);
  await resignNow();
  if (problems.length > problemsBefore) fail(problems.slice(problemsBefore).join('\n'));
}

/** Draw offers (declined, then accepted) and a rematch between two people in two browser contexts. */
async function twoPeople() {
  const problemsBefore = problems.length;
  const context = await browser.newContext({ viewport: { width: 360, height: 780 } });
  try {
    const other = await context.newPage();
    watchPage(other, problems, 'the second page');
    const otid = (id) => other.locator(`[data-testid="${id}"]`);
    await other.goto(`${baseUrl}/`);
    await otid('name-input').fill(OPPONENT_NAME);
    await otid('connect').click();
    await otid('play-bot').waitFor({ state: 'visible' });

    await tid('game-tictactoe').check();
    await tid('time-control').selectOption('none');
    if (!(await page.locator('.own-room').evaluate((d) => d.open))) await page.locator('.own-room summary').click();
    await tid('person-side').selectOption('0');
    await tid('open-room').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="status"]')?.textContent.includes('Waiting for an opponent'));
    const room = await page.evaluate(() => JSON.parse(sessionStorage.getItem('parlor.room')).id);
    const join = other.locator(`[data-testid="room-item"][data-room="${room}"] [data-testid="join-1"]`);
    await join.waitFor({ state: 'visible', timeout: 8000 });
    await join.click();
    await page.waitForFunction(() => document.querySelector('[data-testid="board"]').dataset.mine === 'true');

    // We offer; they decline.
    await tid('offer-draw').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="draw-panel"]').dataset.state === 'offered');
    if (await tid('offer-draw').textContent() !== 'Draw offered' || !(await tid('offer-draw').isDisabled())) fail('after offering, the button does not say Draw offered');
    await otid('accept-draw').waitFor({ state: 'visible' });
    await otid('decline-draw').click();
    await page.waitForFunction(() => {
      const panel = document.querySelector('[data-testid="draw-panel"]');
      return panel.dataset.state === 'answered' && panel.textContent.includes('declined');
    }).catch(() => fail('the declined draw offer is not shown to the one who made it'));
    if (await tid('offer-draw').textContent() !== 'Offer draw') fail('after the decline Offer draw is not offered again');
    log('two people: our draw offer was declined');

    // We move; they offer; we accept.
    await tid('cell-4').click();
    await other.waitForFunction(() => document.querySelector('[data-testid="board"]').dataset.mine === 'true');
    await otid('offer-draw').click();
    await tid('accept-draw').waitFor({ state: 'visible' });
    const offered = (await tid('draw-panel').innerText()).trim();
    if (!offered.includes(`${OPPONENT_NAME} (O) offers a draw.`)) fail(`the offer reads ${JSON.stringify(offered)}`);
    await tid('accept-draw').click();
    await tid('result').waitFor({ state: 'visible' });
    await otid('result').waitFor({ state: 'visible' });
    for (const [who, p] of [['we', page], ['they', other]]) {
      const reason = await p.locator('[data-testid="result"]').getAttribute('data-reason');
      if (reason !== 'draw_agreed') fail(`${who} see the result ${reason}, expected draw_agreed`);
    }
    log(`two people: their draw offer was accepted: ${await resultText()}`);

    // Rematch: we ask, they see it and accept; the seats swap.
    const firstGame = await tid('board').getAttribute('data-game-id');
    await tid('rematch').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="rematch-status"]')?.textContent.startsWith('Waiting for'));
    if (!(await tid('rematch').isDisabled())) fail('after asking for a rematch the button is still enabled');
    await other.waitForFunction(() => document.querySelector('[data-testid="rematch-status"]')?.textContent.includes('wants a rematch'));
    if (await otid('rematch').textContent() !== 'Accept rematch') fail('the other player is not offered Accept rematch');
    await otid('rematch').click();
    await page.waitForFunction((old) => {
      const board = document.querySelector('[data-testid="board"]');
      return board.dataset.gameId && board.dataset.gameId !== old;
    }, firstGame).catch(() => fail('the rematch did not start for us'));
    if (!(await tid('seat-1').locator('.tag.you').count())) fail('after the rematch we are not in seat 1 (O)');
    await other.waitForFunction(() => document.querySelector('[data-testid="board"]').dataset.mine === 'true')
      .catch(() => fail('after the rematch the other player (now X) cannot move'));
    const ours = await tid('status').textContent();
    if (!ours.includes(`Waiting for ${OPPONENT_NAME} (X)`)) fail(`after the rematch our status says ${JSON.stringify(ours)}`);
    log('two people: rematch started with the seats swapped');
    await resignNow();
  } finally {
    await context.close().catch(() => {});
  }
  if (problems.length > problemsBefore) fail(problems.slice(problemsBefore).join('\n'));
}

/**
 * The leaderboard by rating does not list this player, whose chess games were all
 * against bots (only games between people are rated), and says why.
 */
async function leaderboardByRating() {
  await tid('leaderboard-game').selectOption('chess');
  await tid('leaderboard-by').selectOption('rating');
  await page.waitForFunction(() => {
    const list = document.querySelector('[data-testid="leaderboard"]');
    const note = document.querySelector('[data-testid="leaderboard-note"]').textContent;
    return list.dataset.by === 'rating' && /Only games between two people are rated/.test(note);
  }, null, { timeout: 8000 }).catch(async () => fail(`the chess leaderboard by rating says ${JSON.stringify(await tid('leaderboard-note').textContent())}, not that only games between people are rated`));
  const mine = await page.locator('[data-testid="leaderboard"] .lb-entry.mine').count();
  if (mine) fail(`after chess games against bots only, the chess rating leaderboard lists us: ${await tid('leaderboard').innerText()}`);
  log(`leaderboard by rating: we are not on it after games against bots only: ${await tid('leaderboard-note').textContent()}`);
  await tid('leaderboard-by').selectOption('score');
  await page.waitForFunction(() => document.querySelector('[data-testid="leaderboard"]').dataset.by === 'score');
}

/** Replays the clocked game: its positions, the moves (SAN) with clocks, the PGN, and again after a reload. */
async function replayGame() {
  const problemsBefore = problems.length;
  if (!clockedGame?.id) fail('there is no finished clocked game to replay (the clocks check failed)');
  const open = async () => {
    await page.locator(`[data-testid="recent-game"][data-game-id="${clockedGame.id}"] [data-testid="recent-replay"]`).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="replay"]').dataset.loaded === 'true');
  };
  await open();
  const rows = await page.locator('[data-testid="replay-moves"] tbody tr').count();
  const columns = await page.locator('[data-testid="replay-moves"] thead th').count();
  if (rows < 2) fail(`the replay lists ${rows} moves, expected at least 2`);
  if (columns !== 6) fail(`the replay's move table has ${columns} columns, expected 6 (with both clocks)`);
  const ply = async () => Number(await tid('replay').getAttribute('data-ply'));
  if (await ply() !== rows) fail(`the replay opens at move ${await ply()}, expected the last (${rows})`);
  if (!(await tid('replay-board').isVisible())) fail('the replay of a game this page followed shows no board');
  if (await tid('board').isVisible()) fail('the live board is still shown under the replay');
  await tid('replay-first').click();
  if (await ply() !== 0) fail('First does not go to the start');
  const from = clockedGame.move.slice(0, 2);
  const to = clockedGame.move.slice(2, 4);
  if (!(await tid(`replay-cell-${from}`).getAttribute('data-piece'))) fail(`at the start the replay shows no piece on ${from}`);
  await page.keyboard.press('ArrowRight');
  if (await ply() !== 1) fail('the right arrow key does not step forward');
  const moved = [await tid(`replay-cell-${from}`).getAttribute('data-piece'), await tid(`replay-cell-${to}`).getAttribute('data-piece')];
  if (moved[0] !== '' || moved[1] === '') fail(`after ${clockedGame.move} the replay shows ${from}=${moved[0]} ${to}=${moved[1]}`);
  await tid('replay-forward').click();
  await page.keyboard.press('ArrowLeft');
  if (await ply() !== 1) fail('the left arrow key does not step back');
  await page.keyboard.press('End');
  if (await ply() !== rows) fail('End does not go to the last move');
  const href = await tid('replay-pgn').getAttribute('href');
  const pgn = await page.evaluate(async (url) => (await fetch(url)).text(), href);
  if (!pgn.startsWith('[Event "Parlor game"]') || !pgn.includes('[Result "0-1"]')) fail(`the PGN link gives ${JSON.stringify(pgn.slice(0, 80))}`);
  const shot = path.join(SHOT_DIR, 'replay.png');
  await tid('replay-first').click();
  await page.keyboard.press('ArrowRight');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: shot });
  log(`replay: ${rows} moves with clocks, stepped with buttons and keys; PGN ${pgn.split('\n').filter((l) => /^1\./.test(l))[0] ?? ''} (${path.relative(ROOT, shot)})`);
  await tid('replay-close').click();
  if (await tid('replay').isVisible()) fail('Close replay does not close it');

  // After a reload the page has seen none of the positions: they come from the server.
  await page.reload();
  await tid('me').waitFor({ state: 'attached' });
  await tid('play-bot').waitFor({ state: 'visible' });
  await open();
  if (!(await tid('replay-board').isVisible())) fail('after a reload the replay draws no board');
  if (await tid('replay-missing').isVisible()) fail('after a reload the replay says a position is missing');
  const again = await page.locator('[data-testid="replay-moves"] tbody tr').count();
  if (again !== rows) fail(`after a reload the replay lists ${again} moves, expected ${rows}`);
  await tid('replay-first').click();
  if (!(await tid(`replay-cell-${from}`).getAttribute('data-piece'))) fail(`after a reload the replay's start shows no piece on ${from}`);
  await page.keyboard.press('ArrowRight');
  const after = [await tid(`replay-cell-${from}`).getAttribute('data-piece'), await tid(`replay-cell-${to}`).getAttribute('data-piece')];
  if (after[0] !== '' || after[1] === '') fail(`after a reload, ${clockedGame.move} replays as ${from}=${after[0]} ${to}=${after[1]}`);
  const first = (await tid('replay-move-1').textContent()).trim();
  if (first === clockedGame.move || !first.includes(to)) fail(`the replay lists the first move as ${JSON.stringify(first)}, not in SAN`);
  log(`replay after a reload: boards from the server, first move listed as ${first}`);
  await tid('replay-close').click();
  if (problems.length > problemsBefore) fail(problems.slice(problemsBefore).join('\n'));
}

/** After a failed check: back to the lobby (resigning a game in progress) for the next one. */
async function recover() {
  try {
    await page.reload();
    await tid('me').waitFor({ state: 'attached' });
    await page.waitForTimeout(500);
    if (await tid('resign').isVisible()) {
      await tid('resign').click();
      await tid('resign').click();
    }
    await tid('play-bot').waitFor({ state: 'visible', timeout: 5000 });
  } catch {
    // The next check will say what is wrong.
  }
}

async function cleanup() {
  if (browser) await browser.close().catch(() => {});
  if (server) await server.stop().catch(() => {});
}

const CHECKS = [
  ['tic-tac-toe against bot:random, then a reload', ticTacToe],
  ...BOARD_GAMES.map((g) => [`${g.game} against bot:random as seat ${g.seat}`, () => boardGame(g)]),
  ['start positions: a chess promotion and a checkers double jump, and the material each side is ahead by', startPositions],
  ['clocks of a chess game under a 20 s clock against bot:random', clocks],
  ['a server restart in the middle of a clocked game', restartMidGame],
  ['timeout of a 3 s per-move clock', timeout],
  ['sounds of a game, and the mute switch kept across a reload', sounds],
  ['draw offered to bot:easy at the start, declined', drawWithBot],
  ['rematch against bot:random with the seats swapped', rematchWithBot],
  ['two-people draw offers and rematch', twoPeople],
  ['leaderboard by rating', leaderboardByRating],
  ['replay of the clocked game', replayGame],
];

/** After a failure: a screenshot of the page and the end of the server's log. */
async function report(name) {
  if (page) {
    const shot = path.join(SHOT_DIR, `failure-${name.split(' ')[0]}.png`);
    try {
      mkdirSync(SHOT_DIR, { recursive: true });
      await page.screenshot({ path: shot, fullPage: true, timeout: 5000 });
      console.error(`screenshot of the failure: ${path.relative(ROOT, shot)}`);
    } catch {
      // The page may be gone; the message above is what matters.
    }
  }
  if (server?.output) console.error(`--- last server output ---\n${server.tail()}\n---`);
}

await runChecks({
  tag: 'smoke',
  log,
  checks: CHECKS,
  budgetMs: TOTAL_BUDGET_MS,
  setUp,
  async onFailure(name, err, { setUp: duringSetUp }) {
    await report(name);
    if (!duringSetUp) await recover();
  },
  tearDown: cleanup,
  abort() {
    server?.kill();
    browser?.close().catch(() => {});
  },
});
