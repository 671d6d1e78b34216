// What each message from the server does to what the page knows (docs/PROTOCOL.md):
// one handler per message type, which changes the state and has the page drawn again
// (store.js). The messages come from the page's ParlorClient (connection.js), which
// answers the page's requests itself: refusals reach a handler here only for what the
// client sent by itself (hello, and joining a room again after a reconnect). Also follows the game between states: this player's seat after a rematch,
// the answer to a draw offer, and the boards kept for replays. The cards a message
// concerns (the replay, the leaderboard, the recent games) come as `cards`.

import {
  app, ui, local, KEY_TOKEN, KEY_NAME, currentGame, resetPick, isFlipped, enterRoom,
} from './state.js';
import { update, flush } from './store.js';
import { soundFor, playSound } from './sound.js';
import { showError, showNotice, dropNotice, setConnection } from './notices.js';
import {
  sendMove, closeSocket, subscribeLobby, rememberRoom, forgetRoom, resumeRoom, catchUp, resumeFailed, exitRoom, followLink,
  startAfterWelcome, guestName, disarmResign, connect,
} from './actions.js';
import { applyMoved } from './parlor-client.js';
import { forgetSiteToken } from './site_sign_in.js';
import { sidesOf, emphasisOf } from './boards/index.js';
import { seatName } from './sides.js';
import { showRoomInAddress } from './link.js';
import { premovedMove } from './premove.js';
import { noteAway } from './away.js';
import { challengeAccepted, challengeDeclined } from './challenges.js';

const PROTOCOL = 1;
const SEEN_GAMES_MAX = 8; // games whose boards are kept in memory for replays
/** Chat lines kept on the page. */
const KEPT_CHAT_LINES = 200;

