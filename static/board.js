// Parlor web client: how each game looks, and how clicks become moves.
//
// Nothing here knows a game's rules. The board is drawn from `state.board` (cells and
// labels), and a move is built by matching the cells a person clicks against the
// *paths* of the moves in `legal_moves`: a path is the list of cell labels a move
// visits, read off the move's notation (tic-tac-toe `4` → [4]; checkers `22x15x6` →
// [22, 15, 6]; chess `e7e8q` → [e7, e8] plus the suffix `q`).
//
// Every text from the server is written with textContent, never as HTML.

// ---------------------------------------------------------------------------
// Games: names, sides, pieces

const CHESS_NAMES = { k: 'king', q: 'queen', r: 'rook', b: 'bishop', n: 'knight', p: 'pawn' };
// Solid glyphs (♚♛♜♝♞♟) are drawn for both colours and filled by CSS; the outline
// glyphs (♔♕♖♗♘♙) are drawn over white pieces to give them an edge. U+FE0E asks
// for the text form, never an emoji.
const CHESS_SOLID = { k: '\u265A', q: '\u265B', r: '\u265C', b: '\u265D', n: '\u265E', p: '\u265F' };
const CHESS_OUTLINE = { k: '\u2654', q: '\u2655', r: '\u2656', b: '\u2657', n: '\u2658', p: '\u2659' };
const TEXT_STYLE = '\uFE0E';

export const PROMOTION_NAMES = { q: 'queen', r: 'rook', b: 'bishop', n: 'knight' };

/**
 * Per game: its title, the names of seat 0's and seat 1's sides, the piece code that
 * stands for each side (for small marks), and which seat's pieces start at the top of
 * the grid the server sends (`topSeat`; null = never turn the board).
 */
export const GAMES = {
  tictactoe: {
    title: 'Tic-tac-toe',
    sides: ['X', 'O'],
    sideCodes: ['X', 'O'],
    topSeat: null,
    order: ['first', 'second'],
  },
  checkers: {
    title: 'Checkers',
    sides: ['Black', 'White'],
    sideCodes: ['b', 'w'],
    topSeat: 0, // seat 0 is Black, whose men start on squares 1-12 at the top of the grid
    startOption: { label: 'Start position (PDN FEN)', placeholder: 'W:W21,22,23:B1,2,K3' },
    order: ['first', 'second'],
  },
  chess: {
    title: 'Chess',
    sides: ['White', 'Black'],
    sideCodes: ['K', 'k'],
    topSeat: 1, // row 0 is rank 8: Black at the top
    startOption: { label: 'Start position (FEN)', placeholder: 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1' },
    order: ['first', 'second'],
  },
  fox_geese: {
    title: 'Fox & Geese',
    sides: ['Geese', 'Fox'], // by default; the sides are read from the board when it shows them
    sideCodes: ['G', 'F'],
    topSeat: 'geese-or-fox', // worked out from where the geese stand (see topSeatOf)
    order: ['first', 'second'],
  },
};

export function gameTitle(game) {
  return GAMES[game]?.title ?? String(game ?? '?');
}

/** What a piece code shows and is called. */
export function pieceInfo(game, code) {
  if (code === null || code === undefined || code === '') return null;
  const text = String(code);
  if (game === 'chess' && /^[KQRBNPkqrbnp]$/.test(text)) {
    const white = text === text.toUpperCase();
    const kind = text.toLowerCase();
    return {
      name: `${white ? 'white' : 'black'} ${CHESS_NAMES[kind]}`,
      className: `piece chess ${white ? 'white' : 'black'} chess-${kind}`,
      glyph: (white ? CHESS_OUTLINE[kind] : CHESS_SOLID[kind]) + TEXT_STYLE,
      fill: CHESS_SOLID[kind] + TEXT_STYLE,
    };
  }
  if (game === 'checkers' && /^[bBwW]$/.test(text)) {
    const black = text.toLowerCase() === 'b';
    const king = text === text.toUpperCase();
    return {
      name: `${black ? 'black' : 'white'} ${king ? 'king' : 'man'}`,
      className: `piece disc ${black ? 'black' : 'white'}${king ? ' king' : ''}`,
      glyph: king ? '\u265B' + TEXT_STYLE : '',
    };
  }
  if (game === 'fox_geese' && (text === 'F' || text === 'G')) {
    const fox = text === 'F';
    return {
      name: fox ? 'fox' : 'goose',
      className: `piece ${fox ? 'fox' : 'goose'}`,
      glyph: fox ? 'F' : 'G',
    };
  }
  if (game === 'tictactoe') return { name: text, className: 'piece mark-text', glyph: text };
  return { name: text, className: 'piece unknown', glyph: text };
}

/** A small element showing a piece (used on the board and as a side's mark). */
export function pieceElement(game, code) {
  const info = pieceInfo(game, code);
  if (!info) return null;
  const span = document.createElement('span');
  span.className = info.className;
  span.setAttribute('aria-hidden', 'true');
  if (info.fill) span.dataset.fill = info.fill;
  if (info.glyph) span.textContent = info.glyph;
  return span;
}

// ---------------------------------------------------------------------------
// Sides of the seats

function labelIndex(board) {
  const map = new Map();
  const labels = Array.isArray(board?.labels) ? board.labels : [];
  labels.forEach((label, i) => {
    if (label !== null && label !== undefined) map.set(String(label), i);
  });
  return map;
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
    const path = movePath('fox_geese', String(last.move)).path;
    const code = codeAt(board, path[path.length - 1]);
    if (code === 'F') return last.seat;
    if (code === 'G') return 1 - last.seat;
  }
  if (typeof state.to_move === 'number' && Array.isArray(state.legal_moves) && state.legal_moves.length) {
    const code = codeAt(board, movePath('fox_geese', String(state.legal_moves[0])).path[0]);
    if (code === 'F') return state.to_move;
    if (code === 'G') return 1 - state.to_move;
  }
  return null;
}

