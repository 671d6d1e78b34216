// Browser checks that every game explains itself and every stored game has an address.
//
// Starts the real server (E2E_SERVER_BIN) with Fox & Geese's fox_wins_below set to 5,
// not the default 4, so that the page can only pass by showing the server's own number.
// Then: the Rules button beside each game of the chooser opens that game's rules in a
// dialog (the focus inside it, Escape giving it back), with the facts a newcomer needs;
// the Rules button of a room's header opens the room's game's rules; axe-core finds
// nothing on the dialog in light or dark; and a tic-tac-toe game played against a bot
// is shown, after the server has restarted, by a fresh page opened at its address
// /game/<id>, which "Link to this game" gives. Screenshots of the dialog and of
// /game/<id> at 1280×800 and 390×844 go to E2E_SHOT_DIR (default target/e2e).
// Run from the repository root: `node e2e/rules.mjs` (or `bash e2e/run.sh`).

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import {
  ROOT, SHOT_DIR, fail, makeLog, Server, checkServedStatic, launchBrowser, watchPage, runChecks, closers,
} from './harness.mjs';
import { axeReport } from './a11y.mjs';

const TOTAL_BUDGET_MS = 180_000;
const FOX_WINS_BELOW = 5;
const SHOTS = process.env.E2E_SHOT_DIR || SHOT_DIR;
const WIDE = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/** What each game's rules must say, as patterns of the dialog's text. */
const FACTS = {
  tictactoe: [/three of your marks in a row/i, /X moves first/i, /full board/i],
  checkers: [/captures are compulsory/i, /must go on\s+jumping/i, /crowned king/i, /no legal move/i],
  chess: [/checkmate/i, /castling/i, /en passant/i, /stalemate/i],
  fox_geese: [
    /geese win by trapping the fox/i,
    new RegExp(`fox also wins as soon as fewer than ${FOX_WINS_BELOW} geese are left`, 'i'),
    /geese never move backward/i,
    /fox may chain jumps/i,
    /jumping is never compulsory/i,
    /geese move first/i,
    /Stop here/,
  ],
};
const TITLES = { tictactoe: 'Tic-tac-toe', checkers: 'Checkers', chess: 'Chess', fox_geese: 'Fox & Geese' };

const log = makeLog('rules');
const problems = [];
let server = null;
let browser = null;
let page = null;
/** The id of the finished game the address check opens. */
let finishedGame = null;

const tid = (id, on = page) => on.locator(`[data-testid="${id}"]`);

/** A page of its own, at `viewport`, watched for errors. */
async function newPage(viewport, label) {
  const context = await browser.newContext({ viewport });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const fresh = await context.newPage();
  watchPage(fresh, problems, label);
  return fresh;
}

async function setUp() {
  server = await Server.start(log, `\n[fox_geese]\nfox_wins_below = ${FOX_WINS_BELOW}\n`);
  log(`server listening at ${server.base}`);
  await checkServedStatic(server.base, log);
  browser = await launchBrowser();
  page = await newPage(WIDE, 'the page');
  await page.goto(`${server.base}/`);
  await tid('name-input').fill('Rules reader');
  await tid('connect').click();
  await tid('play-bot').waitFor({ state: 'visible' });
  mkdirSync(SHOTS, { recursive: true });
  log('signed in');
}

/** Fails if the page reported an error since the start. */
function noProblems() {
  if (problems.length) fail(problems.join('; '));
}

