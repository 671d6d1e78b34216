// parlor-client.js: a client for the Parlor protocol (docs/PROTOCOL.md), for any page.
// It owns the WebSocket and everything about keeping it: connecting, saying `hello`
// (and the token the `welcome` gives back), a heartbeat of `ping`s that gives a silent
// socket up (§6.16), the browser going offline and back, reconnection with exponential
// backoff and jitter (or the server's `shutdown.retry_after_ms`), and joining or
// watching again, with `since` (§8.1), the rooms it was in. It offers one method per
// client message, each returning a Promise of the server's answer, and emits an event
// per server message. No dependencies and no build step; the bundled page uses it
// through connection.js, and docs/PROTOCOL.md §19 shows a page of its own.

const BACKOFF_FIRST_MS = 1000;
const BACKOFF_MAX_MS = 30000;

/** Each request's successful answer, by request type; the others have none (see `request`). */
const REPLIES = {
  hello: 'welcome', create_room: 'room_created', join: 'joined', watch: 'joined', quick_join: 'joined',
  leave: 'left', list_rooms: 'rooms', subscribe_lobby: 'lobby', unsubscribe_lobby: 'lobby_unsubscribed',
  ping: 'pong', challenge: 'challenge_sent', cancel_challenge: 'challenge_canceled',
};

/** The server messages this file knows; each is emitted as an event of its own name. */
const SERVER_TYPES = new Set([
  'welcome', 'room_created', 'joined', 'state', 'moved', 'game_over', 'left', 'rooms', 'error', 'replaced',
  'shutdown', 'lobby', 'lobby_update', 'lobby_unsubscribed', 'pong', 'chat', 'room_closed', 'room_moving',
  'challenge_sent', 'challenge_accepted', 'challenge_declined', 'challenge_canceled',
]);

