//! What happens to a player's challenges and games ([`BotEvent`]), sent to every
//! listener they have: their Bot API event streams (`GET /api/stream/event`, which
//! write it as Lichess does) and their WebSocket connections that made challenges
//! (which write it as PROTOCOL.md says), on this node and, in a fleet, on every other
//! (`fleet_events`). A listener that has gone, or reads too slowly to keep its queue,
//! is dropped.

use std::sync::Arc;

use dashmap::DashMap;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::challenges::{self, Challenge};
use super::fleet_events::FleetEvents;
use super::ongoing::Ongoing;
use parlor_room::{PlayerId, RoomId};

/// What happened to a challenge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum ChallengeNews {
    /// It was made.
    Made,
    /// The challenged player declined it (or the server did for a bot account).
    Declined,
    /// The challenger took it back.
    Canceled,
}

/// What a player is told of their challenges and games.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum BotEvent {
    /// News of a challenge they are in.
    Challenge(ChallengeNews, Box<Challenge>),
    /// A game of theirs started (a challenge of theirs was accepted).
    GameStart(Box<Ongoing>),
    /// A game of theirs ended, as the Bot API's `gameFinish` line says.
    GameFinish(String),
}

/// What an event stream's first lines tell: a pending challenge (by its id) or a game
/// going on (by its room, which has the id of the challenge it came from).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Told {
    /// A challenge waiting for its answer.
    Challenge(RoomId),
    /// A game going on.
    Game(RoomId),
}

impl BotEvent {
    /// The event as an event stream's line, links made for a server at `base`.
    pub(crate) fn line(&self, base: &str) -> String {
        match self {
            BotEvent::Challenge(news, challenge) => {
                let kind = match news {
                    ChallengeNews::Made => "challenge",
                    ChallengeNews::Declined => "challengeDeclined",
                    ChallengeNews::Canceled => "challengeCanceled",
                };
                challenges::event(kind, challenge, base)
            }
            BotEvent::GameStart(ongoing) => ongoing.game_start(base),
            BotEvent::GameFinish(line) => line.clone(),
        }
    }

    /// What a stream opening tells of this event in its first lines, if it can: a
    /// challenge made, or a game started. A stream subscribes before it reads them, so
    /// such an event may come live as well: it is sent once.
    pub(crate) fn told_on_opening(&self) -> Option<Told> {
        match self {
            BotEvent::Challenge(ChallengeNews::Made, challenge) => {
                Some(Told::Challenge(challenge.id.clone()))
            }
            BotEvent::GameStart(ongoing) => Some(Told::Game(ongoing.room.clone())),
            BotEvent::Challenge(..) | BotEvent::GameFinish(_) => None,
        }
    }
}

/// How many events may wait for one slow stream before it is dropped.
const EVENTS_QUEUED: usize = 64;

/// The event streams open on this node, and, in a fleet, the way to the other nodes'.
/// Cloning it is cheap and shares the table.
#[derive(Clone, Default)]
pub(crate) struct EventStreams {
    by_player: Arc<DashMap<PlayerId, Vec<mpsc::Sender<BotEvent>>>>,
    fleet: Option<FleetEvents>,
}

impl EventStreams {
    /// A new listener to `player`'s events.
    pub(crate) fn open(&self, player: &PlayerId) -> mpsc::Receiver<BotEvent> {
        let (sender, receiver) = mpsc::channel(EVENTS_QUEUED);
        self.by_player
            .entry(player.clone())
            .or_default()
            .push(sender);
        receiver
    }

    /// The same streams, whose events also reach `fleet`'s other nodes.
    pub(crate) fn across(self, fleet: FleetEvents) -> EventStreams {
        EventStreams {
            fleet: Some(fleet),
            ..self
        }
    }

    /// Sends `event` to each of `player`'s listeners, on this node and, in a fleet, on
    /// the others.
    pub(crate) fn send(&self, player: &PlayerId, event: &BotEvent) {
        if let Some(fleet) = &self.fleet {
            fleet.tell(player, event);
        }
        self.send_here(player, event);
    }

    /// Sends `event` to each of `player`'s listeners on this node.
    pub(crate) fn send_here(&self, player: &PlayerId, event: &BotEvent) {
        if let Some(mut streams) = self.by_player.get_mut(player) {
            streams.retain(|stream| stream.try_send(event.clone()).is_ok());
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
