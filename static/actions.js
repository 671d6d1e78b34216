// What the page sends and what its buttons do: signing in, starting, joining, watching
// and leaving rooms, moves, resigning, draws, rematches and the chat. Each action sends
// its request with the page's ParlorClient (`app.conn`, connection.js), says what a
// refusal means, and changes what the page knows (state.js) with update() (store.js),
// which draws the page again; no action draws anything itself.

import {
  app, ui, local, session, KEY_TOKEN, KEY_NAME, KEY_ROOM, KEY_CLOCK, KEY_MUTED, myTurn, resetPick, picking,
  enterRoom, dropRoom, roomPlace, mutedPlayers,
} from './state.js';
import { update, flush } from './store.js';
import { showError, hideError, showNotice, dropNotice, OFFLINE_MESSAGE } from './notices.js';
import { GAMES, gameTitle } from './boards/index.js';
import { timeControlFromChoice, hasClock } from './time.js';
import { forgetRoomInAddress, copyText, roomLink } from './link.js';
import { siteToken } from './site_sign_in.js';
import { hasPremoves, clearPremoves } from './premove.js';

const NAME_MAX = 24;

// ---------------------------------------------------------------------------
// The connection

/** Codes of requests the connection lost, or disconnect() dropped: nothing to tell (the page reconnects, or was told to stop). */
const LOST = new Set(['client_lost', 'client_closed']);

/**
 * Sends a request: `call(client)` sends it and returns the client's promise, and
 * `onRefused` handles a refusal. Says so on the error line and returns false when
 * the socket is not open.
 */
export function send(call, onRefused = refused) {
  if (!app.conn.isOpen) {
    showError(OFFLINE_MESSAGE, 'client_offline');
    return false;
  }
  call(app.conn).catch(onRefused);
  return true;
}

/** A refusal, shown on the error line. */
export function refused(err) {
  if (LOST.has(err.code)) return;
  showError(err.message, err.code);
  update();
}

/** True when signed in on an open socket; otherwise says so on the error line. */
export function requireOnline() {
  if (app.conn.isOpen && app.ready) return true;
  showError(OFFLINE_MESSAGE, 'client_offline');
  return false;
}

/**
 * Connects (or reconnects at once) as the stored player if there is one: the client
 * says hello when the socket opens, and again, with the token, after each reconnect.
 */
export function connect() {
  app.ready = false;
  const jwt = siteToken();
  const name = local.get(KEY_NAME) ?? ui['name-input'].value.trim();
  // Signed in, the site's token names the player; a guest always says a name.
  app.conn.name = name || !jwt ? name : null;
  // A guest's token beside the site's links this browser's guest to the account, once.
  app.conn.token = local.get(KEY_TOKEN);
  app.conn.jwt = jwt;
  // A refused hello is handled where it arrives (messages.js); a socket that cannot even be made, here.
  app.conn.connect().catch((err) => {
    if (err.code === 'client_socket') showError(err.message, err.code);
  });
}

/** Closes the socket for good (until the user connects again). */
export function closeSocket() {
  app.ready = false;
  app.rooms.clear();
  app.conn.disconnect();
}

/** Asks for the live room list of the game chosen in the filter (all games if none). */
export function subscribeLobby() {
  if (!app.conn.isOpen || !app.ready) return;
  app.conn.subscribeLobby(ui['rooms-filter'].value || undefined).catch(refused);
}

// ---------------------------------------------------------------------------
// Rooms: remembering, resuming, leaving

/** Keeps the current room for this tab, to return to it after a reload. */
export function rememberRoom() {
  if (app.room) session.set(KEY_ROOM, JSON.stringify(roomPlace(app.room)));
}

/** Forgets the room kept for this tab. */
export function forgetRoom() {
  session.remove(KEY_ROOM);
}

/**
 * After signing in: goes back to the room this tab was in, if any, unless the client has
 * joined it again already (after a reconnect it does so by itself, as `rejoinRoom` says).
 */
