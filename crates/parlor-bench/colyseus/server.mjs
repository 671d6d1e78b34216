/**
 * Tic-tac-toe rooms on Colyseus 0.18 that send Parlor's frames, for parlor-bench to load
 * as a real peer of Parlor and of its two bare baselines (src/bin/baseline/).
 *
 * It owns one room type, `tictactoe`, ported from the baselines' conn.rs and rooms.rs:
 * the same rules, the same refusals and the same `state`, `moved`, `joined`,
 * `game_over` and `error` texts, byte for byte (ids aside;
 * tests/colyseus_sends_parlors_bytes.rs checks it). Colyseus does the rest: matchmaking
 * over HTTP, one WebSocket per client and room, its binary framing. No schema state is
 * kept, so Colyseus sends no state and no patches: each Parlor frame whose JSON `type` is
 * T goes out as the Colyseus message T whose payload is the frame's JSON text (a msgpack
 * string), and the room takes `move` and `rematch` likewise, as Parlor's JSON text.
 *
 * Joining is matchmaking: `create` or `joinById` with the options
 * `{"player_id": …, "name": …, "seat": 0|1}` for a player (the creator takes seat 0) or
 * `{"player_id": …, "name": …, "watch": true}` for a spectator, and `"updates": "moves"`
 * to hear of moves as `moved` events (Parlor's `hello.updates`). Leaving is closing the
 * room's connection.
 *
 * `node server.mjs [--port N] [--bind ADDR]` (port 0 picks a free one) prints
 * `listening on http://ADDR:PORT` once it accepts connections.
 */

import { parseArgs } from "node:util";
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";

import { ErrorCode, Room, ServerError, defineRoom, defineServer } from "@colyseus/core";
import { WebSocketTransport } from "@colyseus/ws-transport";

/** The cells that win, as parlor-rules' `tictactoe::LINES`. */
const LINES = [
  [0, 1, 2],
  [3, 4, 5],
  [6, 7, 8],
  [0, 3, 6],
  [1, 4, 7],
  [2, 5, 8],
  [0, 4, 8],
  [2, 4, 6],
];

const EMPTY = Array(9).fill(null);

/** A client-caused refusal: Parlor's `error` frame, its code and message. */
function refusal(code, message) {
  return `{"type":"error","code":"${code}","message":"${message}"}`;
}

const BAD_MESSAGE = refusal(
  "bad_message",
  "A Colyseus room understands move and rematch; joining, watching and leaving are matchmaking.",
);
const UNKNOWN_ROOM = refusal("unknown_room", "There is no room with that id.");
const NOT_A_PLAYER = refusal("not_a_player", "You hold no seat in this room.");

/** A refused join: the client's join fails with the `error` frame's text as its message. */
function refuseJoin(text) {
  return new ServerError(ErrorCode.APPLICATION_ERROR, text);
}

/** Sixteen random hex digits, as the baselines' ids have. */
function hex16() {
  return randomBytes(8).toString("hex");
}

/** The player the join options speak for, and how they hear of moves; throws a refusal. */
function identify(options) {
  const { player_id: id, name, updates } = options ?? {};
  if (typeof id !== "string" || id === "" || typeof name !== "string") {
    throw refuseJoin(BAD_MESSAGE);
  }
  if (updates !== undefined && updates !== null && updates !== "moves" && updates !== "states") {
    throw refuseJoin(BAD_MESSAGE);
  }
  // Rust's str::trim and char::is_control, as the baselines check a name.
  const trimmed = name.replace(/^\p{White_Space}+|\p{White_Space}+$/gu, "");
  const chars = [...trimmed].length;
  if (chars === 0 || chars > 24 || /\p{Cc}/u.test(trimmed)) {
    throw refuseJoin(refusal("bad_name", "A name is 1 to 24 printable characters."));
  }
  return {
    player: { id, idJson: JSON.stringify(id), nameJson: JSON.stringify(trimmed) },
    moves: updates === "moves",
  };
}