/**
 * @typedef {0|1} Seat
 * @typedef {'waiting'|'playing'|'finished'} RoomStatus
 * @typedef {{seat: Seat, kind: string, name: string|null, player_id: string|null, connected: boolean,
 *   rating: number|null, stand_in_for?: {player_id: string, name: string}, grace_left_ms?: number,
 *   claim_left_ms?: number}} SeatInfo  §7.4.1 (the last two while a player's person is away, §9.6)
 * @typedef {{layout: 'grid', rows: number, cols: number, cells: (string|null)[], labels: (string|null)[]}} Board  §7.4.2
 * @typedef {{kind: 'none'} | {kind: 'per_move', per_move_ms: number}
 *   | {kind: 'fischer', base_ms: number, increment_ms: number}} TimeControl  §6.2.3
 * @typedef {{remaining_ms: [number, number], running: Seat|null}} Clocks
 * @typedef {{seat: Seat, move: string, display: string}} LastMove
 * @typedef {{room: string, game: string, status: RoomStatus, seats: SeatInfo[], spectators: number,
 *   moves: number, time_control: TimeControl, created_at_ms: number}} RoomSummary  §7.7
 * @typedef {{player_id: string, name: string, text: string, at_ms: number, ply: number}} ChatLine
 *
 * @typedef {{bot_fill_after_ms: number, bot_fill_level: string, reconnect_grace_ms: number,
 *   claim_after_ms: number, first_move_ms: number, takeover: string}} RoomSettings  §7.1
 * @typedef {{type: 'welcome', player_id: string, name: string, token?: string, signed_in?: boolean,
 *   protocol: number, room_settings?: RoomSettings, ref?: any}} Welcome  §7.1
 * @typedef {{type: 'room_created', room: string, ref?: any}} RoomCreated  §7.2
 * @typedef {{type: 'joined', room: string, seat: Seat|null, role: 'player'|'spectator', ref?: any}} Joined  §7.3
 * @typedef {{type: 'state', room: string, game: string, game_id: string|null, seq: number, status: RoomStatus,
 *   seats: SeatInfo[], spectators: number, to_move: Seat|null, position: string, board: Board,
 *   legal_moves: string[], last_move: LastMove|null, moves: number,
 *   result: {winner: Seat|null, reason: string}|null, time_control: TimeControl, clocks: Clocks|null,
 *   draw_offer: Seat|null, rematch: Seat[], resumed?: true, history?: string[],
 *   history_display?: string[]}} State  §7.4
 * @typedef {{type: 'moved', room: string, seq: number, last_move: LastMove, moves: number, to_move: Seat,
 *   position: string, cells: [number, string|null][], legal_moves: string[], clocks: Clocks|null,
 *   draw_offer: Seat|null}} Moved  §7.14
 * @typedef {{type: 'game_over', room: string, game_id: string, seq: number, winner: Seat|null, reason: string,
 *   scores: {seat: Seat, name: string|null, score: number|null, rating_before: number|null,
 *   rating_after: number|null, opponent: 'person'|`bot:${string}`}[], unrated: string|null,
 *   duration_ms: number}} GameOver  §7.5
 * @typedef {{type: 'left', room: string, ref?: any}} Left  §7.6
 * @typedef {{type: 'rooms', rooms: RoomSummary[], ref?: any}} Rooms  §7.7
 * @typedef {{type: 'error', code: string, message: string, ref?: any}} ErrorMessage  §7.8, §11
 * @typedef {{type: 'replaced', room: string}} Replaced  §7.9
 * @typedef {{type: 'shutdown', reason: 'restarting'|'stopping', message: string, retry_after_ms: number}} Shutdown  §7.10
 * @typedef {{type: 'room_moving', room: string, message: string}} RoomMoving  §7.18
 * @typedef {{type: 'lobby', game: string|null, rooms: RoomSummary[], ref?: any}} Lobby  §7.11
 * @typedef {{type: 'lobby_update', change: 'added'|'changed'|'removed', room: RoomSummary}} LobbyUpdate  §7.12
 * @typedef {{type: 'lobby_unsubscribed', ref?: any}} LobbyUnsubscribed  §7.13
 * @typedef {{type: 'pong', ref?: any}} Pong  §7.15
 * @typedef {{type: 'chat', room: string, channel: 'players'|'spectators', lines: ChatLine[]}} Chat  §7.16
 * @typedef {{type: 'room_closed', room: string, reason: string, message: string}} RoomClosed  §7.17
 * @typedef {{type: string, [field: string]: any}} Message  any message, also of a type this file does not know
 *
 * @typedef {Object} FollowedRoom  A room the client is in, and joins or watches again after a reconnect.
 * @property {string} room
 * @property {'player'|'spectator'} role
 * @property {Seat|null} seat  the seat held (followed by player id after a rematch swaps the seats)
 * @property {number|null} seq  the last `seq` seen without a gap: the `since` of the next rejoin
 * @property {RoomStatus|null} status  the status of the last state seen
 *
 * @typedef {Object} ParlorEvents  What each event's listener is given first (the second argument,
 *   for a refusal of something the client sent by itself, is that message).
 * @property {Welcome} welcome
 * @property {RoomCreated} room_created
 * @property {Joined} joined
 * @property {State} state
 * @property {Moved} moved
 * @property {GameOver} game_over
 * @property {Left} left
 * @property {Rooms} rooms
 * @property {ErrorMessage} error  refusals no method call is waiting for (see `request`)
 * @property {Replaced} replaced
 * @property {Shutdown} shutdown
 * @property {RoomMoving} room_moving
 * @property {Lobby} lobby
 * @property {LobbyUpdate} lobby_update
 * @property {LobbyUnsubscribed} lobby_unsubscribed
 * @property {Pong} pong
 * @property {Chat} chat
 * @property {RoomClosed} room_closed
 * @property {Message} message  every message above, and those of types this file does not know
 * @property {{url: string, attempt: number}} connecting  a socket is being opened
 * @property {{url: string}} open  the socket is open; `hello` is on its way
 * @property {{code: number|null, reason: string, reconnecting: boolean}} close  the socket is gone
 *   (or the client stopped); `reconnecting` says whether it will try again
 * @property {{delay: number, attempt: number}} reconnecting  the next try is in `delay` ms
 * @property {{}} offline  the browser lost the network; the client reconnects when it is back
 *
 * @typedef {Object} ParlorClientOptions
 * @property {string} [url]  the server's WebSocket; the page's own origin's `/ws` by default
 * @property {string|null} [name]  the name to say hello with (§5.2); optional with `jwt`
 * @property {string|null} [token]  a token of an earlier `welcome`, to come back as that player (§5.3)
 * @property {string|null} [jwt]  a token the hosting site signed, to sign in as its user (§5.4)
 * @property {'states'|'moves'} [updates]  `moves` for `moved` events instead of most states (§7.14)
 * @property {(room: FollowedRoom) => boolean} [rejoin]  which rooms to join again after a
 *   reconnect; every room the client was in by default
 * @property {number} [heartbeatMs]  how often a `ping` is sent (4000)
 * @property {number} [pongTimeoutMs]  how long a `ping` may go unanswered before the socket is given up (6000)
 * @property {string|URL} [heartbeatWorker]  a worker script that posts a message every `every` ms it is
 *   sent (as the bundled heartbeat_worker.js does): its ticks keep the heartbeat in a hidden tab, whose
 *   own timers the browser slows down
 */

