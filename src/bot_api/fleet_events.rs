//! The Bot API's events across a fleet: each event a node sends to a player's
//! listeners is also published on the fleet's channel (`fleet::Cluster`'s
//! `bot-events`), in the order sent, and every other node passes what it hears on to
//! that player's listeners there. So a bot whose event stream is open on one node hears
//! of a challenge made, answered or taken back through another, and of its game's start.
//! Redis's channels may drop a message while a node is not subscribed: an event stream
//! opened again reads the pending challenges and games afresh.

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::warn;

use super::events::{BotEvent, EventStreams};
use crate::fleet::{Cluster, LISTEN_AGAIN_AFTER};
use parlor_room::{NodeId, PlayerId};

/// How many events may wait to be published before more are dropped (with a warning).
const WAITING_TO_PUBLISH: usize = 1024;

/// An event as the fleet's channel carries it.
#[derive(Debug, Serialize, Deserialize)]
struct News {
    /// The node that sent it (which told its own listeners already).
    node: NodeId,
    /// The player it is for.
    player: PlayerId,
    /// What happened.
    event: BotEvent,
}

/// How this node tells the fleet of its events. Cloning it is cheap.
#[derive(Clone)]
pub(crate) struct FleetEvents {
    node: NodeId,
    publish: mpsc::Sender<String>,
}

impl FleetEvents {
    /// Publishes `event` for `player`, after every event told before it.
    pub(crate) fn tell(&self, player: &PlayerId, event: &BotEvent) {
        let news = News {
            node: self.node.clone(),
            player: player.clone(),
            event: event.clone(),
        };
        // An event is plain data: it always serialises.
        let text = serde_json::to_string(&news).unwrap_or_default();
        if self.publish.try_send(text).is_err() {
            warn!(%player, "a Bot API event was not told to the fleet: too many wait to be published");
        }
    }
}

/// `streams`, whose events reach every node of the fleet `cluster` speaks for and which
/// hear every other node's, until `shutdown`.
pub(crate) fn across(
    streams: EventStreams,
    cluster: Cluster,
    shutdown: &CancellationToken,
) -> EventStreams {
    let (publish, waiting) = mpsc::channel(WAITING_TO_PUBLISH);
    tokio::spawn(publish_in_order(cluster.clone(), waiting, shutdown.clone()));
    tokio::spawn(follow(cluster.clone(), streams.clone(), shutdown.clone()));
    streams.across(FleetEvents {
        node: cluster.node().clone(),
        publish,
    })
}

/// Publishes what waits, one at a time, so other nodes hear the events in order.
async fn publish_in_order(
    cluster: Cluster,
    mut waiting: mpsc::Receiver<String>,
    shutdown: CancellationToken,
) {
    loop {
        let text = tokio::select! {
            text = waiting.recv() => text,
            () = shutdown.cancelled() => return,
        };
        let Some(text) = text else { return };
        if let Err(error) = cluster.publish_bot_event(&text).await {
            warn!(%error, "a Bot API event was not told to the fleet");
        }
    }
}

/// Passes what other nodes publish on to this node's listeners, until `shutdown`.
async fn follow(cluster: Cluster, streams: EventStreams, shutdown: CancellationToken) {
    loop {
        let following = tokio::select! {
            following = cluster.follow_bot_events() => following,
            () = shutdown.cancelled() => return,
        };
        match following {
            Ok(mut heard) => loop {
                let text = tokio::select! {
                    text = futures_util::StreamExt::next(&mut heard) => text,
                    () = shutdown.cancelled() => return,
                };
                let Some(text) = text else {
                    warn!("lost the fleet's Bot API events; following them again");
                    break;
                };
                match serde_json::from_str::<News>(&text) {
                    Ok(news) if news.node != *cluster.node() => {
                        streams.send_here(&news.player, &news.event);
                    }
                    Ok(_) => {}
                    Err(error) => warn!(%error, "an unreadable Bot API event from the fleet"),
                }
            },
            Err(error) => {
                warn!(%error, "could not follow the fleet's Bot API events; trying again")
            }
        }
        tokio::select! {
            () = tokio::time::sleep(LISTEN_AGAIN_AFTER) => {}
            () = shutdown.cancelled() => return,
        }
    }
}
