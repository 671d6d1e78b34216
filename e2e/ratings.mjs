// Browser test of what the page says about ratings and scores (docs/PROTOCOL.md §13):
// only games between two people are rated, so nobody climbs the ratings by beating a bot.
//
// Ann and Bea (two browser contexts) play a tic-tac-toe game that Ann wins: it is rated,
// and each score says it was earned against a person. Ann then beats or draws `bot:easy`
// (a perfect player, by minimax, never loses): the result panel says the game was not
// rated because the opponent was a bot, shows no rating change, and says the score was
// earned against Easy bot; the bot's seat shows no rating and nothing reads NaN or null.
// Ann's recent games name each score's opponent too. The score leaderboard is read per
// opponent (People by default, each bot level, or all of them together with each row
// naming its opponent), and the rating leaderboard marks provisional ratings ("1662?",
// explained in words) and counts Ann's one rated game only.
// Screenshots of the result panel and the leaderboard card at 1280×800 and 390×844 go to
// /tmp/shots/ (E2E_SHOTS overrides); axe-core must find nothing serious, light and dark.
// Run from the repository root: `node e2e/ratings.mjs` (or `bash e2e/run.sh`).

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fail, makeLog, Server, checkServedStatic, launchBrowser, watchPage, runChecks } from './harness.mjs';
import { axeReport } from './a11y.mjs';

const TOTAL_BUDGET_MS = 180_000;
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const SHOTS = process.env.E2E_SHOTS || '/tmp/shots';
// No bot takes the open seat of Ann's room while Bea comes to join it.
const CONFIG = 'fill_after_secs = 600\n';

const log = makeLog('ratings');
const problems = [];
let server = null;
let browser = null;
let ann = null;
let bea = null;
/** Ann's scores, by opponent, as the result panels showed them. */
const annScores = {};

/** A signed-in person's page. */
async function signIn(name, viewport) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  watchPage(page, problems, `${name}'s page`);
  await page.goto(`${server.base}/`);
  await page.locator('[data-testid="name-input"]').fill(name);
  await page.locator('[data-testid="connect"]').click();
  await page.locator('[data-testid="play-bot"]').waitFor({ state: 'visible' });
  const tid = (id) => page.locator(`[data-testid="${id}"]`);
  return { name, page, tid };
}

/** The text of an element, its white space folded. */
async function textOf(locator) {
  return (await locator.innerText()).replace(/\s+/g, ' ').trim();
}

/** Fails with what was found if any check of the page's own problems (console errors...) piled up. */
function noProblems() {
  if (problems.length) fail(problems.splice(0).join('\n'));
}

/** axe-core on `who`'s page as it is, in light and dark. */
async function audit(who, where) {
  const found = [];
  for (const scheme of ['light', 'dark']) {
    await who.page.emulateMedia({ colorScheme: scheme });
    const { violations, contrastChecked } = await axeReport(who.page);
    if (contrastChecked === 0) fail(`axe-core checked the contrast of nothing on ${where} (${scheme})`);
    found.push(...violations.map((v) => `${where} (${scheme}): ${v}`));
  }
  await who.page.emulateMedia({ colorScheme: 'light' });
  if (found.length) fail(`axe-core found:\n  ${found.join('\n  ')}`);
  log(`axe-core: nothing serious on ${where}, light and dark`);
}

/** Screenshots of `locator`'s element at 1280×800 and 390×844, then back to the page's own size. */
async function shoot(who, locator, name) {
  mkdirSync(SHOTS, { recursive: true });
  const own = who.page.viewportSize();
  for (const [size, viewport] of [['1280', DESKTOP], ['390', PHONE]]) {
    await who.page.setViewportSize(viewport);
    await locator.scrollIntoViewIfNeeded();
    const file = path.join(SHOTS, `${name}-${size}.png`);
    await who.page.screenshot({ path: file });
    log(`screenshot ${file}`);
  }
  await who.page.setViewportSize(own);
}

