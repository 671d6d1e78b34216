// The WebSocket to the server: one JSON object per frame, and reconnection with
// exponential backoff (and some jitter) for as long as the page wants to be online.
// It notices a connection that died without closing (a heartbeat of `ping`s, PROTOCOL.md
// §6.16) and the browser going offline and back online. It knows nothing else of the
// protocol beyond JSON; actions.js says hello and messages.js handles the messages.

const BACKOFF_FIRST_MS = 1000;
const BACKOFF_MAX_MS = 30000;
/** How often a `ping` is sent while the socket is open (the server expects one within 15 s). */
const HEARTBEAT_EVERY_MS = 4000;
/** How long a `ping` may go unanswered (nothing at all arriving) before the socket is given up. */
const PONG_PATIENCE_MS = 6000;

function socketUrl() {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}/ws`;
}

/**
 * hooks = {
 *   open(): the socket is open (say hello),
 *   message(msg): a JSON object arrived,
 *   closed(): the socket closed (a reconnect follows if still wanted),
 *   status(state, text): 'connecting', 'reconnecting' or 'offline', for the page to show,
 *   failed(message): the socket could not even be created,
 * }
 */
export class Connection {
  constructor(hooks) {
    this.hooks = hooks;
    this.ws = null;
    /** The page asked to be online: reconnect when the socket drops. */
    this.wanted = false;
    this.retries = 0;
    this.retryTimer = null;
    this.countdownTimer = null;
    /** The server's own hint for the next reconnection (`shutdown.retry_after_ms`). */
    this.hintMs = null;
    /** The heartbeat's ticks: a worker's (see heartbeat_worker.js), else a page timer. */
    this.metronome = null;
    this.heartbeatTimer = null;
    /** When anything last arrived on the open socket (Date.now()). */
    this.lastHeard = 0;
    /** When the last `ping` was sent (Date.now()); unanswered while later than lastHeard. */
    this.pingSentAt = 0;
    window.addEventListener('offline', () => this.networkLost());
    window.addEventListener('online', () => this.networkBack());
  }

  get isOpen() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  /** Sends a message; false if the socket is not open. */
  send(message) {
    if (!this.isOpen) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  /** Opens a socket now (closing any other), and keeps reconnecting until stop(). */
  start() {
    this.cancelRetry();
    this.drop();
    this.wanted = true;
    this.hooks.status('connecting', 'connecting…');
    let ws;
    try {
      ws = new WebSocket(socketUrl());
    } catch (err) {
      this.wanted = false;
      this.hooks.status('offline');
      this.hooks.failed(`Could not open a connection: ${err.message}`);
      return;
    }
    this.ws = ws;
    ws.addEventListener('open', () => {
      if (this.ws !== ws) return;
      this.hooks.status('connecting', 'signing in…');
      this.startHeartbeat(ws);
      this.hooks.open();
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
      if (msg && typeof msg === 'object' && msg.type !== 'pong') this.hooks.message(msg);
    });
    ws.addEventListener('close', () => {
      if (this.ws !== ws) return;
      this.lost();
    });
  }

  /** The socket is gone (closed, silent, or its network went away): reconnect as wanted. */
  lost() {
    // A dead socket's close handshake may never finish: drop it without waiting.
    this.drop();
    if (this.wanted) this.scheduleRetry();
    else this.hooks.status('offline');
    this.hooks.closed();
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
      if (awaiting && now - this.pingSentAt > PONG_PATIENCE_MS) this.lost();
      else if (!awaiting && this.send({ type: 'ping' })) this.pingSentAt = now;
    };
    // The first ping goes at once: it tells the server this socket keeps a heartbeat
    // (PROTOCOL.md §2.3), so a silence is taken for a dead network from the start.
    beat();
    this.metronome ??= this.makeMetronome();
    if (this.metronome) {
      this.metronome.onmessage = beat;
      this.metronome.postMessage({ every: HEARTBEAT_EVERY_MS });
    } else {
      this.heartbeatTimer = setInterval(beat, HEARTBEAT_EVERY_MS);
    }
  }

  /** A worker that ticks for the heartbeat, or null where workers cannot start. */
  makeMetronome() {
    try {
      return new Worker(new URL('./heartbeat_worker.js', import.meta.url));
    } catch {
      return null;
    }
  }

  stopHeartbeat() {
    this.metronome?.postMessage({ every: 0 });
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
  }

  /** The browser says the network is gone: give the socket up, and wait for it to return. */
  networkLost() {
    if (!this.wanted) return;
    if (this.ws) this.lost();
    this.cancelRetry();
    this.hooks.status('reconnecting', 'offline: reconnecting when the network is back…');
  }

  /** The network is back: reconnect now rather than at the next step of the backoff. */
  networkBack() {
    if (this.wanted && !this.isOpen) this.retryNow();
  }

  /** Closes the socket and stops reconnecting. */
  stop() {
    this.wanted = false;
    this.cancelRetry();
    this.drop();
    this.hooks.status('offline');
  }

  /** Tries again at once, with the backoff reset. */
  retryNow() {
    this.retries = 0;
    this.start();
  }

  /** The server accepted us: the next drop starts the backoff from the beginning. */
  succeeded() {
    this.retries = 0;
  }

  drop() {
    const ws = this.ws;
    this.ws = null;
    this.stopHeartbeat();
    if (ws && ws.readyState <= WebSocket.OPEN) ws.close(1000, 'bye');
  }

  cancelRetry() {
    clearTimeout(this.retryTimer);
    clearInterval(this.countdownTimer);
    this.retryTimer = null;
  }

  /** The server says when to come back: the next try waits that long, not the backoff. */
  retryAfter(ms) {
    if (Number.isFinite(ms) && ms >= 0) this.hintMs = Math.min(ms, BACKOFF_MAX_MS);
  }

  scheduleRetry() {
    const backoff = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** this.retries);
    const delay = this.hintMs ?? backoff;
    this.hintMs = null;
    const jitter = Math.round(delay * 0.2 * Math.random());
    this.retries += 1;
    const at = Date.now() + delay + jitter;
    const tick = () => {
      const left = Math.max(0, Math.ceil((at - Date.now()) / 1000));
      this.hooks.status('reconnecting', left > 0 ? `reconnecting… next try in ${left} s` : 'reconnecting…');
    };
    this.cancelRetry();
    tick();
    this.countdownTimer = setInterval(tick, 1000);
    this.retryTimer = setTimeout(() => this.start(), delay + jitter);
  }
}
