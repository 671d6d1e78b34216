// Browser test of static/parlor-client.js on its own: a page that is not the bundled
// one, and uses nothing but ParlorClient, says hello, is refused a room that does not
// exist (a ParlorError with the server's code), creates a tic-tac-toe room against
// `bot:random` and plays moves from each state's `legal_moves` until `game_over`. At its
// second turn it waits while the test cuts its connection: the client reconnects by
// itself, says hello with the token of its welcome, joins its seat again with `since` =
// the last seq it saw, and gets only the frames it missed (no snapshot; no move is played
// while it is away, as a move nobody in the room took in its form could not be replayed,
// PROTOCOL.md §8.1). After the game the browser goes offline and back: the client says
// so, and is back at once. Last, in a room that waits for a person, fillWithBot resolves
// with the state of the game its bot starts, and claims against a bot are refused.
// Run from the repository root: `node e2e/client.mjs` (or `bash e2e/run.sh`).

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { ROOT, SHOT_DIR, fail, makeLog, Server, launchBrowser, watchPage, runChecks, closers } from './harness.mjs';

const TOTAL_BUDGET_MS = 90_000;
const log = makeLog('client');

let server = null;
let browser = null;
let page = null;
const problems = [];
/** Every frame the page sent, parsed, in order. */
const sentFrames = [];
/** The page's sockets as routed: [page side, server side], to cut them. */
const sockets = [];

/**
 * The page of its own, written into a document of the server's origin (a module script
 * from another origin needs CORS, and a socket from another origin must be allowed,
 * PROTOCOL.md §2.1), whose inline script the server's Content-Security-Policy would
 * refuse (the context bypasses it: a real page comes with a policy of its own). It
 * reports what it sees in `window.report`.
 */
function ownPage(base) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Tic-tac-toe with parlor-client.js</title></head>
<body><pre id="log"></pre>
<script type="module">
import { ParlorClient } from '${base}/parlor-client.js';

const report = { events: [], welcomes: [], timeline: [], sent: [], refusal: null, room: null, holding: false, result: null, problems: [] };
window.report = report;
const say = (line) => { document.getElementById('log').textContent += line + '\\n'; };
const client = new ParlorClient({ name: 'A page of its own' });
window.client = client;
for (const type of ['connecting', 'open', 'close', 'reconnecting', 'offline']) {
  client.on(type, (data) => {
    report.events.push(type);
    if (type === 'close') report.timeline.push({ kind: 'close' });
    say(type + ' ' + JSON.stringify(data));
  });
}
client.on('welcome', (w) => report.welcomes.push({ player_id: w.player_id, token: w.token }));
client.on('error', (e) => report.problems.push('error event: ' + e.code));
client.on('joined', (j) => report.timeline.push({ kind: 'joined', room: j.room, seat: j.seat }));
let moving = false;
let last = null;
// At its second turn the page waits for release(), called by the test.
let hold = true;
window.release = () => {
  hold = false;
  play(last);
};
client.on('state', (s) => {
  if (s.room !== report.room) return;
  const mine = s.seats.find((x) => x.player_id === client.me.player_id);
  report.timeline.push({ kind: 'state', seq: s.seq, moves: s.moves, status: s.status, snapshot: Array.isArray(s.history), connected: mine?.connected });
  last = s;
  play(s);
});
function play(s) {
  const mine = s.seats.find((x) => x.player_id === client.me.player_id);
  if (s.status !== 'playing' || s.to_move !== mine?.seat || moving) return;
  if (hold && report.sent.length >= 1) {
    report.holding = true;
    return;
  }
  const move = s.legal_moves[Math.floor(Math.random() * s.legal_moves.length)];
  moving = true;
  report.sent.push(move);
  say('move ' + move);
  client.move(s.room, move).then(() => { moving = false; }, (err) => {
    moving = false;
    // A move the cut connection lost is played again from the state that follows the rejoin.
    if (err.code !== 'client_lost') report.problems.push('move refused: ' + err.code);
  });
}
client.on('game_over', (g) => {
  if (g.room !== report.room) return;
  report.result = { winner: g.winner, reason: g.reason, seq: g.seq };
  say('game over: ' + g.reason);
});

