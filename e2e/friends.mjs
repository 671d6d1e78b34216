// Browser checks of what the page does for friends and for a player whose opponent is
// gone, against the real server (E2E_SERVER_BIN) and Debian's Chromium, at 1280×800 and
// on a 390×844 phone. The server runs with short times: a bot fills a waiting seat after
// 1 s (at medium level), a claim opens 4 s after a player left.
//
// - "Play a person" says, from the server's settings, when its room turns to a bot game;
//   "Open a room of your own" says the room waits for the friend;
// - a friend who opens the link after a room that fills itself got its bot still gets
//   the seat, and the host, having waited, was offered "Play a bot instead";
// - "Play a bot instead", at the level chosen beside it, starts a bot game;
// - when the opponent goes offline: their seat and the status line say they left, a
//   countdown to the claim, then "Claim victory" and "Call it a draw" and what happens
//   otherwise; a spectator sees the countdown without buttons; the offline player's
//   chat says it comes back when they reconnect; a claimed victory and a claimed draw
//   are told in words;
// - a game left before its first move is called off, in words, and lost by nobody;
// - axe-core finds nothing serious on the waiting host, the countdown and the claim.
// Screenshots go to /tmp/shots/ (E2E_SHOTS overrides). Run from the repository root:
// `node e2e/friends.mjs` (or `bash e2e/run.sh`).

import { fail, makeLog, Server, checkServedStatic, launchBrowser, runChecks, closers } from './harness.mjs';
import { Visitor } from './visitor.mjs';

const TOTAL_BUDGET_MS = 240_000;
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
/** The server's settings under test: what the page must say, and when things happen. */
const SERVER_CONFIG = `fill_after_secs = 1
fill_level = "medium"

[rooms]
claim_after_secs = 4
reconnect_grace_secs = 120
`;

const log = makeLog('friends');
const problems = [];
let server = null;
let browser = null;
const env = { browser: () => browser, base: () => server.base, problems, log, shots: process.env.E2E_SHOTS || '/tmp/shots' };
/** Every visitor opened, closed after each check. */
const opened = [];

async function open(name, viewport, address) {
  const who = await Visitor.open(env, name, viewport, address);
  opened.push(who);
  return who;
}

async function signIn(name, viewport) {
  const who = await Visitor.signIn(env, name, viewport);
  opened.push(who);
  return who;
}

async function closeAll() {
  for (const who of opened.splice(0)) await who.close();
}

async function setUp() {
  server = await Server.start(log, SERVER_CONFIG);
  log(`server listening at ${server.base}`);
  await checkServedStatic(server.base, log);
  browser = await launchBrowser();
}

/** Opens a room of `host`'s own for `game` (public unless `privateRoom`) and returns its link. */
async function openOwnRoom(host, game, { privateRoom = false } = {}) {
  await host.tid(`game-${game}`).check();
  await host.tid('time-control').selectOption('none');
  const own = host.page.locator('.own-room');
  if (!(await own.evaluate((d) => d.open))) await own.locator('summary').click();
  await host.tid('person-side').selectOption('0');
  await host.tid('private-room').setChecked(privateRoom);
  await host.tid('open-room').click();
  await host.tid('room-link').waitFor({ state: 'visible' });
  return host.tid('room-link').inputValue();
}

/** `name` opens `link` on a new page, signs in under that name with the invitation's button, and is seated or watches. */
async function followLink(name, viewport, link, want) {
  const who = await open(name, viewport, link);
  await who.page.waitForFunction((text) => document.querySelector('[data-testid="follow-link"]')?.textContent === text, want, { timeout: 10_000 })
    .catch(async () => fail(`${name} opening the link is offered ${JSON.stringify(await who.tid('follow-link').textContent())}, not "${want}"`));
  await who.tid('name-input').fill(name);
  await who.tid('follow-link').click();
  await who.tid('board').waitFor({ state: 'visible' });
  return who;
}