/** The best cell for X in tic-tac-toe (cells 0–8 holding 'X', 'O' or ''), by minimax. */
function bestCell(cells) {
  const lines = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];
  const winner = (b) => lines.map(([a, c, d]) => (b[a] && b[a] === b[c] && b[a] === b[d] ? b[a] : '')).find(Boolean) || '';
  const value = (b, turn) => {
    const w = winner(b);
    if (w) return w === 'X' ? 1 : -1;
    const free = b.flatMap((m, i) => (m ? [] : [i]));
    if (!free.length) return 0;
    const values = free.map((i) => value(b.map((m, j) => (j === i ? turn : m)), turn === 'X' ? 'O' : 'X'));
    return turn === 'X' ? Math.max(...values) : Math.min(...values);
  };
  const free = cells.flatMap((m, i) => (m ? [] : [i]));
  return free.reduce((best, i) => {
    const v = value(cells.map((m, j) => (j === i ? 'X' : m)), 'O');
    return v > best.v ? { i, v } : best;
  }, { i: free[0], v: -2 }).i;
}

/** Waits until it is `who`'s turn or the game is over; true when it is over. */
async function turnOrEnd(who) {
  await who.page.waitForFunction(() => {
    const result = document.querySelector('[data-testid="result"]');
    const board = document.querySelector('[data-testid="board"]');
    return (result && !result.hidden) || (board && board.dataset.mine === 'true');
  }, null, { timeout: 15_000 }).catch(() => fail(`${who.name}: neither our turn nor the end came`));
  return who.tid('result').isVisible();
}

/** A seat's score line on the result panel, e.g. "680 points against a person". */
async function scoreLine(who, seat) {
  const score = who.tid('result').locator(`.scores li:nth-child(${seat + 1}) .score`);
  return (await score.count()) ? textOf(score) : null;
}

async function setUp() {
  server = await Server.start(log, CONFIG);
  log(`server listening at ${server.base}`);
  await checkServedStatic(server.base, log);
  browser = await launchBrowser();
  ann = await signIn('Ann', DESKTOP);
  bea = await signIn('Bea', PHONE);
}

/** Ann beats Bea in five moves: rated for both, each score earned against a person. */
async function ratedBetweenPeople() {
  await ann.tid('game-tictactoe').check();
  await ann.tid('time-control').selectOption('none');
  if (!(await ann.page.locator('.own-room').evaluate((d) => d.open))) await ann.page.locator('.own-room summary').click();
  await ann.tid('person-side').selectOption('0');
  await ann.tid('open-room').click();
  await ann.page.waitForFunction(() => document.querySelector('[data-testid="status"]')?.textContent.includes('Waiting for an opponent'));
  const room = await ann.page.evaluate(() => JSON.parse(sessionStorage.getItem('parlor.room')).id);
  const join = bea.page.locator(`[data-testid="room-item"][data-room="${room}"] [data-testid="join-1"]`);
  await join.waitFor({ state: 'visible', timeout: 8000 });
  await join.click();
  for (const [who, cell] of [[ann, 0], [bea, 3], [ann, 1], [bea, 4], [ann, 2]]) {
    if (await turnOrEnd(who)) fail(`the game ended before ${who.name} played cell ${cell}`);
    await who.tid(`cell-${cell}`).click();
  }
  for (const who of [ann, bea]) {
    await who.tid('result').waitFor({ state: 'visible' });
    for (const seat of [0, 1]) {
      const change = await who.tid(`rating-change-${seat}`).textContent().catch(() => null);
      if (!/^1500 → \d+ \([+−]\d+\)$/.test(change ?? '')) fail(`${who.name} sees seat ${seat}'s rating change as ${JSON.stringify(change)}`);
    }
    if (await who.tid('unrated').count()) fail(`${who.name}'s page says the game between two people was not rated`);
    const won = await scoreLine(who, 0);
    const lost = await scoreLine(who, 1);
    if (!/^\d+ points against a person$/.test(won ?? '') || lost !== '0 points against a person') {
      fail(`${who.name}'s result panel shows the scores as ${JSON.stringify(won)} and ${JSON.stringify(lost)}, not earned against a person`);
    }
  }
  annScores.person = Number((await scoreLine(ann, 0)).split(' ')[0]);
  log(`two people: ${await textOf(ann.tid('result').locator('.scores'))}`);
  for (const who of [ann, bea]) {
    await who.tid('leave').click();
    await who.tid('play-bot').waitFor({ state: 'visible' });
  }
  noProblems();
}