await client.connect();
report.refusal = await client.watch('0000000000').then(() => null, (err) => ({ name: err.name, code: err.code }));
const created = await client.createRoom('tictactoe', ['me', 'bot:random']);
report.room = created.room;
say('room ' + created.room);
</script></body></html>`;
}

async function setUp() {
  server = await Server.start(log);
  log(`server listening at ${server.base}`);
  browser = await launchBrowser();
  page = await browser.newPage({ bypassCSP: true });
  watchPage(page, problems, 'the page of its own');
  await page.routeWebSocket(/\/ws$/, (ws) => {
    const toServer = ws.connectToServer();
    ws.onMessage((message) => {
      sentFrames.push(JSON.parse(message));
      toServer.send(message);
    });
    sockets.push([ws, toServer]);
  });
  // The server has no favicon.ico: the browser's request for it would log a 404.
  await page.route('**/favicon.ico', (route) => route.fulfill({ status: 204 }));
  await page.goto(`${server.base}/healthz`);
  await page.setContent(ownPage(server.base));
}

const report = () => page.evaluate(() => window.report);

/** Waits up to `timeout` ms for the page's report to satisfy `predicate` (a function of it, or its source, run in the page). */
async function until(predicate, what, timeout = 15_000) {
  await page.waitForFunction(`(${predicate})(window.report ?? null)`, null, { timeout })
    .catch(async () => fail(`${what}; the page reports ${JSON.stringify(await report())}`));
}

async function playsThroughACut() {
  await until((r) => r?.holding, 'the page did not come to its second turn');
  const first = await report();
  if (first.welcomes.length !== 1 || !first.welcomes[0].token) fail(`after connect() the page has ${JSON.stringify(first.welcomes)} as welcomes`);
  if (first.refusal?.name !== 'ParlorError' || first.refusal.code !== 'unknown_room') fail(`watching a room that does not exist gave ${JSON.stringify(first.refusal)}`);
  log(`room ${first.room}: first move ${first.sent[0]}; cutting the connection at the second turn`);
  for (const [pageSide, serverSide] of sockets.splice(0)) {
    await pageSide.close();
    await serverSide.close();
  }
  await until((r) => r.welcomes.length === 2, 'the client did not reconnect and say hello again', 20_000);
  // Back in the room once a state shows the seat connected again (the rejoin's announcement).
  await until((r) => r.timeline.slice(r.timeline.findIndex((e) => e.kind === 'close')).some((e) => e.connected === true),
    'the client did not rejoin its seat');
  await page.evaluate(() => window.release());
  await until((r) => r.result !== null, 'the game did not reach game_over after the reconnect', 30_000);
  const r = await report();
  if (problems.length) fail(problems.join('\n'));
  if (r.problems.length) fail(`the page reports ${r.problems.join('; ')}`);
  const cut = r.events.indexOf('close');
  if (cut < 0 || r.events[cut + 1] !== 'reconnecting' || r.events.slice(cut).filter((e) => e === 'open').length !== 1) {
    fail(`around the cut the client emitted ${r.events.join(', ')}`);
  }
  if (r.welcomes[1].player_id !== r.welcomes[0].player_id) fail('after the reconnect the client came back as another player');
  const hellos = sentFrames.filter((f) => f.type === 'hello');
  if (hellos.length !== 2 || hellos[0].token || hellos[1].token !== r.welcomes[0].token) {
    fail(`the hellos sent were ${JSON.stringify(hellos.map((h) => ({ name: h.name, token: h.token ? 'a token' : null })))}; the second must carry the first welcome's token`);
  }
  const closedAt = r.timeline.findIndex((e) => e.kind === 'close');
  const seenBefore = Math.max(...r.timeline.slice(0, closedAt).filter((e) => e.kind === 'state').map((e) => e.seq));
  const rejoin = sentFrames.find((f) => f.type === 'join');
  if (!rejoin || rejoin.room !== r.room || rejoin.seat !== 0 || rejoin.since !== seenBefore) {
    fail(`after the reconnect the client sent ${JSON.stringify(rejoin)}; expected a join of seat 0 of ${r.room} with since ${seenBefore}`);
  }
  const after = r.timeline.slice(closedAt).filter((e) => e.kind === 'state');
  if (after.some((e) => e.snapshot)) fail('after the rejoin with since the room sent a snapshot instead of the missed frames');
  if (!after.length || after[0].seq !== seenBefore + 1 || after.some((e, i) => i > 0 && e.seq !== after[i - 1].seq + 1)) {
    fail(`after the rejoin with since ${seenBefore} the states came with seqs ${after.map((e) => e.seq).join(', ')}`);
  }
  const last = r.timeline.filter((e) => e.kind === 'state').at(-1);
  if (last.status !== 'finished' || r.result.seq !== last.seq) fail(`the game ended with ${JSON.stringify(r.result)} after the state ${JSON.stringify(last)}`);
  if (!['three_in_a_row', 'board_full'].includes(r.result.reason)) fail(`the game ended by ${r.result.reason}`);
  log(`moves ${r.sent.join(' ')}; rejoined with since ${seenBefore} and got seqs ${after.map((e) => e.seq).join(', ')} without a snapshot; ${r.result.reason}, winner ${r.result.winner}`);
}

