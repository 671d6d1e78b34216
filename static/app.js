// Parlor web client: plain ES modules, no dependencies, no build step. This module holds
// the page: what is shown and what the buttons do. The other modules each do one thing:
// connection.js the socket and its reconnection, boards/ draws each game's board,
// moves.js turns clicks into moves, drag.js turns drags into the same clicks, lobby.js
// keeps the live room list and rooms.js draws it, sides.js names seats and sides,
// link.js makes and follows room links, leaderboard.js the leaderboard, recent.js the
// player's recent games, replay.js steps through stored games, time.js formats clocks,
// dom.js creates elements.
//
// The page renders only what the server sends: the board from `board.cells` and
// `board.labels`, the clickable cells from the paths of `legal_moves`, whose turn from
// `to_move`. It knows no rules. How each game looks lives in boards/, how clicks on
// cells become moves in moves.js.
// Every piece of data from the server or the user is written with textContent, never
// as HTML, so names like `<img src=x onerror=...>` are shown literally.
//
// Clocks count down between states from the `remaining_ms` each state carries; the
// server alone decides when time runs out. This page keeps the boards it is shown, so
// that replays can draw them (it cannot work out a position from the moves: that would
// need the rules).

import {
  GAMES, PROMOTION_NAMES, gameTitle, sidesOf, topSeatOf, buildGrid, paintGrid, pieceElement,
} from './boards/index.js';
import { movePath, indexMoves, optionsAfter, clickOutcome } from './moves.js';
import {
  timeControlFromChoice, hasClock, timeControlLabel, timeControlDescription, formatClock, formatDuration,
} from './time.js';
import { RoomList } from './lobby.js';
import { RoomListView } from './rooms.js';
import { sideName, sideBadge, botLevel, seatName, roomLabel } from './sides.js';
import { roomLink, roomFromAddress, forgetRoomInAddress, copyText } from './link.js';
import { enableDrag } from './drag.js';
import { Connection } from './connection.js';
import { el, button, capitalise } from './dom.js';
import { ReplayView } from './replay.js';
import { Leaderboard } from './leaderboard.js';
import { RecentGames } from './recent.js';

const PROTOCOL = 1;
const DEFAULT_GAME = 'tictactoe';
const ERROR_VISIBLE_MS = 15000;
const NAME_MAX = 24;

// End reasons as phrases. `loser` is "Name (Side)"; isYou says the loser is this player.
const REASONS = {
  three_in_a_row: () => 'three in a row',
  board_full: () => 'the board is full',
  resigned: (loser, isYou) => (isYou ? 'you resigned' : `${loser} resigned`),
  abandoned: (loser, isYou) => (isYou ? 'you left the game' : `${loser} left the game`),
  checkmate: (loser, isYou) => (isYou ? 'you were checkmated' : `${loser} was checkmated`),
  stalemate: () => 'stalemate: the side to move has no legal move and is not in check',
  insufficient_material: () => 'neither side has enough material left to checkmate',
  threefold_repetition: () => 'the same position occurred three times',
  fifty_moves: () => 'the fifty-move rule: no capture or pawn move for fifty moves',
  forty_moves: () => 'the forty-move rule: no capture or man move for forty moves',
  no_moves: (loser, isYou) => (isYou ? 'you have no legal move left' : `${loser} has no legal move left`),
  fox_trapped: () => 'the fox is trapped and cannot move',
  geese_stuck: () => 'the geese cannot move',
  geese_below_threshold: () => 'too few geese are left to trap the fox',
  quiet_moves: () => 'too many moves in a row without a capture',
  timeout: (loser, isYou) => (isYou ? 'you ran out of time' : `${loser} ran out of time`),
  timeout_vs_insufficient_material: (loser, isYou) => (isYou
    ? 'you ran out of time, but your opponent has too little material left to checkmate, so it is a draw'
    : `${loser} ran out of time, but the other side has too little material left to checkmate, so it is a draw`),
  aborted: () => 'a first move was not made in time, so the game was called off and does not count',
  draw_agreed: () => 'the players agreed to a draw',
};

const KEY_TOKEN = 'parlor.token';
const KEY_NAME = 'parlor.name';
const KEY_GAME = 'parlor.game'; // the game last chosen in the lobby
const KEY_ROOM = 'parlor.room'; // per tab (sessionStorage): the room to return to after a reload
const KEY_CLOCK = 'parlor.clock'; // the clock last chosen in the lobby
const KEY_FILTER = 'parlor.rooms-filter'; // the game the room list is limited to ('' for all)
const CLOCK_TICK_MS = 100;
const LOW_TIME_MS = 10000;
const SEEN_GAMES_MAX = 8; // games whose boards are kept in memory for replays

// ---------------------------------------------------------------------------
// Small helpers

/** The element with this data-testid. */
const byTestId = (id, root = document) => root.querySelector(`[data-testid="${id}"]`);

/** localStorage / sessionStorage that never throws (private modes may refuse). */
function storage(kind) {
  const area = () => {
    try { return window[kind]; } catch { return null; }
  };
  return {
    get(key) { try { return area()?.getItem(key) ?? null; } catch { return null; } },
    set(key, value) { try { area()?.setItem(key, value); } catch { /* not kept; fine */ } },
    remove(key) { try { area()?.removeItem(key); } catch { /* fine */ } },
  };
}
const local = storage('localStorage');
const session = storage('sessionStorage');


/** The game of the current room (known once its first state arrives). */
function currentGame() {
  return app.state?.game ?? app.room?.game ?? DEFAULT_GAME;
}

/** The name of a seat's side ("X", "White", "Geese", ...), in the current game by default. */
function markOf(seat, game = currentGame(), state = app.state) {
  return sideName(seat, game, state);
}

/** A badge of a seat's side, in the current game by default. */
function markEl(seat, game = currentGame(), state = app.state) {
  return sideBadge(seat, game, state);
}

function codePoints(text) {
  return [...text].length;
}

// ---------------------------------------------------------------------------
// Client state

const app = {
  /** The socket to the server; it reconnects by itself while the user wants to be online. */
  conn: null,
  /** Set once `welcome` arrives on the current socket. */
  ready: false,
  me: null, // { player_id, name, token }
  room: null, // { id, seat: number|null, role: 'player'|'spectator', game? }
  state: null, // the last `state` of the current room
  over: null, // the `game_over` of the current game, if seen
  moves: [], // move strings of the current game
  pendingMove: false,
  pendingGame: null, // the game of the room being created, until its state arrives
  // The move being built on the board: the labels clicked so far, and the moves to
  // choose between when several share that path (chess promotion).
  pick: { key: '', sel: [], choices: null },
  lobbyGame: DEFAULT_GAME,
  boardHadFocus: null, // label of the board cell that last had the keyboard focus
  rooms: new RoomList(),
  roomList: null, // the rooms card (rooms.js)

  /** A room from a `/?room=` link, to open once signed in. */
  linkedRoom: null,
  errorTimer: null,
  resignArmed: null,
  clockAt: 0, // performance.now() when the current state arrived: its clocks are as of then
  clockTimer: null,
  drawNote: '', // what became of this player's draw offer, until the next move
  seen: new Map(), // game_id → { game, boards: [board after n moves], flipped, sides }
  replay: null, // the replay card (replay.js)
  recent: null, // the recent games card (recent.js)
};

const ui = {};

