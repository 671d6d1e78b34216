//! The fleet-wide lobby: every node tells the others what happens to the rooms it lists
//! (merged, at most once per `limits.lobby_flush_ms`, and at least every third of a
//! lease so they know it lives), and lists theirs beside its own, telling its lobby
//! subscribers of their changes as of its own. A node that stops says so; one that dies
//! is forgotten after a lease without a word, and the nodes that adopt its rooms list
//! them anew. Each room travels with the token its node holds it under, so the news of
//! a node that lost a room never outranks that of the node that took it over.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use dashmap::DashMap;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::broadcast::error::RecvError;
use tokio::time::{Instant, sleep_until};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use super::cluster::{Cluster, ListingWrite};
use super::elsewhere::{RemoteListings, RoomNews};
use super::relay::LISTEN_AGAIN_AFTER;
use crate::lobby::{Lobby, LocalChange};
use crate::protocol::{LobbyChange, RoomSummary};
use crate::store::Fence;
use parlor_room::{NodeId, RoomId};

/// What one node tells the others about the rooms it lists.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum ListingNews {
    /// What changed in `node`'s rooms since its last news (nothing: it is still there),
    /// each a [`RoomEntry`] (read one by one, so that one a node of another version
    /// wrote costs only itself); when `full`, `node` has rewritten its whole listing,
    /// to be read again from Redis.
    Changes {
        node: NodeId,
        /// Whether `node` holds rooms (`cluster.owns_rooms`): where rooms may be opened.
        #[serde(default = "holds_rooms")]
        owns_rooms: bool,
        full: bool,
        changes: Vec<Value>,
    },
    /// `node` has stopped: its rooms are no longer listed by it.
    Gone { node: NodeId },
}

/// A node that does not say whether it holds rooms does.
fn holds_rooms() -> bool {
    true
}

/// One room in a node's news and in its listing in Redis.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct RoomEntry {
    change: LobbyChange,
    /// The token the node holds the room under.
    fence: i64,
    room: RoomSummary,
}

impl RoomEntry {
    fn news(self) -> RoomNews {
        RoomNews {
            change: self.change,
            fence: Fence(self.fence),
            summary: self.room,
        }
    }
}

/// Tells the fleet what happens to this node's listed rooms until `shutdown`, then
/// that it has stopped. Changes are merged per room and written at most once per
/// `flush_every`; news leaves at least every third of a lease even when nothing changed.
pub(super) async fn tell_listings(
    cluster: Cluster,
    lobby: Lobby,
    flush_every: Duration,
    shutdown: CancellationToken,
) {
    let mut changes = lobby.local_changes();
    let beat = cluster.lease() / 3;
    let mut pending: HashMap<RoomId, LocalChange> = HashMap::new();
    // The first news is the whole listing, and so is the next after a failure.
    let mut full = true;
    let mut last_told = Instant::now();
    let mut next_flush = Instant::now();
    // After a failure, not again before this: Redis may refuse at once, every time.
    let mut retry_at = Instant::now();
    loop {
        let due = if full || !pending.is_empty() {
            next_flush.min(last_told + beat)
        } else {
            last_told + beat
        }
        .max(retry_at);
        tokio::select! {
            change = changes.recv() => match change {
                Ok(change) => {
                    pending.insert(change.summary.room.clone(), change);
                }
                Err(RecvError::Lagged(_)) => {
                    pending.clear();
                    full = true;
                }
                Err(RecvError::Closed) => return,
            },
            () = sleep_until(due) => {
                let told = tell(&cluster, &lobby, full, std::mem::take(&mut pending)).await;
                next_flush = Instant::now() + flush_every;
                match told {
                    Ok(()) => {
                        full = false;
                        last_told = Instant::now();
                    }
                    Err(error) => {
                        warn!(%error, "could not tell the fleet about this node's rooms; telling all of them again next time");
                        full = true;
                        retry_at = Instant::now() + flush_every.max(LISTEN_AGAIN_AFTER);
                    }
                }
            }
            () = shutdown.cancelled() => {
                let news = ListingNews::Gone { node: cluster.node().clone() };
                let told = match serde_json::to_string(&news) {
                    Ok(news) => cluster.withdraw_listing(&news).await.map_err(|error| error.to_string()),
                    Err(error) => Err(error.to_string()),
                };
                if let Err(error) = told {
                    warn!(%error, "could not tell the fleet this node stopped; its rooms leave other nodes' listings after a lease");
                }
                return;
            }
        }
    }
}

