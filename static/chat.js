// The room's chat (PROTOCOL.md §6.17): the players' chat for a seated player, the
// spectators' for a watcher. Lines come from the server (cleared on `joined`, then
// appended); quick lines are sent as ordinary lines; a player can be muted, which hides
// their lines in this browser and is remembered there.

import { app, ui, local, KEY_MUTED } from './state.js';
import { el, button } from './dom.js';
import { send } from './actions.js';

/** Lines a person may send with one click, as on Lichess. */
const QUICK_LINES = ['Hello', 'Good luck', 'Have fun', 'You too', 'Good game', 'Well played', 'Thank you'];
/** The longest line the server takes by default (rooms.chat_max_chars). */
const MAX_CHARS = 140;
/** Lines kept on the page. */
const KEPT_LINES = 200;

/** The players muted in this browser: player id → name. */
function muted() {
  try {
    const saved = JSON.parse(local.get(KEY_MUTED) ?? '{}');
    return saved && typeof saved === 'object' && !Array.isArray(saved) ? saved : {};
  } catch {
    return {};
  }
}

function setMuted(playerId, name) {
  const all = muted();
  if (name === null) delete all[playerId];
  else all[playerId] = name;
  local.set(KEY_MUTED, JSON.stringify(all));
  renderChat();
}

/** A new room: nothing said yet (the server sends the history after `joined`). */
export function clearChat() {
  app.chat = { channel: null, lines: [] };
}

/** The lines of a `chat` message of the current room. */
export function addChatLines(m) {
  if (!app.room || m.room !== app.room.id || !Array.isArray(m.lines)) return;
  app.chat.channel = m.channel === 'spectators' ? 'spectators' : 'players';
  for (const line of m.lines) {
    if (typeof line?.text === 'string') app.chat.lines.push(line);
  }
  app.chat.lines.splice(0, Math.max(0, app.chat.lines.length - KEPT_LINES));
  renderChat();
}

function sendLine(text) {
  const line = text.trim();
  if (!line || !app.room) return false;
  return send({ type: 'chat', room: app.room.id, text: line, ref: 'chat' });
}

/** Wires the chat's form and quick lines once. */
export function setUpChat() {
  clearChat();
  ui['chat-input'].maxLength = MAX_CHARS;
  ui['chat-form'].addEventListener('submit', (event) => {
    event.preventDefault();
    if (sendLine(ui['chat-input'].value)) ui['chat-input'].value = '';
  });
  ui['chat-quick'].replaceChildren(...QUICK_LINES.map((text) => button(
    text,
    `chat-quick-${text.toLowerCase().replaceAll(' ', '-')}`,
    () => sendLine(text),
    'small',
  )));
}

function lineEl(line, mutedNow) {
  const item = el('li', 'chat-line');
  item.dataset.player = String(line.player_id ?? '');
  const mine = line.player_id === app.me?.player_id;
  if (mine) item.classList.add('mine');
  item.append(el('span', 'chat-name', line.name ?? '?'), ' ', el('span', 'chat-text', line.text));
  if (!mine && line.player_id && !mutedNow[line.player_id]) {
    const mute = button('Mute', `chat-mute-${line.player_id}`, () => setMuted(line.player_id, line.name ?? ''), 'small chat-mute');
    mute.setAttribute('aria-label', `Mute ${line.name ?? 'this player'}: hide their chat lines`);
    item.append(mute);
  }
  return item;
}

/** Draws the chat: its title, the lines of players not muted, who is muted, and the form. */
export function renderChat() {
  const box = ui.chat;
  const s = app.state;
  box.hidden = !app.room;
  if (box.hidden) return;
  const spectator = app.room.role === 'spectator';
  ui['chat-title'].textContent = spectator ? 'Spectators’ chat' : 'Chat with your opponent';
  box.dataset.channel = spectator ? 'spectators' : 'players';
  const mutedNow = muted();
  const shown = app.chat.lines.filter((line) => !mutedNow[line.player_id]);
  ui['chat-lines'].replaceChildren(...shown.map((line) => lineEl(line, mutedNow)));
  ui['chat-lines'].hidden = shown.length === 0;
  ui['chat-lines'].scrollTop = ui['chat-lines'].scrollHeight;
  const names = Object.entries(mutedNow)
    .filter(([id]) => app.chat.lines.some((line) => line.player_id === id));
  const note = ui['chat-muted'];
  note.hidden = names.length === 0;
  note.replaceChildren(...(names.length ? [el('span', null, 'Muted: ')] : []), ...names.flatMap(([id, name], i) => [
    ...(i ? [', '] : []),
    el('span', 'chat-name', name),
    ' ',
    button('Unmute', `chat-unmute-${id}`, () => setMuted(id, null), 'small'),
  ]));
  // Chat opens with the game (PROTOCOL.md §6.17).
  const open = Boolean(s?.game_id) && s?.status !== 'waiting' && app.ready;
  ui['chat-input'].disabled = !open;
  ui['chat-send'].disabled = !open;
  for (const quick of ui['chat-quick'].querySelectorAll('button')) quick.disabled = !open;
  ui['chat-input'].placeholder = open ? 'Say something…' : 'The chat opens when the game starts';
}