/** Waits until `who`'s `testid` element holds text matching `pattern`; fails saying `what` and what it held. */
async function untilText(who, testid, pattern, what, timeout = 10_000) {
  await who.page.waitForFunction(([id, source]) => {
    const node = document.querySelector(`[data-testid="${id}"]`);
    return Boolean(node) && !node.closest('[hidden]') && new RegExp(source).test(node.textContent);
  }, [testid, pattern.source], { timeout }).catch(async () => {
    const held = await who.tid(testid).first().textContent().catch(() => null);
    fail(`${who.name}: ${what}: ${testid} says ${JSON.stringify(held)}, not ${pattern}`);
  });
}

/** Plays the first open cell of a tic-tac-toe board once it is `who`'s turn. */
async function playACell(who) {
  await who.myTurn('tictactoe');
  const plies = await who.plies();
  await who.page.locator('[data-testid^="cell-"]:not([disabled])').first().click();
  await who.untilPlies(plies + 1);
}

/** Item 2: "Play a person" says when it turns to a bot game, from the server's settings; an own room says it waits. */
async function lobbySaysWhatHappens() {
  const amy = await signIn('Amy', DESKTOP);
  await untilText(amy, 'quick-join-hint', /if nobody comes within 1 s, a Medium bot takes the other seat/, '"Play a person" does not say when a bot comes');
  const own = await amy.tid('open-room-hint').textContent().catch(() => '');
  if (!/waits for the person you send its link to/.test(own)) fail(`"Open a room of your own" says ${JSON.stringify(own)}, not that it waits for the friend`);
  log(`lobby: "${await amy.tid('quick-join-hint').textContent()}"`);
}

/**
 * Item 1: Ann opens a public room for a friend; Cid's "Play a person" room gets its bot
 * (so a room that fills itself would have had one by now); Bob, opening Ann's link
 * after that, still gets the seat. Ann was offered "Play a bot instead" meanwhile.
 */
async function friendKeepsTheSeat() {
  const ann = await signIn('Ann', DESKTOP);
  const link = await openOwnRoom(ann, 'tictactoe');
  const wait = await ann.tid('invite-wait').textContent().catch(() => '');
  const cid = await signIn('Cid', PHONE);
  await cid.tid('game-chess').check();
  await cid.tid('time-control').selectOption('none');
  await cid.tid('quick-join').click();
  await untilText(cid, 'seats', /Medium bot/, 'the room of "Play a person" never got its bot', 15_000);
  log('a room that fills itself got its bot: Ann\'s has waited longer than the fill time');
  const offered = await ann.tid('fill-with-bot').waitFor({ state: 'visible', timeout: 5000 }).then(() => true, () => false);
  if (offered) {
    await ann.expectInView('the waiting host at 1280×800', 'room-link', 'fill-with-bot', 'board');
    await ann.screenshot('waiting-bot-instead-1280');
    await ann.audit('a host waiting for a friend, offered a bot instead');
  }

  const bob = await followLink('Bob', PHONE, link, 'Take the seat');
  await bob.page.waitForFunction(() => JSON.parse(sessionStorage.getItem('parlor.room') ?? 'null')?.role === 'player', null, { timeout: 10_000 })
    .catch(async () => fail(`Bob, opening the link after the fill time, was not seated: seats ${JSON.stringify(await bob.tid('seats').innerText())}`));
  await untilText(ann, 'seat-1', /Bob/, 'Ann does not see Bob in the other seat');
  if (!/waits for the person you send the link to/.test(wait)) fail(`Ann's room, waiting, says ${JSON.stringify(wait)}, not that it waits for the friend`);
  if (!offered) fail('Ann, having waited as long as a room that fills itself, was not offered "Play a bot instead"');
  log(`friend: Bob took the seat after the fill time; Ann had read "${wait}"`);
}