/** Ann, now rated, plays Easy bot: not rated, said why, the score earned against Easy bot, no rating on the bot's seat. */
async function unratedAgainstBot() {
  await ann.tid('game-tictactoe').check();
  await ann.tid('time-control').selectOption('none');
  await ann.tid('bot-level').selectOption('easy');
  await ann.tid('bot-side').selectOption('0');
  await ann.tid('play-bot').click();
  await ann.page.waitForFunction(() => document.querySelector('[data-testid="board"]')?.dataset.mine === 'true', null, { timeout: 10_000 })
    .catch(() => fail('the game against Easy bot did not start with our turn'));
  // Ann's rated seat shows her rating; the bot's shows none.
  const ownRating = await ann.tid('rating-0').textContent().catch(() => null);
  if (!/^\d+$/.test(ownRating ?? '')) fail(`Ann's seat shows her rating as ${JSON.stringify(ownRating)}, though her first game was rated`);
  if (await ann.tid('seat-1').locator('.rating').count()) fail(`the bot's seat shows a rating: ${await textOf(ann.tid('seat-1'))}`);
  for (let moves = 0; moves < 5; moves += 1) {
    if (await turnOrEnd(ann)) break;
    const cells = await ann.page.locator('[data-testid="board"] [data-testid^="cell-"]').evaluateAll((els) => els.map((e) => e.dataset.mark ?? ''));
    await ann.tid(`cell-${bestCell(cells)}`).click();
    await ann.page.waitForFunction((n) => Number(document.querySelector('[data-testid="moves"]').dataset.plies || 0) > n, moves * 2, { timeout: 10_000 });
  }
  await ann.tid('result').waitFor({ state: 'visible', timeout: 15_000 });
  const result = await textOf(ann.tid('result'));
  log(`against Easy bot: ${result}`);
  if (await ann.tid('result').getAttribute('data-winner') === '1') fail(`a perfect player lost to Easy bot: ${result}`);
  const unrated = await ann.tid('unrated').textContent().catch(() => null);
  if (!/^Not rated: the opponent was a bot\b/.test(unrated ?? '') || !/only games between two people are rated/.test(unrated)) {
    fail(`after a game against Easy bot the result panel says ${JSON.stringify(unrated)} about its rating`);
  }
  if (await ann.tid('result').locator('.rating-change').count()) fail(`the result of a game against a bot shows a rating change: ${result}`);
  const mine = await scoreLine(ann, 0);
  if (!/^\d+ points against Easy bot$/.test(mine ?? '')) fail(`Ann's score after beating or drawing Easy bot reads ${JSON.stringify(mine)}`);
  annScores.easy = Number(mine.split(' ')[0]);
  if (await scoreLine(ann, 1) !== 'no score') fail(`the bot's score reads ${JSON.stringify(await scoreLine(ann, 1))}`);
  // Nothing of the game or the room list reads NaN, null or undefined, and the bot's seat still shows no rating.
  if (await ann.tid('seat-1').locator('.rating').count()) fail('after the game the bot\'s seat shows a rating');
  for (const where of ['#game', '#rooms']) {
    const text = await ann.page.locator(where).innerText();
    if (/\b(NaN|null|undefined)\b/.test(text)) fail(`${where} reads ${JSON.stringify(text.replace(/\s+/g, ' '))}`);
  }
  await shoot(ann, ann.tid('result'), 'ratings-bot-result');
  await audit(ann, 'the result of a game against Easy bot');
  await ann.tid('leave').click();
  await ann.tid('play-bot').waitFor({ state: 'visible' });
  noProblems();
}

