// What the page knows: the one `app` object (who is signed in, the boards kept for
// replays, and in `app.room` the room the page is in with all it knows of it: its latest
// state, the move being built, its chat), the page's elements by test id (`ui`), what the
// browser keeps between visits (`local`, `session`), and the facts read off them (the
// current game, whose turn, which way up the board is, the board to show). Nothing here
// sends or draws; store.js draws the page after each change.

import { DEFAULT_GAME, sidesOf, topSeatOf } from './boards/index.js';
import { sideName, sideBadge } from './sides.js';
import { RoomList } from './lobby.js';

// Keys of what the browser keeps: localStorage, except KEY_ROOM.
/** The player's token, to come back as the same player. */
export const KEY_TOKEN = 'parlor.token';
/** The name last signed in with. */
export const KEY_NAME = 'parlor.name';
/** The game last chosen in the lobby. */
export const KEY_GAME = 'parlor.game';
/** Per tab (sessionStorage): the room to return to after a reload. */
export const KEY_ROOM = 'parlor.room';
/** The clock last chosen in the lobby. */
export const KEY_CLOCK = 'parlor.clock';
/** The game the room list is limited to ('' for all). */
export const KEY_FILTER = 'parlor.rooms-filter';
/** The board's size chosen with its resize handle, in CSS pixels (none: fit the screen). */
export const KEY_BOARD_SIZE = 'parlor.board-size';
/** 'off' when the player muted the game's sounds. */
export const KEY_SOUND = 'parlor.sound';
/** The colour scheme chosen with the switch: 'light' or 'dark' (none: the system's). */
export const KEY_THEME = 'parlor.theme';
/** The players whose chat lines this browser hides: JSON, player id → name. */
export const KEY_MUTED = 'parlor.chat-muted';
/** The bot's level last chosen, on the first screen or in the lobby. */
export const KEY_BOT_LEVEL = 'parlor.bot-level';

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
/** What this browser keeps across visits. */
export const local = storage('localStorage');
/** What this tab keeps across reloads. */
export const session = storage('sessionStorage');

/** The client's state: everything the page knows, in one place. */
export const app = {
  /** The socket to the server; it reconnects by itself while the user wants to be online. */
  conn: null,
  /** Set once `welcome` arrives on the current socket. */
  ready: false,
  me: null, // { player_id, name, token, signedIn }
  /** The server's room settings from `welcome` (PROTOCOL.md §7.1), or null from a server without them. */
  roomSettings: null,
  room: null, // the room this page is in and all it knows of it (see enterRoom); leaving drops it
  pendingGame: null, // the game of the room being created, until its state arrives
  pendingBotFill: null, // whether that room gives its open seat to a bot by itself (null: not known)
  lobbyGame: DEFAULT_GAME,
  boardHadFocus: null, // label of the board cell that last had the keyboard focus
  keyboard: false, // the player uses the keyboard, so moving the focus helps
  afterWelcome: null, // what to start once signed in: 'bot' after "Play a bot now"
  rooms: new RoomList(),
  /** The challenge to a bot account waiting for its answer: { id, name, game, seat }, or null. */
  challenge: null,
  /** A room from a `/?room=` link, to open once signed in. */
  linkedRoom: null,
  /** What that link leads to, once read: { open } (a seat waits for whoever follows it). */
  invitation: null,
  seen: new Map(), // game_id → { game, boards: [board after n moves], flipped, sides }
  // The lines outside the board (notices.js): the error line, shown for a while, with its
  // code and how many errors it has shown; the notice line and what it is about (kind);
  // the connection's state in the header pill.
  notices: {
    error: { text: '', code: '', count: 0, shown: false },
    notice: { text: '', kind: null },
    connection: { state: 'offline', text: 'not signed in' },
  },
};

/**
 * A room entered, as the page keeps it in `app.room`: which room and how this page is in
 * it ({ id, seat: number|null, role: 'player'|'spectator', game?, detached? }), and
 * what the page knows of it, from scratch. Leaving the room drops the whole object.
 */
