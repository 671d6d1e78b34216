//! A client's command, answered by the rule that answers it: the one entry from the
//! room's task into the machine for everything a client asks.

use std::time::Instant;

use super::endings::OnFailure;
use super::{Now, RoomState, Step, Then};
use crate::command::{Asked, RoomCommand};
use crate::views::Status;
use crate::{ConnId, Refusal};
use parlor_rules::games::EndReason;

impl RoomState {
    /// Answers `asked`, sent on `conn` and received at `received`: the effects to
    /// perform and the store work to follow, or why it is refused (the room is then
    /// unchanged). A command that enters the room is answered as if `conn` were already
    /// in the audience: the task lets it in before it performs the step.
    pub fn answer(
        &mut self,
        asked: Asked,
        conn: ConnId,
        received: Instant,
        now: Now,
    ) -> Result<Step, Refusal> {
        let Asked {
            player,
            command,
            reference,
        } = asked;
        match command {
            RoomCommand::Join { seat, .. } => self.join(player, seat, conn, reference),
            RoomCommand::Watch { .. } => self.watch(conn, reference, now.at).map(Step::done),
            RoomCommand::Reserve { seat } => self.reserve(player, seat),
            RoomCommand::Return { .. } => match self.seat_held_by(&player.player_id) {
                Some(seat) => self.join(player, seat, conn, reference),
                None => self.watch(conn, reference, now.at).map(Step::done),
            },
            RoomCommand::Move { text, after } => {
                let seat = self.mover(&player.player_id, conn)?;
                self.check_position(after)?;
                let pending = self.prepare_move(seat, &text, received, now)?;
                Ok(Step {
                    effects: Vec::new(),
                    then: Then::Play(Box::new(pending)),
                })
            }
            RoomCommand::Request(request) => self.request(request, &player.player_id, conn, now),
            RoomCommand::Chat { text } => self.chat(&player, conn, &text, now),
            RoomCommand::Leave => self.leave(&player.player_id, conn, now),
            RoomCommand::Close { .. } => Ok(self.close(now)),
        }
    }

    /// The operator closes the room: a game in progress ends `aborted`, recorded before
    /// anyone is told (the operator is refused with `storage_unavailable` if the store
    /// fails, and the game goes on). The room's task stops once the step is done.
    fn close(&self, now: Now) -> Step {
        if self.status() != Status::Playing {
            return Step::done(Vec::new());
        }
        let ending = self.prepare_ending(None, EndReason::Aborted, OnFailure::Refuse, now);
        Step {
            effects: Vec::new(),
            then: Then::End(Box::new(ending)),
        }
    }
}
