//! Unit tests of the room's rules, driven with plain values: a tic-tac-toe room, times
//! built from one instant, and the store's part played by the test (a record is
//! "written" by applying it).

mod chat;
mod claims;
mod draws_and_rematches;
mod filling;
mod lifecycle;
mod moved_events;
mod moves_and_seq;
mod rebuild;
mod seats;
mod snapshots;
mod timers;

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{AfterStart, DrawChange, Effect, Now, RoomState, Step, Then, Tick};
use crate::options::Takeover;
use crate::scoring::ScoringConfig;
use crate::views::{GameOverMsg, MovedMsg, StateMsg};
use crate::{ConnId, GameId, PlayerId, PlayerInfo, Refusal, RoomOptions, RoomSettings, SeatSpec};
use parlor_rules::bots::BotLevel;
use parlor_rules::catalog;
use parlor_rules::games::Seat;
use parlor_rules::{GameKind, GameSettings};

/// Alice's connection.
const ALICE: ConnId = 1;
/// Bob's connection.
const BOB: ConnId = 2;
/// A spectator's connection.
const CAROL: ConnId = 3;

fn alice() -> PlayerInfo {
    PlayerInfo {
        player_id: "p_alice".into(),
        name: "Alice".into(),
        bot_account: false,
    }
}

fn bob() -> PlayerInfo {
    PlayerInfo {
        player_id: "p_bob".into(),
        name: "Bob".into(),
        bot_account: false,
    }
}

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// The settings the tests' rooms play under (the server's defaults).
fn settings() -> RoomSettings {
    RoomSettings {
        games: GameSettings::default(),
        idle: secs(300),
        reconnect_grace: secs(60),
        claim_after: secs(15),
        takeover: Takeover::None,
        first_move: secs(30),
        chat_max_chars: 140,
        spectators_per_room: 1_000,
        fill_after: secs(20),
        fill_level: BotLevel::Easy,
        bot_min_delay: ms(400),
        scoring: ScoringConfig::default(),
    }
}

/// The time `at`, with a wall clock that follows it.
fn when(t0: Instant, at: Instant) -> Now {
    Now {
        at,
        unix_ms: 1_700_000_000_000 + at.saturating_duration_since(t0).as_millis() as i64,
    }
}

/// A test room and the instant it was created at.
struct Fixture {
    room: RoomState,
    t0: Instant,
}

impl Fixture {
    fn new(seats: [SeatSpec; 2], options: RoomOptions) -> Fixture {
        Fixture::with_settings(seats, options, settings())
    }

    fn with_settings(
        seats: [SeatSpec; 2],
        options: RoomOptions,
        settings: RoomSettings,
    ) -> Fixture {
        Fixture::of_game(GameKind::TicTacToe, seats, options, settings)
    }

    /// A room of `kind`.
    fn of_game(
        kind: GameKind,
        seats: [SeatSpec; 2],
        options: RoomOptions,
        settings: RoomSettings,
    ) -> Fixture {
        let game = catalog::new_game(kind, &settings.games, options.start.as_deref()).unwrap();
        let t0 = Instant::now();
        let now = when(t0, t0);
        let room = RoomState::new("r1".into(), game, seats, options, Arc::new(settings), now);
        Fixture { room, t0 }
    }

    /// Two open seats.
    fn open() -> Fixture {
        Fixture::new([SeatSpec::Open, SeatSpec::Open], RoomOptions::default())
    }

    /// Alice in seat 0 and Bob in seat 1, their game started at `t0`.
    fn playing() -> Fixture {
        let mut fx = Fixture::open();
        fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
        fx.join(bob(), Seat::Second, BOB, fx.t0).unwrap();
        fx
    }

    fn at(&self, after: Duration) -> Instant {
        self.t0 + after
    }

    fn now(&self, at: Instant) -> Now {
        when(self.t0, at)
    }

    /// Runs a step as the room's task does, with a store that records everything.
    fn follow(&mut self, step: Step, at: Instant) -> Vec<Effect> {
        let mut effects = step.effects;
        match step.then {
            Then::Nothing => {}
            Then::Play(pending) => effects.extend(self.room.apply_move(*pending, None, at)),
            Then::Start(after) => effects.extend(self.start(after, at)),
            Then::End(ending) => effects.extend(self.room.conclude(*ending, None, at)),
            Then::StandIn { seat, level } => {
                assert!(self.room.stand_in_record(seat).is_some(), "a game is on");
                effects.extend(self.room.stand_in_recorded(seat, level, at));
            }
            Then::DrawOffer(change) => {
                assert!(
                    self.room.draw_offer_record(change).is_some(),
                    "a game is on"
                );
                let step = self.room.draw_offer_recorded(change, self.now(at));
                effects.extend(self.follow(step, at));
            }
        }
        effects
    }

