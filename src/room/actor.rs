//! The room's task: the only code that changes a room. It validates every action in a
//! fixed order, records moves durably before anyone sees them, broadcasts each new state
//! once-encoded to every subscriber, and runs the room's timers (bot fill, reconnect
//! grace, idle removal) and its bots.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use bytestring::ByteString;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::{Instant, sleep_until};
use tracing::{debug, error, info, warn};

use super::clock::Clock;
use super::fanout::{self, Pacer, Snapshots, fan_out, frame, send_to};
use super::handle::Request;
use super::seats::SeatState;
use super::{
    ConnId, Creator, Frame, PlayerInfo, RoomContext, RoomOptions, SeatSpec, Subscriber, unix_ms,
};
use crate::bots::BotLevel;
use crate::catalog::{AnyGame, PlayedMove};
use crate::config::Takeover;
use crate::games::{EndReason, MoveError, Outcome, Seat};
use crate::players::random_hex;
use crate::protocol::{
    ClientError, ClockView, ErrorCode, GameOverMsg, LastMove, ResultView, Role, RoomSummary,
    ScoreView, ServerMsg, StateMsg, Status,
};
use crate::ratings::rated_key;
use crate::scoring::{self, ScoreInput};
use crate::store::{
    GameFinish, LeaderboardCandidate, MoveRecord, NewGame, RatingChange, SeatRecord, SeatResult,
};
use crate::thinkers::DrawAnswer;

mod bots;

/// A bot accepts a draw unless its evaluation of its own position is above this.
const DRAW_ACCEPT_BELOW: i32 = 50;

/// Time a bot leaves on its clock for network, queueing and the move's recording, ms.
const BOT_SAFETY_MS: u64 = 150;

/// How long to wait before retrying work that failed because the store was unavailable.
const STORE_RETRY: Duration = Duration::from_secs(1);

/// Reply channel for commands that either succeed or fail with a client error.
type Reply = oneshot::Sender<Result<(), ClientError>>;

/// What the room's task is asked to do.
#[derive(Debug)]
pub(super) enum Command {
    Join {
        player: PlayerInfo,
        seat: Seat,
        sub: Subscriber,
        reference: Option<Value>,
        reply: Reply,
    },
    Watch {
        sub: Subscriber,
        reference: Option<Value>,
        reply: Reply,
    },
    Move {
        player_id: String,
        conn: ConnId,
        text: String,
        received: Instant,
        reply: Reply,
    },
    Request {
        request: Request,
        player_id: String,
        conn: ConnId,
        reply: Reply,
    },
    Leave {
        player_id: String,
        conn: ConnId,
        reply: Reply,
    },
    Disconnect {
        conn: ConnId,
    },
    /// A bot finished thinking about the position after `ply` moves.
    BotMoved {
        ply: usize,
        text: String,
    },
    /// A bot judged the draw offer open in the position after `ply` moves.
    BotJudgedDraw {
        ply: usize,
        answer: DrawAnswer,
    },
}

/// What a room makes readable without asking its task: its listing and current state.
#[derive(Debug)]
pub(super) struct Published {
    pub(super) summary: RoomSummary,
    pub(super) state: ByteString,
    /// The `seq` of `state`.
    pub(super) seq: u64,
}

/// The game being played in the room, once both seats are filled.
#[derive(Debug)]
struct Started {
    game_id: String,
    at: Instant,
}

/// A recorded ending, ready to be applied and announced.
#[derive(Debug)]
struct Ending {
    outcome: Outcome,
    scores: [Option<u32>; 2],
    duration_ms: u64,
    /// Both seats' rating changes, once the store has rated the game.
    ratings: Option<[RatingChange; 2]>,
}

/// The room's whole state, owned by its task alone.
pub(super) struct Room {
    id: String,
    game: Box<dyn AnyGame>,
    options: RoomOptions,
    seats: [SeatState; 2],
    spectators: HashMap<ConnId, Subscriber>,
    context: Arc<RoomContext>,
    myself: mpsc::WeakSender<Box<Command>>,
    created_at_ms: i64,
    seq: u64,
    started: Option<Started>,
    history: Vec<(Seat, PlayedMove)>,
    result: Option<Outcome>,
    /// When the side to move began its turn.
    turn_began: Instant,
    /// When the last move was played (bots wait `min_delay_ms` after it).
    last_move_at: Instant,
    thinking_ms: [u64; 2],
    /// A bot is thinking about the position after this many moves.
    bot_thinking: Option<usize>,
    /// Which seats a bot has played for an absent person (those are not scored).
    stood_in: [bool; 2],
    /// Both sides' clocks under the room's time control.
    clock: Clock,
    /// The game as it starts, for rematches.
    initial: Box<dyn AnyGame>,
    /// The seat whose draw offer is open.
    draw_offer: Option<Seat>,
    /// A bot is judging the draw offer open in the position after this many moves.
    draw_judging: Option<usize>,
    /// The bot's last judgement of a draw offer: the position (moves played) and its
    /// value for the bot, so repeated offers in one position are answered at once.
    draw_judged: Option<(usize, i32)>,
    /// Which seats have asked for a rematch of the finished game.
    rematch: [bool; 2],
    /// Each seat's current rating in this game, once known.
    ratings: [Option<f64>; 2],
    fill_at: Option<Instant>,
    idle_since: Option<Instant>,
    /// Store-dependent work (starting, a bot's move, abandonment) waits until then.
    retry_at: Option<Instant>,
    /// The last state broadcast and its `seq`, published again without re-encoding.
    last_state: Option<(u64, Frame)>,
    /// When the audience's comings and goings are next announced.
    pacer: Pacer,
    /// The snapshot newcomers get, shared by a burst of them.
    snapshots: Snapshots,
}

