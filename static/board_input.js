// What the hands do on the live board: clicks, drops and Enter add a cell to the move
// being built (moves.js says what each one means), or while the opponent is to move a
// premove (premove.js); the arrow keys walk the board, Escape or a click elsewhere drops
// a half-built move, Escape or a right-click on the board the premoves.

import { app, ui, currentGame, myTurn, resetPick, picking } from './state.js';
import { update, flush } from './store.js';
import { sendMove, cancelPick, cancelPremove } from './actions.js';
import { gridOf } from './boards/index.js';
import { indexMoves, optionsAfter, clickOutcome } from './moves.js';
import { canPremove, ownCells, premoveClick, queuePremove, hasPremoves } from './premove.js';

const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

/** A click on a board cell. */
export function onBoardClick(event) {
  const cell = event.target.closest('[data-label]');
  if (!cell || cell.disabled) return;
  if (canPremove()) {
    update(() => premoveClick(cell.dataset.label, ui.board._cells ?? [], gridOf(app.room.state)));
    return;
  }
  pickCell(cell.dataset.label);
}

/** The moves that can be picked on the board now, or null when none can. */
function pickableMoves() {
  const room = app.room;
  if (!room || !room.state || !myTurn() || room.pendingMove || room.browsing !== null) return null;
  const s = room.state;
  const { entries, mappable } = indexMoves(currentGame(), s.legal_moves, gridOf(s));
  return mappable ? entries : null;
}

/**
 * Whether a piece may be dragged from this cell: it starts a move, or continues the one
 * being built; while the opponent is to move, any of this player's pieces (a premove).
 */
export function canDrag(label) {
  if (canPremove()) return ownCells(ui.board._cells ?? [], gridOf(app.room.state)).has(label);
  const entries = pickableMoves();
  if (!entries) return false;
  return app.room.pick.sel.at(-1) === label || optionsAfter(entries, []).next.has(label);
}

/**
 * A drag lifts the piece: selected as by a click, unless it ends the path being built
 * already; while the opponent is to move, it starts a premove from there.
 */
export function onDragStart(label) {
  const room = app.room;
  if (!room) return;
  if (canPremove()) {
    update(() => { room.premove = { game: room.state.game_id, from: label }; });
    return;
  }
  if (room.pick.sel.at(-1) !== label) {
    resetPick();
    pickCell(label);
  }
}

/**
 * A drop is a click on the square it lands on; off the board it puts the piece back.
 * While the opponent is to move it sets the premove to that square, whatever stands on
 * it now (the opponent may take there first, to be taken back), or drops it off the board.
 */
export function onDrop(from, to) {
  const room = app.room;
  if (!room) return;
  if (canPremove() && room.premove?.from === from) {
    update(() => {
      if (to === null) room.premove = null;
      else queuePremove(to);
    });
    return;
  }
  if (to === null) {
    cancelPick();
    return;
  }
  room.dropped = to;
  pickCell(to);
}

/** Adds a cell to the move being built (a click, a drop or Enter on it). */
function pickCell(label) {
  const entries = pickableMoves();
  if (!entries) return;
  const pick = app.room.pick;
  const outcome = clickOutcome(entries, pick.sel, label);
  if (outcome.kind === 'send') {
    sendMove(outcome.move);
    return;
  }
  if (outcome.kind === 'choose') {
    pick.sel = outcome.sel;
    pick.choices = outcome.choices.map((e) => e.move);
  } else if (outcome.kind === 'select') {
    pick.sel = outcome.sel;
    pick.choices = null;
  } else {
    resetPick();
  }
  update();
}

/** Escape drops a half-built move, or every premove. */
export function onEscape(event) {
  if (event.key === 'Escape' && hasPremoves()) {
    event.preventDefault();
    cancelPremove();
    return;
  }
  if (event.key !== 'Escape' || !picking()) return;
  event.preventDefault();
  const hadFocus = ui['move-helper'].contains(document.activeElement);
  cancelPick();
  if (!hadFocus) return;
  // The helper's buttons are gone: put the focus back on the board, on a cell that can
  // still be used once drawn (so drawn at once).
  flush();
  (ui.board._cells ?? []).find((c) => c && c.dataset.label === app.boardHadFocus && !c.disabled)?.focus();
}

/** The arrow keys on the board. */
export function onBoardKey(event) {
  const step = ARROWS[event.key];
  const from = event.target.closest?.('[data-label]');
  if (!step || !from) return;
  // Arrow keys walk the grid as drawn, skipping cells that cannot be used now.
  event.preventDefault();
  const cells = (ui.board._cells ?? []).filter((c) => c && !c.disabled);
  const at = new Map(cells.map((c) => [`${c.dataset.row},${c.dataset.col}`, c]));
  const rows = Number(ui.board.dataset.rows);
  const cols = Number(ui.board.dataset.cols);
  let row = Number(from.dataset.row);
  let col = Number(from.dataset.col);
  for (;;) {
    row += step[0];
    col += step[1];
    if (row < 0 || col < 0 || row >= rows || col >= cols) return;
    const next = at.get(`${row},${col}`);
    if (next) {
      next.focus();
      return;
    }
  }
}

/** A right-click on the board drops every premove, as on Lichess (and shows no menu then). */
export function onBoardContextMenu(event) {
  if (!hasPremoves()) return;
  event.preventDefault();
  cancelPremove();
}

/** A click anywhere but the board and its helper line drops a half-built move. */
export function onDocumentClick(event) {
  if (!picking()) return;
  if (ui.board.contains(event.target) || ui['move-helper'].contains(event.target)) return;
  cancelPick();
}
