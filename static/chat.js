// The room's chat as shown (PROTOCOL.md §6.17): the players' chat for a seated player,
// the spectators' for a watcher. Lines come from the server (messages.js keeps them in
// the room); quick lines are sent as ordinary lines; a player can be muted, which hides
// their lines in this browser and is remembered there. Sending and muting are the
// actions it is given: { say(text) → sent?, mutePlayer(id, name), unmutePlayer(id) }.

import { app, ui, mutedPlayers } from './state.js';
import { el, button } from './dom.js';
import { afterRender } from './store.js';

/** The chat lines drawn, and the mutes they were drawn under: redrawn only when either changes. */
let linesDrawn = { lines: null, count: -1, last: null, key: null };

/** Lines a person may send with one click, as on Lichess. */
const QUICK_LINES = ['Hello', 'Good luck', 'Have fun', 'You too', 'Good game', 'Well played', 'Thank you'];
/** The longest line the server takes by default (rooms.chat_max_chars). */
const MAX_CHARS = 140;

/** Wires the chat's form and quick lines once. */
export function setUpChat({ say }) {
  ui['chat-input'].maxLength = MAX_CHARS;
  ui['chat-form'].addEventListener('submit', (event) => {
    event.preventDefault();
    if (say(ui['chat-input'].value)) ui['chat-input'].value = '';
  });
  ui['chat-quick'].replaceChildren(...QUICK_LINES.map((text) => button(
    text,
    `chat-quick-${text.toLowerCase().replaceAll(' ', '-')}`,
    () => say(text),
    'small',
  )));
}

function lineEl(line, mutedNow, { mutePlayer }) {
  const item = el('li', 'chat-line');
  item.dataset.player = String(line.player_id ?? '');
  const mine = line.player_id === app.me?.player_id;
  if (mine) item.classList.add('mine');
  item.append(el('span', 'chat-name', line.name ?? '?'), ' ', el('span', 'chat-text', line.text));
  if (!mine && line.player_id && !mutedNow[line.player_id]) {
    const mute = button('Mute', `chat-mute-${line.player_id}`, () => mutePlayer(line.player_id, line.name ?? ''), 'small chat-mute');
    mute.setAttribute('aria-label', `Mute ${line.name ?? 'this player'}: hide their chat lines`);
    item.append(mute);
  }
  return item;
}

/** Draws the chat: its title, the lines of players not muted, who is muted, and the form. */
export function renderChat(actions) {
  const box = ui.chat;
  const room = app.room;
  box.hidden = !room;
  if (box.hidden) return;
  const s = room.state;
  const lines = room.chat.lines;
  const spectator = room.role === 'spectator';
  ui['chat-title'].textContent = spectator ? 'Spectators’ chat' : 'Chat with your opponent';
  box.dataset.channel = spectator ? 'spectators' : 'players';
  const mutedNow = mutedPlayers();
  // Lines are added (and the oldest dropped) in place: the last line tells a new one.
  const drawn = { lines, count: lines.length, last: lines[lines.length - 1] ?? null, key: JSON.stringify([mutedNow, app.me?.player_id]) };
  if (Object.keys(drawn).some((k) => drawn[k] !== linesDrawn[k])) {
    linesDrawn = drawn;
    const shown = lines.filter((line) => !mutedNow[line.player_id]);
    const list = ui['chat-lines'];
    list.replaceChildren(...shown.map((line) => lineEl(line, mutedNow, actions)));
    list.hidden = shown.length === 0;
    afterRender(() => {
      const bottom = list.scrollHeight;
      return () => { list.scrollTop = bottom; };
    });
  }
  const names = Object.entries(mutedNow)
    .filter(([id]) => lines.some((line) => line.player_id === id));
  const note = ui['chat-muted'];
  note.hidden = names.length === 0;
  note.replaceChildren(...(names.length ? [el('span', null, 'Muted: ')] : []), ...names.flatMap(([id, name], i) => [
    ...(i ? [', '] : []),
    el('span', 'chat-name', name),
    ' ',
    button('Unmute', `chat-unmute-${id}`, () => actions.unmutePlayer(id), 'small'),
  ]));
  // Chat opens with the game (PROTOCOL.md §6.17), and needs the connection.
  const started = Boolean(s?.game_id) && s?.status !== 'waiting';
  const open = started && app.ready;
  ui['chat-input'].disabled = !open;
  ui['chat-send'].disabled = !open;
  for (const quick of ui['chat-quick'].querySelectorAll('button')) quick.disabled = !open;
  let placeholder = 'The chat opens when the game starts';
  if (open) placeholder = 'Say something…';
  else if (started) placeholder = 'You are offline: the chat comes back when you reconnect';
  ui['chat-input'].placeholder = placeholder;
}
