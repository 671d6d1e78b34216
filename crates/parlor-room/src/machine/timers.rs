//! A room's time: starting the game once both seats are filled, and what the room's
//! timer decides (bot fill, reconnect grace, the first-move abort, clocks, idle
//! removal, paced announcements), all from a `now` given to it (PROTOCOL.md §9.6–9.8).
//! Who fills a seat is `filling`'s, and how long an absent person has is `absence`'s.

use std::time::Instant;

use tracing::info;

use super::endings::OnFailure;
use super::{AfterStart, Effect, Now, RoomState, STORE_RETRY, Started, Step, Then};
use crate::GameId;
use crate::options::Takeover;
use crate::records::{NewGame, SeatRecord};
use crate::seats::SeatState;
use crate::views::Status;
use parlor_rules::bots::BotLevel;
use parlor_rules::games::{EndReason, Seat};

/// What the room's timer leads to.
#[derive(Debug)]
pub enum Tick {
    /// The room has been idle long enough: it closes.
    Close,
    /// It goes on, after this step.
    Step(Step),
}

impl RoomState {
    /// Store work the room owes while it waits: starting a game whose start could not
    /// be recorded before.
    pub fn pending_start(&self) -> Option<AfterStart> {
        (self.status() == Status::Waiting).then_some(AfterStart::AnnounceIfStarted)
    }

    /// The record of the game about to start, if both seats are filled and no failed
    /// start waits to be retried; `game_id` names it, unless a failed start may have
    /// been stored: then it is recorded again under that start's id.
    pub fn start_record(&self, now: Now, game_id: impl FnOnce() -> GameId) -> Option<NewGame> {
        if self.status() != Status::Waiting
            || self.seats.iter().any(SeatState::is_open)
            || self.retry_at.is_some_and(|at| at > now.at)
        {
            return None;
        }
        Some(NewGame {
            game_id: self.lost_start.clone().unwrap_or_else(game_id),
            game: self.game.kind(),
            room_id: self.id.clone(),
            started_at_ms: now.unix_ms,
            seats: Seat::BOTH
                .map(|seat| {
                    let state = &self.seats[seat.index()];
                    SeatRecord {
                        seat,
                        kind: state.kind(),
                        player_id: state.player_id().cloned(),
                        name: state.name().unwrap_or_default(),
                    }
                })
                .to_vec(),
            options_json: self.options.to_json(),
            // Plain data always serialises; "null" would resume under the settings then.
            rules_json: serde_json::to_string(&self.rules).unwrap_or_else(|_| "null".to_owned()),
        })
    }

    /// The store could not record the start of `game_id`: the room stays waiting and
    /// tries again after [`STORE_RETRY`]. If the write `may_have_landed` (its outcome
    /// was lost), the retry records that same game again, so the store never keeps a
    /// second, unplayed one.
    pub fn start_failed(&mut self, game_id: GameId, may_have_landed: bool, now: Instant) {
        self.retry_at = Some(now + STORE_RETRY);
        if may_have_landed {
            self.lost_start = Some(game_id);
        }
    }

    /// The game `game_id` was recorded and starts at `now`, with the seats' ratings.
    pub fn started(&mut self, game_id: GameId, ratings: [Option<f64>; 2], now: Instant) {
        self.lost_start = None;
        self.ratings = ratings;
        self.started = Some(Started { game_id, at: now });
        self.clear_chat();
        self.turn_began = now;
        self.last_move_at = now;
        self.fill_at = None;
        if let Some(first) = self.game.turn() {
            self.clock.start(first, now);
        }
    }

