//! The tic-tac-toe rooms both baselines share, independent of the WebSocket library.
//!
//! A room is plain data behind a mutex, changed in place by the connection that sent the
//! request: no room task, no store, no clock, no ratings. Each change is rendered to JSON
//! once and the same frame is queued to every subscriber, as Parlor does; a move that
//! leaves the game on is rendered in its two forms, a `moved` event for subscribers that
//! asked for moves (`hello.updates`) and a `state` for the rest, each only if someone
//! takes it. The `state` and `moved` frames are written byte for byte like Parlor's
//! (tests/baselines_send_parlors_bytes.rs checks it); only ids and, after a first game,
//! Parlor's ratings differ in value.

use std::fmt::Write as _;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use dashmap::DashMap;
use parlor_rules::games::tictactoe::LINES;
use serde::Deserialize;
use tokio::sync::mpsc;

/// How many frames may wait for one connection; past that it gets no more room frames.
pub(crate) const OUTBOX_FRAMES: usize = 256;

/// The largest client message accepted, as in Parlor.
pub(crate) const MAX_FRAME_BYTES: usize = 8 * 1024;

/// A shared, cheaply cloned text frame of the WebSocket library in use.
pub(crate) trait Frame: Clone + From<String> + Send + 'static {}

impl<T: Clone + From<String> + Send + 'static> Frame for T {}

/// Every live room, by id.
pub(crate) struct Hub<F> {
    pub(crate) rooms: DashMap<String, Arc<Mutex<Room<F>>>>,
    pub(crate) next_conn: AtomicU64,
}

impl<F: Frame> Hub<F> {
    /// An empty hub.
    pub(crate) fn new() -> Self {
        Hub {
            rooms: DashMap::new(),
            next_conn: AtomicU64::new(1),
        }
    }

    pub(crate) fn room(&self, id: &str) -> Option<Arc<Mutex<Room<F>>>> {
        self.rooms.get(id).map(|room| room.value().clone())
    }
}

/// A player, as `hello` made it.
pub(crate) struct Player {
    pub(crate) id: String,
    /// The name as a JSON string, quotes included.
    pub(crate) name_json: String,
}

pub(crate) struct SeatHolder {
    pub(crate) player: Arc<Player>,
    pub(crate) conn: u64,
    pub(crate) connected: bool,
}

/// How a connection hears of moves, as it said in `hello` (`updates`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Updates {
    /// A full `state` after every change.
    #[default]
    States,
    /// A move that leaves the game on as a `moved` event, every other change as a `state`.
    Moves,
}

pub(crate) struct Subscriber<F> {
    pub(crate) conn: u64,
    pub(crate) outbox: mpsc::Sender<F>,
    pub(crate) spectator: bool,
    pub(crate) updates: Updates,
}

pub(crate) struct Game {
    pub(crate) id: String,
    /// The seat whose mark is in each cell: seat 0 plays X.
    pub(crate) cells: [Option<u8>; 9],
    pub(crate) history: Vec<u8>,
    pub(crate) started: Instant,
    /// The winner (`None` for a draw) and the reason, once over.
    pub(crate) result: Option<(Option<u8>, &'static str)>,
}

impl Game {
    pub(crate) fn new() -> Game {
        Game {
            id: format!("g_{:016x}", rand::random::<u64>()),
            cells: [None; 9],
            history: Vec::with_capacity(9),
            started: Instant::now(),
            result: None,
        }
    }

    pub(crate) fn to_move(&self) -> Option<u8> {
        match self.result {
            None => Some((self.history.len() % 2) as u8),
            Some(_) => None,
        }
    }

