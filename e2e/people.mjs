// Browser tests of the web client between people: several browser contexts (each its own
// player) against one real server.
//
// - the lobby shows a room another player opens, without a reload, and filters by game;
// - two people find each other with "Play a person" (quick join) and play tic-tac-toe
//   to a win by clicking, while a third person watches and sees every move; one of the
//   players reloads mid-game and gets the seat back; the leaderboard shows the winner;
// - a private room is not listed, and its link seats whoever opens it;
// - checkers: a forced double jump that crowns, from `options.start`;
// - chess: a promotion made by dragging the pawn, from `options.start`; a back-rank mate
//   marks the mated king;
// - a connection that dies without closing, and going offline, are noticed within
//   seconds (clocks shown as uncertain) and the page reconnects once the network is back;
// - a tic-tac-toe win sets the winning line apart; the invitation's notice goes once
//   the opponent sits down; bots are named without doubled brackets; a taken name is
//   refused without talk of tokens;
// - two bots play while a person watches;
// - axe-core finds no serious or critical accessibility problem (contrast included) in
//   the lobby, on every game's board (chess with a piece selected), on the game-over
//   panel and on the replay, in light and dark mode; a chess move made with Enter and
//   the arrow keys;
// - screenshots of boards and of the page at 360 px and 1024 px wide under target/e2e/.
// Run from the repository root: `node e2e/people.mjs` (or `bash e2e/run.sh`).

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import {
  ROOT, SHOT_DIR, fail, makeLog, Server, checkServedStatic, launchBrowser, watchPage, runChecks,
  expectBoardInView, closers,
} from './harness.mjs';
import { axeReport } from './a11y.mjs';
import { SignJWT } from 'jose';

const TOTAL_BUDGET_MS = 360_000;
/** The secret the hosting site signs its users' tokens with (the server's [auth]). */
const SITE_SECRET = 'the e2e site secret, at least 32 bytes long';
const NARROW = { width: 360, height: 780 };

const log = makeLog('people');
const problems = [];
let server = null;
let browser = null;

/** A signed-in player in a browser context of their own. */
class Person {
  constructor(name, page) {
    this.name = name;
    this.page = page;
  }

  static async signIn(name, viewport = NARROW) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    watchPage(page, problems, `${name}'s page`);
    // Generous: right after another suite, a fresh browser's first load has been seen
    // to take over 10 s on this shared machine.
    await page.goto(`${server.base}/`, { timeout: 30_000 });
    await page.locator('[data-testid="name-input"]').fill(name);
    await page.locator('[data-testid="connect"]').click();
    await page.locator('[data-testid="quick-join"]').waitFor({ state: 'visible' });
    return new Person(name, page);
  }

  tid(id) {
    return this.page.locator(`[data-testid="${id}"]`);
  }

  /** The room this page is in, from what it keeps for a reload. */
  async roomId() {
    return this.page.evaluate(() => JSON.parse(sessionStorage.getItem('parlor.room') ?? 'null')?.id ?? null);
  }

  /** The room-list entry of a room. */
  roomItem(room) {
    return this.page.locator(`[data-testid="room-item"][data-room="${room}"]`);
  }

  /** Opens a folded <details> (by CSS selector) unless it is open already. */
  async unfold(selector) {
    const details = this.page.locator(selector);
    if (!(await details.evaluate((d) => d.open))) await details.locator('summary').click();
  }

  async pickGame(game) {
    await this.tid(`game-${game}`).check();
    await this.tid('time-control').selectOption('none');
  }

  /** Fails if the page shows an error. */
  async noError(what) {
    if (await this.tid('error').isVisible()) fail(`${this.name}: ${what}: the page shows an error: ${await this.tid('error').innerText()}`);
  }

  /** Waits until it is this player's turn on a board of `game`. */
  async myTurn(game) {
    await this.page.waitForFunction((g) => {
      const board = document.querySelector('[data-testid="board"]');
      return board && board.dataset.game === g && board.dataset.mine === 'true';
    }, game, { timeout: 15_000 }).catch(() => fail(`${this.name}: it never became our turn in ${game}`));
  }

  async resultText() {
    return (await this.tid('result').innerText()).replace(/\s+/g, ' ').trim();
  }

  async screenshot(name, { fullPage = false } = {}) {
    mkdirSync(SHOT_DIR, { recursive: true });
    const file = path.join(SHOT_DIR, `${name}.png`);
    await this.page.evaluate(() => window.scrollTo(0, 0));
    await this.page.screenshot({ path: file, fullPage });
    log(`screenshot ${path.relative(ROOT, file)}`);
  }

  /** A screenshot of one part of the page (CSS selector). */
  async screenshotOf(selector, name) {
    mkdirSync(SHOT_DIR, { recursive: true });
    const file = path.join(SHOT_DIR, `${name}.png`);
    await this.page.locator(selector).screenshot({ path: file });
    log(`screenshot ${path.relative(ROOT, file)}`);
  }

  async close() {
    await this.page.context().close().catch(() => {});
  }
}

let ann = null;
let ben = null;
let cara = null;

async function setUp() {
  server = await Server.start(log, `\n[rooms]\nidle_secs = 5\n\n[auth]\njwt_hs256_secret = "${SITE_SECRET}"\n`);
  log(`server listening at ${server.base}`);
  await checkServedStatic(server.base, log);
  browser = await launchBrowser();
  [ann, ben, cara] = await Promise.all(['Ann', 'Ben <i>B</i>', 'Cara'].map((name) => Person.signIn(name)));
}

/** A room opened by Ben appears in Ann's list by itself, disappears under another game's filter, and goes when Ben leaves. */
async function lobbyIsLive() {
  await ben.pickGame('chess');
  await ben.unfold('.own-room');
  await ben.tid('open-room').click();
  await ben.page.waitForFunction(() => document.querySelector('[data-testid="status"]')?.textContent.includes('Waiting for an opponent'));
  const room = await ben.roomId();
  const item = ann.roomItem(room);
  await item.waitFor({ state: 'visible', timeout: 5000 }).catch(() => fail('Ann\'s room list does not show the room Ben opened'));
  const seats = (await item.locator('.room-seats').innerText()).replace(/\s+/g, ' ');
  if (!seats.includes('Ben <i>B</i>') || !seats.includes('open seat')) fail(`the new room lists its seats as ${JSON.stringify(seats)}`);
  log(`lobby: Ben's chess room ${room} appeared in Ann's list without a reload (${seats})`);
  await ann.screenshotOf('#rooms', 'rooms-360');
  await visitorSeesRoom(room);

  await ann.tid('rooms-filter').selectOption('tictactoe');
  await item.waitFor({ state: 'detached', timeout: 5000 }).catch(() => fail('the chess room is still listed under the tic-tac-toe filter'));
  await ann.tid('rooms-filter').selectOption('chess');
  await item.waitFor({ state: 'visible', timeout: 5000 }).catch(() => fail('the chess room is not listed under the chess filter'));
  await ann.tid('rooms-filter').selectOption('');
  await item.waitFor({ state: 'visible', timeout: 5000 });

  await ben.tid('leave').click();
  await item.waitFor({ state: 'detached', timeout: 10_000 }).catch(() => fail('the room Ben left empty was never removed from Ann\'s list'));
  log('lobby: the filter hides other games, and the emptied room left the list');
}

/** Someone who has not chosen a name yet sees a listed room, with a hint instead of buttons, and is told they are not signed in (not "offline"). */
async function visitorSeesRoom(room) {
  const context = await browser.newContext({ viewport: NARROW });
  try {
    const page = await context.newPage();
    watchPage(page, problems, 'the visitor\'s page');
    await page.goto(`${server.base}/`);
    const item = page.locator(`[data-testid="room-item"][data-room="${room}"]`);
    await item.waitFor({ state: 'visible', timeout: 8000 }).catch(() => fail('a visitor who has not signed in does not see the listed room'));
    const buttons = await item.locator('button').count();
    if (buttons !== 0) fail(`a visitor who has not signed in is offered ${buttons} button(s) on a room`);
    const hint = await page.locator('[data-testid="rooms-empty"]').innerText();
    if (!hint.includes('Enter your name')) fail(`a visitor is not told how to join: ${JSON.stringify(hint)}`);
    const pill = await page.locator('[data-testid="connection"]').innerText();
    if (pill !== 'not signed in') fail(`before signing in, the connection pill says ${JSON.stringify(pill)}`);
    log(`lobby: a visitor who has not signed in sees room ${room} and "${hint}"`);
  } finally {
    await context.close().catch(() => {});
  }
}