/// Whether the room's task should keep running.
#[derive(Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    Close,
}

impl Room {
    pub(super) fn new(
        id: String,
        game: Box<dyn AnyGame>,
        seats: [SeatSpec; 2],
        options: RoomOptions,
        context: Arc<RoomContext>,
        myself: mpsc::WeakSender<Box<Command>>,
    ) -> Room {
        let now = Instant::now();
        let seat_state = |spec| match spec {
            SeatSpec::Bot(level) => SeatState::Bot(level),
            SeatSpec::Open | SeatSpec::Me => SeatState::Open,
        };
        Room {
            clock: Clock::new(options.time_control),
            initial: game.clone_box(),
            draw_offer: None,
            draw_judging: None,
            draw_judged: None,
            rematch: [false, false],
            ratings: [None, None],
            id,
            game,
            options,
            seats: seats.map(seat_state),
            spectators: HashMap::new(),
            context,
            myself,
            created_at_ms: unix_ms(SystemTime::now()),
            seq: 1,
            started: None,
            history: Vec::new(),
            result: None,
            turn_began: now,
            last_move_at: now,
            thinking_ms: [0, 0],
            bot_thinking: None,
            stood_in: [false, false],

            fill_at: None,
            idle_since: Some(now),
            retry_at: None,
            last_state: None,
            pacer: Pacer::default(),
            snapshots: Snapshots::default(),
        }
    }

