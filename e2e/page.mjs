// Browser checks of the page a Lichess regular would keep, at 1280×800 and on a 390×844
// phone, against the real server (E2E_SERVER_BIN) and Debian's Chromium:
//
// - the first screen picks the game and the bot's level for "Play a bot now", keeps
//   them across a reload, and one click starts that game at that level;
// - in a room the header, both seats and a board that fills the height (at least 600 px
//   at 1280×800) are in view, and on a phone the moves too, as a one-line strip with
//   the latest move in sight;
// - picking a piece shows the move helper without moving the buttons;
// - ←, →, Home and End step through the moves from anywhere but a text field, and a
//   move clicked in the list keeps the focus, where the keys go on working;
// - when a game ends its result, with Rematch, is in view at both sizes;
// - leaving a game before any move says it is called off, not lost;
// - the invitation page's main button takes the seat offered; the host is told (and
//   hears) who arrived;
// - premoves queue: each played in order as the turns come, all dropped when one is
//   illegal; Escape, a right-click and "Cancel premoves" clear the queue; the notice
//   saying so goes by itself;
// - a tic-tac-toe move takes one line in the list;
// - axe-core finds nothing serious on the first screen and on a finished game, in light
//   and dark.
// Screenshots go to /tmp/shots/ (E2E_SHOTS overrides). Run from the repository root:
// `node e2e/page.mjs` (or `bash e2e/run.sh`).

import { fail, makeLog, Server, checkServedStatic, launchBrowser, runChecks, closers } from './harness.mjs';
import { Visitor as Person } from './visitor.mjs';

const TOTAL_BUDGET_MS = 300_000;
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const SHOTS = process.env.E2E_SHOTS || '/tmp/shots';

const log = makeLog('page');
const problems = [];
let server = null;
let browser = null;
/** What each visitor's page needs of this run. */
const env = { browser: () => browser, base: () => server.base, problems, log, shots: SHOTS };
/** The visitors of this run. */
const Visitor = {
  open: (name, viewport, address) => Person.open(env, name, viewport, address),
  signIn: (name, viewport) => Person.signIn(env, name, viewport),
};


/** The person on the desktop, kept from check to check. */
let eve = null;
/** The person on the phone. */
let dora = null;

/**
 * Eve, signed in on the desktop, in the lobby: each check starts from there whatever the
 * one before it left behind (on a page without a feature a check fails alone).
 */
async function eveInLobby() {
  if (eve && await eve.tid('login-form').isVisible()) {
    await eve.close();
    eve = null;
  }
  eve ??= await Visitor.signIn('Eve', DESKTOP);
  if (await eve.tid('resign').isVisible()) await eve.resign();
  if (await eve.tid('leave').isVisible()) await eve.leave();
}

/** Eve at a chess game against a bot, kept from the check before if it is still on. */
async function eveAtChess() {
  if (eve && await eve.tid('resign').isVisible() && await eve.tid('board').getAttribute('data-game') === 'chess') return;
  await eveInLobby();
  await eve.againstBot('chess', 'medium');
}

async function setUp() {
  server = await Server.start(log);
  log(`server listening at ${server.base}`);
  await checkServedStatic(server.base, log);
  browser = await launchBrowser();
}

