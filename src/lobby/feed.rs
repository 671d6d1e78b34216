//! The lobby feed: every change to a listed room, encoded once and shared by all
//! lobby subscribers.

use std::sync::Arc;

use bytestring::ByteString;
use tokio::sync::broadcast;

use crate::protocol::{LobbyChange, RoomSummary, ServerMsg, encode};
use crate::room::ListingFollowers;

/// How many updates a subscriber may fall behind before it is sent a fresh snapshot
/// instead of the updates it missed.
const FEED_CAPACITY: usize = 512;

/// One `lobby_update` frame, with what it says decoded, so subscribers can merge and
/// filter without decoding.
#[derive(Clone, Debug)]
pub(crate) struct LobbyUpdate {
    /// The encoded `lobby_update` message.
    pub(crate) frame: ByteString,
    /// What happened to the room.
    pub(crate) change: LobbyChange,
    /// The room as it is now (as it last was, when removed).
    pub(crate) summary: Arc<RoomSummary>,
    /// Whether the room is this node's (not one another node of a fleet listed).
    pub(crate) local: bool,
}

/// The sending side of the feed. Sending never waits: a subscriber that falls behind
/// loses the oldest updates and learns so on its next receive.
#[derive(Clone, Debug)]
pub(crate) struct LobbyFeed {
    sender: broadcast::Sender<LobbyUpdate>,
}

impl Default for LobbyFeed {
    fn default() -> Self {
        Self {
            sender: broadcast::channel(FEED_CAPACITY).0,
        }
    }
}

impl LobbyFeed {
    /// Encodes one change to a room of this node and hands it to every current
    /// subscriber.
    pub(crate) fn announce(&self, change: LobbyChange, room: &RoomSummary) {
        self.send(change, room, true);
    }

    /// Hands every current subscriber one change to a room another node of the fleet
    /// lists.
    pub(crate) fn announce_remote(&self, change: LobbyChange, room: &RoomSummary) {
        self.send(change, room, false);
    }

    fn send(&self, change: LobbyChange, room: &RoomSummary, local: bool) {
        if !self.has_listeners() {
            return;
        }
        let message = ServerMsg::LobbyUpdate {
            change,
            room: room.clone(),
        };
        let frame = encode(&message);
        // Fails only when nobody is subscribed, which is fine.
        let _ = self.sender.send(LobbyUpdate {
            frame,
            change,
            summary: Arc::new(room.clone()),
            local,
        });
    }

    /// Whether anyone is subscribed; while nobody is, rooms need not announce changes.
    pub(crate) fn has_listeners(&self) -> bool {
        self.sender.receiver_count() > 0
    }

    /// A new subscription, receiving every update announced from now on.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<LobbyUpdate> {
        self.sender.subscribe()
    }
}

impl ListingFollowers for LobbyFeed {
    fn any(&self) -> bool {
        self.has_listeners()
    }
}
