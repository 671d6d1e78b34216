// Sounds of the game: a move, a capture, a check, low time on your clock, a game's start
// and end, and someone taking the seat opposite you. Short tones made with the Web Audio API (no files to load), and a switch to
// mute them, kept in this browser. The switch shows the last sound played in
// data-last-sound, the last few in data-recent (and how many in data-played), for tests
// and the curious.

import { local, KEY_SOUND } from './state.js';

/** Each sound: its tones, as [frequency Hz, start s, length s], and their loudness. */
const SOUNDS = {
  move: { tones: [[520, 0, 0.05]], gain: 0.18 },
  capture: { tones: [[300, 0, 0.06], [220, 0.05, 0.08]], gain: 0.22 },
  check: { tones: [[880, 0, 0.07], [660, 0.08, 0.09]], gain: 0.2 },
  low: { tones: [[1000, 0, 0.04]], gain: 0.15 },
  start: { tones: [[440, 0, 0.08], [660, 0.09, 0.1]], gain: 0.18 },
  end: { tones: [[660, 0, 0.1], [440, 0.11, 0.16]], gain: 0.18 },
  arrive: { tones: [[523, 0, 0.08], [659, 0.09, 0.08], [784, 0.18, 0.12]], gain: 0.2 },
};

/** How many of the last sounds data-recent lists. */
const RECENT = 8;

let context = null;
let toggle = null;

function muted() {
  return local.get(KEY_SOUND) === 'off';
}

function showSwitch() {
  if (!toggle) return;
  const on = !muted();
  toggle.setAttribute('aria-pressed', on ? 'true' : 'false');
  toggle.textContent = on ? 'Sound on' : 'Sound off';
  toggle.title = on ? 'Sounds for moves, captures, checks, low time, start and end: click to mute' : 'Muted: click for sounds';
}

/** Wires the mute switch (a button) and shows its state. */
export function initSound(button) {
  toggle = button;
  showSwitch();
  button.addEventListener('click', () => {
    if (muted()) local.remove(KEY_SOUND);
    else local.set(KEY_SOUND, 'off');
    showSwitch();
  });
}

/** Plays `name` (a key of SOUNDS) unless muted. Browsers allow sound only after the page has been used. */
export function playSound(name) {
  const sound = SOUNDS[name];
  if (!sound || muted()) return;
  if (toggle) {
    toggle.dataset.lastSound = name;
    toggle.dataset.played = String(Number(toggle.dataset.played ?? 0) + 1);
    toggle.dataset.recent = [...(toggle.dataset.recent ?? '').split(' ').filter(Boolean), name].slice(-RECENT).join(' ');
  }
  try {
    context ??= new AudioContext();
    if (context.state === 'suspended') context.resume().catch(() => {});
    const now = context.currentTime;
    for (const [frequency, start, length] of sound.tones) {
      const oscillator = context.createOscillator();
      const gain = context.createGain();
      oscillator.frequency.value = frequency;
      gain.gain.setValueAtTime(sound.gain, now + start);
      gain.gain.exponentialRampToValueAtTime(0.001, now + start + length);
      oscillator.connect(gain).connect(context.destination);
      oscillator.start(now + start);
      oscillator.stop(now + start + length);
    }
  } catch {
    // No Web Audio here: the game goes on in silence.
  }
}

function occupied(state) {
  const cells = Array.isArray(state?.board?.cells) ? state.board.cells : [];
  return cells.filter((cell) => cell !== null && cell !== undefined && cell !== '').length;
}

/**
 * The sound a new state calls for after `previous` (null if none): the game starting,
 * ending, or a move (a capture when pieces left the board, a check when `emphasis` says so).
 */
export function soundFor(previous, next, emphasis) {
  const sameGame = Boolean(previous && previous.game_id === next.game_id);
  if (next.status === 'playing' && (!sameGame || previous.status === 'waiting')) return next.moves ? null : 'start';
  if (!sameGame || typeof next.moves !== 'number' || typeof previous.moves !== 'number') return null;
  if (next.status === 'finished' && previous.status === 'playing') return 'end';
  if (next.moves <= previous.moves || next.status !== 'playing') return null;
  if (emphasis?.kind === 'check') return 'check';
  return occupied(next) < occupied(previous) ? 'capture' : 'move';
}