/** Item 6: the first screen picks game and level, keeps them, and one click plays them. */
async function firstScreenPlaysTheChosenGame() {
  const phone = await Visitor.open('a phone visitor', PHONE);
  await phone.tid('play-bot-now').waitFor({ state: 'visible' });
  await phone.expectInView('the first screen on a phone', 'now-game', 'now-level', 'play-bot-now');
  await phone.screenshot('first-visit-390');
  await phone.close();

  eve = await Visitor.open('Eve', DESKTOP);
  await eve.tid('now-game').selectOption('chess');
  await eve.tid('now-level').selectOption('medium');
  await eve.page.reload();
  await eve.tid('play-bot-now').waitFor({ state: 'visible' });
  const kept = [await eve.tid('now-game').inputValue(), await eve.tid('now-level').inputValue()];
  if (kept.join() !== 'chess,medium') fail(`after a reload the first screen shows game and level ${JSON.stringify(kept)}, not chess and medium`);
  await eve.screenshot('first-visit-1280');
  await eve.audit('the first screen');
  // The levels show the Elo they measured (docs/BOTS.md): chess's on Stockfish's scale,
  // checkers's counted from Random; tic-tac-toe's were not measured so.
  const levelText = () => eve.tid('now-level').evaluate((select) => select.selectedOptions[0].text);
  const levelTip = () => eve.tid('now-level').getAttribute('title');
  const chessLevel = await levelText();
  if (!/^Medium \(about \d{3,4}\)$/.test(chessLevel)) fail(`chess's medium level reads ${JSON.stringify(chessLevel)}, not "Medium (about N)"`);
  if (!/Stockfish/.test(await levelTip())) fail(`chess's level picker does not say its figures are on Stockfish's scale: ${JSON.stringify(await levelTip())}`);
  await eve.tid('now-game').selectOption('checkers');
  const checkersLevel = await levelText();
  if (!/^Medium \(about \d{3,4} above Random\)$/.test(checkersLevel)) fail(`checkers's medium level reads ${JSON.stringify(checkersLevel)}, not "Medium (about N above Random)"`);
  if (!/Random level at 0/.test(await levelTip())) fail(`checkers's level picker does not say where its figures count from: ${JSON.stringify(await levelTip())}`);
  await eve.tid('now-game').selectOption('tictactoe');
  const ticTacToeLevel = await levelText();
  if (ticTacToeLevel !== 'Medium') fail(`tic-tac-toe's medium level reads ${JSON.stringify(ticTacToeLevel)}, not "Medium"`);
  await eve.tid('now-game').selectOption('chess');
  await eve.tid('play-bot-now').click();
  await eve.myTurn('chess');
  const seats = (await eve.tid('seats').innerText()).replace(/\s+/g, ' ');
  if (!/Medium bot .*bot, about \d{3,4}/.test(seats)) fail(`"Play a bot now" with chess and medium chosen seats ${JSON.stringify(seats)}, not a Medium bot with its Elo`);
  log(`first screen: chess and medium were kept across a reload, the level reads "${chessLevel}" (checkers "${checkersLevel}"), and one click seats "${seats}"`);
}

/**
 * Items 2 and 10: at 1280×800 the room's header, both seats and a board of 600 px or
 * more are in view, the moves beside it; picking a piece moves no button.
 */
async function desktopRoomInView() {
  await eveAtChess();
  const found = await eve.expectInView('in a chess room at 1280×800', 'game-name', 'seat-0', 'seat-1', 'board', 'status', 'resign', 'leave');
  if (found.board.width < 600) fail(`at 1280×800 the board is ${found.board.width} px wide, not the 600 px or more the screen allows`);
  const before = await eve.boxes('resign', 'leave', 'board', 'status');
  await eve.tid('cell-e2').click();
  await eve.tid('move-helper').waitFor({ state: 'visible' });
  const after = await eve.boxes('resign', 'leave', 'board', 'status');
  for (const id of ['resign', 'leave', 'board', 'status']) {
    if (JSON.stringify(before[id]) !== JSON.stringify(after[id])) fail(`picking e2 moved ${id} from ${JSON.stringify(before[id])} to ${JSON.stringify(after[id])}`);
  }
  await eve.page.keyboard.press('Escape');
  await eve.tid('move-helper').waitFor({ state: 'hidden' });
  log(`desktop: header, seats and a ${found.board.width} px board in view; the helper moved nothing`);
}