/**
 * The sides of seat 0 and seat 1 for this game and state:
 * `{ names: [..], codes: [..], known: bool }`. `known` is false when the sides are the
 * game's defaults rather than read from the state (only Fox & Geese can differ).
 */
export function sidesOf(game, state) {
  const meta = GAMES[game];
  if (!meta) return { names: ['first player', 'second player'], codes: [null, null], known: true };
  if (game !== 'fox_geese') return { names: meta.sides, codes: meta.sideCodes, known: true };
  const fox = foxSeatOf(state);
  if (fox === 0) return { names: ['Fox', 'Geese'], codes: ['F', 'G'], known: true };
  return { names: meta.sides, codes: meta.sideCodes, known: fox === 1 };
}

/**
 * The seat whose pieces start at the top of the server's grid, or null if the board
 * is never turned. The player in that seat sees the board turned by 180 degrees, so
 * that everyone has their own pieces at the bottom.
 */
export function topSeatOf(game, state, sides) {
  const meta = GAMES[game];
  if (!meta) return 1; // the grid is drawn as seat 0 sees it
  if (meta.topSeat !== 'geese-or-fox') return meta.topSeat;
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
}

// ---------------------------------------------------------------------------
// Move paths

/**
 * The cells a move visits, as labels, plus any suffix that is not a cell (the
 * promotion piece in chess). Unknown games are read as well as possible.
 */
export function movePath(game, move) {
  const text = String(move);
  if (game === 'tictactoe') return { path: [text], suffix: '' };
  if (game === 'checkers' || game === 'fox_geese') {
    return { path: text.split(/[-x]/).filter((p) => p !== ''), suffix: '' };
  }
  if (game === 'chess') {
    const m = text.match(/^([a-h][1-8])([a-h][1-8])([a-z]?)$/);
    if (m) return { path: [m[1], m[2]], suffix: m[3] };
    return { path: [text], suffix: '' };
  }
  if (/^\d+([-x]\d+)+$/.test(text)) return { path: text.split(/[-x]/), suffix: '' };
  const square = text.match(/^([a-z]\d+)([a-z]\d+)(.*)$/);
  if (square) return { path: [square[1], square[2]], suffix: square[3] };
  return { path: [text], suffix: '' };
}

/** The legal moves with their paths; `mappable` is false if a path leaves the board. */
export function indexMoves(game, legal, board) {
  const labels = labelIndex(board);
  const seen = new Set();
  const entries = [];
  let mappable = true;
  for (const raw of Array.isArray(legal) ? legal : []) {
    const move = String(raw);
    if (seen.has(move)) continue;
    seen.add(move);
    const { path, suffix } = movePath(game, move);
    if (!path.length || !path.every((label) => labels.has(label))) mappable = false;
    entries.push({ move, path, suffix });
  }
  return { entries, mappable };
}

function startsWith(path, prefix) {
  if (prefix.length > path.length) return false;
  return prefix.every((label, i) => path[i] === label);
}

