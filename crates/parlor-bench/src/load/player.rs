//! One player's and one spectator's connection during the load: reading states and
//! `moved` events, moving when it is their turn, and timing each move from send to
//! broadcast.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use rand::seq::IndexedRandom;
use tokio_tungstenite::tungstenite::Message;

use super::wire::{Seen, Ws, close};
use super::{Ctx, RoomClock};

/// What a player does after reading a frame.
enum Next {
    Nothing,
    Move(String),
    Rematch,
}

/// One player's connection.
pub(super) struct PlayerConn {
    ws: Ws,
    room: String,
    me: String,
    clock: Arc<RoomClock>,
    /// Whether this player counts the room's finished games (one of the two does).
    counts_games: bool,
    /// This player's seat, as the last `state` showed it (a `moved` does not say).
    seat: Option<u8>,
    /// The current game's id, as the last `state` showed it (a `moved` does not say).
    game: String,
    /// The move number of the current game this player last moved on.
    acted: Option<u64>,
}

impl PlayerConn {
    /// The player `me` on `ws`, seated in `room`, whose moves are timed on `clock`;
    /// `counts_games` for one of the room's two players.
    pub(super) fn new(
        ws: Ws,
        room: String,
        me: String,
        clock: Arc<RoomClock>,
        counts_games: bool,
    ) -> PlayerConn {
        PlayerConn {
            ws,
            room,
            me,
            clock,
            counts_games,
            seat: None,
            game: String::new(),
            acted: None,
        }
    }

    /// Plays until the run ends or the connection fails.
    pub(super) async fn run(mut self, ctx: Arc<Ctx>) {
        ctx.counters.open.fetch_add(1, Ordering::Relaxed);
        let mut start = ctx.start.clone();
        let mut started = *start.borrow();
        let mut due: Option<String> = None;
        loop {
            if started
                && let Some(choice) = due.take()
                && let Err(why) = self.play(choice, &ctx).await
            {
                if !ctx.cancel.is_cancelled() {
                    ctx.failure(why);
                }
                break;
            }
            tokio::select! {
                () = ctx.cancel.cancelled() => break,
                _ = start.changed(), if !started => started = true,
                frame = self.ws.next() => match frame {
                    Some(Ok(Message::Text(text))) => match self.read(text.as_str(), &ctx) {
                        Next::Nothing => {}
                        Next::Move(choice) => due = Some(choice),
                        Next::Rematch => {
                            let ask = format!(r#"{{"type":"rematch","room":"{}"}}"#, self.room);
                            if let Err(e) = self.ws.send(Message::text(ask)).await {
                                ctx.failure(format!("asking for a rematch: {e}"));
                                break;
                            }
                        }
                    },
                    Some(Ok(Message::Close(why))) => {
                        ctx.failure(format!("the server closed a player's connection: {why:?}"));
                        break;
                    }
                    Some(Ok(_)) => {}
                    Some(Err(e)) => {
                        ctx.failure(format!("a player's connection failed: {e}"));
                        break;
                    }
                    None => {
                        ctx.failure("a player's connection ended".to_owned());
                        break;
                    }
                },
            }
        }
        close(self.ws).await;
        ctx.counters.open.fetch_sub(1, Ordering::Relaxed);
    }

    /// Sends `choice`, in open loop once the room's next move is due. Its latency is
    /// counted from when it was sent, or, when it could not be sent on time because the
    /// server had not yet answered the one before, from when it was due (coordinated
    /// omission): a timer waking late is the generator's delay, not the server's.
    async fn play(&mut self, choice: String, ctx: &Ctx) -> Result<(), String> {
        let sent_ns = match ctx.interval_ns {
            None => ctx.now_ns(),
            Some(interval) => {
                let due = ctx.start_ns.load(Ordering::Relaxed)
                    + self.clock.next_due.fetch_add(interval, Ordering::Relaxed);
                let now = ctx.now_ns();
                if due > now {
                    tokio::select! {
                        () = ctx.cancel.cancelled() => return Ok(()),
                        () = tokio::time::sleep(Duration::from_nanos(due - now)) => {}
                    }
                    ctx.now_ns()
                } else {
                    due
                }
            }
        };
        // Stored before sending, so the opponent's receipt always finds it.
        self.clock.in_flight.store(sent_ns + 1, Ordering::Relaxed);
        let text = format!(
            r#"{{"type":"move","room":"{}","move":{}}}"#,
            self.room,
            serde_json::Value::from(choice)
        );
        self.ws
            .send(Message::text(text))
            .await
            .map_err(|e| format!("sending a move: {e}"))
    }

    fn read(&mut self, text: &str, ctx: &Ctx) -> Next {
        let seen = match serde_json::from_str::<Seen<'_>>(text) {
            Ok(seen) => seen,
            Err(e) => {
                ctx.error(format!("a frame that is not a message ({e}): {text}"));
                return Next::Nothing;
            }
        };
        match seen.kind.as_ref() {
            "state" => {
                ctx.counters.broadcast(text.len());
                self.on_state(&seen, ctx)
            }
            "moved" => {
                ctx.counters.moved_event(text.len());
                // It stands for the state of a move that left the game on.
                self.on_news(true, &seen, ctx)
            }
            "game_over" => {
                ctx.counters.broadcast(text.len());
                if self.counts_games {
                    ctx.counters.games.fetch_add(1, Ordering::Relaxed);
                }
                if ctx.interval_ns.is_some() {
                    // The rematch handshake is not a move: the schedule resumes from now.
                    let since_start = ctx
                        .now_ns()
                        .saturating_sub(ctx.start_ns.load(Ordering::Relaxed));
                    self.clock
                        .next_due
                        .fetch_max(since_start, Ordering::Relaxed);
                }
                Next::Rematch
            }
            "error" => {
                ctx.error(text.to_owned());
                Next::Nothing
            }
            _ => Next::Nothing,
        }
    }