function bindUi() {
  for (const id of [
    'connection', 'reconnect', 'error', 'notice', 'login-form', 'name-input', 'connect',
    'me', 'change-name', 'quick-join', 'open-room', 'private-room', 'play-bot', 'bot-level', 'bot-side', 'person-side',
    'bot2-level', 'bot-vs-bot', 'rooms-filter', 'invite', 'room-link', 'copy-link',
    'game-pick', 'new-title', 'start-options', 'start-label', 'start-position',
    'game-name', 'room-id', 'spectators', 'seats', 'status', 'board', 'move-helper', 'result',
    'moves', 'resign', 'leave', 'rooms-empty', 'room-list',
    'leaderboard', 'leaderboard-note', 'leaderboard-game', 'leaderboard-by',
    'room-time-control', 'draw-panel', 'offer-draw',
    'time-control', 'time-control-custom', 'time-control-base', 'time-control-increment',
    'replay', 'replay-title', 'replay-close', 'replay-info', 'replay-board', 'replay-missing',
    'replay-first', 'replay-back', 'replay-step', 'replay-forward', 'replay-last', 'replay-moves', 'replay-pgn', 'replay-pdn',
    'recent-games', 'recent-empty',
  ]) {
    ui[id] = byTestId(id);
  }
  ui.login = document.getElementById('login');
  ui.lobby = document.getElementById('lobby');
  ui.game = document.getElementById('game');
  ui.roomTemplate = document.getElementById('room-item');
}

// ---------------------------------------------------------------------------
// Messages to the user

function showError(message, code) {
  const box = ui.error;
  box.querySelector('.text').textContent = message;
  box.dataset.code = code ?? '';
  box.dataset.count = String(Number(box.dataset.count || 0) + 1);
  box.hidden = false;
  clearTimeout(app.errorTimer);
  app.errorTimer = setTimeout(hideError, ERROR_VISIBLE_MS);
}

function hideError() {
  clearTimeout(app.errorTimer);
  ui.error.hidden = true;
}

function showNotice(message, kind = 'info') {
  ui.notice.dataset.kind = kind;
  ui.notice.textContent = message;
  ui.notice.hidden = !message;
}

/** What the connection pill says for a state when the connection gives no text. */
const CONNECTION_LABELS = { offline: 'not signed in' };

function setConnection(stateName, text) {
  ui.connection.dataset.state = stateName;
  ui.connection.textContent = text ?? CONNECTION_LABELS[stateName] ?? stateName;
  ui.reconnect.hidden = stateName !== 'reconnecting';
}

// ---------------------------------------------------------------------------
// The socket

function isOpen() {
  return app.conn.isOpen;
}

function send(message) {
  if (!app.conn.send(message)) {
    showError('Not connected to the server. Wait for it to reconnect, or use Reconnect now, and try again.', 'client_offline');
    return false;
  }
  return true;
}

/** True when signed in on an open socket; otherwise says so on the error line. */
function requireOnline() {
  if (isOpen() && app.ready) return true;
  showError('Not connected to the server. Wait for it to reconnect, or use Reconnect now, and try again.', 'client_offline');
  return false;
}

function hello() {
  const name = local.get(KEY_NAME) ?? ui['name-input'].value.trim();
  const msg = { type: 'hello', name, ref: 'hello' };
  const token = local.get(KEY_TOKEN);
  if (token) msg.token = token;
  send(msg);
}

/** Connects (or reconnects at once), signing in when the socket opens. */
function connect() {
  app.ready = false;
  app.conn.start();
}

/** What the connection reports: the socket opened, closed, or could not be made. */
const connectionHooks = {
  open: hello,
  message: dispatch,
  status: setConnection,
  failed: (message) => showError(message, 'client_socket'),
  closed() {
    app.ready = false;
    app.rooms.clear();
    render();
  },
};

function closeSocket() {
  app.ready = false;
  app.rooms.clear();
  app.conn.stop();
}

/** Asks for the live room list of the game chosen in the filter (all games if none). */
function subscribeLobby() {
  if (!isOpen() || !app.ready) return;
  const game = ui['rooms-filter'].value;
  const msg = { type: 'subscribe_lobby', ref: 'lobby' };
  if (game) msg.game = game;
  app.conn.send(msg);
}

// ---------------------------------------------------------------------------
// Incoming messages

const handlers = {
  welcome(m) {
    app.ready = true;
    app.conn.succeeded();
    app.me = { player_id: m.player_id, name: m.name, token: m.token };
    if (m.token) local.set(KEY_TOKEN, m.token);
    if (m.name) local.set(KEY_NAME, m.name);
    setConnection('online');
    if (ui.notice.dataset.kind === 'shutdown') showNotice('');
    if (typeof m.protocol === 'number' && m.protocol !== PROTOCOL) {
      showNotice(`The server speaks protocol ${m.protocol}; this page was written for ${PROTOCOL}. Reload to update.`);
    }
    resumeRoom();
    followLink();
    subscribeLobby();
    app.recent.load();
    render();
  },

  room_created(m) {
    // `joined` and `state` follow when we took a seat; two bots' room is watched.
    if (m.ref === 'bots' && typeof m.room === 'string') send({ type: 'watch', room: m.room, ref: 'watch' });
  },

  joined(m) {
    const seat = typeof m.seat === 'number' ? m.seat : null;
    const sameRoom = app.room && app.room.id === m.room;
    const known = sameRoom ? app.room.game : app.rooms.get(m.room)?.game;
    app.room = { id: m.room, seat, role: m.role === 'player' ? 'player' : 'spectator' };
    const game = known ?? (['create', 'quick', 'watch', 'join'].includes(m.ref) ? app.pendingGame : null);
    if (game) app.room.game = game;
    if (!sameRoom) {
      app.state = null;
      app.over = null;
      app.moves = [];
      app.drawNote = '';
      app.replay.close({ focus: false });
    }
    app.pendingMove = false;
    rememberRoom();
    render();
  },

  state(m) {
    if (!app.room || m.room !== app.room.id) return;
    const previous = app.state;
    const sameGame = previous && previous.game_id === m.game_id;
    if (sameGame && typeof m.seq === 'number' && typeof previous.seq === 'number' && m.seq < previous.seq) return;
    if (!sameGame) app.over = null;
    // The moves as players write them (SAN in chess), from the snapshot and each state.
    if (Array.isArray(m.history_display) || Array.isArray(m.history)) {
      app.moves = (m.history_display ?? m.history).map(String);
    } else if (!sameGame) {
      app.moves = [];
    }
    if (typeof m.moves === 'number') {
      if (m.last_move && app.moves.length === m.moves - 1) app.moves.push(String(m.last_move.display ?? m.last_move.move));
      if (app.moves.length > m.moves) app.moves.length = m.moves;
    }
    // A state that changes nothing in the game (a spectator came, say) does not answer
    // the move in flight: that one is answered by a state with one more move, or an error.
    const unanswered = app.pendingMove && sameGame && m.status === 'playing' && m.moves === previous.moves;
    app.state = m;
    app.clockAt = performance.now();
    if (!unanswered) app.pendingMove = false;
    followMySeat(m);
    noteDrawAnswer(previous, m, sameGame);
    keepBoard(m);
    // A new game in this room (a rematch) takes over from a replay of the last one.
    if (!sameGame && m.status === 'playing') app.replay.close({ focus: false });
    if (typeof m.game === 'string' && app.room.game !== m.game) {
      app.room.game = m.game;
      rememberRoom();
      app.leaderboard.show(m.game);
    }
    if (m.status === 'finished') forgetRoom();
    else if (app.room.role === 'player') rememberRoom(); // again, after a rematch
    render();
  },

  game_over(m) {
    app.leaderboard.load();
    if (!app.room || m.room !== app.room.id) return;
    app.over = m;
    app.recent.load();
    forgetRoom();
    render();
  },

  left(m) {
    if (app.room && m.room === app.room.id) exitRoom();
  },

  replaced(m) {
    if (app.room && m.room === app.room.id) {
      exitRoom();
      showNotice('Your seat was taken over by another tab or window of yours, so this page stopped playing it.');
    }
  },

  shutdown(m) {
    showNotice(`${m.message || 'The server is stopping.'} This page reconnects by itself.`, 'shutdown');
  },

  rooms(m) {
    app.rooms.reset(m.rooms);
    app.roomList.render();
  },

  lobby(m) {
    app.rooms.reset(m.rooms);
    app.roomList.render();
  },

  lobby_update(m) {
    app.rooms.apply(m);
    app.roomList.render();
  },

  error(m) {
    const message = m.message || `The server refused that (${m.code || 'error'}).`;
    if (m.ref === 'hello') {
      // Still signing in: send the user back to the name form.
      if (typeof m.code === 'string' && m.code.includes('token')) local.remove(KEY_TOKEN);
      closeSocket();
      app.me = null;
      showError(message, m.code);
      render();
      ui['name-input'].focus();
      return;
    }
    if (m.ref === 'resume') {
      forgetRoom();
      app.room = null;
      app.state = null;
      app.over = null;
      showError(`Could not return to your room: ${message}`, m.code);
      render();
      return;
    }
    if (m.ref === 'move') app.pendingMove = false;
    showError(message, m.code);
    render();
  },
};