/** Ann and Ben quick-join, play tic-tac-toe to Ann's win by clicking, Ben reloads mid-game, Cara watches every move. */
async function ticTacToeWatched() {
  await ann.pickGame('tictactoe');
  await ann.tid('quick-join').click();
  await ann.page.waitForFunction(() => document.querySelector('[data-testid="status"]')?.textContent.includes('Waiting for an opponent'));
  await expectBoardInView(ann.page, 'Ann started a game with "Play a person"');
  if (!(await ann.tid('invite').isVisible())) fail('while waiting, Ann is not shown a link to invite someone');
  await ann.tid('copy-link').click();
  await ann.tid('notice').waitFor({ state: 'visible', timeout: 3000 }).catch(() => fail('copying the invitation says nothing'));
  await ann.screenshot('waiting-with-link');
  const room = await ann.roomId();
  await ben.pickGame('tictactoe');
  await ben.tid('quick-join').click();
  await ben.page.waitForFunction(() => document.querySelector('[data-testid="board"]')?.dataset.game === 'tictactoe');
  if (await ben.roomId() !== room) fail('Ben\'s "Play a person" did not seat him opposite Ann, who was waiting');
  await expectBoardInView(ben.page, 'Ben joined Ann\'s game');
  // The invitation's notice gives way to who arrived (e2e/page.mjs checks that notice).
  await ann.page.waitForFunction(() => {
    const notice = document.querySelector('[data-testid="notice"]');
    return notice.hidden || notice.dataset.kind !== 'invite';
  }, null, { timeout: 5000 })
    .catch(async () => fail(`once Ben sat down, Ann still reads the invitation's notice: ${JSON.stringify(await ann.tid('notice').innerText())}`));
  log(`tic-tac-toe: Ben's quick join sat him opposite Ann in ${room}`);

  await cara.roomItem(room).locator('[data-testid="watch"]').click();
  await cara.page.waitForFunction((r) => document.querySelector('[data-testid="room-id"]')?.title === `Room ${r}`, room);
  await expectBoardInView(cara.page, 'Cara chose Watch in the room list');
  await ann.page.waitForFunction(() => document.querySelector('[data-testid="spectators"]')?.textContent === '1 watching')
    .catch(() => fail('the players do not see that someone watches'));

  // X (Ann) takes the top row; O (Ben) plays the middle row.
  const moves = [[ann, '0'], [ben, '3'], [ann, '1'], [ben, '4'], [ann, '2']];
  for (const [ply, [who, cell]] of moves.entries()) {
    await who.myTurn('tictactoe');
    await who.tid(`cell-${cell}`).click();
    const mark = ply % 2 === 0 ? 'X' : 'O';
    await cara.page.waitForFunction(([c, m]) => document.querySelector(`[data-testid="cell-${c}"]`)?.dataset.mark === m, [cell, mark], { timeout: 5000 })
      .catch(() => fail(`Cara, watching, did not see ${mark} on ${cell}`));
    if (ply === 0) {
      // Ben reloads mid-game and gets his seat back, with the board as it was.
      await ben.page.reload();
      await ben.page.waitForFunction(() => document.querySelector('[data-testid="cell-0"]')?.dataset.mark === 'X', null, { timeout: 10_000 })
        .catch(() => fail('after a reload mid-game Ben does not see the game again'));
      if (!(await ben.tid('seat-1').locator('.tag.you').count())) fail('after a reload Ben is not back in his seat');
      log('tic-tac-toe: Ben reloaded mid-game and got his seat back');
    }
  }
  const shown = await cara.page.locator('[data-testid="moves"] li').count();
  if (shown !== moves.length) fail(`Cara's move list shows ${shown} moves, expected ${moves.length}`);
  for (const who of [ann, ben, cara]) await who.tid('result').waitFor({ state: 'visible' });
  const texts = await Promise.all([ann, ben, cara].map((p) => p.resultText()));
  if (!texts[0].startsWith('You won')) fail(`Ann's result reads ${JSON.stringify(texts[0])}`);
  if (!texts[1].startsWith('You lost')) fail(`Ben's result reads ${JSON.stringify(texts[1])}`);
  if (!texts[2].includes('Ann')) fail(`Cara's result does not name the winner: ${JSON.stringify(texts[2])}`);
  log(`tic-tac-toe: Cara saw all ${moves.length} moves; she reads "${texts[2].slice(0, 60)}…"`);
  for (const who of [ann, cara]) {
    const line = await who.page.locator('[data-testid="board"] .cell[data-emphasis="win"]')
      .evaluateAll((cells) => cells.map((c) => c.dataset.label).sort().join());
    if (line !== '0,1,2') fail(`${who.name} sees the winning line as ${JSON.stringify(line)}, expected cells 0,1,2`);
  }
  log('tic-tac-toe: the players and the spectator see the winning row set apart');
  const ratings = cara.roomItem(room).locator('.rating');
  await cara.page.waitForFunction((r) => document.querySelectorAll(`[data-testid="room-item"][data-room="${r}"] .rating`).length === 2, room, { timeout: 3000 })
    .catch(() => fail('the room list does not show both players\' ratings after the rated game'));
  log(`tic-tac-toe: the room list shows the new ratings ${(await ratings.allTextContents()).join(' and ')}`);
  await cara.screenshot('tictactoe-watched');
  await noProblems();
}

/** The tic-tac-toe leaderboard by score lists Ann, the winner. */
async function leaderboardShowsWinner() {
  await cara.tid('leaderboard-game').selectOption('tictactoe');
  await cara.tid('leaderboard-by').selectOption('score');
  await cara.page.waitForFunction(() => [...document.querySelectorAll('[data-testid="leaderboard"] .lb-name')]
    .some((n) => n.firstChild?.textContent === 'Ann'), null, { timeout: 8000 })
    .catch(async () => fail(`the leaderboard does not list Ann: ${await cara.tid('leaderboard').innerText()}`));
  const first = (await cara.page.locator('[data-testid="leaderboard"] li').first().innerText()).replace(/\s+/g, ' ');
  log(`leaderboard: ${first}`);
  const scoreNote = await cara.tid('leaderboard-note').textContent();
  if (!/best score/.test(scoreNote) || !/fewer moves/.test(scoreNote)) fail(`the leaderboard of scores does not say what a score is: ${JSON.stringify(scoreNote)}`);
  await cara.tid('leaderboard-by').selectOption('rating');
  await cara.page.waitForFunction(() => /Glicko-2/.test(document.querySelector('[data-testid="leaderboard-note"]').textContent), null, { timeout: 5000 })
    .catch(async () => fail(`the leaderboard of ratings does not say what a rating is: ${JSON.stringify(await cara.tid('leaderboard-note').textContent())}`));
  await cara.tid('leaderboard-by').selectOption('score');
  for (const who of [ann, ben, cara]) await who.tid('leave').click();
}

/** A private room is not listed, and opening its link seats the person who opens it. */
async function privateRoomByLink() {
  await ann.pickGame('checkers');
  await ann.unfold('.own-room');
  await ann.tid('private-room').check();
  await ann.tid('open-room').click();
  await ann.tid('invite').waitFor({ state: 'visible' });
  const link = await ann.tid('room-link').inputValue();
  const room = await ann.roomId();
  if (!link.endsWith(`/?room=${room}`)) fail(`the invitation link is ${link}`);
  await cara.page.waitForTimeout(500);
  if (await cara.roomItem(room).count()) fail('a private room is listed in the lobby');
  await visitorReadsInvitation(link);
  await ben.page.goto(link);
  await ben.page.waitForFunction(() => document.querySelector('[data-testid="board"]')?.dataset.game === 'checkers', null, { timeout: 10_000 })
    .catch(() => fail('opening the link did not take Ben to the room'));
  await ann.myTurn('checkers');
  const seat = (await ann.tid('seat-1').innerText()).replace(/\s+/g, ' ');
  if (!seat.includes('Ben <i>B</i>')) fail(`after Ben opened the link, seat 1 shows ${JSON.stringify(seat)}`);
  for (const who of [ann, ben]) {
    if (new URL(who.page.url()).search !== `?room=${room}`) fail(`in the room, ${who.name}'s address is ${who.page.url()}, not the room's link`);
  }
  log(`private room ${room}: unlisted; the link seated Ben`);
  await ann.tid('resign').click();
  await ann.tid('resign').click();
  await ann.tid('result').waitFor({ state: 'visible' });
  await ann.tid('leave').click();
  await ben.tid('result').waitFor({ state: 'visible' });
  await ben.tid('leave').click();
  if (new URL(ben.page.url()).search) fail(`back in the lobby, the address still names the room: ${ben.page.url()}`);
  await noProblems();
}