/** A refusal from the server (`code` as in PROTOCOL.md §11), or a request the connection lost (`client_…`). */
export class ParlorError extends Error {
  /**
   * @param {string} code  the server's, or `client_offline` (not connected), `client_lost` (the connection
   *   went before the answer: whether it was done is not known), `client_closed` (disconnect()),
   *   `client_socket` (no socket could be opened)
   * @param {string} message  a sentence for people
   * @param {object} [request]  the message refused
   */
  constructor(code, message, request) {
    super(message);
    this.name = 'ParlorError';
    this.code = code;
    this.request = request;
  }
}

/** The state `last` becomes with the `moved` event `m` applied to it (PROTOCOL.md §7.14). */
export function applyMoved(last, m) {
  const cells = Array.isArray(last.board?.cells) ? last.board.cells.slice() : [];
  for (const change of Array.isArray(m.cells) ? m.cells : []) {
    if (Array.isArray(change) && Number.isInteger(change[0])) cells[change[0]] = change[1];
  }
  const next = { ...last, board: { ...last.board, cells } };
  for (const field of ['seq', 'last_move', 'moves', 'to_move', 'position', 'legal_moves', 'clocks', 'draw_offer']) {
    next[field] = m[field];
  }
  // A move ends `resumed`; the history of a snapshot is not this state's.
  delete next.resumed;
  delete next.history;
  delete next.history_display;
  return next;
}

/** The WebSocket address of the page's own server. */
function pageSocketUrl() {
  if (typeof location === 'undefined') throw new TypeError('ParlorClient: give `url` where there is no page');
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
}

/**
 * Whether room message `m` shows that `request`, a message without an answer of its own,
 * was done; `before` is what the room looked like when it was sent (null: unknown).
 */
function shows(request, m, before, me) {
  if (m.room !== request.room) return false;
  if (request.type === 'chat') return m.type === 'chat' && Array.isArray(m.lines) && m.lines.some((l) => l.player_id === me);
  if (m.type !== 'state' && m.type !== 'moved') return false;
  const status = m.type === 'state' ? m.status : 'playing';
  const newGame = before !== null && m.type === 'state' && m.game_id !== before.game_id;
  switch (request.type) {
    case 'move': return before === null || m.moves !== before.moves || newGame || status !== 'playing';
    case 'resign': case 'accept_draw': return status === 'finished';
    case 'offer_draw': return m.draw_offer !== null || status === 'finished';
    case 'decline_draw': return m.draw_offer === null;
    case 'rematch': return newGame || (m.type === 'state' && m.rematch?.length > 0);
    case 'fill_with_bot': return status !== 'waiting';
    case 'claim_victory': case 'claim_draw': return status === 'finished';
    default: return true;
  }
}

