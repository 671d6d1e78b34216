//! A node's part in a fleet of Parlor servers that share PostgreSQL and Redis, in one
//! place: its membership and the rooms' leases in Redis (`cluster`), the relay that lets
//! a client of any node reach a room on any other (`relay`), the fleet-wide lobby
//! (`listing`, and `elsewhere`: the rooms other nodes list), the keeper that renews
//! the leases of this node's rooms and adopts the games no node holds (`adoption`), and
//! bans heard by every node (`bans`).
//! A single server has none of it: every caller holds an `Option` of what it needs.
//!
//! Rooms and the lobby know nothing of the fleet: a room is given the token it writes
//! under by whoever opens it (a lease taken here first), and the lobby lists other
//! nodes' rooms through its own `ListedElsewhere` trait, which `elsewhere` implements.

mod adoption;
mod bans;
mod cluster;
mod elsewhere;
mod listing;
mod relay;

use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::info;

use crate::config::ClusterConfig;
use crate::live::LiveConnections;
use crate::lobby::Lobby;
use crate::metrics::Metrics;
use crate::store::Store;

/// How soon a connection whose room moved to another node looks for it again after it
/// was not found (the WebSocket's sessions and the Bot API's game streams alike).
pub(crate) const REENTER_EVERY: Duration = Duration::from_millis(250);

/// How long a connection waits for a room that moved to take it back before it gives
/// up, for its client to reconnect: far longer than a fleet needs to adopt a dead node's
/// rooms.
pub(crate) const REENTER_PATIENCE: Duration = Duration::from_secs(30);

pub(crate) use bans::FleetBans;
#[cfg(test)]
pub(crate) use cluster::tests as cluster_tests;
pub(crate) use cluster::{Cluster, ClusterError, KeptChallenge};
pub(crate) use elsewhere::RemoteListings;
pub(crate) use relay::{LISTEN_AGAIN_AFTER, Opening, Relay, RoomLink};

/// What the fleet's tasks share with the rest of the node.
pub(crate) struct NodeParts {
    /// The shared store.
    pub(crate) store: Arc<dyn Store>,
    /// This node's live connections.
    pub(crate) live: LiveConnections,
    /// This node's metrics.
    pub(crate) metrics: Arc<Metrics>,
    /// Woken when a room stops because another server holds its game now.
    pub(crate) fenced_out: Arc<tokio::sync::Notify>,
}

/// This node's part in its fleet while the server runs: what it started, to stop it in
/// order.
pub(crate) struct Fleet {
    cluster: Cluster,
    relay: Relay,
    bans: FleetBans,
    /// The task renewing leases and adopting games; `None` on a node that holds no
    /// rooms.
    keeper: Option<JoinHandle<()>>,
}

impl Fleet {
    /// Joins the fleet whose Redis `config.redis_url` names, as a new node.
    pub(crate) async fn join(config: &ClusterConfig, url: &str) -> Result<Cluster, ClusterError> {
        let cluster = Cluster::connect(config, url).await?;
        info!(node = %cluster.node(), "joined the fleet");
        Ok(cluster)
    }

    /// Starts this node's part in the fleet `cluster` speaks for, with `lobby`'s rooms
    /// and the games in the node's store, until `shutdown`: the relay (listening on the
    /// node's inbox, telling and following the fleet's listings, at most once per
    /// `listing_flush`), the watch over the owners of the rooms this node's clients are
    /// in, the fleet's bans (closing the banned players' connections in `live`), and, on
    /// a node that holds rooms, the keeper of its leases.
    pub(crate) fn start(
        cluster: Cluster,
        lobby: &Lobby,
        elsewhere: RemoteListings,
        node: NodeParts,
        listing_flush: Duration,
        shutdown: &CancellationToken,
    ) -> Fleet {
        let NodeParts {
            store,
            live,
            metrics,
            fenced_out,
        } = node;
        let bans = bans::start(
            cluster.clone(),
            live,
            store.clone(),
            metrics.clone(),
            shutdown.clone(),
        );
        let relay = Relay::start(
            cluster.clone(),
            lobby.clone(),
            elsewhere,
            listing_flush,
            metrics.fleet_relay_seconds.clone(),
            shutdown.clone(),
        );
        tokio::spawn(
            relay
                .clone()
                .watch_owners(cluster.lease() / 3, shutdown.clone()),
        );
        let keeper = if cluster.owns_rooms() {
            // It takes the games nobody holds, now and whenever a node dies.
            Some(tokio::spawn(adoption::keep_rooms(
                cluster.clone(),
                store,
                lobby.clone(),
                relay.taking(),
                fenced_out,
                metrics,
                shutdown.clone(),
            )))
        } else {
            // It leaves every game to the nodes that hold rooms.
            info!("this node holds no rooms: it serves clients only");
            None
        };
        Fleet {
            cluster,
            relay,
            bans,
            keeper,
        }
    }

    /// How this node's clients reach rooms across the fleet.
    pub(crate) fn relay(&self) -> &Relay {
        &self.relay
    }

    /// This node's membership of the fleet, and its connection to Redis.
    pub(crate) fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// How this node tells the fleet of a ban.
    pub(crate) fn bans(&self) -> &FleetBans {
        &self.bans
    }

    /// Leaves the fleet once this node's rooms have stopped: waits (a little) until the
    /// others have been told this node stopped, then hands every lease over at once,
    /// rather than when the leases would have run out.
    pub(crate) async fn leave(self) {
        self.relay.stopped_telling(Duration::from_secs(2)).await;
        if let Some(keeper) = self.keeper {
            keeper.abort();
            adoption::hand_over(&self.cluster, &self.cluster.held()).await;
        }
    }
}
