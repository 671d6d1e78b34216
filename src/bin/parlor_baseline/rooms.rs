//! The tic-tac-toe rooms both baselines share, independent of the WebSocket library.
//!
//! A room is plain data behind a mutex, changed in place by the connection that sent the
//! request: no room task, no store, no clock, no ratings. Each change is rendered to JSON
//! once and the same frame is queued to every subscriber, as Parlor does. The `state`
//! frames are written byte for byte like Parlor's (tests/baselines_send_parlors_bytes.rs
//! checks it); only ids and, after a first game, Parlor's ratings differ in value.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use dashmap::DashMap;
use parlor::games::tictactoe::LINES;
use serde::Deserialize;
use tokio::sync::mpsc;

/// How many frames may wait for one connection; past that it gets no more room frames.
pub const OUTBOX_FRAMES: usize = 256;

/// The largest client message accepted, as in Parlor.
pub const MAX_FRAME_BYTES: usize = 8 * 1024;

/// A shared, cheaply cloned text frame of the WebSocket library in use.
pub trait Frame: Clone + From<String> + Send + 'static {}

impl<T: Clone + From<String> + Send + 'static> Frame for T {}

/// Every live room, by id.
pub struct Hub<F> {
    rooms: DashMap<String, Arc<Mutex<Room<F>>>>,
    next_conn: AtomicU64,
}

impl<F: Frame> Hub<F> {
    /// An empty hub.
    pub fn new() -> Self {
        Hub {
            rooms: DashMap::new(),
            next_conn: AtomicU64::new(1),
        }
    }

    fn room(&self, id: &str) -> Option<Arc<Mutex<Room<F>>>> {
        self.rooms.get(id).map(|room| room.value().clone())
    }
}

/// A player, as `hello` made it.
struct Player {
    id: String,
    /// The name as a JSON string, quotes included.
    name_json: String,
}

struct SeatHolder {
    player: Arc<Player>,
    conn: u64,
    connected: bool,
}

struct Subscriber<F> {
    conn: u64,
    outbox: mpsc::Sender<F>,
    spectator: bool,
}

struct Game {
    id: String,
    /// The seat whose mark is in each cell: seat 0 plays X.
    cells: [Option<u8>; 9],
    history: Vec<u8>,
    started: Instant,
    /// The winner (`None` for a draw) and the reason, once over.
    result: Option<(Option<u8>, &'static str)>,
}

impl Game {
    fn new() -> Game {
        Game {
            id: format!("g_{:016x}", rand::random::<u64>()),
            cells: [None; 9],
            history: Vec::with_capacity(9),
            started: Instant::now(),
            result: None,
        }
    }

    fn to_move(&self) -> Option<u8> {
        match self.result {
            None => Some((self.history.len() % 2) as u8),
            Some(_) => None,
        }
    }

    fn play(&mut self, seat: u8, cell: usize) {
        self.cells[cell] = Some(seat);
        self.history.push(cell as u8);
        let won = LINES
            .iter()
            .any(|line| line.iter().all(|&i| self.cells[i] == Some(seat)));
        if won {
            self.result = Some((Some(seat), "three_in_a_row"));
        } else if self.history.len() == 9 {
            self.result = Some((None, "board_full"));
        }
    }
}

struct Room<F> {
    id: String,
    seq: u64,
    seats: [Option<SeatHolder>; 2],
    subscribers: Vec<Subscriber<F>>,
    spectators: usize,
    game: Option<Game>,
    rematch: Vec<u8>,
}

impl<F: Frame> Room<F> {
    fn status(&self) -> &'static str {
        match &self.game {
            None => "waiting",
            Some(game) if game.result.is_none() => "playing",
            Some(_) => "finished",
        }
    }

    /// The seat this connection holds for `player`, if any.
    fn seat_of(&self, player: &Player, conn: u64) -> Option<u8> {
        (0..2u8).find(|&seat| {
            self.seats[seat as usize]
                .as_ref()
                .is_some_and(|holder| holder.player.id == player.id && holder.conn == conn)
        })
    }

