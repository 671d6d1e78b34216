// Links to rooms: `/?room=<id>` opens a room (joins its open seat, or watches), which is
// how private rooms are shared.

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

/** Takes the room out of the address once it has been followed, so a reload does not follow it again. */
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