/** Item 4: the arrow keys, Home and End step the moves from anywhere; a clicked move keeps the focus. */
async function arrowKeysFromAnywhere() {
  await eveAtChess();
  await eve.page.keyboard.press('Escape');
  await eve.move('e2', 'e4');
  await eve.myTurn('chess');
  await eve.move('d2', 'd4');
  await eve.untilPlies(4);
  await eve.myTurn('chess');
  const browsing = () => eve.tid('board').getAttribute('data-browsing');
  const focusedPly = () => eve.page.evaluate(() => document.activeElement?.dataset?.ply ?? document.activeElement?.tagName);
  const expectShown = async (what, ply) => {
    await eve.page.waitForFunction((p) => document.querySelector('[data-testid="board"]').dataset.browsing === p, ply, { timeout: 5000 })
      .catch(async () => fail(`${what}: the board shows move ${JSON.stringify(await browsing())}, expected ${JSON.stringify(ply)}`));
  };
  // The focus on the page itself: a click on the status line, which takes none.
  await eve.tid('status').click();
  await eve.page.keyboard.press('ArrowLeft');
  await expectShown('← with the focus on the page', '3');
  await eve.page.keyboard.press('ArrowLeft');
  await expectShown('← again', '2');
  await eve.page.keyboard.press('Home');
  await expectShown('Home', '1');
  await eve.page.keyboard.press('End');
  await expectShown('End', '');
  await eve.page.locator('[data-testid="moves"] [data-ply="2"]').click();
  await expectShown('a click on move 2', '2');
  if (await focusedPly() !== '2') fail(`after a click on move 2 in the list the focus is on ${await focusedPly()}`);
  await eve.page.keyboard.press('ArrowRight');
  await expectShown('→ after the click', '3');
  if (await focusedPly() !== '3') fail(`after → from move 2 the focus is on ${await focusedPly()}, not move 3`);
  await eve.page.keyboard.press('End');
  await expectShown('End from the list', '');
  // Typing: the keys are the text field's.
  const chat = eve.tid('chat-input');
  if (await chat.isVisible()) {
    await chat.fill('hello');
    await chat.press('ArrowLeft');
    if (await browsing() !== '') fail('← while typing in the chat stepped through the moves');
  }
  log('keys: ←, Home, End from the page; a clicked move kept the focus and → went on from it; typing is left alone');
}

/** Item 1 (desktop): a resigned game's result and Rematch in view at 1280×800. */
async function desktopResultInView() {
  await eveAtChess();
  await eve.screenshot('game-1280');
  await eve.resign();
  await eve.tid('rematch').waitFor({ state: 'visible' });
  await eve.expectInView('the game over at 1280×800', 'result', 'rematch', 'game-name', 'board');
  await eve.screenshot('finished-1280');
  log('desktop: the result and Rematch are in view as the game ends');
}

/** Item 10: a tic-tac-toe move takes one line of the list, beside the board. */
async function ticTacToeMovesOneLine() {
  await eveInLobby();
  await eve.againstBot('tictactoe');
  for (let i = 0; i < 2; i += 1) {
    const plies = await eve.plies();
    await eve.page.locator('[data-testid^="cell-"]:not([disabled])').first().click();
    await eve.untilPlies(plies + 2).catch(async () => {
      if (!(await eve.tid('result').isVisible())) throw new Error('no reply');
    });
    if (await eve.tid('result').isVisible()) break;
  }
  // The lines a move's text is laid out on: the distinct tops of its text's boxes.
  const lines = await eve.page.evaluate(() => [...document.querySelectorAll('[data-testid="moves"] li')].map((li) => {
    const tops = new Set();
    const walk = document.createTreeWalker(li, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
      if (!node.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const r of range.getClientRects()) if (r.width > 0) tops.add(Math.round(r.top / 4));
    }
    return { text: li.textContent, lines: tops.size };
  }));
  const wrapped = lines.filter((l) => l.lines > 1);
  if (!lines.length || wrapped.length) fail(`tic-tac-toe moves that take more than one line: ${JSON.stringify(wrapped.length ? wrapped : lines)}`);
  log(`tic-tac-toe: ${lines.length} moves, one line each`);
  if (!(await eve.tid('result').isVisible())) await eve.resign();
  await eve.leave();
}

