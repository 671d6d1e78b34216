// The live board as shown: drawn from the state (boards/ draws each game), with the
// move being built highlighted on it, and the helper line under it (what is selected,
// where it can go, Stop here, the promotion chooser, Cancel, or the moves as buttons
// when they cannot be drawn on the board). Clicks, keys and drags are read by
// board_input.js; the helper line's buttons call the actions it is given.

import { app, ui, currentGame, myTurn, resetPick, isFlipped } from './state.js';
import {
  gameTitle, gridOf, buildGrid, paintGrid, movePath, promotionLabel, promotionPieceElement, emphasisOf,
} from './boards/index.js';
import { indexMoves, optionsAfter } from './moves.js';
import { el, button } from './dom.js';
import { animateLastMove } from './animate.js';
import { canPremove, ownCells } from './premove.js';

/** Which position a move being built belongs to: it is dropped when this changes. */
function pickKey(s) {
  return JSON.stringify([app.room.id, s?.game_id ?? null, s?.to_move ?? null, s?.legal_moves ?? []]);
}

/**
 * Draws the live board of state `s`, and the helper line under it. `actions` =
 * { sendMove(move), cancelPick(), cancelPremove() }, for the helper line's buttons.
 */
export function renderBoard(s, actions) {
  const boardEl = ui.board;
  const room = app.room;
  const game = currentGame();
  const canPlay = myTurn() && !room.pendingMove && room.browsing === null;
  const legal = Array.isArray(s?.legal_moves) ? s.legal_moves.map(String) : [];
  const key = pickKey(s);
  if (room.pick.key !== key || !canPlay) resetPick(key);
  // For tests and tools: what the page is showing, straight from the state.
  boardEl.dataset.game = game;
  boardEl.dataset.seq = String(s?.seq ?? '');
  boardEl.dataset.legal = JSON.stringify(legal);
  boardEl.dataset.mine = canPlay ? 'true' : 'false';
  boardEl.setAttribute('aria-busy', room.pendingMove ? 'true' : 'false');
  boardEl.setAttribute('aria-label', `${gameTitle(game)} board`);

  const board = gridOf(s);
  if (!board) {
    // Nothing to draw yet, or a layout this page does not know: show the position text.
    boardEl.hidden = !s;
    delete boardEl.dataset.shape;
    boardEl._cells = null;
    boardEl.className = 'board game-other fallback';
    const text = el('pre', 'position', s ? String(s.position ?? '') : '');
    boardEl.replaceChildren(text);
    renderHelper(game, indexMoves(game, legal, null).entries, false, canPlay, { premove: null, queued: [] }, actions);
    return;
  }
  boardEl.hidden = false;
  boardEl.classList.remove('fallback');
  boardEl.classList.toggle('active', canPlay);
  const { entries, mappable } = indexMoves(game, legal, board);
  const flipped = isFlipped(game, s);
  const cells = buildGrid(boardEl, game, board, flipped);
  boardEl.classList.toggle('flipped', flipped);
  const sel = room.pick.sel;
  const lastPath = s.last_move ? movePath(game, String(s.last_move.move)).path : [];
  const interactive = canPlay && mappable;
  // While the opponent is to move: this player's pieces can be picked for a premove.
  const premoving = canPremove();
  const premove = premoving ? room.premove : null;
  const queued = premoving ? room.premoves : [];
  // For tests and tools: the queue as "from-to" pairs, then the piece being picked.
  boardEl.dataset.premove = [...queued.map((p) => `${p.from}-${p.to}`), ...(premove ? [premove.from] : [])].join(' ');
  const focused = cells.find((cell) => cell && cell === document.activeElement) ?? null;
  paintGrid(cells, {
    game,
    board,
    last: new Set(lastPath),
    selected: premove ? [premove.from] : sel,
    targets: interactive && sel.length && !room.pick.choices ? optionsAfter(entries, sel).next : new Set(),
    starts: premoving ? ownCells(cells, board) : interactive ? optionsAfter(entries, []).next : new Set(),
    interactive: interactive || premoving,
    selecting: premoving ? premove !== null : sel.length > 0,
    premove: new Set(queued.flatMap((p) => [p.from, p.to])),
    emphasis: emphasisOf(game, s),
  });
  animateLastMove(boardEl, cells, s, lastPath, game);
  renderHelper(game, entries, mappable, canPlay, { premove, queued }, actions);
  keepFocusOnBoard(focused, cells);
  restoreBoardFocus(canPlay);
}

/**
 * A cell that had the focus and cannot be used any more (a piece picked for a premove
 * that has no move once the turn comes) would drop the focus to the top of the page:
 * it goes to a cell that can be used, else to the board.
 */
function keepFocusOnBoard(focused, cells) {
  if (!focused || !focused.disabled) return;
  const usable = cells.find((cell) => cell && !cell.disabled && cell.tabIndex !== -1);
  (usable ?? ui.board).focus({ preventScroll: true });
}

/** A readable list of labels: "e3, e4" or "15, 24 and 2 more". */
function listLabels(labels) {
  const all = [...labels];
  if (all.length <= 6) return all.join(', ');
  return `${all.slice(0, 5).join(', ')} and ${all.length - 5} more`;
}

/**
 * The line under the board while a move is being built: what is selected, where it can
 * go, "Stop here" when a chain of jumps may end at this point, the promotion chooser,
 * and Cancel. Also lists the moves as buttons when they cannot be drawn on the board.
 */