export function enterRoom({ id, seat, role, game, detached = false, botFill = null }) {
  return {
    id,
    seat,
    role,
    game, // the room's game, once known
    detached, // a finished game shown after a reconnect, without taking its seat again
    botFill, // whether the room gives its open seat to a bot by itself: false for a room opened for a friend; null: not known
    botOffered: false, // "Play a bot instead" is offered: the player has waited for an opponent long enough
    botOfferTimer: null, // the timer that offers it, while the player waits
    // The seats whose person is away during the game: seat → { graceAt, claimAt }, the
    // performance.now() at which their grace and the wait before a claim run out (away.js).
    away: new Map(),
    state: null, // the last `state` of the room
    over: null, // the `game_over` of the current game, if seen
    moves: [], // move strings of the current game
    pendingMove: false,
    catchingUp: null, // the `seq` after which frames were lost and asked for again, if any
    // The move being built on the board: the labels clicked so far, and the moves to
    // choose between when several share that path (chess promotion).
    pick: { key: '', sel: [], choices: null },
    showBoard: false, // the room was entered or a rematch began: bring the board into view once drawn
    showResult: false, // the game has just ended: bring its result into view once drawn
    browsing: null, // while looking back: the number of moves after which the board is shown (browse.js)
    chat: { channel: null, lines: [] }, // the room's chat as shown
    premove: null, // { game, from }: the premove being picked, its piece chosen (premove.js)
    premoves: [], // [{ game, from, to }]: the premoves queued, played in order as this player's turns come
    dropped: null, // the cell this player last dropped a piece on by hand, so that it does not glide there (animate.js)
    lowWarned: null, // the turn (game id and move count) whose low time was sounded
    orientation: null, // the sides and orientation of the current game, once known (see orientation())
    resignArmed: null, // the timer that disarms Resign again, while a first click has armed it
    clockAt: 0, // performance.now() when the current state arrived: its clocks are as of then
    drawNote: '', // what became of this player's draw offer, until the next move
  };
}

/** Leaves the current room: drops it and everything the page knew of it. */
export function dropRoom() {
  clearTimeout(app.room?.resignArmed);
  clearTimeout(app.room?.botOfferTimer);
  app.room = null;
}

/** What is kept of a room across a reload (KEY_ROOM) and shown in the room list: which room and how this page is in it. */
export function roomPlace(room) {
  if (!room) return null;
  const { id, seat, role, game, detached, botFill } = room;
  return { id, seat, role, game, detached, botFill };
}

/** The page's elements, by test id (and the four cards by id). Filled by bindUi(). */
export const ui = {};

/** The element with this data-testid. */
const byTestId = (id, root = document) => root.querySelector(`[data-testid="${id}"]`);

/** Finds the page's elements once, into `ui`. */
export function bindUi() {
  for (const id of [
    'connection', 'reconnect', 'error', 'notice', 'login-form', 'name-input', 'connect',
    'me', 'change-name', 'play-bot-now', 'play-now', 'now-game', 'now-level', 'link-now', 'follow-link', 'quick-join', 'open-room', 'private-room', 'play-bot', 'bot-level', 'bot-side', 'person-side',
    'bot2-level', 'bot-vs-bot', 'rooms-filter', 'invite', 'room-link', 'copy-link', 'share-link',
    'game-pick', 'new-title', 'start-options', 'start-label', 'start-position',
    'game-name', 'room-id', 'spectators', 'seats', 'status', 'board', 'move-helper', 'result',
    'moves', 'chat', 'chat-title', 'chat-lines', 'chat-quick', 'chat-form', 'chat-input', 'chat-send', 'chat-muted',
    'resign', 'leave', 'rooms-empty', 'room-list',
    'leaderboard', 'leaderboard-note', 'leaderboard-game', 'leaderboard-by',
    'room-time-control', 'draw-panel', 'offer-draw',
    'time-control', 'time-control-custom', 'time-control-base', 'time-control-increment',
    'replay', 'replay-title', 'replay-close', 'replay-info', 'replay-board', 'replay-missing',
    'replay-first', 'replay-back', 'replay-step', 'replay-forward', 'replay-last', 'replay-moves',
    'recent-games', 'recent-empty', 'theme', 'board-resize', 'sound', 'browse-bar', 'browse-live',
    'away-panel', 'invite-wait', 'bot-instead', 'fill-level', 'fill-with-bot', 'quick-join-hint', 'open-room-hint',
  ]) {
    ui[id] = byTestId(id);
  }
  ui.login = document.getElementById('login');
  ui.lobby = document.getElementById('lobby');
  ui.game = document.getElementById('game');
  ui.roomTemplate = document.getElementById('room-item');
}

