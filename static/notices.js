// The lines that talk to the user outside the board: the error line (which hides itself
// after a while), the notice line, and the connection pill in the header.

import { app, ui } from './state.js';

const ERROR_VISIBLE_MS = 15000;

/** What the connection pill says for a state when the connection gives no text. */
const CONNECTION_LABELS = { offline: 'not signed in' };

/** The sentence shown when something needs the server and the page is not connected. */
export const OFFLINE_MESSAGE = 'Not connected to the server. Wait for it to reconnect, or use Reconnect now, and try again.';

/** Shows an error for a while; `code` is kept on the line for tests and tools. */
export function showError(message, code) {
  const box = ui.error;
  box.querySelector('.text').textContent = message;
  box.dataset.code = code ?? '';
  box.dataset.count = String(Number(box.dataset.count || 0) + 1);
  box.hidden = false;
  clearTimeout(app.errorTimer);
  app.errorTimer = setTimeout(hideError, ERROR_VISIBLE_MS);
}

/** Hides the error line. */
export function hideError() {
  clearTimeout(app.errorTimer);
  ui.error.hidden = true;
}

/** Shows a notice (an empty message hides it); `kind` says what it is about. */
export function showNotice(message, kind = 'info') {
  ui.notice.dataset.kind = kind;
  ui.notice.textContent = message;
  ui.notice.hidden = !message;
}

/** Shows the connection's state in the header pill, and Reconnect now while reconnecting. */
export function setConnection(stateName, text) {
  ui.connection.dataset.state = stateName;
  ui.connection.textContent = text ?? CONNECTION_LABELS[stateName] ?? stateName;
  ui.reconnect.hidden = stateName !== 'reconnecting';
}