/** Waits until the leaderboard shows `by`/`opponent` ('all' for every opponent) and returns its rows' text. */
async function boardRows(who, by, opponent) {
  await who.page.waitForFunction(([b, o]) => {
    const list = document.querySelector('[data-testid="leaderboard"]');
    return list.dataset.by === b && (b === 'rating' || list.dataset.opponent === o) && list.children.length > 0;
  }, [by, opponent], { timeout: 8000 })
    .catch(async () => fail(`the leaderboard by ${by} against ${opponent} never showed a row (note: ${JSON.stringify(await who.tid('leaderboard-note').textContent())})`));
  return who.page.locator('[data-testid="leaderboard"] li').evaluateAll((items) => items.map((li) => li.innerText.replace(/\s+/g, ' ').trim()));
}

/** The score leaderboard reads per opponent: People by default, each bot level, or all with each row's opponent named. */
async function scoresPerOpponent() {
  await ann.page.reload();
  await ann.tid('play-bot').waitFor({ state: 'visible' });
  // Ann's recent games say the same of each score.
  await ann.page.waitForFunction(() => document.querySelectorAll('[data-testid="recent-game"]').length === 2, null, { timeout: 8000 })
    .catch(() => fail('Ann\'s recent games do not list her two games'));
  const recent = (await ann.page.locator('[data-testid="recent-game"] .recent-meta').allTextContents()).map((t) => t.split(' · ').slice(0, 2).join(' · '));
  const wantRecent = [`won · ${annScores.easy} points against Easy bot`, `won · ${annScores.person} points against a person`];
  const drew = `draw · ${annScores.easy} points against Easy bot`;
  if (!(recent[0] === wantRecent[0] || recent[0] === drew) || recent[1] !== wantRecent[1]) {
    fail(`Ann's recent games read ${JSON.stringify(recent)}, not ${JSON.stringify(wantRecent)}`);
  }
  await ann.tid('leaderboard-game').selectOption('tictactoe');
  await ann.tid('leaderboard-by').selectOption('score');
  const picker = ann.tid('leaderboard-opponent');
  if (!(await picker.isVisible())) fail('the score leaderboard has no choice of opponent');
  const choices = await picker.locator('option').allTextContents();
  for (const want of ['People', 'Random bot', 'Easy bot', 'Medium bot', 'Hard bot']) {
    if (!choices.includes(want)) fail(`the leaderboard's opponents are ${JSON.stringify(choices)}, without ${want}`);
  }
  if (await picker.inputValue() !== 'person') fail(`the leaderboard opens against ${JSON.stringify(await picker.inputValue())}, not People`);
  const label = await picker.evaluate((s) => s.labels?.[0]?.innerText.replace(/\s+/g, ' ').trim() ?? '');
  if (!/against/i.test(label)) fail(`the opponent choice is labelled ${JSON.stringify(label)}`);

  if (!annScores.person || !annScores.easy) fail('the games before did not give Ann a score against a person and one against Easy bot');
  const people = await boardRows(ann, 'score', 'person');
  if (people.length !== 1 || !people[0].includes('Ann') || !people[0].includes(String(annScores.person))) {
    fail(`the board of scores against people reads ${JSON.stringify(people)}, expected Ann's ${annScores.person} alone`);
  }
  const note = await ann.tid('leaderboard-note').textContent();
  if (!/best score against people/.test(note)) fail(`the board against people is explained as ${JSON.stringify(note)}`);
  await shoot(ann, ann.page.locator('#scores'), 'ratings-leaderboard-people');

  await picker.selectOption('bot:easy');
  const easy = await boardRows(ann, 'score', 'bot:easy');
  if (easy.length !== 1 || !easy[0].includes(String(annScores.easy))) fail(`the board against Easy bot reads ${JSON.stringify(easy)}, expected Ann's ${annScores.easy}`);
  await picker.selectOption('bot:hard');
  await ann.page.waitForFunction(() => document.querySelector('[data-testid="leaderboard"]').dataset.opponent === 'bot:hard');
  const hardNote = await ann.tid('leaderboard-note').textContent();
  if (await ann.page.locator('[data-testid="leaderboard"] li').count() || !/No scores against Hard bot yet/.test(hardNote)) {
    fail(`the empty board against Hard bot says ${JSON.stringify(hardNote)}`);
  }

  await picker.selectOption({ label: 'All opponents' });
  const all = await boardRows(ann, 'score', 'all');
  const against = all.map((row) => /against (a person|Easy bot) \d+$/.exec(row)?.[1]);
  if (all.length !== 2 || !against.includes('a person') || !against.includes('Easy bot')) {
    fail(`the board of every opponent reads ${JSON.stringify(all)}, without each row's opponent`);
  }
  log(`leaderboard: people ${JSON.stringify(people)}, Easy bot ${JSON.stringify(easy)}, all ${JSON.stringify(all)}`);
  await shoot(ann, ann.page.locator('#scores'), 'ratings-leaderboard-all');
  await audit(ann, 'the leaderboard of every opponent');
  await picker.selectOption('person');
  noProblems();
}

