// Checkers: the 32 dark squares numbered as in the notation; men are discs, kings carry a
// crown. A move is the squares it visits (`11-15`, a chain of jumps `22x15x6`); finished
// games are exported as PDN.

import { svg } from './svg.js';

/** Checkers, for the list of games in boards/index.js (which says what each field means). */
export const checkers = {
  title: 'Checkers',
  sides: ['Black', 'White'],
  sideCodes: ['b', 'w'],
  topSeat: 0, // seat 0 is Black, whose men start on squares 1-12 at the top of the grid
  startOption: { label: 'Start position (PDN FEN)', placeholder: 'W:W21,22,23:B1,2,K3' },
  order: ['first', 'second'],
  movesInPairs: true, // numbered "1. 11-15 23-19", as draughts records are
  premoves: true,
  /** Seat 0 is Black (b, B), seat 1 White (w, W). */
  ownsPiece(code, seat) {
    return code.toLowerCase() === (seat === 0 ? 'b' : 'w');
  },
  material: [['B', 'W', 1], ['b', 'w', 1]], // a piece is a piece: kings, then men
  record: { format: 'pdn', note: 'The moves are listed below, and the PDN opens in draughts programs.' },

  /** How this game's own endings are told. `loser` is "Name (Side)"; isYou says it is this player. */
  reasons: {
    forty_moves: () => 'the forty-move rule: no capture or man move for forty moves',
    no_moves: (loser, isYou) => (isYou ? 'you have no legal move left' : `${loser} has no legal move left`),
  },

  /** The squares a move visits, in order. */
  movePath(move) {
    return { path: move.split(/[-x]/).filter((p) => p !== ''), suffix: '' };
  },

  cellName(label) {
    return `square ${label}`;
  },

  pieceName(code) {
    if (!/^[bBwW]$/.test(code)) return null;
    const colour = code.toLowerCase() === 'b' ? 'black' : 'white';
    return `${colour} ${code === code.toUpperCase() ? 'king' : 'man'}`;
  },

  /** Light squares everywhere, the playing squares dark with their numbers. */
  drawBoard(layer, { rows, cols, spots }) {
    layer.append(svg('rect', { class: 'ck-light', x: 0, y: 0, width: cols, height: rows }));
    for (const { label, x, y } of spots) {
      layer.append(svg('rect', { class: 'ck-dark', x, y, width: 1, height: 1 }));
      layer.append(svg('text', { class: 'coord ck-num', x: x + 0.06, y: y + 0.2 }, [label]));
    }
  },

  drawPiece(code) {
    if (!this.pieceName(code)) return [];
    const colour = code.toLowerCase() === 'b' ? 'black' : 'white';
    const parts = [
      svg('circle', { class: 'ck-shadow', cx: 0.5, cy: 0.54, r: 0.4 }),
      svg('circle', { class: `ck-man ${colour}`, cx: 0.5, cy: 0.5, r: 0.4 }),
      svg('circle', { class: `ck-ring ${colour}`, cx: 0.5, cy: 0.5, r: 0.29 }),
    ];
    if (code === code.toUpperCase()) {
      parts.push(svg('path', {
        class: 'ck-crown',
        d: 'M0.33 0.6 L0.3 0.4 L0.4 0.49 L0.5 0.36 L0.6 0.49 L0.7 0.4 L0.67 0.6 Z',
      }));
    }
    return parts;
  },
};
