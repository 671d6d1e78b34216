//! What a room's bots do, decided without waiting for them: when a bot must think
//! about a move (and for how long, under the clock), and how it answers a draw offer
//! (it agrees only to a position it judges drawn; `random` never agrees). The answers
//! come back later; one about a position the room has left is ignored.

use std::time::{Duration, Instant};

use super::endings::OnFailure;
use super::{Effect, Now, RoomState, STORE_RETRY, Then};
use crate::TimeControl;
use crate::views::Status;
use parlor_rules::bots::{BotLevel, DrawView};
use parlor_rules::games::{EndReason, Seat};

/// A bot's answer to a draw offer, as the bot pool gives it back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawAnswer {
    /// The bot judged the position so.
    Judged(DrawView),
    /// Every bot thread was busy; the bot declines without judging.
    Busy,
}

/// Time a bot leaves on its clock for network, queueing and the move's recording, ms.
const BOT_SAFETY_MS: u64 = 150;

impl RoomState {
    /// Asks the bot whose turn it is for a move, unless it is already thinking about
    /// this position or store work is waiting to be retried.
    pub(super) fn bot_work(&mut self, now: Instant) -> Option<Effect> {
        if self.status() != Status::Playing || self.retry_at.is_some_and(|at| at > now) {
            return None;
        }
        let seat = self.game.turn()?;
        let level = self.seats[seat.index()].bot_level()?;
        let ply = self.history.len();
        if self.bot_thinking == Some(ply) {
            return None;
        }
        self.bot_thinking = Some(ply);
        let mut min_delay = self.settings.bot_min_delay;
        let budget = self.bot_time_budget(seat, now);
        if let Some(budget) = budget {
            // The pause that makes replies feel natural must never cost a bot the game.
            min_delay = min_delay.min(budget);
        }
        Some(Effect::Think {
            ply,
            level,
            budget,
            not_before: self.last_move_at + min_delay,
        })
    }

    /// How long a bot in `seat` may think under the room's clock: a share of its remaining
    /// time (half of a per-move allowance; a thirtieth of a Fischer clock plus half the
    /// increment), less a safety margin for network and queueing delays.
    fn bot_time_budget(&self, seat: Seat, now: Instant) -> Option<Duration> {
        let remaining = self.clock.remaining_at(now)?[seat.index()];
        let share = match self.clock.control() {
            TimeControl::None => return None,
            TimeControl::PerMove { .. } => remaining / 2,
            TimeControl::Fischer { increment_ms, .. } => remaining / 30 + increment_ms / 2,
        };
        let safe = share
            .min(remaining.saturating_sub(BOT_SAFETY_MS))
            .saturating_sub(BOT_SAFETY_MS);
        Some(Duration::from_millis(safe.max(1)))
    }

    /// The seat a bot's move about the position after `ply` moves is for, if the room
    /// still waits for it; it then waits no more.
    pub fn bot_moved(&mut self, ply: usize) -> Option<Seat> {
        if self.bot_thinking != Some(ply)
            || self.history.len() != ply
            || self.status() != Status::Playing
        {
            return None;
        }
        self.bot_thinking = None;
        self.game.turn()
    }

    /// A bot's move could not be played (refused, or not recorded): it tries again after
    /// [`STORE_RETRY`].
    pub fn retry_later(&mut self, now: Instant) {
        self.retry_at = Some(now + STORE_RETRY);
    }

    /// A bot in `seat` answers an open draw offer by its judgement: at once if it has
    /// judged this position already (or, at level `random`, judges nothing), otherwise
    /// once the bot pool has judged it (see [`RoomState::bot_judged_draw`]).
    pub(super) fn bot_answers_draw(
        &mut self,
        seat: Seat,
        now: Now,
        effects: &mut Vec<Effect>,
    ) -> Then {
        match self.seats[seat.index()].bot_level() {
            None => return Then::Nothing,
            Some(BotLevel::Random) => return self.bot_decides_draw(seat, DrawAnswer::Busy, now),
            Some(_) => {}
        }
        let ply = self.history.len();
        match self.draw_judged {
            Some((judged, view)) if judged == ply => {
                self.bot_decides_draw(seat, DrawAnswer::Judged(view), now)
            }
            _ if self.draw_judging == Some(ply) => Then::Nothing,
            _ => {
                self.draw_judging = Some(ply);
                effects.push(Effect::JudgeDraw { ply, seat });
                Then::Nothing
            }
        }
    }

    /// Asks the bot a draw offer is open to for its judgement if nothing is judging it:
    /// an offer a resumed game brought back (live, an offer to a bot is always answered
    /// as it is made). A `random` bot is asked too, and declines whatever the answer.
    pub(super) fn judge_open_offer(&mut self) -> Option<Effect> {
        let seat = self.draw_offer?.other();
        self.seats[seat.index()].bot_level()?;
        if self.status() != Status::Playing || self.draw_judging.is_some() {
            return None;
        }
        let ply = self.history.len();
        self.draw_judging = Some(ply);
        Some(Effect::JudgeDraw { ply, seat })
    }

    /// A bot's judgement of a draw offer has come back; it is acted on only if the offer
    /// it was made for is still open in the same position.
    pub fn bot_judged_draw(&mut self, ply: usize, answer: DrawAnswer, now: Now) -> super::Step {
        if self.draw_judging != Some(ply) {
            return super::Step::done(Vec::new());
        }
        self.draw_judging = None;
        if let DrawAnswer::Judged(view) = answer {
            self.draw_judged = Some((ply, view));
        }
        let offered_to_bot = self
            .draw_offer
            .map(Seat::other)
            .filter(|bot| self.seats[bot.index()].bot_level().is_some());
        let then = match offered_to_bot {
            Some(bot) if self.history.len() == ply && self.status() == Status::Playing => {
                self.bot_decides_draw(bot, answer, now)
            }
            _ => Then::Nothing,
        };
        super::Step {
            effects: Vec::new(),
            then,
        }
    }

    /// The bot in `seat` accepts the open draw offer only if it judged the position drawn
    /// (see [`DrawView`]) and is not a `random` bot; it declines anything else, and
    /// declines unjudged when it was too busy to judge. A refusal closes the offer once
    /// recorded.
    fn bot_decides_draw(&self, seat: Seat, answer: DrawAnswer, now: Now) -> Then {
        let random = self.seats[seat.index()].bot_level() == Some(BotLevel::Random);
        let accept = !random && matches!(answer, DrawAnswer::Judged(view) if view.is_drawn());
        if accept {
            let ending = self.prepare_ending(None, EndReason::DrawAgreed, OnFailure::Shrug, now);
            Then::End(Box::new(ending))
        } else {
            Then::DrawOffer(super::DrawChange::Declined { by_bot: true })
        }
    }
}
