// Fox & Geese: the cross of 33 points, joined along the ranks, files and the diagonals
// through the odd-numbered points. A move is the points it visits (`3-10`, the fox's
// jumps `17x19x5`). Which seat plays the fox is read off the board.

import { svg } from './svg.js';
import { labelIndex } from './labels.js';

/** The points a move visits, in order. */
function pointsOf(move) {
  return String(move).split(/[-x]/).filter((p) => p !== '');
}

function codeAt(board, label) {
  const index = labelIndex(board).get(String(label));
  if (index === undefined) return null;
  return board.cells?.[index] ?? null;
}

/**
 * Which seat plays the fox, read from the state when it shows it (the piece that made
 * the last move, or the piece the side to move can move); null when it cannot tell.
 */
function foxSeatOf(state) {
  const board = state?.board;
  if (!board) return null;
  const last = state.last_move;
  if (last && typeof last.seat === 'number') {
    const path = pointsOf(last.move);
    const code = codeAt(board, path[path.length - 1]);
    if (code === 'F') return last.seat;
    if (code === 'G') return 1 - last.seat;
  }
  if (typeof state.to_move === 'number' && Array.isArray(state.legal_moves) && state.legal_moves.length) {
    const code = codeAt(board, pointsOf(state.legal_moves[0])[0]);
    if (code === 'F') return state.to_move;
    if (code === 'G') return 1 - state.to_move;
  }
  return null;
}

/** Fox & Geese, for the list of games in boards/index.js (which says what each field means). */
export const foxGeese = {
  title: 'Fox & Geese',
  sides: ['Geese', 'Fox'], // by default; the sides are read from the board when it shows them
  sideCodes: ['G', 'F'],
  order: ['first', 'second'],

  /** How this game's own endings are told. */
  reasons: {
    fox_trapped: () => 'the fox is trapped and cannot move',
    geese_stuck: () => 'the geese cannot move',
    geese_below_threshold: () => 'too few geese are left to trap the fox',
    quiet_moves: () => 'too many moves in a row without a capture',
  },

  /** The points a move visits, in order. */
  movePath(move) {
    return { path: pointsOf(move), suffix: '' };
  },

  /** The sides as the state shows them (which seat plays the fox is a server setting). */
  sidesIn(state) {
    const fox = foxSeatOf(state);
    if (fox === 0) return { names: ['Fox', 'Geese'], codes: ['F', 'G'], known: true };
    return { names: this.sides, codes: this.sideCodes, known: fox === 1 };
  },

  /** The seat at the top of the server's grid: the geese's while they stand in its upper half. */
  topSeat(state, sides) {
    const board = state?.board;
    const geeseSeat = sides.codes[0] === 'G' ? 0 : 1;
    if (!board || !Array.isArray(board.cells) || !board.rows || !board.cols) return 1 - geeseSeat;
    let sum = 0;
    let count = 0;
    board.cells.forEach((code, i) => {
      if (code === 'G') {
        sum += Math.floor(i / board.cols);
        count += 1;
      }
    });
    if (count === 0) return 1 - geeseSeat;
    return sum / count < (board.rows - 1) / 2 ? geeseSeat : 1 - geeseSeat;
  },

  cellName(label) {
    return `point ${label}`;
  },

  pieceName(code) {
    if (code === 'F') return 'fox';
    if (code === 'G') return 'goose';
    return null;
  },

  /** The cross, its lines and the numbered points. `spots` carry the server's row and column. */
  drawBoard(layer, { spots }) {
    const at = new Map(spots.map((s) => [`${s.row},${s.col}`, s]));
    for (const { x, y } of spots) {
      layer.append(svg('rect', { class: 'fg-field', x: x - 0.01, y: y - 0.01, width: 1.02, height: 1.02 }));
    }
    const joins = [];
    for (const s of spots) {
      const neighbours = [[0, 1], [1, 0]];
      if ((s.row + s.col) % 2 === 0) neighbours.push([1, 1], [1, -1]);
      for (const [dr, dc] of neighbours) {
        const other = at.get(`${s.row + dr},${s.col + dc}`);
        if (other) joins.push([s, other]);
      }
    }
    for (const [a, b] of joins) {
      layer.append(svg('line', { class: 'fg-line', x1: a.x + 0.5, y1: a.y + 0.5, x2: b.x + 0.5, y2: b.y + 0.5 }));
    }
    for (const { label, x, y } of spots) {
      layer.append(svg('circle', { class: 'fg-point', cx: x + 0.5, cy: y + 0.5, r: 0.09 }));
      layer.append(svg('text', { class: 'coord fg-num', x: x + 0.1, y: y + 0.24 }, [label]));
    }
  },

  drawPiece(code) {
    if (code === 'F') {
      return [
        svg('path', { class: 'fg-fox', d: 'M0.2 0.16 L0.38 0.3 L0.62 0.3 L0.8 0.16 L0.78 0.5 Q0.74 0.78 0.5 0.86 Q0.26 0.78 0.22 0.5 Z' }),
        svg('path', { class: 'fg-fox-face', d: 'M0.34 0.58 Q0.5 0.52 0.66 0.58 Q0.6 0.74 0.5 0.78 Q0.4 0.74 0.34 0.58 Z' }),
        svg('circle', { class: 'fg-eye', cx: 0.39, cy: 0.46, r: 0.035 }),
        svg('circle', { class: 'fg-eye', cx: 0.61, cy: 0.46, r: 0.035 }),
        svg('circle', { class: 'fg-eye', cx: 0.5, cy: 0.74, r: 0.035 }),
      ];
    }
    if (code === 'G') {
      return [
        svg('circle', { class: 'fg-goose', cx: 0.5, cy: 0.52, r: 0.3 }),
        svg('path', { class: 'fg-beak', d: 'M0.43 0.5 L0.57 0.5 L0.5 0.64 Z' }),
        svg('circle', { class: 'fg-eye', cx: 0.41, cy: 0.42, r: 0.03 }),
        svg('circle', { class: 'fg-eye', cx: 0.59, cy: 0.42, r: 0.03 }),
      ];
    }
    return [];
  },
};
