// Tic-tac-toe: a 3×3 grid of lines; X is two strokes, O a ring.

import { svg } from './svg.js';

export const tictactoe = {
  title: 'Tic-tac-toe',
  sides: ['X', 'O'],
  sideCodes: ['X', 'O'],
  topSeat: null,
  order: ['first', 'second'],

  cellName(label, index, cols) {
    return `row ${Math.floor(index / cols) + 1} column ${(index % cols) + 1}`;
  },

  pieceName(code) {
    return code === 'X' || code === 'O' ? code : null;
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
