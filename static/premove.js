// Premoves in chess and checkers, as on Lichess: while the opponent thinks, a player may
// pick one of their own pieces and the cell it should go to. As soon as it is their
// turn, the move is played if exactly one legal move goes from that cell to that one (a
// pawn reaching the last rank becomes a queen), and dropped otherwise, with a word why.
// The page knows no rules: a premove is two cells, matched against `legal_moves` then.

import { app, currentGame, myTurn } from './state.js';
import { gridOf, ownsPiece, premovesAllowed } from './boards/index.js';
import { indexMoves } from './moves.js';

/** Whether the board takes a premove now: a player's game on, the other side to move. */
export function canPremove() {
  const room = app.room;
  const s = room?.state;
  return room?.role === 'player' && typeof room.seat === 'number'
    && s?.status === 'playing' && !myTurn() && room.browsing === null
    && premovesAllowed(currentGame()) && gridOf(s) !== null;
}

/** The labels of the cells of `board` that hold this player's pieces. */
export function ownCells(cells, board) {
  const seat = app.room?.seat;
  const pieces = Array.isArray(board?.cells) ? board.cells : [];
  return new Set(cells.filter((cell) => cell && ownsPiece(currentGame(), pieces[Number(cell.dataset.index)], seat))
    .map((cell) => cell.dataset.label));
}

/**
 * A click on the board while the opponent is to move: picks one of this player's
 * pieces, then the cell it should go to; a click with a premove set, or on the picked
 * piece again, drops it.
 */
export function premoveClick(label, cells, board) {
  const own = ownCells(cells, board);
  const room = app.room;
  const premove = room.premove;
  if (premove?.to) room.premove = null;
  else if (!premove) room.premove = own.has(label) ? { game: room.state.game_id, from: label, to: null } : null;
  else if (label === premove.from) room.premove = null;
  else if (own.has(label)) room.premove = { ...premove, from: label };
  else room.premove = { ...premove, to: label };
}

/**
 * For each new state: once it is this player's turn, the move the premove stands for,
 * or null. A premove that fits no legal move, or several that are not promotions, is
 * dropped, and `note` is told why; one of a game that ended or gave way to another is
 * dropped quietly.
 */
export function premovedMove(note) {
  const room = app.room;
  const premove = room.premove;
  if (!premove) return null;
  const s = room.state;
  if (s?.game_id !== premove.game || s.status !== 'playing') {
    room.premove = null;
    return null;
  }
  if (!premove.to || !myTurn()) return null;
  room.premove = null;
  const { entries } = indexMoves(currentGame(), s.legal_moves, gridOf(s));
  const fits = entries.filter((e) => e.path[0] === premove.from && e.path.at(-1) === premove.to);
  const chosen = fits.length === 1 ? fits[0] : fits.find((e) => e.suffix === 'q');
  if (chosen) return chosen.move;
  note(`Your premove ${premove.from} → ${premove.to} is not a legal move now, so it was dropped.`);
  return null;
}