export function resumeRoom() {
  let room = app.room;
  if (!room) {
    let held;
    try {
      held = JSON.parse(session.get(KEY_ROOM) ?? 'null');
    } catch {
      held = null;
    }
    if (!held || typeof held.id !== 'string') return;
    room = enterRoom(held);
  }
  const s = room.state;
  if (s?.status === 'finished') {
    // Nothing left to play: keep showing the final board without rejoining.
    room.detached = true;
    return;
  }
  app.room = room;
  if (!app.conn.following(room.id)) catchUp();
}

/** Which room the client joins again by itself after a reconnect: the one shown, unless its game is over. */
export function rejoinRoom({ room }) {
  return room === app.room?.id && app.room.state?.status !== 'finished';
}

/** Joins the current room again (its seat, or to watch), to have what this page missed. */
export function catchUp() {
  const room = app.room;
  const s = room.state;
  // Say the last state seen, so the room sends only what was missed (PROTOCOL.md §8.1).
  const since = s?.room === room.id && typeof s.seq === 'number' ? s.seq : undefined;
  if (room.role === 'player' && typeof room.seat === 'number') {
    send((c) => c.join(room.id, room.seat, { since }), resumeFailed);
  } else {
    send((c) => c.watch(room.id, { since }), resumeFailed);
  }
}

/** The room could not be joined again: forget it, saying why. */
export function resumeFailed({ code, message }) {
  if (LOST.has(code)) return;
  forgetRoom();
  dropRoom();
  showError(`Could not return to your room: ${message}`, code);
  update();
}

/** Leaves a room, quietly when offline; a room that closed meanwhile has been left already. */
function leave(id) {
  if (!app.conn.isOpen) return;
  app.conn.leave(id).catch((err) => {
    if (err.code !== 'unknown_room') refused(err);
  });
}

/** Forgets the current room and everything about its game, and shows the lobby. */
export function exitRoom() {
  dropRoom();
  forgetRoom();
  forgetRoomInAddress();
  dropNotice('share', 'invite', 'arrived');
  update();
}

/** Leaves the current room (if any) before going elsewhere. Returns false if the user said no. */
export function leaveCurrentRoom({ ask }) {
  if (!app.room) return true;
  const playing = app.room.role === 'player' && app.room.state?.status === 'playing';
  // Before the first move there is nothing to lose: the game is called off.
  const question = app.room.state?.moves === 0
    ? 'Leave this game? No move has been played yet, so it will be called off.'
    : 'Leave the game you are playing? Leaving a game in progress loses it.';
  if (playing && ask && !window.confirm(question)) {
    return false;
  }
  if (!app.room.detached) leave(app.room.id);
  exitRoom();
  return true;
}

/**
 * Checks the lobby's clock and leaves the current room, before starting something new;
 * returns the clock's time control, or null when the user has to fix something first.
 */
function readyForNewGame() {
  if (!requireOnline()) return null;
  const clock = chosenTimeControl();
  if (clock.error) {
    showError(clock.error, 'client_time_control');
    ui['time-control-base'].focus();
    return null;
  }
  if (!leaveCurrentRoom({ ask: true })) return null;
  hideError();
  showNotice('');
  app.pendingGame = app.lobbyGame;
  return clock.control;
}

/**
 * Creates a room with these seats (`me`, `open`, `bot:<level>`), and watches it when
 * asked to (two bots'). `botFill: false` makes a room that waits for the person its link
 * is sent to: no bot takes their seat unless this player asks for one (fillWithBot).
 */
export function createRoom(seats, { privateRoom = false, watch = false, botFill } = {}) {
  const control = readyForNewGame();
  if (control === null) return;
  const game = app.lobbyGame;
  const options = {};
  const start = ui['start-position'].value.trim();
  if (GAMES[game]?.startOption && start) options.start = start;
  if (hasClock(control)) options.time_control = control;
  if (privateRoom) options.private = true;
  if (typeof botFill === 'boolean') options.bot_fill = botFill;
  // A room that waits for a person fills itself unless it says otherwise (PROTOCOL.md §6.2.5).
  app.pendingBotFill = seats.includes('open') ? (botFill ?? !privateRoom) : null;
  send((c) => c.createRoom(game, seats, options).then(({ room }) => {
    if (watch) send((again) => again.watch(room));
  }));
}