/** A new game, X (seat 0) to move. */
function newGame() {
  return { id: `g_${hex16()}`, cells: [...EMPTY], history: [], started: performance.now(), result: null };
}

function toMove(game) {
  return game.result === null ? game.history.length % 2 : null;
}

function play(game, seat, cell) {
  game.cells[cell] = seat;
  game.history.push(cell);
  if (LINES.some((line) => line.every((i) => game.cells[i] === seat))) {
    game.result = { winner: seat, reason: "three_in_a_row" };
  } else if (game.history.length === 9) {
    game.result = { winner: null, reason: "board_full" };
  }
}

function numberOrNull(value) {
  return value === null ? "null" : `${value}`;
}

function mark(cell) {
  return cell === null ? "null" : cell === 0 ? '"X"' : '"O"';
}

/** `,"position":"…"`: the board as nine characters, X, O or `.`. */
function position(cells) {
  return `,"position":"${cells.map((cell) => (cell === null ? "." : cell === 0 ? "X" : "O")).join("")}"`;
}

/** `,"legal_moves":[…]`: the empty cells while the game is on, else none. */
function legalMoves(cells, on) {
  const legal = on ? cells.flatMap((cell, i) => (cell === null ? [`"${i}"`] : [])) : [];
  return `,"legal_moves":[${legal.join(",")}]`;
}

/** The last move of `history` as `last_move` shows it, or `null`. */
function lastMove(history) {
  if (history.length === 0) {
    return "null";
  }
  const cell = history[history.length - 1];
  return `{"seat":${(history.length - 1) % 2},"move":"${cell}","display":"${cell}"}`;
}

/** One tic-tac-toe room: two seats, spectators, the game and the rematch requests. */
class TicTacToe extends Room {
  // No `state`: the room's serializer stays Colyseus's "none", which sends nothing on
  // join and no patches. (The patch tick still runs, as it would to tick the clock.)

  /** Parlor's client messages, each the JSON text of the message. */
  messages = {
    move: (client, text) => this.receive(client, text),
    rematch: (client, text) => this.receive(client, text),
    _: (client, _type, _payload) => client.send("error", BAD_MESSAGE),
  };

  onCreate() {
    this.seq = 1;
    /** Each seat's holder: `{ player, client, connected }`, or null while open. */
    this.seats = [null, null];
    this.spectators = 0;
    this.game = null;
    this.rematch = [];
  }

  /** Takes a seat or watches, as the options say; a refusal fails the join. */
  onJoin(client, options) {
    const { player, moves } = identify(options);
    if (options.watch === true) {
      this.watch(client, moves);
      return;
    }
    const seat = options.seat;
    if (!Number.isInteger(seat) || seat < 0 || seat > 255) {
      throw refuseJoin(BAD_MESSAGE);
    }
    if (seat > 1) {
      throw refuseJoin(refusal("bad_seat", "Seats are 0 and 1."));
    }
    this.takeSeat(client, player, seat, moves);
  }

  takeSeat(client, player, seat, moves) {
    const other = this.seats[1 - seat];
    if (other !== null && other.player.id === player.id) {
      throw refuseJoin(refusal("already_seated", "You hold the other seat."));
    }
    const holder = this.seats[seat];
    if (holder !== null && holder.player.id === player.id) {
      holder.client = client;
      holder.connected = true;
    } else if (holder !== null) {
      throw refuseJoin(refusal("seat_taken", "That seat is taken."));
    } else {
      this.seats[seat] = { player, client, connected: true };
    }
    if (this.game === null && this.seats.every((held) => held !== null)) {
      this.game = newGame();
    }
    this.changed(client);
    client.userData = { spectator: false, moves };
    this.sendSnapshot(client, `{"type":"joined","room":"${this.roomId}","seat":${seat},"role":"player"}`);
  }

  watch(client, moves) {
    this.spectators += 1;
    client.userData = { spectator: true, moves };
    this.changed(client);
    this.sendSnapshot(client, `{"type":"joined","room":"${this.roomId}","seat":null,"role":"spectator"}`);
  }

