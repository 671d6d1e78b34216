// Parlor web client: plain ES modules (this one and board.js), no dependencies, no build step.
//
// The page renders only what the server sends: the board from `board.cells` and
// `board.labels`, the clickable cells from the paths of `legal_moves`, whose turn from
// `to_move`. It knows no rules. How each game looks and how clicks on cells become
// moves lives in board.js.
// Every piece of data from the server or the user is written with textContent, never
// as HTML, so names like `<img src=x onerror=...>` are shown literally.

import {
  GAMES, PROMOTION_NAMES, gameTitle, sidesOf, topSeatOf, movePath, indexMoves,
  optionsAfter, clickOutcome, buildGrid, paintGrid, pieceElement,
} from './board.js';

const PROTOCOL = 1;
const DEFAULT_GAME = 'tictactoe';
const ROOMS_EVERY_MS = 3000;
const ERROR_VISIBLE_MS = 15000;
const BACKOFF_FIRST_MS = 1000;
const BACKOFF_MAX_MS = 30000;
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
};

const KEY_TOKEN = 'parlor.token';
const KEY_NAME = 'parlor.name';
const KEY_GAME = 'parlor.game'; // the game last chosen in the lobby
const KEY_ROOM = 'parlor.room'; // per tab (sessionStorage): the room to return to after a reload

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

/** Creates an element with a class and text (always as text). */
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function button(label, testId, onClick, className) {
  const b = el('button', className, label);
  b.type = 'button';
  if (testId) b.dataset.testid = testId;
  b.addEventListener('click', onClick);
  return b;
}

/** The game of the current room (known once its first state arrives). */
function currentGame() {
  return app.state?.game ?? app.room?.game ?? DEFAULT_GAME;
}

/** The name of a seat's side: "X", "White", "Geese", ... */
function markOf(seat, game = currentGame(), state = app.state) {
  const sides = sidesOf(game, state && state.game === game ? state : null);
  return sides.names[seat] ?? `seat ${seat}`;
}

/** A small badge showing a seat's side (a piece of that side). */
function markEl(seat, game = currentGame(), state = app.state) {
  const sides = sidesOf(game, state && state.game === game ? state : null);
  const name = sides.names[seat] ?? `seat ${seat}`;
  const badge = el('span', `mark mark-${game} mark-${name.replace(/[^A-Za-z0-9]/g, '')}`);
  const piece = pieceElement(game, sides.codes[seat]);
  if (piece && game !== 'tictactoe') badge.append(piece);
  else badge.textContent = name.slice(0, 1);
  badge.title = name;
  return badge;
}

function botLevel(kind) {
  return typeof kind === 'string' && kind.startsWith('bot:') ? kind.slice(4) : null;
}

/** How a seat is named on screen. */
function seatName(seat) {
  if (!seat) return '?';
  if (seat.name) return seat.name;
  const level = botLevel(seat.kind);
  if (level) return `Bot (${level})`;
  if (seat.kind === 'open') return 'open seat';
  return 'someone';
}

function roomLabel(id) {
  const text = String(id ?? '');
  return text.length > 10 ? `#${text.slice(0, 8)}…` : `#${text}`;
}

function codePoints(text) {
  return [...text].length;
}

// ---------------------------------------------------------------------------
// Client state

const app = {
  ws: null,
  /** The user asked to be online (connected and not signed out): reconnect on drops. */
  wantOnline: false,
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
  roomsKey: '',
  rooms: [],
  retries: 0,
  retryTimer: null,
  retryAt: 0,
  countdownTimer: null,
  roomsTimer: null,
  errorTimer: null,
  resignArmed: null,
};

const ui = {};