    /// Runs the room until it is idle long enough, or the server shuts down.
    pub(super) async fn run(
        mut self,
        mut inbox: mpsc::Receiver<Box<Command>>,
        publisher: watch::Sender<Published>,
        creator: Option<(Seat, Creator)>,
    ) {
        info!(room = %self.id, game = self.game.game_id(), "room created");
        if let Some((seat, creator)) = creator {
            // The `me` seat is open until now; the creator is the first to take it.
            let result =
                Box::pin(self.join(creator.player, seat, creator.sub, creator.reference)).await;
            if let Err(error) = result {
                warn!(room = %self.id, %error, "the creator could not be seated");
            }
        }
        Box::pin(self.settle()).await;
        // Always announced: the lobby lists a room from this first publication on.
        publisher.send_replace(self.publication());
        let shutdown = self.context.shutdown.clone();
        let rooms = self.context.metrics.rooms.clone();
        let game = self.game.game_id();
        let mut counted = self.status();
        rooms.with_label_values(&[game, counted.as_str()]).inc();
        loop {
            let deadline = self.next_deadline();
            let flow = tokio::select! {
                command = inbox.recv() => match command {
                    // Boxed, here and for the timers: handling holds far more state
                    // than waiting, and an idle room should not carry it.
                    Some(command) => Box::pin(self.handle(*command)).await,
                    None => Flow::Close,
                },
                () = sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                    Box::pin(self.on_timer()).await
                }
                () = shutdown.cancelled() => Flow::Close,
            };
            self.publish(&publisher);
            let status = self.status();
            if status != counted {
                rooms.with_label_values(&[game, counted.as_str()]).dec();
                rooms.with_label_values(&[game, status.as_str()]).inc();
                counted = status;
            }
            if flow == Flow::Close {
                break;
            }
        }
        rooms.with_label_values(&[game, counted.as_str()]).dec();
        info!(room = %self.id, "room removed");
    }

    async fn handle(&mut self, command: Command) -> Flow {
        match command {
            Command::Join {
                player,
                seat,
                sub,
                reference,
                reply,
            } => {
                let result = self.join(player, seat, sub, reference).await;
                let _ = reply.send(result);
            }
            Command::Watch {
                sub,
                reference,
                reply,
            } => {
                let result = self.watch(sub, reference);
                let _ = reply.send(result);
            }
            Command::Move {
                player_id,
                conn,
                text,
                received,
                reply,
            } => {
                let result = self.human_move(&player_id, conn, &text, received).await;
                let _ = reply.send(result);
            }
            Command::Request {
                request,
                player_id,
                conn,
                reply,
            } => {
                let result = self.request(request, &player_id, conn).await;
                let _ = reply.send(result);
            }
            Command::Leave {
                player_id,
                conn,
                reply,
            } => {
                let result = self.leave(&player_id, conn).await;
                let _ = reply.send(result);
            }
            Command::Disconnect { conn } => self.disconnect(conn),
            Command::BotMoved { ply, text } => self.bot_moved(ply, &text).await,
            Command::BotJudgedDraw { ply, answer } => self.bot_judged_draw(ply, answer).await,
        }
        self.settle().await;
        Flow::Continue
    }

    // ----- seats -------------------------------------------------------------------

    async fn join(
        &mut self,
        player: PlayerInfo,
        seat: Seat,
        sub: Subscriber,
        reference: Option<Value>,
    ) -> Result<(), ClientError> {
        let other = &self.seats[seat.other().index()];
        if other.player_id() == Some(&player.player_id) {
            return Err(ClientError::new(
                ErrorCode::AlreadySeated,
                format!(
                    "You already hold seat {} in this room; one player cannot take both seats.",
                    seat.other().index()
                ),
            ));
        }
        let replaced = ServerMsg::Replaced {
            room: self.id.clone(),
        };
        match &mut self.seats[seat.index()] {
            SeatState::Human {
                player: holder,
                conn,
                away_since,
            } if holder.player_id == player.player_id => {
                // The same player, from a new connection: the seat moves there.
                if let Some(old) = conn.take()
                    && old.conn != sub.conn
                {
                    send_to(&old, &frame(&replaced), &self.context.metrics);
                }
                holder.name = player.name;
                *conn = Some(sub.clone());
                *away_since = None;
            }
            SeatState::StandIn {
                player: holder,
                conn,
                ..
            } if holder.player_id == player.player_id => {
                // Back after a bot took over: the bot finishes any move it is making.
                if let Some(old) = conn.take()
                    && old.conn != sub.conn
                {
                    send_to(&old, &frame(&replaced), &self.context.metrics);
                }
                holder.name = player.name;
                *conn = Some(sub.clone());
                self.hand_back(seat);
            }
            SeatState::Open => {
                self.seats[seat.index()] = SeatState::Human {
                    player,
                    conn: Some(sub.clone()),
                    away_since: None,
                };
            }
            SeatState::Human { .. } | SeatState::Bot(_) | SeatState::StandIn { .. } => {
                return Err(ClientError::new(
                    ErrorCode::SeatTaken,
                    format!(
                        "Seat {} is taken. Join the other seat if it is open, or watch.",
                        seat.index()
                    ),
                ));
            }
        }
        self.spectators.remove(&sub.conn);
        debug!(room = %self.id, seat = seat.index(), "seat taken");
        self.welcome(&sub, seat, reference).await;
        Ok(())
    }

    /// Adds a spectator (unless the room is full) and greets them; the others learn of
    /// them at once after a quiet pace, otherwise in the next paced announcement.
    fn watch(&mut self, sub: Subscriber, reference: Option<Value>) -> Result<(), ClientError> {
        let seat = Seat::BOTH.into_iter().find(|s| {
            self.seats[s.index()]
                .conn()
                .is_some_and(|c| c.conn == sub.conn)
        });
        // Watching again, or watching one's own room, changes nothing but gets a snapshot.
        if seat.is_none() && !self.spectators.contains_key(&sub.conn) {
            let limit = self.context.config.limits.spectators_per_room;
            if limit > 0 && self.spectators.len() >= limit as usize {
                return Err(ClientError::new(
                    ErrorCode::RoomFull,
                    format!(
                        "This room already has {limit} spectators, as many as it takes. Try again later or watch another room."
                    ),
                ));
            }
            self.spectators.insert(sub.conn, sub.clone());
            self.audience_changed(Some(sub.conn));
        }
        self.greet(&sub, seat, reference);
        Ok(())
    }

    /// After a seat change: start the game if it can, then tell everyone (the newcomer
    /// gets `joined` and a snapshot with history instead of the broadcast).
    async fn welcome(&mut self, sub: &Subscriber, seat: Seat, reference: Option<Value>) {
        self.try_start().await;
        self.seq += 1;
        self.broadcast_state(Some(sub.conn));
        self.greet(sub, Some(seat), reference);
    }

    /// Sends a newcomer `joined` and a snapshot of the current state with its history,
    /// encoded once for a burst of newcomers.
    fn greet(&mut self, sub: &Subscriber, seat: Option<Seat>, reference: Option<Value>) {
        let joined = ServerMsg::Joined {
            room: self.id.clone(),
            seat: seat.map(|s| s.index() as u8),
            role: if seat.is_some() {
                Role::Player
            } else {
                Role::Spectator
            },
            reference,
        };
        let mut snapshots = std::mem::take(&mut self.snapshots);
        let snapshot = snapshots.get(self.seq, Instant::now(), || frame(&self.state_msg(true)));
        self.snapshots = snapshots;
        let metrics = &self.context.metrics;
        send_to(sub, &frame(&joined), metrics);
        send_to(sub, &snapshot, metrics);
    }

    fn seat_of(&self, player_id: &str, conn: ConnId) -> Result<Seat, ClientError> {
        Seat::BOTH
            .into_iter()
            .find(|s| {
                let state = &self.seats[s.index()];
                state.player_id() == Some(player_id) && state.conn().is_some_and(|c| c.conn == conn)
            })
            .ok_or_else(|| {
                ClientError::new(
                    ErrorCode::NotAPlayer,
                    "You do not hold a seat in this room on this connection. Join a seat first.",
                )
            })
    }

    async fn leave(&mut self, player_id: &str, conn: ConnId) -> Result<(), ClientError> {
        if self.spectators.remove(&conn).is_some() {
            self.audience_changed(None);
            return Ok(());
        }
        let seat = self.seat_of(player_id, conn)?;
        let ending = match self.status() {
            Status::Playing => Some(
                self.record_ending(Some(seat.other()), EndReason::Abandoned)
                    .await?,
            ),
            Status::Waiting | Status::Finished => None,
        };
        let state = &mut self.seats[seat.index()];
        if self.started.is_none() {
            *state = SeatState::Open;
        } else if let SeatState::Human { conn, .. } = state {
            *conn = None;
        }
        match ending {
            Some(ending) => self.conclude(ending),
            None => {
                self.seq += 1;
                self.broadcast_state(None);
            }
        }
        Ok(())
    }

    /// A connection is gone: a seat it held is announced at once, a spectator by the
    /// room's timer as the pace allows.
    fn disconnect(&mut self, conn: ConnId) {
        if self.forget(conn) {
            debug!(room = %self.id, conn, "a player's connection left the room");
            self.seq += 1;
            self.broadcast_state(None);
        }
    }

    /// Forgets a connection without announcing anything; `true` if it held a seat.
    fn forget(&mut self, conn: ConnId) -> bool {
        if self.spectators.remove(&conn).is_some() {
            self.pacer.defer(Instant::now());
        }
        let mut changed = false;
        for state in &mut self.seats {
            match state {
                SeatState::Human {
                    conn: held,
                    away_since,
                    ..
                } if held.as_ref().is_some_and(|c| c.conn == conn) => {
                    *held = None;
                    *away_since = Some(Instant::now());
                    changed = true;
                }
                SeatState::StandIn { conn: held, .. }
                    if held.as_ref().is_some_and(|c| c.conn == conn) =>
                {
                    *held = None;
                    changed = true;
                }
                _ => {}
            }
        }
        changed
    }

    // ----- moves -------------------------------------------------------------------

    fn status(&self) -> Status {
        match (&self.result, &self.started) {
            (Some(_), _) => Status::Finished,
            (None, Some(_)) => Status::Playing,
            (None, None) => Status::Waiting,
        }
    }

    async fn human_move(
        &mut self,
        player_id: &str,
        conn: ConnId,
        text: &str,
        received: Instant,
    ) -> Result<(), ClientError> {
        let seat = self.seat_of(player_id, conn)?;
        match self.status() {
            Status::Finished => {
                return Err(ClientError::new(
                    ErrorCode::GameFinished,
                    "This game is over; no more moves can be played.",
                ));
            }
            Status::Playing if matches!(self.seats[seat.index()], SeatState::StandIn { .. }) => {
                return Err(ClientError::new(
                    ErrorCode::NotYourTurn,
                    "A bot is finishing this move for you; you play again from your next turn.",
                ));
            }
            Status::Waiting => {
                return Err(ClientError::new(
                    ErrorCode::NotYourTurn,
                    "The game has not started yet: wait until both seats are filled.",
                ));
            }
            Status::Playing => {}
        }
        if self.game.turn() != Some(seat) {
            return Err(ClientError::new(
                ErrorCode::NotYourTurn,
                "It is not your turn; wait for your opponent's move.",
            ));
        }
        self.play(seat, text, received).await
    }

    /// Validates a move, records it (with the game's ending, if it ends the game), and
    /// only then applies and broadcasts it. On any error the room is unchanged.
    async fn play(&mut self, seat: Seat, text: &str, received: Instant) -> Result<(), ClientError> {
        let mut next = self.game.clone_box();
        let played = next.play(text).map_err(|error| match error {
            MoveError::Unparseable { .. } => {
                ClientError::new(ErrorCode::BadMove, format!("{error}."))
            }
            MoveError::Illegal { .. } => ClientError::new(
                ErrorCode::IllegalMove,
                format!("{error}. The legal moves are listed in the latest state."),
            ),
            MoveError::GameOver => ClientError::new(ErrorCode::GameFinished, "This game is over."),
        })?;
        let Some(started) = &self.started else {
            return Err(ClientError::new(
                ErrorCode::NotYourTurn,
                "The game has not started yet.",
            ));
        };
        let mut clock = self.clock.clone();
        if clock.stop(received).is_err() {
            return Err(ClientError::new(
                ErrorCode::OutOfTime,
                "Your time ran out before this move arrived, so it was not played; the game ends on time.",
            ));
        }
        let think_ms = duration_ms(received.saturating_duration_since(self.turn_began));
        let mut thinking_ms = self.thinking_ms;
        thinking_ms[seat.index()] += think_ms;
        let record = MoveRecord {
            game_id: started.game_id.clone(),
            ply: self.history.len() as u32 + 1,
            seat: seat.index() as u8,
            notation: played.notation.clone(),
            played_at_ms: unix_ms(SystemTime::now()),
            think_ms: think_ms as i64,
            clocks_ms: clock
                .remaining_at(received)
                .map(|clocks| clocks.map(|ms| i64::try_from(ms).unwrap_or(i64::MAX))),
        };
        let finish = next
            .outcome()
            .map(|outcome| self.ending(outcome, self.history.len() + 1, thinking_ms));
        let rating_changes = match self
            .context
            .store
            .append_move(&record, finish.as_ref().map(|(finish, _)| finish))
            .await
        {
            Ok(changes) => changes,
            Err(error) => {
                error!(room = %self.id, %error, "could not record a move; it was refused");
                return Err(ClientError::storage_unavailable());
            }
        };
        debug!(room = %self.id, seat = seat.index(), mv = %played.notation, think_ms, "move");
        self.game = next;
        self.history.push((seat, played));
        self.thinking_ms = thinking_ms;
        let now = Instant::now();
        self.turn_began = now;
        self.last_move_at = now;
        self.clock = clock;
        if let Some(next_seat) = self.game.turn() {
            self.clock.start(next_seat, now);
        }
        // A draw offer lapses when the offerer's opponent moves instead of answering it.
        if self.draw_offer == Some(seat.other()) {
            self.draw_offer = None;
        }
        for seat in Seat::BOTH {
            self.hand_back(seat);
        }
        match finish {
            Some((_, mut ending)) => {
                ending.ratings = rating_changes;
                self.conclude(ending);
            }
            None => {
                self.seq += 1;
                self.broadcast_state(None);
            }
        }
        let metrics = &self.context.metrics;
        metrics
            .moves_accepted
            .with_label_values(&[self.game.game_id()])
            .inc();
        metrics
            .move_to_broadcast_seconds
            .observe(received.elapsed().as_secs_f64());
        Ok(())
    }

    /// A seated player's request other than a move, checked in the documented order:
    /// the seat, then the game's status, then the request itself.
    async fn request(
        &mut self,
        request: Request,
        player_id: &str,
        conn: ConnId,
    ) -> Result<(), ClientError> {
        let seat = self.seat_of(player_id, conn)?;
        if request == Request::Rematch {
            return self.ask_rematch(seat).await;
        }
        match self.status() {
            Status::Finished => {
                return Err(ClientError::new(
                    ErrorCode::GameFinished,
                    "This game is already over.",
                ));
            }
            Status::Waiting => {
                return Err(ClientError::new(
                    ErrorCode::GameNotStarted,
                    "The game has not started yet. Use leave to give up your seat.",
                ));
            }
            Status::Playing => {}
        }
        let offered_to_me = self.draw_offer == Some(seat.other());
        match request {
            Request::Resign => self.finish(Some(seat.other()), EndReason::Resigned).await,
            Request::AcceptDraw | Request::OfferDraw if offered_to_me => {
                self.finish(None, EndReason::DrawAgreed).await
            }
            Request::OfferDraw => {
                self.draw_offer = Some(seat);
                self.seq += 1;
                self.broadcast_state(None);
                self.bot_answers_draw(seat.other()).await;
                Ok(())
            }
            Request::DeclineDraw if offered_to_me => {
                self.draw_offer = None;
                self.seq += 1;
                self.broadcast_state(None);
                Ok(())
            }
            Request::AcceptDraw | Request::DeclineDraw => Err(ClientError::new(
                ErrorCode::NoDrawOffer,
                "Your opponent has not offered a draw (or the offer lapsed when you moved).",
            )),
            Request::Rematch => Ok(()),
        }
    }

    /// Records `seat`'s wish for a rematch; a bot always agrees. When both seats agree,
    /// a new game starts in the room with the seats swapped.
    async fn ask_rematch(&mut self, seat: Seat) -> Result<(), ClientError> {
        if self.status() != Status::Finished {
            return Err(ClientError::new(
                ErrorCode::GameNotFinished,
                "A rematch can be asked for once this game is over.",
            ));
        }
        self.rematch[seat.index()] = true;
        for other in Seat::BOTH {
            if matches!(self.seats[other.index()], SeatState::Bot(_)) {
                self.rematch[other.index()] = true;
            }
        }
        if self.rematch == [true, true] {
            self.restart();
            self.try_start().await;
        }
        self.seq += 1;
        self.broadcast_state(None);
        Ok(())
    }

    /// Whether a game that ended this way counts for ratings: not when it started from a
    /// given position, was aborted, or had a bot stand in for a person.
    fn rated(&self, outcome: Outcome) -> bool {
        let [first, second] = Seat::BOTH.map(|seat| {
            let state = &self.seats[seat.index()];
            rated_key(&state.kind().to_string(), state.player_id())
        });
        // Two bots of one level share a rating: a game against itself teaches it nothing.
        self.options.scored()
            && outcome.reason != EndReason::Aborted
            && !self.stood_in.contains(&true)
            && first != second
    }

    /// Reads both seats' ratings for display; unknown ratings show as none.
    async fn load_ratings(&mut self) {
        let keys = Seat::BOTH.map(|seat| {
            let state = &self.seats[seat.index()];
            rated_key(&state.kind().to_string(), state.player_id())
        });
        let store = &self.context.store;
        self.ratings = match store
            .ratings(self.game.game_id(), [keys[0].as_str(), keys[1].as_str()])
            .await
        {
            Ok(ratings) => ratings.map(|rating| rating.map(|r| r.rating)),
            Err(error) => {
                warn!(room = %self.id, %error, "could not read the ratings; they are not shown");
                [None, None]
            }
        };
    }

    /// Sets the room up for a new game with the same options and the seats swapped.
    fn restart(&mut self) {
        info!(room = %self.id, "a rematch begins with the seats swapped");
        self.seats.swap(0, 1);
        self.ratings.swap(0, 1);
        self.game = self.initial.clone_box();
        self.history.clear();
        self.result = None;
        self.started = None;
        self.thinking_ms = [0, 0];
        self.bot_thinking = None;
        self.stood_in = [false, false];
        self.clock = Clock::new(self.options.time_control);
        self.draw_offer = None;
        self.draw_judging = None;
        self.draw_judged = None;
        self.rematch = [false, false];
    }

    /// Ends the game without a move (resignation, abandonment): records it, then applies it.
    async fn finish(&mut self, winner: Option<Seat>, reason: EndReason) -> Result<(), ClientError> {
        let ending = self.record_ending(winner, reason).await?;
        self.conclude(ending);
        Ok(())
    }

    /// Records an ending that no move caused; the caller then applies it with `conclude`.
    async fn record_ending(
        &mut self,
        winner: Option<Seat>,
        reason: EndReason,
    ) -> Result<Ending, ClientError> {
        let outcome = Outcome { winner, reason };
        let (finish, mut ending) = self.ending(outcome, self.history.len(), self.thinking_ms);
        match self.context.store.finish_game(&finish).await {
            Ok(changes) => {
                ending.ratings = changes;
                Ok(ending)
            }
            Err(error) => {
                error!(room = %self.id, %error, "could not record the end of a game");
                Err(ClientError::storage_unavailable())
            }
        }
    }

    /// The store record of an ending after `moves` moves, and what to announce once
    /// it is recorded.
    fn ending(
        &self,
        outcome: Outcome,
        moves: usize,
        thinking_ms: [u64; 2],
    ) -> (GameFinish, Ending) {
        let config = &self.context.config.scoring;
        let mut moves_by_seat = [0u32; 2];
        for (seat, _) in &self.history {
            moves_by_seat[seat.index()] += 1;
        }
        if moves > self.history.len()
            && let Some(mover) = self.game.turn()
        {
            moves_by_seat[mover.index()] += 1;
        }
        let par = config.par.for_game(self.game.game_id()).unwrap_or(1);
        let scores = Seat::BOTH.map(|seat| match &self.seats[seat.index()] {
            SeatState::Human { .. } if self.options.scored() && !self.stood_in[seat.index()] => {
                scoring::score(&ScoreInput {
                    outcome,
                    seat,
                    moves: moves as u32,
                    moves_by_seat,
                    thinking_ms: thinking_ms[seat.index()],
                    par,
                    min_moves_per_side: config.min_moves_per_side,
                })
            }
            _ => None,
        });
        let (game_id, duration) = match &self.started {
            Some(started) => (started.game_id.clone(), started.at.elapsed()),
            None => (String::new(), Duration::ZERO),
        };
        let leaderboard = Seat::BOTH
            .into_iter()
            .filter(|seat| outcome.winner.is_none_or(|winner| winner == *seat))
            .filter_map(|seat| {
                let player_id = self.seats[seat.index()].player_id()?;
                Some(LeaderboardCandidate {
                    player_id: player_id.to_owned(),
                    score: i64::from(scores[seat.index()]?),
                })
            })
            .collect();
        let finish = GameFinish {
            game_id,
            game: self.game.game_id().to_owned(),
            finished_at_ms: unix_ms(SystemTime::now()),
            winner: outcome.winner.map(|s| s.index() as u8),
            reason: outcome.reason.as_str().to_owned(),
            duration_ms: duration_ms(duration) as i64,
            moves: moves as u32,
            seats: Seat::BOTH
                .map(|seat| SeatResult {
                    seat: seat.index() as u8,
                    thinking_ms: thinking_ms[seat.index()] as i64,
                    score: scores[seat.index()].map(i64::from),
                })
                .to_vec(),
            leaderboard,
            rated: self.rated(outcome).then(|| {
                Seat::BOTH.map(|seat| {
                    let state = &self.seats[seat.index()];
                    rated_key(&state.kind().to_string(), state.player_id())
                })
            }),
        };
        let ending = Ending {
            outcome,
            scores,
            duration_ms: duration_ms(duration),
            ratings: None,
        };
        (finish, ending)
    }

    /// Applies a recorded ending and announces it: the finishing state, then `game_over`.
    fn conclude(&mut self, ending: Ending) {
        let Ending {
            outcome,
            scores,
            duration_ms,
            ratings,
        } = ending;
        if let Some(changes) = ratings {
            self.ratings = changes.map(|change| Some(change.after.rating));
        }
        self.result = Some(outcome);
        self.bot_thinking = None;
        self.draw_offer = None;
        self.clock.halt(Instant::now());
        self.seq += 1;
        self.broadcast_state(None);
        let game_id = self
            .started
            .as_ref()
            .map_or_else(String::new, |started| started.game_id.clone());
        info!(
            room = %self.id, game_id, reason = %outcome.reason,
            winner = ?outcome.winner.map(Seat::index), moves = self.history.len(), "game finished"
        );
        let game_over = GameOverMsg {
            room: self.id.clone(),
            game_id,
            seq: self.seq,
            winner: outcome.winner.map(|s| s.index() as u8),
            reason: outcome.reason,
            scores: Seat::BOTH
                .map(|seat| ScoreView {
                    seat: seat.index() as u8,
                    name: self.seats[seat.index()].name(),
                    score: scores[seat.index()],
                    rating_before: ratings
                        .map(|changes| rounded(changes[seat.index()].before.rating)),
                    rating_after: ratings
                        .map(|changes| rounded(changes[seat.index()].after.rating)),
                })
                .to_vec(),
            duration_ms,
        };
        self.broadcast(&frame(&game_over), None);
    }

    // ----- starting, bots and timers -----------------------------------------------

    /// Starts the game once both seats are filled, recording it first. If the store is
    /// unavailable the room stays waiting and tries again after [`STORE_RETRY`].
    async fn try_start(&mut self) {
        let now = Instant::now();
        if self.status() != Status::Waiting
            || self.seats.iter().any(SeatState::is_open)
            || self.retry_at.is_some_and(|at| at > now)
        {
            return;
        }
        let game_id = format!("g_{}", random_hex(8));
        let record = NewGame {
            game_id: game_id.clone(),
            game: self.game.game_id().to_owned(),
            room_id: self.id.clone(),
            started_at_ms: unix_ms(SystemTime::now()),
            seats: Seat::BOTH
                .map(|seat| {
                    let state = &self.seats[seat.index()];
                    SeatRecord {
                        seat: seat.index() as u8,
                        kind: state.kind().to_string(),
                        player_id: state.player_id().map(str::to_owned),
                        name: state.name().unwrap_or_default(),
                    }
                })
                .to_vec(),
            options_json: self.options.to_json(),
        };
        if let Err(error) = self.context.store.create_game(&record).await {
            error!(room = %self.id, %error, "could not record the start of a game; will retry");
            self.retry_at = Some(now + STORE_RETRY);
            return;
        }
        info!(room = %self.id, game_id, "game started");
        self.load_ratings().await;
        // The first mover's time starts now, not before the database work above.
        let now = Instant::now();
        self.started = Some(Started { game_id, at: now });
        self.turn_began = now;
        self.last_move_at = now;
        self.fill_at = None;
        if let Some(first) = self.game.turn() {
            self.clock.start(first, now);
        }
    }

    /// Brings derived state up to date after any change: starts the game if it can,
    /// sets or clears the fill and idle timers, and asks a bot to move if it is its turn.
    async fn settle(&mut self) {
        if self.status() == Status::Waiting {
            self.try_start().await;
            if self.status() == Status::Playing {
                self.seq += 1;
                self.broadcast_state(None);
            }
        }
        let now = Instant::now();
        // A private room waits for the person its link was sent to, not for a bot.
        let fillable = self.status() == Status::Waiting
            && !self.options.private
            && self.seats.iter().any(SeatState::is_open)
            && self.seats.iter().any(|s| s.conn().is_some());
        self.fill_at = match (fillable, self.fill_at) {
            (true, Some(at)) => Some(at),
            (true, None) => {
                Some(now + Duration::from_secs(self.context.config.bots.fill_after_secs))
            }
            (false, _) => None,
        };
        let idle = match self.status() {
            Status::Finished => true,
            Status::Waiting => {
                self.seats.iter().all(|s| s.conn().is_none()) && self.spectators.is_empty()
            }
            Status::Playing => false,
        };
        self.idle_since = match (idle, self.idle_since) {
            (true, Some(since)) => Some(since),
            (true, None) => Some(now),
            (false, _) => None,
        };
        self.ask_bot();
    }

    /// The grace of an absent player in `seat` has run out: a bot takes the seat over if
    /// the room says so, otherwise they lose by `abandoned`.
    async fn absent_too_long(&mut self, seat: Seat, now: Instant) {
        let takeover = self
            .options
            .takeover
            .unwrap_or(self.context.config.rooms.takeover);
        match takeover {
            Takeover::Bot(level) => {
                let state = &mut self.seats[seat.index()];
                if let SeatState::Human { player, .. } = state {
                    info!(room = %self.id, seat = seat.index(), %level, "a bot took over an absent player's seat");
                    *state = SeatState::StandIn {
                        player: player.clone(),
                        level,
                        conn: None,
                    };
                    self.stood_in[seat.index()] = true;
                    self.seq += 1;
                    self.broadcast_state(None);
                }
            }
            Takeover::None => {
                if self
                    .finish(Some(seat.other()), EndReason::Abandoned)
                    .await
                    .is_err()
                {
                    self.retry_at = Some(now + STORE_RETRY);
                }
            }
        }
    }

    /// Gives a seat back to its returning player unless its bot is making their move
    /// right now; then `play` hands it back once that move is made.
    fn hand_back(&mut self, seat: Seat) {
        let bot_busy = self.status() == Status::Playing
            && self.game.turn() == Some(seat)
            && self.bot_thinking == Some(self.history.len());
        let state = &mut self.seats[seat.index()];
        if let SeatState::StandIn {
            player,
            conn: Some(conn),
            ..
        } = state
            && !bot_busy
        {
            info!(room = %self.id, seat = seat.index(), "an absent player took their seat back");
            *state = SeatState::Human {
                player: player.clone(),
                conn: Some(conn.clone()),
                away_since: None,
            };
        }
    }

    fn abandon_deadline(&self) -> Option<(Instant, Seat)> {
        let started = self.started.as_ref()?;
        if self.status() != Status::Playing {
            return None;
        }
        let grace = Duration::from_secs(self.context.config.rooms.reconnect_grace_secs);
        Seat::BOTH
            .into_iter()
            .filter_map(|seat| match &self.seats[seat.index()] {
                SeatState::Human {
                    away_since: Some(since),
                    conn: None,
                    ..
                } => Some(((*since).max(started.at) + grace, seat)),
                _ => None,
            })
            .min()
    }

    fn next_deadline(&self) -> Option<Instant> {
        let idle = Duration::from_secs(self.context.config.rooms.idle_secs);
        [
            self.fill_at,
            self.abandon_deadline().map(|(at, _)| at),
            self.flag_deadline(),
            self.first_move_deadline(),
            self.idle_since.map(|since| since + idle),
            self.retry_at,
            self.pacer.due(),
        ]
        .into_iter()
        .flatten()
        .min()
        .map(|at| at.max(self.retry_at.unwrap_or(at)))
    }

    async fn on_timer(&mut self) -> Flow {
        let now = Instant::now();
        if self.retry_at.is_some_and(|at| at <= now) {
            self.retry_at = None;
        }
        let idle = Duration::from_secs(self.context.config.rooms.idle_secs);
        if self.idle_since.is_some_and(|since| since + idle <= now) {
            return Flow::Close;
        }
        if self.pacer.due().is_some_and(|at| at <= now) {
            self.seq += 1;
            self.pacer.announced(now);
            self.broadcast_state(None);
        }
        if self.fill_at.is_some_and(|at| at <= now)
            && let Some(open) = self.seats.iter_mut().find(|s| s.is_open())
        {
            let level: BotLevel = self.context.config.bots.fill_level;
            *open = SeatState::Bot(level);
            self.fill_at = None;
            info!(room = %self.id, %level, "an open seat was filled with a bot");
            self.try_start().await;
            self.seq += 1;
            self.broadcast_state(None);
        }
        if let Some((at, seat)) = self.abandon_deadline()
            && at <= now
        {
            self.absent_too_long(seat, now).await;
        }
        if self.first_move_deadline().is_some_and(|at| at <= now) {
            info!(room = %self.id, "a first move was not made in time; the game is aborted");
            self.end_by_timer(None, EndReason::Aborted, now).await;
        } else if let Some((seat, at)) = self.clock.deadline()
            && at <= now
            && self.status() == Status::Playing
        {
            // Running out of time loses, unless the opponent could never win anyway.
            let opponent = seat.other();
            if self.game.can_win(opponent) {
                self.end_by_timer(Some(opponent), EndReason::Timeout, now)
                    .await;
            } else {
                self.end_by_timer(None, EndReason::TimeoutVsInsufficientMaterial, now)
                    .await;
            }
        }
        self.settle().await;
        Flow::Continue
    }

    /// Ends the game from a timer; if the store cannot record it, tries again shortly.
    async fn end_by_timer(&mut self, winner: Option<Seat>, reason: EndReason, now: Instant) {
        if self.finish(winner, reason).await.is_err() {
            self.retry_at = Some(now + STORE_RETRY);
        }
    }

    /// When the side to move flags, while a game is on.
    fn flag_deadline(&self) -> Option<Instant> {
        match self.status() {
            Status::Playing => self.clock.deadline().map(|(_, at)| at),
            Status::Waiting | Status::Finished => None,
        }
    }

    /// When the game is aborted if the side to move has not yet made its first move.
    fn first_move_deadline(&self) -> Option<Instant> {
        let first_moves_pending = self.status() == Status::Playing && self.history.len() < 2;
        first_moves_pending.then(|| {
            self.turn_began + Duration::from_secs(self.context.config.rooms.first_move_secs)
        })
    }

    // ----- views and broadcasting --------------------------------------------------

    fn state_msg(&self, with_history: bool) -> StateMsg {
        let playing = self.status() == Status::Playing;
        StateMsg {
            room: self.id.clone(),
            game: self.game.game_id(),
            game_id: self.started.as_ref().map(|s| s.game_id.clone()),
            seq: self.seq,
            status: self.status(),
            seats: self.seat_views(),
            spectators: self.spectators.len(),
            to_move: if playing {
                self.game.turn().map(|s| s.index() as u8)
            } else {
                None
            },
            position: self.game.position(),
            board: self.game.board(),
            legal_moves: if playing {
                self.game.legal_moves()
            } else {
                Vec::new()
            },
            last_move: self.history.last().map(|(seat, played)| LastMove {
                seat: seat.index() as u8,
                text: played.notation.clone(),
                display: played.display.clone(),
            }),
            moves: self.history.len(),
            result: self.result.map(|outcome| ResultView {
                winner: outcome.winner.map(|s| s.index() as u8),
                reason: outcome.reason,
            }),
            time_control: self.clock.control(),
            draw_offer: self.draw_offer.map(|seat| seat.index() as u8),
            rematch: Seat::BOTH
                .into_iter()
                .filter(|seat| self.rematch[seat.index()])
                .map(|seat| seat.index() as u8)
                .collect(),
            clocks: self
                .clock
                .remaining_at(Instant::now())
                .map(|remaining_ms| ClockView {
                    remaining_ms,
                    running: self.clock.running().map(|seat| seat.index() as u8),
                }),
            history: with_history.then(|| {
                self.history
                    .iter()
                    .map(|(_, played)| played.notation.clone())
                    .collect()
            }),
            history_display: with_history.then(|| {
                self.history
                    .iter()
                    .map(|(_, played)| played.display.clone())
                    .collect()
            }),
        }
    }

    fn seat_views(&self) -> Vec<crate::protocol::SeatView> {
        Seat::BOTH
            .map(|seat| {
                let mut view = self.seats[seat.index()].view(seat.index() as u8);
                view.rating = self.ratings[seat.index()].map(rounded);
                view
            })
            .to_vec()
    }

    /// Publishes the room's listing and state for readers outside its task. Its lobby
    /// watcher is woken only when either has changed and someone is subscribed to the
    /// lobby: otherwise the new value is stored silently, for `/api/rooms` and for the
    /// snapshot a new lobby subscriber reads after subscribing.
    fn publish(&self, publisher: &watch::Sender<Published>) {
        let next = self.publication();
        publisher.send_if_modified(|current| {
            let changed = current.seq != next.seq || current.summary != next.summary;
            if changed {
                *current = next;
            }
            changed && self.context.listing_followers.any()
        });
    }

    /// The room's listing and state. The state is the frame last broadcast when nothing
    /// has happened since (every change raises `seq`), so a move is encoded once.
    pub(super) fn publication(&self) -> Published {
        let state = match &self.last_state {
            Some((seq, frame)) if *seq == self.seq => ByteString::clone(frame),
            _ => fanout::encode(&self.state_msg(false)),
        };
        Published {
            summary: RoomSummary {
                room: self.id.clone(),
                game: self.game.game_id(),
                status: self.status(),
                seats: self.seat_views(),
                spectators: self.spectators.len(),
                moves: self.history.len(),
                time_control: self.clock.control(),
                created_at_ms: self.created_at_ms,
            },
            state,
            seq: self.seq,
        }
    }

    fn broadcast_state(&mut self, except: Option<ConnId>) {
        let frame = frame(&self.state_msg(false));
        self.pacer.carried();
        self.broadcast(&frame, except);
        self.last_state = Some((self.seq, frame));
    }

    /// Queues one encoded frame to every subscriber. Those that cannot take it are
    /// dropped quietly: the change in the audience rides on a later `state`, sent by the
    /// room's timer as the pace allows, so drops can never set off a storm of broadcasts.
    fn broadcast(&mut self, frame: &Frame, except: Option<ConnId>) {
        let seated = self.seats.iter().filter_map(SeatState::conn);
        let subscribers = seated.chain(self.spectators.values());
        let dropped = fan_out(subscribers, frame, except, &self.context.metrics);
        if dropped.is_empty() {
            return;
        }
        for conn in dropped {
            debug!(room = %self.id, conn, "dropping a connection that could not keep up");
            // A seated player's connection is shown as gone in the paced announcement
            // too: when their session later reports the disconnect, nothing is left to
            // change, so nothing else would announce it.
            if self.forget(conn) {
                self.pacer.defer(Instant::now());
            }
        }
    }

    /// A spectator came or went: announced at once after a quiet pace (not to `except`,
    /// who gets a snapshot), otherwise merged into the paced announcement.
    fn audience_changed(&mut self, except: Option<ConnId>) {
        let now = Instant::now();
        if self.pacer.changed(now) {
            self.seq += 1;
            self.pacer.announced(now);
            self.broadcast_state(except);
        }
    }
}

/// A rating as shown to people: the nearest whole number.
fn rounded(rating: f64) -> i64 {
    rating.round() as i64
}

fn duration_ms(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
