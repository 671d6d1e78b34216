// Parlor web client: the games this page knows, and their boards. Everything the page
// knows about one game lives in that game's module (chess.js, checkers.js, fox_geese.js,
// tictactoe.js); this one lists them in GAMES, answers the rest of the page's questions
// about any game from there, and draws any board from `state.board`. It knows no rules.
//
// Adding a game: write boards/<game>.js and add it to GAMES below; the lobby's game
// choices, the room filter and the leaderboard's menu are filled from GAMES. A game's
// module is an object with
//   title                   the game's name ("Fox & Geese")
//   sides, sideCodes        the sides of seat 0 and 1 ("White", "Black") and a piece of each
//   order                   how the lobby names the seats' turns ('first', 'second')
//   topSeat                 the seat whose pieces start at the top of the server's grid
//                           (null: the board is never turned), or topSeat(state, sides)
//   sidesIn(state)          optional: the sides as the state shows them, when they vary
//   startOption             optional: { label, placeholder } of the lobby's start-position field
//   cellName(label, index, cols), pieceName(code)   what screen readers are told
//   drawBoard(layer, { rows, cols, spots }), drawPiece(code)   the picture (SVG)
//   movePath(move)          the cells a move visits, as labels, and any suffix that is
//                           not a cell: { path, suffix }
//   reasons                 optional: the phrases of end reasons only this game has,
//                           (who, isYou) => text; the shared ones are in result.js
//   movesInPairs            optional: the list of moves numbers each pair ("1. e4 e5")
//   moveInWords(move, cols) optional: a move as the list of moves reads it
//   emphasis(state, sides)  optional: cells to set apart on the live board and why,
//                           { kind: 'win' | 'check' | 'mate', cells: [indices] }, or null
//   sideIsMark              optional: the side's name is its mark (X, O): badges show the
//                           letter and seats do not repeat the side's name
//   promotionName(suffix), promotionPiece(suffix, seat)   optional: the promotion chooser
//   premoves, ownsPiece(code, seat)   optional: the board takes premoves (premove.js),
//                           and which pieces are the seat's own
//   material                optional: pieces that can be counted against each other, as
//                           [seat 0's code, seat 1's code, points]: beside each seat the
//                           page shows what it is ahead by (see materialOf)
//   record                  optional: { format, note }: finished games download as
//                           /api/games/<id>.<format>, from the replay card's link with
//                           data-record="<format>" in index.html
//
// A board is an SVG picture of the game's board (squares, lines, coordinates) under a
// grid of transparent buttons, one per cell, which carry the pieces (small SVGs), the
// highlights, the focus and the aria labels. Every text from the server is written as
// text, never as markup.

import { svg } from './svg.js';
import { capitalise } from '../dom.js';
import { tictactoe } from './tictactoe.js';
import { checkers } from './checkers.js';
import { chess } from './chess.js';
import { foxGeese } from './fox_geese.js';

/** Each game's module, by the game's name on the wire, in the order the page lists them. */
export const GAMES = { tictactoe, checkers, chess, fox_geese: foxGeese };

/** The game the lobby offers until the player picks another: the first in the list. */
export const DEFAULT_GAME = Object.keys(GAMES)[0];

/** How a game this page does not know is drawn: plain cells, pieces as their codes. */
const OTHER = {
  cellName: (label) => String(label),
  pieceName: (code) => code,
  drawBoard(layer, { rows, cols }) {
    layer.append(svg('rect', { class: 'other-field', x: 0, y: 0, width: cols, height: rows }));
  },
  drawPiece: (code) => [svg('text', { class: 'other-piece', x: 0.5, y: 0.68, 'text-anchor': 'middle' }, [code])],
  /** Read as well as possible: numbered cells joined by `-` or `x`, or from- and to-square. */
  movePath(move) {
    if (/^\d+([-x]\d+)+$/.test(move)) return { path: move.split(/[-x]/), suffix: '' };
    const square = move.match(/^([a-z]\d+)([a-z]\d+)(.*)$/);
    if (square) return { path: [square[1], square[2]], suffix: square[3] };
    return { path: [move], suffix: '' };
  },
};