/** The rating board marks provisional ratings in words and counts only the game between people. */
async function provisionalRatings() {
  await ann.tid('leaderboard-by').selectOption('rating');
  const rows = await boardRows(ann, 'rating', null);
  if (await ann.tid('leaderboard-opponent').isVisible()) fail('the rating leaderboard offers a choice of opponent, but only games between people are rated');
  const annRow = rows.find((row) => row.includes('Ann'));
  // Ann played one game against Bea and one against Easy bot: one rated game.
  if (!annRow || !/1 game\b/.test(annRow)) fail(`the rating leaderboard reads ${JSON.stringify(rows)}: Ann's game against Easy bot was counted, or she is missing`);
  const values = await ann.page.locator('[data-testid="leaderboard"] .score').evaluateAll((els) => els.map((e) => ({
    seen: [...e.childNodes].filter((n) => !(n.classList?.contains('visually-hidden'))).map((n) => n.textContent).join(''),
    heard: e.textContent,
  })));
  for (const { seen, heard } of values) {
    if (!/^\d+\?$/.test(seen) || !/provisional/.test(heard)) fail(`a new player's rating is shown as ${JSON.stringify(seen)} and read as ${JSON.stringify(heard)}, not marked provisional`);
  }
  const note = await ann.tid('leaderboard-note').textContent();
  if (!/Only games between two people are rated/.test(note) || !/marked \? is provisional/.test(note)) {
    fail(`the rating leaderboard is explained as ${JSON.stringify(note)}`);
  }
  log(`ratings: ${JSON.stringify(rows)}; ${note}`);
  await shoot(ann, ann.page.locator('#scores'), 'ratings-leaderboard-ratings');
  await audit(ann, 'the rating leaderboard');
  await ann.tid('leaderboard-by').selectOption('score');
  noProblems();
}

async function cleanup() {
  if (browser) await browser.close().catch(() => {});
  if (server) await server.stop().catch(() => {});
}

await runChecks({
  tag: 'ratings',
  log,
  checks: [
    ['a game between two people is rated, each score earned against a person', ratedBetweenPeople],
    ['a game against Easy bot is not rated and says so, its score earned against Easy bot, no rating on the bot', unratedAgainstBot],
    ['the score leaderboard reads per opponent, People by default', scoresPerOpponent],
    ['the rating leaderboard marks provisional ratings and counts only games between people', provisionalRatings],
  ],
  budgetMs: TOTAL_BUDGET_MS,
  setUp,
  async onFailure() {
    if (server?.output) console.error(`--- last server output ---\n${server.tail(15)}\n---`);
  },
  tearDown: cleanup,
  abort() {
    server?.kill();
    browser?.close().catch(() => {});
  },
});
