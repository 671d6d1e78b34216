//! A client's command, answered by the rule that answers it: the one entry from the
//! room's task into the machine for everything a client asks.

use std::time::Instant;

use super::{Now, RoomState, Step, Then};
use crate::command::{Asked, RoomCommand};
use crate::{ConnId, Refusal};

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
            RoomCommand::Move { text } => {
                let seat = self.mover(&player.player_id, conn)?;
                let pending = self.prepare_move(seat, &text, received, now)?;
                Ok(Step {
                    effects: Vec::new(),
                    then: Then::Play(Box::new(pending)),
                })
            }
            RoomCommand::Request(request) => self.request(request, &player.player_id, conn, now),
            RoomCommand::Chat { text } => self.chat(&player, conn, &text, now),
            RoomCommand::Leave => self.leave(&player.player_id, conn, now),
        }
    }
}
