// What each message from the server does to what the page knows (docs/PROTOCOL.md):
// one handler per message type, then the page is drawn again. Also follows the game
// between states: this player's seat after a rematch, the answer to a draw offer, and
// the boards kept for replays.

import {
  app, ui, local, KEY_TOKEN, KEY_NAME, currentGame, resetPick, isFlipped,
} from './state.js';
import { soundFor, playSound } from './sound.js';
import { showError, showNotice, setConnection } from './notices.js';
import {
  send, sendMove, closeSocket, subscribeLobby, rememberRoom, forgetRoom, resumeRoom, exitRoom, followLink, startAfterWelcome,
  guestName,
} from './actions.js';
import { render } from './render.js';
import { showBoard } from './board_view.js';
import { sidesOf, emphasisOf } from './boards/index.js';
import { seatName } from './sides.js';
import { showRoomInAddress } from './link.js';
import { addChatLines, clearChat } from './chat.js';
import { premovedMove } from './premove.js';

const PROTOCOL = 1;
const SEEN_GAMES_MAX = 8; // games whose boards are kept in memory for replays

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
    startAfterWelcome();
    subscribeLobby();
    app.recent.load();
    render();
  },

  room_created(m) {
    // `joined` and `state` follow when we took a seat; two bots' room is watched.
    if (m.ref === 'bots' && typeof m.room === 'string') send({ type: 'watch', room: m.room, ref: 'watch' });
  },

  joined(m) {
    app.catchingUp = null;
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
      app.showBoard = true;
    }
    app.pendingMove = false;
    // The server sends what was said so far right after the state that follows.
    clearChat();
    rememberRoom();
    showRoomInAddress(m.room);
    render();
  },

  chat(m) {
    addChatLines(m);
  },

  state(m) {
    if (!app.room || m.room !== app.room.id) return;
    const previous = app.state;
    const sameGame = previous && previous.game_id === m.game_id;
    if (sameGame && typeof m.seq === 'number' && typeof previous.seq === 'number' && m.seq < previous.seq) return;
    if (!sameGame) {
      app.over = null;
      app.browsing = null;
    }
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
    const sound = soundFor(previous, m, emphasisOf(m.game, m));
    if (sound) playSound(sound);
    // The invitation's notice is about a seat still open: gone once the game is on.
    if (ui.notice.dataset.kind === 'invite' && m.status !== 'waiting') showNotice('');
    if (m.resumed === true && previous?.resumed !== true) {
      showNotice('The server restarted. This game goes on where it stopped; the clocks did not run meanwhile.', 'resumed');
    }
    if (!unanswered) app.pendingMove = false;
    followMySeat(m);
    noteDrawAnswer(previous, m, sameGame);
    keepBoard(m);
    // A new game in this room (a rematch) takes over from a replay of the last one.
    if (!sameGame && m.status === 'playing') {
      app.replay.close({ focus: false });
      if (previous) app.showBoard = true;
    }
    if (typeof m.game === 'string' && app.room.game !== m.game) {
      app.room.game = m.game;
      rememberRoom();
      app.leaderboard.show(m.game);
    }
    if (m.status === 'finished') forgetRoom();
    else if (app.room.role === 'player') rememberRoom(); // again, after a rematch
    // A premove is played the moment the turn comes (or dropped, saying why).
    const premoved = premovedMove((why) => showNotice(why, 'premove'));
    render();
    if (premoved) sendMove(premoved);
    if (app.showBoard) {
      app.showBoard = false;
      showBoard();
    }
  },

  moved(m) {
    // A move as an event (we ask for these in hello; PROTOCOL.md §7.14): applied to the
    // last state, it is the state the room would have sent.
    const last = app.state;
    if (!app.room || m.room !== app.room.id || !last || last.room !== m.room) return;
    if (typeof m.seq !== 'number' || typeof last.seq !== 'number' || m.seq <= last.seq) return;
    if (m.seq !== last.seq + 1) {
      // Frames were lost: come back saying the last one seen, once per gap (§8.1).
      if (app.catchingUp !== last.seq) {
        app.catchingUp = last.seq;
        resumeRoom();
      }
      return;
    }
    handlers.state(withMove(last, m));
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
    app.conn.retryAfter(m.retry_after_ms);
    const restarting = m.reason === 'restarting';
    const text = restarting
      ? 'The server is restarting. Your game is kept and its clocks stand still; this page reconnects by itself.'
      : `${m.message || 'The server is stopping.'} This page reconnects by itself.`;
    showNotice(text, 'shutdown');
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
    let message = m.message || `The server refused that (${m.code || 'error'}).`;
    if (m.ref === 'hello') {
      // The server's own text speaks of tokens, which this page never shows anyone.
      if (m.code === 'name_taken') {
        const name = ui['name-input'].value.trim();
        if (app.afterWelcome && /^Guest \d{4}$/.test(name)) {
          // A guest name already taken: draw another and sign in again.
          ui['name-input'].value = guestName();
          ui['login-form'].requestSubmit();
          return;
        }
        message = `The name “${name}” belongs to another player. Choose another name.`;
      }
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
    // Leaving a room that closed meanwhile (a finished room's idle time ran out) has
    // already done what leaving is for.
    if (m.ref === 'leave' && m.code === 'unknown_room') return;
    if (m.ref === 'move') app.pendingMove = false;
    showError(message, m.code);
    render();
  },
};

/** Handles one message from the server. Unknown message types are ignored: the protocol grows. */
export function dispatch(msg) {
  const handler = Object.hasOwn(handlers, msg.type) ? handlers[msg.type] : null;
  if (handler) handler(msg);
}

/** The state `last` becomes with the `moved` event `m` applied (PROTOCOL.md §7.14). */
function withMove(last, m) {
  const cells = Array.isArray(last.board?.cells) ? last.board.cells.slice() : [];
  for (const change of Array.isArray(m.cells) ? m.cells : []) {
    if (Array.isArray(change) && Number.isInteger(change[0])) cells[change[0]] = change[1];
  }
  const next = {
    ...last,
    seq: m.seq,
    last_move: m.last_move,
    moves: m.moves,
    to_move: m.to_move,
    position: m.position,
    legal_moves: m.legal_moves,
    clocks: m.clocks,
    draw_offer: m.draw_offer,
    board: { ...last.board, cells },
  };
  // A move ends `resumed`; the history of a snapshot is not this state's.
  delete next.resumed;
  delete next.history;
  delete next.history_display;
  return next;
}

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
