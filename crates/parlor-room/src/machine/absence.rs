//! The opponent who is gone: when an absent person's reconnect grace ends, when the
//! player present may claim the game, and the claims themselves (`claim_victory`,
//! `claim_draw`) (PROTOCOL.md §6.19, §9.6).

use std::time::Instant;

use tracing::info;

use super::endings::{OnFailure, duration_ms};
use super::{Now, RoomState, Step, Then};
use crate::Refusal;
use crate::seats::SeatState;
use crate::views::Status;
use parlor_rules::games::{EndReason, Seat};

/// What the player present claims of a game their opponent has left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Claim {
    /// The win, by `abandoned`.
    Victory,
    /// A draw, by `draw_claimed`.
    Draw,
}

impl RoomState {
    /// Since when the person in `seat` has been away from the game in progress, as
    /// their grace counts it (from the start, if they were away before it); `None` if
    /// they are present, a bot plays the seat, or no game is on.
    fn away_since(&self, seat: Seat) -> Option<Instant> {
        let started = self.started.as_ref()?;
        if self.status() != Status::Playing {
            return None;
        }
        match &self.seats[seat.index()] {
            SeatState::Human {
                away_since: Some(since),
                conn: None,
                ..
            } => Some((*since).max(started.at)),
            _ => None,
        }
    }

    /// When the reconnect grace of the person away from `seat` ends.
    pub(super) fn grace_ends(&self, seat: Seat) -> Option<Instant> {
        self.away_since(seat)
            .map(|since| since + self.settings.reconnect_grace)
    }

    /// When their opponent may claim the game.
    fn claim_opens(&self, seat: Seat) -> Option<Instant> {
        self.away_since(seat)
            .map(|since| since + self.settings.claim_after)
    }

    /// How long is left, as of `now`, of the grace of the person away from `seat` and
    /// until their opponent may claim, ms; `None` unless they are away from a game in
    /// progress.
    pub(super) fn absence_left_ms(&self, seat: Seat, now: Instant) -> Option<(u64, u64)> {
        let left = |at: Instant| duration_ms(at.saturating_duration_since(now));
        Some((left(self.grace_ends(seat)?), left(self.claim_opens(seat)?)))
    }

    /// The player in `seat` claims the game their opponent has been away from for
    /// `rooms.claim_after_secs`: the win by `abandoned`, or a draw by `draw_claimed`;
    /// with no move played yet, either ends it `aborted`, as leaving then does. Recorded
    /// before anyone sees it.
    pub(super) fn claim(&self, seat: Seat, claim: Claim, now: Now) -> Result<Step, Refusal> {
        let opens = self
            .claim_opens(seat.other())
            .ok_or(Refusal::OpponentPresent)?;
        if opens > now.at {
            return Err(Refusal::TooEarlyToClaim {
                left_ms: duration_ms(opens - now.at),
            });
        }
        let (winner, reason) = match claim {
            _ if self.history.is_empty() => (None, EndReason::Aborted),
            Claim::Victory => (Some(seat), EndReason::Abandoned),
            Claim::Draw => (None, EndReason::DrawClaimed),
        };
        info!(room = %self.id, seat = seat.index(), %reason, "a player claimed a game their opponent left");
        let ending = self.prepare_ending(winner, reason, OnFailure::Refuse, now);
        Ok(Step {
            effects: Vec::new(),
            then: Then::End(Box::new(ending)),
        })
    }
}