/** The chat lines `who` shows, as "name: text". */
function chatLines(who) {
  return who.page.locator('[data-testid="chat-lines"] .chat-line')
    .evaluateAll((items) => items.map((li) => `${li.querySelector('.chat-name')?.textContent}: ${li.querySelector('.chat-text')?.textContent}`));
}

/** Waits until `who` shows the chat line `line` ("name: text"). */
async function untilChatLine(who, line, what) {
  await who.page.waitForFunction((l) => [...document.querySelectorAll('[data-testid="chat-lines"] .chat-line')]
    .some((li) => `${li.querySelector('.chat-name')?.textContent}: ${li.querySelector('.chat-text')?.textContent}` === l), line, { timeout: 5000 })
    .catch(async () => fail(`${what}: ${who.name} never shows ${JSON.stringify(line)}; shows ${JSON.stringify(await chatLines(who))}`));
}

/**
 * The two chats: the players talk among themselves (a quick line, then typed), the
 * spectator in the spectators' chat, and neither side sees the other's. Ben mutes Ann:
 * her lines are hidden, also after a reload, until he unmutes her.
 */
async function chatApart() {
  await ann.pickGame('tictactoe');
  await ann.tid('quick-join').click();
  await ann.page.waitForFunction(() => document.querySelector('[data-testid="status"]')?.textContent.includes('Waiting for an opponent'));
  if (!(await ann.tid('chat-input').isDisabled())) fail('while Ann waits alone, the chat can be typed in');
  const room = await ann.roomId();
  await ben.pickGame('tictactoe');
  await ben.tid('quick-join').click();
  await ben.page.waitForFunction(() => document.querySelector('[data-testid="board"]')?.dataset.game === 'tictactoe');
  if (await ben.roomId() !== room) fail('Ben\'s quick join did not seat him opposite Ann');
  await cara.roomItem(room).locator('[data-testid="watch"]').click();
  await cara.page.waitForFunction((r) => document.querySelector('[data-testid="room-id"]')?.title === `Room ${r}`, room);

  await ann.tid('chat-input').waitFor({ state: 'visible' });
  await ann.page.waitForFunction(() => !document.querySelector('[data-testid="chat-input"]')?.disabled, null, { timeout: 5000 })
    .catch(() => fail('once the game started, Ann still cannot chat'));
  const titles = await Promise.all([ann, cara].map((who) => who.tid('chat-title').textContent()));
  if (titles[0] !== 'Chat with your opponent' || titles[1] !== 'Spectators’ chat') fail(`the chats are titled ${JSON.stringify(titles)}`);
  await ann.tid('chat-quick-good-luck').click();
  for (const who of [ann, ben]) await untilChatLine(who, `${ann.name}: Good luck`, 'a quick line');
  await cara.tid('chat-input').fill('Nice opening');
  await cara.tid('chat-input').press('Enter');
  await untilChatLine(cara, `${cara.name}: Nice opening`, 'a spectator\'s line');
  await ben.tid('chat-input').fill('You too!');
  await ben.tid('chat-send').click();
  for (const who of [ann, ben]) await untilChatLine(who, `${ben.name}: You too!`, 'a typed line');
  const seen = { ann: await chatLines(ann), ben: await chatLines(ben), cara: await chatLines(cara) };
  if (seen.cara.some((line) => line.endsWith('Good luck') || line.endsWith('You too!'))) fail(`Cara, watching, sees the players' chat: ${JSON.stringify(seen.cara)}`);
  if ([...seen.ann, ...seen.ben].some((line) => line.endsWith('Nice opening'))) fail(`a player sees the spectators' chat: ${JSON.stringify(seen)}`);
  log(`chat: the players see ${JSON.stringify(seen.ben)}; Cara sees ${JSON.stringify(seen.cara)}`);

  // Ben mutes Ann: her lines go, and stay gone after a reload, until he unmutes her.
  const annId = await ben.page.locator('[data-testid="chat-lines"] .chat-line').first().getAttribute('data-player');
  await ben.tid(`chat-mute-${annId}`).click();
  await ann.tid('chat-input').fill('Still there?');
  await ann.tid('chat-input').press('Enter');
  await untilChatLine(ann, `${ann.name}: Still there?`, 'Ann\'s line to a Ben who muted her');
  await ben.page.waitForTimeout(500);
  const muted = await chatLines(ben);
  if (muted.some((line) => line.startsWith(`${ann.name}:`))) fail(`after muting Ann, Ben still sees ${JSON.stringify(muted)}`);
  if (!(await ben.tid('chat-muted').innerText()).includes(ann.name)) fail('Ben is not told whom he muted');
  await ben.page.reload();
  await untilChatLine(ben, `${ben.name}: You too!`, 'after a reload, the history');
  const reloaded = await chatLines(ben);
  if (reloaded.some((line) => line.startsWith(`${ann.name}:`))) fail(`after a reload, Ann is no longer muted for Ben: ${JSON.stringify(reloaded)}`);
  await ben.tid(`chat-unmute-${annId}`).click();
  await untilChatLine(ben, `${ann.name}: Still there?`, 'unmuted');
  log(`chat: muted, Ann's lines were hidden from Ben across a reload; unmuted, he sees ${JSON.stringify(await chatLines(ben))}`);
  await ben.screenshotOf('[data-testid="chat"]', 'chat');
  // The chat with its lines and Mute buttons, in both schemes.
  for (const scheme of ['light', 'dark']) {
    await ben.page.emulateMedia({ colorScheme: scheme });
    const { violations, contrastChecked } = await axeReport(ben.page);
    if (contrastChecked === 0 || violations.length) fail(`axe-core on a room with chat lines (${scheme}): ${violations.join('; ') || 'nothing checked'}`);
  }
  await ben.page.emulateMedia({ colorScheme: 'light' });
  log('chat: axe-core finds nothing on the room with chat lines, light or dark');

  await ann.tid('resign').click();
  await ann.tid('resign').click();
  for (const who of [ann, ben, cara]) {
    await who.tid('result').waitFor({ state: 'visible' });
    await who.tid('leave').click();
  }
  await noProblems();
}

/**
 * Premoves between two people: in chess, a premove that is no longer legal when the turn
 * comes is dropped with a word why, and one that is legal is played the moment the
 * opponent has moved, without a click; in checkers, one of Black's men goes likewise.
 */
