//! One baseline connection's side of the hub: the client messages a baseline
//! understands and what each does to the rooms.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use tokio::sync::mpsc;

use crate::rooms::{Frame, Game, Hub, Player, Room, SeatHolder, Updates, lock};

/// The client messages a baseline understands.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ClientMsg {
    Hello {
        name: String,
        /// Absent or `null`: full states. An unknown value fails the whole message,
        /// which is `bad_message`, as in Parlor.
        #[serde(default)]
        updates: Option<Updates>,
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
pub(crate) struct Conn<F> {
    id: u64,
    hub: Arc<Hub<F>>,
    outbox: mpsc::Sender<F>,
    player: Option<Arc<Player>>,
    /// How this connection hears of moves in every room it enters, from its `hello`.
    updates: Updates,
    rooms: Vec<Arc<Mutex<Room<F>>>>,
}

impl<F: Frame> Conn<F> {
    /// A new connection whose room frames go to `outbox`.
    pub(crate) fn new(hub: Arc<Hub<F>>, outbox: mpsc::Sender<F>) -> Self {
        let id = hub.next_conn.fetch_add(1, Ordering::Relaxed);
        Conn {
            id,
            hub,
            outbox,
            player: None,
            updates: Updates::States,
            rooms: Vec::new(),
        }
    }

    /// Handles one text frame; returns the direct reply to write now, if any (room
    /// frames go to the outbox).
    pub(crate) fn on_text(&mut self, text: &str) -> Option<F> {
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
            ClientMsg::Hello { name, updates } => {
                self.hello(name, updates.unwrap_or_default()).map(Some)
            }
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

    fn hello(&mut self, name: String, updates: Updates) -> Result<String, Refusal> {
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
        self.updates = updates;
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
        room.subscribe(self.id, &self.outbox, false, self.updates);
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
            room.subscribe(self.id, &self.outbox, true, self.updates);
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
        if game.result.is_none() {
            room.moved();
            return Ok(());
        }
        room.changed(None);
        if let Some(game) = &room.game {
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
    pub(crate) fn closed(self) {
        for room in &self.rooms {
            self.part(room);
        }
    }
}
