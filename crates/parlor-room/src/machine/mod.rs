//! A room's rules as a pure state machine: seats, the start, moves, draw offers,
//! rematches, bot fill, abandonment, claims and bot takeover, endings and `seq`.
//!
//! It reads no clock, holds no channel and awaits nothing. Each method takes the time
//! as a plain value and returns what must happen as [`Effect`]s for the room's task to
//! perform. Work that needs the store comes in two steps, so that a change is durable
//! before anyone sees it: the machine prepares a record, the task writes it, and only
//! then does the machine apply it; if the write fails, the room is as it was.

mod absence;
mod bots;
mod chat;
mod commands;
mod endings;
mod filling;
mod moves;
mod pacer;
mod rebuild;
mod requests;
mod seat_pair;
mod seating;
mod timers;
mod views;

#[cfg(test)]
mod tests;

use foldhash::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::clock::Clock;
use crate::records::ChatRecord;
use crate::seats::SeatState;
use crate::views::{GameOverMsg, MovedMsg, StateMsg, Status};
use crate::{ConnId, GameId, RoomId, RoomOptions, RoomSettings, SeatSpec};
use parlor_rules::bots::{BotLevel, DrawView};
use parlor_rules::catalog::{AnyGame, GameSettings, PlayedMove};
use parlor_rules::games::{Outcome, Seat};

pub use bots::DrawAnswer;
use chat::ChatLog;
pub use endings::{OnFailure, PendingEnding};
pub use moves::PendingMove;
use pacer::Pacer;
pub use rebuild::{RebuildError, Records};
use seat_pair::SeatPair;
pub use timers::Tick;

/// How long to wait before retrying work that failed because the store was unavailable.
pub const STORE_RETRY: Duration = Duration::from_secs(1);

/// The time, as the room's task read it for one step: the monotonic instant that every
/// rule uses, and the wall clock in Unix ms for stored timestamps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Now {
    /// The monotonic time.
    pub at: Instant,
    /// The wall clock, Unix ms.
    pub unix_ms: i64,
}

/// Something the room's task must do for the machine, in order.
#[derive(Debug, PartialEq)]
pub enum Effect {
    /// Send this `state` to everyone in the room but `except`.
    State {
        /// The state.
        msg: Box<StateMsg>,
        /// The connection that gets a snapshot instead, if any.
        except: Option<ConnId>,
    },
    /// A move that left the game on: send this `moved` to those who asked for moves as
    /// events, and the room's `state` (the same `seq`) to everyone else.
    Moved {
        /// The event.
        msg: Box<MovedMsg>,
        /// The time its clocks were read at, for the `state` to show the same.
        at: Instant,
    },
    /// Send this `game_over` to everyone in the room.
    GameOver(Box<GameOverMsg>),
    /// Tell `conn` that its seat moved to another connection of its player.
    Replaced(ConnId),
    /// Send `conn` `joined` and a snapshot of the state as it is now, with its history.
    Greet {
        /// The newcomer.
        conn: ConnId,
        /// The seat they took; `None` for a spectator.
        seat: Option<Seat>,
        /// The `ref` of their request, echoed in `joined`.
        reference: Option<Value>,
    },
    /// `conn` no longer belongs to the room: its outbound queue can be let go.
    Release(ConnId),
    /// Ask a bot of `level` for a move in the position after `ply` moves.
    Think {
        /// Moves played in the position to think about.
        ply: usize,
        /// The bot's level.
        level: BotLevel,
        /// How long it may think under the room's clock, if there is one.
        budget: Option<Duration>,
        /// Its move is not handed back before this.
        not_before: Instant,
    },
    /// Send a chat line to `to` (its side of the room), and store it.
    Chat {
        /// The connections that hear it.
        to: Vec<ConnId>,
        /// The line, with its game and chat.
        said: Box<ChatRecord>,
    },
    /// Ask the bot in `seat` to judge the draw offer open after `ply` moves.
    JudgeDraw {
        /// Moves played in the position to judge.
        ply: usize,
        /// The bot's seat.
        seat: Seat,
    },
}

/// What a step of the machine leaves for the room's task: effects to perform now, and
/// store work that must follow them.
#[derive(Debug)]
pub struct Step {
    /// To perform at once, in order.
    pub effects: Vec<Effect>,
    /// What follows once they are performed.
    pub then: Then,
}

impl Step {
    fn done(effects: Vec<Effect>) -> Step {
        Step {
            effects,
            then: Then::Nothing,
        }
    }
}

/// Store work a step asks for after its effects.
#[derive(Debug)]
pub enum Then {
    /// Nothing.
    Nothing,
    /// Record this move, then [`RoomState::apply_move`] it; if the store fails, the
    /// mover is refused and the room is unchanged.
    Play(Box<PendingMove>),
    /// Record this ending, then [`RoomState::conclude`] it; if the store fails, the
    /// ending's [`PendingEnding::on_failure`] says what follows.
    End(Box<PendingEnding>),
    /// Start the game if it can (see [`RoomState::start_record`]), then call
    /// [`RoomState::after_start`] with this.
    Start(AfterStart),
    /// Record the draw offer as this change leaves it
    /// ([`RoomState::draw_offer_record`]), then [`RoomState::draw_offer_recorded`] it.
    DrawOffer(DrawChange),
    /// Record that a bot of `level` plays for the absent person in `seat`
    /// ([`RoomState::stand_in_record`]), then [`RoomState::stand_in_recorded`] it; if
    /// the store fails, [`RoomState::retry_later`].
    StandIn {
        /// The absent person's seat.
        seat: Seat,
        /// The bot's level.
        level: BotLevel,
    },
}