const handlers = {
  welcome(m, cards) {
    app.ready = true;
    app.me = { player_id: m.player_id, name: m.name, token: m.token, signedIn: m.signed_in === true };
    app.roomSettings = m.room_settings && typeof m.room_settings === 'object' ? m.room_settings : null;
    if (m.token) local.set(KEY_TOKEN, m.token);
    // Signed in with the site's token: a guest's token, linked now or refused, has had its day.
    if (m.signed_in === true) local.remove(KEY_TOKEN);
    if (m.name) local.set(KEY_NAME, m.name);
    setConnection('online');
    dropNotice('shutdown');
    if (typeof m.protocol === 'number' && m.protocol !== PROTOCOL) {
      showNotice(`The server speaks protocol ${m.protocol}; this page was written for ${PROTOCOL}. Reload to update.`);
    }
    resumeRoom();
    followLink();
    startAfterWelcome();
    subscribeLobby();
    cards.recent.load();
    update();
  },

  challenge_accepted: challengeAccepted,
  challenge_declined: challengeDeclined,

  joined(m, cards) {
    const seat = typeof m.seat === 'number' ? m.seat : null;
    const role = m.role === 'player' ? 'player' : 'spectator';
    const sameRoom = app.room && app.room.id === m.room;
    const known = sameRoom ? app.room.game : app.rooms.get(m.room)?.game;
    // A room this page has just asked for: its game is the one asked for.
    const game = known ?? app.pendingGame;
    // Whether a room this page has just created or been given fills itself (actions.js).
    const botFill = app.pendingBotFill;
    app.pendingBotFill = null;
    if (sameRoom) {
      Object.assign(app.room, { seat, role, game: game ?? undefined, detached: false });
    } else {
      app.room = enterRoom({ id: m.room, seat, role, game: game ?? undefined, botFill });
      app.room.showBoard = true;
      cards.replay.close({ focus: false });
    }
    const room = app.room;
    room.catchingUp = null;
    room.pendingMove = false;
    // The server sends what was said so far right after the state that follows.
    room.chat = { channel: null, lines: [] };
    rememberRoom();
    showRoomInAddress(m.room);
    dropNotice('moving');
    update();
  },

  room_moving(m) {
    // The server puts this page back into the room by itself: a `joined` follows.
    if (app.room && m.room === app.room.id) {
      showNotice('This game is moving to another server of the site; you are back in it in a moment.', 'moving');
    }
  },

  chat(m) {
    const room = app.room;
    if (!room || m.room !== room.id || !Array.isArray(m.lines)) return;
    update(() => {
      room.chat.channel = m.channel === 'spectators' ? 'spectators' : 'players';
      for (const line of m.lines) {
        if (typeof line?.text === 'string') room.chat.lines.push(line);
      }
      room.chat.lines.splice(0, Math.max(0, room.chat.lines.length - KEPT_CHAT_LINES));
    }, 'chat');
  },

  state(m, cards) {
    const room = app.room;
    if (!room || m.room !== room.id) return;
    const previous = room.state;
    const sameGame = previous && previous.game_id === m.game_id;
    if (sameGame && typeof m.seq === 'number' && typeof previous.seq === 'number' && m.seq < previous.seq) return;
    if (!sameGame) {
      room.over = null;
      room.browsing = null;
    }
    // The moves as players write them (SAN in chess), from the snapshot and each state.
    if (Array.isArray(m.history_display) || Array.isArray(m.history)) {
      room.moves = (m.history_display ?? m.history).map(String);
    } else if (!sameGame) {
      room.moves = [];
    }
    if (typeof m.moves === 'number') {
      if (m.last_move && room.moves.length === m.moves - 1) room.moves.push(String(m.last_move.display ?? m.last_move.move));
      if (room.moves.length > m.moves) room.moves.length = m.moves;
    }
    // A state that changes nothing in the game (a spectator came, say) does not answer
    // the move in flight: that one is answered by a state with one more move, or an error.
    const unanswered = room.pendingMove && sameGame && m.status === 'playing' && m.moves === previous.moves;
    room.state = m;
    room.clockAt = performance.now();
    noteAway(room, previous, m, room.clockAt);
    offerBotWhenWaited(room, m);
    const arrived = arrivalOf(previous, m);
    const sound = arrived ? 'arrive' : soundFor(previous, m, emphasisOf(m.game, m));
    if (sound) playSound(sound);
    if (arrived) showNotice(`${arrived} arrived and took the seat opposite you.`, 'arrived');
    // Seen ending here (not found ended after a reload): its result is brought into view.
    if (m.status === 'finished' && previous && previous.status !== 'finished') room.showResult = true;
    // The invitation's notice is about a seat still open: gone once the game is on.
    if (m.status !== 'waiting') dropNotice('invite');
    // Who arrived is old news once both sides have moved.
    if (typeof m.moves === 'number' && m.moves >= 2) dropNotice('arrived');
    // Nor does a dropped premove matter once the game is over: its result does.
    if (m.status === 'finished') dropNotice('premove', 'arrived');
    if (m.resumed === true && previous?.resumed !== true) {
      showNotice('The server restarted. This game goes on where it stopped; the clocks did not run meanwhile.', 'resumed');
    }
    if (!unanswered) room.pendingMove = false;
    // Resign is armed for the game being played only.
    if (m.status !== 'playing') disarmResign();
    followMySeat(m);
    noteDrawAnswer(previous, m, sameGame);
    keepBoard(m);
    // A new game in this room (a rematch) takes over from a replay of the last one.
    if (!sameGame && m.status === 'playing') {
      cards.replay.close({ focus: false });
      if (previous) room.showBoard = true;
    }
    if (typeof m.game === 'string' && room.game !== m.game) {
      room.game = m.game;
      rememberRoom();
      cards.leaderboard.show(m.game);
    }
    if (m.status === 'finished') forgetRoom();
    else if (room.role === 'player') rememberRoom(); // again, after a rematch
    // A premove is played the moment the turn comes (or dropped, saying why).
    const premoved = premovedMove((why) => showNotice(why, 'premove'));
    update();
    if (premoved) {
      // Drawn at once: the turn is shown as it came, the board the player's (and their
      // focus back on it, board_view.js), before the premove is sent from it.
      flush();
      sendMove(premoved);
    }
  },

  moved(m, cards) {
    // A move as an event (we ask for these in hello; PROTOCOL.md §7.14): applied to the
    // last state, it is the state the room would have sent.
    const room = app.room;
    const last = room?.state;
    if (!room || m.room !== room.id || !last || last.room !== m.room) return;
    if (typeof m.seq !== 'number' || typeof last.seq !== 'number' || m.seq <= last.seq) return;
    if (m.seq !== last.seq + 1) {
      // Frames were lost: come back saying the last one seen, once per gap (§8.1).
      if (room.catchingUp !== last.seq) {
        room.catchingUp = last.seq;
        catchUp();
      }
      return;
    }
    handlers.state(applyMoved(last, m), cards);
  },

  game_over(m, cards) {
    cards.leaderboard.load();
    if (!app.room || m.room !== app.room.id) return;
    app.room.over = m;
    // The result grows with what game_over tells (ratings): into view again.
    app.room.showResult = true;
    cards.recent.load();
    forgetRoom();
    update();
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

  room_closed(m) {
    if (app.room && m.room === app.room.id) {
      exitRoom();
      showNotice(m.message || 'The server’s operator closed this room.');
    }
  },

  shutdown(m) {
    // The client reconnects by itself, after the time the server asks for.
    const restarting = m.reason === 'restarting';
    const text = restarting
      ? 'The server is restarting. Your game is kept and its clocks stand still; this page reconnects by itself.'
      : `${m.message || 'The server is stopping.'} This page reconnects by itself.`;
    showNotice(text, 'shutdown');
  },

  rooms(m) {
    update(() => app.rooms.reset(m.rooms), 'rooms');
  },

  lobby(m) {
    update(() => app.rooms.reset(m.rooms), 'rooms');
  },

  lobby_update(m) {
    update(() => app.rooms.apply(m), 'rooms');
  },

  error(m, cards, request) {
    let message = m.message || `The server refused that (${m.code || 'error'}).`;
    if (request?.type === 'hello') {
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
      if (m.code === 'already_linked') {
        // This browser's guest cannot join the account: sign in with the account alone.
        local.remove(KEY_TOKEN);
        connect();
        return;
      }
      // The site's token was refused: go on as a guest, with the server's reason shown.
      if (typeof m.code === 'string' && m.code.startsWith('token_')) forgetSiteToken();
      // Still signing in: send the user back to the name form.
      closeSocket();
      app.me = null;
      showError(message, m.code);
      update();
      // Drawn at once: the name form is hidden until then, and a hidden field takes no focus.
      flush();
      ui['name-input'].focus();
      return;
    }
    // The client could not join the room again after a reconnect.
    if (request?.type === 'join' || request?.type === 'watch') {
      resumeFailed({ code: m.code, message });
      return;
    }
    showError(message, m.code);
    update();
  },
};

/**
 * Handles one message from the server; `cards` = { replay, leaderboard, recent }, the
 * cards some messages load or close; `request` is what the client sent that an `error`
 * refused. Unknown message types are ignored: the protocol grows.
 */
export function dispatch(msg, cards, request) {
  const handler = Object.hasOwn(handlers, msg.type) ? handlers[msg.type] : null;
  if (handler) handler(msg, cards, request);
}

/**
 * The name of the person who has just taken the open seat opposite this player between
 * states `previous` and `s` of a room, or null.
 */
function arrivalOf(previous, s) {
  const room = app.room;
  if (!previous || room.role !== 'player' || !Array.isArray(previous.seats) || !Array.isArray(s.seats)) return null;
  const came = s.seats.find((seat) => seat.seat !== room.seat && seat.kind === 'human'
    && previous.seats.some((was) => was.seat === seat.seat && was.kind === 'open'));
  return came ? seatName(came) : null;
}

/**
 * A player waiting for an opponent is offered "Play a bot instead": in a room that fills
 * itself at once (why wait for its bot?), in one opened for a friend once they have waited
 * as long as such a room would have (welcome.room_settings.bot_fill_after_ms).
 */
function offerBotWhenWaited(room, s) {
  const waiting = room.role === 'player' && s.status === 'waiting' && Array.isArray(s.seats) && s.seats.some((x) => x.kind === 'open');
  if (!waiting) {
    clearTimeout(room.botOfferTimer);
    Object.assign(room, { botOffered: false, botOfferTimer: null });
    return;
  }
  if (room.botOffered || room.botOfferTimer !== null) return;
  const after = app.roomSettings?.bot_fill_after_ms;
  const ms = room.botFill === false && Number.isFinite(after) ? after : 0;
  room.botOfferTimer = setTimeout(() => update(() => Object.assign(room, { botOffered: true, botOfferTimer: null })), ms);
}

/** After a rematch the seats are swapped: find this player's seat again by player id. */
function followMySeat(s) {
  const room = app.room;
  if (room.role !== 'player' || !app.me || !Array.isArray(s.seats)) return;
  const mine = s.seats.find((x) => x.player_id && x.player_id === app.me.player_id);
  if (mine && mine.seat !== room.seat) {
    room.seat = mine.seat;
    room.orientation = null;
    resetPick('');
  }
}

/** Notes what became of this player's draw offer: declined, or lapsed by a move. */
function noteDrawAnswer(previous, s, sameGame) {
  const room = app.room;
  if (!sameGame || !previous || room.role !== 'player' || s.status !== 'playing') {
    room.drawNote = '';
    return;
  }
  const me = room.seat;
  if (previous.draw_offer === me && s.draw_offer !== me) {
    const other = s.seats?.find((x) => x.seat === 1 - me);
    room.drawNote = s.moves !== previous.moves
      ? `${seatName(other)} moved instead of answering, so your draw offer lapsed.`
      : `${seatName(other)} declined your draw offer.`;
  } else if (s.moves !== previous.moves) {
    room.drawNote = '';
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