function moduleOf(game) {
  return GAMES[game] ?? OTHER;
}

/** A game's name as people read it ("Fox & Geese"). */
export function gameTitle(game) {
  return GAMES[game]?.title ?? String(game ?? '?');
}

// ---------------------------------------------------------------------------
// Moves and how a game is told

/** The cells a move visits, as labels, plus any suffix that is not a cell (the promotion piece in chess). */
export function movePath(game, move) {
  return moduleOf(game).movePath(String(move));
}

/** The phrases of the end reasons only this game has (see `reasons` above). */
export function gameReasons(game) {
  return GAMES[game]?.reasons ?? {};
}

/** Whether the game's list of moves numbers each pair of moves, as its records do. */
export function movesInPairs(game) {
  return Boolean(GAMES[game]?.movesInPairs);
}

/** A move as the list of moves reads it (the move itself unless the game says otherwise). */
export function moveInWords(game, move, cols) {
  return GAMES[game]?.moveInWords?.(move, cols) ?? move;
}

/** Whether a side's name is its mark (X, O), so that it is not repeated beside its badge. */
export function sideIsMark(game) {
  return Boolean(GAMES[game]?.sideIsMark);
}

/** A promotion choice's label: "Queen", or the suffix itself, or "as it is" without one. */
export function promotionLabel(game, suffix) {
  const name = suffix ? GAMES[game]?.promotionName?.(suffix) : undefined;
  if (!name) return suffix || 'as it is';
  return capitalise(name);
}

/** The piece a promotion choice gives the side of `seat`, drawn; null when there is none. */
export function promotionPieceElement(game, suffix, seat) {
  const code = suffix ? GAMES[game]?.promotionPiece?.(suffix, seat) ?? null : null;
  return code ? pieceElement(game, code) : null;
}

/** Whether this game's board takes premoves while the opponent is to move. */
export function premovesAllowed(game) {
  return Boolean(GAMES[game]?.premoves);
}

/** Whether the piece `code` belongs to `seat` in this game. */
export function ownsPiece(game, code, seat) {
  if (!code) return false;
  return Boolean(GAMES[game]?.ownsPiece?.(String(code), seat));
}

/** How finished games of this game are exported ({ format, note }), or null. */
export function recordOf(game) {
  return GAMES[game]?.record ?? null;
}

/** What a piece is called ("white queen", "goose"), or null for an empty cell. */
function pieceName(game, code) {
  if (code === null || code === undefined || code === '') return null;
  return moduleOf(game).pieceName(String(code)) ?? String(code);
}

/** A small SVG of a piece (on the board, as a side's mark, in the promotion chooser). */
export function pieceElement(game, code) {
  if (code === null || code === undefined || code === '') return null;
  const parts = moduleOf(game).drawPiece(String(code));
  if (!parts.length) return null;
  return svg('svg', { class: `piece-icon game-${GAMES[game] ? game : 'other'}`, viewBox: '0 0 1 1', 'aria-hidden': 'true', focusable: 'false' }, parts);
}

/**
 * What each seat is ahead by on `board`, as Lichess shows it: for each kind of piece the
 * side with more of it lists the other side's pieces it is ahead by, and the points
 * they are worth. `[{ pieces: [codes], points }, …]` by seat, or null for a game
 * without a material table. Counted from the board, so it holds for any start position.
 */
export function materialOf(game, board) {
  const table = GAMES[game]?.material;
  if (!table || !Array.isArray(board?.cells)) return null;
  const count = (code) => board.cells.filter((c) => c === code).length;
  const ahead = [{ pieces: [], points: 0 }, { pieces: [], points: 0 }];
  for (const [first, second, points] of table) {
    const lead = count(first) - count(second);
    if (lead === 0) continue;
    const seat = lead > 0 ? 0 : 1;
    const theirs = seat === 0 ? second : first;
    for (let i = 0; i < Math.abs(lead); i += 1) ahead[seat].pieces.push(theirs);
    ahead[seat].points += Math.abs(lead) * points;
    ahead[1 - seat].points -= Math.abs(lead) * points;
  }
  return ahead;
}

