//! One player's and one spectator's connection during the load: reading states and
//! `moved` events, moving when it is their turn, timing each move from send to
//! broadcast, and going on to the next game as the run's [`Cycle`] says.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use rand::seq::IndexedRandom;
use tokio::sync::watch;

use super::conn::Conn;
use super::next_room::{Cycle, NextRoom};
use super::wire::Seen;
use super::{Ctx, RoomClock};

/// What a player does after reading a frame.
enum Next {
    Nothing,
    Move(String),
    /// The game is over: on to the next, as the cycle says.
    Over,
}

/// A player's part in going from game to game.
enum Part {
    /// Both players ask for a rematch.
    Rematch,
    /// The room's creator: opens each next room.
    Creator(Arc<NextRoom>),
    /// The second player: joins each next room once the spectators watch it.
    Second(Arc<NextRoom>, watch::Receiver<(u64, String)>),
}

/// One player's connection.
pub(super) struct PlayerConn {
    conn: Conn,
    room: String,
    me: String,
    game_kind: String,
    clock: Arc<RoomClock>,
    part: Part,
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
    /// The player `me` on `conn`, seated in `room` (a room of `game_kind`) as its
    /// creator (`first`) or as the second player, whose moves are timed on `clock` and
    /// who goes on to each next game as `cycle` says (with `next` in a new room).
    #[allow(clippy::too_many_arguments)] // One player's whole setup, named at the call.
    pub(super) fn new(
        conn: Conn,
        room: String,
        me: String,
        game_kind: String,
        clock: Arc<RoomClock>,
        first: bool,
        cycle: Cycle,
        next: &Arc<NextRoom>,
    ) -> PlayerConn {
        let part = match (cycle, first) {
            (Cycle::Rematch, _) => Part::Rematch,
            (Cycle::NewRoom, true) => Part::Creator(next.clone()),
            (Cycle::NewRoom, false) => Part::Second(next.clone(), next.follow()),
        };
        PlayerConn {
            conn,
            room,
            me,
            game_kind,
            clock,
            part,
            counts_games: first,
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
                ctx.ended(why);
                break;
            }
            let next_room = async {
                match &mut self.part {
                    Part::Second(_, follow) => follow.changed().await.is_ok(),
                    _ => std::future::pending().await,
                }
            };
            let outcome = tokio::select! {
                () = ctx.cancel.cancelled() => break,
                _ = start.changed(), if !started => {
                    started = true;
                    Ok(())
                }
                true = next_room => self.join_next(&ctx).await,
                frame = self.conn.next() => match frame {
                    Some(Ok(text)) => match self.read(&text, &ctx) {
                        Next::Nothing => Ok(()),
                        Next::Move(choice) => {
                            due = Some(choice);
                            Ok(())
                        }
                        Next::Over => self.after_game(&ctx).await,
                    },
                    Some(Err(e)) => Err(format!("a player's connection failed: {e}")),
                    None => Err("a player's connection ended".to_owned()),
                },
            };
            if let Err(why) = outcome {
                ctx.ended(why);
                break;
            }
        }
        self.conn.close().await;
        ctx.counters.open.fetch_sub(1, Ordering::Relaxed);
    }

    /// The game is over: asks for a rematch, or, as the creator of a new room each
    /// game, leaves this room and opens the next.
    async fn after_game(&mut self, ctx: &Ctx) -> Result<(), String> {
        match &self.part {
            Part::Rematch => {
                let ask = format!(r#"{{"type":"rematch","room":"{}"}}"#, self.room);
                self.conn
                    .send(ask)
                    .await
                    .map_err(|e| format!("asking for a rematch: {e}"))
            }
            Part::Creator(next) => {
                let next = next.clone();
                self.conn.leave(&self.room).await?;
                let opened = tokio::select! {
                    () = ctx.cancel.cancelled() => return Ok(()),
                    opened = self.conn.create(&self.game_kind) => opened,
                };
                self.room = opened.map_err(|e| format!("opening the next room: {e}"))?;
                next.opened(self.room.clone());
                Ok(())
            }
            Part::Second(..) => Ok(()),
        }
    }

    /// The creator has opened the next room: once its spectators watch it, leaves this
    /// room and takes seat 1 there.
    async fn join_next(&mut self, ctx: &Ctx) -> Result<(), String> {
        let Part::Second(next, follow) = &mut self.part else {
            return Ok(());
        };
        let (number, id) = follow.borrow_and_update().clone();
        let next = next.clone();
        tokio::select! {
            () = ctx.cancel.cancelled() => return Ok(()),
            () = next.all_watching(number) => {}
        }
        self.conn.leave(&self.room).await?;
        self.room = id;
        let joining = tokio::select! {
            () = ctx.cancel.cancelled() => return Ok(()),
            joining = self.conn.join(&self.room, 1) => joining,
        };
        joining.map_err(|e| format!("joining the next room: {e}"))
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
        self.conn
            .send(text)
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
        // What a room this player has left still sent is not news.
        if seen.room.as_deref().is_some_and(|room| room != self.room) {
            return Next::Nothing;
        }
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
                self.resume_schedule(ctx);
                Next::Over
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
        let playing = seen.status.as_deref() == Some("playing");
        if self.game != game {
            self.game.clear();
            self.game.push_str(game);
            self.acted = None;
            if playing {
                self.resume_schedule(ctx);
            }
        }
        self.on_news(playing, seen, ctx)
    }

    /// Open loop: going from one game to the next (the rematch handshake, or a new
    /// room set up) is not a move, so the room's schedule resumes from now rather than
    /// counting that time against the next move.
    fn resume_schedule(&self, ctx: &Ctx) {
        let start_ns = ctx.start_ns.load(Ordering::Relaxed);
        if ctx.interval_ns.is_some() && start_ns > 0 {
            let since_start = ctx.now_ns().saturating_sub(start_ns);
            self.clock
                .next_due
                .fetch_max(since_start, Ordering::Relaxed);
        }
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

/// A spectator of the room `room`: counts the broadcasts it is sent (`state`, `moved`
/// and `game_over`) and, with `next`, follows the group to each new room.
pub(super) async fn watch_room(
    mut conn: Conn,
    mut room: String,
    next: Option<Arc<NextRoom>>,
    ctx: Arc<Ctx>,
) {
    ctx.counters.open.fetch_add(1, Ordering::Relaxed);
    let mut follow = next.as_ref().map(|next| next.follow());
    loop {
        let next_room = async {
            match &mut follow {
                Some(follow) => follow.changed().await.is_ok(),
                None => std::future::pending().await,
            }
        };
        let outcome = tokio::select! {
            () = ctx.cancel.cancelled() => break,
            true = next_room => match (&next, &mut follow) {
                (Some(next), Some(follow)) => {
                    let (number, id) = follow.borrow_and_update().clone();
                    let moved_on = async {
                        conn.leave(&room).await?;
                        conn.watch(&id).await
                    };
                    let moved_on = tokio::select! {
                        () = ctx.cancel.cancelled() => break,
                        moved_on = moved_on => moved_on,
                    };
                    room = id;
                    next.watched(number);
                    moved_on.map_err(|e| format!("watching the next room: {e}"))
                }
                _ => Ok(()),
            },
            frame = conn.next() => match frame {
                Some(Ok(text)) => {
                    if text.starts_with(r#"{"type":"moved""#) {
                        ctx.counters.moved_event(text.len());
                    } else if text.starts_with(r#"{"type":"state""#)
                        || text.starts_with(r#"{"type":"game_over""#)
                    {
                        ctx.counters.broadcast(text.len());
                    } else if text.starts_with(r#"{"type":"error""#) {
                        ctx.error(text);
                    }
                    Ok(())
                }
                Some(Err(e)) => Err(format!("a spectator's connection failed: {e}")),
                None => Err("a spectator's connection ended".to_owned()),
            },
        };
        if let Err(why) = outcome {
            ctx.ended(why);
            break;
        }
    }
    conn.close().await;
    ctx.counters.open.fetch_sub(1, Ordering::Relaxed);
}
