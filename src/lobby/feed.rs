//! The lobby feed: every change to a listed room, encoded once and shared by all
//! lobby subscribers.

use std::sync::Arc;

use bytestring::ByteString;
use tokio::sync::broadcast;

use crate::protocol::{LobbyChange, RoomSummary, ServerMsg, encode};
use crate::room::ListingFollowers;
use crate::store::Fence;

/// How many updates a subscriber may fall behind before it is sent a fresh snapshot
/// instead of the updates it missed.
const FEED_CAPACITY: usize = 4096;

/// One `lobby_update` frame, with the room it is about, so subscribers can merge and
/// filter without decoding.
#[derive(Clone, Debug)]
pub(crate) struct LobbyUpdate {
    /// The encoded `lobby_update` message.
    pub(crate) frame: ByteString,
    /// The room as it is now (as it last was, when removed).
    pub(crate) summary: Arc<RoomSummary>,
}

/// A change to one of this node's listed rooms, for the rest of a fleet.
#[derive(Clone, Debug)]
pub(crate) struct LocalChange {
    /// What happened to the room.
    pub(crate) change: LobbyChange,
    /// The room as it is now (as it last was, when removed).
    pub(crate) summary: Arc<RoomSummary>,
    /// The token the room writes under here: news of a room under a higher token (from
    /// the node that took it over) outranks this.
    pub(crate) fence: Fence,
}

/// The sending side of the feed. Sending never waits: a subscriber that falls behind
/// loses the oldest updates and learns so on its next receive.
#[derive(Clone, Debug)]
pub(crate) struct LobbyFeed {
    /// Every change, of this node's rooms and of those other nodes list, for lobby
    /// subscribers.
    sender: broadcast::Sender<LobbyUpdate>,
    /// This node's changes only, for telling the rest of a fleet.
    local: broadcast::Sender<LocalChange>,
}

impl Default for LobbyFeed {
    fn default() -> Self {
        Self {
            sender: broadcast::channel(FEED_CAPACITY).0,
            local: broadcast::channel(FEED_CAPACITY).0,
        }
    }
}

impl LobbyFeed {
    /// Hands one change to a room of this node, held under `fence`, to every current
    /// subscriber (encoded once) and to the fleet.
    pub(crate) fn announce(&self, change: LobbyChange, room: &RoomSummary, fence: Fence) {
        if !self.has_listeners() {
            return;
        }
        let summary = Arc::new(room.clone());
        if self.local.receiver_count() > 0 {
            // Fails only when nobody is subscribed, which is fine.
            let _ = self.local.send(LocalChange {
                change,
                summary: summary.clone(),
                fence,
            });
        }
        self.send(change, summary);
    }

    /// Hands every current subscriber one change to a room another node of the fleet
    /// lists.
    pub(crate) fn announce_remote(&self, change: LobbyChange, room: &RoomSummary) {
        self.send(change, Arc::new(room.clone()));
    }

    fn send(&self, change: LobbyChange, summary: Arc<RoomSummary>) {
        if self.sender.receiver_count() == 0 {
            return;
        }
        let message = ServerMsg::LobbyUpdate {
            change,
            room: RoomSummary::clone(&summary),
        };
        let frame = encode(&message);
        // Fails only when nobody is subscribed, which is fine.
        let _ = self.sender.send(LobbyUpdate { frame, summary });
    }

    /// Whether anyone is subscribed; while nobody is, rooms need not announce changes.
    pub(crate) fn has_listeners(&self) -> bool {
        self.sender.receiver_count() > 0 || self.local.receiver_count() > 0
    }

    /// A new subscription, receiving every update announced from now on.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<LobbyUpdate> {
        self.sender.subscribe()
    }

    /// A new subscription to this node's own changes from now on, for the fleet.
    pub(crate) fn subscribe_local(&self) -> broadcast::Receiver<LocalChange> {
        self.local.subscribe()
    }
}

impl ListingFollowers for LobbyFeed {
    fn any(&self) -> bool {
        self.has_listeners()
    }
}
