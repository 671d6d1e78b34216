// Drag and drop on a board, as an alternative to clicking: press on a piece that can
// move, drag it, release it on a square. Works with a mouse, a pen or a finger
// (pointer events). Clicks and the keyboard keep working as before; this only turns a
// drag into the same picks a click would make.

const THRESHOLD_PX = 6;

/**
 * Makes the cells of `board` draggable.
 * hooks = {
 *   canDrag(label): whether a drag may start on this cell now,
 *   start(label): the piece is lifted (select it),
 *   drop(from, to): it was released on another cell (`to` is null off the board),
 * }
 */
export function enableDrag(board, hooks) {
  let press = null; // { id, label, cell, x, y, dragging, ghost }
  let swallowClick = false;

  const cellAt = (x, y) => document.elementFromPoint(x, y)?.closest?.('[data-label]') ?? null;

  const finish = () => {
    if (!press) return;
    press.ghost?.remove();
    press.cell.classList.remove('dragging');
    board.classList.remove('drag-active');
    if (board.hasPointerCapture?.(press.id)) board.releasePointerCapture(press.id);
    press = null;
  };

  board.addEventListener('pointerdown', (event) => {
    if (event.button !== 0 || press) return;
    const cell = event.target.closest?.('[data-label]');
    // Only pieces are dragged (a tic-tac-toe mark is placed by a click).
    if (!cell || cell.disabled || !cell.dataset.piece || !hooks.canDrag(cell.dataset.label)) return;
    press = { id: event.pointerId, label: cell.dataset.label, cell, x: event.clientX, y: event.clientY, dragging: false, ghost: null };
  });

  board.addEventListener('pointermove', (event) => {
    if (!press || event.pointerId !== press.id) return;
    if (!press.dragging) {
      if (Math.hypot(event.clientX - press.x, event.clientY - press.y) < THRESHOLD_PX) return;
      press.dragging = true;
      board.setPointerCapture?.(press.id);
      hooks.start(press.label);
      const piece = press.cell.querySelector('.slot > *');
      if (piece) {
        const size = press.cell.getBoundingClientRect().width;
        const ghost = document.createElement('div');
        ghost.className = 'drag-ghost';
        ghost.setAttribute('aria-hidden', 'true');
        ghost.style.width = `${size}px`;
        ghost.style.height = `${size}px`;
        ghost.append(piece.cloneNode(true));
        // Inside the board, so the piece keeps the board's sizes and colours.
        board.append(ghost);
        press.ghost = ghost;
      }
      press.cell.classList.add('dragging');
      board.classList.add('drag-active');
    }
    event.preventDefault();
    if (press.ghost) {
      const box = board.getBoundingClientRect();
      press.ghost.style.transform = `translate(${event.clientX - box.left}px, ${event.clientY - box.top}px) translate(-50%, -50%)`;
    }
  });

  board.addEventListener('pointerup', (event) => {
    if (!press || event.pointerId !== press.id) return;
    const { dragging, label } = press;
    finish();
    if (!dragging) return; // a plain click: the click handler deals with it
    swallowClick = true;
    // The click (if any) comes right after pointerup; nothing later is swallowed.
    setTimeout(() => { swallowClick = false; }, 0);
    const target = cellAt(event.clientX, event.clientY);
    const to = target && board.contains(target) ? target.dataset.label : null;
    if (to !== label) hooks.drop(label, to);
  });

  board.addEventListener('pointercancel', finish);

  // The click that follows a drag is not a click on a cell.
  board.addEventListener('click', (event) => {
    if (!swallowClick) return;
    swallowClick = false;
    event.stopImmediatePropagation();
    event.preventDefault();
  }, true);
}
