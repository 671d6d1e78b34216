// The board's size: by default as big as the screen allows (style.css), or the size the
// player dragged its handle to, kept in this browser. Arrow keys on the handle resize
// it too; a double-click goes back to the default.

import { local, KEY_BOARD_SIZE } from './state.js';

const MIN_PX = 200;
const MAX_PX = 1400;
const KEY_STEP_PX = 24;

function clamp(px) {
  return Math.round(Math.min(MAX_PX, Math.max(MIN_PX, px)));
}

/** Sets (or with null, clears) the chosen size on `holder`, and keeps it. */
function choose(holder, px) {
  if (px === null) {
    holder.style.removeProperty('--board-size');
    local.remove(KEY_BOARD_SIZE);
    return;
  }
  holder.style.setProperty('--board-size', `${clamp(px)}px`);
  local.set(KEY_BOARD_SIZE, String(clamp(px)));
}

/**
 * Wires the handle of `board`, and applies the size kept from last time. The size is
 * set as --board-size on `holder` (the game's card), which the board, its seats and
 * the column they stand in are sized by (style.css).
 */
export function initBoardSize(holder, board, handle) {
  const kept = Number(local.get(KEY_BOARD_SIZE));
  if (Number.isFinite(kept) && kept > 0) holder.style.setProperty('--board-size', `${clamp(kept)}px`);
  const current = () => board.getBoundingClientRect().width;
  handle.addEventListener('pointerdown', (event) => {
    event.preventDefault();
    handle.setPointerCapture(event.pointerId);
    const start = { x: event.clientX, y: event.clientY, size: current() };
    const move = (e) => choose(holder, start.size + Math.max(e.clientX - start.x, e.clientY - start.y));
    const end = () => {
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', end);
      handle.removeEventListener('pointercancel', end);
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', end);
    handle.addEventListener('pointercancel', end);
  });
  handle.addEventListener('keydown', (event) => {
    const step = { ArrowUp: KEY_STEP_PX, ArrowRight: KEY_STEP_PX, ArrowDown: -KEY_STEP_PX, ArrowLeft: -KEY_STEP_PX }[event.key];
    if (!step) return;
    event.preventDefault();
    choose(holder, current() + step);
  });
  handle.addEventListener('dblclick', () => choose(holder, null));
}
