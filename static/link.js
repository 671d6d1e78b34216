// Links to rooms: `/?room=<id>` opens a room (joins its open seat, or watches), which is
// how private rooms are shared; while the page is in a room, its address is that link.
// Links to stored games: `/game/<id>` is a game's permanent address, which opens its
// replay (the server answers it with this page; the game is read from the store, so it
// works long after the room has gone and across restarts).

const PARAM = 'room';
const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** The link that opens this room. */
export function roomLink(id) {
  const url = new URL('/', location.href);
  url.searchParams.set(PARAM, id);
  return url.href;
}

/** A stored game's permanent address. */
export function gameLink(id) {
  return new URL(`/game/${encodeURIComponent(id)}`, location.href).href;
}

/** The stored game whose address this page was opened at, if it is one. */
export function gameFromAddress() {
  const match = /^\/game\/([^/]+)$/.exec(new URL(location.href).pathname);
  if (!match) return null;
  let id;
  try {
    id = decodeURIComponent(match[1]);
  } catch {
    return null;
  }
  // Any id is looked up: one the store does not have gets the replay card's message.
  return id || null;
}

/** Leaves a stored game's address for the page's own once its replay is closed. */
export function forgetGameInAddress() {
  const url = new URL(location.href);
  if (!url.pathname.startsWith('/game/')) return;
  history.replaceState(history.state, '', '/' + url.search + url.hash);
}

/** Copies a stored game's permanent address; `tell(text)` says what happened. */
export async function copyGameLink(id, tell) {
  const link = gameLink(id);
  tell(`This game's link: ${link}`);
  if (await copyText(link, null)) tell(`Link copied: ${link}. It shows this game's replay to whoever opens it.`);
}

/** The room id in this page's address, if it has a plausible one. */
export function roomFromAddress() {
  const id = new URL(location.href).searchParams.get(PARAM);
  return id && ID_PATTERN.test(id) ? id : null;
}

/**
 * Puts the room in the page's address while the page is in it, so the address bar
 * always holds a link to share and a reload comes back to the same room.
 */
export function showRoomInAddress(id) {
  const url = new URL(location.href);
  if (url.searchParams.get(PARAM) === id) return;
  url.searchParams.set(PARAM, id);
  history.replaceState(history.state, '', url.pathname + url.search + url.hash);
}

/** Takes the room out of the address once the page has left it (or followed its link). */
export function forgetRoomInAddress() {
  const url = new URL(location.href);
  if (!url.searchParams.has(PARAM)) return;
  url.searchParams.delete(PARAM);
  history.replaceState(history.state, '', url.pathname + url.search + url.hash);
}

/** Copies text to the clipboard; resolves to whether it worked. */
export async function copyText(text, fallbackInput) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API (an insecure origin, or permission refused): select the text instead.
    if (!fallbackInput) return false;
    fallbackInput.focus();
    fallbackInput.select();
    try {
      return document.execCommand('copy');
    } catch {
      return false;
    }
  }
}
