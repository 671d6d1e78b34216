//! Moves: who may move, checking a move against the game and the clock, the record
//! written before anyone sees it, and applying it once written.

use std::time::Instant;

use tracing::debug;

use super::endings::{OnFailure, duration_ms};
use super::views::shown_move;
use super::{Effect, Now, PendingEnding, RoomState};
use crate::clock::Clock;
use crate::records::{MoveRecord, RatingShift};
use crate::seats::SeatState;
use crate::views::{LastMove, Status};
use crate::{ConnId, PlayerId, Refusal};
use parlor_rules::catalog::{AnyGame, PlayedMove};
use parlor_rules::games::Seat;

/// A checked move, to write to the store before [`RoomState::apply_move`] plays it.
pub struct PendingMove {
    /// The record to write.
    pub record: MoveRecord,
    /// The game's ending, when the move ends it; written with the move.
    pub ending: Option<PendingEnding>,
    seat: Seat,
    next: Box<dyn AnyGame>,
    played: PlayedMove,
    clock: Clock,
    thinking_ms: [u64; 2],
    received: Instant,
}

impl PendingMove {
    /// When the move was received: its thinking time counts to then.
    pub fn received(&self) -> Instant {
        self.received
    }
}

impl std::fmt::Debug for PendingMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingMove")
            .field("record", &self.record)
            .field("ending", &self.ending)
            .finish_non_exhaustive()
    }
}

impl RoomState {
    /// The seat that `player_id` may move for on `conn`, checked in the documented
    /// order: the seat, the game's status, a bot finishing their move, the turn.
    pub fn mover(&self, player_id: &PlayerId, conn: ConnId) -> Result<Seat, Refusal> {
        let seat = self.seat_of(player_id, conn)?;
        match self.status() {
            Status::Finished => return Err(Refusal::MoveAfterEnd),
            Status::Playing if matches!(self.seats[seat.index()], SeatState::StandIn { .. }) => {
                return Err(Refusal::BotFinishingMove);
            }
            Status::Waiting => return Err(Refusal::MoveBeforeStart),
            Status::Playing => {}
        }
        if self.game.turn() != Some(seat) {
            return Err(Refusal::NotYourTurn);
        }
        Ok(seat)
    }

    /// Checks that a move chosen `after` that many moves (if its sender said) is for the
    /// game's position now, not one the game has left.
    pub fn check_position(&self, after: Option<u32>) -> Result<(), Refusal> {
        let played = self.history.len();
        match after {
            Some(after) if after as usize != played => Err(Refusal::StaleMove {
                after,
                played: u32::try_from(played).unwrap_or(u32::MAX),
            }),
            _ => Ok(()),
        }
    }

    /// Checks `seat`'s move `text`, received at `received`, and prepares its record
    /// (with the game's ending, if it ends the game). The room is unchanged.
    pub fn prepare_move(
        &self,
        seat: Seat,
        text: &str,
        received: Instant,
        now: Now,
    ) -> Result<PendingMove, Refusal> {
        let mut next = self.game.clone_box();
        let played = next.play(text).map_err(Refusal::Move)?;
        let Some(started) = &self.started else {
            return Err(Refusal::MoveBeforeStart);
        };
        let mut clock = self.clock.clone();
        if clock.stop(seat, received).is_err() {
            return Err(Refusal::OutOfTime);
        }
        let think_ms = duration_ms(received.saturating_duration_since(self.turn_began));
        let mut thinking_ms = self.thinking_ms;
        thinking_ms[seat.index()] += think_ms;
        let record = MoveRecord {
            game_id: started.game_id.clone(),
            ply: self.history.len() as u32 + 1,
            seat,
            notation: played.notation.clone(),
            played_at_ms: now.unix_ms,
            think_ms: think_ms as i64,
            clocks_ms: clock
                .after_move(next.turn(), received)
                .map(|clocks| clocks.map(|ms| i64::try_from(ms).unwrap_or(i64::MAX))),
        };
        let ending = next.outcome().map(|outcome| {
            let moves = self.history.len() + 1;
            self.ending(outcome, moves, thinking_ms, OnFailure::Refuse, now)
        });
        Ok(PendingMove {
            record,
            ending,
            seat,
            next,
            played,
            clock,
            thinking_ms,
            received,
        })
    }

    /// Plays a move the store has recorded (with the rating changes it made if the move
    /// ended a rated game), and announces it.
    pub fn apply_move(
        &mut self,
        pending: PendingMove,
        ratings: Option<[RatingShift; 2]>,
        now: Instant,
    ) -> Vec<Effect> {
        let PendingMove {
            record,
            ending,
            seat,
            next,
            played,
            clock,
            thinking_ms,
            received: _,
        } = pending;
        debug!(room = %self.id, seat = seat.index(), mv = %played.notation, think_ms = record.think_ms, "move");
        let before = self.game.cells();
        let shown = shown_move(seat, &played);
        self.game = next;
        self.history.push((seat, played));
        self.thinking_ms = thinking_ms;
        self.turn_began = now;
        self.last_move_at = now;
        self.clock = clock;
        self.resumed = false;
        if let Some(next_seat) = self.game.turn() {
            self.clock.start(next_seat, now);
        }
        // A draw offer lapses when the offerer's opponent moves instead of answering it.
        if self.draw_offer == Some(seat.other()) {
            self.draw_offer = None;
        }
        let mut seats_changed = false;
        for seat in Seat::BOTH {
            seats_changed |= self.hand_back(seat);
        }
        if let Some(ending) = ending {
            return self.conclude(ending, ratings, now);
        }
        let mut effects = Vec::new();
        // A `moved` event stands for the `state` only when that state differs from the
        // last one in nothing but what a move changes: not when a seat was handed back
        // with the move, nor when a paced announcement of the audience is owed (a
        // `state` carries it).
        if seats_changed || self.pacer.due().is_some() {
            self.announce_state(now, None, &mut effects);
        } else {
            self.announce_move(shown, &before, now, &mut effects);
        }
        effects
    }

    /// A move that was held while the store found out whether it was stored turned out
    /// not to be: the game goes on as before it, and the mover is not charged the time
    /// it was held (from when the move was received until `now`: the server's fault, as
    /// an outage is), neither on their clock nor in their thinking time. Everyone is
    /// shown the clocks as they are then.
    pub fn held_move_dropped(&mut self, pending: &PendingMove, now: Instant) -> Vec<Effect> {
        let held = now.saturating_duration_since(pending.received);
        self.turn_began += held;
        self.clock.excuse(held);
        let mut effects = Vec::new();
        self.announce_state(now, None, &mut effects);
        effects
    }

    /// Announces a move that left the game on as a `moved` event, with the board's
    /// cells it changed from `before`.
    fn announce_move(
        &mut self,
        shown: LastMove,
        before: &[Option<char>],
        now: Instant,
        effects: &mut Vec<Effect>,
    ) {
        let cells = self
            .game
            .cells()
            .into_iter()
            .zip(before)
            .enumerate()
            .filter(|(_, (after, before))| after != *before)
            .map(|(index, (after, _))| (index, after))
            .collect();
        self.seq += 1;
        let msg = Box::new(self.moved_msg(shown, cells, now));
        effects.push(Effect::Moved { msg, at: now });
    }
}
