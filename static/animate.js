// The last move's piece glides from where it stood to where it landed when the board
// shown advances by one move: the opponent's, a bot's, or one's own made by clicks. Not
// on a snapshot, a reload, a rematch or a move looked back at; not for a piece the
// player dropped there by hand; not at all for those whose system asks for less motion.

import { app } from './state.js';

/** How long the glide takes. */
const GLIDE_MS = 180;

/**
 * Glides the piece of `s.last_move` (whose cells are `path`) on the freshly painted
 * `cells` of `boardEl`, if the board shown is one move on from the one drawn before.
 */
export function glideLastMove(boardEl, cells, s, path) {
  const before = boardEl._drawn;
  const now = { game: s?.game_id ?? null, moves: Number(s?.moves ?? -1), browsing: app.browsing };
  boardEl._drawn = now;
  const oneOn = before && before.game === now.game && now.moves === before.moves + 1
    && before.browsing === null && now.browsing === null;
  if (!oneOn || path.length < 2) return;
  const to = path[path.length - 1];
  if (s.last_move?.seat === app.room?.seat) {
    const byHand = app.dropped === to;
    app.dropped = null;
    if (byHand) return;
  }
  if (window.matchMedia?.('(prefers-reduced-motion: reduce)').matches) return;
  const at = (label) => cells.find((cell) => cell?.dataset.label === label);
  const start = at(path[0]);
  const end = at(to);
  const piece = end?._slot?.firstElementChild;
  if (!start || !piece || typeof piece.animate !== 'function') return;
  const from = start.getBoundingClientRect();
  const here = end.getBoundingClientRect();
  end.classList.add('gliding');
  const glide = piece.animate(
    [{ transform: `translate(${from.left - here.left}px, ${from.top - here.top}px)` }, { transform: 'none' }],
    { duration: GLIDE_MS, easing: 'ease-out' },
  );
  glide.finished.catch(() => {}).finally(() => end.classList.remove('gliding'));
  boardEl.dataset.glided = String(s.last_move.move);
}