async function premovesInChessAndCheckers() {
  await ann.pickGame('chess');
  await ann.tid('quick-join').click();
  await ann.page.waitForFunction(() => document.querySelector('[data-testid="status"]')?.textContent.includes('Waiting for an opponent'));
  await ben.pickGame('chess');
  await ben.tid('quick-join').click();
  await ben.page.waitForFunction(() => document.querySelector('[data-testid="board"]')?.dataset.game === 'chess');
  const mine = (who) => who.tid('board').getAttribute('data-mine');
  await ann.page.waitForFunction(() => document.querySelector('[data-testid="board"]')?.dataset.game === 'chess');
  await Promise.race([ann.myTurn('chess'), ben.myTurn('chess')]);
  const [white, black] = (await mine(ann)) === 'true' ? [ann, ben] : [ben, ann];
  const click = async (who, from, to) => {
    await who.tid(`cell-${from}`).click();
    await who.tid(`cell-${to}`).click();
  };
  const premoveShown = (who) => who.tid('board').getAttribute('data-premove');
  const drag = async (who, from, to) => {
    await who.tid('board').scrollIntoViewIfNeeded();
    const centre = async (label) => {
      const b = await who.tid(`cell-${label}`).boundingBox();
      return [b.x + b.width / 2, b.y + b.height / 2];
    };
    const [fx, fy] = await centre(from);
    const [tx, ty] = await centre(to);
    await who.page.mouse.move(fx, fy);
    await who.page.mouse.down();
    await who.page.mouse.move(fx + 5, fy - 5, { steps: 2 });
    await who.page.mouse.move(tx, ty, { steps: 5 });
    await who.page.mouse.up();
  };

  await click(white, 'e2', 'e4');
  await untilListed(black, 'e4');
  await click(white, 'e4', 'e5');
  if (await premoveShown(white) !== 'e4-e5') fail(`${white.name} premoved e4 → e5, and the board shows ${JSON.stringify(await premoveShown(white))}`);
  const marked = await white.page.locator('[data-testid="board"] .cell.premove').evaluateAll((cells) => cells.map((c) => c.dataset.label).sort().join());
  if (marked !== 'e4,e5') fail(`the premove's cells are marked as ${JSON.stringify(marked)}`);
  await black.myTurn('chess');
  await click(black, 'e7', 'e5');
  await white.myTurn('chess');
  await white.tid('notice').waitFor({ state: 'visible', timeout: 3000 })
    .catch(() => fail('a premove blocked by the reply was dropped without a word'));
  const why = await white.tid('notice').innerText();
  if (!why.includes('not a legal move') || await premoveShown(white) !== '') fail(`after a blocked premove: notice ${JSON.stringify(why)}, premove ${JSON.stringify(await premoveShown(white))}`);
  log(`premoves: e4 → e5, blocked by …e5, was dropped: "${why}"`);

  await click(white, 'g1', 'f3');
  await untilListed(black, 'Nf3');
  // This one by drag and drop, as a move can be.
  await drag(white, 'f1', 'c4');
  if (await premoveShown(white) !== 'f1-c4') fail(`${white.name} dragged f1 to c4 for a premove, and the board shows ${JSON.stringify(await premoveShown(white))}`);
  await black.myTurn('chess');
  await click(black, 'b8', 'c6');
  await untilListed(black, 'Bc4', 5000)
    .catch(() => fail(`${white.name}'s premove f1 → c4 was not played after …Nc6`));
  await black.myTurn('chess');
  log(`premoves: f1 → c4, dragged during ${black.name}'s turn, was played the moment he answered: both see Bc4`);
  await resignAndLeaveBoth(white, black);

  // Checkers, where Black (seat 0) moves first and owns the b pieces: 10 → 14 premoved
  // during White's reply is played at once.
  await ann.pickGame('checkers');
  await ann.tid('quick-join').click();
  await ann.page.waitForFunction(() => document.querySelector('[data-testid="status"]')?.textContent.includes('Waiting for an opponent'));
  await ben.pickGame('checkers');
  await ben.tid('quick-join').click();
  await Promise.race([ann.myTurn('checkers'), ben.myTurn('checkers')]);
  const [first, second] = (await mine(ann)) === 'true' ? [ann, ben] : [ben, ann];
  await click(first, '11', '15');
  await untilListed(second, '11-15');
  await click(first, '10', '14');
  if (await premoveShown(first) !== '10-14') fail(`a checkers premove 10 → 14 shows as ${JSON.stringify(await premoveShown(first))}`);
  await second.myTurn('checkers');
  await click(second, '24', '20');
  await untilListed(second, '10-14', 5000)
    .catch(() => fail(`${first.name}'s checkers premove 10 → 14 was not played after 24-20`));
  log('premoves: in checkers, 10 → 14 premoved during White\'s 24-20 was played at once');
  await resignAndLeaveBoth(first, second);
  await noProblems();
}

/** The player to move resigns; both players leave the finished room. */
async function resignAndLeaveBoth(one, other) {
  const resigner = (await one.tid('resign').isVisible()) ? one : other;
  await resigner.tid('resign').click();
  await resigner.tid('resign').click();
  for (const who of [one, other]) {
    await who.tid('result').waitFor({ state: 'visible' });
    await who.tid('leave').click();
  }
}

/**
 * A newcomer sees what Parlor is in one line and can play a bot before choosing a name:
 * one click signs them in as a guest and seats them against an easy bot.
 */
async function newcomerPlaysABotAtOnce() {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  try {
    const page = await context.newPage();
    watchPage(page, problems, 'the newcomer\'s page');
    await page.goto(`${server.base}/`);
    const tagline = await page.locator('[data-testid="tagline"]').innerText();
    if (!/chess/.test(tagline) || !/bots/.test(tagline)) fail(`the first screen says what Parlor is as ${JSON.stringify(tagline)}`);
    const playNow = page.locator('[data-testid="play-bot-now"]');
    if (!(await playNow.isVisible())) fail('a newcomer sees no "Play a bot now" before choosing a name');
    await playNow.click();
    await page.waitForFunction(() => document.querySelector('[data-testid="board"]')?.dataset.mine === 'true', null, { timeout: 10_000 })
      .catch(() => fail('"Play a bot now" did not seat the newcomer at a board, to move'));
    await expectBoardInView(page, 'after "Play a bot now"');
    const seats = (await page.locator('[data-testid="seats"]').innerText()).replace(/\s+/g, ' ');
    if (!/Guest \d{4}/.test(seats) || !/Easy bot/.test(seats)) fail(`after "Play a bot now" the seats read ${JSON.stringify(seats)}`);
    await page.screenshot({ path: path.join(SHOT_DIR, 'newcomer-390.png') });
    log(`newcomer: "${tagline}"; one click later: ${seats}`);
  } finally {
    await context.close().catch(() => {});
  }
}

/** Someone opening an invitation before choosing a name is told whose room it is and which game. */
async function visitorReadsInvitation(link) {
  const context = await browser.newContext({ viewport: NARROW });
  try {
    const page = await context.newPage();
    watchPage(page, problems, 'the invited visitor\'s page');
    await page.goto(link);
    const notice = page.locator('[data-testid="notice"]');
    await notice.waitFor({ state: 'visible', timeout: 5000 }).catch(() => fail('opening an invitation before signing in says nothing about it'));
    const text = await notice.innerText();
    if (!text.includes('Ann') || !text.includes('Checkers') || !text.includes('open seat')) fail(`the invitation reads ${JSON.stringify(text)}`);
    log(`invitation, before signing in: "${text}"`);
  } finally {
    await context.close().catch(() => {});
  }
}

/**
 * Ben's connection drops mid-game (cut by the test between page and server): the page says
 * it is reconnecting, reconnects by itself and takes the seat back, and the game goes on.
 */
async function reconnectAfterDrop() {
  const sockets = [];
  await ben.page.routeWebSocket(/\/ws$/, (ws) => {
    sockets.push([ws, ws.connectToServer()]);
  });
  await ben.page.reload();
  await ben.tid('quick-join').waitFor({ state: 'visible' });
  for (const who of [ann, ben]) {
    await who.pickGame('chess');
    await who.tid('quick-join').click();
  }
  await ann.myTurn('chess');
  await ann.tid('cell-e2').click();
  await ann.tid('cell-e4').click();
  await ben.myTurn('chess');
  for (const [page, server] of sockets.splice(0)) {
    await page.close();
    await server.close();
  }
  await ben.page.waitForFunction(() => /reconnecting/.test(document.querySelector('[data-testid="connection"]').textContent), null, { timeout: 5000 })
    .catch(() => fail('after the connection dropped the page does not say it is reconnecting'));
  const shown = await ben.tid('connection').textContent();
  const status = await ben.tid('status').textContent();
  await ben.screenshot('reconnecting');
  await untilOnline(ben, 10_000)
    .catch(() => fail('the page did not reconnect by itself'));
  await ben.myTurn('chess');
  await ben.tid('cell-e7').click();
  await ben.tid('cell-e5').click();
  await ann.myTurn('chess');
  log(`reconnect: Ben's page showed "${shown}" ("${status}"), reconnected and played e7e5 from his seat`);
  await ben.page.unrouteAll();
  await resignAndLeave(ann);
  await ben.tid('result').waitFor({ state: 'visible' });
  await ben.tid('leave').click();
}

/** Waits up to `timeout` ms for `who`'s connection pill to say online. */
function untilOnline(who, timeout) {
  return who.page.waitForFunction(() => document.querySelector('[data-testid="connection"]').dataset.state === 'online', null, { timeout });
}

/**
 * A connection that dies without closing is noticed by the page's heartbeat within
 * seconds, and the clocks are shown as uncertain meanwhile; the opponent sees the silent
 * player as not connected within the server's heartbeat timeout (15 s), not its 45 s
 * client timeout. The browser going offline is noticed at once, and the page reconnects
 * as soon as the network is back.
 */