  /** `joined` and the state with its history, to the client joining. */
  sendSnapshot(client, joined) {
    client.send("joined", joined);
    client.send("state", this.stateJson(true));
  }

  /** The client's connection closed (or it asked to leave): a player's seat shows as disconnected. */
  onLeave(client) {
    if (client.userData === undefined) {
      return; // its join was refused
    }
    if (client.userData.spectator) {
      this.spectators -= 1;
    }
    for (const holder of this.seats) {
      if (holder !== null && holder.client === client) {
        holder.connected = false;
      }
    }
    // An empty room is disposed of by Colyseus, as the baselines forget it.
    if (this.clients.length > 0) {
      this.changed(null);
    }
  }

  /** A `move` or `rematch`, as Parlor reads them; a refusal is an `error` to the sender. */
  receive(client, text) {
    let message;
    try {
      message = typeof text === "string" ? JSON.parse(text) : null;
    } catch {
      message = null;
    }
    if (message === null || typeof message !== "object" || typeof message.room !== "string") {
      client.send("error", BAD_MESSAGE);
      return;
    }
    let refused;
    if (message.type === "move" && typeof message.move === "string") {
      refused = this.move(client, message.room, message.move);
    } else if (message.type === "rematch") {
      refused = this.askRematch(client, message.room);
    } else {
      refused = BAD_MESSAGE;
    }
    if (refused !== undefined) {
      client.send("error", refused);
    }
  }

  /** The seat `client` holds, if any. */
  seatOf(client) {
    const seat = this.seats.findIndex((holder) => holder !== null && holder.client === client);
    return seat < 0 ? null : seat;
  }

  move(client, room, cell) {
    if (room !== this.roomId) {
      return UNKNOWN_ROOM;
    }
    const seat = this.seatOf(client);
    if (seat === null) {
      return NOT_A_PLAYER;
    }
    const game = this.game;
    if (game === null) {
      return refusal("not_your_turn", "The game has not started yet.");
    }
    if (game.result !== null) {
      return refusal("game_finished", "The game is over.");
    }
    if (toMove(game) !== seat) {
      return refusal("not_your_turn", "It is the other seat's turn.");
    }
    if (!/^[0-8]$/.test(cell)) {
      return refusal("bad_move", "A move is one cell, 0 to 8.");
    }
    const index = Number(cell);
    if (game.cells[index] !== null) {
      return refusal("illegal_move", "That cell is already marked.");
    }
    play(game, seat, index);
    if (game.result === null) {
      this.moved();
      return undefined;
    }
    this.changed(null);
    this.broadcast("game_over", this.gameOverJson(game));
    return undefined;
  }

  askRematch(client, room) {
    if (room !== this.roomId) {
      return UNKNOWN_ROOM;
    }
    const seat = this.seatOf(client);
    if (seat === null) {
      return NOT_A_PLAYER;
    }
    if (this.status() !== "finished") {
      return refusal("game_not_finished", "A rematch can be asked for once this game is over.");
    }
    if (!this.rematch.includes(seat)) {
      this.rematch.push(seat);
    }
    if (this.rematch.length === 2) {
      this.seats.reverse();
      this.rematch = [];
      this.game = newGame();
    }
    this.changed(null);
    return undefined;
  }

  status() {
    if (this.game === null) {
      return "waiting";
    }
    return this.game.result === null ? "playing" : "finished";
  }

  /** A new `seq`, and the state for everyone but `except`. */
  changed(except) {
    this.seq += 1;
    this.broadcast("state", this.stateJson(false), except === null ? undefined : { except });
  }

  /**
   * A new `seq` for a move that left the game on: the `moved` event to the clients that
   * asked for moves, the state to the rest, each rendered and encoded only if someone
   * takes it, once for all who take it.
   */
  moved() {
    this.seq += 1;
    const movers = [];
    const staters = [];
    for (const client of this.clients) {
      (client.userData?.moves ? movers : staters).push(client);
    }
    if (movers.length > 0) {
      this.broadcast("moved", this.movedJson(this.game), staters.length > 0 ? { except: staters } : undefined);
    }
    if (staters.length > 0) {
      this.broadcast("state", this.stateJson(false), movers.length > 0 ? { except: movers } : undefined);
    }
  }

