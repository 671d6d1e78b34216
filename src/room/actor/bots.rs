//! A room's bots at work: the room's task hands a copy of the position to the bot pool
//! when the machine asks, and the answer comes back as a command. The room never waits
//! for a bot.

use std::time::Duration;

use std::time::Instant;

use tokio::time::sleep_until;
use tracing::warn;

use super::{Command, Room};
use parlor_rules::bots::{BotLevel, Deadline};
use parlor_rules::games::Seat;

impl Room {
    /// Asks the bot pool for a `level` move in the position after `ply` moves, within
    /// `budget` if the clock sets one, handed back no sooner than `not_before`.
    pub(super) fn think(
        &self,
        ply: usize,
        level: BotLevel,
        budget: Option<Duration>,
        not_before: Instant,
    ) {
        let game = self.state.game().clone_box();
        let mut limits = self.context.config.bots.limits(level);
        if let Some(budget) = budget {
            let by_clock = Deadline::after(budget, Instant::now);
            limits.deadline = Some(limits.deadline.map_or(by_clock, |own| own.min(by_clock)));
        }
        let myself = self.myself.clone();
        let room = self.state.id().to_owned();
        let thinkers = self.context.thinkers.clone();
        tokio::spawn(async move {
            let thought = thinkers.think(game, level, limits).await;
            sleep_until(not_before.into()).await;
            match (thought, myself.upgrade()) {
                (Some(text), Some(room)) => {
                    let _closed = room.send(Box::new(Command::BotMoved { ply, text })).await;
                }
                (None, Some(_)) => warn!(%room, "a bot found no move to play"),
                (_, None) => {}
            }
        });
    }

    /// Asks the bot pool to judge, for the bot in `seat`, the draw offer open in the
    /// position after `ply` moves.
    pub(super) fn judge_draw(&self, ply: usize, seat: Seat) {
        let thinkers = self.context.thinkers.clone();
        let game = self.state.game().clone_box();
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