async function silentOutageNoticed() {
  // Every socket of Ben's page passes through here. While the network is `dead`, every
  // socket, old or new, stops carrying anything either way, closing included: the
  // server learns nothing until its own heartbeat timeout.
  const network = { dead: false };
  await ben.page.routeWebSocket(/\/ws$/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((message) => { if (!network.dead) server.send(message); });
    server.onMessage((message) => { if (!network.dead) ws.send(message); });
    ws.onClose((code, reason) => { if (!network.dead) server.close({ code, reason }); });
    server.onClose((code, reason) => { if (!network.dead) ws.close({ code, reason }); });
  });
  await ben.page.reload();
  await ben.tid('quick-join').waitFor({ state: 'visible' });
  for (const who of [ann, ben]) {
    await who.pickGame('chess');
    await who.tid('time-control').selectOption('fischer:600000:5000');
    await who.tid('quick-join').click();
  }
  // A move each first: a side that has not moved in 30 s would have the game aborted.
  for (const [who, from, to] of [[ann, 'e2', 'e4'], [ben, 'e7', 'e5'], [ann, 'd2', 'd4']]) {
    await who.myTurn('chess');
    await who.tid(`cell-${from}`).click();
    await who.tid(`cell-${to}`).click();
  }
  await ben.myTurn('chess');
  // Black's own clock sits under the board, White's above it, as on Lichess.
  const [whiteAt, boardAt, blackAt] = await ben.page.evaluate(() => ['clock-0', 'board', 'clock-1']
    .map((id) => document.querySelector(`[data-testid="${id}"]`)?.getBoundingClientRect().top));
  if (!(whiteAt < boardAt && blackAt > boardAt)) fail(`Ben plays Black, yet his clock is at ${blackAt} px and White's at ${whiteAt} px, the board at ${boardAt} px`);
  const bensSeatAtAnns = ann.page.locator('[data-testid^="seat-"]', { hasText: 'Ben' });
  if (await bensSeatAtAnns.locator('.tag.online').count() !== 1) fail('before the outage Ann does not see Ben as connected');

  network.dead = true;
  const cut = Date.now();
  await ben.page.waitForFunction(() => document.querySelector('[data-testid="connection"]').dataset.state !== 'online', null, { timeout: 20_000 })
    .catch(() => fail('a connection that went silent was still shown as online 20 s later'));
  const noticed = Date.now() - cut;
  const uncertain = await ben.page.locator('.seat .clock[data-uncertain="true"]').count();
  if (uncertain !== 2) fail(`while disconnected, ${uncertain} of the 2 clocks are shown as uncertain`);
  await ben.screenshot('outage-clocks');
  await bensSeatAtAnns.locator('.tag.away').waitFor({ state: 'visible', timeout: 25_000 })
    .catch(async (err) => fail(`25 s after Ben's network died, Ann's seats read ${JSON.stringify(await ann.tid('seats').innerText())} (${err.message.split('\n')[0]})`));
  const seenGone = Date.now() - cut;
  network.dead = false;
  await untilOnline(ben, 20_000)
    .catch(() => fail('after the network came back the page did not reconnect'));
  await ben.myTurn('chess');
  if (await ben.page.locator('.seat .clock[data-uncertain="true"]').count()) fail('back online, the clocks are still shown as uncertain');
  await bensSeatAtAnns.locator('.tag.online').waitFor({ state: 'visible', timeout: 5000 })
    .catch(() => fail('Ben is back, but Ann does not see him as connected'));

  await ben.page.context().setOffline(true);
  await ben.page.waitForFunction(() => /offline/.test(document.querySelector('[data-testid="connection"]').textContent), null, { timeout: 3000 })
    .catch(async () => fail(`a second after the browser went offline the pill says ${JSON.stringify(await ben.tid('connection').textContent())}`));
  await ben.page.waitForTimeout(3000);
  if (await ben.tid('connection').getAttribute('data-state') === 'online') fail('offline, the page went back online');
  await ben.page.context().setOffline(false);
  const back = Date.now();
  await untilOnline(ben, 5000)
    .catch(() => fail('the page did not reconnect within 5 s of the network coming back'));
  log(`outage: a silent connection was given up after ${noticed} ms (clocks shown as uncertain); Ann saw Ben as not connected after ${seenGone} ms; offline was noticed at once; back online ${Date.now() - back} ms after the network`);
  await ben.myTurn('chess');
  await ben.page.unrouteAll();
  await resignAndLeave(ben);
  await ann.tid('result').waitFor({ state: 'visible' });
  await ann.tid('leave').click();
}

/** Starts a game of `game` against bot:random from `position`, as seat 0 (choosing another game later clears the position). */
async function fromPosition(who, game, position) {
  await who.pickGame(game);
  const details = who.tid('start-options');
  if (!(await details.evaluate((d) => d.open))) await details.locator('summary').click();
  await who.tid('start-position').fill(position);
  await who.tid('bot-level').selectOption('random');
  await who.tid('bot-side').selectOption('0');
  await who.tid('play-bot').click();
  await who.myTurn(game);
}

/** Waits until `who`'s move list shows `move` (as players write it), alone or in a pair. */
function untilListed(who, move, timeout = 10_000) {
  return who.page.waitForFunction(
    (m) => [...document.querySelectorAll('[data-testid="moves"] li')].some((li) => li.textContent.split(' ').includes(m)),
    move,
    { timeout },
  );
}

/** A forced double jump that ends on the far row crowns the man. */
async function checkersCrowning() {
  await fromPosition(cara, 'checkers', 'B:W10,19,27:B12,15');
  const legal = JSON.parse(await cara.tid('board').getAttribute('data-legal'));
  if (legal.join() !== '15x24x31') fail(`the capture is not forced: legal moves are ${legal.join(', ')}`);
  const starts = await cara.page.locator('[data-testid="board"] .cell.can-start').evaluateAll((els) => els.map((e) => e.dataset.label));
  if (starts.join() !== '15') fail(`with a capture forced, the page offers to move ${starts.join(', ')}`);
  const animations = await animationsDuring(cara, async () => {
    await cara.tid('cell-15').click();
    await cara.tid('cell-24').click();
    await cara.tid('cell-31').click();
  }, '15x24x31');
  const crowned = await cara.tid('cell-31').getAttribute('data-piece');
  if (crowned !== 'B') fail(`after 15x24x31 square 31 holds ${JSON.stringify(crowned)}, expected a black king`);
  for (const taken of ['19', '27']) {
    if (await cara.tid(`cell-${taken}`).getAttribute('data-piece')) fail(`after 15x24x31 the man on ${taken} is still there`);
  }
  const faded = animations.find((a) => a.glided === '15x24x31')?.faded ?? '';
  if (faded.split(' ').sort().join() !== '19,27') fail(`after 15x24x31 the men taken on 19 and 27 did not fade out; faded: ${JSON.stringify(faded)}`);
  log('checkers: forced 15x24x31, clicked square by square, crowned the man; the men taken on 19 and 27 faded out');
  await cara.screenshot('checkers-crowned');
  await resignAndLeave(cara);
}

/** A promotion made by dragging the pawn to the last rank, then choosing a queen. */
async function chessPromotionByDrag() {
  await fromPosition(cara, 'chess', '8/4P3/8/8/8/8/k7/4K3 w - - 0 1');
  await cara.tid('board').scrollIntoViewIfNeeded();
  const box = async (label) => {
    const b = await cara.tid(`cell-${label}`).boundingBox();
    return [b.x + b.width / 2, b.y + b.height / 2];
  };
  const [fx, fy] = await box('e7');
  const [tx, ty] = await box('e8');
  await cara.page.mouse.move(fx, fy);
  await cara.page.mouse.down();
  await cara.page.mouse.move(fx + 5, fy - 5, { steps: 2 });
  await cara.page.mouse.move(tx, ty, { steps: 5 });
  const ghost = await cara.page.locator('.drag-ghost').count();
  await cara.page.mouse.up();
  if (!ghost) fail('no piece follows the pointer while dragging');
  await cara.tid('promote-q').waitFor({ state: 'visible', timeout: 5000 }).catch(() => fail('dropping the pawn on e8 does not offer the promotion chooser'));
  await cara.screenshot('chess-promotion-chooser');
  await cara.tid('promote-q').click();
  await untilListed(cara, 'e8=Q');
  const piece = await cara.tid('cell-e8').getAttribute('data-piece');
  if (piece !== 'Q') fail(`after e7e8q, e8 holds ${JSON.stringify(piece)}`);
  log('chess: dragged e7 to e8 and chose a queen; the move list shows e8=Q');
  await cara.screenshot('chess-promoted');
  await resignAndLeave(cara);
}

/**
 * The animations of the board's repaints while `act` runs and until `listed` shows in
 * the move list: one entry a paint, as the board marks them (animate.js). Watched as
 * they happen, since the bot's answer soon paints over them.
 */
async function animationsDuring(who, act, listed) {
  await who.tid('board').evaluate((board) => {
    board._animations = [];
    board._watcher?.disconnect();
    board._watcher = new MutationObserver(() => board._animations.push({
      glided: board.dataset.glided ?? '', alongside: board.dataset.glidedAlongside ?? '', faded: board.dataset.faded ?? '',
    }));
    board._watcher.observe(board, { attributes: true, attributeFilter: ['data-glided', 'data-glided-alongside', 'data-faded'] });
  });
  await act();
  await untilListed(who, listed);
  return who.tid('board').evaluate((board) => {
    board._watcher.disconnect();
    return board._animations;
  });
}