/** The last state of the current room, or null. */
function roomState() {
  return app.room?.state ?? null;
}

/** The game of the current room (known once its first state arrives). */
export function currentGame() {
  return app.room?.state?.game ?? app.room?.game ?? DEFAULT_GAME;
}

/** The name of a seat's side ("X", "White", "Geese", ...), in the current game by default. */
export function markOf(seat, game = currentGame(), state = roomState()) {
  return sideName(seat, game, state);
}

/** A badge of a seat's side, in the current game by default. */
export function markEl(seat, game = currentGame(), state = roomState()) {
  return sideBadge(seat, game, state);
}

/** Whether this page is the player to move, signed in, in a game being played. */
export function myTurn() {
  const room = app.room;
  const s = room?.state;
  return Boolean(
    room && s && app.ready && room.role === 'player' && s.status === 'playing' &&
      s.to_move === room.seat,
  );
}

/** Drops the move being built; `key` says which position the (empty) pick belongs to. */
export function resetPick(key = app.room.pick.key) {
  app.room.pick = { key, sel: [], choices: null };
}

/** Whether a move is being built on the board (a cell picked, or a promotion to choose). */
export function picking() {
  const pick = app.room?.pick;
  return Boolean(pick && (pick.sel.length || pick.choices));
}

/** The sides of the seats and the board's orientation, kept for the whole game once known. */
export function orientation(game, s) {
  const room = app.room;
  const cacheKey = `${room?.id}|${s?.game_id ?? ''}|${game}`;
  const cached = room?.orientation;
  if (cached && cached.key === cacheKey) return cached;
  const sides = sidesOf(game, s);
  const top = topSeatOf(game, s, sides);
  const result = { key: cacheKey, sides, top };
  // Only keep what the state showed for certain; defaults are worked out again next time.
  if (room && sides.known && s?.game_id) room.orientation = result;
  return result;
}

/** The board the page saw after `ply` moves of game `id`, if it did. */
export function boardAfter(id, ply) {
  return app.seen.get(id)?.boards?.[ply] ?? null;
}

/**
 * The state to draw: the live one, or while looking back (browse.js), the board after
 * the chosen move, with nothing to play on it. Looking back ends when that board is gone.
 */
export function shownState(s) {
  const room = app.room;
  if (room.browsing === null) return s;
  const board = typeof s?.game_id === 'string' ? boardAfter(s.game_id, room.browsing) : null;
  if (!board || room.browsing >= s.moves) {
    room.browsing = null;
    return s;
  }
  return { ...s, board, legal_moves: [], last_move: null };
}

/** The players whose chat lines this browser hides: player id → name. */
export function mutedPlayers() {
  try {
    const saved = JSON.parse(local.get(KEY_MUTED) ?? '{}');
    return saved && typeof saved === 'object' && !Array.isArray(saved) ? saved : {};
  } catch {
    return {};
  }
}

/** Whether this player sees the board turned, so that their own pieces are at the bottom. */
export function isFlipped(game, s) {
  const { top } = orientation(game, s);
  return top !== null && app.room?.role === 'player' && app.room.seat === top;
}
