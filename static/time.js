// Parlor web client: time controls and clocks as text. No DOM and no timing here: the
// server keeps the clocks and ends games on time; the page only shows what it is told.

const MAX_MS = 7 * 24 * 3600 * 1000; // the server's limit: a week

/**
 * Reads a choice of the lobby's clock menu into `options.time_control`:
 * `none`, `per_move:<ms>`, `fischer:<base_ms>:<increment_ms>`, or `custom` with the
 * custom fields (seconds). Returns `{ control }`, or `{ error }` with a sentence to show.
 */
export function timeControlFromChoice(choice, custom = {}) {
  const value = String(choice ?? 'none');
  if (value === 'none') return { control: { kind: 'none' } };
  if (value === 'custom') {
    const base = Number(custom.baseSeconds);
    const increment = Number(custom.incrementSeconds || 0);
    if (!Number.isFinite(base) || base < 1 || base * 1000 > MAX_MS) {
      return { error: 'Enter a base time of at least 1 second (and at most a week).' };
    }
    if (!Number.isFinite(increment) || increment < 0 || increment * 1000 > MAX_MS) {
      return { error: 'Enter an increment of 0 seconds or more (and at most a week).' };
    }
    return { control: { kind: 'fischer', base_ms: Math.round(base * 1000), increment_ms: Math.round(increment * 1000) } };
  }
  const [kind, a, b] = value.split(':');
  if (kind === 'per_move' && Number(a) > 0) return { control: { kind: 'per_move', per_move_ms: Number(a) } };
  if (kind === 'fischer' && Number(a) > 0 && Number(b) >= 0) {
    return { control: { kind: 'fischer', base_ms: Number(a), increment_ms: Number(b) } };
  }
  return { error: `Unknown clock choice "${value}".` };
}

/** Whether a time control (from `state.time_control`) has a clock. */
export function hasClock(control) {
  return Boolean(control && typeof control === 'object' && (control.kind === 'per_move' || control.kind === 'fischer'));
}

function seconds(ms) {
  const s = ms / 1000;
  return Number.isInteger(s) ? String(s) : s.toFixed(1).replace(/\.0$/, '');
}

/** A length of time in words: "3 min", "20 s", "1 min 30 s". */
export function spanText(ms) {
  const n = Math.max(0, Number(ms) || 0);
  if (n < 60000) return `${seconds(n)} s`;
  const minutes = Math.floor(n / 60000);
  const rest = n - minutes * 60000;
  if (minutes >= 60 && rest === 0 && minutes % 60 === 0) return `${minutes / 60} h`;
  return rest ? `${minutes} min ${seconds(rest)} s` : `${minutes} min`;
}

/**
 * A time control, short: "3+2" (minutes + seconds, the usual way to write Fischer
 * clocks), "20 s + 0 s" when the base is not whole minutes, "10 s per move", or ''
 * without a clock.
 */
export function timeControlLabel(control) {
  if (!hasClock(control)) return '';
  if (control.kind === 'per_move') return `${spanText(control.per_move_ms)} per move`;
  const base = Number(control.base_ms) || 0;
  const inc = Number(control.increment_ms) || 0;
  if (base % 60000 === 0 && inc % 1000 === 0) return `${base / 60000}+${inc / 1000}`;
  return `${spanText(base)} + ${spanText(inc)}`;
}

/** A time control in words, for titles and screen readers. */
export function timeControlDescription(control) {
  if (!hasClock(control)) return 'No clock';
  if (control.kind === 'per_move') return `Each move within ${spanText(control.per_move_ms)}`;
  const inc = Number(control.increment_ms) || 0;
  return `Each side has ${spanText(control.base_ms)}${inc ? `, plus ${spanText(inc)} after each move` : ', no increment'}`;
}

function pad(n) {
  return String(n).padStart(2, '0');
}

/**
 * A clock reading: "4:59", "1:02:03", and with tenths under ten seconds, "0:09.7".
 * Rounded down, like a chess clock; never below zero.
 */
export function formatClock(ms) {
  const t = Math.max(0, Math.floor(Number(ms) || 0));
  if (t < 10000) {
    const tenths = Math.floor(t / 100);
    return `0:0${Math.floor(tenths / 10)}.${tenths % 10}`;
  }
  const total = Math.floor(t / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

/** How long a move took: "0.4 s", "12.0 s", "1 min 5 s". */
export function thinkText(ms) {
  const n = Math.max(0, Number(ms) || 0);
  if (n < 60000) return `${(n / 1000).toFixed(1)} s`;
  const total = Math.round(n / 1000);
  return `${Math.floor(total / 60)} min ${total % 60} s`;
}

/** A game's length for people: "under a second", "42 s", "3 min 5 s". */
export function formatDuration(ms) {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 1) return 'under a second';
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}