/** Plays a person: sits opposite whoever waits for this game and clock, or waits for one. */
export function quickJoin() {
  const control = readyForNewGame();
  if (control === null) return;
  // Its rooms are public ones that give a bot the open seat after a while (§9.7).
  app.pendingBotFill = true;
  send((c) => c.quickJoin(app.lobbyGame, hasClock(control) ? control : undefined));
}

/**
 * A room's current state from `GET /api/rooms/{id}`: `{ gone: true }` if there is no
 * such room, `{ state }` otherwise (`state` null when it could not be read).
 */
async function readRoom(id) {
  try {
    const res = await fetch(`/api/rooms/${encodeURIComponent(id)}`, { headers: { accept: 'application/json' } });
    if (res.status === 404) return { gone: true };
    return { state: res.ok ? await res.json() : null };
  } catch {
    return { state: null };
  }
}

/**
 * Says, until the link is followed, what a `/?room=` link leads to: whose room, which
 * game, and whether a seat is open, so that whoever opens it knows before signing in.
 */
export async function announceLink() {
  const id = app.linkedRoom;
  if (!id) return;
  // A room gone or unreadable is told by followLink, once signed in.
  const { state } = await readRoom(id);
  if (app.linkedRoom !== id || !state) return;
  const seats = Array.isArray(state.seats) ? state.seats : [];
  const people = seats.filter((x) => x.kind === 'human' && x.name).map((x) => x.name);
  const game = gameTitle(state.game);
  const open = state.status === 'waiting' && seats.some((x) => x.kind === 'open');
  const whose = people.length ? `${people[0]}’s` : 'a';
  const text = open
    ? `You are invited to ${whose} game of ${game}: enter your name to take the open seat.`
    : `This link opens ${whose} game of ${game}: enter your name to watch it.`;
  update(() => { app.invitation = { open }; });
  showNotice(text, 'invitation');
}

/** Opens the room of a `/?room=` link: its open seat if there is one, else to watch. */
export async function followLink() {
  const id = app.linkedRoom;
  if (!id) return;
  app.linkedRoom = null;
  forgetRoomInAddress();
  dropNotice('invitation');
  if (app.room?.id === id) return;
  if (app.room) {
    showNotice('Leave the room you are in, then open the link again to go to the other room.');
    return;
  }
  // Watching still works without knowing the seats.
  const { gone, state } = await readRoom(id);
  if (gone) {
    showError('The room in that link no longer exists. Start a new game, or ask for a new link.', 'unknown_room');
    return;
  }
  if (app.room || !requireOnline()) return;
  const seats = Array.isArray(state?.seats) ? state.seats : [];
  const mine = seats.find((x) => app.me && x.player_id === app.me.player_id);
  const open = state?.status === 'waiting' ? seats.find((x) => x.kind === 'open') : null;
  app.pendingGame = typeof state?.game === 'string' ? state.game : null;
  if (mine || open) {
    send((c) => c.join(id, (mine ?? open).seat));
  } else {
    send((c) => c.watch(id));
  }
}

/** The lobby's clock choice as `options.time_control` (or an error to show). */
function chosenTimeControl() {
  return timeControlFromChoice(ui['time-control'].value, {
    baseSeconds: ui['time-control-base'].value,
    incrementSeconds: ui['time-control-increment'].value,
  });
}

/** The lobby's clock menu changed: show the custom fields for `custom`, and keep the choice. */
export function onTimeControlChange() {
  const value = ui['time-control'].value;
  ui['time-control-custom'].hidden = value !== 'custom';
  local.set(KEY_CLOCK, value);
}

/** Takes a seat of a listed room (or returns to one's own). */
export function joinRoom(roomId, seat) {
  if (app.room && app.room.id === roomId && app.room.seat === seat) return;
  if (!requireOnline()) return;
  if (!leaveCurrentRoom({ ask: true })) return;
  hideError();
  showNotice('');
  app.pendingGame = app.rooms.get(roomId)?.game ?? null;
  send((c) => c.join(roomId, seat));
}