/** Waits for the dialog to show `game`'s rules; returns its text. */
async function dialogShows(game, on = page) {
  const dialog = tid('rules-dialog', on);
  await dialog.waitFor({ state: 'visible' });
  await on.waitForFunction((g) => {
    const d = document.querySelector('[data-testid="rules-dialog"]');
    return d.open && d.dataset.game === g && d.dataset.loaded === 'true';
  }, game, { timeout: 10_000 }).catch(async () => {
    fail(`the rules dialog did not show ${game}'s rules: ${JSON.stringify(await dialog.innerText().catch(() => ''))}`);
  });
  const title = await tid('rules-title', on).textContent();
  if (!title.includes(TITLES[game])) fail(`the rules of ${game} are titled ${JSON.stringify(title)}`);
  const text = (await dialog.innerText()).replace(/\s+/g, ' ');
  const missing = FACTS[game].filter((fact) => !fact.test(text));
  if (missing.length) fail(`${game}'s rules do not say ${missing.join(', ')}: ${JSON.stringify(text.slice(0, 400))}…`);
  // Shown as a document (headings and lists), not as Markdown source or a link to one.
  const shape = await on.evaluate(() => {
    const body = document.querySelector('[data-testid="rules-body"]');
    return { headings: body.querySelectorAll('h3').length, items: body.querySelectorAll('li').length, links: body.querySelectorAll('a').length, hashes: /(^|\n)#/.test(body.textContent) };
  });
  if (shape.headings < 3 || shape.items < 3 || shape.links || shape.hashes) fail(`${game}'s rules are not drawn as a document: ${JSON.stringify(shape)}`);
  const focusInside = await on.evaluate(() => document.querySelector('[data-testid="rules-dialog"]').contains(document.activeElement));
  if (!focusInside) fail(`the focus did not move into the rules dialog of ${game}`);
  return text;
}

/** Closes the dialog with `how` ('Escape' or 'Close') and checks the focus is back on `opener`. */
async function closeDialog(how, openerId, on = page) {
  if (how === 'Escape') await on.keyboard.press('Escape');
  else await tid('rules-close', on).click();
  await tid('rules-dialog', on).waitFor({ state: 'hidden' });
  const back = await on.evaluate(() => document.activeElement?.dataset?.testid ?? document.activeElement?.tagName);
  if (back !== openerId) fail(`after ${how} the focus is on ${back}, not on ${openerId}, which opened the rules`);
}

async function rulesFromTheChooser() {
  for (const game of Object.keys(FACTS)) {
    await tid(`rules-${game}`).click();
    const text = await dialogShows(game);
    if (game === 'fox_geese') {
      const settings = (await tid('rules-settings').innerText()).replace(/\s+/g, ' ');
      if (!settings.includes(`fewer than ${FOX_WINS_BELOW} geese`) || !/geese/.test(settings) || !/40 moves/.test(settings)) {
        fail(`"On this server" does not give this server's Fox & Geese settings: ${JSON.stringify(settings)}`);
      }
      log(`fox_geese: ${text.length} characters; on this server: ${settings}`);
    }
    await closeDialog(game === 'chess' ? 'Close' : 'Escape', `rules-${game}`);
    log(`chooser: the rules of ${game} open, say what they must, and give the focus back`);
  }
  noProblems();
}

async function rulesFromARoom() {
  for (const game of Object.keys(FACTS)) {
    await tid(`game-${game}`).check();
    await tid('bot-level').selectOption('random');
    await page.evaluate(() => { document.querySelector('[data-testid="bot-vs-bot-options"]').open = true; });
    await tid('bot-vs-bot').click();
    await page.waitForFunction((g) => {
      const card = document.querySelector('#game');
      return card && !card.hidden && document.querySelector('[data-testid="board"]')?.classList.contains(`game-${g}`);
    }, game);
    // The chooser shows another game now, so the dialog can only be right by the room's.
    const other = game === 'tictactoe' ? 'chess' : 'tictactoe';
    await tid(`game-${other}`).check();
    await tid('room-rules').click();
    await dialogShows(game);
    await closeDialog('Escape', 'room-rules');
    await tid('leave').click();
    await page.waitForFunction(() => document.querySelector('#game').hidden);
    log(`room: the header's Rules opens the rules of the room's game, ${game}`);
  }
  noProblems();
}

async function accessibleDialog() {
  await tid('rules-fox_geese').click();
  await dialogShows('fox_geese');
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    const { violations, contrastChecked } = await axeReport(page);
    if (contrastChecked === 0 || violations.length) fail(`axe-core on the rules dialog (${scheme}): ${violations.join('; ') || 'nothing checked'}`);
    log(`axe-core on the rules dialog (${scheme}): contrast of ${contrastChecked} elements checked, nothing found`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await closeDialog('Close', 'rules-fox_geese');
  // Screenshots at both sizes, light and dark, for a person to look at.
  for (const [name, viewport] of [['wide', WIDE], ['phone', PHONE]]) {
    const other = await newPage(viewport, `the ${name} page`);
    await other.goto(`${server.base}/`);
    await tid('name-input', other).fill(`Reader ${name}`);
    await tid('connect', other).click();
    await tid('game-pick', other).scrollIntoViewIfNeeded();
    await other.screenshot({ path: path.join(SHOTS, `chooser-${name}.png`) });
    await tid(`rules-fox_geese`, other).click();
    await dialogShows('fox_geese', other);
    for (const scheme of ['light', 'dark']) {
      await other.emulateMedia({ colorScheme: scheme });
      const shot = path.join(SHOTS, `rules-${name}-${scheme}.png`);
      await other.screenshot({ path: shot });
      log(`screenshot ${path.relative(ROOT, shot)}`);
    }
    const fits = await other.evaluate(() => {
      const box = document.querySelector('[data-testid="rules-dialog"]').getBoundingClientRect();
      return box.left >= 0 && box.right <= window.innerWidth && box.top >= 0 && box.bottom <= window.innerHeight;
    });
    if (!fits) fail(`the rules dialog does not fit a ${viewport.width}×${viewport.height} screen`);
    await other.context().close();
  }
  noProblems();
}

/** Plays tic-tac-toe as X against bot:random, clicking any cell offered, to its end. */
async function playTicTacToe() {
  await tid('game-tictactoe').check();
  await tid('bot-level').selectOption('random');
  await tid('bot-side').selectOption('0');
  await tid('play-bot').click();
  await tid('cell-8').waitFor({ state: 'visible' });
  const enabled = '[data-testid^="cell-"]:not([disabled])';
  for (let clicks = 0; ; clicks += 1) {
    if (clicks > 9) fail('more than 9 moves were offered to X in tic-tac-toe');
    await page.waitForFunction((sel) => !document.querySelector('[data-testid="result"]').hidden || document.querySelector(sel), enabled, { timeout: 15_000 });
    if (await tid('result').isVisible()) break;
    const cells = page.locator(enabled);
    const count = await cells.count();
    if (count) await cells.nth(Math.floor(Math.random() * count)).click();
  }
  return page.evaluate(() => document.querySelector('[data-testid="board"]').dataset.gameId);
}

async function gameAddress() {
  finishedGame = await playTicTacToe();
  if (!/^g_/.test(finishedGame ?? '')) fail(`the finished game has no id on the board (${finishedGame})`);
  const link = `${server.base}/game/${finishedGame}`;
  await tid('result-game-link').click();
  await page.waitForFunction((l) => document.querySelector('[data-testid="notice"]').textContent.includes(l), link)
    .catch(async () => fail(`"Link to this game" does not give ${link}: ${JSON.stringify(await tid('notice').textContent())}`));
  const copied = await page.evaluate(() => navigator.clipboard.readText().catch(() => null));
  if (copied !== null && copied !== link) fail(`"Link to this game" copied ${JSON.stringify(copied)}, not ${link}`);
  await tid('leave').click();
  await page.waitForFunction(() => document.querySelector('#game').hidden);
  // The room is gone from this page; the game must come from the store, also after a restart.
  const beforeRestart = problems.length;
  await server.restart(log);
  log(`server restarted; opening ${link} in a fresh page`);
  for (const [name, viewport] of [['wide', WIDE], ['phone', PHONE]]) {
    const fresh = await newPage(viewport, `the ${name} page at /game`);
    await fresh.goto(link);
    await fresh.waitForFunction(() => document.querySelector('[data-testid="replay"]')?.dataset.loaded === 'true', null, { timeout: 10_000 })
      .catch(async () => fail(`${link} does not show the game's replay: ${JSON.stringify(await tid('replay', fresh).innerText().catch(() => ''))}`));
    const shown = await fresh.evaluate(() => ({
      id: document.querySelector('[data-testid="replay"]').dataset.gameId,
      rows: document.querySelectorAll('[data-testid="replay-moves"] tbody tr').length,
      info: document.querySelector('[data-testid="replay-info"]').textContent,
      board: !document.querySelector('[data-testid="replay-board"]').hidden,
      top: document.querySelector('[data-testid="replay"]').getBoundingClientRect().top,
    }));
    if (shown.id !== finishedGame || shown.rows < 5 || !shown.board || !/Rules reader/.test(shown.info)) {
      fail(`${link} shows ${JSON.stringify(shown)}`);
    }
    // Whole pixels, as page.mjs measures: a card scrolled to the top may sit a fraction of one above it.
    const top = Math.round(shown.top);
    if (top < 0 || top > viewport.height / 2) fail(`at ${viewport.width}×${viewport.height} the replay is not in view (top at ${shown.top} px)`);
    if (!(await tid('replay-game-link', fresh).isVisible())) fail('the replay offers no "Link to this game"');
    const shot = path.join(SHOTS, `game-address-${name}.png`);
    await fresh.screenshot({ path: shot });
    log(`${link} at ${viewport.width}×${viewport.height}: ${shown.rows} moves, "${shown.info}" (${path.relative(ROOT, shot)})`);
    if (name === 'wide') {
      await tid('replay-close', fresh).click();
      const address = await fresh.evaluate(() => location.pathname);
      if (address !== '/') fail(`after closing the replay the address is still ${address}`);
    }
    await fresh.context().close();
  }
  // An id no game has says so.
  const stranger = await newPage(PHONE, 'the page at an unknown /game');
  await stranger.goto(`${server.base}/game/g_0000000000000000`);
  await stranger.waitForFunction(() => /no game/i.test(document.querySelector('[data-testid="replay-info"]')?.textContent ?? ''), null, { timeout: 10_000 })
    .catch(async () => fail(`an unknown game's address says ${JSON.stringify(await tid('replay-info', stranger).textContent().catch(() => ''))}`));
  log(`an unknown id: ${await tid('replay-info', stranger).textContent()}`);
  await stranger.context().close();
  // The browser reports the 404 of /api/games/<unknown id> on the console: that one is
  // expected. So are the requests the lobby's page tried while the server was down (a
  // reconnection, a look at the bots online), which the browser logs as refused.
  const expected = (p, at) => (p.startsWith('console error in the page at an unknown /game') && p.includes('404'))
    || (at >= beforeRestart && /ERR_CONNECTION_REFUSED/.test(p));
  problems.splice(0, problems.length, ...problems.filter((p, at) => !expected(p, at)));
  noProblems();
}

const CHECKS = [
  ['the Rules beside each game of the chooser open that game\'s rules', rulesFromTheChooser],
  ['the Rules of a room\'s header open the rules of the room\'s game', rulesFromARoom],
  ['the rules dialog passes axe-core in light and dark, and fits 1280×800 and 390×844', accessibleDialog],
  ['a finished game\'s address /game/<id> shows its replay after the room has gone and a restart', gameAddress],
];

await runChecks({
  tag: 'rules',
  log,
  checks: CHECKS,
  budgetMs: TOTAL_BUDGET_MS,
  setUp,
  async onFailure(name) {
    if (page) {
      const shot = path.join(SHOT_DIR, `failure-rules-${name.split(' ')[1] ?? 'setup'}.png`);
      try {
        mkdirSync(SHOT_DIR, { recursive: true });
        await page.screenshot({ path: shot, fullPage: true, timeout: 5000 });
        console.error(`screenshot of the failure: ${path.relative(ROOT, shot)}`);
      } catch {
        // The page may be gone; the message above is what matters.
      }
    }
    if (server?.output) console.error(`--- last server output ---\n${server.tail()}\n---`);
    // Later checks start from the lobby.
    await page?.keyboard.press('Escape').catch(() => {});
  },
  ...closers(() => ({ browser, server })),
});
