//! How a room is shown: its `state` message, the `moved` event that stands for a
//! move's `state`, and its listing summary.

use std::time::Instant;

use super::RoomState;
use crate::views::{
    CellChange, ClockView, LastMove, MovedMsg, ResultView, RoomSummary, ShownSeats, StateMsg,
    Status,
};
use parlor_rules::catalog::PlayedMove;
use parlor_rules::games::Seat;

impl RoomState {
    /// The room's `state` as of `now`, with the move history when `with_history`.
    pub fn state_msg(&self, with_history: bool, now: Instant) -> StateMsg {
        self.render_state(with_history, None, now)
    }

    /// The room's `state` just after a move whose `moved` event listed `legal_moves`,
    /// as [`RoomState::state_msg`] makes it, without working the legal moves out again.
    pub fn state_after_move(&self, legal_moves: Vec<String>, now: Instant) -> StateMsg {
        self.render_state(false, Some(legal_moves), now)
    }

    /// The room's `state` as of `now`: with the move history when `with_history`, and
    /// with `legal_moves` as the legal moves, when given, while the game is on.
    fn render_state(
        &self,
        with_history: bool,
        legal_moves: Option<Vec<String>>,
        now: Instant,
    ) -> StateMsg {
        let playing = self.status() == Status::Playing;
        StateMsg {
            room: self.id.clone(),
            game: self.game.kind(),
            game_id: self.started.as_ref().map(|s| s.game_id.clone()),
            seq: self.seq,
            status: self.status(),
            seats: self.seat_views(Some(now)),
            spectators: self.spectators.len(),
            to_move: if playing { self.game.turn() } else { None },
            position: self.game.position(),
            board: self.game.board(),
            legal_moves: if playing {
                legal_moves.unwrap_or_else(|| self.game.legal_moves())
            } else {
                Vec::new()
            },
            last_move: self.last_move(),
            moves: self.history.len(),
            result: self.result.map(|outcome| ResultView {
                winner: outcome.winner,
                reason: outcome.reason,
            }),
            time_control: self.clock.control(),
            draw_offer: self.draw_offer,
            resumed: self.resumed,
            rematch: Seat::BOTH
                .into_iter()
                .filter(|seat| self.rematch[seat.index()])
                .collect(),
            clocks: self.clocks(now),
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

    /// The snapshot `state` (with the history) from `state`, the text of the room's
    /// `state` without it as of the same `seq`: `state`'s fields, then the history's,
    /// which a `state` writes last. Making a snapshot so costs far less than encoding it
    /// all again. `None` if `state` is not a JSON object's text.
    pub fn snapshot_from(&self, state: &str) -> Option<String> {
        let fields = state.strip_suffix('}')?;
        let history = HistoryFields {
            history: self
                .history
                .iter()
                .map(|(_, played)| &*played.notation)
                .collect(),
            history_display: self
                .history
                .iter()
                .map(|(_, played)| &*played.display)
                .collect(),
        };
        let history = serde_json::to_string(&history).ok()?;
        Some(format!("{fields},{}", history.strip_prefix('{')?))
    }

    /// The `moved` event for `last_move`, just played, which left the game on, given
    /// the board's cells it changed.
    pub(super) fn moved_msg(
        &self,
        last_move: LastMove,
        cells: Vec<CellChange>,
        now: Instant,
    ) -> MovedMsg {
        MovedMsg {
            room: self.id.clone(),
            seq: self.seq,
            last_move,
            moves: self.history.len(),
            to_move: self.game.turn(),
            position: self.game.position(),
            cells,
            legal_moves: self.game.legal_moves(),
            clocks: self.clocks(now),
            draw_offer: self.draw_offer,
        }
    }

    /// The last move as shown, if any.
    fn last_move(&self) -> Option<LastMove> {
        self.history
            .last()
            .map(|(seat, played)| shown_move(*seat, played))
    }

    /// Both clocks as of `now`, or `None` without a time control.
    fn clocks(&self, now: Instant) -> Option<ClockView> {
        self.clock.remaining_at(now).map(|remaining_ms| ClockView {
            remaining_ms,
            running: self.clock.running(),
        })
    }

    /// Both seats as shown, with their ratings, and, in a `state` rendered as of `now`,
    /// how long an absent person has left of their grace and before a claim.
    fn seat_views(&self, now: Option<Instant>) -> ShownSeats {
        let views = self
            .seats
            .views(self.ratings.map(|rating| rating.map(rounded)));
        let absence = Seat::BOTH.map(|seat| now.and_then(|now| self.absence_left_ms(seat, now)));
        if absence.iter().all(Option::is_none) {
            return views;
        }
        views
            .iter()
            .zip(absence)
            .map(|(view, absence)| {
                let mut view = view.clone();
                if let Some((grace, claim)) = absence {
                    view.grace_left_ms = Some(grace);
                    view.claim_left_ms = Some(claim);
                }
                view
            })
            .collect::<Vec<_>>()
            .into()
    }

    /// The room as listings show it.
    pub fn summary(&self) -> RoomSummary {
        RoomSummary {
            room: self.id.clone(),
            game: self.game.kind(),
            status: self.status(),
            seats: self.seat_views(None),
            spectators: self.spectators.len(),
            moves: self.history.len(),
            time_control: self.clock.control(),
            created_at_ms: self.created_at_ms,
        }
    }
}

/// A move as shown in `last_move`.
pub(super) fn shown_move(seat: Seat, played: &PlayedMove) -> LastMove {
    LastMove {
        seat,
        text: played.notation.clone(),
        display: played.display.clone(),
    }
}

/// A rating as shown to people: the nearest whole number.
pub(super) fn rounded(rating: f64) -> i64 {
    rating.round() as i64
}

/// The fields a snapshot has after all of its `state`'s others, named and written as
/// [`StateMsg`] writes its `history` and `history_display`.
#[derive(serde::Serialize)]
struct HistoryFields<'a> {
    history: Vec<&'a str>,
    history_display: Vec<&'a str>,
}
