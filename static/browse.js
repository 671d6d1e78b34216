// Browsing the moves of the game in the room, during play as after it: a click on a move
// in the list shows the board after that move without leaving the game, until "Back to
// the game". Boards come from what the page saw, else once from the stored game
// (GET /api/games/{id}, which has every position, PROTOCOL.md §14.4). The board shown
// is worked out by shownState (state.js). ←, →, Home and End step through the moves
// from anywhere on the page but a text field or the board.

import { app, ui, boardAfter } from './state.js';
import { update, flush } from './store.js';

/** Fills the boards the page did not see (before a reload, say) from the stored game. */
async function loadBoards(id) {
  const entry = app.seen.get(id);
  if (!entry) return;
  try {
    const res = await fetch(`/api/games/${encodeURIComponent(id)}`, { headers: { accept: 'application/json' } });
    const body = res.ok ? await res.json() : null;
    if (!Array.isArray(body?.positions)) return;
    body.positions.forEach((position, ply) => {
      if (position?.board && !entry.boards[ply]) entry.boards[ply] = position.board;
    });
  } catch {
    // Nothing to show for that move; the live board stays.
  }
}

/** Shows the board after `ply` moves of the current game; the last move is the live board. */
export async function browseTo(ply) {
  const id = app.room?.state?.game_id;
  if (typeof id !== 'string') return;
  if (!boardAfter(id, ply)) await loadBoards(id);
  const room = app.room;
  if (room?.state?.game_id !== id || !boardAfter(id, ply)) return;
  update(() => { room.browsing = ply >= room.state.moves ? null : ply; });
}

/** Back to the live board. */
export function stopBrowsing() {
  update(() => {
    if (app.room) app.room.browsing = null;
  });
}

/** Keys that step through the list of moves, to the ply they lead to from `current` of `total`. */
const STEPS = {
  ArrowLeft: (current) => current - 1,
  ArrowUp: (current) => current - 1,
  ArrowRight: (current) => current + 1,
  ArrowDown: (current) => current + 1,
  Home: () => 1,
  End: (_, total) => total,
};

/**
 * Steps from the board shown by `key` (a key of STEPS): End and stepping past the last
 * move return to the game. Returns the ply then shown, or null if there are no moves.
 */
async function stepBy(key) {
  const room = app.room;
  const total = room?.moves.length ?? 0;
  if (!total) return null;
  const target = Math.max(1, Math.min(total, STEPS[key](room.browsing ?? total, total)));
  if (target >= total) stopBrowsing();
  else await browseTo(target);
  // Drawn at once: the caller may move the focus onto the move now shown.
  flush();
  return room.browsing ?? total;
}

/**
 * The arrow keys, Home and End on a move in the list: step to the board before or after
 * it, keeping the focus on the move shown.
 */
export async function onMovesKey(event, list) {
  if (!STEPS[event.key] || !event.target.closest?.('[data-ply]')) return;
  event.preventDefault();
  const shown = await stepBy(event.key);
  if (shown !== null) list.querySelector(`[data-ply="${shown}"]`)?.focus();
}

/** Where keys are the control's own: typing, the board's cells, the board's resize handle, a radio group. */
const OWN_KEYS = 'input, select, textarea, [contenteditable=""], [contenteditable="true"], [data-label], .board-resize, dialog, #replay';

/**
 * ←, →, Home and End from anywhere on the page in a room (as on Lichess), unless the
 * focus is where those keys do something else (typing, walking the board): step through
 * the moves. A focus on a move of the list follows the move shown.
 */
export async function onPageKey(event, list) {
  const horizontal = { ArrowLeft: true, ArrowRight: true, Home: true, End: true }[event.key];
  if (!horizontal || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  const room = app.room;
  if (!room?.state || ui.game.hidden || !room.moves.length) return;
  const target = event.target instanceof Element ? event.target : null;
  if (target?.closest(OWN_KEYS)) return;
  // An open replay takes the keys unless the focus is in the room's card.
  if (!ui.replay.hidden && !target?.closest('#game')) return;
  event.preventDefault();
  const shown = await stepBy(event.key);
  if (shown !== null && list.contains(document.activeElement)) list.querySelector(`[data-ply="${shown}"]`)?.focus();
}
