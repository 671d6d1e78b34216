// Reading the server's board by label: which cell carries which label ("e4", "15").

/** Each label of the board, with its cell index. */
export function labelIndex(board) {
  const map = new Map();
  const labels = Array.isArray(board?.labels) ? board.labels : [];
  labels.forEach((label, i) => {
    if (label !== null && label !== undefined) map.set(String(label), i);
  });
  return map;
}
