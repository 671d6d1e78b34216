// What the browser tests share: the real server on a free port with a throw-away
// database, Debian's Chromium through playwright-core, failures and logging.

import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BIN = path.resolve(ROOT, process.env.E2E_SERVER_BIN || 'target/debug/parlor');
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const SHOT_DIR = path.join(ROOT, 'target', 'e2e');
const STATIC_DIR = path.join(ROOT, 'static');
const START_BUDGET_MS = 30_000;

/** A check that did not hold: reported with its message alone, without a stack. */
export class Failure extends Error {}

export function fail(message) {
  throw new Failure(message);
}

/** A logger that prefixes each line with the tag and the seconds since it was made. */
export function makeLog(tag) {
  const started = Date.now();
  return (...args) => console.log(`[${tag} +${((Date.now() - started) / 1000).toFixed(1)}s]`, ...args);
}

/** The server's environment: ours, with plain logs at info level unless RUST_LOG says otherwise. */
function serverEnv() {
  return { ...process.env, NO_COLOR: '1', RUST_LOG: process.env.RUST_LOG || 'info' };
}

/** The server under test, with its own database in a temporary folder. */
export class Server {
  constructor(child, dir) {
    this.child = child;
    this.dir = dir;
    this.output = '';
    this.port = null;
  }

  /** Starts it with `extraConfig` (TOML) added to the test configuration; resolves once it listens. */
  static async start(log, extraConfig = '') {
    if (!existsSync(BIN)) fail(`server binary not found at ${BIN}; build it first (cargo build) or set E2E_SERVER_BIN`);
    const dir = mkdtempSync(path.join(tmpdir(), 'parlor-e2e-'));
    const config = path.join(dir, 'config.toml');
    const db = path.join(dir, 'parlor.db');
    writeFileSync(config, `[store]\npath = ${JSON.stringify(db)}\n\n[bots]\nmin_delay_ms = 50\n${extraConfig}`);
    const server = new Server(null, dir);
    await server.launch(log, 0);
    return server;
  }

