//! Moves: who may move, checking a move against the game and the clock, the record
//! written before anyone sees it, and applying it once written.

use parlor_room::PlayerId;
use tokio::time::Instant;
use tracing::debug;

use super::endings::{OnFailure, duration_ms};
use super::views::shown_move;
use super::{Effect, Now, PendingEnding, RoomState};
use crate::protocol::{ClientError, ErrorCode, LastMove, Status};
use crate::room::ConnId;
use crate::room::clock::Clock;
use crate::room::seats::SeatState;
use crate::store::{MoveRecord, RatingChange};
use parlor_rules::catalog::{AnyGame, PlayedMove};
use parlor_rules::games::{MoveError, Seat};

/// A checked move, to write to the store before [`RoomState::apply_move`] plays it.
pub(crate) struct PendingMove {
    /// The record to write.
    pub(crate) record: MoveRecord,
    /// The game's ending, when the move ends it; written with the move.
    pub(crate) ending: Option<PendingEnding>,
    seat: Seat,
    next: Box<dyn AnyGame>,
    played: PlayedMove,
    clock: Clock,
    thinking_ms: [u64; 2],
    received: Instant,
}

impl PendingMove {
    /// When the move was received: its thinking time counts to then.
    pub(crate) fn received(&self) -> Instant {
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
    pub(crate) fn mover(&self, player_id: &PlayerId, conn: ConnId) -> Result<Seat, ClientError> {
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
        Ok(seat)
    }

    /// Checks `seat`'s move `text`, received at `received`, and prepares its record
    /// (with the game's ending, if it ends the game). The room is unchanged.
    pub(crate) fn prepare_move(
        &self,
        seat: Seat,
        text: &str,
        received: Instant,
        now: Now,
    ) -> Result<PendingMove, ClientError> {
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
        if clock.stop(seat, received).is_err() {
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
    pub(crate) fn apply_move(
        &mut self,
        pending: PendingMove,
        ratings: Option<[RatingChange; 2]>,
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
