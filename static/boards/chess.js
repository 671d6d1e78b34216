// Chess: light and dark squares with file letters and rank numbers on the edges; the
// pieces are the Unicode chess glyphs drawn as SVG text. A white piece is the solid glyph
// filled white under the outline glyph (which gives it its inner lines); a black piece
// is the solid glyph filled dark with a light edge, so it shows on the dark squares.

import { svg } from './svg.js';

const NAMES = { k: 'king', q: 'queen', r: 'rook', b: 'bishop', n: 'knight', p: 'pawn' };
const SOLID = { k: '\u265A', q: '\u265B', r: '\u265C', b: '\u265D', n: '\u265E', p: '\u265F' };
const OUTLINE = { k: '\u2654', q: '\u2655', r: '\u2656', b: '\u2657', n: '\u2658', p: '\u2659' };
// Asks for the text form of a glyph, never an emoji.
const TEXT_STYLE = '\uFE0E';

export const PROMOTION_NAMES = { q: 'queen', r: 'rook', b: 'bishop', n: 'knight' };

export const chess = {
  title: 'Chess',
  sides: ['White', 'Black'],
  sideCodes: ['K', 'k'],
  topSeat: 1, // row 0 is rank 8: Black at the top
  startOption: { label: 'Start position (FEN)', placeholder: 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1' },
  order: ['first', 'second'],

  cellName(label) {
    return label;
  },

  pieceName(code) {
    if (!/^[KQRBNPkqrbnp]$/.test(code)) return null;
    return `${code === code.toUpperCase() ? 'white' : 'black'} ${NAMES[code.toLowerCase()]}`;
  },

  /** The squares, coloured by the server's row and column, and the coordinates on the edges as drawn. */
  drawBoard(layer, { rows, spots }) {
    for (const { label, row, col, x, y } of spots) {
      const light = (row + col) % 2 === 0;
      layer.append(svg('rect', { class: light ? 'sq-light' : 'sq-dark', x, y, width: 1, height: 1 }));
      const tone = light ? 'on-light' : 'on-dark';
      if (y === rows - 1) {
        layer.append(svg('text', { class: `coord ${tone}`, x: x + 0.94, y: y + 0.94, 'text-anchor': 'end' }, [label.replace(/\d+$/, '')]));
      }
      if (x === 0) layer.append(svg('text', { class: `coord ${tone}`, x: 0.05, y: y + 0.22 }, [label.replace(/^[a-z]+/, '')]));
    }
  },

  drawPiece(code) {
    if (!this.pieceName(code)) return [];
    const kind = code.toLowerCase();
    const at = { x: 0.5, y: 0.53, 'text-anchor': 'middle', 'dominant-baseline': 'central' };
    if (code === kind) {
      return [svg('text', { ...at, class: 'chess-glyph black' }, [SOLID[kind] + TEXT_STYLE])];
    }
    return [
      svg('text', { ...at, class: 'chess-glyph white-fill' }, [SOLID[kind] + TEXT_STYLE]),
      svg('text', { ...at, class: 'chess-glyph white-line' }, [OUTLINE[kind] + TEXT_STYLE]),
    ];
  },
};