/** Item 7: leaving before any move says the game is called off; after a move, that it is lost. */
async function leavingBeforeAMove() {
  await eveInLobby();
  await eve.againstBot('chess');
  eve.answer = false;
  await eve.tid('leave').click();
  const first = eve.dialogs.at(-1) ?? '';
  if (!/called off/.test(first) || /lose/i.test(first)) fail(`Leave at 0 moves asks ${JSON.stringify(first)}`);
  if (!(await eve.tid('board').isVisible())) fail('saying no to the question left the game anyway');
  await eve.move('e2', 'e4');
  await eve.untilPlies(2);
  await eve.tid('leave').click();
  const second = eve.dialogs.at(-1) ?? '';
  if (!/loses/.test(second)) fail(`Leave after a move asks ${JSON.stringify(second)}`);
  eve.answer = true;
  await eve.leave();
  eve.answer = null;
  log(`leave: at 0 moves "${first}"; after one, "${second}"`);
}

/** Plays the first legal move the board offers (reading data-legal), clicking its path. */
async function playSomeMove(who) {
  const legal = JSON.parse(await who.tid('board').getAttribute('data-legal'));
  const move = legal.find((m) => /^[a-h][1-8][a-h][1-8]$/.test(m));
  await who.move(move.slice(0, 2), move.slice(2, 4));
}

/**
 * Items 1, 2, 3 and 10 on a phone: the header, seats, board and a one-line strip of
 * moves with the latest in sight; picking a piece moves no button; the result in view.
 */
async function phoneRoomInView() {
  dora = await Visitor.signIn('Dora', PHONE);
  await dora.againstBot('chess');
  for (let i = 0; i < 6; i += 1) {
    const plies = await dora.plies();
    await playSomeMove(dora);
    await dora.untilPlies(plies + 2);
    await dora.myTurn('chess');
  }
  const found = await dora.expectInView('playing chess at 390×844', 'game-name', 'seat-0', 'seat-1', 'board', 'moves');
  const strip = await dora.page.evaluate(() => {
    const list = document.querySelector('[data-testid="moves"]');
    const box = list.getBoundingClientRect();
    const tops = new Set([...list.querySelectorAll('li')].map((li) => Math.round(li.getBoundingClientRect().top)));
    const current = list.querySelector('[aria-current="step"]')?.getBoundingClientRect();
    return {
      rows: tops.size,
      scrollsSideways: list.scrollWidth > list.clientWidth,
      latestInSight: Boolean(current) && current.left >= box.left - 1 && current.right <= box.right + 1,
    };
  });
  if (strip.rows !== 1 || !strip.latestInSight) fail(`on a phone the moves are not a one-line strip with the latest in sight: ${JSON.stringify(strip)}`);
  if (found.moves.top < found.board.bottom) fail('on a phone the strip of moves is not under the board');
  const before = await dora.boxes('resign', 'leave', 'moves', 'board');
  const legal = JSON.parse(await dora.tid('board').getAttribute('data-legal'));
  await dora.tid(`cell-${legal[0].slice(0, 2)}`).click();
  await dora.tid('move-helper').waitFor({ state: 'visible' });
  const after = await dora.boxes('resign', 'leave', 'moves', 'board');
  for (const id of ['resign', 'leave', 'moves', 'board']) {
    if (JSON.stringify(before[id]) !== JSON.stringify(after[id])) fail(`on a phone, picking a piece moved ${id} from ${JSON.stringify(before[id])} to ${JSON.stringify(after[id])}`);
  }
  await dora.page.keyboard.press('Escape');
  await dora.screenshot('game-390');
  await dora.resign();
  await dora.expectInView('the game over at 390×844', 'result', 'rematch');
  await dora.screenshot('finished-390');
  await dora.audit('a finished game on a phone');
  await dora.leave();
  log(`phone: header, seats, a ${found.board.width} px board and a strip of ${await dora.plies()} moves in view (sideways: ${strip.scrollsSideways}); the result in view at the end`);
}

