// Browser smoke test of Parlor's bundled web client.
//
// Starts the real server (E2E_SERVER_BIN, default target/debug/parlor) on a free port with a
// throw-away database, drives Debian's Chromium through playwright-core, and plays one
// tic-tac-toe game as X against `bot:random` by clicking whatever cells the page offers.
// Run from the repository root: `node e2e/smoke.mjs` (or `bash e2e/run.sh`).

import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.resolve(ROOT, process.env.E2E_SERVER_BIN || 'target/debug/parlor');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const SHOT_DIR = path.join(ROOT, 'target', 'e2e');
const TOTAL_BUDGET_MS = 60_000;
const START_BUDGET_MS = 30_000;
// Short on purpose: it must fit the server's 24-character limit and still contain markup,
// which the page has to show literally.
const PLAYER_NAME = '<b>Smoke</b> & co';

const started = Date.now();
const log = (...args) => console.log(`[smoke +${((Date.now() - started) / 1000).toFixed(1)}s]`, ...args);

class Failure extends Error {}
const fail = (message) => {
  throw new Failure(message);
};

let server = null;
let serverOutput = '';
let browser = null;
let page = null;
let tempDir = null;

/** The server's environment: ours, with plain logs at info level unless RUST_LOG says otherwise. */
function serverEnv() {
  return { ...process.env, NO_COLOR: '1', RUST_LOG: process.env.RUST_LOG || 'info' };
}

async function startServer() {
  if (!existsSync(BIN)) fail(`server binary not found at ${BIN}; build it first (cargo build) or set E2E_SERVER_BIN`);
  tempDir = mkdtempSync(path.join(tmpdir(), 'parlor-e2e-'));
  const config = path.join(tempDir, 'config.toml');
  const db = path.join(tempDir, 'parlor.db');
  writeFileSync(config, `[store]\npath = ${JSON.stringify(db)}\n\n[bots]\nmin_delay_ms = 50\n`);
  log(`starting ${path.relative(ROOT, BIN) || BIN} --port 0 --config ${config}`);
  server = spawn(BIN, ['--port', '0', '--config', config], {
    cwd: ROOT,
    env: serverEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Failure(`server did not print "listening on http://127.0.0.1:<port>" within ${START_BUDGET_MS / 1000} s`)),
      START_BUDGET_MS,
    );
    const onData = (chunk) => {
      serverOutput += chunk.toString();
      // eslint-disable-next-line no-control-regex
      const plain = serverOutput.replace(/\x1b\[[0-9;]*m/g, '');
      const match = plain.match(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    server.stdout.on('data', onData);
    server.stderr.on('data', (chunk) => {
      serverOutput += chunk.toString();
    });
    server.on('error', (err) => {
      clearTimeout(timer);
      reject(new Failure(`could not start the server: ${err.message}`));
    });
    server.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Failure(`server exited before listening (code ${code}, signal ${signal})`));
    });
  });
}

async function stopServer() {
  if (!server || server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGTERM');
  const timer = setTimeout(() => server.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

async function run() {
  const port = await startServer();
  const base = `http://127.0.0.1:${port}`;
  log(`server listening at ${base}`);

  if (!existsSync(CHROMIUM)) fail(`Chromium not found at ${CHROMIUM}; install it with: apt-get install -y chromium`);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const context = await browser.newContext({ viewport: { width: 360, height: 780 } });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);

  const problems = [];
  page.on('pageerror', (err) => problems.push(`uncaught exception in the page: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  page.on('dialog', async (dialog) => {
    problems.push(`unexpected ${dialog.type()} dialog: ${dialog.message()}`);
    await dialog.dismiss();
  });

  const tid = (id) => page.locator(`[data-testid="${id}"]`);

  await page.goto(`${base}/`);
  await tid('name-input').fill(PLAYER_NAME);
  await tid('connect').click();
  await tid('play-bot').waitFor({ state: 'visible' });
  const shownName = await tid('me').textContent();
  if (shownName !== PLAYER_NAME) fail(`signed-in name shows ${JSON.stringify(shownName)}, expected ${JSON.stringify(PLAYER_NAME)}`);
  const token = await page.evaluate(() => localStorage.getItem('parlor.token'));
  if (!token) fail('no token was stored in localStorage as parlor.token after welcome');
  log('signed in');

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
    if (Date.now() - started > TOTAL_BUDGET_MS - 10_000) fail(`the game did not finish in time after ${clicks} moves`);
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

async function cleanup() {
  if (browser) await browser.close().catch(() => {});
  await stopServer().catch(() => {});
  if (tempDir) rmSync(tempDir, { recursive: true, force: true });
}

const watchdog = setTimeout(async () => {
  console.error(`smoke: FAILED: took longer than ${TOTAL_BUDGET_MS / 1000} s`);
  if (server && server.exitCode === null) server.kill('SIGKILL');
  if (browser) browser.close().catch(() => {});
  console.log('0 passed, 1 failed');
  process.exit(1);
}, TOTAL_BUDGET_MS);

let ok = false;
try {
  await run();
  ok = true;
} catch (err) {
  console.error(`smoke: FAILED: ${err instanceof Failure ? err.message : err.stack || err}`);
  if (page) {
    const shot = path.join(SHOT_DIR, 'failure.png');
    try {
      mkdirSync(SHOT_DIR, { recursive: true });
      await page.screenshot({ path: shot, fullPage: true, timeout: 5000 });
      console.error(`screenshot of the failure: ${path.relative(ROOT, shot)}`);
    } catch {
      // The page may be gone; the message above is what matters.
    }
  }
  if (serverOutput) {
    const tail = serverOutput.trim().split('\n').slice(-30).join('\n');
    console.error(`--- last server output ---\n${tail}\n---`);
  }
} finally {
  await cleanup();
  clearTimeout(watchdog);
}
console.log(ok ? '1 passed, 0 failed' : '0 passed, 1 failed');
process.exit(ok ? 0 : 1);