/**
 * A connection to a Parlor server that keeps itself up. Listen with `on(type, listener)`,
 * then `connect()`; send with the methods, each a Promise of the server's answer.
 */
export class ParlorClient {
  /** @param {ParlorClientOptions} [options] */
  constructor(options = {}) {
    /** The server's WebSocket address. */
    this.url = options.url ?? pageSocketUrl();
    /** The name said in `hello`; the `welcome`'s name once there is one. */
    this.name = options.name ?? null;
    /** The player's token: given, or the one of the last `welcome` (null when signed in with `jwt`). */
    this.token = options.token ?? null;
    /** The site's token said in `hello`, if any. */
    this.jwt = options.jwt ?? null;
    /** @type {Welcome|null} the last `welcome`: who the client speaks for */
    this.me = null;
    this.options = { heartbeatMs: 4000, pongTimeoutMs: 6000, rejoin: () => true, ...options };
    this.listeners = new Map();
    /** The socket (null between sockets); `wanted` while the client means to be connected. */
    this.ws = null;
    this.wanted = false;
    /** Set once `welcome` arrives on the current socket. */
    this.ready = false;
    // Reconnection: tries since the last welcome, the next one's timer, the server's hint
    // for it (`shutdown.retry_after_ms`), and whether it waits for the browser's network.
    this.retries = 0;
    this.retryTimer = null;
    this.hintMs = null;
    this.waitingForNetwork = false;
    // The heartbeat: its ticks (a worker's or a timer's), when anything last arrived on the
    // socket, and when the last ping went (unanswered while later than lastHeard).
    this.metronome = null;
    this.heartbeatTimer = null;
    this.lastHeard = 0;
    this.pingSentAt = 0;
    this.refs = 0;
    /** Requests waiting for their answer, by `ref`. */
    this.pending = new Map();
    /** Who waits in connect() for the next `welcome`. */
    this.waiters = [];
    /** @type {Map<string, FollowedRoom & {last: object|null}>} */
    this.followed = new Map();
    this.onOffline = () => this.networkLost();
    this.onOnline = () => this.networkBack();
  }