/**
 * Items 8, 9 and 5: Eve opens a chess room; a visitor with the link is offered the seat
 * as the main button and takes it; Eve is told and hears who arrived. Then premoves:
 * Eve queues two, played in order; two more, dropped together when the first is illegal;
 * Escape, a right-click and Cancel premoves clear the queue.
 */
async function invitationAndPremoves() {
  await eveInLobby();
  await eve.tid('game-chess').check();
  await eve.tid('time-control').selectOption('none');
  const own = eve.page.locator('.own-room');
  if (!(await own.evaluate((d) => d.open))) await own.locator('summary').click();
  await eve.tid('person-side').selectOption('0');
  await eve.tid('open-room').click();
  await eve.tid('room-link').waitFor({ state: 'visible' });
  const link = await eve.tid('room-link').inputValue();
  await eve.expectInView('waiting for a friend at 1280×800', 'game-name', 'seat-0', 'seat-1', 'board', 'room-link', 'copy-link');
  await eve.screenshot('waiting-1280');
  const room = new URL(link).searchParams.get('room');

  const guest = await Visitor.open('the invited guest', PHONE, link);
  await guest.tid('notice').waitFor({ state: 'visible' });
  await guest.page.waitForFunction(() => document.querySelector('[data-testid="follow-link"]')?.textContent === 'Take the seat', null, { timeout: 5000 })
    .catch(() => fail('the invitation page offers no "Take the seat" button'));
  const main = await guest.page.evaluate(() => [...document.querySelectorAll('#login .primary-btn')]
    .filter((b) => b.getClientRects().length > 0).map((b) => b.dataset.testid));
  if (main[0] !== 'follow-link' || main.includes('play-bot-now')) fail(`the invitation page's main buttons are ${JSON.stringify(main)}`);
  await guest.screenshot('invitation-390');
  await guest.tid('follow-link').click();
  await guest.page.waitForFunction((id) => {
    const held = JSON.parse(sessionStorage.getItem('parlor.room') ?? 'null');
    return held?.id === id && held.role === 'player' && document.querySelector('[data-testid="board"]')?.dataset.game === 'chess';
  }, room, { timeout: 10_000 }).catch(() => fail('"Take the seat" did not seat the guest in the room of the link'));
  const guestName = await guest.tid('me').textContent();
  await eve.page.waitForFunction((name) => {
    const notice = document.querySelector('[data-testid="notice"]');
    return !notice.hidden && notice.textContent.includes(name) && notice.textContent.includes('arrived');
  }, guestName, { timeout: 5000 }).catch(async () => fail(`Eve is not told that ${guestName} arrived: notice ${JSON.stringify(await eve.tid('notice').innerText().catch(() => ''))}`));
  const heard = await eve.tid('sound').getAttribute('data-recent');
  if (!(heard ?? '').split(' ').includes('arrive')) fail(`no sound told Eve of the arrival (sounds: ${JSON.stringify(heard)})`);
  await eve.expectInView('the arrival notice', 'notice', 'board', 'game-name');
  log(`invitation: the guest's main button took the seat; Eve read "${await eve.tid('notice').innerText()}"`);

  const queued = () => eve.tid('board').getAttribute('data-premove');
  // Eve's page hears of each move a moment after the guest's may: waited for.
  const expectQueue = async (what, want) => {
    await eve.page.waitForFunction((w) => document.querySelector('[data-testid="board"]').dataset.premove === w, want, { timeout: 5000 })
      .catch(async () => fail(`${what}: the premoves shown are ${JSON.stringify(await queued())}, expected ${JSON.stringify(want)}`));
  };
  await eve.myTurn('chess');
  await eve.move('e2', 'e4');
  await guest.untilListed('e4');
  await eve.move('d2', 'd4');
  await eve.move('g1', 'f3');
  await expectQueue('two premoves queued', 'd2-d4 g1-f3');
  const marked = await eve.page.locator('[data-testid="board"] .cell.premove').evaluateAll((cells) => cells.map((c) => c.dataset.label).sort().join());
  if (marked !== 'd2,d4,f3,g1') fail(`the queued premoves' cells are marked as ${JSON.stringify(marked)}`);
  await eve.screenshot('premoves-1280');
  await eve.audit('a room with two premoves queued and the arrival notice');
  await guest.myTurn('chess');
  await guest.move('e7', 'e5');
  await guest.untilListed('d4');
  await expectQueue('after the first premove was played', 'g1-f3');
  await guest.myTurn('chess');
  await guest.move('e5', 'd4');
  await guest.untilListed('Nf3');
  await expectQueue('after both were played', '');
  log('premoves: d2-d4 and g1-f3, queued together, were played in order as the turns came');

  await eve.move('f3', 'd4');
  await eve.move('f1', 'c4');
  await expectQueue('two more queued', 'f3-d4 f1-c4');
  await guest.myTurn('chess');
  await guest.move('f8', 'b4');
  await eve.myTurn('chess');
  await eve.page.waitForFunction(() => document.querySelector('[data-testid="notice"]')?.textContent.includes('not a legal move'), null, { timeout: 5000 })
    .catch(() => fail('a queue dropped for an illegal premove says nothing'));
  await expectQueue('after Bb4+ made the first illegal', '');
  if (await eve.plies() !== 6) fail(`after the queue was dropped the game has ${await eve.plies()} moves, not 6`);
  log(`premoves: Nxd4 and Bc4, illegal after Bb4+, were dropped together: "${await eve.tid('notice').innerText()}"`);

  await eve.move('c2', 'c3');
  await guest.untilListed('c3');
  await eve.move('a2', 'a3');
  await eve.move('h2', 'h3');
  await expectQueue('queued again', 'a2-a3 h2-h3');
  await eve.page.keyboard.press('Escape');
  await expectQueue('after Escape', '');
  await eve.move('a2', 'a3');
  await eve.tid('board').click({ button: 'right' });
  await expectQueue('after a right-click on the board', '');
  await eve.move('a2', 'a3');
  await eve.tid('cancel-premove').click();
  await expectQueue('after Cancel premoves', '');
  log('premoves: Escape, a right-click and Cancel premoves each cleared the queue');
  // Floating over the page in a room, a passing notice goes by itself after a while.
  await eve.tid('notice').waitFor({ state: 'hidden', timeout: 20_000 })
    .catch(() => fail('the notice about the dropped premoves never went away by itself'));
  await eve.resign();
  await guest.tid('result').waitFor({ state: 'visible' });
  await eve.leave();
  await guest.close();
}

