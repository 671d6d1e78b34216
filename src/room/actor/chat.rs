//! A chat line's way out of the room: to the connections of its own side, and to the
//! store, which the room does not wait for (a line is not worth holding a move up) but
//! a graceful shutdown does.

use tracing::warn;

use super::Room;
use crate::protocol::ServerMsg;
use crate::room::ConnId;
use crate::room::fanout::{frame, send_to};
use crate::store::ChatRecord;

impl Room {
    /// Sends the line `said` to `to` and has it stored in the background.
    pub(super) fn say(&self, to: &[ConnId], said: ChatRecord) {
        let message = ServerMsg::Chat {
            room: self.state.id().to_owned(),
            channel: said.channel,
            lines: vec![said.line.clone()],
        };
        let line = frame(&message);
        for sub in to.iter().filter_map(|conn| self.audience.get(conn)) {
            send_to(sub, &line, &self.context.metrics);
        }
        let store = self.context.store.clone();
        let metrics = self.context.metrics.clone();
        let fence = self.fence;
        let room = self.state.id().to_owned();
        self.background.spawn(async move {
            if let Err(error) = store.record_chat(&said, fence).await {
                metrics.count_refused_write(&error);
                warn!(%room, game_id = %said.game_id, %error, "could not store a chat line; it was still sent");
            }
        });
    }
}
