// Browsing the moves of the game in the room, during play as after it: a click on a move
// in the list shows the board after that move without leaving the game, until "Back to
// the game". Boards come from what the page saw, else once from the stored game
// (GET /api/games/{id}, which has every position, PROTOCOL.md §14.4). The board shown
// is worked out by shownState (state.js).

import { app, boardAfter } from './state.js';
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
 * The arrow keys, Home and End on a move in the list: step to the board before or after
 * it (End and stepping past the last move return to the game), keeping the focus on the
 * move shown.
 */
export async function onMovesKey(event, list) {
  const step = STEPS[event.key];
  if (!step || !event.target.closest?.('[data-ply]')) return;
  event.preventDefault();
  const room = app.room;
  const total = room.moves.length;
  const target = Math.max(1, Math.min(total, step(room.browsing ?? total, total)));
  if (target >= total) stopBrowsing();
  else await browseTo(target);
  // Drawn at once: the render makes the list's buttons anew, and the focus goes to the new one.
  flush();
  list.querySelector(`[data-ply="${room.browsing ?? total}"]`)?.focus();
}
