// Tic-tac-toe: a 3×3 grid of lines; X is two strokes, O a ring. A move is the number
// of its cell (`4`), read out as "row 2, column 2" in the list of moves.

import { svg } from './svg.js';

/** Tic-tac-toe, for the list of games in boards/index.js (which says what each field means). */
export const tictactoe = {
  title: 'Tic-tac-toe',
  sides: ['X', 'O'],
  sideCodes: ['X', 'O'],
  topSeat: null,
  order: ['first', 'second'],
  sideIsMark: true, // the sides are the marks themselves, X and O

  /** How this game's own endings are told. */
  reasons: {
    three_in_a_row: () => 'three in a row',
    board_full: () => 'the board is full',
  },

  /** A move is one cell. */
  movePath(move) {
    return { path: [move], suffix: '' };
  },

  /** A move as the list of moves reads it: "row 1, column 3" for `2`. */
  moveInWords(move, cols) {
    const n = Number(move);
    if (!Number.isInteger(n) || String(n) !== move) return move;
    return `row ${Math.floor(n / cols) + 1}, column ${(n % cols) + 1}`;
  },

  cellName(label, index, cols) {
    return `row ${Math.floor(index / cols) + 1} column ${(index % cols) + 1}`;
  },

  pieceName(code) {
    return code === 'X' || code === 'O' ? code : null;
  },

  /** Once won: the full lines of one mark (rows, columns, diagonals) that won it. */
  emphasis(state) {
    if (state?.result?.reason !== 'three_in_a_row') return null;
    const rows = Number(state.board?.rows);
    const cols = Number(state.board?.cols);
    const cells = Array.isArray(state.board?.cells) ? state.board.cells : [];
    if (!rows || rows !== cols) return null;
    const span = [...Array(rows).keys()];
    const lines = [
      ...span.map((r) => span.map((c) => r * cols + c)),
      ...span.map((c) => span.map((r) => r * cols + c)),
      span.map((i) => i * cols + i),
      span.map((i) => i * cols + (cols - 1 - i)),
    ];
    const won = lines.filter((line) => cells[line[0]] && line.every((i) => cells[i] === cells[line[0]]));
    return won.length ? { kind: 'win', cells: [...new Set(won.flat())] } : null;
  },

  /** The four lines of the grid. */
  drawBoard(layer, { rows, cols }) {
    for (let c = 1; c < cols; c += 1) layer.append(svg('line', { class: 'ttt-line', x1: c, y1: 0.08, x2: c, y2: rows - 0.08 }));
    for (let r = 1; r < rows; r += 1) layer.append(svg('line', { class: 'ttt-line', x1: 0.08, y1: r, x2: cols - 0.08, y2: r }));
  },

  /** A mark in the unit square. */
  drawPiece(code) {
    if (code === 'X') {
      return [svg('path', { class: 'ttt-x', d: 'M0.27 0.27 L0.73 0.73 M0.73 0.27 L0.27 0.73' })];
    }
    if (code === 'O') return [svg('circle', { class: 'ttt-o', cx: 0.5, cy: 0.5, r: 0.25 })];
    return [];
  },
};