  /**
   * Calls `listener` for each event of this type; returns a function that stops it.
   * @template {keyof ParlorEvents} K
   * @param {K} type
   * @param {(data: ParlorEvents[K], request?: object) => void} listener
   * @returns {() => void}
   */
  on(type, listener) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type).add(listener);
    return () => this.off(type, listener);
  }

  /** Stops calling `listener` for events of this type. */
  off(type, listener) {
    this.listeners.get(type)?.delete(listener);
  }

  /** Whether the socket is open (a request may be sent; before `welcome` the server answers `hello_required`). */
  get isOpen() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  /**
   * Connects (closing any socket already open) and keeps connected until disconnect().
   * Resolves with the next `welcome`; rejects if `hello` is refused (the client then
   * stops) or no socket can be made.
   * @returns {Promise<Welcome>}
   */
  connect() {
    const welcomed = new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.wanted = true;
    this.waitingForNetwork = false;
    this.retries = 0;
    globalThis.addEventListener?.('offline', this.onOffline);
    globalThis.addEventListener?.('online', this.onOnline);
    this.open();
    return welcomed;
  }

  /** Closes the socket, stops reconnecting and forgets the rooms it was in. */
  disconnect() {
    this.stop(new ParlorError('client_closed', 'The client was disconnected.'));
    this.followed.clear();
  }

  /** Drops the socket, if any, and connects again at once, with the backoff reset. */
  reconnectNow() {
    if (!this.wanted) return;
    this.retries = 0;
    this.waitingForNetwork = false;
    this.open();
  }

  /** @returns {FollowedRoom|null} the room if the client is in it (and will come back to it) */
  following(room) {
    const r = this.followed.get(room);
    return r ? { room: r.room, role: r.role, seat: r.seat, seq: r.seq, status: r.status } : null;
  }

  /**
   * Sends a client message (without `ref`: the client sets it) and returns a Promise of
   * its answer: rejected with a ParlorError on refusal. For a message answered by a
   * reply (§6) that reply; for `move`, `resign`, the draw, rematch, bot and claim messages,
   * the first `state` (or `moved`) of the room showing it done; for `chat`, the `chat` with
   * the line. A refusal is not also emitted as an `error` event.
   * @param {{type: string, [field: string]: any}} message
   * @returns {Promise<any>}
   */
  request(message) {
    return new Promise((resolve, reject) => {
      const sent = this.send(message, { resolve, reject });
      if (!sent) reject(new ParlorError('client_offline', 'Not connected to the server.', message));
    });
  }

  /** @returns {Promise<RoomCreated>} `seats`: `me`, `open` or `bot:<level>` each (§6.2) */
  createRoom(game, seats, options) { return this.request({ type: 'create_room', game, seats, options }); }
  /** @returns {Promise<Joined>} seated opposite whoever waits, or in a new room (§6.15) */
  quickJoin(game, timeControl) { return this.request({ type: 'quick_join', game, time_control: timeControl }); }
  /** @returns {Promise<Joined>} `since`: the last `seq` seen, to get only what was missed (§8.1) */
  join(room, seat, { since } = {}) { return this.request({ type: 'join', room, seat, since }); }
  /** @returns {Promise<Joined>} */
  watch(room, { since } = {}) { return this.request({ type: 'watch', room, since }); }
  /** @returns {Promise<Left>} */
  leave(room) { return this.request({ type: 'leave', room }); }
  /**
   * Challenges the bot account `name` (§6.20); the bot's answer comes later as a
   * `challenge_accepted` event (join its room and seat) or `challenge_declined`.
   * @returns {Promise<{challenge: string, seat: Seat}>} the `challenge_sent` answer
   */
  challenge(name, game, { timeControl, seat, rated } = {}) {
    return this.request({ type: 'challenge', name, game, time_control: timeControl, seat, rated });
  }
  /** @returns {Promise<{challenge: string}>} (§6.21) */
  cancelChallenge(challenge) { return this.request({ type: 'cancel_challenge', challenge }); }
  /** @returns {Promise<Rooms>} */
  listRooms() { return this.request({ type: 'list_rooms' }); }
  /**
   * Sent with `after`, the number of moves of the room's last state seen, so that a move
   * arriving after the game moved on is refused (`stale_move`), never played elsewhere (§6.5).
   * @returns {Promise<State|Moved>} the room's state after the move
   */
  move(room, move) {
    const after = this.followed.get(room)?.last?.moves;
    return this.request({ type: 'move', room, move, after: Number.isInteger(after) ? after : undefined });
  }
  /** @returns {Promise<State>} */
  resign(room) { return this.request({ type: 'resign', room }); }
  /** @returns {Promise<State>} */
  offerDraw(room) { return this.request({ type: 'offer_draw', room }); }
  /** @returns {Promise<State>} */
  acceptDraw(room) { return this.request({ type: 'accept_draw', room }); }
  /** @returns {Promise<State>} */
  declineDraw(room) { return this.request({ type: 'decline_draw', room }); }
  /** @returns {Promise<State>} */
  rematch(room) { return this.request({ type: 'rematch', room }); }
  /**
   * A bot of `level` (`random`, `easy`, `medium`, `hard`; the server's fill level when
   * absent) in the open seat of a waiting room this player sits in (§6.18).
   * @returns {Promise<State>} the state of the game it starts
   */
  fillWithBot(room, level) { return this.request({ type: 'fill_with_bot', room, level }); }
  /** @returns {Promise<State>} the finishing state: won by `abandoned` (§6.19), or `aborted` before any move */
  claimVictory(room) { return this.request({ type: 'claim_victory', room }); }
  /** @returns {Promise<State>} the finishing state: drawn by `draw_claimed` (§6.19), or `aborted` before any move */
  claimDraw(room) { return this.request({ type: 'claim_draw', room }); }
  /** @returns {Promise<Chat>} */
  chat(room, text) { return this.request({ type: 'chat', room, text }); }
  /** @returns {Promise<Lobby>} `game`: only its rooms; every game's when absent */
  subscribeLobby(game) { return this.request({ type: 'subscribe_lobby', game }); }
  /** @returns {Promise<LobbyUnsubscribed>} */
  unsubscribeLobby() { return this.request({ type: 'unsubscribe_lobby' }); }
  /** @returns {Promise<Pong>} */
  ping() { return this.request({ type: 'ping' }); }

  // -------------------------------------------------------------------------
  // Within the client

  /**
   * Sends `message` with a `ref` of its own, remembering it until its answer; `waiter`
   * (resolve, reject) hears the answer, or nothing for what the client sends by itself,
   * whose refusals become `error` events. False when the socket is not open.
   */
  send(message, waiter = null) {
    if (!this.isOpen) return false;
    const ref = `c${++this.refs}`;
    const sent = { ...message, ref };
    const room = typeof sent.room === 'string' ? this.followed.get(sent.room) : undefined;
    const entry = { request: sent, waiter, before: room?.last ?? null, was: room ?? null };
    this.pending.set(ref, entry);
    if (sent.type === 'join' || sent.type === 'watch') {
      const seat = sent.type === 'join' ? sent.seat : room?.role === 'player' ? room.seat : null;
      const role = seat === null ? 'spectator' : 'player';
      this.followed.set(sent.room, { room: sent.room, role, seat, seq: room?.seq ?? null, status: room?.status ?? null, last: room?.last ?? null });
    }
    this.ws.send(JSON.stringify(sent));
    return true;
  }

  emit(type, data, request) {
    for (const listener of [...(this.listeners.get(type) ?? [])]) {
      try {
        listener(data, request);
      } catch (err) {
        // One listener's mistake must not stop the others, nor the client.
        globalThis.reportError ? reportError(err) : setTimeout(() => { throw err; });
      }
    }
  }

  /** Opens a socket now, closing any other. */
  open() {
    clearTimeout(this.retryTimer);
    this.drop(new ParlorError('client_lost', 'The connection was replaced before the server answered.'));
    this.emit('connecting', { url: this.url, attempt: this.retries });
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch (err) {
      this.stop(new ParlorError('client_socket', `Could not open a connection to ${this.url}: ${err.message}`));
      return;
    }
    this.ws = ws;
    ws.addEventListener('open', () => {
      if (this.ws !== ws) return;
      this.emit('open', { url: this.url });
      this.startHeartbeat(ws);
      this.hello();
    });
    ws.addEventListener('message', (event) => {
      if (this.ws !== ws || typeof event.data !== 'string') return;
      this.lastHeard = Date.now();
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        console.warn('Parlor: ignoring a frame that is not JSON');
        return;
      }
      if (msg && typeof msg === 'object' && typeof msg.type === 'string') this.receive(msg);
    });
    ws.addEventListener('close', (event) => {
      if (this.ws === ws) this.lost(event.code, event.reason);
    });
  }

  hello() {
    const msg = { type: 'hello' };
    if (this.name !== null) msg.name = this.name;
    if (this.token) msg.token = this.token;
    if (this.jwt) msg.jwt = this.jwt;
    if (this.options.updates) msg.updates = this.options.updates;
    this.send(msg);
  }

  /** One message from the server: answers what it answers, keeps track of rooms, and emits it. */
  receive(msg) {
    const entry = msg.ref !== undefined ? this.pending.get(msg.ref) : undefined;
    const request = entry?.request;
    if (entry && msg.type === 'error') {
      this.pending.delete(msg.ref);
      if (request.type === 'join' || request.type === 'watch') {
        // A refused call leaves the client where it was (watching, say); a refused rejoin, or
        // a room that is gone, leaves it out of the room.
        if (entry.was && entry.waiter && msg.code !== 'unknown_room') this.followed.set(request.room, entry.was);
        else this.followed.delete(request.room);
      }
      const error = new ParlorError(msg.code, msg.message || `The server refused that (${msg.code}).`, request);
      if (entry.waiter) {
        entry.waiter.reject(error);
        return;
      }
      if (request.type === 'hello') this.stop(error);
    } else if (entry && (REPLIES[request.type] ?? msg.type) === msg.type) {
      this.pending.delete(msg.ref);
      entry.waiter?.resolve(msg);
    }
    this.track(msg);
    if (msg.type === 'welcome' && request?.type === 'hello') this.welcomed(msg);
    if (msg.type === 'shutdown' && Number.isFinite(msg.retry_after_ms) && msg.retry_after_ms >= 0) {
      this.hintMs = Math.min(msg.retry_after_ms, BACKOFF_MAX_MS);
    }
    this.emit('message', msg, request);
    if (SERVER_TYPES.has(msg.type)) this.emit(msg.type, msg, request);
    if (msg.type === 'welcome') {
      for (const waiter of this.waiters.splice(0)) waiter.resolve(msg);
    }
    this.settle(msg);
  }

  welcomed(msg) {
    this.ready = true;
    this.retries = 0;
    this.me = msg;
    this.token = msg.token ?? null;
    if (typeof msg.name === 'string') this.name = msg.name;
    // Back to the rooms it was in, saying the last state seen (§8.1).
    for (const [id, r] of [...this.followed]) {
      if (!this.options.rejoin(this.following(id))) {
        this.followed.delete(id);
        continue;
      }
      const since = Number.isInteger(r.seq) ? r.seq : undefined;
      this.send(r.role === 'player' && r.seat !== null ? { type: 'join', room: id, seat: r.seat, since } : { type: 'watch', room: id, since });
    }
  }

  /** Keeps, for each room the client is in, its seat, status and last `seq`. */
  track(msg) {
    const r = typeof msg.room === 'string' ? this.followed.get(msg.room) : undefined;
    if (msg.type === 'joined') {
      const seat = msg.seat === 0 || msg.seat === 1 ? msg.seat : null;
      this.followed.set(msg.room, { ...(r ?? { room: msg.room, seq: null, status: null, last: null }), seat, role: msg.role === 'player' ? 'player' : 'spectator' });
      return;
    }
    if (['left', 'replaced', 'room_closed'].includes(msg.type)) this.followed.delete(msg.room);
    if (!r || !Number.isInteger(msg.seq)) return;
    if (msg.type === 'moved') {
      // A `moved` that does not follow the last seq means frames were lost: keep the last one
      // before the gap, so that a rejoin asks for them again.
      if (r.seq === null || msg.seq === r.seq + 1) r.seq = msg.seq;
      if (r.last) r.last = { ...r.last, moves: msg.moves, draw_offer: msg.draw_offer };
    } else if (r.seq === null || msg.seq > r.seq) {
      r.seq = msg.seq;
    }
    if (msg.type !== 'state') return;
    r.status = msg.status;
    r.last = { game_id: msg.game_id, moves: msg.moves, draw_offer: msg.draw_offer };
    const mine = this.me && Array.isArray(msg.seats) ? msg.seats.find((x) => x.player_id === this.me.player_id) : null;
    if (r.role === 'player' && mine) r.seat = mine.seat;
  }

  /** Resolves the requests without an answer of their own that room message `msg` shows done. */
  settle(msg) {
    if (typeof msg.room !== 'string') return;
    for (const [ref, entry] of this.pending) {
      if (REPLIES[entry.request.type] || !entry.waiter) continue;
      if (shows(entry.request, msg, entry.before, this.me?.player_id)) {
        this.pending.delete(ref);
        entry.waiter.resolve(msg);
      }
    }
  }

  /** The socket is gone (closed, silent, or its network went away): reconnect as wanted. */
  lost(code, reason) {
    this.drop(new ParlorError('client_lost', 'The connection was lost before the server answered; whether it was done is not known.'));
    const again = this.wanted && !this.waitingForNetwork;
    this.emit('close', { code, reason, reconnecting: this.wanted });
    if (again) this.scheduleRetry();
  }

  /** Stops for good (until connect()): no socket, no retry, and `error` for whoever waits. */
  stop(error) {
    const had = this.wanted || this.ws !== null;
    this.wanted = false;
    clearTimeout(this.retryTimer);
    globalThis.removeEventListener?.('offline', this.onOffline);
    globalThis.removeEventListener?.('online', this.onOnline);
    this.drop(error);
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
    if (had) this.emit('close', { code: null, reason: error.message, reconnecting: false });
  }

  /** Closes the socket without waiting (a dead socket's close may never finish); `error` for requests in flight. */
  drop(error) {
    const ws = this.ws;
    this.ws = null;
    this.ready = false;
    this.stopHeartbeat();
    if (ws && ws.readyState <= WebSocket.OPEN) ws.close(1000, 'bye');
    for (const entry of this.pending.values()) entry.waiter?.reject(error);
    this.pending.clear();
  }

  scheduleRetry() {
    const backoff = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** this.retries);
    const base = this.hintMs ?? backoff;
    this.hintMs = null;
    const delay = base + Math.round(base * 0.2 * Math.random());
    this.retries += 1;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.open(), delay);
    this.emit('reconnecting', { delay, attempt: this.retries });
  }

  /** The browser says the network is gone: give the socket up, and wait for it to return. */
  networkLost() {
    if (!this.wanted) return;
    this.waitingForNetwork = true;
    clearTimeout(this.retryTimer);
    if (this.ws) this.lost(null, 'the browser went offline');
    this.emit('offline', {});
  }

  /** The network is back: reconnect now rather than at the next step of the backoff. */
  networkBack() {
    if (this.wanted && !this.isOpen) this.reconnectNow();
  }

  /**
   * Pings every few seconds, and gives the socket up once a ping has gone unanswered for
   * too long. Only an unanswered ping counts: ticks that come late (a hidden page's
   * timers slowed down) never make a live socket look dead.
   */
  startHeartbeat(ws) {
    this.stopHeartbeat();
    this.lastHeard = Date.now();
    this.pingSentAt = 0;
    const beat = () => {
      if (this.ws !== ws) return;
      const now = Date.now();
      const awaiting = this.pingSentAt > this.lastHeard;
      if (awaiting && now - this.pingSentAt > this.options.pongTimeoutMs) {
        this.lost(null, `no answer to a ping for ${this.options.pongTimeoutMs} ms`);
      } else if (!awaiting && this.isOpen) {
        this.ws.send('{"type":"ping"}');
        this.pingSentAt = now;
      }
    };
    // The first ping goes at once: it tells the server this socket keeps a heartbeat
    // (PROTOCOL.md §2.3), so a silence is taken for a dead network from the start.
    beat();
    this.metronome ??= this.makeMetronome();
    if (this.metronome) {
      this.metronome.onmessage = beat;
      this.metronome.postMessage({ every: this.options.heartbeatMs });
    } else {
      this.heartbeatTimer = setInterval(beat, this.options.heartbeatMs);
    }
  }

  /** The heartbeat worker of the options, or null (none given, or it cannot start here). */
  makeMetronome() {
    if (!this.options.heartbeatWorker) return null;
    try {
      return new Worker(this.options.heartbeatWorker);
    } catch {
      return null;
    }
  }

  stopHeartbeat() {
    this.metronome?.postMessage({ every: 0 });
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
  }
}
