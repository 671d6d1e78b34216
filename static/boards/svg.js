// Building SVG elements for the board modules.

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element with attributes and children (text children are set as text, never as markup). */
export function svg(tag, attrs = {}, children = []) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  for (const child of children) node.append(child);
  return node;
}
