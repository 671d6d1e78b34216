// The clocks beside the seats: counted down between states from the `remaining_ms`
// each state carries, and ticking only while one runs. The server alone decides when
// time runs out.

import { app, ui } from './state.js';
import { formatClock } from './time.js';
import { playSound } from './sound.js';

const CLOCK_TICK_MS = 100;
/** A clock is low under a fifth of the time it is given, and never above ten seconds. */
const LOW_TIME_MS = 10000;
const LOW_TIME_SHARE = 0.2;

/** The interval that ticks the clocks while one runs, or null. */
let ticker = null;

/** The time each side is given: a per-move clock's allowance, a Fischer clock's base. */
function allowanceOf(s) {
  const tc = s?.time_control;
  const ms = tc?.kind === 'per_move' ? tc.per_move_ms : tc?.kind === 'fischer' ? tc.base_ms : null;
  return Number.isFinite(ms) && ms > 0 ? ms : null;
}

/** Below how much time left a clock is shown as low: relative to the control. */
function lowTimeMs(s) {
  const allowance = allowanceOf(s);
  return allowance === null ? LOW_TIME_MS : Math.min(LOW_TIME_MS, allowance * LOW_TIME_SHARE);
}

/**
 * A seat's time left now: counted down from the state's reading if its clock runs. The
 * side waiting under a per-move clock shows the whole allowance its turn will start with.
 */
function clockLeft(s, seat, now = performance.now()) {
  const c = s?.clocks;
  if (!c || !Array.isArray(c.remaining_ms)) return null;
  const base = Number(c.remaining_ms[seat]);
  if (!Number.isFinite(base)) return null;
  if (s.status !== 'playing') return base;
  if (c.running === seat) return Math.max(0, base - (now - app.room.clockAt));
  if (s.time_control?.kind === 'per_move' && typeof c.running === 'number') return allowanceOf(s) ?? base;
  return base;
}

/** Writes both clocks' readings; called on every render and every tick while one runs. */
export function updateClocks() {
  const s = app.room?.state;
  const now = performance.now();
  for (const node of ui.seats.querySelectorAll('.clock')) {
    const seat = Number(node.dataset.seat);
    const left = clockLeft(s, seat, now);
    if (left === null) continue;
    const running = s.status === 'playing' && s.clocks?.running === seat;
    // Low time (see lowTimeMs) turns a clock red; a per-move clock only while it runs
    // (it starts each turn afresh) or once it has run out.
    const low = left < lowTimeMs(s) && (running || left === 0 || s.time_control?.kind !== 'per_move');
    // Without a connection the page cannot know what the server's clocks say.
    const uncertain = !app.ready;
    const text = formatClock(left);
    if (node.textContent !== text) node.textContent = text;
    const label = `${node.dataset.side}'s clock: ${text}${uncertain ? ', uncertain until the connection is back' : ''}`;
    if (node.getAttribute('aria-label') !== label) node.setAttribute('aria-label', label);
    node.title = uncertain ? 'Not connected: this clock may be out of date until the connection is back.' : '';
    node.dataset.uncertain = uncertain ? 'true' : 'false';
    node.classList.toggle('uncertain', uncertain);
    node.dataset.running = running ? 'true' : 'false';
    node.dataset.low = low ? 'true' : 'false';
    node.classList.toggle('running', running);
    node.classList.toggle('low', low);
    if (low && running && seat === mySeat()) warnLowTime(s);
  }
}

/** This player's seat in the current game (kept right after a rematch by messages.js), or null for a spectator. */
function mySeat() {
  return app.room?.role === 'player' && typeof app.room.seat === 'number' ? app.room.seat : null;
}

/** Sounds low time on your own clock, once a turn. */
function warnLowTime(s) {
  const turn = `${s.game_id}|${s.moves}`;
  if (app.room.lowWarned === turn) return;
  app.room.lowWarned = turn;
  playSound('low');
}

/** Runs the clock display while a clock runs (and only then). */
export function syncClockTicker() {
  const s = app.room?.state;
  const live = Boolean(app.room && !ui.game.hidden && s?.status === 'playing' && s.clocks &&
    typeof s.clocks.running === 'number');
  if (live && !ticker) ticker = setInterval(updateClocks, CLOCK_TICK_MS);
  if (!live && ticker) {
    clearInterval(ticker);
    ticker = null;
  }
}