    /// A full `state`: remembers this player's seat and the game, which a `moved` does
    /// not carry, then reads it as news.
    fn on_state(&mut self, seen: &Seen<'_>, ctx: &Ctx) -> Next {
        self.seat = seen
            .seats
            .iter()
            .position(|s| s.player_id.as_deref() == Some(self.me.as_str()))
            .and_then(|s| u8::try_from(s).ok());
        let game = seen.game_id.as_deref().unwrap_or("");
        if self.game != game {
            self.game.clear();
            self.game.push_str(game);
            self.acted = None;
        }
        self.on_news(seen.status.as_deref() == Some("playing"), seen, ctx)
    }

    /// A `state` or a `moved` of the current game, `playing` or not: times the
    /// opponent's move it announces, and chooses a move if it is this player's turn.
    fn on_news(&mut self, playing: bool, seen: &Seen<'_>, ctx: &Ctx) -> Next {
        let Some(seat) = self.seat else {
            return Next::Nothing;
        };
        if let Some(last) = &seen.last_move
            && last.seat != seat
        {
            let sent = self.clock.in_flight.swap(0, Ordering::Relaxed);
            if sent != 0 {
                let micros = ctx.now_ns().saturating_sub(sent - 1) / 1000;
                ctx.record(micros);
            }
        }
        if !playing || seen.to_move != Some(seat) || self.acted == Some(seen.moves) {
            return Next::Nothing;
        }
        let Some(choice) = seen.legal_moves.choose(&mut rand::rng()) else {
            return Next::Nothing;
        };
        self.acted = Some(seen.moves);
        Next::Move(choice.to_string())
    }
}

/// A spectator: counts the broadcasts it is sent (`state`, `moved` and `game_over`).
pub(super) async fn watch_room(mut ws: Ws, ctx: Arc<Ctx>) {
    ctx.counters.open.fetch_add(1, Ordering::Relaxed);
    loop {
        tokio::select! {
            () = ctx.cancel.cancelled() => break,
            frame = ws.next() => match frame {
                Some(Ok(Message::Text(text))) => {
                    let text = text.as_str();
                    if text.starts_with(r#"{"type":"moved""#) {
                        ctx.counters.moved_event(text.len());
                    } else if text.starts_with(r#"{"type":"state""#)
                        || text.starts_with(r#"{"type":"game_over""#)
                    {
                        ctx.counters.broadcast(text.len());
                    } else if text.starts_with(r#"{"type":"error""#) {
                        ctx.error(text.to_owned());
                    }
                }
                Some(Ok(Message::Close(why))) => {
                    ctx.failure(format!("the server closed a spectator's connection: {why:?}"));
                    break;
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => {
                    ctx.failure(format!("a spectator's connection failed: {e}"));
                    break;
                }
                None => {
                    ctx.failure("a spectator's connection ended".to_owned());
                    break;
                }
            },
        }
    }
    close(ws).await;
    ctx.counters.open.fetch_sub(1, Ordering::Relaxed);
}
