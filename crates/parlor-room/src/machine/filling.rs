//! Who fills a room's open seat besides a person: the bot the room gives it after
//! `bots.fill_after_secs` when its options allow (`bot_fill`), and the bot a seated
//! player asks for at once (`fill_with_bot`) (PROTOCOL.md §6.18, §9.7).

use std::time::Instant;

use tracing::info;

use super::{AfterStart, RoomState, Step, Then};
use crate::Refusal;
use crate::seats::SeatState;
use crate::views::Status;
use parlor_rules::bots::BotLevel;
use parlor_rules::games::Seat;

impl RoomState {
    /// Whether the room's open seat waits for a bot: the room is waiting, its options
    /// let it fill itself, and a seat is held by a connected person.
    pub(super) fn fillable(&self) -> bool {
        self.status() == Status::Waiting
            && self.options.fills_with_bot()
            && self.seats.iter().any(SeatState::is_open)
            && self.seats.iter().any(|s| s.conn().is_some())
    }

    /// The fill timer ran out at `now`: a bot of `bots.fill_level` takes the open seat,
    /// and the game starts. `None` if the timer is not due.
    pub(super) fn fill_when_due(&mut self, now: Instant) -> Option<Then> {
        if self.fill_at.is_none_or(|at| at > now) {
            return None;
        }
        let level = self.settings.fill_level;
        self.seat_bot(level)
            .then_some(Then::Start(AfterStart::Announce))
    }

    /// The player in `seat` asks for a bot of `level` (the server's `bots.fill_level`
    /// when `None`) in the open seat now, rather than wait for a person: refused once
    /// the game has started (`seat_taken`) or is over.
    pub(super) fn fill_with_bot(
        &mut self,
        seat: Seat,
        level: Option<BotLevel>,
    ) -> Result<Step, Refusal> {
        match self.status() {
            Status::Finished => return Err(Refusal::RequestAfterEnd),
            Status::Playing => return Err(Refusal::NoOpenSeat),
            Status::Waiting => {}
        }
        let level = level.unwrap_or(self.settings.fill_level);
        if !self.seat_bot(level) {
            // Both seats are taken while the start waits for the store.
            return Err(Refusal::NoOpenSeat);
        }
        info!(room = %self.id, seat = seat.index(), %level, "a player asked for a bot in the open seat");
        Ok(Step {
            effects: Vec::new(),
            then: Then::Start(AfterStart::Announce),
        })
    }

    /// Seats a bot of `level` in the open seat, if there is one.
    fn seat_bot(&mut self, level: BotLevel) -> bool {
        let Some(open) = self.seats.iter_mut().find(|s| s.is_open()) else {
            return false;
        };
        *open = SeatState::Bot(level);
        self.fill_at = None;
        info!(room = %self.id, %level, "an open seat was filled with a bot");
        true
    }
}