/** What a move moves is animated: castling glides the rook with the king, and a piece taken where the mover lands fades out. */
async function chessMovesAnimated() {
  const clicks = (from, to) => async () => {
    await cara.tid(`cell-${from}`).click();
    await cara.tid(`cell-${to}`).click();
  };
  await fromPosition(cara, 'chess', '4k3/8/8/8/8/8/8/4K2R w K - 0 1');
  const castled = (await animationsDuring(cara, clicks('e1', 'g1'), 'O-O')).find((a) => a.glided === 'e1g1');
  if (!castled || castled.alongside !== 'h1-f1' || castled.faded !== '') fail(`castling did not glide the king and the rook: ${JSON.stringify(castled)}`);
  await resignAndLeave(cara);
  await fromPosition(cara, 'chess', '4k3/8/8/8/8/8/8/3rK3 w - - 0 1');
  const took = (await animationsDuring(cara, clicks('e1', 'd1'), 'Kxd1')).find((a) => a.glided === 'e1d1');
  if (!took || took.faded !== 'd1' || took.alongside !== '') fail(`Kxd1 did not glide the king over a fading rook: ${JSON.stringify(took)}`);
  log(`chess: O-O glided the king and, alongside, the rook (${castled.alongside}); Kxd1 faded the rook taken on ${took.faded}`);
  await resignAndLeave(cara);
}

/** A back-rank mate: the mated king is set apart on the board. */
async function chessMateShown() {
  await fromPosition(cara, 'chess', '6k1/5ppp/8/8/8/8/8/R3K3 w - - 0 1');
  await cara.tid('cell-a1').click();
  await cara.tid('cell-a8').click();
  await untilListed(cara, 'Ra8#');
  await cara.page.waitForFunction(() => document.querySelector('[data-testid="cell-g8"]')?.dataset.emphasis === 'mate', null, { timeout: 5000 })
    .catch(() => fail('after Ra8# the mated king on g8 is not set apart'));
  const label = await cara.tid('cell-g8').getAttribute('aria-label');
  if (!label.includes('checkmated')) fail(`the mated king's square reads ${JSON.stringify(label)}`);
  log('chess: after Ra8# the king on g8 is marked checkmated');
  await cara.screenshot('chess-mate');
  await resignAndLeave(cara);
}

/** Someone choosing a name another player owns is told so, without talk of tokens they never saw. */
async function nameTakenSaysWhat() {
  const context = await browser.newContext({ viewport: NARROW });
  try {
    const page = await context.newPage();
    watchPage(page, problems, 'the second Ann\'s page');
    await page.goto(`${server.base}/`);
    await page.locator('[data-testid="name-input"]').fill('Ann');
    await page.locator('[data-testid="connect"]').click();
    const error = page.locator('[data-testid="error"]');
    await error.waitFor({ state: 'visible', timeout: 5000 }).catch(() => fail('taking a name another player owns shows no error'));
    const text = await error.innerText();
    if (!text.includes('belongs to another player') || /token/i.test(text)) fail(`a taken name reads ${JSON.stringify(text)}`);
    log(`a taken name: "${text}"`);
  } finally {
    await context.close().catch(() => {});
  }
}

async function resignAndLeave(who) {
  if (!(await who.tid('result').isVisible())) {
    await who.tid('resign').click();
    await who.tid('resign').click();
    await who.tid('result').waitFor({ state: 'visible' });
  }
  await who.tid('leave').click();
  await who.tid('quick-join').waitFor({ state: 'visible' });
  await noProblems();
}

/** `who` starts a game between two random bots of `game` and watches it; the room's id. */
async function watchTwoBots(who, game) {
  await who.pickGame(game);
  await who.tid('bot-level').selectOption('random');
  await who.unfold('[data-testid="bot-vs-bot-options"]');
  await who.tid('bot2-level').selectOption('random');
  const before = await who.roomId();
  await who.tid('bot-vs-bot').click();
  // A new room, shown with its board: not the board of the room just left. Its id is
  // read in the same look, while its game is surely on.
  const shown = await who.page.waitForFunction(({ g, left }) => {
    const room = JSON.parse(sessionStorage.getItem('parlor.room') ?? 'null')?.id ?? null;
    const ready = room !== null && room !== left && !document.getElementById('game').hidden
      && document.querySelector('[data-testid="board"]')?.dataset.game === g
      && document.querySelector('[data-testid="result"]').hidden;
    return ready ? room : null;
  }, { g: game, left: before }, { timeout: 10_000 })
    .catch(() => fail('Watch two bots did not show their board'));
  return shown.jsonValue();
}

/** Waits until the room's move list holds `plies` moves, or the game is over. */
async function movesPlayed(who, plies) {
  await who.page.waitForFunction((n) => document.querySelectorAll('[data-testid="moves"] .move-link').length >= n
    || !document.querySelector('[data-testid="result"]').hidden, plies, { timeout: 30_000 })
    .catch(() => fail(`${who.name}: the game did not reach ${plies} moves`));
}

/**
 * How the move list sits: whether it overflows sideways, whether the move the board
 * shows is in sight inside it, and where the Leave button is on the page.
 */
async function moveListLayout(who) {
  return who.page.evaluate(() => {
    const list = document.querySelector('[data-testid="moves"]');
    const box = list.getBoundingClientRect();
    const current = list.querySelector('[aria-current="step"]')?.getBoundingClientRect();
    return {
      plies: list.querySelectorAll('.move-link').length,
      over: !document.querySelector('[data-testid="result"]').hidden,
      // On a narrow screen the moves are a one-line strip that scrolls sideways.
      strip: getComputedStyle(list).display === 'flex',
      sideways: list.scrollWidth > list.clientWidth + 1,
      scrolls: list.scrollHeight > list.clientHeight,
      currentInSight: !!current && current.top >= box.top - 1 && current.bottom <= box.bottom + 1
        && current.left >= box.left - 1 && current.right <= box.right + 1,
      leaveAt: Math.round(document.querySelector('[data-testid="leave"]').getBoundingClientRect().top + window.scrollY),
    };
  });
}

/**
 * Two bots play Fox & Geese while Ann watches on her phone: as the game grows, the move
 * list (a strip on the phone) scrolls within its box, the latest move in sight, and the
 * buttons under the board stay where they are.
 */
async function botVersusBot() {
  // Two random bots may finish their game within the moves waited for below, and a
  // finished game's room is no longer kept for a reload: its id is taken as it starts.
  const room = await watchTwoBots(ann, 'fox_geese');
  await movesPlayed(ann, 4);
  const early = await moveListLayout(ann);
  await movesPlayed(ann, 24);
  const later = await moveListLayout(ann);
  if (!later.over) {
    const scrolls = later.strip ? later.sideways && !later.scrolls : later.scrolls && !later.sideways;
    if (!scrolls || !later.currentInSight) fail(`after ${later.plies} moves the move list is not a box that scrolls to the latest move: ${JSON.stringify(later)}`);
    if (later.leaveAt !== early.leaveAt) fail(`the Leave button moved from y=${early.leaveAt} to y=${later.leaveAt} as the game went from ${early.plies} to ${later.plies} moves`);
    log(`bot vs bot: from ${early.plies} to ${later.plies} moves the Leave button stayed at y=${later.leaveAt}; the list scrolls, the latest move in sight`);
  } else {
    log(`bot vs bot: the game ended after ${later.plies} moves, before the move list filled its box`);
  }
  if (await ann.tid('leave').textContent() !== 'Stop watching') fail('Ann is not shown as a spectator of the bots\' game');
  const seat = (await ann.tid('seat-0').innerText()).replace(/\s+/g, ' ');
  const status = await ann.tid('status').innerText();
  if (!seat.includes('Random bot')) fail(`a random bot's seat reads ${JSON.stringify(seat)}`);
  if (/\)\s*\(/.test(status) || /\)\s*\(/.test(seat)) fail(`a bot's name doubles its brackets: ${JSON.stringify(status)}, ${JSON.stringify(seat)}`);
  await ann.screenshot('fox_geese-bots');
  // A spectator can pass the game on at any time: Share gives the room's link, which the
  // address bar holds too.
  await ann.tid('share-link').click();
  await ann.tid('notice').waitFor({ state: 'visible', timeout: 3000 }).catch(() => fail('Share said nothing'));
  const shared = await ann.tid('notice').innerText();
  if (!shared.includes(`/?room=${room}`)) fail(`Share says ${JSON.stringify(shared)}, without the room's link`);
  if (new URL(ann.page.url()).search !== `?room=${room}`) fail(`watching, Ann's address is ${ann.page.url()}`);
  log(`bot vs bot: Ann watches; ${await ann.page.locator('[data-testid="moves"] li').count()} moves so far; Share: "${shared}"`);
  await ann.tid('leave').click();
  if (await ann.tid('notice').isVisible()) fail('the Share notice outlives the room');
}