    /// The `state` message, in Parlor's field order and spelling.
    fn state_json(&self, with_history: bool) -> String {
        let mut out = String::with_capacity(1024);
        let game_id = self.game.as_ref().map(|game| game.id.as_str());
        let _ = write!(
            out,
            r#"{{"type":"state","room":"{}","game":"tictactoe","game_id":"#,
            self.id
        );
        push_opt_str(&mut out, game_id);
        let _ = write!(
            out,
            r#","seq":{},"status":"{}","seats":["#,
            self.seq,
            self.status()
        );
        for (seat, holder) in self.seats.iter().enumerate() {
            if seat > 0 {
                out.push(',');
            }
            match holder {
                Some(holder) => {
                    let _ = write!(
                        out,
                        r#"{{"seat":{seat},"kind":"human","name":{},"player_id":"{}","connected":{},"rating":null}}"#,
                        holder.player.name_json, holder.player.id, holder.connected
                    );
                }
                None => {
                    let _ = write!(
                        out,
                        r#"{{"seat":{seat},"kind":"open","name":null,"player_id":null,"connected":false,"rating":null}}"#
                    );
                }
            }
        }
        let _ = write!(out, r#"],"spectators":{},"to_move":"#, self.spectators);
        let empty = [None; 9];
        let (cells, history, to_move, result) = match &self.game {
            Some(game) => (&game.cells, &game.history[..], game.to_move(), game.result),
            None => (&empty, &[][..], None, None),
        };
        push_opt_num(&mut out, to_move.map(u64::from));
        out.push_str(r#","position":""#);
        for cell in cells {
            out.push(match cell {
                Some(0) => 'X',
                Some(_) => 'O',
                None => '.',
            });
        }
        out.push_str(r#"","board":{"layout":"grid","rows":3,"cols":3,"cells":["#);
        for (i, cell) in cells.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(match cell {
                Some(0) => r#""X""#,
                Some(_) => r#""O""#,
                None => "null",
            });
        }
        out.push_str(r#"],"labels":["0","1","2","3","4","5","6","7","8"]},"legal_moves":["#);
        if to_move.is_some() {
            let mut first = true;
            for (i, cell) in cells.iter().enumerate() {
                if cell.is_none() {
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    let _ = write!(out, r#""{i}""#);
                }
            }
        }
        out.push_str(r#"],"last_move":"#);
        match history.last() {
            Some(&cell) => {
                let seat = (history.len() - 1) % 2;
                let _ = write!(
                    out,
                    r#"{{"seat":{seat},"move":"{cell}","display":"{cell}"}}"#
                );
            }
            None => out.push_str("null"),
        }
        let _ = write!(out, r#","moves":{},"result":"#, history.len());
        match result {
            Some((winner, reason)) => {
                out.push_str(r#"{"winner":"#);
                push_opt_num(&mut out, winner.map(u64::from));
                let _ = write!(out, r#","reason":"{reason}"}}"#);
            }
            None => out.push_str("null"),
        }
        out.push_str(
            r#","time_control":{"kind":"none"},"clocks":null,"draw_offer":null,"rematch":["#,
        );
        for (i, seat) in self.rematch.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "{seat}");
        }
        out.push(']');
        if with_history {
            // Tic-tac-toe's moves are written as they are sent, so both lists are equal.
            for key in ["history", "history_display"] {
                let _ = write!(out, r#","{key}":["#);
                for (i, cell) in history.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    let _ = write!(out, r#""{cell}""#);
                }
                out.push(']');
            }
        }
        out.push('}');
        out
    }

    /// `game_over`, shaped like Parlor's but without scores or ratings.
    fn game_over_json(&self, game: &Game) -> String {
        let (winner, reason) = game.result.unwrap_or((None, "board_full"));
        let mut out = String::with_capacity(384);
        let _ = write!(
            out,
            r#"{{"type":"game_over","room":"{}","game_id":"{}","seq":{},"winner":"#,
            self.id, game.id, self.seq
        );
        push_opt_num(&mut out, winner.map(u64::from));
        let _ = write!(out, r#","reason":"{reason}","scores":["#);
        for (seat, holder) in self.seats.iter().enumerate() {
            if seat > 0 {
                out.push(',');
            }
            let name = holder
                .as_ref()
                .map_or("null", |holder| holder.player.name_json.as_str());
            let _ = write!(
                out,
                r#"{{"seat":{seat},"name":{name},"score":null,"rating_before":null,"rating_after":null}}"#
            );
        }
        let _ = write!(
            out,
            r#"],"duration_ms":{}}}"#,
            game.started.elapsed().as_millis()
        );
        out
    }

    /// Queues `text` once to every subscriber but `except`. A subscriber whose queue is
    /// full is dropped from the room, as Parlor drops a slow consumer.
    fn broadcast(&mut self, text: String, except: Option<u64>) {
        let frame = F::from(text);
        self.subscribers
            .retain(|sub| Some(sub.conn) == except || sub.outbox.try_send(frame.clone()).is_ok());
    }

    /// A new `seq`, and the state for everyone but `except`.
    fn changed(&mut self, except: Option<u64>) {
        self.seq += 1;
        let state = self.state_json(false);
        self.broadcast(state, except);
    }

    fn subscribe(&mut self, conn: u64, outbox: &mpsc::Sender<F>, spectator: bool) {
        if !self.subscribers.iter().any(|sub| sub.conn == conn) {
            self.subscribers.push(Subscriber {
                conn,
                outbox: outbox.clone(),
                spectator,
            });
        }
    }
}

fn push_opt_str(out: &mut String, value: Option<&str>) {
    match value {
        Some(text) => {
            let _ = write!(out, r#""{text}""#);
        }
        None => out.push_str("null"),
    }
}

fn push_opt_num(out: &mut String, value: Option<u64>) {
    match value {
        Some(number) => {
            let _ = write!(out, "{number}");
        }
        None => out.push_str("null"),
    }
}

fn lock<F>(room: &Mutex<Room<F>>) -> MutexGuard<'_, Room<F>> {
    // A panic while holding the lock leaves plain data; keep serving it.
    room.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The client messages a baseline understands.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ClientMsg {
    Hello {
        name: String,
    },
    CreateRoom {
        game: String,
        seats: Vec<String>,
    },
    Join {
        room: String,
        seat: u8,
    },
    Watch {
        room: String,
    },
    Move {
        room: String,
        #[serde(rename = "move")]
        cell: String,
    },
    Rematch {
        room: String,
    },
    Leave {
        room: String,
    },
}

/// A client-caused refusal: an `error` frame with Parlor's code.
struct Refusal(&'static str, &'static str);

const UNKNOWN_ROOM: Refusal = Refusal("unknown_room", "There is no room with that id.");
const NOT_A_PLAYER: Refusal = Refusal("not_a_player", "You hold no seat in this room.");

/// One WebSocket connection's view of the hub.
pub struct Conn<F> {
    id: u64,
    hub: Arc<Hub<F>>,
    outbox: mpsc::Sender<F>,
    player: Option<Arc<Player>>,
    rooms: Vec<Arc<Mutex<Room<F>>>>,
}

impl<F: Frame> Conn<F> {
    /// A new connection whose room frames go to `outbox`.
    pub fn new(hub: Arc<Hub<F>>, outbox: mpsc::Sender<F>) -> Self {
        let id = hub.next_conn.fetch_add(1, Ordering::Relaxed);
        Conn {
            id,
            hub,
            outbox,
            player: None,
            rooms: Vec::new(),
        }
    }

    /// Handles one text frame; returns the direct reply to write now, if any (room
    /// frames go to the outbox).
    pub fn on_text(&mut self, text: &str) -> Option<F> {
        let reply = match serde_json::from_str::<ClientMsg>(text) {
            Ok(msg) => self.handle(msg),
            Err(_) => Err(Refusal(
                "bad_message",
                "The baseline understands hello, create_room, join, watch, move, rematch and leave.",
            )),
        };
        match reply {
            Ok(Some(text)) => Some(F::from(text)),
            Ok(None) => None,
            Err(Refusal(code, message)) => Some(F::from(format!(
                r#"{{"type":"error","code":"{code}","message":"{message}"}}"#
            ))),
        }
    }

    fn handle(&mut self, msg: ClientMsg) -> Result<Option<String>, Refusal> {
        match msg {
            ClientMsg::Hello { name } => self.hello(name).map(Some),
            ClientMsg::CreateRoom { game, seats } => {
                let player = self.identified()?;
                self.create(&player, &game, &seats)
            }
            ClientMsg::Join { room, seat } => {
                let player = self.identified()?;
                self.join(&player, &room, seat).map(|()| None)
            }
            ClientMsg::Watch { room } => {
                self.identified()?;
                self.watch(&room).map(|()| None)
            }
            ClientMsg::Move { room, cell } => {
                let player = self.identified()?;
                self.play(&player, &room, &cell).map(|()| None)
            }
            ClientMsg::Rematch { room } => {
                let player = self.identified()?;
                self.rematch(&player, &room).map(|()| None)
            }
            ClientMsg::Leave { room } => {
                self.identified()?;
                self.leave(&room)
            }
        }
    }

    fn identified(&self) -> Result<Arc<Player>, Refusal> {
        self.player
            .clone()
            .ok_or(Refusal("hello_required", "Say hello first."))
    }

    fn hello(&mut self, name: String) -> Result<String, Refusal> {
        if self.player.is_some() {
            return Err(Refusal("already_identified", "This connection said hello."));
        }
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 24 || name.chars().any(char::is_control) {
            return Err(Refusal(
                "bad_name",
                "A name is 1 to 24 printable characters.",
            ));
        }
        let name_json = serde_json::to_string(name)
            .map_err(|_| Refusal("bad_name", "The name cannot be encoded."))?;
        let player = Arc::new(Player {
            id: format!("p_{:016x}", rand::random::<u64>()),
            name_json,
        });
        let token: [u64; 4] = rand::random();
        let reply = format!(
            r#"{{"type":"welcome","player_id":"{}","name":{},"token":"{:016x}{:016x}{:016x}{:016x}","protocol":1}}"#,
            player.id, player.name_json, token[0], token[1], token[2], token[3]
        );
        self.player = Some(player);
        Ok(reply)
    }

    fn create(
        &mut self,
        player: &Arc<Player>,
        game: &str,
        seats: &[String],
    ) -> Result<Option<String>, Refusal> {
        if game != "tictactoe" {
            return Err(Refusal(
                "unknown_game",
                "The baseline plays tictactoe only.",
            ));
        }
        let mine = match seats {
            [a, b] if a == "me" && b == "open" => Some(0),
            [a, b] if a == "open" && b == "me" => Some(1),
            [a, b] if a == "open" && b == "open" => None,
            _ => {
                return Err(Refusal(
                    "bad_seat",
                    "Seats are two of \"me\" (at most once) and \"open\".",
                ));
            }
        };
        let id = format!("{:010x}", rand::random::<u64>() & 0xff_ffff_ffff);
        let room = Arc::new(Mutex::new(Room {
            id: id.clone(),
            seq: 1,
            seats: [None, None],
            subscribers: Vec::new(),
            spectators: 0,
            game: None,
            rematch: Vec::new(),
        }));
        self.hub.rooms.insert(id.clone(), room.clone());
        let created = format!(r#"{{"type":"room_created","room":"{id}"}}"#);
        if let Some(seat) = mine {
            // room_created is written before the queued joined and snapshot.
            let _ = self.outbox.try_send(F::from(created));
            self.take_seat(player, &room, seat)?;
            return Ok(None);
        }
        Ok(Some(created))
    }

    fn join(&mut self, player: &Arc<Player>, room_id: &str, seat: u8) -> Result<(), Refusal> {
        let room = self.hub.room(room_id).ok_or(UNKNOWN_ROOM)?;
        if seat > 1 {
            return Err(Refusal("bad_seat", "Seats are 0 and 1."));
        }
        self.take_seat(player, &room, seat)
    }

    fn take_seat(
        &mut self,
        player: &Arc<Player>,
        room_arc: &Arc<Mutex<Room<F>>>,
        seat: u8,
    ) -> Result<(), Refusal> {
        let mut room = lock(room_arc);
        let other = &room.seats[1 - seat as usize];
        if other
            .as_ref()
            .is_some_and(|holder| holder.player.id == player.id)
        {
            return Err(Refusal("already_seated", "You hold the other seat."));
        }
        match &mut room.seats[seat as usize] {
            Some(holder) if holder.player.id == player.id => {
                holder.conn = self.id;
                holder.connected = true;
            }
            Some(_) => return Err(Refusal("seat_taken", "That seat is taken.")),
            empty => {
                *empty = Some(SeatHolder {
                    player: player.clone(),
                    conn: self.id,
                    connected: true,
                });
            }
        }
        if room.game.is_none() && room.seats.iter().all(Option::is_some) {
            room.game = Some(Game::new());
        }
        room.changed(Some(self.id));
        room.subscribe(self.id, &self.outbox, false);
        let joined = format!(
            r#"{{"type":"joined","room":"{}","seat":{seat},"role":"player"}}"#,
            room.id
        );
        self.send_snapshot(&room, joined);
        drop(room);
        self.remember(room_arc);
        Ok(())
    }

    fn watch(&mut self, room_id: &str) -> Result<(), Refusal> {
        let room_arc = self.hub.room(room_id).ok_or(UNKNOWN_ROOM)?;
        let mut room = lock(&room_arc);
        if !room.subscribers.iter().any(|sub| sub.conn == self.id) {
            room.spectators += 1;
            room.subscribe(self.id, &self.outbox, true);
        }
        room.changed(Some(self.id));
        let joined = format!(
            r#"{{"type":"joined","room":"{}","seat":null,"role":"spectator"}}"#,
            room.id
        );
        self.send_snapshot(&room, joined);
        drop(room);
        self.remember(&room_arc);
        Ok(())
    }

    fn send_snapshot(&self, room: &Room<F>, joined: String) {
        let _ = self.outbox.try_send(F::from(joined));
        let _ = self.outbox.try_send(F::from(room.state_json(true)));
    }

    fn remember(&mut self, room: &Arc<Mutex<Room<F>>>) {
        if !self.rooms.iter().any(|known| Arc::ptr_eq(known, room)) {
            self.rooms.push(room.clone());
        }
    }

    fn play(&mut self, player: &Player, room_id: &str, cell: &str) -> Result<(), Refusal> {
        let room_arc = self.hub.room(room_id).ok_or(UNKNOWN_ROOM)?;
        let mut room = lock(&room_arc);
        let seat = room.seat_of(player, self.id).ok_or(NOT_A_PLAYER)?;
        let game = room
            .game
            .as_mut()
            .ok_or(Refusal("not_your_turn", "The game has not started yet."))?;
        if game.result.is_some() {
            return Err(Refusal("game_finished", "The game is over."));
        }
        if game.to_move() != Some(seat) {
            return Err(Refusal("not_your_turn", "It is the other seat's turn."));
        }
        let index = match cell.as_bytes() {
            [digit @ b'0'..=b'8'] => usize::from(digit - b'0'),
            _ => return Err(Refusal("bad_move", "A move is one cell, 0 to 8.")),
        };
        if game.cells[index].is_some() {
            return Err(Refusal("illegal_move", "That cell is already marked."));
        }
        game.play(seat, index);
        let over = game.result.is_some();
        room.changed(None);
        if over && let Some(game) = &room.game {
            let text = room.game_over_json(game);
            room.broadcast(text, None);
        }
        Ok(())
    }

    fn rematch(&mut self, player: &Player, room_id: &str) -> Result<(), Refusal> {
        let room_arc = self.hub.room(room_id).ok_or(UNKNOWN_ROOM)?;
        let mut room = lock(&room_arc);
        let seat = room.seat_of(player, self.id).ok_or(NOT_A_PLAYER)?;
        if room.status() != "finished" {
            return Err(Refusal(
                "game_not_finished",
                "A rematch can be asked for once this game is over.",
            ));
        }
        if !room.rematch.contains(&seat) {
            room.rematch.push(seat);
        }
        if room.rematch.len() == 2 {
            room.seats.swap(0, 1);
            room.rematch.clear();
            room.game = Some(Game::new());
        }
        room.changed(None);
        Ok(())
    }

    fn leave(&mut self, room_id: &str) -> Result<Option<String>, Refusal> {
        let room_arc = self.hub.room(room_id).ok_or(UNKNOWN_ROOM)?;
        self.part(&room_arc);
        self.rooms.retain(|known| !Arc::ptr_eq(known, &room_arc));
        Ok(Some(format!(r#"{{"type":"left","room":"{room_id}"}}"#)))
    }

    /// Stops this connection's subscription to `room_arc`; a player's seat shows as
    /// disconnected. An empty room is forgotten.
    fn part(&self, room_arc: &Arc<Mutex<Room<F>>>) {
        let mut room = lock(room_arc);
        let before = room.subscribers.len();
        let mut was_spectator = false;
        room.subscribers.retain(|sub| {
            let mine = sub.conn == self.id;
            was_spectator |= mine && sub.spectator;
            !mine
        });
        if room.subscribers.len() == before {
            return;
        }
        if was_spectator {
            room.spectators -= 1;
        }
        for holder in room.seats.iter_mut().flatten() {
            if holder.conn == self.id {
                holder.connected = false;
            }
        }
        if room.subscribers.is_empty() {
            self.hub.rooms.remove(&room.id);
        } else {
            room.changed(None);
        }
    }

    /// The socket closed: leaves every room.
    pub fn closed(self) {
        for room in &self.rooms {
            self.part(room);
        }
    }
}
