// The last move's pieces move as a player would move them, when the board shown
// advances by one move: the opponent's, a bot's, or one's own made by clicks. The piece
// moved glides from where it stood to where it landed; a piece that moved with it (the
// rook of a castling) glides too; the pieces it took fade out. Not on a snapshot, a
// reload, a rematch or a move looked back at; no glide for a piece the player dropped
// there by hand; nothing at all for those whose system asks for less motion.

import { pieceElement } from './boards/index.js';
import { app } from './state.js';
import { afterRender } from './store.js';

/** How long a glide or a fade takes. */
const GLIDE_MS = 180;

/**
 * Animates `s.last_move` (whose cells are `path`) on the freshly painted `cells` of
 * `boardEl`, a board of `game`, if the board shown is one move on from the one drawn
 * before.
 */
export function animateLastMove(boardEl, cells, s, path, game) {
  const before = boardEl._drawn;
  const room = app.room;
  const now = {
    game: s?.game_id ?? null,
    moves: Number(s?.moves ?? -1),
    browsing: room.browsing,
    pieces: Array.isArray(s?.board?.cells) ? [...s.board.cells] : [],
  };
  boardEl._drawn = now;
  const oneOn = before && before.game === now.game && now.moves === before.moves + 1
    && before.browsing === null && now.browsing === null;
  if (!oneOn || path.length < 2) return;
  const to = path[path.length - 1];
  let byHand = false;
  if (s.last_move?.seat === room.seat) {
    byHand = room.dropped === to;
    room.dropped = null;
  }
  if (window.matchMedia?.('(prefers-reduced-motion: reduce)').matches) return;
  const at = (label) => cells.find((cell) => cell?.dataset.label === label);
  const { alongside, taken } = sideEffects(cells, before.pieces, now.pieces, path);
  if (!byHand) glide(at(path[0]), at(to));
  for (const { from, onto } of alongside) glide(from, onto);
  for (const { cell, code } of taken) fade(cell, pieceElement(game, code));
  if (!byHand) boardEl.dataset.glided = String(s.last_move.move);
  boardEl.dataset.glidedAlongside = alongside.map(({ from, onto }) => `${from.dataset.label}-${onto.dataset.label}`).join(' ');
  boardEl.dataset.faded = taken.map(({ cell }) => cell.dataset.label).join(' ');
}

/**
 * What else the move changed, from the pieces before and after it: pieces that moved
 * alongside it (one left a cell off the move's path and the same piece arrived at
 * another), and pieces it took (off its path, or where it landed).
 */
function sideEffects(cells, before, after, path) {
  const onPath = new Set(path);
  const left = [];
  const arrived = [];
  for (const cell of cells) {
    if (!cell) continue;
    const index = Number(cell.dataset.index);
    const was = before[index] ?? null;
    const is = after[index] ?? null;
    if (was === is) continue;
    if (onPath.has(cell.dataset.label)) continue;
    if (was !== null && is === null) left.push({ cell, code: was });
    else if (is !== null) arrived.push({ cell, code: is });
  }
  const alongside = [];
  for (const { cell, code } of arrived) {
    const same = left.filter((l) => l.code === code);
    if (same.length !== 1) continue;
    alongside.push({ from: same[0].cell, onto: cell });
    left.splice(left.indexOf(same[0]), 1);
  }
  const taken = [...left];
  const landing = cells.find((cell) => cell?.dataset.label === path[path.length - 1]);
  const under = landing ? before[Number(landing.dataset.index)] ?? null : null;
  if (landing && under !== null) taken.push({ cell: landing, code: under });
  return { alongside, taken };
}

/** Glides the piece now on `end` in from the cell `start`, once the board is laid out. */
function glide(start, end) {
  const piece = end?._slot?.firstElementChild;
  if (!start || !piece || typeof piece.animate !== 'function') return;
  afterRender(() => {
    const from = start.getBoundingClientRect();
    const here = end.getBoundingClientRect();
    return () => {
      end.classList.add('gliding');
      piece.animate(
        [{ transform: `translate(${from.left - here.left}px, ${from.top - here.top}px)` }, { transform: 'none' }],
        { duration: GLIDE_MS, easing: 'ease-out' },
      ).finished.catch(() => {}).finally(() => end.classList.remove('gliding'));
    };
  });
}

/** Shows `piece`, a piece just taken, on `cell` for a moment, fading out under the rest. */
function fade(cell, piece) {
  if (!cell || !piece || typeof piece.animate !== 'function') return;
  const ghost = document.createElement('span');
  ghost.className = 'taken-ghost';
  ghost.setAttribute('aria-hidden', 'true');
  ghost.append(piece);
  cell.append(ghost);
  piece.animate([{ opacity: 1 }, { opacity: 0 }], { duration: GLIDE_MS, easing: 'ease-in' })
    .finished.catch(() => {}).finally(() => ghost.remove());
}
