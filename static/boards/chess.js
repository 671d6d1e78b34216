// Chess: light and dark squares with file letters and rank numbers on the edges; the
// pieces are Cburnett's set from Wikimedia Commons (CC BY-SA 3.0, credited on the page),
// each drawn from the sprite pieces.js keeps in the page, by its id (piece-wk … piece-bp).
// A move is sent as from- and to-square plus the promotion piece (`e7e8q`), listed as
// players write it (SAN); finished games are exported as PGN.

import { svg } from './svg.js';
import { PIECE_ID_PREFIX } from '../pieces.js';

const NAMES = { k: 'king', q: 'queen', r: 'rook', b: 'bishop', n: 'knight', p: 'pawn' };
/** The sprite's drawings are 40 units square. */
const PIECE_UNITS = 40;

const PROMOTION_NAMES = { q: 'queen', r: 'rook', b: 'bishop', n: 'knight' };

/** Chess, for the list of games in boards/index.js (which says what each field means). */
export const chess = {
  title: 'Chess',
  sides: ['White', 'Black'],
  sideCodes: ['K', 'k'],
  topSeat: 1, // row 0 is rank 8: Black at the top
  startOption: { label: 'Start position (FEN)', placeholder: 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1' },
  order: ['first', 'second'],
  movesInPairs: true, // numbered "1. e4 e5", as chess records are
  premoves: true,
  /** White's pieces are capitals (seat 0), Black's small letters. */
  ownsPiece(code, seat) {
    return /^[KQRBNPkqrbnp]$/.test(code) && (code === code.toUpperCase()) === (seat === 0);
  },
  material: [['Q', 'q', 9], ['R', 'r', 5], ['B', 'b', 3], ['N', 'n', 3], ['P', 'p', 1]],
  record: { format: 'pgn', note: 'The moves are listed below, and the PGN opens in any chess program.' },

  /** How this game's own endings are told. `loser` is "Name (Side)"; isYou says it is this player. */
  reasons: {
    checkmate: (loser, isYou) => (isYou ? 'you were checkmated' : `${loser} was checkmated`),
    stalemate: () => 'stalemate: the side to move has no legal move and is not in check',
    insufficient_material: () => 'neither side has enough material left to checkmate',
    fifty_moves: () => 'the fifty-move rule: no capture or pawn move for fifty moves',
    // A draw on time: told about the side whose clock ran out.
    timeout_vs_insufficient_material: (flagged, isYou) => (isYou
      ? 'you ran out of time, but your opponent has too little material left to checkmate, so it is a draw'
      : `${flagged} ran out of time, but the other side has too little material left to checkmate, so it is a draw`),
  },

  /** From- and to-square, and the promotion piece as the suffix. */
  movePath(move) {
    const m = move.match(/^([a-h][1-8])([a-h][1-8])([a-z]?)$/);
    if (m) return { path: [m[1], m[2]], suffix: m[3] };
    return { path: [move], suffix: '' };
  },

  /** What a promotion suffix makes the pawn ("queen" for `q`), if it names a piece. */
  promotionName(suffix) {
    return PROMOTION_NAMES[suffix];
  },

  /** The piece code a promotion suffix gives the side of `seat` (seat 0 is White). */
  promotionPiece(suffix, seat) {
    return seat === 0 ? suffix.toUpperCase() : suffix;
  },

  cellName(label) {
    return label;
  },

  /**
   * The king left in check (or mated) by the last move, as its SAN says (`+`, `#`): the
   * king of the seat that did not make it (each side's code here is its king).
   */
  emphasis(state, sides) {
    const last = state?.last_move;
    const text = String(last?.display ?? '');
    if (!/[+#]$/.test(text) || (last.seat !== 0 && last.seat !== 1)) return null;
    const cells = Array.isArray(state.board?.cells) ? state.board.cells : [];
    const at = cells.indexOf(sides.codes[1 - last.seat]);
    return at < 0 ? null : { kind: text.endsWith('#') ? 'mate' : 'check', cells: [at] };
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
    const id = `${code === code.toUpperCase() ? 'w' : 'b'}${code.toLowerCase()}`;
    return [svg('use', { href: `#${PIECE_ID_PREFIX}${id}`, class: 'chess-piece', transform: `scale(${1 / PIECE_UNITS})` })];
  },
};