    pub(crate) fn play(&mut self, seat: u8, cell: usize) {
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

pub(crate) struct Room<F> {
    pub(crate) id: String,
    pub(crate) seq: u64,
    pub(crate) seats: [Option<SeatHolder>; 2],
    pub(crate) subscribers: Vec<Subscriber<F>>,
    pub(crate) spectators: usize,
    pub(crate) game: Option<Game>,
    pub(crate) rematch: Vec<u8>,
}

impl<F: Frame> Room<F> {
    pub(crate) fn status(&self) -> &'static str {
        match &self.game {
            None => "waiting",
            Some(game) if game.result.is_none() => "playing",
            Some(_) => "finished",
        }
    }

    /// The seat this connection holds for `player`, if any.
    pub(crate) fn seat_of(&self, player: &Player, conn: u64) -> Option<u8> {
        (0..2u8).find(|&seat| {
            self.seats[seat as usize]
                .as_ref()
                .is_some_and(|holder| holder.player.id == player.id && holder.conn == conn)
        })
    }

    /// The `state` message, in Parlor's field order and spelling.
    pub(crate) fn state_json(&self, with_history: bool) -> String {
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
        push_position(&mut out, cells);
        out.push_str(r#","board":{"layout":"grid","rows":3,"cols":3,"cells":["#);
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
        out.push_str(r#"],"labels":["0","1","2","3","4","5","6","7","8"]}"#);
        push_legal_moves(&mut out, cells, to_move.is_some());
        out.push_str(r#","last_move":"#);
        push_last_move(&mut out, history);
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

    /// The `moved` event for `game`'s last move, which left it on, in Parlor's field
    /// order and spelling: only the played cell changed.
    pub(crate) fn moved_json(&self, game: &Game) -> String {
        let mut out = String::with_capacity(256);
        let _ = write!(
            out,
            r#"{{"type":"moved","room":"{}","seq":{},"last_move":"#,
            self.id, self.seq
        );
        push_last_move(&mut out, &game.history);
        let to_move = game.to_move();
        let _ = write!(out, r#","moves":{},"to_move":"#, game.history.len());
        push_opt_num(&mut out, to_move.map(u64::from));
        push_position(&mut out, &game.cells);
        out.push_str(r#","cells":["#);
        if let Some(&cell) = game.history.last() {
            let code = match game.cells[usize::from(cell)] {
                Some(0) => r#""X""#,
                Some(_) => r#""O""#,
                None => "null",
            };
            let _ = write!(out, "[{cell},{code}]");
        }
        out.push(']');
        push_legal_moves(&mut out, &game.cells, to_move.is_some());
        out.push_str(r#","clocks":null,"draw_offer":null}"#);
        out
    }

    /// `game_over`, shaped like Parlor's but without scores or ratings.
    pub(crate) fn game_over_json(&self, game: &Game) -> String {
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
    pub(crate) fn broadcast(&mut self, text: String, except: Option<u64>) {
        let frame = F::from(text);
        self.subscribers
            .retain(|sub| Some(sub.conn) == except || sub.outbox.try_send(frame.clone()).is_ok());
    }

    /// A new `seq`, and the state for everyone but `except`.
    pub(crate) fn changed(&mut self, except: Option<u64>) {
        self.seq += 1;
        let state = self.state_json(false);
        self.broadcast(state, except);
    }

    /// A new `seq` for a move that left the game on: the `moved` event to subscribers
    /// that asked for moves, the state to the rest, each encoded only if someone takes
    /// it. A subscriber whose queue is full is dropped, as in [`Room::broadcast`].
    pub(crate) fn moved(&mut self) {
        self.seq += 1;
        let wanted = |updates| self.subscribers.iter().any(|sub| sub.updates == updates);
        let moved = match &self.game {
            Some(game) if wanted(Updates::Moves) => Some(F::from(self.moved_json(game))),
            _ => None,
        };
        let state = wanted(Updates::States).then(|| F::from(self.state_json(false)));
        self.subscribers.retain(|sub| {
            let frame = match sub.updates {
                Updates::Moves => &moved,
                Updates::States => &state,
            };
            frame
                .as_ref()
                .is_none_or(|frame| sub.outbox.try_send(frame.clone()).is_ok())
        });
    }

    pub(crate) fn subscribe(
        &mut self,
        conn: u64,
        outbox: &mpsc::Sender<F>,
        spectator: bool,
        updates: Updates,
    ) {
        if !self.subscribers.iter().any(|sub| sub.conn == conn) {
            self.subscribers.push(Subscriber {
                conn,
                outbox: outbox.clone(),
                spectator,
                updates,
            });
        }
    }
}

/// `,"position":"…"`: the board as nine characters, X, O or `.`.
fn push_position(out: &mut String, cells: &[Option<u8>; 9]) {
    out.push_str(r#","position":""#);
    for cell in cells {
        out.push(match cell {
            Some(0) => 'X',
            Some(_) => 'O',
            None => '.',
        });
    }
    out.push('"');
}

/// `,"legal_moves":[…]`: the empty cells while the game is `on`, else none.
fn push_legal_moves(out: &mut String, cells: &[Option<u8>; 9], on: bool) {
    out.push_str(r#","legal_moves":["#);
    if on {
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
    out.push(']');
}

/// The last move of `history` as `last_move` shows it, or `null`.
fn push_last_move(out: &mut String, history: &[u8]) {
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
}

pub(crate) fn push_opt_str(out: &mut String, value: Option<&str>) {
    match value {
        Some(text) => {
            let _ = write!(out, r#""{text}""#);
        }
        None => out.push_str("null"),
    }
}

pub(crate) fn push_opt_num(out: &mut String, value: Option<u64>) {
    match value {
        Some(number) => {
            let _ = write!(out, "{number}");
        }
        None => out.push_str("null"),
    }
}

pub(crate) fn lock<F>(room: &Mutex<Room<F>>) -> MutexGuard<'_, Room<F>> {
    // A panic while holding the lock leaves plain data; keep serving it.
    room.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