async function offlineAndBack() {
  const before = (await report()).welcomes.length;
  const joinsBefore = sentFrames.filter((f) => f.type === 'join').length;
  await page.context().setOffline(true);
  await until((r) => r.events.at(-1) === 'offline', 'the client did not say the browser went offline');
  await page.context().setOffline(false);
  const back = Date.now();
  await until(`(r) => r.welcomes.length === ${before + 1}`, 'the client did not come back once the network returned');
  const r = await report();
  const [join] = sentFrames.filter((f) => f.type === 'join').slice(joinsBefore);
  if (join?.room !== r.room || join.since !== r.result.seq) fail(`back online, the client sent ${JSON.stringify(join)}; expected a join of ${r.room} with since ${r.result.seq}`);
  if (problems.length) fail(problems.join('\n'));
  if (r.problems.length) fail(`the page reports ${r.problems.join('; ')}`);
  log(`offline noticed; back ${Date.now() - back} ms after the network, and joined its finished room again with since ${join.since}`);
}

/**
 * fillWithBot resolves with the state of the game its bot starts; claimVictory and
 * claimDraw against a bot are refused with the server's code (opponent_present).
 */
async function botInsteadAndClaims() {
  const got = await page.evaluate(async () => {
    const c = window.client;
    const { room } = await c.createRoom('tictactoe', ['me', 'open'], { bot_fill: false });
    const s = await c.fillWithBot(room, 'random');
    const victory = await c.claimVictory(room).then(() => 'resolved', (err) => err.code);
    const draw = await c.claimDraw(room).then(() => 'resolved', (err) => err.code);
    await c.leave(room);
    return { room, type: s.type, status: s.status, seat: s.seats?.[1]?.kind, victory, draw };
  });
  const sent = sentFrames.find((f) => f.type === 'fill_with_bot');
  if (sent?.room !== got.room || sent.level !== 'random') fail(`fillWithBot sent ${JSON.stringify(sent)}`);
  if (got.type !== 'state' || got.status !== 'playing' || got.seat !== 'bot:random') fail(`fillWithBot resolved with ${JSON.stringify(got)}`);
  if (got.victory !== 'opponent_present' || got.draw !== 'opponent_present') fail(`claims against a bot gave ${got.victory} and ${got.draw}, not opponent_present`);
  if (problems.length) fail(problems.join('\n'));
  log(`fillWithBot: ${got.status} against ${got.seat}; claims refused: ${got.victory}`);
}

await runChecks({
  tag: 'client',
  log,
  checks: [
    ['a page of its own plays tic-tac-toe with parlor-client.js through a cut connection, rejoining with since', playsThroughACut],
    ['the browser going offline and back: the client says so and is back at once', offlineAndBack],
    ['fillWithBot starts the game with a bot; claims against it are refused', botInsteadAndClaims],
  ],
  budgetMs: TOTAL_BUDGET_MS,
  setUp,
  async onFailure(name) {
    if (problems.length) console.error(problems.join('\n'));
    if (page) {
      const shot = path.join(SHOT_DIR, `failure-client-${name.split(' ')[0]}.png`);
      mkdirSync(SHOT_DIR, { recursive: true });
      await page.screenshot({ path: shot, timeout: 5000 }).then(() => console.error(`screenshot: ${path.relative(ROOT, shot)}`), () => {});
    }
    if (server?.output) console.error(`--- last server output ---\n${server.tail()}\n---`);
  },
  ...closers(() => ({ browser, server })),
});