/**
 * axe-core on the lobby, on every game's board (the chess board with a piece picked up
 * by the keyboard, which then moves it), on the game-over panel and on the replay, each
 * in light and dark mode.
 */
async function accessibility() {
  const found = [];
  const audit = async (where) => {
    const { violations, contrastChecked } = await axeReport(cara.page);
    if (contrastChecked === 0) fail(`axe-core checked the contrast of nothing on the ${where}`);
    found.push(...violations.map((v) => `${where}: ${v}`));
    log(`axe-core on the ${where}: contrast of ${contrastChecked} elements checked, ${violations.length} violation(s) that count`);
  };
  await audit('lobby');
  await cara.page.emulateMedia({ colorScheme: 'dark' });
  await audit('lobby in dark mode');
  await cara.page.emulateMedia({ colorScheme: 'light' });
  await themeSwitchHolds();
  // The king is picked up and moved one square with the keyboard alone.
  await fromPosition(cara, 'chess', '8/4P3/8/8/8/8/k7/4K3 w - - 0 1');
  await cara.tid('cell-e1').focus();
  await cara.page.keyboard.press('Enter');
  await cara.page.locator('[data-testid="board"] .cell.target').first().waitFor({ state: 'visible' });
  await audit('chess board');
  await cara.page.emulateMedia({ colorScheme: 'dark' });
  await audit('chess board in dark mode');
  await cara.page.emulateMedia({ colorScheme: 'light' });
  await cara.tid('cell-e1').focus();
  await cara.page.keyboard.press('ArrowUp');
  const focused = await cara.page.evaluate(() => document.activeElement?.dataset.label ?? null);
  if (focused !== 'e2') fail(`the up arrow from e1 moved the focus to ${focused}, expected e2`);
  await cara.page.keyboard.press('Enter');
  await untilListed(cara, 'Ke2', 5000)
    .catch(() => fail('Enter on e2 with the king picked up did not play e1e2'));
  log('keyboard: Enter on e1, up arrow, Enter played e1e2 (listed as Ke2)');
  const bothModes = async (where) => {
    await audit(where);
    await cara.page.emulateMedia({ colorScheme: 'dark' });
    await audit(`${where} in dark mode`);
    await cara.page.emulateMedia({ colorScheme: 'light' });
  };
  await cara.tid('resign').click();
  await cara.tid('resign').click();
  await cara.tid('result').waitFor({ state: 'visible' });
  await bothModes('game-over panel');
  await cara.tid('replay-open').click();
  await cara.page.waitForFunction(() => document.querySelector('[data-testid="replay"]')?.dataset.loaded === 'true', null, { timeout: 5000 })
    .catch(() => fail('the replay of the finished game did not load'));
  await bothModes('replay');
  await cara.tid('replay-close').click();
  await resignAndLeave(cara);
  for (const game of ['tictactoe', 'checkers', 'fox_geese']) {
    await cara.pickGame(game);
    await cara.tid('bot-level').selectOption('random');
    await cara.tid('bot-side').selectOption('0');
    await cara.tid('play-bot').click();
    await cara.myTurn(game);
    await bothModes(`${game} board`);
    await resignAndLeave(cara);
  }
  if (found.length) fail(`axe-core found:\n  ${found.join('\n  ')}`);
}

/**
 * The colour switch beside the system's scheme: dark on a light system, kept across a
 * reload, with no accessibility problem; then back to following the system.
 */
async function themeSwitchHolds() {
  const background = () => cara.page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  const brightness = (color) => color.match(/\d+/g).slice(0, 3).map(Number).reduce((a, b) => a + b, 0) / 3;
  const systemLight = await background();
  await cara.tid('theme').selectOption('dark');
  const chosenDark = await background();
  if (!(brightness(chosenDark) < 80 && brightness(systemLight) > 180)) fail(`the switch set to dark on a light system gives ${chosenDark} (light was ${systemLight})`);
  await cara.page.reload();
  await cara.tid('quick-join').waitFor({ state: 'visible' });
  if (await background() !== chosenDark || await cara.tid('theme').inputValue() !== 'dark') fail('after a reload the dark colours chosen with the switch are gone');
  const { violations, contrastChecked } = await axeReport(cara.page);
  if (contrastChecked === 0 || violations.length) fail(`axe-core on the lobby switched to dark: ${violations.join('; ') || 'nothing checked'}`);
  await cara.tid('theme').selectOption('system');
  if (await background() !== systemLight) fail('back to the system setting, the page stays dark on a light system');
  log(`colour switch: dark on a light system (${chosenDark}), kept across a reload, 0 axe violations; back to the system's light`);
}

/** The board's width in `who`'s page, in CSS pixels. */
function boardWidth(who) {
  return who.page.evaluate(() => Math.round(document.querySelector('[data-testid="board"]').getBoundingClientRect().width));
}

/** Starts a game of `game` against a random bot, `who` moving first. */
async function againstABot(who, game) {
  await who.pickGame(game);
  await who.tid('bot-level').selectOption('random');
  await who.tid('bot-side').selectOption('0');
  await who.tid('play-bot').click();
  await who.myTurn(game);
}

/**
 * Every game on a 1280×800 desktop and a 390×844 phone, with a screenshot of each: on
 * the desktop a big board, which its handle resizes (kept across a reload, back to the
 * usual size on a double-click); on the phone the whole board, nothing wider than the
 * screen. The lobby at 360 px wide is checked for overflow too.
 */
async function everyGameAtBothSizes() {
  const desk = await Person.signIn('Dana', { width: 1280, height: 800 });
  await desk.screenshot('lobby-1280', { fullPage: true });
  const widths = [];
  for (const game of ['tictactoe', 'checkers', 'fox_geese', 'chess']) {
    await againstABot(desk, game);
    const width = await boardWidth(desk);
    if (width < 480) fail(`${game} at 1280×800: the board is only ${width} px wide`);
    widths.push(`${game} ${width} px`);
    await desk.screenshot(`game-${game}-1280`);
    if (game !== 'chess') await resignAndLeave(desk);
  }
  // Beside the board on a wide screen: the moves (a list that scrolls) and the chat.
  const side = await desk.page.evaluate(() => {
    const board = document.querySelector('[data-testid="board"]').getBoundingClientRect();
    const moves = document.querySelector('[data-testid="moves"]');
    const chat = document.querySelector('[data-testid="chat"]').getBoundingClientRect();
    const panel = moves.closest('aside').getBoundingClientRect();
    return { boardRight: board.right, boardTop: board.top, movesLeft: panel.left, chatLeft: chat.left, chatTop: chat.top, scrolls: getComputedStyle(moves).overflowY };
  });
  if (side.movesLeft < side.boardRight || side.chatLeft < side.boardRight || side.chatTop > side.boardTop + 700 || side.scrolls !== 'auto') {
    fail(`at 1280×800 the moves and the chat are not in a panel beside the board: ${JSON.stringify(side)}`);
  }
  const usual = await boardWidth(desk);
  const handle = desk.tid('board-resize');
  await handle.scrollIntoViewIfNeeded();
  const box = await handle.boundingBox();
  await desk.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await desk.page.mouse.down();
  // The screen's height and the panel beside it leave no room to grow here: drag it smaller.
  await desk.page.mouse.move(box.x + box.width / 2 - 120, box.y + box.height / 2 - 120, { steps: 6 });
  await desk.page.mouse.up();
  const dragged = await boardWidth(desk);
  if (dragged > usual - 100) fail(`dragging the board's handle 120 px in made it ${dragged} px wide, from ${usual} px`);
  await desk.page.reload();
  await desk.myTurn('chess');
  const kept = await boardWidth(desk);
  if (Math.abs(kept - dragged) > 2) fail(`after a reload the board is ${kept} px wide, not the ${dragged} px chosen`);
  await desk.tid('board-resize').dblclick();
  const back = await boardWidth(desk);
  if (Math.abs(back - usual) > 2) fail(`a double-click on the handle left the board at ${back} px, not the usual ${usual} px`);
  await desk.tid('board-resize').focus();
  await desk.page.keyboard.press('ArrowDown');
  const smaller = await boardWidth(desk);
  if (smaller >= back) fail(`the down arrow on the handle left the board at ${smaller} px`);
  await desk.tid('board-resize').dblclick();
  await resignAndLeave(desk);
  // A long game: its moves scroll down in the panel, never out sideways.
  await watchTwoBots(desk, 'chess');
  await movesPlayed(desk, 60);
  const long = await moveListLayout(desk);
  if (long.sideways || !long.currentInSight) fail(`at 1280×800, after ${long.plies} moves the move list runs sideways or hides the latest move: ${JSON.stringify(long)}`);
  // Clicked as the page's own handler takes it: with two random bots moving every few
  // milliseconds Playwright's wait for a still button ran out here (CI, 2026-11-28).
  // Leaving by the button is checked for people throughout this file.
  await desk.tid('leave').dispatchEvent('click');
  await desk.page.waitForFunction(() => document.getElementById('game').hidden, null, { timeout: 10_000 })
    .catch(() => fail('Stop watching did not take the spectator out of the bots\' room'));
  await desk.close();
  log(`desktop 1280×800: boards ${widths.join(', ')}, the moves and chat beside them (${long.plies} moves scroll down, the latest in sight); the handle took chess from ${usual} to ${dragged} px, kept across a reload; double-click back to ${back} px`);

  const phone = await Person.signIn('Dora', { width: 390, height: 844 });
  for (const game of ['tictactoe', 'checkers', 'chess', 'fox_geese']) {
    await againstABot(phone, game);
    const fit = await phone.page.evaluate(() => {
      const box = document.querySelector('[data-testid="board"]').getBoundingClientRect();
      return { left: box.left, right: box.right, overflow: document.documentElement.scrollWidth - window.innerWidth };
    });
    if (fit.left < 0 || fit.right > 390 || fit.overflow > 0) fail(`${game} at 390×844: the board spans ${fit.left}..${fit.right} px and the page overflows by ${fit.overflow} px`);
    const below = await phone.page.evaluate(() => document.querySelector('[data-testid="chat"]').getBoundingClientRect().top
      >= document.querySelector('[data-testid="board"]').getBoundingClientRect().bottom);
    if (!below) fail(`${game} at 390×844: the chat is not under the board`);
    await phone.screenshot(`game-${game}-390`);
    await resignAndLeave(phone);
  }
  await phone.close();
  const overflow = await ann.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  if (overflow > 0) fail(`at 360 px the page is ${overflow} px wider than the screen`);
  await ann.screenshot('lobby-360-full', { fullPage: true });
  log('phone 390×844: every board whole on the screen, nothing wider than it');
}