  /** The `state` message, in Parlor's field order and spelling. */
  stateJson(withHistory) {
    const game = this.game;
    const cells = game?.cells ?? EMPTY;
    const history = game?.history ?? [];
    const next = game === null ? null : toMove(game);
    const result = game?.result ?? null;
    const seats = this.seats.map((holder, seat) =>
      holder === null
        ? `{"seat":${seat},"kind":"open","name":null,"player_id":null,"connected":false,"rating":null}`
        : `{"seat":${seat},"kind":"human","name":${holder.player.nameJson},"player_id":${holder.player.idJson},"connected":${holder.connected},"rating":null}`,
    );
    let out =
      `{"type":"state","room":"${this.roomId}","game":"tictactoe","game_id":${game === null ? "null" : `"${game.id}"`}` +
      `,"seq":${this.seq},"status":"${this.status()}","seats":[${seats.join(",")}]` +
      `,"spectators":${this.spectators},"to_move":${numberOrNull(next)}${position(cells)}` +
      `,"board":{"layout":"grid","rows":3,"cols":3,"cells":[${cells.map(mark).join(",")}],"labels":["0","1","2","3","4","5","6","7","8"]}` +
      `${legalMoves(cells, next !== null)},"last_move":${lastMove(history)},"moves":${history.length},"result":` +
      (result === null ? "null" : `{"winner":${numberOrNull(result.winner)},"reason":"${result.reason}"}`) +
      `,"time_control":{"kind":"none"},"clocks":null,"draw_offer":null,"rematch":[${this.rematch.join(",")}]`;
    if (withHistory) {
      // Tic-tac-toe's moves are written as they are sent, so both lists are equal.
      const moves = history.map((cell) => `"${cell}"`).join(",");
      out += `,"history":[${moves}],"history_display":[${moves}]`;
    }
    return `${out}}`;
  }

  /** The `moved` event for `game`'s last move, which left it on: only the played cell changed. */
  movedJson(game) {
    const { cells, history } = game;
    const cell = history[history.length - 1];
    const changed = cell === undefined ? "" : `[${cell},${mark(cells[cell])}]`;
    const next = toMove(game);
    return (
      `{"type":"moved","room":"${this.roomId}","seq":${this.seq},"last_move":${lastMove(history)}` +
      `,"moves":${history.length},"to_move":${numberOrNull(next)}${position(cells)}` +
      `,"cells":[${changed}]${legalMoves(cells, next !== null)},"clocks":null,"draw_offer":null}`
    );
  }

  /** `game_over`, shaped like Parlor's but without scores or ratings, as the baselines send it. */
  gameOverJson(game) {
    const { winner, reason } = game.result ?? { winner: null, reason: "board_full" };
    const scores = this.seats.map(
      (holder, seat) =>
        `{"seat":${seat},"name":${holder?.player.nameJson ?? "null"},"score":null,"rating_before":null,"rating_after":null}`,
    );
    const duration = Math.floor(performance.now() - game.started);
    return (
      `{"type":"game_over","room":"${this.roomId}","game_id":"${game.id}","seq":${this.seq}` +
      `,"winner":${numberOrNull(winner)},"reason":"${reason}","scores":[${scores.join(",")}],"duration_ms":${duration}}`
    );
  }
}

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "2567" },
    bind: { type: "string", default: "127.0.0.1" },
  },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`colyseus: --port ${values.port} is not a port`);
  process.exit(2);
}

const transport = new WebSocketTransport();
const server = defineServer({
  greet: false,
  transport,
  rooms: { tictactoe: defineRoom(TicTacToe) },
});
await server.listen(port, values.bind);
const address = transport.server.address();
const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
console.log(`listening on http://${host}:${address.port}`);
