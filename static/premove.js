// Premoves in chess and checkers, as on Lichess: while the opponent thinks, a player may
// queue moves: each a piece and the cell it should go to (`room.premoves`, picked one
// cell at a time through `room.premove`). As each of their turns comes, the first of the
// queue is played if exactly one legal move goes from that cell to that one (a pawn
// reaching the last rank becomes a queen); if it fits no legal move, it and the rest of
// the queue are dropped, with a word why. The page knows no rules: a premove is two
// cells, matched against `legal_moves` then.

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

/**
 * The labels of the cells that hold this player's pieces once the queued premoves are
 * made: those of `board` that hold them now, less the cells queued moves leave, plus
 * those they go to (so that a queued move can be followed by one of the same piece).
 */
export function ownCells(cells, board) {
  const seat = app.room?.seat;
  const pieces = Array.isArray(board?.cells) ? board.cells : [];
  const own = new Set(cells.filter((cell) => cell && ownsPiece(currentGame(), pieces[Number(cell.dataset.index)], seat))
    .map((cell) => cell.dataset.label));
  for (const { from, to } of app.room?.premoves ?? []) {
    own.delete(from);
    own.add(to);
  }
  return own;
}

/** Queues the premove being picked, to `to`. */
export function queuePremove(to) {
  const room = app.room;
  room.premoves = [...room.premoves, { game: room.state.game_id, from: room.premove.from, to }];
  room.premove = null;
}

/** Drops every premove: those queued and the one being picked. */
export function clearPremoves() {
  app.room.premove = null;
  app.room.premoves = [];
}

/** Whether any premove is queued or being picked. */
export function hasPremoves() {
  const room = app.room;
  return Boolean(room && (room.premove || room.premoves.length));
}

/**
 * A click on the board while the opponent is to move: picks one of this player's
 * pieces, then the cell it should go to, which queues that premove; a click on the
 * picked piece again drops the pick, and a click on a cell that starts no premove drops
 * them all (as on Lichess).
 */
export function premoveClick(label, cells, board) {
  const own = ownCells(cells, board);
  const room = app.room;
  const premove = room.premove;
  if (!premove) {
    if (own.has(label)) room.premove = { game: room.state.game_id, from: label };
    else clearPremoves();
  } else if (label === premove.from) room.premove = null;
  else if (own.has(label)) room.premove = { ...premove, from: label };
  else queuePremove(label);
}

/**
 * For each new state: once it is this player's turn, the move the first queued premove
 * stands for, taken off the queue, or null. A premove that fits no legal move, or
 * several that are not promotions, is dropped with the rest of the queue, and `note` is
 * told why; premoves of a game that ended or gave way to another are dropped quietly.
 */
export function premovedMove(note) {
  const room = app.room;
  if (!hasPremoves()) return null;
  const s = room.state;
  const game = room.premoves[0]?.game ?? room.premove?.game;
  if (s?.game_id !== game || s.status !== 'playing') {
    clearPremoves();
    return null;
  }
  if (!myTurn()) return null;
  // A piece picked but not yet sent anywhere is no move: the turn has come without it.
  room.premove = null;
  const [first, ...rest] = room.premoves;
  if (!first) return null;
  const { entries } = indexMoves(currentGame(), s.legal_moves, gridOf(s));
  const fits = entries.filter((e) => e.path[0] === first.from && e.path.at(-1) === first.to);
  const chosen = fits.length === 1 ? fits[0] : fits.find((e) => e.suffix === 'q');
  if (chosen) {
    room.premoves = rest;
    return chosen.move;
  }
  room.premoves = [];
  const also = rest.length === 0 ? '' : rest.length === 1 ? ' with the one after it' : ` with the ${rest.length} after it`;
  note(`Your premove ${first.from} → ${first.to} is not a legal move now, so it was dropped${also}.`);
  return null;
}