/** Watches a listed room. */
export function watchRoom(roomId) {
  if (app.room && app.room.id === roomId) return;
  if (!requireOnline()) return;
  if (!leaveCurrentRoom({ ask: true })) return;
  hideError();
  showNotice('');
  app.pendingGame = app.rooms.get(roomId)?.game ?? null;
  send((c) => c.watch(roomId));
}

/** A spectator takes an open seat of the room being watched. */
export function takeSeat(seat) {
  const id = app.room.id;
  leave(id);
  exitRoom();
  send((c) => c.join(id, seat));
}

/** Share: copies the room's link for anyone, at any time (they watch, or take an open seat). */
export async function onShareLink() {
  if (!app.room) return;
  const id = app.room.id;
  const link = roomLink(id);
  showNotice(`Share this link to let someone watch: ${link}`, 'share');
  if (await copyText(link, null) && app.room?.id === id) {
    showNotice(`Link copied: ${link}. Whoever opens it watches this game.`, 'share');
  }
}

/** Copies the invitation link, or selects it where the clipboard is out of reach. */
export async function onCopyLink() {
  const copied = await copyText(ui['room-link'].value, ui['room-link']);
  showNotice(copied ? 'Link copied. Send it to the person you want to play.' : 'Select the link and copy it to send it.', 'invite');
}

// ---------------------------------------------------------------------------
// Playing

/** Drops the move being built on the board, if any. */
export function cancelPick() {
  if (!picking()) return;
  resetPick();
  update();
}

/** Drops every premove, queued or being picked, if there is any. */
export function cancelPremove() {
  if (!hasPremoves()) return;
  update(clearPremoves);
}

/** Sends a move, when it is this player's turn and no move is on its way already. */
export function sendMove(move) {
  const room = app.room;
  if (!room || !myTurn() || room.pendingMove) return;
  if (send((c) => c.move(room.id, move), moveRefused)) {
    room.pendingMove = true;
    resetPick();
    hideError();
    update();
  }
}

/** A move refused: another may be sent. */
function moveRefused(err) {
  if (!LOST.has(err.code) && app.room) app.room.pendingMove = false;
  refused(err);
}

/** Puts the Resign button back to its first, harmless click. */
export function disarmResign() {
  const room = app.room;
  if (!room?.resignArmed) return;
  clearTimeout(room.resignArmed);
  update(() => { room.resignArmed = null; }, 'resign');
}

/** Resign takes two clicks: the first arms it for a few seconds, the second resigns. */
export function onResign() {
  const room = app.room;
  if (!room) return;
  if (!room.resignArmed) {
    update(() => { room.resignArmed = setTimeout(disarmResign, 4000); }, 'resign');
    return;
  }
  disarmResign();
  send((c) => c.resign(room.id));
}

/** A request about the current game that needs nothing but the room: draw offers and answers. */
export function roomRequest(type) {
  if (!app.room || !requireOnline()) return;
  hideError();
  const id = app.room.id;
  send((c) => c.request({ type, room: id }));
}

/** "Play a bot instead": a bot of the level chosen beside the button takes the open seat of the room waited in. */
export function fillWithBot() {
  if (!app.room || !requireOnline()) return;
  hideError();
  const id = app.room.id;
  send((c) => c.fillWithBot(id, ui['fill-level'].value));
}

/**
 * Claims the game while the opponent is away (PROTOCOL.md §6.19): `kind` 'victory' or
 * 'draw'. A refusal says what it means for this player.
 */
export function claim(kind) {
  if (!app.room || !requireOnline()) return;
  hideError();
  const id = app.room.id;
  send((c) => (kind === 'draw' ? c.claimDraw(id) : c.claimVictory(id)), (err) => {
    if (err.code === 'opponent_present') {
      refused({ code: err.code, message: 'Your opponent is back (or a bot now plays for them), so there is nothing to claim: the game goes on.' });
    } else if (err.code === 'too_early_to_claim') {
      refused({ code: err.code, message: 'Too early: your opponent may still come back. The claim opens when the countdown under the status line ends.' });
    } else {
      refused(err);
    }
  });
}