function dispatch(msg) {
  const handler = Object.hasOwn(handlers, msg.type) ? handlers[msg.type] : null;
  if (handler) handler(msg);
  // Unknown message types are ignored: the protocol grows.
}

// ---------------------------------------------------------------------------
// Following the game: seats after a rematch, draw answers, boards for replays

/** After a rematch the seats are swapped: find this player's seat again by player id. */
function followMySeat(s) {
  if (!app.room || app.room.role !== 'player' || !app.me || !Array.isArray(s.seats)) return;
  const mine = s.seats.find((x) => x.player_id && x.player_id === app.me.player_id);
  if (mine && mine.seat !== app.room.seat) {
    app.room.seat = mine.seat;
    app.orientation = null;
    resetPick('');
  }
}

/** Notes what became of this player's draw offer: declined, or lapsed by a move. */
function noteDrawAnswer(previous, s, sameGame) {
  if (!sameGame || !previous || app.room?.role !== 'player' || s.status !== 'playing') {
    app.drawNote = '';
    return;
  }
  const me = app.room.seat;
  if (previous.draw_offer === me && s.draw_offer !== me) {
    const other = s.seats?.find((x) => x.seat === 1 - me);
    app.drawNote = s.moves !== previous.moves
      ? `${seatName(other)} moved instead of answering, so your draw offer lapsed.`
      : `${seatName(other)} declined your draw offer.`;
  } else if (s.moves !== previous.moves) {
    app.drawNote = '';
  }
}

/** Keeps each board the page is shown, indexed by the number of moves played, for replays. */
function keepBoard(s) {
  if (typeof s.game_id !== 'string' || !s.board || typeof s.moves !== 'number') return;
  let entry = app.seen.get(s.game_id);
  if (!entry) {
    entry = { game: s.game, boards: [], flipped: false, sides: null };
    app.seen.set(s.game_id, entry);
    while (app.seen.size > SEEN_GAMES_MAX) app.seen.delete(app.seen.keys().next().value);
  }
  entry.boards[s.moves] = s.board;
  const game = typeof s.game === 'string' ? s.game : currentGame();
  entry.flipped = isFlipped(game, s);
  const sides = sidesOf(game, s);
  if (sides.known) entry.sides = sides.names;
}

// ---------------------------------------------------------------------------
// Clocks

/** A seat's time left now: counted down from the state's reading if its clock runs. */
function clockLeft(s, seat, now = performance.now()) {
  const c = s?.clocks;
  if (!c || !Array.isArray(c.remaining_ms)) return null;
  const base = Number(c.remaining_ms[seat]);
  if (!Number.isFinite(base)) return null;
  if (c.running === seat && s.status === 'playing') return Math.max(0, base - (now - app.clockAt));
  return base;
}

/** Writes both clocks' readings; called on every render and every tick while one runs. */
function updateClocks() {
  const s = app.state;
  const now = performance.now();
  for (const node of ui.seats.querySelectorAll('.clock')) {
    const seat = Number(node.dataset.seat);
    const left = clockLeft(s, seat, now);
    if (left === null) continue;
    const running = s.status === 'playing' && s.clocks?.running === seat;
    // Under ten seconds a clock turns red; a per-move clock only while it runs (it
    // starts each turn afresh) or once it has run out.
    const low = left < LOW_TIME_MS && (running || left === 0 || s.time_control?.kind !== 'per_move');
    const text = formatClock(left);
    if (node.textContent !== text) {
      node.textContent = text;
      node.setAttribute('aria-label', `${node.dataset.side}'s clock: ${text}`);
    }
    node.dataset.running = running ? 'true' : 'false';
    node.dataset.low = low ? 'true' : 'false';
    node.classList.toggle('running', running);
    node.classList.toggle('low', low);
  }
}

/** Runs the clock display while a clock runs (and only then). */
function syncClockTicker() {
  const s = app.state;
  const live = Boolean(app.room && !ui.game.hidden && s?.status === 'playing' && s.clocks &&
    typeof s.clocks.running === 'number');
  if (live && !app.clockTimer) app.clockTimer = setInterval(updateClocks, CLOCK_TICK_MS);
  if (!live && app.clockTimer) {
    clearInterval(app.clockTimer);
    app.clockTimer = null;
  }
}


// ---------------------------------------------------------------------------
// Rooms: remembering, resuming, leaving

function rememberRoom() {
  if (app.room) session.set(KEY_ROOM, JSON.stringify(app.room));
}

function forgetRoom() {
  session.remove(KEY_ROOM);
}

function resumeRoom() {
  let held = app.room;
  if (!held) {
    try {
      held = JSON.parse(session.get(KEY_ROOM) ?? 'null');
    } catch {
      held = null;
    }
  }
  if (!held || typeof held.id !== 'string') return;
  if (app.state?.status === 'finished' && app.room) {
    // Nothing left to play: keep showing the final board without rejoining.
    app.room.detached = true;
    return;
  }
  app.room = held;
  if (held.role === 'player' && typeof held.seat === 'number') {
    send({ type: 'join', room: held.id, seat: held.seat, ref: 'resume' });
  } else {
    send({ type: 'watch', room: held.id, ref: 'resume' });
  }
}

function exitRoom() {
  resetPick('');
  app.orientation = null;
  app.room = null;
  app.state = null;
  app.over = null;
  app.moves = [];
  app.pendingMove = false;
  disarmResign();
  forgetRoom();
  render();
}