/** What a screen reader is told of a seat's lead: "ahead by black pawn, black knight (4 points)". */
export function materialWords(game, { pieces, points }) {
  const names = pieces.map((code) => pieceName(game, code)).join(', ');
  const plural = points === 1 ? 'point' : 'points';
  return points > 0 ? `ahead by ${names} (${points} ${plural})` : `ahead by ${names}`;
}

// ---------------------------------------------------------------------------
// Sides of the seats

/**
 * The sides of seat 0 and seat 1 for this game and state:
 * `{ names: [..], codes: [..], known: bool }`. `known` is false when the sides are the
 * game's defaults rather than read from the state (only Fox & Geese can differ).
 */
export function sidesOf(game, state) {
  const meta = GAMES[game];
  if (!meta) return { names: ['first player', 'second player'], codes: [null, null], known: true };
  return meta.sidesIn?.(state) ?? { names: meta.sides, codes: meta.sideCodes, known: true };
}

/** The cells of `state`'s board to set apart (a winning line, a king in check), or null. */
export function emphasisOf(game, state) {
  return GAMES[game]?.emphasis?.(state, sidesOf(game, state)) ?? null;
}

/** What a screen reader is told of a cell set apart, by the emphasis's kind. */
const EMPHASIS_WORDS = { win: 'winning line', check: 'in check', mate: 'checkmated' };

/**
 * The seat whose pieces start at the top of the server's grid, or null if the board
 * is never turned. The player in that seat sees the board turned by 180 degrees, so
 * that everyone has their own pieces at the bottom.
 */
export function topSeatOf(game, state, sides) {
  const meta = GAMES[game];
  if (!meta) return 1; // the grid is drawn as seat 0 sees it
  return typeof meta.topSeat === 'function' ? meta.topSeat(state, sides) : meta.topSeat;
}

// ---------------------------------------------------------------------------
// Drawing

/** The state's board if it can be drawn as a grid, else null. */
export function gridOf(s) {
  const b = s?.board;
  if (!b || b.layout !== 'grid') return null;
  const rows = Number(b.rows);
  const cols = Number(b.cols);
  if (!Number.isInteger(rows) || !Number.isInteger(cols) || rows < 1 || cols < 1 || rows * cols > 400) return null;
  return b;
}

/**
 * Builds `boardEl` for this board shape and orientation: the game's picture and a
 * button per cell. Does nothing when it is already built for it. Returns the buttons
 * (null for a cell that is not part of the board), indexed by the server's cell index.
 */
export function buildGrid(boardEl, game, board, flipped) {
  const rows = Number(board.rows) || 0;
  const cols = Number(board.cols) || 0;
  const labels = Array.isArray(board.labels) && board.labels.length === rows * cols
    ? board.labels.map((l) => (l === null || l === undefined ? null : String(l)))
    : Array.from({ length: rows * cols }, (_, i) => String(i));
  const key = JSON.stringify([game, rows, cols, flipped, labels]);
  if (boardEl.dataset.shape === key && boardEl._cells) return boardEl._cells;
  const meta = moduleOf(game);
  boardEl.dataset.shape = key;
  boardEl.dataset.rows = String(rows);
  boardEl.dataset.cols = String(cols);
  boardEl.dataset.flipped = flipped ? 'true' : 'false';
  boardEl.style.setProperty('--cols', String(cols));
  boardEl.style.setProperty('--rows', String(rows));
  for (const name of [...boardEl.classList]) if (name.startsWith('game-')) boardEl.classList.remove(name);
  boardEl.classList.add(`game-${GAMES[game] ? game : 'other'}`);

  // Where each cell is drawn: turned by 180 degrees when flipped.
  const spots = [];
  labels.forEach((label, index) => {
    if (label === null) return;
    const row = Math.floor(index / cols);
    const col = index % cols;
    const x = flipped ? cols - 1 - col : col;
    const y = flipped ? rows - 1 - row : row;
    spots.push({ label, index, row, col, x, y });
  });

  const art = svg('svg', { class: 'board-art', viewBox: `0 0 ${cols} ${rows}`, 'aria-hidden': 'true', focusable: 'false' });
  meta.drawBoard(art, { rows, cols, spots });

  const cells = new Array(rows * cols).fill(null);
  const buttons = [];
  // In reading order as drawn, so that Tab walks the board as it is seen.
  spots.sort((a, b) => a.y - b.y || a.x - b.x);
  for (const { label, index, x, y } of spots) {
    const cell = document.createElement('button');
    cell.type = 'button';
    cell.className = 'cell';
    cell.style.gridRow = String(y + 1);
    cell.style.gridColumn = String(x + 1);
    cell.dataset.testid = `cell-${label}`;
    cell.dataset.label = label;
    cell.dataset.index = String(index);
    cell.dataset.row = String(y);
    cell.dataset.col = String(x);
    cell._name = meta.cellName(label, index, cols);
    const slot = document.createElement('span');
    slot.className = 'slot';
    cell.append(slot);
    cell._slot = slot;
    buttons.push(cell);
    cells[index] = cell;
  }
  boardEl.replaceChildren(art, ...buttons);
  boardEl._cells = cells;
  return cells;
}