function renderHelper(game, entries, mappable, canPlay, { premove, queued }, { sendMove, cancelPick, cancelPremove }) {
  const box = ui['move-helper'];
  const pick = app.room.pick;
  // Rebuilt only when what it shows changes, so its buttons keep the focus.
  const key = JSON.stringify([canPlay, mappable, pick, entries.map((e) => e.move), premove, queued]);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const parts = [];
  const sel = pick.sel;
  if (premove || queued.length) {
    const text = [];
    if (queued.length) {
      const list = queued.map((p) => `${p.from} → ${p.to}`).join(', ');
      text.push(queued.length === 1
        ? `Premove ${list}: played the moment it is your turn, if it is legal then.`
        : `Premoves ${list}: played in turn as your turns come, each if it is legal then.`);
    }
    if (premove) text.push(`Premove from ${premove.from}: choose where it goes.`);
    parts.push(el('p', 'helper-text', text.join(' ')));
    const list = el('div', 'helper-buttons');
    const label = queued.length > 1 ? 'Cancel premoves' : 'Cancel premove';
    const cancel = button(label, 'cancel-premove', cancelPremove, 'small');
    cancel.title = 'Drops every premove (Escape, or a right-click on the board, too)';
    list.append(cancel);
    parts.push(list);
  } else if (canPlay && !mappable && entries.length) {
    parts.push(el('p', 'helper-text', 'Choose your move:'));
    const list = el('div', 'helper-buttons');
    for (const entry of entries) {
      list.append(button(entry.move, `move-${entry.move}`, () => sendMove(entry.move), 'small'));
    }
    parts.push(list);
  } else if (canPlay && pick.choices) {
    const seat = app.room.seat;
    parts.push(el('p', 'helper-text', `Move ${sel.join(' → ')}: promote to`));
    const list = el('div', 'helper-buttons');
    list.setAttribute('role', 'group');
    list.setAttribute('aria-label', 'Promote to');
    for (const move of pick.choices) {
      const { suffix } = movePath(game, move);
      const b = button('', `promote-${suffix || 'none'}`, () => sendMove(move), 'small choice');
      const piece = promotionPieceElement(game, suffix, seat);
      if (piece) b.append(piece);
      b.append(document.createTextNode(promotionLabel(game, suffix)));
      b.dataset.move = move;
      list.append(b);
    }
    list.append(button('Cancel', 'cancel-move', cancelPick, 'small'));
    parts.push(list);
  } else if (canPlay && sel.length) {
    const here = optionsAfter(entries, sel);
    const last = sel[sel.length - 1];
    const text = [];
    text.push(sel.length === 1 ? `${last} selected.` : `Path ${sel.join(' → ')}.`);
    if (here.next.size) text.push(`${sel.length === 1 ? 'Move to' : 'Jump on to'} ${listLabels(here.next)}.`);
    if (here.exact.length === 1 && here.next.size) {
      text.push(`Or stop at ${last}: click it again or use Stop here.`);
    } else {
      text.push(sel.length === 1 ? `Click ${last} again to cancel.` : `Click ${last} again to step back.`);
    }
    parts.push(el('p', 'helper-text', text.join(' ')));
    const list = el('div', 'helper-buttons');
    if (here.exact.length === 1 && here.next.size) {
      const stop = button(`Stop here (${here.exact[0].move})`, 'stop-here', () => sendMove(here.exact[0].move), 'small primary-btn');
      list.append(stop);
    }
    list.append(button('Cancel', 'cancel-move', cancelPick, 'small'));
    parts.push(list);
  }
  box.replaceChildren(...parts);
  box.hidden = parts.length === 0;
  if (pick.choices && !box.contains(document.activeElement) && app.keyboard) {
    box.querySelector('button')?.focus();
  }
}

/**
 * Brings the live board into view and puts the keyboard focus on it (on a cell one can
 * move from, else on the board itself), once drawn after a room is entered or a rematch
 * begins: otherwise, on a phone, the board may be a screen or more away and the focus
 * back at the top of the page.
 */
export function showBoard() {
  const board = ui.board;
  if (ui.game.hidden || board.hidden) return;
  // The room's header, the board and both players' lines: the card's top goes to the
  // top of the screen when the table does not fit under what is above it (the board is
  // sized to fit from there, style.css).
  const card = ui.game.getBoundingClientRect();
  const table = (board.closest('.table') ?? board).getBoundingClientRect();
  if (card.top < 0 || table.bottom > window.innerHeight) window.scrollBy({ top: card.top, behavior: 'instant' });
  const cell = (board._cells ?? []).find((c) => c && !c.disabled && c.tabIndex !== -1);
  (cell ?? board).focus({ preventScroll: true });
}

function restoreBoardFocus(canPlay) {
  // Sending a move disables the cell that had the focus; once it is our turn again, a
  // keyboard player gets the focus back on the board instead of at the top of the page.
  if (!canPlay || !app.keyboard || app.boardHadFocus === null) return;
  const active = document.activeElement;
  if (active && active !== document.body) return;
  const cells = (ui.board._cells ?? []).filter((c) => c && !c.disabled && c.tabIndex !== -1);
  const again = cells.find((c) => c.dataset.label === app.boardHadFocus) ?? cells[0];
  again?.focus();
}