/** Leaves the current room (if any) before going elsewhere. Returns false if the user said no. */
function leaveCurrentRoom({ ask }) {
  if (!app.room) return true;
  const playing = app.room.role === 'player' && app.state?.status === 'playing';
  if (playing && ask && !window.confirm('Leave the game you are playing? Leaving a game in progress loses it.')) {
    return false;
  }
  if (!app.room.detached) app.conn.send({ type: 'leave', room: app.room.id });
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

/** Creates a room with these seats (`me`, `open`, `bot:<level>`); `ref` says what follows. */
function createRoom(seats, { privateRoom = false, ref = 'create' } = {}) {
  const control = readyForNewGame();
  if (control === null) return;
  const game = app.lobbyGame;
  const options = {};
  const start = ui['start-position'].value.trim();
  if (GAMES[game]?.startOption && start) options.start = start;
  if (hasClock(control)) options.time_control = control;
  if (privateRoom) options.private = true;
  send({ type: 'create_room', game, seats, options, ref });
}

/** Plays a person: sits opposite whoever waits for this game and clock, or waits for one. */
function quickJoin() {
  const control = readyForNewGame();
  if (control === null) return;
  const msg = { type: 'quick_join', game: app.lobbyGame, ref: 'quick' };
  if (hasClock(control)) msg.time_control = control;
  send(msg);
}

/** Opens the room of a `/?room=` link: its open seat if there is one, else to watch. */
async function followLink() {
  const id = app.linkedRoom;
  if (!id) return;
  app.linkedRoom = null;
  forgetRoomInAddress();
  if (app.room?.id === id) return;
  if (app.room) {
    showNotice('Leave the room you are in, then open the link again to go to the other room.');
    return;
  }
  let state = null;
  try {
    const res = await fetch(`/api/rooms/${encodeURIComponent(id)}`, { headers: { accept: 'application/json' } });
    if (res.status === 404) {
      showError('The room in that link no longer exists. Start a new game, or ask for a new link.', 'unknown_room');
      return;
    }
    if (res.ok) state = await res.json();
  } catch {
    // Watching still works without knowing the seats.
  }
  if (app.room || !requireOnline()) return;
  const seats = Array.isArray(state?.seats) ? state.seats : [];
  const mine = seats.find((x) => app.me && x.player_id === app.me.player_id);
  const open = state?.status === 'waiting' ? seats.find((x) => x.kind === 'open') : null;
  app.pendingGame = typeof state?.game === 'string' ? state.game : null;
  if (mine || open) {
    send({ type: 'join', room: id, seat: (mine ?? open).seat, ref: 'join' });
  } else {
    send({ type: 'watch', room: id, ref: 'watch' });
  }
}

/** The lobby's clock choice as `options.time_control` (or an error to show). */
function chosenTimeControl() {
  return timeControlFromChoice(ui['time-control'].value, {
    baseSeconds: ui['time-control-base'].value,
    incrementSeconds: ui['time-control-increment'].value,
  });
}

function onTimeControlChange() {
  const value = ui['time-control'].value;
  ui['time-control-custom'].hidden = value !== 'custom';
  local.set(KEY_CLOCK, value);
}

function joinRoom(roomId, seat) {
  if (app.room && app.room.id === roomId && app.room.seat === seat) return;
  if (!requireOnline()) return;
  if (!leaveCurrentRoom({ ask: true })) return;
  hideError();
  showNotice('');
  app.pendingGame = app.rooms.get(roomId)?.game ?? null;
  send({ type: 'join', room: roomId, seat, ref: 'join' });
}

function watchRoom(roomId) {
  if (app.room && app.room.id === roomId) return;
  if (!requireOnline()) return;
  if (!leaveCurrentRoom({ ask: true })) return;
  hideError();
  showNotice('');
  app.pendingGame = app.rooms.get(roomId)?.game ?? null;
  send({ type: 'watch', room: roomId, ref: 'watch' });
}

// ---------------------------------------------------------------------------
// Rendering

function render() {
  const signedIn = app.me !== null;
  ui.login.hidden = signedIn;
  ui.me.textContent = app.me?.name ?? '';
  const inRoom = app.room !== null;
  const finished = app.state?.status === 'finished';
  ui.lobby.hidden = !signedIn || (inRoom && !finished && app.room.role === 'player');
  // A replay takes the game's place until it is closed.
  ui.game.hidden = !inRoom || app.replay.current !== null;
  ui.replay.hidden = app.replay.current === null;
  if (inRoom) renderGame();
  syncClockTicker();
  document.title = titleText();
  app.roomList.render();
  app.recent.render();
}

function titleText() {
  if (myTurn()) return 'Your turn · Parlor';
  return 'Parlor';
}

function myTurn() {
  const s = app.state;
  return Boolean(
    app.room && s && app.ready && app.room.role === 'player' && s.status === 'playing' &&
      s.to_move === app.room.seat,
  );
}

function renderGame() {
  const s = app.state;
  ui['game-name'].textContent = gameTitle(currentGame());
  ui['room-id'].textContent = roomLabel(app.room.id);
  ui['room-id'].title = `Room ${app.room.id}`;
  ui.spectators.textContent = s ? `${s.spectators ?? 0} watching` : '';
  const clock = s?.time_control;
  const tcPill = ui['room-time-control'];
  tcPill.hidden = !hasClock(clock);
  tcPill.textContent = hasClock(clock) ? `Clock ${timeControlLabel(clock)}` : '';
  tcPill.title = timeControlDescription(clock);
  renderSeats(s);
  renderInvite(s);
  renderBoard(s);
  ui.board.dataset.gameId = s?.game_id ?? '';
  ui.status.textContent = statusText(s);
  ui.status.dataset.turn = myTurn() ? 'mine' : 'theirs';
  renderDrawPanel(s);
  renderResult(s);
  renderMoves(s);
  const playing = app.room.role === 'player' && s?.status === 'playing';
  ui.resign.hidden = !playing;
  if (!playing) disarmResign();
  // Offer draw: while playing; "Draw offered" once offered; hidden while the opponent's
  // offer waits for an answer (the panel above the board answers it).
  const offer = playing && typeof s.draw_offer === 'number' ? s.draw_offer : null;
  const offerButton = ui['offer-draw'];
  offerButton.hidden = !playing || (offer !== null && offer !== app.room.seat);
  offerButton.disabled = offer === app.room.seat;
  offerButton.textContent = offer === app.room.seat ? 'Draw offered' : 'Offer draw';
  ui.leave.textContent = app.room.role === 'spectator' ? 'Stop watching' : 'Leave room';
}

/** The link to share while this player waits for an opponent. */
function renderInvite(s) {
  const show = app.room.role === 'player' && s?.status === 'waiting' && Boolean(s.seats?.some((x) => x.kind === 'open'));
  ui.invite.hidden = !show;
  if (show) {
    const link = roomLink(app.room.id);
    if (ui['room-link'].value !== link) ui['room-link'].value = link;
  }
}

async function onCopyLink() {
  const copied = await copyText(ui['room-link'].value, ui['room-link']);
  showNotice(copied ? 'Link copied. Send it to the person you want to play.' : 'Select the link and copy it to send it.');
}

function renderSeats(s) {
  const list = ui.seats;
  list.replaceChildren();
  if (!s || !Array.isArray(s.seats)) return;
  for (const seat of s.seats) {
    const item = el('li', 'seat');
    item.dataset.testid = `seat-${seat.seat}`;
    if (s.status === 'playing' && s.to_move === seat.seat) item.classList.add('to-move');
    item.append(markEl(seat.seat));
    if (currentGame() !== 'tictactoe') item.append(el('span', 'side-name', markOf(seat.seat)));
    const name = el('span', 'seat-name', seatName(seat));
    if (seat.kind === 'open') name.classList.add('open');
    item.append(name);
    if (typeof seat.rating === 'number') {
      const rating = el('span', 'rating', String(seat.rating));
      rating.dataset.testid = `rating-${seat.seat}`;
      rating.title = `Rating in ${gameTitle(currentGame())}`;
      rating.setAttribute('aria-label', `rating ${seat.rating}`);
      item.append(rating);
    }
    const mine = app.me && seat.player_id && seat.player_id === app.me.player_id;
    if (mine) item.append(el('span', 'tag you', 'you'));
    if (app.me && seat.stand_in_for?.player_id === app.me.player_id) {
      item.append(el('span', 'tag away', 'away: join your seat again to play on'));
    }
    const level = botLevel(seat.kind);
    if (level) {
      item.append(el('span', 'tag bot', `bot · ${level}`));
    } else if (seat.kind !== 'open') {
      // Our own seat is only as connected as this page is.
      const online = seat.connected !== false && (!mine || app.ready);
      const tag = el('span', `tag ${online ? 'online' : 'away'}`, online ? 'connected' : 'not connected');
      item.append(tag);
    }
    if (seat.kind === 'open' && app.room.role === 'spectator' && s.status !== 'finished') {
      item.append(button('Take this seat', `seat-join-${seat.seat}`, () => {
        app.conn.send({ type: 'leave', room: app.room.id });
        const id = app.room.id;
        exitRoom();
        send({ type: 'join', room: id, seat: seat.seat, ref: 'join' });
      }, 'small'));
    }
    if (s.clocks && Array.isArray(s.clocks.remaining_ms)) {
      const clock = el('span', 'clock');
      clock.dataset.testid = `clock-${seat.seat}`;
      clock.dataset.seat = String(seat.seat);
      clock.dataset.side = markOf(seat.seat);
      clock.setAttribute('role', 'timer');
      item.append(clock);
    }
    list.append(item);
  }
  updateClocks();
}

/** The state's board if it can be drawn as a grid, else null. */
function gridOf(s) {
  const b = s?.board;
  if (!b || b.layout !== 'grid') return null;
  const rows = Number(b.rows);
  const cols = Number(b.cols);
  if (!Number.isInteger(rows) || !Number.isInteger(cols) || rows < 1 || cols < 1 || rows * cols > 400) return null;
  return b;
}

/** The sides of the seats and the board's orientation, kept for the whole game once known. */
function orientation(game, s) {
  const cacheKey = `${app.room?.id}|${s?.game_id ?? ''}|${game}`;
  const cached = app.orientation;
  if (cached && cached.key === cacheKey) return cached;
  const sides = sidesOf(game, s);
  const top = topSeatOf(game, s, sides);
  const result = { key: cacheKey, sides, top };
  // Only keep what the state showed for certain; defaults are worked out again next time.
  if (sides.known && s?.game_id) app.orientation = result;
  return result;
}

function isFlipped(game, s) {
  const { top } = orientation(game, s);
  return top !== null && app.room?.role === 'player' && app.room.seat === top;
}

function resetPick(key = app.pick.key) {
  app.pick = { key, sel: [], choices: null };
}

function pickKey(s) {
  return JSON.stringify([app.room?.id, s?.game_id ?? null, s?.to_move ?? null, s?.legal_moves ?? []]);
}

function renderBoard(s) {
  const boardEl = ui.board;
  const game = currentGame();
  const canPlay = myTurn() && !app.pendingMove;
  const legal = Array.isArray(s?.legal_moves) ? s.legal_moves.map(String) : [];
  const key = pickKey(s);
  if (app.pick.key !== key || !canPlay) resetPick(key);
  // For tests and tools: what the page is showing, straight from the state.
  boardEl.dataset.game = game;
  boardEl.dataset.seq = String(s?.seq ?? '');
  boardEl.dataset.legal = JSON.stringify(legal);
  boardEl.dataset.mine = canPlay ? 'true' : 'false';
  boardEl.setAttribute('aria-busy', app.pendingMove ? 'true' : 'false');
  boardEl.setAttribute('aria-label', `${gameTitle(game)} board`);

  const board = gridOf(s);
  if (!board) {
    // Nothing to draw yet, or a layout this page does not know: show the position text.
    boardEl.hidden = !s;
    delete boardEl.dataset.shape;
    boardEl._cells = null;
    boardEl.className = 'board game-other fallback';
    const text = el('pre', 'position', s ? String(s.position ?? '') : '');
    boardEl.replaceChildren(text);
    renderHelper(game, indexMoves(game, legal, null).entries, false, canPlay);
    return;
  }
  boardEl.hidden = false;
  boardEl.classList.remove('fallback');
  boardEl.classList.toggle('active', canPlay);
  const { entries, mappable } = indexMoves(game, legal, board);
  const flipped = isFlipped(game, s);
  const cells = buildGrid(boardEl, game, board, flipped);
  boardEl.classList.toggle('flipped', flipped);
  const sel = app.pick.sel;
  const lastPath = s.last_move ? movePath(game, String(s.last_move.move)).path : [];
  const interactive = canPlay && mappable;
  paintGrid(cells, {
    game,
    board,
    last: new Set(lastPath),
    selected: sel,
    targets: interactive && sel.length && !app.pick.choices ? optionsAfter(entries, sel).next : new Set(),
    starts: interactive ? optionsAfter(entries, []).next : new Set(),
    interactive,
    selecting: sel.length > 0,
  });
  renderHelper(game, entries, mappable, canPlay);
  restoreBoardFocus(canPlay);
}

/** A readable list of labels: "e3, e4" or "15, 24 and 2 more". */
function listLabels(labels) {
  const all = [...labels];
  if (all.length <= 6) return all.join(', ');
  return `${all.slice(0, 5).join(', ')} and ${all.length - 5} more`;
}

function promotionLabel(suffix) {
  const name = PROMOTION_NAMES[suffix];
  if (!name) return suffix || 'as it is';
  return capitalise(name);
}

/**
 * The line under the board while a move is being built: what is selected, where it can
 * go, "Stop here" when a chain of jumps may end at this point, the promotion chooser,
 * and Cancel. Also lists the moves as buttons when they cannot be drawn on the board.
 */
function renderHelper(game, entries, mappable, canPlay) {
  const box = ui['move-helper'];
  // Rebuilt only when what it shows changes, so its buttons keep the focus.
  const key = JSON.stringify([canPlay, mappable, app.pick, entries.map((e) => e.move)]);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const parts = [];
  const sel = app.pick.sel;
  if (canPlay && !mappable && entries.length) {
    parts.push(el('p', 'helper-text', 'Choose your move:'));
    const list = el('div', 'helper-buttons');
    for (const entry of entries) {
      list.append(button(entry.move, `move-${entry.move}`, () => sendMove(entry.move), 'small'));
    }
    parts.push(list);
  } else if (canPlay && app.pick.choices) {
    const seat = app.room.seat;
    parts.push(el('p', 'helper-text', `Move ${sel.join(' → ')}: promote to`));
    const list = el('div', 'helper-buttons');
    list.setAttribute('role', 'group');
    list.setAttribute('aria-label', 'Promote to');
    for (const move of app.pick.choices) {
      const { suffix } = movePath(game, move);
      const b = button('', `promote-${suffix || 'none'}`, () => sendMove(move), 'small choice');
      const code = game === 'chess' && suffix ? (seat === 0 ? suffix.toUpperCase() : suffix) : null;
      const piece = code ? pieceElement(game, code) : null;
      if (piece) b.append(piece);
      b.append(document.createTextNode(promotionLabel(suffix)));
      b.dataset.move = move;
      list.append(b);
    }
    list.append(button('Cancel', 'cancel-move', cancelPick, 'small'));
    parts.push(list);
  } else if (canPlay && sel.length) {
    const here = optionsAfter(entries, sel);
    const last = sel[sel.length - 1];
    const text = [];
    text.push(sel.length === 1 ? `${last} selected.` : `Path ${sel.join(' → ')}.`);
    if (here.next.size) text.push(`${sel.length === 1 ? 'Move to' : 'Jump on to'} ${listLabels(here.next)}.`);
    if (here.exact.length === 1 && here.next.size) {
      text.push(`Or stop at ${last}: click it again or use Stop here.`);
    } else {
      text.push(sel.length === 1 ? `Click ${last} again to cancel.` : `Click ${last} again to step back.`);
    }
    parts.push(el('p', 'helper-text', text.join(' ')));
    const list = el('div', 'helper-buttons');
    if (here.exact.length === 1 && here.next.size) {
      const stop = button(`Stop here (${here.exact[0].move})`, 'stop-here', () => sendMove(here.exact[0].move), 'small primary-btn');
      list.append(stop);
    }
    list.append(button('Cancel', 'cancel-move', cancelPick, 'small'));
    parts.push(list);
  }
  box.replaceChildren(...parts);
  box.hidden = parts.length === 0;
  if (app.pick.choices && !box.contains(document.activeElement) && app.keyboard) {
    box.querySelector('button')?.focus();
  }
}

function restoreBoardFocus(canPlay) {
  // Sending a move disables the cell that had the focus; once it is our turn again, a
  // keyboard player gets the focus back on the board instead of at the top of the page.
  if (!canPlay || !app.keyboard || app.boardHadFocus === null) return;
  const active = document.activeElement;
  if (active && active !== document.body) return;
  const cells = (ui.board._cells ?? []).filter((c) => c && !c.disabled && c.tabIndex !== -1);
  const again = cells.find((c) => c.dataset.label === app.boardHadFocus) ?? cells[0];
  again?.focus();
}

function cancelPick() {
  if (!app.pick.sel.length && !app.pick.choices) return;
  resetPick();
  render();
}

function sendMove(move) {
  if (!app.room || !myTurn() || app.pendingMove) return;
  if (send({ type: 'move', room: app.room.id, move, ref: 'move' })) {
    app.pendingMove = true;
    resetPick();
    hideError();
    render();
  }
}

function statusText(s) {
  if (!app.ready) {
    return app.conn.wanted
      ? 'Connection lost: reconnecting… Your seat is kept for you meanwhile.'
      : 'Disconnected: the board is paused until the connection is back.';
  }
  if (!s) return 'Loading the room…';
  const seats = Array.isArray(s.seats) ? s.seats : [];
  const seatAt = (n) => seats.find((x) => x.seat === n);
  const player = app.room.role === 'player';
  if (s.status === 'waiting') {
    return player ? 'Waiting for an opponent to take the other seat.' : 'Waiting for players.';
  }
  if (s.status === 'playing') {
    if (typeof s.to_move !== 'number') return 'Playing.';
    const mover = `${seatName(seatAt(s.to_move))} (${markOf(s.to_move)})`;
    if (player && s.to_move === app.room.seat) {
      return app.pendingMove ? 'Sending your move…' : `Your turn: you play ${markOf(app.room.seat)}.`;
    }
    return player ? `Waiting for ${mover} to move…` : `${mover} to move.`;
  }
  if (s.status === 'finished') return `Game over. ${resultHeadline(s)}`;
  return String(s.status ?? '');
}

/** The winner and reason of the current game, from game_over if seen, else from state.result. */
function outcome(s) {
  if (app.over) return { winner: app.over.winner ?? null, reason: app.over.reason };
  if (s?.result) return { winner: s.result.winner ?? null, reason: s.result.reason };
  return null;
}

/**
 * The headline and reason of a finished game, in words. `label(seat)` names a seat
 * ("Ann (White)"); `mySeat` is this player's seat, or null when watching; `flagged` is
 * the seat whose time ran out, when known.
 */
function endText({ winner, reason, label, mySeat, flagged }) {
  const decided = typeof winner === 'number';
  let headline;
  if (reason === 'aborted') headline = 'Game aborted.';
  else if (!decided) headline = 'Draw.';
  else if (typeof mySeat === 'number') headline = winner === mySeat ? 'You won!' : 'You lost.';
  else headline = `${label(winner)} won.`;
  const phrase = REASONS[reason];
  if (!phrase) return { headline, reason: String(reason ?? '').replaceAll('_', ' ') };
  // The reason is told about the loser, or for a draw on time about who ran out.
  const subject = decided ? 1 - winner : (reason === 'timeout_vs_insufficient_material' ? flagged : null);
  const known = typeof subject === 'number';
  return { headline, reason: phrase(known ? label(subject) : 'a player', known && subject === mySeat) };
}

/** The seat whose clock ran out: the one at zero, else the side to move after the last move. */
function flaggedSeat(clocks, lastSeat) {
  const left = Array.isArray(clocks) ? clocks.map(Number) : null;
  if (left && left.filter((ms) => ms === 0).length === 1) return left.indexOf(0);
  return typeof lastSeat === 'number' ? 1 - lastSeat : null;
}

function liveEndText(s) {
  const o = outcome(s);
  if (!o) return null;
  const mySeat = app.room?.role === 'player' && typeof app.room.seat === 'number' ? app.room.seat : null;
  return endText({
    winner: o.winner,
    reason: o.reason,
    label: (seat) => `${seatName(s?.seats?.find((x) => x.seat === seat))} (${markOf(seat)})`,
    mySeat,
    flagged: flaggedSeat(s?.clocks?.remaining_ms, s?.last_move?.seat),
  });
}

function resultHeadline(s) {
  return liveEndText(s)?.headline ?? '';
}

/** "1500 → 1516 (+16)" */
function ratingChangeText(before, after) {
  const delta = after - before;
  return `${before} → ${after} (${delta > 0 ? '+' : delta < 0 ? '−' : '±'}${Math.abs(delta)})`;
}

function renderResult(s) {
  const box = ui.result;
  const o = s?.status === 'finished' || app.over ? outcome(s) : null;
  if (!o) {
    box.hidden = true;
    box.replaceChildren();
    delete box.dataset.winner;
    delete box.dataset.reason;
    return;
  }
  box.hidden = false;
  const decided = o.winner !== null && o.winner !== undefined;
  box.dataset.winner = decided ? String(o.winner) : (o.reason === 'aborted' ? 'none' : 'draw');
  box.dataset.reason = String(o.reason ?? '');
  const text = liveEndText(s);
  const headline = text.headline;
  box.className = `result ${headline.startsWith('You won') ? 'won' : headline.startsWith('You lost') ? 'lost' : 'neutral'}`;
  const parts = [el('p', 'headline', headline), el('p', 'reason', capitalise(text.reason) + '.')];
  const scores = Array.isArray(app.over?.scores) ? app.over.scores : [];
  if (scores.length) {
    const list = el('ul', 'scores');
    for (const entry of scores) {
      const item = el('li');
      item.append(markEl(entry.seat));
      item.append(el('span', 'score-name', entry.name ?? seatName(s?.seats?.find((x) => x.seat === entry.seat))));
      if (typeof entry.rating_before === 'number' && typeof entry.rating_after === 'number') {
        const change = el('span', 'rating-change', ratingChangeText(entry.rating_before, entry.rating_after));
        change.dataset.testid = `rating-change-${entry.seat}`;
        const delta = entry.rating_after - entry.rating_before;
        change.dataset.trend = delta > 0 ? 'up' : delta < 0 ? 'down' : 'same';
        change.title = 'Rating before → after this game';
        item.append(change);
      }
      item.append(el('span', 'score', typeof entry.score === 'number' ? `${entry.score} points` : 'no score'));
      list.append(item);
    }
    parts.push(list);
  }
  if (typeof app.over?.duration_ms === 'number') {
    parts.push(el('p', 'duration', `Played in ${formatDuration(app.over.duration_ms)}.`));
  }
  const actions = el('div', 'result-actions');
  const rematch = rematchControls(s);
  if (rematch) {
    parts.push(rematch.status);
    actions.append(rematch.button);
  }
  if (s?.status === 'finished' && typeof s.game_id === 'string') {
    actions.append(button('Replay', 'replay-open', () => app.replay.open(s.game_id), 'small'));
  }
  if (actions.childElementCount) parts.push(actions);
  box.replaceChildren(...parts);
}

/** The Rematch button and a line on who has asked, for a player of a finished game. */
function rematchControls(s) {
  if (s?.status !== 'finished' || app.room?.role !== 'player' || typeof app.room.seat !== 'number') return null;
  const asked = Array.isArray(s.rematch) ? s.rematch : [];
  const me = app.room.seat;
  const other = seatName(s.seats?.find((x) => x.seat === 1 - me));
  const mine = asked.includes(me);
  const theirs = asked.includes(1 - me);
  const label = mine ? 'Rematch asked' : theirs ? 'Accept rematch' : 'Rematch';
  const b = button(label, 'rematch', onRematch, `small${theirs && !mine ? ' primary-btn' : ''}`);
  b.disabled = mine;
  let line = 'A rematch is played in this room with the seats swapped.';
  if (theirs && !mine) line = `${other} wants a rematch, with the seats swapped.`;
  else if (mine) line = `Waiting for ${other} to accept the rematch.`;
  const status = el('p', 'rematch-status', line);
  status.dataset.testid = 'rematch-status';
  status.dataset.state = theirs && !mine ? 'asked-by-them' : mine ? 'asked' : '';
  status.dataset.asked = asked.map(String).join(',');
  return { button: b, status };
}

/** The line above the board about draw offers, with Accept / Decline when one is made to you. */
function renderDrawPanel(s) {
  const box = ui['draw-panel'];
  const playing = s?.status === 'playing';
  const player = app.room.role === 'player' && typeof app.room.seat === 'number';
  const offer = playing && typeof s.draw_offer === 'number' ? s.draw_offer : null;
  const key = JSON.stringify([app.room.id, s?.game_id, offer, player ? app.room.seat : null, playing ? app.drawNote : '']);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const parts = [];
  let state = '';
  if (offer !== null) {
    const who = `${seatName(s.seats?.find((x) => x.seat === offer))} (${markOf(offer)})`;
    if (player && offer === app.room.seat) {
      state = 'offered';
      const other = seatName(s.seats?.find((x) => x.seat === 1 - offer));
      parts.push(el('p', 'draw-text', `You offered a draw. Waiting for ${other} to answer.`));
    } else if (player) {
      state = 'offered-to-you';
      parts.push(el('p', 'draw-text', `${who} offers a draw.`));
      const row = el('div', 'helper-buttons');
      row.append(
        button('Accept draw', 'accept-draw', () => roomRequest('accept_draw'), 'small primary-btn'),
        button('Decline', 'decline-draw', () => roomRequest('decline_draw'), 'small'),
      );
      parts.push(row);
    } else {
      state = 'offered';
      parts.push(el('p', 'draw-text', `${who} offers a draw.`));
    }
  } else if (player && playing && app.drawNote) {
    state = 'answered';
    parts.push(el('p', 'draw-text', app.drawNote));
  }
  box.dataset.state = state;
  box.replaceChildren(...parts);
  box.hidden = parts.length === 0;
}

/** Games whose move list pairs the two sides' moves under one number, as their records do. */
const NUMBERED_BY_PAIRS = new Set(['chess', 'checkers']);

function renderMoves(s) {
  const list = ui.moves;
  list.replaceChildren();
  if (!s) return;
  const game = currentGame();
  const cols = Number(s.board?.cols) || 3;
  // Who played move i: counted back from the last move, so a game that starts from a
  // set position with the second seat to move is still right.
  const lastSeat = typeof s.last_move?.seat === 'number' ? s.last_move.seat : null;
  const total = app.moves.length;
  const seatOf = (i) => (lastSeat === null ? i % 2 : (lastSeat + (total - 1 - i)) % 2);
  list.dataset.plies = String(total);
  if (NUMBERED_BY_PAIRS.has(game)) {
    // As chess and draughts records number them: "1. e4 e5", the first side's move
    // first; "1. … e5" when a game from a set position starts with the second side.
    const rows = [];
    app.moves.forEach((move, i) => {
      if (seatOf(i) === 0 || rows.length === 0) rows.push(seatOf(i) === 0 ? [move] : ['…', move]);
      else rows[rows.length - 1].push(move);
    });
    for (const row of rows) list.append(el('li', null, row.join(' ')));
  } else {
    app.moves.forEach((move, i) => {
      const seat = seatOf(i);
      const n = Number(move);
      const text = game === 'tictactoe' && Number.isInteger(n) && String(n) === move
        ? `${markOf(seat)} row ${Math.floor(n / cols) + 1}, column ${(n % cols) + 1}`
        : `${markOf(seat)} ${move}`;
      list.append(el('li', null, text));
    });
  }
  list.hidden = app.moves.length === 0;
}

// ---------------------------------------------------------------------------
// User actions

function onConnect(event) {
  event.preventDefault();
  const name = ui['name-input'].value.trim();
  const length = codePoints(name);
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

function onChangeName() {
  if (app.room && !leaveCurrentRoom({ ask: true })) return;
  closeSocket();
  app.me = null;
  render();
  ui['name-input'].value = local.get(KEY_NAME) ?? '';
  ui['name-input'].focus();
  ui['name-input'].select();
}

function onBoardClick(event) {
  const cell = event.target.closest('[data-label]');
  if (!cell || cell.disabled) return;
  pickCell(cell.dataset.label);
}

/** The moves that can be picked on the board now, or null when none can. */
function pickableMoves() {
  if (!app.room || !app.state || !myTurn() || app.pendingMove) return null;
  const s = app.state;
  const { entries, mappable } = indexMoves(currentGame(), s.legal_moves, gridOf(s));
  return mappable ? entries : null;
}

/** Whether a piece may be dragged from this cell: it starts a move, or continues the one being built. */
function canDrag(label) {
  const entries = pickableMoves();
  if (!entries) return false;
  return app.pick.sel.at(-1) === label || optionsAfter(entries, []).next.has(label);
}

/** A drag lifts the piece: selected as by a click, unless it ends the path being built already. */
function onDragStart(label) {
  if (app.pick.sel.at(-1) !== label) {
    resetPick();
    pickCell(label);
  }
}

/** A drop is a click on the square it lands on; off the board it puts the piece back. */
function onDrop(from, to) {
  if (to === null) {
    cancelPick();
    return;
  }
  pickCell(to);
}

/** Adds a cell to the move being built (a click, a drop or Enter on it). */
function pickCell(label) {
  const entries = pickableMoves();
  if (!entries) return;
  const outcome = clickOutcome(entries, app.pick.sel, label);
  if (outcome.kind === 'send') {
    sendMove(outcome.move);
    return;
  }
  if (outcome.kind === 'choose') {
    app.pick.sel = outcome.sel;
    app.pick.choices = outcome.choices.map((e) => e.move);
  } else if (outcome.kind === 'select') {
    app.pick.sel = outcome.sel;
    app.pick.choices = null;
  } else {
    resetPick();
  }
  render();
}

const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

function onEscape(event) {
  if (event.key !== 'Escape' || (!app.pick.sel.length && !app.pick.choices)) return;
  event.preventDefault();
  const hadFocus = ui['move-helper'].contains(document.activeElement);
  cancelPick();
  // The helper's buttons are gone: put the focus back on the board.
  if (hadFocus) (ui.board._cells ?? []).find((c) => c && c.dataset.label === app.boardHadFocus && !c.disabled)?.focus();
}

function onBoardKey(event) {
  const step = ARROWS[event.key];
  const from = event.target.closest?.('[data-label]');
  if (!step || !from) return;
  // Arrow keys walk the grid as drawn, skipping cells that cannot be used now.
  event.preventDefault();
  const cells = (ui.board._cells ?? []).filter((c) => c && !c.disabled);
  const at = new Map(cells.map((c) => [`${c.dataset.row},${c.dataset.col}`, c]));
  const rows = Number(ui.board.dataset.rows);
  const cols = Number(ui.board.dataset.cols);
  let row = Number(from.dataset.row);
  let col = Number(from.dataset.col);
  for (;;) {
    row += step[0];
    col += step[1];
    if (row < 0 || col < 0 || row >= rows || col >= cols) return;
    const next = at.get(`${row},${col}`);
    if (next) {
      next.focus();
      return;
    }
  }
}

function onDocumentClick(event) {
  // A click anywhere but the board and its helper line drops a half-built move.
  if (!app.pick.sel.length && !app.pick.choices) return;
  if (ui.board.contains(event.target) || ui['move-helper'].contains(event.target)) return;
  cancelPick();
}

function disarmResign() {
  clearTimeout(app.resignArmed);
  app.resignArmed = null;
  if (ui.resign) {
    ui.resign.textContent = 'Resign';
    ui.resign.classList.remove('danger');
  }
}

function onResign() {
  if (!app.room) return;
  if (!app.resignArmed) {
    ui.resign.textContent = 'Click again to resign';
    ui.resign.classList.add('danger');
    app.resignArmed = setTimeout(disarmResign, 4000);
    return;
  }
  disarmResign();
  send({ type: 'resign', room: app.room.id, ref: 'resign' });
}

/** A request about the current game that needs nothing but the room: draw offers and answers. */
function roomRequest(type) {
  if (!app.room || !requireOnline()) return;
  hideError();
  send({ type, room: app.room.id, ref: type });
}

function onRematch() {
  if (!app.room || !requireOnline()) return;
  hideError();
  // After a reconnect the finished game is shown without its seat: take the seat back
  // first, or the server would not know this connection as a player of the room.
  if (app.room.detached && app.room.role === 'player' && typeof app.room.seat === 'number') {
    app.room.detached = false;
    send({ type: 'join', room: app.room.id, seat: app.room.seat, ref: 'rejoin' });
  }
  send({ type: 'rematch', room: app.room.id, ref: 'rematch' });
}

function onLeave() {
  if (!app.room) return;
  if (!isOpen() || app.room.detached) {
    exitRoom();
    return;
  }
  leaveCurrentRoom({ ask: true });
}

/** Shows the lobby's choices for one game: side names, start position. */
function setLobbyGame(game) {
  app.lobbyGame = game;
  for (const input of ui['game-pick'].querySelectorAll('input[name="game"]')) {
    input.checked = input.value === game;
  }
  ui['new-title'].textContent = `New ${gameTitle(game)} game`;
  const sides = sidesOf(game, null).names;
  for (const select of [ui['bot-side'], ui['person-side']]) {
    for (const option of select.options) {
      const seat = Number(option.value);
      option.textContent = `${sides[seat]} (${GAMES[game].order[seat]})`;
    }
  }
  const start = GAMES[game].startOption;
  ui['start-options'].hidden = !start;
  if (start) {
    ui['start-label'].textContent = start.label;
    ui['start-position'].placeholder = start.placeholder;
  }
  ui['start-position'].value = '';
}

/** What the replay card needs from the page. */
const replayPage = {
  seen: (id) => app.seen.get(id),
  myId: () => app.me?.player_id ?? null,
  gridOf,
  changed: () => render(),
  /** "Ann (White) won. Checkmate." for a stored, finished game. */
  endSentence(data, label, mySeat) {
    const total = data.moves.length;
    const end = endText({
      winner: data.winner, reason: data.reason, label, mySeat,
      flagged: flaggedSeat(null, total ? data.moves[total - 1].seat : null),
    });
    return `${end.headline} ${capitalise(end.reason)}.`;
  },
  /** Puts the focus back on the button that opened the replay of `id`. */
  focusBack(id) {
    const back = ui.result.querySelector('[data-testid="replay-open"]') ??
      [...ui['recent-games'].querySelectorAll('button')].find((b) => b.dataset.gameId === id);
    back?.focus();
  },
};

function init() {
  bindUi();
  app.replay = new ReplayView(ui, replayPage);
  app.recent = new RecentGames({ list: ui['recent-games'], empty: ui['recent-empty'] }, {
    me: () => app.me,
    replaying: () => app.replay.current?.id ?? null,
    replay: (gameId) => app.replay.open(gameId),
  });
  app.roomList = new RoomListView(app.rooms,
    { list: ui['room-list'], empty: ui['rooms-empty'], filter: ui['rooms-filter'], template: ui.roomTemplate }, {
      ready: () => app.ready,
      me: () => app.me,
      current: () => app.room,
      join: joinRoom,
      watch: watchRoom,
    });
  app.conn = new Connection(connectionHooks);
  const savedName = local.get(KEY_NAME);
  if (savedName) ui['name-input'].value = savedName;
  ui['login-form'].addEventListener('submit', onConnect);
  ui['change-name'].addEventListener('click', onChangeName);
  ui.reconnect.addEventListener('click', () => {
    app.ready = false;
    app.conn.retryNow();
  });
  ui.error.querySelector('.dismiss').addEventListener('click', hideError);
  ui['quick-join'].addEventListener('click', quickJoin);
  ui['open-room'].addEventListener('click', () => {
    createRoom(ui['person-side'].value === '1' ? ['open', 'me'] : ['me', 'open'], { privateRoom: ui['private-room'].checked });
  });
  ui['bot-vs-bot'].addEventListener('click', () => {
    createRoom([`bot:${ui['bot-level'].value}`, `bot:${ui['bot2-level'].value}`], { ref: 'bots' });
  });
  ui['copy-link'].addEventListener('click', onCopyLink);
  const savedFilter = local.get(KEY_FILTER);
  if (savedFilter && [...ui['rooms-filter'].options].some((o) => o.value === savedFilter)) ui['rooms-filter'].value = savedFilter;
  app.linkedRoom = roomFromAddress();
  const savedGame = local.get(KEY_GAME);
  setLobbyGame(GAMES[savedGame] ? savedGame : DEFAULT_GAME);
  ui['game-pick'].addEventListener('change', (event) => {
    if (event.target.name === 'game' && GAMES[event.target.value]) {
      local.set(KEY_GAME, event.target.value);
      setLobbyGame(event.target.value);
      app.leaderboard.show(event.target.value);
    }
  });
  app.leaderboard = new Leaderboard(
    { list: ui.leaderboard, note: ui['leaderboard-note'], game: ui['leaderboard-game'], by: ui['leaderboard-by'] },
    () => app.me?.player_id ?? null,
  );
  const savedClock = local.get(KEY_CLOCK);
  if (savedClock && [...ui['time-control'].options].some((o) => o.value === savedClock)) ui['time-control'].value = savedClock;
  ui['time-control'].addEventListener('change', onTimeControlChange);
  ui['time-control-custom'].hidden = ui['time-control'].value !== 'custom';
  ui['offer-draw'].addEventListener('click', () => roomRequest('offer_draw'));
  ui['play-bot'].addEventListener('click', () => {
    const level = ui['bot-level'].value;
    const bot = `bot:${level}`;
    createRoom(ui['bot-side'].value === '1' ? [bot, 'me'] : ['me', bot]);
  });
  ui['rooms-filter'].addEventListener('change', () => {
    local.set(KEY_FILTER, ui['rooms-filter'].value);
    app.rooms.clear();
    app.roomList.render();
    subscribeLobby();
    app.roomList.preview();
  });
  ui.board.addEventListener('click', onBoardClick);
  enableDrag(ui.board, { canDrag, start: onDragStart, drop: onDrop });
  ui.board.addEventListener('keydown', onBoardKey);
  document.addEventListener('keydown', onEscape);
  ui.board.addEventListener('focusin', (event) => {
    const cell = event.target.closest?.('[data-label]');
    if (cell) app.boardHadFocus = cell.dataset.label;
  });
  document.addEventListener('click', onDocumentClick);
  // Whether the player uses the keyboard, to know when moving the focus helps.
  document.addEventListener('keydown', () => { app.keyboard = true; }, true);
  document.addEventListener('pointerdown', () => { app.keyboard = false; }, true);
  ui.resign.addEventListener('click', onResign);
  ui.leave.addEventListener('click', onLeave);
  app.leaderboard.show(app.lobbyGame);
  render();
  app.roomList.startPreview();
  // A stored name and token mean this browser has played before: resume that player.
  if (savedName && local.get(KEY_TOKEN)) connect();
}

init();
