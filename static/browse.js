// Browsing the moves of the game in the room, during play as after it: a click on a move
// in the list shows the board after that move without leaving the game, until "Back to
// the game". Boards come from what the page saw, else once from the stored game
// (GET /api/games/{id}, which has every position, PROTOCOL.md §14.4).

import { app } from './state.js';

function boardAfter(id, ply) {
  return app.seen.get(id)?.boards?.[ply] ?? null;
}

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
export async function browseTo(ply, render) {
  const id = app.state?.game_id;
  if (typeof id !== 'string') return;
  if (!boardAfter(id, ply)) await loadBoards(id);
  if (app.state?.game_id !== id || !boardAfter(id, ply)) return;
  app.browsing = ply >= app.state.moves ? null : ply;
  render();
}

/** Back to the live board. */
export function stopBrowsing(render) {
  app.browsing = null;
  render();
}

/** The state to draw: the live one, or while browsing, the board after the chosen move (nothing to play on it). */
export function shownState(s) {
  if (app.browsing === null) return s;
  const board = typeof s?.game_id === 'string' ? boardAfter(s.game_id, app.browsing) : null;
  if (!board || app.browsing >= s.moves) {
    app.browsing = null;
    return s;
  }
  return { ...s, board, legal_moves: [], last_move: null };
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
export async function onMovesKey(event, list, render) {
  const step = STEPS[event.key];
  if (!step || !event.target.closest?.('[data-ply]')) return;
  event.preventDefault();
  const total = app.moves.length;
  const target = Math.max(1, Math.min(total, step(app.browsing ?? total, total)));
  if (target >= total) stopBrowsing(render);
  else await browseTo(target, render);
  list.querySelector(`[data-ply="${app.browsing ?? total}"]`)?.focus();
}