/// A change to the open draw offer, recorded before anyone sees it so that a game
/// resumed after a restart still has it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawChange {
    /// `seat` offers a draw.
    Offered(Seat),
    /// The offer is declined, by a person or (`by_bot`) by the bot it was made to. A
    /// bot's refusal stands even if the store cannot record it.
    Declined {
        /// Whether the bot in the other seat declined.
        by_bot: bool,
    },
}

/// What the room announces once it has tried to start the game.
#[derive(Debug, PartialEq)]
pub enum AfterStart {
    /// A seat was just taken by `conn`: everyone else gets a `state`, the newcomer
    /// `joined` and a snapshot.
    Welcome {
        /// The newcomer.
        conn: ConnId,
        /// Their seat.
        seat: Seat,
        /// The `ref` of their request.
        reference: Option<Value>,
    },
    /// Everyone gets a `state` (a bot filled a seat, or a rematch was agreed).
    Announce,
    /// Everyone gets a `state` if the game started (it had waited for the store).
    AnnounceIfStarted,
}

/// The game being played in the room, once both seats are filled.
#[derive(Clone, Debug, PartialEq)]
struct Started {
    game_id: GameId,
    at: Instant,
}

/// The room's whole state.
pub struct RoomState {
    id: RoomId,
    game: Box<dyn AnyGame>,
    /// The game as it starts, for rematches.
    initial: Box<dyn AnyGame>,
    /// The rule settings its games are played under (stored with each game).
    rules: GameSettings,
    options: RoomOptions,
    settings: Arc<RoomSettings>,
    seats: SeatPair,
    spectators: HashSet<ConnId>,
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
    /// The seat whose draw offer is open.
    draw_offer: Option<Seat>,
    /// A bot is judging the draw offer open in the position after this many moves.
    draw_judging: Option<usize>,
    /// The bot's last judgement of a draw offer: the position (moves played) and what
    /// the bot made of it, so repeated offers in one position are answered at once.
    draw_judged: Option<(usize, DrawView)>,
    /// Which seats have asked for a rematch of the finished game.
    rematch: [bool; 2],
    /// Each seat's current rating in this game, once known.
    ratings: [Option<f64>; 2],
    fill_at: Option<Instant>,
    idle_since: Option<Instant>,
    /// Store-dependent work (starting, a bot's move, abandonment) waits until then.
    retry_at: Option<Instant>,
    /// The id of a start whose write may have been stored though it failed: the retry
    /// records the same game, so a start that did land leaves no second game behind.
    lost_start: Option<GameId>,
    /// When the audience's comings and goings are next announced.
    pacer: Pacer,
    /// The game was resumed from the store after a restart and no move has been played
    /// since (`state.resumed`).
    resumed: bool,
    /// The game was resumed after a restart and no person has come back to it yet: if
    /// the reconnect grace runs out so, the game is aborted rather than lost by whoever's
    /// grace happens to end first.
    nobody_back: bool,
    /// The current game's chat lines, for newcomers.
    chat: ChatLog,
}

impl RoomState {
    /// A new, waiting room created at `now` with bots seated where `seats` asks.
    pub fn new(
        id: RoomId,
        game: Box<dyn AnyGame>,
        seats: [SeatSpec; 2],
        options: RoomOptions,
        settings: Arc<RoomSettings>,
        now: Now,
    ) -> RoomState {
        let seat_state = |spec| match spec {
            SeatSpec::Bot(level) => SeatState::Bot(level),
            SeatSpec::Open | SeatSpec::Me => SeatState::Open,
        };
        RoomState {
            rules: settings.games.clone(),
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
            settings,
            seats: SeatPair::new(seats.map(seat_state)),
            spectators: HashSet::default(),
            created_at_ms: now.unix_ms,
            seq: 1,
            started: None,
            history: Vec::new(),
            result: None,
            turn_began: now.at,
            last_move_at: now.at,
            thinking_ms: [0, 0],
            bot_thinking: None,
            stood_in: [false, false],
            fill_at: None,
            idle_since: Some(now.at),
            retry_at: None,
            lost_start: None,
            pacer: Pacer::default(),
            resumed: false,
            nobody_back: false,
            chat: ChatLog::default(),
        }
    }

    /// The room's id.
    pub fn id(&self) -> &RoomId {
        &self.id
    }

    /// The game as it stands.
    pub fn game(&self) -> &dyn AnyGame {
        self.game.as_ref()
    }

    /// Rises by one with every `state` the room broadcasts (PROTOCOL.md §8).
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// Waiting, playing or finished.
    pub fn status(&self) -> Status {
        match (&self.result, &self.started) {
            (Some(_), _) => Status::Finished,
            (None, Some(_)) => Status::Playing,
            (None, None) => Status::Waiting,
        }
    }

    /// Whether the game was resumed from the store and no move has been played since.
    pub fn is_resumed(&self) -> bool {
        self.resumed
    }

    /// Whether `conn` holds a seat or watches.
    pub fn holds(&self, conn: ConnId) -> bool {
        self.spectators.contains(&conn) || self.seats.iter().any(|s| s.conn() == Some(conn))
    }

    /// Broadcasts the current state to everyone but `except`, raising `seq`.
    fn announce_state(&mut self, now: Instant, except: Option<ConnId>, effects: &mut Vec<Effect>) {
        self.seq += 1;
        self.pacer.carried();
        effects.push(Effect::State {
            msg: Box::new(self.state_msg(false, now)),
            except,
        });
    }

    /// Lets go of `conn` if it no longer belongs to the room.
    fn release_if_gone(&self, conn: ConnId, effects: &mut Vec<Effect>) {
        if !self.holds(conn) {
            effects.push(Effect::Release(conn));
        }
    }
}
