// Small DOM helpers shared by the page's modules. Text always goes in as text, never as
// HTML, so names like `<img src=x onerror=...>` are shown literally.

/** Creates an element with a class and text. */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

/** A button with a label, a data-testid and a click handler. */
export function button(label, testId, onClick, className) {
  const b = el('button', className, label);
  b.type = 'button';
  if (testId) b.dataset.testid = testId;
  b.addEventListener('click', onClick);
  return b;
}

/** The text with its first letter in upper case. */
export function capitalise(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}
