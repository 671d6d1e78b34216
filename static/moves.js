// Parlor web client: how clicks on cells become moves, without knowing any rules.
//
// A move is built by matching the cells a person clicks against the *paths* of the
// moves in `legal_moves`: a path is the list of cell labels a move visits, read off the
// move's notation by the game's module in boards/ (checkers `22x15x6` → [22, 15, 6];
// chess `e7e8q` → [e7, e8] plus the suffix `q`).

import { movePath } from './boards/index.js';
import { labelIndex } from './boards/labels.js';

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
