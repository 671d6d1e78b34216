//! The fleet-wide lobby: every node tells the others what happens to the rooms it lists
//! (merged, at most once per `limits.lobby_flush_ms`, and at least every third of a
//! lease so they know it lives), and lists theirs beside its own, telling its lobby
//! subscribers of their changes as of its own. A node that stops says so; one that dies
//! is forgotten after a lease without a word, and the nodes that adopt its rooms list
//! them anew.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use dashmap::DashMap;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast::error::RecvError;
use tokio::time::{Instant, sleep_until};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use super::LISTEN_AGAIN_AFTER;
use crate::cluster::{Cluster, ListingWrite};
use crate::lobby::Lobby;
use crate::protocol::{LobbyChange, RoomSummary};

/// What one node tells the others about the rooms it lists.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum ListingNews {
    /// What changed in `node`'s rooms since its last news (nothing: it is still there);
    /// when `full`, every room it lists, replacing what it said before.
    Changes {
        node: String,
        /// Whether `node` holds rooms (`cluster.owns_rooms`): where rooms may be opened.
        #[serde(default = "holds_rooms")]
        owns_rooms: bool,
        full: bool,
        changes: Vec<(LobbyChange, RoomSummary)>,
    },
    /// `node` has stopped: its rooms are no longer listed by it.
    Gone { node: String },
}

/// A node that does not say whether it holds rooms does.
fn holds_rooms() -> bool {
    true
}