/** Asks for (or accepts) a rematch of the finished game. */
export function onRematch() {
  if (!app.room || !requireOnline()) return;
  hideError();
  // After a reconnect the finished game is shown without its seat: take the seat back
  // first, or the server would not know this connection as a player of the room.
  if (app.room.detached && app.room.role === 'player' && typeof app.room.seat === 'number') {
    app.room.detached = false;
    const { id, seat } = app.room;
    send((c) => c.join(id, seat));
  }
  const id = app.room.id;
  send((c) => c.rematch(id));
}

/** Leave room / Stop watching. */
export function onLeave() {
  if (!app.room) return;
  if (!app.conn.isOpen || app.room.detached) {
    exitRoom();
    return;
  }
  leaveCurrentRoom({ ask: true });
}

// ---------------------------------------------------------------------------
// Signing in and the lobby's choices

/** The name form: checks the name, keeps it and connects. */
export function onConnect(event) {
  event.preventDefault();
  const name = ui['name-input'].value.trim();
  const length = [...name].length; // in code points, as the server counts
  if (length < 1 || length > NAME_MAX) {
    showError(`Enter a name of 1 to ${NAME_MAX} characters.`, 'client_name');
    ui['name-input'].focus();
    return;
  }
  hideError();
  showNotice('');
  app.me = null;
  local.set(KEY_NAME, name);
  connect();
}

/**
 * "Play a bot now", before any name: signs in under the name typed, or a guest name,
 * and as soon as the server has said welcome starts the game chosen on the first screen
 * (the lobby's game) against a bot of the level chosen there.
 */
export function playBotNow() {
  if (ui['name-input'].value.trim() === '') ui['name-input'].value = guestName();
  app.afterWelcome = 'bot';
  ui['bot-level'].value = ui['now-level'].value;
  ui['bot-side'].value = '0';
  ui['login-form'].requestSubmit();
}

/**
 * The invitation's own button, before any name: signs in under the name typed, or a
 * guest name; once signed in the link is followed (its open seat taken, or watched).
 */
export function onFollowLinkNow() {
  if (ui['name-input'].value.trim() === '') ui['name-input'].value = guestName();
  ui['login-form'].requestSubmit();
}

/** A guest's name: "Guest" and four digits. */
export function guestName() {
  return `Guest ${String(Math.floor(1000 + Math.random() * 9000))}`;
}

/** What was asked for before signing in, once signed in: a bot game for "Play a bot now". */
export function startAfterWelcome() {
  const wanted = app.afterWelcome;
  app.afterWelcome = null;
  if (wanted === 'bot' && !app.room) playBot();
}

/** A game against the bot chosen in the lobby, on the side chosen there. */
export function playBot() {
  const bot = `bot:${ui['bot-level'].value}`;
  createRoom(ui['bot-side'].value === '1' ? [bot, 'me'] : ['me', bot]);
}

/** Change name: signs out and goes back to the name form. */
export function onChangeName() {
  if (app.room && !leaveCurrentRoom({ ask: true })) return;
  closeSocket();
  update(() => { app.me = null; });
  // Drawn at once: the name form is hidden until then, and a hidden field takes no focus.
  flush();
  ui['name-input'].value = local.get(KEY_NAME) ?? '';
  ui['name-input'].focus();
  ui['name-input'].select();
}

/** Chooses the game the lobby starts (its side names and start position show with it). */
export function setLobbyGame(game) {
  update(() => { app.lobbyGame = game; });
}

// ---------------------------------------------------------------------------
// The room's chat (PROTOCOL.md §6.17)

/** Says a line in the room's chat; false when there was nothing to say or it could not be sent. */
export function say(text) {
  const line = text.trim();
  if (!line || !app.room) return false;
  const id = app.room.id;
  return send((c) => c.chat(id, line));
}

/** Hides a player's chat lines in this browser, and remembers that there. */
export function mutePlayer(playerId, name) {
  update(() => local.set(KEY_MUTED, JSON.stringify({ ...mutedPlayers(), [playerId]: name })), 'chat');
}

/** Shows a muted player's chat lines again. */
export function unmutePlayer(playerId) {
  const all = mutedPlayers();
  delete all[playerId];
  update(() => local.set(KEY_MUTED, JSON.stringify(all)), 'chat');
}