    /// Brings derived state up to date after any change: sets or clears the fill and
    /// idle timers, and asks a bot to move if it is its turn.
    pub fn settle(&mut self, now: Instant) -> Vec<Effect> {
        let fillable = self.fillable();
        self.fill_at = match (fillable, self.fill_at) {
            (true, Some(at)) => Some(at),
            (true, None) => Some(now + self.settings.fill_after),
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
        self.bot_work(now)
            .into_iter()
            .chain(self.judge_open_offer())
            .collect()
    }

    /// When the room's timer must next fire, if anything waits for it.
    pub fn next_deadline(&self) -> Option<Instant> {
        [
            self.fill_at,
            self.abandon_deadline().map(|(at, _)| at),
            self.flag_deadline(),
            self.first_move_deadline(),
            self.closes_at(),
            self.retry_at,
            self.pacer.due(),
        ]
        .into_iter()
        .flatten()
        .min()
        .map(|at| at.max(self.retry_at.unwrap_or(at)))
    }

    /// The room's timer fired at `now`: does what is due.
    pub fn on_timer(&mut self, now: Now) -> Tick {
        if self.retry_at.is_some_and(|at| at <= now.at) {
            self.retry_at = None;
        }
        if self.closes_at().is_some_and(|at| at <= now.at) {
            return Tick::Close;
        }
        let mut effects = Vec::new();
        if self.pacer.due().is_some_and(|at| at <= now.at) {
            self.pacer.announced(now.at);
            self.announce_state(now.at, None, &mut effects);
        }
        if let Some(then) = self.fill_when_due(now.at) {
            // Nothing else can be due in a game that starts now.
            return Tick::Step(Step { effects, then });
        }
        if let Some((at, seat)) = self.abandon_deadline()
            && at <= now.at
        {
            return Tick::Step(Step {
                effects,
                then: self.absent_too_long(seat, now),
            });
        }
        let then = if self.first_move_deadline().is_some_and(|at| at <= now.at) {
            info!(room = %self.id, "a first move was not made in time; the game is aborted");
            self.timer_ending(None, EndReason::Aborted, now)
        } else if let Some((seat, at)) = self.clock.deadline()
            && at <= now.at
            && self.status() == Status::Playing
        {
            // Running out of time loses, unless the opponent could never win anyway.
            let opponent = seat.other();
            if self.game.can_win(opponent) {
                self.timer_ending(Some(opponent), EndReason::Timeout, now)
            } else {
                self.timer_ending(None, EndReason::TimeoutVsInsufficientMaterial, now)
            }
        } else {
            Then::Nothing
        };
        Tick::Step(Step { effects, then })
    }

    /// An ending a timer decided; if the store cannot record it, it is tried again.
    fn timer_ending(&self, winner: Option<Seat>, reason: EndReason, now: Now) -> Then {
        Then::End(Box::new(self.prepare_ending(
            winner,
            reason,
            OnFailure::Retry,
            now,
        )))
    }

    /// The grace of an absent player in `seat` has run out: before any move the game is
    /// aborted (as leaving it then is); otherwise a bot takes the seat over if the room
    /// says so, or they lose by `abandoned`.
    fn absent_too_long(&self, seat: Seat, now: Now) -> Then {
        if self.nobody_back {
            info!(room = %self.id, "nobody came back to a game resumed after a restart; it is aborted");
            return self.timer_ending(None, EndReason::Aborted, now);
        }
        if self.history.is_empty() {
            info!(room = %self.id, seat = seat.index(), "a player stayed away before the first move; the game is aborted");
            return self.timer_ending(None, EndReason::Aborted, now);
        }
        let takeover = self.options.takeover.unwrap_or(self.settings.takeover);
        match takeover {
            Takeover::Bot(level) => Then::StandIn { seat, level },
            Takeover::None => self.timer_ending(Some(seat.other()), EndReason::Abandoned, now),
        }
    }

    /// The game and seat to record a stand-in for, before
    /// [`RoomState::stand_in_recorded`]; `None` if no game is on.
    pub fn stand_in_record(&self, seat: Seat) -> Option<(GameId, Seat)> {
        let started = self.started.as_ref()?;
        Some((started.game_id.clone(), seat))
    }

    /// A bot of `level` has been recorded as playing for the absent person in `seat`:
    /// it takes the seat over, and everyone is told.
    pub fn stand_in_recorded(&mut self, seat: Seat, level: BotLevel, now: Instant) -> Vec<Effect> {
        let mut effects = Vec::new();
        let state = &mut self.seats[seat.index()];
        if let SeatState::Human {
            player, conn: None, ..
        } = state
        {
            info!(room = %self.id, seat = seat.index(), %level, "a bot took over an absent player's seat");
            *state = SeatState::StandIn {
                player: player.clone(),
                level,
                conn: None,
            };
            self.stood_in[seat.index()] = true;
            self.announce_state(now, None, &mut effects);
        }
        effects
    }

    /// When the first absent player's reconnect grace runs out, and their seat.
    pub(super) fn abandon_deadline(&self) -> Option<(Instant, Seat)> {
        Seat::BOTH
            .into_iter()
            .filter_map(|seat| Some((self.grace_ends(seat)?, seat)))
            .min()
    }

    /// When the idle room closes: `rooms.idle_secs` after it became idle, or as soon as
    /// it is empty if its game was aborted before any move (nothing in it is worth
    /// keeping in the listings, and nobody is left to ask for a rematch).
    fn closes_at(&self) -> Option<Instant> {
        let since = self.idle_since?;
        let unplayed = self.history.is_empty()
            && self
                .result
                .is_some_and(|outcome| outcome.reason == EndReason::Aborted);
        let empty = self.seats.iter().all(|s| s.conn().is_none()) && self.spectators.is_empty();
        if unplayed && empty {
            Some(since)
        } else {
            Some(since + self.settings.idle)
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
        first_moves_pending.then(|| self.turn_began + self.settings.first_move)
    }
}
