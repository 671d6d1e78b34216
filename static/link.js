// Links to rooms: `/?room=<id>` opens a room (joins its open seat, or watches), which is
// how private rooms are shared; while the page is in a room, its address is that link.

const PARAM = 'room';
const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** The link that opens this room. */
export function roomLink(id) {
  const url = new URL('/', location.href);
  url.searchParams.set(PARAM, id);
  return url.href;
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