/**
 * Where a partial path can go: `exact` are the moves whose path is exactly `sel`,
 * `next` the labels that extend `sel` towards some move.
 */
export function optionsAfter(entries, sel) {
  const exact = [];
  const next = new Set();
  for (const entry of entries) {
    if (!startsWith(entry.path, sel)) continue;
    if (entry.path.length === sel.length) exact.push(entry);
    else next.add(entry.path[sel.length]);
  }
  return { exact, next };
}

/**
 * What a click on `label` does, given the moves and the current selection `sel`:
 *   { kind: 'send', move }             one move matches the clicked path exactly
 *   { kind: 'choose', sel, choices }   several moves share the path (chess promotion)
 *   { kind: 'select', sel }            keep building the path
 *   { kind: 'cancel' }                 the click does not continue any move
 * Clicking the last selected cell again ends the move there if that is a legal move
 * (a partial chain of jumps), and otherwise steps back one cell.
 */
export function clickOutcome(entries, sel, label) {
  const here = optionsAfter(entries, sel);
  const settle = (path) => {
    const o = optionsAfter(entries, path);
    if (o.next.size === 0 && o.exact.length === 1) return { kind: 'send', move: o.exact[0].move };
    if (o.next.size === 0 && o.exact.length > 1) return { kind: 'choose', sel: path, choices: o.exact };
    if (o.next.size === 0) return { kind: 'cancel' };
    return { kind: 'select', sel: path };
  };
  if (here.next.has(label)) return settle([...sel, label]);
  if (sel.length && label === sel[sel.length - 1]) {
    if (here.exact.length === 1) return { kind: 'send', move: here.exact[0].move };
    if (here.exact.length > 1) return { kind: 'choose', sel, choices: here.exact };
    return sel.length > 1 ? { kind: 'select', sel: sel.slice(0, -1) } : { kind: 'cancel' };
  }
  if (sel.length && optionsAfter(entries, []).next.has(label)) return settle([label]);
  return { kind: 'cancel' };
}

// ---------------------------------------------------------------------------
// Drawing the grid

const SVG_NS = 'http://www.w3.org/2000/svg';

function cellName(game, label, index, cols) {
  if (game === 'tictactoe') {
    return `row ${Math.floor(index / cols) + 1} column ${(index % cols) + 1}`;
  }
  if (game === 'checkers') return `square ${label}`;
  if (game === 'fox_geese') return `point ${label}`;
  return String(label);
}

/**
 * Builds the cells of `boardEl` for this board shape and orientation; does nothing
 * when they are already built for it. Returns the cell elements (null for a cell that
 * is not part of the board), indexed by the server's cell index.
 */
export function buildGrid(boardEl, game, board, flipped) {
  const rows = Number(board.rows) || 0;
  const cols = Number(board.cols) || 0;
  const labels = Array.isArray(board.labels) && board.labels.length === rows * cols
    ? board.labels.map((l) => (l === null || l === undefined ? null : String(l)))
    : Array.from({ length: rows * cols }, (_, i) => String(i));
  const key = JSON.stringify([game, rows, cols, flipped, labels]);
  if (boardEl.dataset.shape === key && boardEl._cells) return boardEl._cells;
  boardEl.dataset.shape = key;
  boardEl.dataset.rows = String(rows);
  boardEl.dataset.cols = String(cols);
  boardEl.dataset.flipped = flipped ? 'true' : 'false';
  boardEl.style.setProperty('--cols', String(cols));
  boardEl.style.setProperty('--rows', String(rows));
  for (const name of [...boardEl.classList]) if (name.startsWith('game-')) boardEl.classList.remove(name);
  boardEl.classList.add(`game-${GAMES[game] ? game : 'other'}`);
  boardEl.replaceChildren();

  const at = (row, col) => (row >= 0 && row < rows && col >= 0 && col < cols ? labels[row * cols + col] : null);
  if (game === 'fox_geese') boardEl.append(pointLines(rows, cols, at, flipped));

  const cells = new Array(rows * cols).fill(null);
  for (let d = 0; d < rows * cols; d += 1) {
    const index = flipped ? rows * cols - 1 - d : d;
    const label = labels[index];
    const row = Math.floor(index / cols);
    const col = index % cols;
    const displayRow = Math.floor(d / cols);
    const displayCol = d % cols;
    if (label === null) {
      const blank = document.createElement('div');
      blank.className = 'cell void';
      blank.setAttribute('aria-hidden', 'true');
      boardEl.append(blank);
      continue;
    }
    const cell = document.createElement('button');
    cell.type = 'button';
    cell.className = 'cell';
    cell.dataset.testid = `cell-${label}`;
    cell.dataset.label = label;
    cell.dataset.index = String(index);
    cell.dataset.row = String(displayRow);
    cell.dataset.col = String(displayCol);
    cell._name = cellName(game, label, index, cols);
    if (game === 'chess') {
      cell.classList.add((row + col) % 2 === 0 ? 'sq-light' : 'sq-dark');
      if (displayRow === rows - 1) cell.append(coord('file', label.replace(/\d+$/, '')));
      if (displayCol === 0) cell.append(coord('rank', label.replace(/^[a-z]+/, '')));
    } else if (game === 'checkers') {
      cell.classList.add('sq-dark');
      cell.append(coord('num', label));
    } else if (game === 'fox_geese') {
      cell.classList.add('point');
      cell.append(coord('num', label));
    }
    const slot = document.createElement('span');
    slot.className = 'slot';
    cell.append(slot);
    cell._slot = slot;
    boardEl.append(cell);
    cells[index] = cell;
  }
  boardEl._cells = cells;
  return cells;
}