/** Item 1: "Play a bot instead", at the level chosen beside it, starts a bot game (on a phone). */
async function playABotInstead() {
  const pat = await signIn('Pat', PHONE);
  await openOwnRoom(pat, 'chess', { privateRoom: true });
  await pat.tid('fill-with-bot').waitFor({ state: 'visible', timeout: 10_000 })
    .catch(() => fail('a host waiting in a private room is never offered "Play a bot instead"'));
  await pat.tid('fill-level').selectOption('easy');
  await pat.expectInView('the waiting host at 390×844', 'fill-with-bot');
  await pat.screenshot('waiting-bot-instead-390');
  await pat.tid('fill-with-bot').click();
  await untilText(pat, 'seat-1', /Easy bot/, '"Play a bot instead" at Easy did not seat an Easy bot');
  await pat.myTurn('chess');
  log('"Play a bot instead" at Easy started a chess game against the Easy bot');
}

/** Host and guest (`names`) in a tic-tac-toe game with a move each; `spectator` (a name, or null) watching. */
async function gameWithAMoveEach(viewport, names, spectator) {
  const [hostName, guestName] = names;
  const host = await signIn(hostName, viewport);
  // Private: a room that waits for its guest on the page before this one too.
  const link = await openOwnRoom(host, 'tictactoe', { privateRoom: true });
  const guest = await followLink(guestName, DESKTOP, link, 'Take the seat');
  await playACell(host);
  await playACell(guest);
  await host.myTurn('tictactoe');
  const watcher = spectator ? await followLink(spectator, DESKTOP, link, 'Watch the game') : null;
  return { host, guest, watcher };
}

/**
 * Items 3 and 4: Ben goes offline: his chat says it comes back when he reconnects; Ivy
 * sees him leave, the countdown, then the claim buttons; Tom watching sees the countdown
 * but no buttons; Ivy claims victory and the result says why.
 */
async function claimVictory() {
  const { host: ivy, guest: ben, watcher: tom } = await gameWithAMoveEach(DESKTOP, ['Ivy', 'Ben'], 'Tom');
  await ben.page.context().setOffline(true);
  await ben.page.waitForFunction(() => /offline/i.test(document.querySelector('[data-testid="chat-input"]')?.placeholder ?? ''), null, { timeout: 10_000 })
    .catch(async () => fail(`Ben, offline during the game, reads in his chat ${JSON.stringify(await ben.tid('chat-input').getAttribute('placeholder'))}`));
  log(`offline chat: "${await ben.tid('chat-input').getAttribute('placeholder')}"`);

  await untilText(ivy, 'status', /Ben \(O\) left the game/, 'the status line does not say Ben left');
  await untilText(ivy, 'left-1', /left the game/, 'Ben\'s seat does not say he left');
  await untilText(ivy, 'away-claim', /^You can claim victory in \d+ s\.$/, 'no countdown to the claim');
  await untilText(tom, 'away-claim', /^Ivy can claim victory in \d+ s\.$/, 'the spectator sees no countdown');
  await ivy.screenshot('countdown-1280');
  await ivy.audit('the countdown to the claim');
  await ivy.tid('claim-victory').waitFor({ state: 'visible', timeout: 15_000 })
    .catch(() => fail('the claim buttons never came after the countdown'));
  await untilText(ivy, 'away-decided', /Otherwise the game is decided in (\d+ min )?\d+ s: Ben loses for leaving\./, 'what happens without a claim is not said');
  await ivy.expectInView('the claim at 1280×800', 'claim-victory', 'claim-draw', 'status', 'board');
  await tom.page.waitForFunction(() => document.querySelector('[data-testid="away-panel"]')?.dataset.state === 'claim-open', null, { timeout: 10_000 })
    .catch(() => fail('the spectator is not told the claim is open'));
  if (await tom.tid('claim-victory').count()) fail('the spectator is offered "Claim victory"');
  await ivy.screenshot('claim-1280');
  await ivy.audit('the claim buttons');
  await ivy.tid('claim-victory').click();
  await untilText(ivy, 'result', /You won!/, 'claiming victory did not win');
  await untilText(ivy, 'result', /Ben \(O\) left the game/, 'the result does not say why');
  await untilText(tom, 'result', /Ivy \(X\) won\./, 'the spectator is not told who won');
  log(`claim: Ivy read "${(await ivy.tid('result').innerText()).split('\n').filter(Boolean).slice(0, 2).join(' ')}"`);
}

