//! Each player's event streams (`GET /api/stream/event`): what happens to their
//! challenges and games (`challenge`, `challengeCanceled`, `challengeDeclined`,
//! `gameStart`) is sent to every stream they have open on this node. A stream that
//! has gone, or reads too slowly to keep its queue, is dropped.

use std::sync::Arc;

use dashmap::DashMap;
use tokio::sync::mpsc;

use parlor_room::PlayerId;

/// How many events may wait for one slow stream before it is dropped.
const EVENTS_QUEUED: usize = 64;

/// The event streams open on this node. Cloning it is cheap and shares the table.
#[derive(Clone, Default)]
pub(crate) struct EventStreams {
    by_player: Arc<DashMap<PlayerId, Vec<mpsc::Sender<String>>>>,
}

impl EventStreams {
    /// A new stream of `player`'s events.
    pub(crate) fn open(&self, player: &PlayerId) -> mpsc::Receiver<String> {
        let (sender, receiver) = mpsc::channel(EVENTS_QUEUED);
        self.by_player
            .entry(player.clone())
            .or_default()
            .push(sender);
        receiver
    }

    /// Sends `line` to each of `player`'s streams.
    pub(crate) fn send(&self, player: &PlayerId, line: &str) {
        if let Some(mut streams) = self.by_player.get_mut(player) {
            streams.retain(|stream| stream.try_send(line.to_owned()).is_ok());
        }
        self.by_player
            .remove_if(player, |_, streams| streams.is_empty());
    }

    /// The players with an event stream open here.
    pub(crate) fn players(&self) -> Vec<PlayerId> {
        self.by_player
            .iter()
            .filter(|entry| entry.value().iter().any(|stream| !stream.is_closed()))
            .map(|entry| entry.key().clone())
            .collect()
    }

    /// Whether `player` has an event stream open here.
    pub(crate) fn is_open(&self, player: &PlayerId) -> bool {
        self.by_player
            .get(player)
            .is_some_and(|streams| streams.iter().any(|stream| !stream.is_closed()))
    }
}
