//! A room's bots: asking the bot pool for a move or for a judgement of a draw offer,
//! and acting on the answer when it comes back as a command. The room never waits for
//! a bot; an answer about a position the room has left is ignored.

use std::time::Duration;

use tokio::time::{Instant, sleep_until};
use tracing::warn;

use super::{BOT_SAFETY_MS, Command, DRAW_ACCEPT_BELOW, Room, STORE_RETRY};
use crate::protocol::{Status, TimeControl};
use crate::thinkers::DrawAnswer;
use parlor_rules::games::{EndReason, Seat};

impl Room {
    pub(super) fn ask_bot(&mut self) {
        if self.status() != Status::Playing || self.retry_at.is_some_and(|at| at > Instant::now()) {
            return;
        }
        let Some(seat) = self.game.turn() else { return };
        let Some(level) = self.seats[seat.index()].bot_level() else {
            return;
        };
        let ply = self.history.len();
        if self.bot_thinking == Some(ply) {
            return;
        }
        self.bot_thinking = Some(ply);
        let game = self.game.clone_box();
        let mut limits = self
            .context
            .config
            .bots
            .limits(level, std::time::Instant::now());
        let mut min_delay = Duration::from_millis(self.context.config.bots.min_delay_ms);
        if let Some(budget) = self.bot_time_budget(seat) {
            let by_clock = std::time::Instant::now() + budget;
            limits.deadline = Some(limits.deadline.map_or(by_clock, |own| own.min(by_clock)));
            // The pause that makes replies feel natural must never cost a bot the game.
            min_delay = min_delay.min(budget);
        }
        let not_before = self.last_move_at + min_delay;
        let myself = self.myself.clone();
        let room = self.id.clone();
        let thinkers = self.context.thinkers.clone();
        tokio::spawn(async move {
            let thought = thinkers.think(game, level, limits).await;
            sleep_until(not_before).await;
            match (thought, myself.upgrade()) {
                (Some(text), Some(room)) => {
                    let _closed = room.send(Box::new(Command::BotMoved { ply, text })).await;
                }
                (None, Some(_)) => warn!(room, "a bot found no move to play"),
                (_, None) => {}
            }
        });
    }

    /// How long a bot in `seat` may think under the room's clock: a share of its remaining
    /// time (half of a per-move allowance; a thirtieth of a Fischer clock plus half the
    /// increment), less a safety margin for network and queueing delays.
    fn bot_time_budget(&self, seat: Seat) -> Option<Duration> {
        let remaining = self.clock.remaining_at(Instant::now())?[seat.index()];
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

    pub(super) async fn bot_moved(&mut self, ply: usize, text: &str) {
        if self.bot_thinking != Some(ply)
            || self.history.len() != ply
            || self.status() != Status::Playing
        {
            return;
        }
        self.bot_thinking = None;
        let Some(seat) = self.game.turn() else { return };
        if let Err(error) = self.play(seat, text, Instant::now()).await {
            warn!(room = %self.id, %error, "a bot's move was not played; it will try again");
            self.retry_at = Some(Instant::now() + STORE_RETRY);
        }
    }

    /// A bot in `seat` answers an open draw offer by its evaluation: at once if it has
    /// judged this position already, otherwise once the bot pool has judged it (the
    /// answer comes back as [`Command::BotJudgedDraw`]; the room never waits for it).
    pub(super) async fn bot_answers_draw(&mut self, seat: Seat) {
        if self.seats[seat.index()].bot_level().is_none() {
            return;
        }
        let ply = self.history.len();
        match self.draw_judged {
            Some((judged, value)) if judged == ply => {
                self.bot_decides_draw(DrawAnswer::Judged(value)).await;
            }
            _ if self.draw_judging == Some(ply) => {}
            _ => {
                self.draw_judging = Some(ply);
                let thinkers = self.context.thinkers.clone();
                let game = self.game.clone_box();
                let myself = self.myself.clone();
                tokio::spawn(async move {
                    let answer = thinkers.judge_draw(game, seat).await;
                    if let Some(room) = myself.upgrade() {
                        let _closed = room
                            .send(Box::new(Command::BotJudgedDraw { ply, answer }))
                            .await;
                    }
                });
            }
        }
    }

    /// A bot's judgement of a draw offer has come back; it is acted on only if the offer
    /// it was made for is still open in the same position.
    pub(super) async fn bot_judged_draw(&mut self, ply: usize, answer: DrawAnswer) {
        if self.draw_judging != Some(ply) {
            return;
        }
        self.draw_judging = None;
        if let DrawAnswer::Judged(value) = answer {
            self.draw_judged = Some((ply, value));
        }
        let offered_to_bot = self
            .draw_offer
            .is_some_and(|offerer| self.seats[offerer.other().index()].bot_level().is_some());
        if self.history.len() == ply && self.status() == Status::Playing && offered_to_bot {
            self.bot_decides_draw(answer).await;
        }
    }

    /// A bot accepts the open draw offer unless it judges its own position better (or
    /// was too busy to judge it); a refusal closes the offer.
    async fn bot_decides_draw(&mut self, answer: DrawAnswer) {
        let accept = matches!(answer, DrawAnswer::Judged(value) if value <= DRAW_ACCEPT_BELOW);
        if accept {
            if let Err(error) = self.finish(None, EndReason::DrawAgreed).await {
                warn!(room = %self.id, %error, "a bot's draw could not be recorded");
            }
        } else {
            self.draw_offer = None;
            self.seq += 1;
            self.broadcast_state(None);
        }
    }
}