/// Writes one piece of news: `changes`, or, when `full`, every listed room of this node
/// (which the other nodes then read from Redis).
async fn tell(
    cluster: &Cluster,
    lobby: &Lobby,
    full: bool,
    changes: HashMap<RoomId, LocalChange>,
) -> Result<(), String> {
    let entries: Vec<RoomEntry> = if full {
        lobby
            .listed_here()
            .into_iter()
            // A room that has not taken its lease yet is told of once it has.
            .filter(|(fence, _)| *fence != Fence::SINGLE)
            .map(|(fence, room)| RoomEntry {
                change: LobbyChange::Added,
                fence: fence.0,
                room,
            })
            .collect()
    } else {
        changes
            .into_values()
            .map(|change| RoomEntry {
                change: change.change,
                fence: change.fence.0,
                room: Arc::unwrap_or_clone(change.summary),
            })
            .collect()
    };
    let mut write = ListingWrite {
        full,
        ..ListingWrite::default()
    };
    let mut told = Vec::with_capacity(if full { 0 } else { entries.len() });
    for entry in &entries {
        let id = entry.room.room.clone();
        let json = serde_json::to_value(entry).map_err(|error| error.to_string())?;
        match entry.change {
            LobbyChange::Removed => write.removed.push(id),
            LobbyChange::Added | LobbyChange::Changed => write.set.push((id, json.to_string())),
        }
        if !full {
            told.push(json);
        }
    }
    let news = ListingNews::Changes {
        node: cluster.node().clone(),
        owns_rooms: cluster.owns_rooms(),
        full,
        changes: told,
    };
    let news = serde_json::to_string(&news).map_err(|error| error.to_string())?;
    cluster
        .write_listing(&write, &news)
        .await
        .map_err(|error| error.to_string())
}

/// What a node following the fleet's listings knows of the other nodes.
struct Following<'a> {
    cluster: &'a Cluster,
    lobby: &'a Lobby,
    /// What the other nodes list, as this node has heard it.
    elsewhere: &'a RemoteListings,
    /// The other nodes that hold rooms (shared with the relay, which opens rooms there).
    owning_nodes: &'a DashMap<NodeId, ()>,
    /// When each other node was last heard from.
    heard: HashMap<NodeId, Instant>,
    /// When this node last heard its own news: the subscription still delivers.
    heard_myself: Instant,
}

/// Lists the rooms of the fleet's other nodes beside this node's until `shutdown`: reads
/// what they list, then follows their news, reading everything again whenever the
/// connection to Redis broke or went silent, and forgets a node not heard from for a
/// lease. Keeps `owning_nodes` to the other live nodes that hold rooms.
pub(super) async fn follow_listings(
    cluster: Cluster,
    lobby: Lobby,
    elsewhere: RemoteListings,
    owning_nodes: Arc<DashMap<NodeId, ()>>,
    shutdown: CancellationToken,
) {
    let lease = cluster.lease();
    // Kept across subscriptions, so that a node silent through an outage is forgotten.
    let mut following = Following {
        cluster: &cluster,
        lobby: &lobby,
        elsewhere: &elsewhere,
        owning_nodes: &owning_nodes,
        heard: HashMap::new(),
        heard_myself: Instant::now(),
    };
    loop {
        let subscribed = tokio::select! {
            subscribed = cluster.follow_listings() => subscribed,
            () = shutdown.cancelled() => return,
        };
        match subscribed {
            Ok(mut news) => {
                following.heard_myself = Instant::now();
                // Subscribed first, read second: no news is missed in between.
                if let Err(error) = following.read_all().await {
                    warn!(%error, "could not read the fleet's rooms; trying again");
                } else {
                    info!("listing the fleet's rooms");
                    let mut sweep = tokio::time::interval_at(Instant::now() + lease / 3, lease / 3);
                    loop {
                        tokio::select! {
                            piece = news.next() => match piece {
                                Some(piece) => {
                                    if !following.hear(&piece).await {
                                        break;
                                    }
                                }
                                None => break,
                            },
                            _ = sweep.tick() => {
                                if following.heard_myself.elapsed() > lease {
                                    // This node tells its news every third of a lease.
                                    warn!("heard nothing on the fleet's news of its rooms for a lease (Redis)");
                                    break;
                                }
                                following.forget_silent(lease);
                            }
                            () = shutdown.cancelled() => return,
                        }
                    }
                    warn!("lost the fleet's news of its rooms (Redis); reading them again");
                }
            }
            Err(error) => warn!(%error, "could not follow the fleet's rooms; trying again"),
        }
        tokio::select! {
            () = tokio::time::sleep(LISTEN_AGAIN_AFTER) => {}
            () = shutdown.cancelled() => return,
        }
    }
}

