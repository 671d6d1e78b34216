// A person's page in the browser tests (e2e/page.mjs, e2e/friends.mjs): signing in,
// moves by click, waiting for the turn and the move list, where things are on the
// screen, screenshots and axe-core in light and dark.

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fail } from './harness.mjs';
import { axeReport } from './a11y.mjs';

/**
 * One person's page in a browser context of their own. `env` = { browser(), base(),
 * problems, log, shots }: the browser and the server's address once started, where the
 * page's errors and unexpected dialogs are noted, the log, and the folder of screenshots.
 */
export class Visitor {
  constructor(name, page, env) {
    this.name = name;
    this.page = page;
    this.env = env;
    const { problems } = env;
    /** The messages of the dialogs the page opened, and the answer the next one gets. */
    this.dialogs = [];
    this.answer = null;
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (err) => problems.push(`uncaught exception in ${name}'s page: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`console error in ${name}'s page: ${msg.text()}`);
    });
    page.on('dialog', async (dialog) => {
      this.dialogs.push(dialog.message());
      if (this.answer === null) problems.push(`unexpected ${dialog.type()} dialog in ${name}'s page: ${dialog.message()}`);
      if (this.answer === true) await dialog.accept();
      else await dialog.dismiss();
    });
  }

  /** A new visitor at `viewport` on `address` (the server's root by default), not signed in. */
  static async open(env, name, viewport, address = `${env.base()}/`) {
    const context = await env.browser().newContext({ viewport });
    const page = await context.newPage();
    const who = new Visitor(name, page, env);
    await page.goto(address, { timeout: 30_000 });
    return who;
  }

  /** A new visitor, signed in under `name`. */
  static async signIn(env, name, viewport) {
    const who = await Visitor.open(env, name, viewport);
    await who.tid('name-input').fill(name);
    await who.tid('connect').click();
    await who.tid('quick-join').waitFor({ state: 'visible' });
    return who;
  }

  tid(id) {
    return this.page.locator(`[data-testid="${id}"]`);
  }

  /** Waits until it is this player's turn on a board of `game`. */
  async myTurn(game) {
    await this.page.waitForFunction((g) => {
      const board = document.querySelector('[data-testid="board"]');
      return board && board.dataset.game === g && board.dataset.mine === 'true';
    }, game, { timeout: 15_000 }).catch(() => fail(`${this.name}: it never became our turn in ${game}`));
  }

  /** How many moves the list shows. */
  plies() {
    return this.page.evaluate(() => Number(document.querySelector('[data-testid="moves"]').dataset.plies || 0));
  }

  /** Waits until the move list holds at least `n` moves. */
  async untilPlies(n, what = `${n} moves`) {
    await this.page.waitForFunction((count) => Number(document.querySelector('[data-testid="moves"]').dataset.plies || 0) >= count, n, { timeout: 15_000 })
      .catch(() => fail(`${this.name}: the move list never reached ${what}`));
  }

  /** Waits until a move written `move` is in the list. */
  async untilListed(move) {
    await this.page.waitForFunction((m) => [...document.querySelectorAll('[data-testid="moves"] .move-link')].some((b) => b.textContent === m), move, { timeout: 10_000 })
      .catch(() => fail(`${this.name}: ${move} never showed in the move list`));
  }

  /** Clicks `from` then `to` on the live board. */
  async move(from, to) {
    await this.tid(`cell-${from}`).click();
    await this.tid(`cell-${to}`).click();
  }

  /** Starts `game` against a bot of `level`, playing the first side, and waits for the turn. */
  async againstBot(game, level = 'random') {
    await this.tid(`game-${game}`).check();
    await this.tid('time-control').selectOption('none');
    await this.tid('bot-level').selectOption(level);
    await this.tid('bot-side').selectOption('0');
    await this.tid('play-bot').click();
    await this.myTurn(game);
  }

  /** Resigns (two clicks) and waits for the result. */
  async resign() {
    await this.tid('resign').click();
    await this.tid('resign').click();
    await this.tid('result').waitFor({ state: 'visible' });
  }

  /** Leaves the room (a finished game: no question) and waits for the lobby. */
  async leave() {
    await this.tid('leave').click();
    await this.tid('quick-join').waitFor({ state: 'visible' });
  }

  /** The boxes of the elements with these test ids (null for one not shown), and the screen's size. */
  boxes(...ids) {
    return this.page.evaluate((list) => {
      const out = { screen: { width: window.innerWidth, height: window.innerHeight } };
      for (const id of list) {
        const node = id.startsWith('#') ? document.querySelector(id) : document.querySelector(`[data-testid="${id}"]`);
        const box = node && !node.closest('[hidden]') ? node.getBoundingClientRect() : null;
        out[id] = box ? { top: Math.round(box.top), bottom: Math.round(box.bottom), left: Math.round(box.left), right: Math.round(box.right), width: Math.round(box.width), height: Math.round(box.height) } : null;
      }
      return out;
    }, ids);
  }

  /** Fails unless each of these (test ids, or #ids) is shown wholly on the screen. */
  async expectInView(what, ...ids) {
    const found = await this.boxes(...ids);
    const { width, height } = found.screen;
    const out = ids.filter((id) => {
      const b = found[id];
      return !b || b.height === 0 || b.top < 0 || b.left < 0 || b.bottom > height || b.right > width;
    });
    if (out.length) fail(`${this.name}: ${what}: not wholly on the ${width}×${height} screen: ${out.map((id) => `${id} ${JSON.stringify(found[id])}`).join('; ')}`);
    return found;
  }

  async screenshot(name) {
    mkdirSync(this.env.shots, { recursive: true });
    const file = path.join(this.env.shots, `${name}.png`);
    await this.page.screenshot({ path: file });
    this.env.log(`screenshot ${file}`);
  }

  /** axe-core in light and dark; fails on what counts. */
  async audit(where) {
    const found = [];
    for (const scheme of ['light', 'dark']) {
      await this.page.emulateMedia({ colorScheme: scheme });
      const { violations, contrastChecked } = await axeReport(this.page);
      if (contrastChecked === 0) fail(`axe-core checked the contrast of nothing on ${where} (${scheme})`);
      found.push(...violations.map((v) => `${where} (${scheme}): ${v}`));
    }
    await this.page.emulateMedia({ colorScheme: 'light' });
    if (found.length) fail(`axe-core found:\n  ${found.join('\n  ')}`);
    this.env.log(`axe-core: nothing serious on ${where}, light and dark`);
  }

  async close() {
    await this.page.context().close().catch(() => {});
  }
}
