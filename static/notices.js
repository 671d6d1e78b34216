// The lines that talk to the user outside the board: the error line (which hides itself
// after a while), the notice line (some notices too), and the connection pill in the
// header. What they say is kept in `app.notices` (state.js) and drawn by render.js.

import { app } from './state.js';
import { update } from './store.js';

const ERROR_VISIBLE_MS = 15000;
/** How long a passing notice (FLEETING) stays: in a room it floats over the page's corner. */
const NOTICE_VISIBLE_MS = 12000;
/** Notices about a moment, gone after a while: a link copied, a premove dropped, who arrived. */
const FLEETING = new Set(['share', 'invite', 'premove', 'arrived']);

/** The timer that hides the error line again. */
let errorTimer = null;
/** The timer that hides a passing notice. */
let noticeTimer = null;

/** What the connection pill says for a state when the connection gives no text. */
const CONNECTION_LABELS = { offline: 'not signed in' };

/** The sentence shown when something needs the server and the page is not connected. */
export const OFFLINE_MESSAGE = 'Not connected to the server. Wait for it to reconnect, or use Reconnect now, and try again.';

/** Shows an error for a while; `code` is kept on the line for tests and tools. */
export function showError(message, code) {
  const { error } = app.notices;
  update(() => Object.assign(error, { text: message, code: code ?? '', count: error.count + 1, shown: true }), 'notices');
  clearTimeout(errorTimer);
  errorTimer = setTimeout(hideError, ERROR_VISIBLE_MS);
}

/** Hides the error line. */
export function hideError() {
  clearTimeout(errorTimer);
  update(() => { app.notices.error.shown = false; }, 'notices');
}

/**
 * Shows a notice (an empty message hides it); `kind` says what it is about. A notice of
 * a FLEETING kind hides itself after a while, unless another took its place meanwhile.
 */
export function showNotice(message, kind = 'info') {
  update(() => { app.notices.notice = { text: message, kind }; }, 'notices');
  clearTimeout(noticeTimer);
  if (message && FLEETING.has(kind)) noticeTimer = setTimeout(() => showNotice(''), NOTICE_VISIBLE_MS);
}

/** Hides the notice if it is of one of these kinds. */
export function dropNotice(...kinds) {
  if (kinds.includes(app.notices.notice.kind)) showNotice('');
}

/** Shows the connection's state in the header pill, and Reconnect now while reconnecting. */
export function setConnection(stateName, text) {
  update(() => {
    app.notices.connection = { state: stateName, text: text ?? CONNECTION_LABELS[stateName] ?? stateName };
  }, 'notices');
}