/** Item 3 on a phone: the opponent closes their page; the claimed draw is told in words. */
async function claimDraw() {
  const { host: ada, guest: leo } = await gameWithAMoveEach(PHONE, ['Ada', 'Leo'], null);
  await leo.close();
  await untilText(ada, 'away-claim', /^You can claim victory in \d+ s\.$/, 'no countdown to the claim');
  await ada.expectInView('the countdown at 390×844', 'away-panel', 'board');
  await ada.screenshot('countdown-390');
  await ada.tid('claim-draw').waitFor({ state: 'visible', timeout: 15_000 })
    .catch(() => fail('the claim buttons never came after the countdown'));
  await ada.expectInView('the claim at 390×844', 'claim-victory', 'claim-draw');
  await ada.screenshot('claim-390');
  await ada.audit('the claim buttons on a phone');
  await ada.tid('claim-draw').click();
  await untilText(ada, 'result', /Draw\./, 'calling it a draw did not draw');
  await untilText(ada, 'result', /Leo \(O\) left the game, and their opponent called it a draw/, 'the claimed draw is not told in words');
  const reason = await ada.tid('result').getAttribute('data-reason');
  if (reason !== 'draw_claimed') fail(`the result's reason is ${JSON.stringify(reason)}, not draw_claimed`);
  log(`draw claim: Ada read "${(await ada.tid('result').innerText()).split('\n').filter(Boolean).slice(0, 2).join(' ')}"`);
}

/** Item 5: a game the opponent leaves before the first move is called off, and nobody lost it. */
async function leftBeforeTheFirstMove() {
  const liv = await signIn('Liv', DESKTOP);
  const link = await openOwnRoom(liv, 'tictactoe', { privateRoom: true });
  const max = await followLink('Max', DESKTOP, link, 'Take the seat');
  await liv.myTurn('tictactoe');
  max.answer = true;
  await max.tid('leave').click();
  await max.tid('quick-join').waitFor({ state: 'visible' });
  await untilText(liv, 'result', /Game aborted\./, 'the game is not said to be aborted');
  await untilText(liv, 'result', /Max \(O\) left before the first move, so the game was called off/, 'the abort does not say Max left before the first move');
  const text = await liv.tid('result').innerText();
  if (/lost|lose/i.test(text)) fail(`the aborted game's result speaks of losing: ${JSON.stringify(text)}`);
  log(`abort: Liv read "${text.split('\n').filter(Boolean).slice(0, 2).join(' ')}"`);
}

async function noProblems() {
  if (problems.length) fail(problems.splice(0).join('\n'));
}

const CHECKS = [
  ['"Play a person" says when a bot comes, from the server; an own room says it waits for the friend', lobbySaysWhatHappens],
  ['a friend who opens the link after the fill time gets the seat; the host was offered a bot instead', friendKeepsTheSeat],
  ['"Play a bot instead" starts a game against the bot of the level chosen', playABotInstead],
  ['an opponent gone offline: countdown, claim buttons, spectator without buttons, offline chat, claimed victory', claimVictory],
  ['an opponent who closed the page: a claimed draw, told in words, on a phone', claimDraw],
  ['a game left before the first move is called off, and nobody lost it', leftBeforeTheFirstMove],
];

await runChecks({
  tag: 'friends',
  log,
  checks: CHECKS.map(([name, check]) => [name, async () => {
    try {
      await check();
      await noProblems();
    } catch (err) {
      for (const who of opened) await who.screenshot(`failure-friends-${who.name}`).catch(() => {});
      throw err;
    } finally {
      await closeAll();
    }
  }]),
  budgetMs: TOTAL_BUDGET_MS,
  setUp,
  async onFailure() {
    if (server?.output) console.error(`--- last server output ---\n${server.tail()}\n---`);
    problems.length = 0;
  },
  ...closers(() => ({ browser, server })),
});
