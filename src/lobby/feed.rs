//! The lobby feed: every change to a listed room, encoded once and shared by all
//! lobby subscribers.

use parlor_rules::GameKind;
use std::sync::Arc;

use bytestring::ByteString;
use tokio::sync::broadcast;

use crate::protocol::{LobbyChange, RoomSummary, ServerMsg, encode};
use crate::room::ListingFollowers;

/// How many updates a subscriber may fall behind before it is sent a fresh snapshot
/// instead of the updates it missed.
const FEED_CAPACITY: usize = 512;

/// One `lobby_update` frame, with its room and game so subscribers can merge and filter
/// without decoding.
#[derive(Clone, Debug)]
pub(crate) struct LobbyUpdate {
    /// The room that changed.
    pub(crate) room: Arc<str>,
    /// The game of the room that changed.
    pub(crate) game: GameKind,
    /// The encoded `lobby_update` message.
    pub(crate) frame: ByteString,
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
    /// Encodes one change and hands it to every current subscriber.
    pub(crate) fn announce(&self, change: LobbyChange, room: &RoomSummary) {
        if !self.has_listeners() {
            return;
        }
        let game = room.game;
        let message = ServerMsg::LobbyUpdate {
            change,
            room: room.clone(),
        };
        let frame = encode(&message);
        // Fails only when nobody is subscribed, which is fine.
        let _ = self.sender.send(LobbyUpdate {
            room: Arc::from(room.room.as_str()),
            game,
            frame,
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