/// Tells the fleet what happens to this node's listed rooms until `shutdown`, then
/// that it has stopped. Changes are merged per room and written at most once per
/// `flush_every`; news leaves at least every third of a lease even when nothing changed.
pub(crate) async fn tell_listings(
    cluster: Cluster,
    lobby: Lobby,
    flush_every: Duration,
    shutdown: CancellationToken,
) {
    let mut updates = lobby.updates();
    let beat = cluster.lease() / 3;
    let mut pending: HashMap<String, (LobbyChange, Arc<RoomSummary>)> = HashMap::new();
    // The first news is the whole listing, and so is the next after a failure.
    let mut full = true;
    let mut last_told = Instant::now();
    let mut next_flush = Instant::now();
    loop {
        tokio::select! {
            update = updates.recv() => match update {
                Ok(update) if update.local => {
                    pending.insert(update.summary.room.clone(), (update.change, update.summary));
                }
                Ok(_) => {}
                Err(RecvError::Lagged(_)) => {
                    pending.clear();
                    full = true;
                }
                Err(RecvError::Closed) => return,
            },
            () = sleep_until(next_flush) => {
                next_flush = Instant::now() + flush_every;
                if full || !pending.is_empty() || last_told.elapsed() >= beat {
                    let changes = std::mem::take(&mut pending);
                    match tell(&cluster, &lobby, full, changes).await {
                        Ok(()) => {
                            full = false;
                            last_told = Instant::now();
                        }
                        Err(error) => {
                            warn!(%error, "could not tell the fleet about this node's rooms; telling all of them again next time");
                            full = true;
                        }
                    }
                }
            }
            () = shutdown.cancelled() => {
                let news = ListingNews::Gone { node: cluster.node().to_owned() };
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

/// Writes one piece of news: `changes`, or every listed room of this node when `full`.
async fn tell(
    cluster: &Cluster,
    lobby: &Lobby,
    full: bool,
    changes: HashMap<String, (LobbyChange, Arc<RoomSummary>)>,
) -> Result<(), String> {
    let changes: Vec<(LobbyChange, RoomSummary)> = if full {
        lobby
            .listed_here()
            .into_iter()
            .map(|summary| (LobbyChange::Added, summary))
            .collect()
    } else {
        changes
            .into_values()
            .map(|(change, summary)| (change, Arc::unwrap_or_clone(summary)))
            .collect()
    };
    let mut write = ListingWrite {
        full,
        ..ListingWrite::default()
    };
    for (change, summary) in &changes {
        match change {
            LobbyChange::Removed => write.removed.push(summary.room.clone()),
            LobbyChange::Added | LobbyChange::Changed => {
                let json = serde_json::to_string(summary).map_err(|error| error.to_string())?;
                write.set.push((summary.room.clone(), json));
            }
        }
    }
    let news = ListingNews::Changes {
        node: cluster.node().to_owned(),
        owns_rooms: cluster.owns_rooms(),
        full,
        changes,
    };
    let news = serde_json::to_string(&news).map_err(|error| error.to_string())?;
    cluster
        .write_listing(&write, &news)
        .await
        .map_err(|error| error.to_string())
}

/// Lists the rooms of the fleet's other nodes beside this node's until `shutdown`: reads
/// what they list, then follows their news, reading everything again whenever the
/// connection to Redis broke, and forgets a node not heard from for a lease. Keeps
/// `owning_nodes` to the other live nodes that hold rooms.
pub(crate) async fn follow_listings(
    cluster: Cluster,
    lobby: Lobby,
    owning_nodes: Arc<DashMap<String, ()>>,
    shutdown: CancellationToken,
) {
    let lease = cluster.lease();
    loop {
        let following = tokio::select! {
            following = cluster.follow_listings() => following,
            () = shutdown.cancelled() => return,
        };
        match following {
            Ok(mut news) => {
                // Subscribed first, read second: no news is missed in between.
                let mut heard = match read_all(&cluster, &lobby).await {
                    Ok(heard) => heard,
                    Err(error) => {
                        warn!(%error, "could not read the fleet's rooms; trying again");
                        sleep_or_stop(&shutdown).await;
                        continue;
                    }
                };
                info!("listing the fleet's rooms");
                let mut sweep = tokio::time::interval(lease / 3);
                loop {
                    tokio::select! {
                        piece = news.next() => match piece {
                            Some(piece) => hear(&cluster, &lobby, &owning_nodes, &mut heard, &piece),
                            None => break,
                        },
                        _ = sweep.tick() => {
                            heard.retain(|node, at| {
                                let alive = at.elapsed() <= lease;
                                if !alive {
                                    info!(node, "a node of the fleet went silent; its rooms leave the listings");
                                    lobby.forget_node(node);
                                    owning_nodes.remove(node);
                                }
                                alive
                            });
                        }
                        () = shutdown.cancelled() => return,
                    }
                }
                warn!("lost the fleet's news of its rooms (Redis); reading them again");
            }
            Err(error) => warn!(%error, "could not follow the fleet's rooms; trying again"),
        }
        sleep_or_stop(&shutdown).await;
        if shutdown.is_cancelled() {
            return;
        }
    }
}

async fn sleep_or_stop(shutdown: &CancellationToken) {
    tokio::select! {
        () = tokio::time::sleep(LISTEN_AGAIN_AFTER) => {}
        () = shutdown.cancelled() => {}
    }
}

/// Reads every other node's listing into the lobby, forgetting the nodes that list
/// nothing any more; returns when each node listing rooms was last heard from (now).
async fn read_all(cluster: &Cluster, lobby: &Lobby) -> Result<HashMap<String, Instant>, String> {
    let listings = cluster
        .listings()
        .await
        .map_err(|error| error.to_string())?;
    let mut heard = HashMap::new();
    for (node, rooms) in listings {
        let rooms: Vec<RoomSummary> = rooms
            .iter()
            .filter_map(|room| serde_json::from_str(room).ok())
            .collect();
        if !rooms.is_empty() {
            heard.insert(node.clone(), Instant::now());
        }
        lobby.hear_all(&node, rooms);
    }
    for node in lobby.listing_nodes() {
        if !heard.contains_key(&node) {
            lobby.forget_node(&node);
        }
    }
    Ok(heard)
}

/// Takes in one piece of another node's news.
fn hear(
    cluster: &Cluster,
    lobby: &Lobby,
    owning_nodes: &DashMap<String, ()>,
    heard: &mut HashMap<String, Instant>,
    piece: &str,
) {
    let news: ListingNews = match serde_json::from_str(piece) {
        Ok(news) => news,
        Err(error) => {
            warn!(%error, "news of the fleet's rooms could not be read; it is ignored");
            return;
        }
    };
    match news {
        ListingNews::Changes { node, .. } if node == cluster.node() => {}
        ListingNews::Changes {
            node,
            owns_rooms,
            full,
            changes,
        } => {
            if owns_rooms {
                owning_nodes.insert(node.clone(), ());
            } else {
                owning_nodes.remove(&node);
            }
            if full {
                let rooms = changes.into_iter().map(|(_, summary)| summary).collect();
                lobby.hear_all(&node, rooms);
            } else {
                for (change, summary) in &changes {
                    lobby.hear(&node, *change, summary);
                }
            }
            heard.insert(node, Instant::now());
        }
        ListingNews::Gone { node } => {
            if node != cluster.node() {
                lobby.forget_node(&node);
                owning_nodes.remove(&node);
                heard.remove(&node);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Status, TimeControl};
    use parlor_rules::GameKind;

    #[test]
    fn news_reads_back_as_written() {
        let room = RoomSummary {
            room: "r1".to_owned(),
            game: GameKind::FoxGeese,
            status: Status::Waiting,
            seats: Vec::new(),
            spectators: 2,
            moves: 0,
            time_control: TimeControl::default(),
            created_at_ms: 17,
        };
        for news in [
            ListingNews::Changes {
                node: "n1".to_owned(),
                owns_rooms: false,
                full: false,
                changes: vec![(LobbyChange::Removed, room)],
            },
            ListingNews::Gone {
                node: "n1".to_owned(),
            },
        ] {
            let text = serde_json::to_string(&news).expect("encode");
            let back: ListingNews = serde_json::from_str(&text).expect("decode");
            assert_eq!(back, news, "{text}");
        }
    }
}