    /// Starts the game if the room can, then announces what follows.
    fn start(&mut self, after: AfterStart, at: Instant) -> Vec<Effect> {
        if let Some(record) = self.room.start_record(self.now(at), || "g_test".into()) {
            self.room.started(record.game_id, [None, None], at);
        }
        self.room.after_start(after, at)
    }

    fn join(
        &mut self,
        player: PlayerInfo,
        seat: Seat,
        conn: ConnId,
        at: Instant,
    ) -> Result<Vec<Effect>, Refusal> {
        let step = self.room.join(player, seat, conn, None)?;
        let mut effects = self.follow(step, at);
        effects.extend(self.settle(at));
        Ok(effects)
    }

    /// What the room's task does after every command.
    fn settle(&mut self, at: Instant) -> Vec<Effect> {
        let mut effects = Vec::new();
        if let Some(after) = self.room.pending_start() {
            effects.extend(self.start(after, at));
        }
        effects.extend(self.room.settle(at));
        effects
    }

    /// `seat` plays `text` at `at`, written to the store at once.
    fn play(&mut self, seat: Seat, text: &str, at: Instant) -> Result<Vec<Effect>, Refusal> {
        let pending = self.room.prepare_move(seat, text, at, self.now(at))?;
        let mut effects = self.room.apply_move(pending, None, at);
        effects.extend(self.settle(at));
        Ok(effects)
    }

    /// A human's move from `conn`, checked as the room's task checks it.
    fn human_move(
        &mut self,
        player: &PlayerInfo,
        conn: ConnId,
        text: &str,
        at: Instant,
    ) -> Result<Vec<Effect>, Refusal> {
        let seat = self.room.mover(&player.player_id, conn)?;
        self.play(seat, text, at)
    }

    fn request(
        &mut self,
        request: crate::Request,
        player: &PlayerInfo,
        conn: ConnId,
        at: Instant,
    ) -> Result<Vec<Effect>, Refusal> {
        let step = self
            .room
            .request(request, &player.player_id, conn, self.now(at))?;
        let mut effects = self.follow(step, at);
        effects.extend(self.settle(at));
        Ok(effects)
    }

    /// The room's timer fires at `at`; `None` if the room closes.
    fn tick(&mut self, at: Instant) -> Option<Vec<Effect>> {
        match self.room.on_timer(self.now(at)) {
            Tick::Close => None,
            Tick::Step(step) => {
                let mut effects = self.follow(step, at);
                effects.extend(self.settle(at));
                Some(effects)
            }
        }
    }

    fn state(&self) -> StateMsg {
        self.room.state_msg(true, self.t0)
    }
}

/// The states an effect list broadcasts.
fn states(effects: &[Effect]) -> Vec<&StateMsg> {
    effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::State { msg, .. } => Some(msg.as_ref()),
            _ => None,
        })
        .collect()
}

/// The `moved` events an effect list broadcasts.
fn moved(effects: &[Effect]) -> Vec<&MovedMsg> {
    effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::Moved { msg, .. } => Some(msg.as_ref()),
            _ => None,
        })
        .collect()
}

/// The `seq` of every `state` and `moved` an effect list broadcasts, in order.
fn broadcast_seqs(effects: &[Effect]) -> Vec<u64> {
    effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::State { msg, .. } => Some(msg.seq),
            Effect::Moved { msg, .. } => Some(msg.seq),
            _ => None,
        })
        .collect()
}

/// The `game_over` an effect list broadcasts, if any.
fn game_over(effects: &[Effect]) -> Option<&GameOverMsg> {
    effects.iter().find_map(|effect| match effect {
        Effect::GameOver(msg) => Some(msg.as_ref()),
        _ => None,
    })
}

/// Why `result` was refused.
fn refusal<T: std::fmt::Debug>(result: Result<T, Refusal>) -> Refusal {
    result.unwrap_err()
}
