// The chess pieces' drawings, Cburnett's set (pieces/cburnett.svg, CC BY-SA 3.0, credited
// in the page's footer): fetched once and kept in the page as a hidden sprite, so that
// drawing a piece never asks the network again (a board redrawn while offline keeps its
// pieces). boards/chess.js draws each with <use href="#piece-wk">.

/** The sprite's address. */
const SPRITE = '/pieces/cburnett.svg';
/** Prefix of the pieces' ids in the page (wk becomes piece-wk). */
export const PIECE_ID_PREFIX = 'piece-';

/** Fetches the sprite and adds it to the page; a board drawn meanwhile gets its pieces as it arrives. */
export async function loadPieces() {
  try {
    const res = await fetch(SPRITE);
    if (!res.ok) return;
    const parsed = new DOMParser().parseFromString(await res.text(), 'image/svg+xml');
    const sprite = document.importNode(parsed.documentElement, true);
    if (sprite.localName !== 'svg') return;
    // Only the pieces keep an id, prefixed; the sprite's inner ids repeat ("Shape").
    for (const node of sprite.querySelectorAll('[id]')) {
      if (/^[wb][kqrbnp]$/.test(node.id)) node.id = `${PIECE_ID_PREFIX}${node.id}`;
      else node.removeAttribute('id');
    }
    for (const node of sprite.querySelectorAll('title, desc')) node.remove();
    sprite.setAttribute('class', 'piece-sprite');
    sprite.setAttribute('aria-hidden', 'true');
    sprite.setAttribute('focusable', 'false');
    document.body.append(sprite);
  } catch {
    // No pieces to draw: the cells still name them to screen readers and tests.
  }
}