/**
 * Paints pieces and highlights onto cells built by buildGrid.
 * view = { game, board, last: Set, selected: [labels], targets: Set, starts: Set,
 *          interactive: bool, selecting: bool, premove: Set (optional),
 *          emphasis: emphasisOf(…) or absent }
 */
export function paintGrid(cells, view) {
  const cellsData = Array.isArray(view.board.cells) ? view.board.cells : [];
  const selectedLast = view.selected.length ? view.selected[view.selected.length - 1] : null;
  for (const cell of cells) {
    if (!cell) continue;
    const index = Number(cell.dataset.index);
    const label = cell.dataset.label;
    const code = cellsData[index] ?? null;
    const codeText = code === null ? '' : String(code);
    if (cell.dataset.piece !== codeText || !cell.dataset.painted) {
      cell.dataset.painted = '1';
      cell.dataset.piece = codeText;
      cell.dataset.mark = codeText; // kept for tic-tac-toe styling and tests
      const piece = pieceElement(view.game, code);
      cell._slot.replaceChildren(...(piece ? [piece] : []));
    }
    const isLast = view.last.has(label);
    const isSelected = view.selected.includes(label);
    const isTarget = view.targets.has(label);
    const isStart = view.starts.has(label);
    cell.classList.toggle('last', isLast);
    cell.classList.toggle('selected', isSelected);
    cell.classList.toggle('selected-end', label === selectedLast);
    cell.classList.toggle('target', isTarget);
    cell.classList.toggle('occupied', code !== null);
    cell.classList.toggle('can-start', isStart && !view.selecting);
    const isPremove = view.premove?.has(label) ?? false;
    cell.classList.toggle('premove', isPremove);
    const emphasis = view.emphasis?.cells.includes(index) ? view.emphasis.kind : null;
    if (emphasis) cell.dataset.emphasis = emphasis;
    else delete cell.dataset.emphasis;
    // Clickable: anything that continues or starts a move; while a move is being built,
    // every cell (a click elsewhere cancels), but only useful ones are in the Tab order.
    const useful = view.selecting ? isTarget || isSelected || isStart : isStart;
    cell.disabled = !view.interactive || (!view.selecting && !isStart);
    if (view.interactive && view.selecting && !useful) cell.tabIndex = -1;
    else cell.removeAttribute('tabindex');
    const name = pieceName(view.game, code);
    let text = `${cell._name}, ${name ?? 'empty'}`;
    if (isLast) text += ', last move';
    if (isPremove) text += ', premove';
    if (emphasis) text += `, ${EMPHASIS_WORDS[emphasis] ?? emphasis}`;
    if (isSelected) text += label === selectedLast ? ', selected' : ', on the chosen path';
    if (isTarget) text += name ? ', can capture here' : ', can move here';
    cell.setAttribute('aria-label', text);
  }
}