function bindUi() {
  for (const id of [
    'connection', 'reconnect', 'error', 'notice', 'login-form', 'name-input', 'connect',
    'me', 'change-name', 'play-person', 'play-bot', 'bot-level', 'bot-side', 'person-side',
    'game-pick', 'new-title', 'start-options', 'start-label', 'start-position',
    'game-name', 'room-id', 'spectators', 'seats', 'status', 'board', 'move-helper', 'result',
    'moves', 'resign', 'leave', 'refresh-rooms', 'rooms-empty', 'room-list',
    'leaderboard', 'leaderboard-note', 'leaderboard-game',
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

function setConnection(stateName, text) {
  ui.connection.dataset.state = stateName;
  ui.connection.textContent = text ?? stateName;
  ui.reconnect.hidden = !(stateName === 'disconnected' && app.wantOnline);
}

// ---------------------------------------------------------------------------
// The socket

function socketUrl() {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}/ws`;
}

function isOpen() {
  return app.ws !== null && app.ws.readyState === WebSocket.OPEN;
}

function send(message) {
  if (!isOpen()) {
    showError('Not connected to the server. Use Reconnect and try again.', 'client_offline');
    return false;
  }
  app.ws.send(JSON.stringify(message));
  return true;
}

/** True when signed in on an open socket; otherwise says so on the error line. */
function requireOnline() {
  if (isOpen() && app.ready) return true;
  showError('Not connected to the server. Use Reconnect and try again.', 'client_offline');
  return false;
}

function hello() {
  const name = local.get(KEY_NAME) ?? ui['name-input'].value.trim();
  const msg = { type: 'hello', name, ref: 'hello' };
  const token = local.get(KEY_TOKEN);
  if (token) msg.token = token;
  send(msg);
}

function connect() {
  clearTimeout(app.retryTimer);
  clearInterval(app.countdownTimer);
  app.retryTimer = null;
  closeSocket();
  app.wantOnline = true;
  app.ready = false;
  setConnection('connecting', 'connecting…');
  let ws;
  try {
    ws = new WebSocket(socketUrl());
  } catch (err) {
    setConnection('disconnected');
    showError(`Could not open a connection: ${err.message}`, 'client_socket');
    return;
  }
  app.ws = ws;
  ws.addEventListener('open', () => {
    if (app.ws !== ws) return;
    setConnection('connecting', 'signing in…');
    hello();
  });
  ws.addEventListener('message', (event) => {
    if (app.ws !== ws) return;
    if (typeof event.data !== 'string') return;
    let msg;
    try {
      msg = JSON.parse(event.data);
    } catch {
      console.warn('Parlor: ignoring a frame that is not JSON');
      return;
    }
    if (msg && typeof msg === 'object') dispatch(msg);
  });
  ws.addEventListener('close', () => {
    if (app.ws !== ws) return;
    app.ws = null;
    app.ready = false;
    stopRoomPolling();
    if (app.wantOnline) {
      scheduleReconnect();
    } else {
      setConnection('offline');
    }
    render();
  });
}

function closeSocket() {
  const ws = app.ws;
  app.ws = null;
  app.ready = false;
  stopRoomPolling();
  if (ws && ws.readyState <= WebSocket.OPEN) ws.close(1000, 'bye');
}

function scheduleReconnect() {
  const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** app.retries);
  const jitter = Math.round(delay * 0.2 * Math.random());
  app.retries += 1;
  app.retryAt = Date.now() + delay + jitter;
  const tick = () => {
    const left = Math.max(0, Math.ceil((app.retryAt - Date.now()) / 1000));
    setConnection('disconnected', `disconnected, retrying in ${left} s`);
  };
  tick();
  clearInterval(app.countdownTimer);
  app.countdownTimer = setInterval(tick, 1000);
  clearTimeout(app.retryTimer);
  app.retryTimer = setTimeout(() => {
    clearInterval(app.countdownTimer);
    connect();
  }, delay + jitter);
}

function startRoomPolling() {
  stopRoomPolling();
  requestRooms();
  app.roomsTimer = setInterval(requestRooms, ROOMS_EVERY_MS);
}

function stopRoomPolling() {
  clearInterval(app.roomsTimer);
  app.roomsTimer = null;
}

function requestRooms() {
  if (isOpen() && app.ready) app.ws.send(JSON.stringify({ type: 'list_rooms' }));
}

// ---------------------------------------------------------------------------
// Incoming messages

const handlers = {
  welcome(m) {
    app.ready = true;
    app.retries = 0;
    app.me = { player_id: m.player_id, name: m.name, token: m.token };
    if (m.token) local.set(KEY_TOKEN, m.token);
    if (m.name) local.set(KEY_NAME, m.name);
    setConnection('online');
    if (ui.notice.dataset.kind === 'shutdown') showNotice('');
    if (typeof m.protocol === 'number' && m.protocol !== PROTOCOL) {
      showNotice(`The server speaks protocol ${m.protocol}; this page was written for ${PROTOCOL}. Reload to update.`);
    }
    resumeRoom();
    startRoomPolling();
    render();
  },

  room_created() {
    // `joined` and `state` follow when we took a seat.
  },

  joined(m) {
    const seat = typeof m.seat === 'number' ? m.seat : null;
    const sameRoom = app.room && app.room.id === m.room;
    const known = sameRoom ? app.room.game : app.rooms.find((r) => r.room === m.room)?.game;
    app.room = { id: m.room, seat, role: m.role === 'player' ? 'player' : 'spectator' };
    const game = known ?? (m.ref === 'create' ? app.pendingGame : null);
    if (game) app.room.game = game;
    if (!sameRoom) {
      app.state = null;
      app.over = null;
      app.moves = [];
    }
    app.pendingMove = false;
    rememberRoom();
    render();
    requestRooms();
  },

  state(m) {
    if (!app.room || m.room !== app.room.id) return;
    const previous = app.state;
    const sameGame = previous && previous.game_id === m.game_id;
    if (sameGame && typeof m.seq === 'number' && typeof previous.seq === 'number' && m.seq < previous.seq) return;
    if (!sameGame) app.over = null;
    if (Array.isArray(m.history)) {
      app.moves = m.history.map(String);
    } else if (!sameGame) {
      app.moves = [];
    }
    if (typeof m.moves === 'number') {
      if (m.last_move && app.moves.length === m.moves - 1) app.moves.push(String(m.last_move.move));
      if (app.moves.length > m.moves) app.moves.length = m.moves;
    }
    // A state that changes nothing in the game (a spectator came, say) does not answer
    // the move in flight: that one is answered by a state with one more move, or an error.
    const unanswered = app.pendingMove && sameGame && m.status === 'playing' && m.moves === previous.moves;
    app.state = m;
    if (!unanswered) app.pendingMove = false;
    if (typeof m.game === 'string' && app.room.game !== m.game) {
      app.room.game = m.game;
      rememberRoom();
      showLeaderboardOf(m.game);
    }
    if (m.status === 'finished') forgetRoom();
    render();
  },

  game_over(m) {
    loadLeaderboard();
    if (!app.room || m.room !== app.room.id) return;
    app.over = m;
    forgetRoom();
    render();
    requestRooms();
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
    const rooms = Array.isArray(m.rooms) ? m.rooms : [];
    app.rooms = rooms;
    renderRooms();
  },

  error(m) {
    const message = m.message || `The server refused that (${m.code || 'error'}).`;
    if (m.ref === 'hello') {
      // Still signing in: send the user back to the name form.
      if (typeof m.code === 'string' && m.code.includes('token')) local.remove(KEY_TOKEN);
      app.wantOnline = false;
      closeSocket();
      setConnection('offline');
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
  requestRooms();
}

/** Leaves the current room (if any) before going elsewhere. Returns false if the user said no. */
function leaveCurrentRoom({ ask }) {
  if (!app.room) return true;
  const playing = app.room.role === 'player' && app.state?.status === 'playing';
  if (playing && ask && !window.confirm('Leave the game you are playing? Leaving a game in progress loses it.')) {
    return false;
  }
  if (isOpen() && !app.room.detached) app.ws.send(JSON.stringify({ type: 'leave', room: app.room.id }));
  exitRoom();
  return true;
}

function createRoom(seats) {
  if (!requireOnline()) return;
  if (!leaveCurrentRoom({ ask: true })) return;
  hideError();
  showNotice('');
  const game = app.lobbyGame;
  const options = {};
  const start = ui['start-position'].value.trim();
  if (GAMES[game]?.startOption && start) options.start = start;
  app.pendingGame = game;
  send({ type: 'create_room', game, seats, options, ref: 'create' });
}

function joinRoom(roomId, seat) {
  if (app.room && app.room.id === roomId && app.room.seat === seat) return;
  if (!requireOnline()) return;
  if (!leaveCurrentRoom({ ask: true })) return;
  hideError();
  showNotice('');
  send({ type: 'join', room: roomId, seat, ref: 'join' });
}

function watchRoom(roomId) {
  if (app.room && app.room.id === roomId) return;
  if (!requireOnline()) return;
  if (!leaveCurrentRoom({ ask: true })) return;
  hideError();
  showNotice('');
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
  ui.game.hidden = !inRoom;
  if (inRoom) renderGame();
  document.title = titleText();
  renderRooms();
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
  renderSeats(s);
  renderBoard(s);
  ui.status.textContent = statusText(s);
  ui.status.dataset.turn = myTurn() ? 'mine' : 'theirs';
  renderResult(s);
  renderMoves(s);
  const playing = app.room.role === 'player' && s?.status === 'playing';
  ui.resign.hidden = !playing;
  if (!playing) disarmResign();
  ui.leave.textContent = app.room.role === 'spectator' ? 'Stop watching' : 'Leave room';
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
    const mine = app.me && seat.player_id && seat.player_id === app.me.player_id;
    if (mine) item.append(el('span', 'tag you', 'you'));
    const level = botLevel(seat.kind);
    if (level) {
      item.append(el('span', 'tag bot', `bot · ${level}`));
    } else if (seat.kind !== 'open') {
      const online = seat.connected !== false;
      const tag = el('span', `tag ${online ? 'online' : 'away'}`, online ? 'connected' : 'not connected');
      item.append(tag);
    }
    if (seat.kind === 'open' && app.room.role === 'spectator' && s.status !== 'finished') {
      item.append(button('Take this seat', `seat-join-${seat.seat}`, () => {
        if (isOpen()) {
          app.ws.send(JSON.stringify({ type: 'leave', room: app.room.id }));
        }
        const id = app.room.id;
        exitRoom();
        send({ type: 'join', room: id, seat: seat.seat, ref: 'join' });
      }, 'small'));
    }
    list.append(item);
  }
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
  if (!app.ready) return 'Disconnected: the board is paused until the connection is back.';
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

function resultHeadline(s) {
  const o = outcome(s);
  if (!o) return '';
  if (o.winner === null || o.winner === undefined) return 'Draw.';
  if (app.room?.role === 'player' && typeof app.room.seat === 'number') {
    return o.winner === app.room.seat ? 'You won!' : 'You lost.';
  }
  const seat = s?.seats?.find((x) => x.seat === o.winner);
  return `${seatName(seat)} (${markOf(o.winner)}) won.`;
}

function reasonText(s, o) {
  const phrase = REASONS[o.reason];
  if (!phrase) return String(o.reason ?? '').replaceAll('_', ' ');
  let loser = 'a player';
  let isYou = false;
  if (typeof o.winner === 'number') {
    const seat = s?.seats?.find((x) => x.seat === 1 - o.winner);
    loser = `${seatName(seat)} (${markOf(1 - o.winner)})`;
    isYou = app.room?.role === 'player' && app.room.seat === 1 - o.winner;
  }
  return phrase(loser, isYou);
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
  box.dataset.winner = o.winner === null || o.winner === undefined ? 'draw' : String(o.winner);
  box.dataset.reason = String(o.reason ?? '');
  const headline = resultHeadline(s);
  box.className = `result ${headline.startsWith('You won') ? 'won' : headline.startsWith('You lost') ? 'lost' : 'neutral'}`;
  const parts = [el('p', 'headline', headline), el('p', 'reason', capitalise(reasonText(s, o)) + '.')];
  const scores = Array.isArray(app.over?.scores) ? app.over.scores : [];
  if (scores.length) {
    const list = el('ul', 'scores');
    for (const entry of scores) {
      const item = el('li');
      item.append(markEl(entry.seat));
      item.append(el('span', 'score-name', entry.name ?? seatName(s?.seats?.find((x) => x.seat === entry.seat))));
      item.append(el('span', 'score', typeof entry.score === 'number' ? `${entry.score} points` : 'no score'));
      list.append(item);
    }
    parts.push(list);
  }
  if (typeof app.over?.duration_ms === 'number') {
    parts.push(el('p', 'duration', `Played in ${formatDuration(app.over.duration_ms)}.`));
  }
  box.replaceChildren(...parts);
}

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
  app.moves.forEach((move, i) => {
    const seat = lastSeat === null ? i % 2 : (lastSeat + (total - 1 - i)) % 2;
    const n = Number(move);
    const text = game === 'tictactoe' && Number.isInteger(n) && String(n) === move
      ? `${markOf(seat)} row ${Math.floor(n / cols) + 1}, column ${(n % cols) + 1}`
      : `${markOf(seat)} ${move}`;
    list.append(el('li', null, text));
  });
  list.hidden = app.moves.length === 0;
}

function capitalise(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

function formatDuration(ms) {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 1) return 'under a second';
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

const STATUS_ORDER = { waiting: 0, playing: 1, finished: 2 };

function renderRooms() {
  // Rebuilt only when something shown changed, so buttons do not vanish under the pointer.
  const key = JSON.stringify([app.ready, app.me?.player_id, app.room, app.rooms]);
  if (key === app.roomsKey) return;
  app.roomsKey = key;
  const list = ui['room-list'];
  const rooms = app.ready ? [...app.rooms] : [];
  rooms.sort((a, b) => (STATUS_ORDER[a.status] ?? 3) - (STATUS_ORDER[b.status] ?? 3));
  ui['rooms-empty'].hidden = app.ready && rooms.length > 0;
  ui['rooms-empty'].textContent = app.ready ? 'No rooms yet. Start a game above.' : 'Connect to see the rooms.';
  ui['refresh-rooms'].disabled = !app.ready;
  const items = rooms.map((room) => roomItem(room));
  list.replaceChildren(...items);
}

function roomItem(room) {
  const item = ui.roomTemplate.content.firstElementChild.cloneNode(true);
  item.dataset.room = String(room.room);
  const current = app.room && app.room.id === room.room;
  item.classList.toggle('current', Boolean(current));
  const title = item.querySelector('.room-title');
  title.textContent = `${gameTitle(room.game)} ${roomLabel(room.room)}`;
  item.dataset.game = String(room.game ?? '');
  title.title = `Room ${room.room}`;
  const meta = [String(room.status ?? '')];
  if (typeof room.moves === 'number') meta.push(`${room.moves} ${room.moves === 1 ? 'move' : 'moves'}`);
  if (typeof room.spectators === 'number' && room.spectators > 0) meta.push(`${room.spectators} watching`);
  item.querySelector('.room-meta').textContent = meta.join(' · ');
  const seatsBox = item.querySelector('.room-seats');
  const actions = item.querySelector('.room-actions');
  const seats = Array.isArray(room.seats) ? room.seats : [];
  seats.forEach((seat, i) => {
    if (i > 0) seatsBox.append(el('span', 'vs', 'vs'));
    const who = el('span', 'room-seat');
    who.append(markEl(seat.seat, room.game, null));
    who.append(el('span', seat.kind === 'open' ? 'open' : null, seatName(seat)));
    seatsBox.append(who);
  });
  if (current) {
    const finished = room.status === 'finished';
    const text = app.room.role === 'player' ? (finished ? 'your game' : 'you are playing') : 'you are watching';
    actions.append(el('span', 'tag you', text));
  } else if (room.status !== 'finished') {
    for (const seat of seats) {
      const mine = app.me && seat.player_id && seat.player_id === app.me.player_id;
      if (seat.kind === 'open') {
        actions.append(button(`Join as ${markOf(seat.seat, room.game, null)}`, `join-${seat.seat}`, () => joinRoom(room.room, seat.seat), 'small primary-btn'));
      } else if (mine) {
        actions.append(button(`Return as ${markOf(seat.seat, room.game, null)}`, `join-${seat.seat}`, () => joinRoom(room.room, seat.seat), 'small primary-btn'));
      }
    }
  }
  if (!current) actions.append(button('Watch', 'watch', () => watchRoom(room.room), 'small'));
  return item;
}

// ---------------------------------------------------------------------------
// Leaderboard

/** Switches the leaderboard to a game's board (and loads it). */
function showLeaderboardOf(game) {
  const select = ui['leaderboard-game'];
  if (![...select.options].some((o) => o.value === game)) return;
  if (select.value === game && app.leaderboardLoaded === game) return;
  select.value = game;
  loadLeaderboard();
}

async function loadLeaderboard() {
  const note = ui['leaderboard-note'];
  const game = ui['leaderboard-game'].value || DEFAULT_GAME;
  const ticket = (app.leaderboardTicket ?? 0) + 1;
  app.leaderboardTicket = ticket;
  app.leaderboardLoaded = game;
  let entries;
  try {
    const res = await fetch(`/api/leaderboard?game=${encodeURIComponent(game)}&limit=10`, { headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const data = await res.json();
    entries = Array.isArray(data) ? data : (data.entries ?? data.leaderboard ?? data.rows ?? []);
    if (!Array.isArray(entries)) entries = [];
  } catch (err) {
    if (ticket !== app.leaderboardTicket) return;
    ui.leaderboard.replaceChildren();
    note.textContent = `The ${gameTitle(game)} leaderboard could not be loaded (${err.message}).`;
    return;
  }
  if (ticket !== app.leaderboardTicket) return; // a newer request (another game) won
  const list = ui.leaderboard;
  list.replaceChildren(...entries.map((entry, i) => {
    const item = el('li', 'lb-entry');
    if (app.me && entry.player_id === app.me.player_id) item.classList.add('mine');
    item.append(el('span', 'rank', String(entry.rank ?? i + 1)));
    item.append(el('span', 'lb-name', entry.name ?? '?'));
    item.append(el('span', 'score', String(entry.score ?? '')));
    return item;
  }));
  note.textContent = entries.length ? '' : 'No scores yet. Win or draw a game to get on the board.';
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
  app.wantOnline = false;
  clearTimeout(app.retryTimer);
  clearInterval(app.countdownTimer);
  closeSocket();
  setConnection('offline');
  app.me = null;
  render();
  ui['name-input'].value = local.get(KEY_NAME) ?? '';
  ui['name-input'].focus();
  ui['name-input'].select();
}

function onBoardClick(event) {
  const cell = event.target.closest('[data-label]');
  if (!cell || cell.disabled || !app.room || !app.state) return;
  if (!myTurn() || app.pendingMove) return;
  const s = app.state;
  const { entries, mappable } = indexMoves(currentGame(), s.legal_moves, gridOf(s));
  if (!mappable) return;
  const outcome = clickOutcome(entries, app.pick.sel, cell.dataset.label);
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

function init() {
  bindUi();
  const savedName = local.get(KEY_NAME);
  if (savedName) ui['name-input'].value = savedName;
  ui['login-form'].addEventListener('submit', onConnect);
  ui['change-name'].addEventListener('click', onChangeName);
  ui.reconnect.addEventListener('click', () => {
    app.retries = 0;
    connect();
  });
  ui.error.querySelector('.dismiss').addEventListener('click', hideError);
  ui['play-person'].addEventListener('click', () => {
    createRoom(ui['person-side'].value === '1' ? ['open', 'me'] : ['me', 'open']);
  });
  const savedGame = local.get(KEY_GAME);
  setLobbyGame(GAMES[savedGame] ? savedGame : DEFAULT_GAME);
  ui['game-pick'].addEventListener('change', (event) => {
    if (event.target.name === 'game' && GAMES[event.target.value]) {
      local.set(KEY_GAME, event.target.value);
      setLobbyGame(event.target.value);
      showLeaderboardOf(event.target.value);
    }
  });
  ui['leaderboard-game'].addEventListener('change', () => loadLeaderboard());
  ui['play-bot'].addEventListener('click', () => {
    const level = ui['bot-level'].value;
    const bot = `bot:${level}`;
    createRoom(ui['bot-side'].value === '1' ? [bot, 'me'] : ['me', bot]);
  });
  ui['refresh-rooms'].addEventListener('click', requestRooms);
  ui.board.addEventListener('click', onBoardClick);
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
  showLeaderboardOf(app.lobbyGame);
  render();
  // A stored name and token mean this browser has played before: resume that player.
  if (savedName && local.get(KEY_TOKEN)) connect();
}

init();