async function noProblems() {
  if (problems.length) fail(problems.splice(0).join('\n'));
}

const CHECKS = [
  ['the first screen picks the game and the level, keeps them, and one click plays them', firstScreenPlaysTheChosenGame],
  ['at 1280×800 the header, the seats and a board of 600 px or more are in view; the helper moves no button', desktopRoomInView],
  ['←, →, Home and End step the moves from anywhere; a clicked move keeps the focus', arrowKeysFromAnywhere],
  ['at 1280×800 the result and Rematch are in view when the game ends', desktopResultInView],
  ['a tic-tac-toe move takes one line', ticTacToeMovesOneLine],
  ['leaving before any move says the game is called off', leavingBeforeAMove],
  ['on a phone the header, seats, board and a strip of moves are in view, and the result at the end', phoneRoomInView],
  ['the invitation\'s main button takes the seat, the host hears who came; premoves queue', invitationAndPremoves],
];

await runChecks({
  tag: 'page',
  log,
  checks: CHECKS.map(([name, check]) => [name, async () => {
    await check();
    await noProblems();
  }]),
  budgetMs: TOTAL_BUDGET_MS,
  setUp,
  async onFailure(name, err, { setUp: duringSetUp }) {
    if (!duringSetUp) {
      for (const [who, tag] of [[eve, 'eve'], [dora, 'dora']]) await who?.screenshot(`failure-${tag}`).catch(() => {});
    }
    if (server?.output) console.error(`--- last server output ---\n${server.tail()}\n---`);
    problems.length = 0;
  },
  ...closers(() => ({ browser, server })),
});