/** A token the hosting site signs for its user `sub`, named `name`, valid for ten minutes. */
function siteToken(sub, name) {
  return new SignJWT({ name })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(SITE_SECRET));
}

/**
 * A site's signed-in user opens the page the site links to (`/#jwt=…`): seated under
 * the site's name without a name form, the token gone from the address; on a second
 * device, with a renewed token, the same player; a refused token leaves a guest's page.
 */
async function siteUserSignedIn() {
  const open = async (jwt) => {
    const context = await browser.newContext({ viewport: NARROW });
    const page = await context.newPage();
    watchPage(page, problems, 'the site user\'s page');
    await page.goto(`${server.base}/#jwt=${jwt}`, { timeout: 30_000 });
    return page;
  };
  const phone = await open(await siteToken('site-user-1', 'Sid Site'));
  await phone.locator('[data-testid="quick-join"]').waitFor({ state: 'visible' });
  const name = await phone.locator('[data-testid="me"]').innerText();
  if (name !== 'Sid Site') fail(`the signed-in user is shown as ${JSON.stringify(name)}`);
  if (phone.url().includes('jwt')) fail(`the token stays in the address: ${phone.url()}`);
  if (await phone.locator('[data-testid="change-name"]').isVisible()) fail('a signed-in user is offered to change the site\'s name');
  if (await phone.locator('[data-testid="name-input"]').isVisible()) fail('a signed-in user is asked for a name');
  // Another device, a token issued later: the same player, who holds the room opened on the first.
  await phone.locator('[data-testid="game-tictactoe"]').check();
  await phone.locator('[data-testid="time-control"]').selectOption('none');
  const own = phone.locator('.own-room');
  if (!(await own.evaluate((d) => d.open))) await own.locator('summary').click();
  await phone.locator('[data-testid="open-room"]').click();
  await phone.waitForFunction(() => JSON.parse(sessionStorage.getItem('parlor.room') ?? 'null')?.id);
  const room = await phone.evaluate(() => JSON.parse(sessionStorage.getItem('parlor.room')).id);
  const laptop = await open(await siteToken('site-user-1', 'Sid Site'));
  await laptop.locator('[data-testid="quick-join"]').waitFor({ state: 'visible' });
  const entry = laptop.locator(`[data-testid="room-item"][data-room="${room}"]`);
  await entry.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => fail('the room of the first device is not listed on the second'));
  const mine = await entry.innerText();
  if (!mine.includes('Sid Site')) fail(`the second device's list shows the room as ${JSON.stringify(mine)}`);
  // A token signed with another secret is refused in words, and the page asks for a name.
  const forged = await new SignJWT({ name: 'Mallory' }).setProtectedHeader({ alg: 'HS256' }).setSubject('site-user-1')
    .setExpirationTime('10m').sign(new TextEncoder().encode('not the site secret, though long enough'));
  const stranger = await open(forged);
  const error = stranger.locator('[data-testid="error"]');
  await error.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => fail('a forged token shows no error'));
  const said = await error.innerText();
  if (!said.includes('does not accept that sign-in token')) fail(`a forged token reads ${JSON.stringify(said)}`);
  await stranger.locator('[data-testid="name-input"]').waitFor({ state: 'visible' });
  await phone.locator('[data-testid="leave"]').click();
  log(`site sign-in: "${name}" seated from /#jwt= on two devices (room ${room} listed as theirs on both); a forged token: "${said.trim()}"`);
  for (const page of [phone, laptop, stranger]) await page.context().close();
}

async function noProblems() {
  if (problems.length) fail(problems.splice(0).join('\n'));
  for (const who of [ann, ben, cara]) await who.noError('after the check');
}

const CHECKS = [
  ['the lobby shows a new room without a reload, also to a visitor not signed in, and filters by game', lobbyIsLive],
  ['quick join, tic-tac-toe to a win by clicking, a reload mid-game, a spectator sees every move', ticTacToeWatched],
  ['the leaderboard shows the winner', leaderboardShowsWinner],
  ['a newcomer reads what Parlor is and plays a bot before choosing a name', newcomerPlaysABotAtOnce],
  ['a private room reached by its link', privateRoomByLink],
  ['chat: the players and the spectator each in their own chat, quick lines, and a mute that holds across a reload', chatApart],
  ['a dropped connection shows reconnecting… and resumes the seat', reconnectAfterDrop],
  ['a silent connection and going offline are noticed in seconds, by the page and by the opponent; back online at once', silentOutageNoticed],
  ['checkers: a forced double jump that crowns', checkersCrowning],
  ['chess: a promotion by drag and drop', chessPromotionByDrag],
  ['premoves: in chess one dropped as no longer legal and one, dragged, played the moment the opponent moves; one in checkers', premovesInChessAndCheckers],
  ['chess: a mated king is set apart on the board', chessMateShown],
  ['chess: castling glides the rook too, and a piece taken fades out', chessMovesAnimated],
  ['a name another player owns is refused in words the page explains', nameTakenSaysWhat],
  ['a site\'s signed-in user is seated from the site\'s token, one player on two devices; a forged token is refused', siteUserSignedIn],
  ['bot against bot, watched', botVersusBot],
  ['no serious accessibility problem in the lobby, on any board, the game-over panel or the replay (axe-core); a move by the keyboard', accessibility],
  ['every game on a 1280×800 desktop (a big board its handle resizes) and a 390×844 phone', everyGameAtBothSizes],
];

await runChecks({
  tag: 'people',
  log,
  checks: CHECKS,
  budgetMs: TOTAL_BUDGET_MS,
  setUp,
  async onFailure(name, err, { setUp: duringSetUp }) {
    if (duringSetUp) {
      if (server?.output) console.error(`--- last server output ---\n${server.tail()}\n---`);
      return;
    }
    for (const who of [ann, ben, cara]) {
      await who?.screenshot(`failure-${who.name.split(' ')[0].toLowerCase()}`, { fullPage: true }).catch(() => {});
    }
    if (server?.output) console.error(`--- last server output ---\n${server.tail()}\n---`);
    problems.length = 0;
  },
  ...closers(() => ({ browser, server })),
});