impl Following<'_> {
    /// Reads every other node's listing into the lobby, forgetting the nodes that list
    /// nothing any more. A node whose listing is there has written it within a lease,
    /// and counts as heard from now; a node known to hold rooms but first met now counts
    /// so too (it is forgotten if it stays silent for a lease).
    async fn read_all(&mut self) -> Result<(), String> {
        let listings = self
            .cluster
            .listings()
            .await
            .map_err(|error| error.to_string())?;
        for (node, rooms) in listings {
            let rooms = read_rooms(&node, rooms.iter().map(String::as_str));
            if !rooms.is_empty() {
                self.heard.insert(node.clone(), Instant::now());
            }
            self.elsewhere.hear_all(self.lobby, &node, rooms);
        }
        for node in self.owning_nodes.iter() {
            self.heard
                .entry(node.key().clone())
                .or_insert_with(Instant::now);
        }
        for node in self.elsewhere.nodes() {
            if !self.heard.contains_key(&node) {
                self.elsewhere.forget_node(self.lobby, &node);
            }
        }
        Ok(())
    }

    /// Forgets every node not heard from for `lease`.
    fn forget_silent(&mut self, lease: Duration) {
        let (lobby, elsewhere, owning_nodes) = (self.lobby, self.elsewhere, self.owning_nodes);
        self.heard.retain(|node, at| {
            let alive = at.elapsed() <= lease;
            if !alive {
                info!(
                    %node,
                    "a node of the fleet went silent; its rooms leave the listings"
                );
                elsewhere.forget_node(lobby, node);
                owning_nodes.remove(node);
            }
            alive
        });
    }

    /// Takes in one piece of news; `false` when everything must be read again (a node
    /// rewrote its listing and it could not be read).
    async fn hear(&mut self, piece: &str) -> bool {
        let news: ListingNews = match serde_json::from_str(piece) {
            Ok(news) => news,
            Err(error) => {
                warn!(%error, "news of the fleet's rooms could not be read; it is ignored");
                return true;
            }
        };
        match news {
            ListingNews::Changes { node, .. } if node == *self.cluster.node() => {
                self.heard_myself = Instant::now();
            }
            ListingNews::Changes {
                node,
                owns_rooms,
                full,
                changes,
            } => {
                self.heard.insert(node.clone(), Instant::now());
                if owns_rooms {
                    self.owning_nodes.insert(node.clone(), ());
                } else {
                    self.owning_nodes.remove(&node);
                }
                if full {
                    match self.cluster.listing_of(&node).await {
                        Ok(rooms) => {
                            let rooms = read_rooms(&node, rooms.iter().map(String::as_str));
                            self.elsewhere.hear_all(self.lobby, &node, rooms);
                        }
                        Err(error) => {
                            warn!(%node, %error, "could not read a node's rooms; reading the fleet's again");
                            return false;
                        }
                    }
                    return true;
                }
                for change in changes {
                    match serde_json::from_value::<RoomEntry>(change) {
                        Ok(entry) => self.elsewhere.hear(self.lobby, &node, &entry.news()),
                        Err(error) => {
                            warn!(%node, %error, "a room in the fleet's news could not be read; it is skipped");
                        }
                    }
                }
            }
            ListingNews::Gone { node } => {
                if node != *self.cluster.node() {
                    self.elsewhere.forget_node(self.lobby, &node);
                    self.owning_nodes.remove(&node);
                    self.heard.remove(&node);
                }
            }
        }
        true
    }
}

/// The rooms of `node`'s listing as Redis holds them, skipping any that cannot be read.
fn read_rooms<'a>(
    node: &NodeId,
    rooms: impl Iterator<Item = &'a str>,
) -> Vec<(Fence, RoomSummary)> {
    rooms
        .filter_map(|room| match serde_json::from_str::<RoomEntry>(room) {
            Ok(entry) => Some((Fence(entry.fence), entry.room)),
            Err(error) => {
                warn!(%node, %error, "a room of another node's listing could not be read; it is skipped");
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Status, TimeControl};
    use parlor_rules::GameKind;

    fn room() -> RoomSummary {
        RoomSummary {
            room: RoomId::from("r1"),
            game: GameKind::FoxGeese,
            status: Status::Waiting,
            seats: Vec::new().into(),
            spectators: 2,
            moves: 0,
            time_control: TimeControl::default(),
            created_at_ms: 17,
        }
    }

    #[test]
    fn news_reads_back_as_written() {
        let entry = RoomEntry {
            change: LobbyChange::Removed,
            fence: 3,
            room: room(),
        };
        let value = serde_json::to_value(&entry).expect("encode");
        for news in [
            ListingNews::Changes {
                node: NodeId::from("n1"),
                owns_rooms: false,
                full: false,
                changes: vec![value.clone()],
            },
            ListingNews::Gone {
                node: NodeId::from("n1"),
            },
        ] {
            let text = serde_json::to_string(&news).expect("encode");
            let back: ListingNews = serde_json::from_str(&text).expect("decode");
            assert_eq!(back, news, "{text}");
        }
        let back: RoomEntry = serde_json::from_value(value).expect("decode");
        assert_eq!(back, entry);
    }

    #[test]
    fn a_room_that_cannot_be_read_costs_only_itself() {
        let good = serde_json::to_string(&RoomEntry {
            change: LobbyChange::Added,
            fence: 2,
            room: room(),
        })
        .expect("encode");
        let rooms = read_rooms(
            &NodeId::from("n1"),
            [good.as_str(), "{\"room\":{\"game\":\"go\"}}"].into_iter(),
        );
        assert_eq!(rooms, [(Fence(2), room())]);
        let old: ListingNews =
            serde_json::from_str(r#"{"kind":"changes","node":"n2","full":false,"changes":[]}"#)
                .expect("news without owns_rooms");
        assert!(matches!(
            old,
            ListingNews::Changes {
                owns_rooms: true,
                ..
            }
        ));
    }
}