function coord(kind, text) {
  const span = document.createElement('span');
  span.className = `coord ${kind}`;
  span.setAttribute('aria-hidden', 'true');
  span.textContent = text;
  return span;
}

/** The cross and the lines joining its points (Fox & Geese), under the cells. */
function pointLines(rows, cols, at, flipped) {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('class', 'lines');
  svg.setAttribute('viewBox', `0 0 ${cols} ${rows}`);
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('aria-hidden', 'true');
  const pos = (row, col) => (flipped ? [cols - 1 - col + 0.5, rows - 1 - row + 0.5] : [col + 0.5, row + 0.5]);
  const line = (a, b) => {
    const l = document.createElementNS(SVG_NS, 'line');
    l.setAttribute('x1', String(a[0]));
    l.setAttribute('y1', String(a[1]));
    l.setAttribute('x2', String(b[0]));
    l.setAttribute('y2', String(b[1]));
    svg.append(l);
  };
  // The board itself: one square per point, which together draw the cross.
  for (let row = 0; row < rows; row += 1) {
    for (let col = 0; col < cols; col += 1) {
      if (at(row, col) === null) continue;
      const [x, y] = pos(row, col);
      const rect = document.createElementNS(SVG_NS, 'rect');
      rect.setAttribute('x', String(x - 0.51));
      rect.setAttribute('y', String(y - 0.51));
      rect.setAttribute('width', '1.02');
      rect.setAttribute('height', '1.02');
      svg.append(rect);
    }
  }
  for (let row = 0; row < rows; row += 1) {
    for (let col = 0; col < cols; col += 1) {
      if (at(row, col) === null) continue;
      if (at(row, col + 1) !== null) line(pos(row, col), pos(row, col + 1));
      if (at(row + 1, col) !== null) line(pos(row, col), pos(row + 1, col));
      // The classic board's diagonals run through the points whose row + column is even.
      if ((row + col) % 2 === 0) {
        if (at(row + 1, col + 1) !== null) line(pos(row, col), pos(row + 1, col + 1));
        if (at(row + 1, col - 1) !== null) line(pos(row, col), pos(row + 1, col - 1));
      }
    }
  }
  return svg;
}

/**
 * Paints pieces and highlights onto cells built by buildGrid.
 * view = { game, board, last: Set, selected: [labels], targets: Set, starts: Set,
 *          interactive: bool, selecting: bool }
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
    // Clickable: anything that continues or starts a move; while a move is being built,
    // every cell (a click elsewhere cancels), but only useful ones are in the Tab order.
    const useful = view.selecting ? isTarget || isSelected || isStart : isStart;
    cell.disabled = !view.interactive || (!view.selecting && !isStart);
    if (view.interactive && view.selecting && !useful) cell.tabIndex = -1;
    else cell.removeAttribute('tabindex');
    const info = pieceInfo(view.game, code);
    let text = `${cell._name}, ${info ? info.name : 'empty'}`;
    if (isLast) text += ', last move';
    if (isSelected) text += label === selectedLast ? ', selected' : ', on the chosen path';
    if (isTarget) text += info ? ', can capture here' : ', can move here';
    cell.setAttribute('aria-label', text);
  }
}