  /** Runs the binary on `port` (0: any free one) with this server's folder; resolves once it listens. */
  async launch(log, port) {
    const config = path.join(this.dir, 'config.toml');
    log(`starting ${path.relative(ROOT, BIN) || BIN} --port ${port} --config ${config}`);
    const child = spawn(BIN, ['--port', String(port), '--config', config], {
      cwd: ROOT,
      env: serverEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const from = this.output.length;
    this.port = await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Failure(`server did not print "listening on http://127.0.0.1:<port>" within ${START_BUDGET_MS / 1000} s`)),
        START_BUDGET_MS,
      );
      const onData = (chunk) => {
        this.output += chunk.toString();
        // eslint-disable-next-line no-control-regex
        const plain = this.output.slice(from).replace(/\x1b\[[0-9;]*m/g, '');
        const match = plain.match(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', (chunk) => {
        this.output += chunk.toString();
      });
      child.on('error', (err) => {
        clearTimeout(timer);
        reject(new Failure(`could not start the server: ${err.message}`));
      });
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Failure(`server exited before listening (code ${code}, signal ${signal})`));
      });
    });
  }

  /** Stops it with SIGTERM, as an upgrade would, and starts it again on the same port and database. */
  async restart(log) {
    await this.terminate();
    await this.launch(log, this.port);
  }

  get base() {
    return `http://127.0.0.1:${this.port}`;
  }

  get running() {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The last lines it printed, for failure reports. */
  tail(lines = 30) {
    return this.output.trim().split('\n').slice(-lines).join('\n');
  }

  /** Stops it gracefully (SIGTERM, then SIGKILL after 5 s) and removes its folder. */
  async stop() {
    await this.terminate();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Stops the process gracefully (SIGTERM, then SIGKILL after 5 s), keeping its folder. */
  async terminate() {
    if (this.running) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
  }

  kill() {
    if (this.running) this.child.kill('SIGKILL');
  }
}

/** Fails unless the server serves exactly this checkout's static/ files. */
export async function checkServedStatic(base, log) {
  const files = readdirSync(STATIC_DIR, { recursive: true })
    .filter((f) => !f.split(path.sep).some((part) => part.startsWith('.')) && statSync(path.join(STATIC_DIR, f)).isFile());
  const differing = [];
  for (const file of files) {
    const res = await fetch(`${base}/${file}`);
    const served = res.ok ? Buffer.from(await res.arrayBuffer()) : null;
    if (!served || !served.equals(readFileSync(path.join(STATIC_DIR, file)))) differing.push(file);
  }
  if (differing.length) {
    fail(`the server serves other versions of ${differing.join(', ')} than this checkout's static/; ` +
      'rebuild the binary from this checkout (cargo build) or point E2E_SERVER_BIN at one that was');
  }
  log('the server serves this checkout\'s static/ files');
}

/** Headless Chromium. */
export async function launchBrowser() {
  if (!existsSync(CHROMIUM)) fail(`Chromium not found at ${CHROMIUM}; install it with: apt-get install -y chromium`);
  return chromium.launch({
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
}

/** Records a page's uncaught exceptions, console errors and dialogs (dismissed) in `problems`. */
export function watchPage(page, problems, label = 'the page') {
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (err) => problems.push(`uncaught exception in ${label}: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error in ${label}: ${msg.text()}`);
  });
  page.on('dialog', async (dialog) => {
    problems.push(`unexpected ${dialog.type()} dialog in ${label}: ${dialog.message()}`);
    await dialog.dismiss();
  });
}

/** A failure's message: a check's own words, or the whole stack of anything else. */
export function describeError(err) {
  return err instanceof Failure ? err.message : err.stack || String(err);
}

/**
 * The tear-down and abort of a suite with one browser and one server: `parts()` gives
 * them as they are when called (either may still be missing if set-up failed).
 */
export function closers(parts) {
  return {
    async tearDown() {
      const { browser, server } = parts();
      await browser?.close().catch(() => {});
      await server?.stop().catch(() => {});
    },
    abort() {
      const { browser, server } = parts();
      server?.kill();
      browser?.close().catch(() => {});
    },
  };
}

/**
 * Runs a browser test script: `setUp`, then each `[name, check]` in order, reported as
 * PASS or FAILED (`onFailure(name, err, { setUp })` after each failure, e.g. for
 * screenshots), then `tearDown`, a summary line and the exit code. A watchdog calls
 * `abort` and exits if the whole run takes longer than `budgetMs`.
 */
export async function runChecks({ tag, log, checks: all, budgetMs, setUp, onFailure, tearDown, abort }) {
  // E2E_ONLY=<words> runs only the checks whose names contain them (while working on one).
  const only = process.env.E2E_ONLY;
  const checks = only ? all.filter(([name]) => name.includes(only)) : all;
  if (only) log(`E2E_ONLY: ${checks.length} of ${all.length} checks`);
  let passed = 0;
  let failed = 0;
  const watchdog = setTimeout(() => {
    console.error(`${tag}: FAILED: took longer than ${budgetMs / 1000} s`);
    abort();
    console.log(`${passed} passed, ${checks.length - passed} failed`);
    process.exit(1);
  }, budgetMs);
  try {
    await setUp();
    for (const [name, check] of checks) {
      try {
        await check();
        passed += 1;
        log(`PASS ${name}`);
      } catch (err) {
        failed += 1;
        console.error(`${tag}: FAILED: ${name}: ${describeError(err)}`);
        await onFailure(name, err, { setUp: false });
      }
    }
  } catch (err) {
    failed = checks.length - passed;
    console.error(`${tag}: FAILED: setup: ${describeError(err)}`);
    await onFailure('setup', err, { setUp: true });
  } finally {
    await tearDown();
    clearTimeout(watchdog);
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

/**
 * Waits until the live board is wholly on screen with the keyboard focus on it or in
 * it; fails with `what` and where the board and the focus are if that does not happen
 * within a few seconds.
 */
export async function expectBoardInView(page, what) {
  const shown = await page.waitForFunction(() => {
    const board = document.querySelector('[data-testid="board"]');
    if (!board || board.hidden) return false;
    const box = board.getBoundingClientRect();
    return box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight && board.contains(document.activeElement);
  }, null, { timeout: 5000 }).then(() => true, () => false);
  if (shown) return;
  const where = await page.evaluate(() => {
    const box = document.querySelector('[data-testid="board"]')?.getBoundingClientRect();
    const focus = document.activeElement;
    return `board at ${Math.round(box?.top)}..${Math.round(box?.bottom)} px of ${window.innerHeight}, focus on ${focus?.tagName}${focus?.dataset?.testid ? `[${focus.dataset.testid}]` : ''}`;
  });
  fail(`${what}: the board is not on screen with the focus on it (${where})`);
}
