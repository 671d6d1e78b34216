//! Bans across a fleet: a ban made on one node reaches every node, which closes the
//! banned player's connections there. Redis's channels may drop a message while a node
//! is not subscribed, so a node that (re)subscribes also reads the bans in force from
//! the shared store and closes what it finds.

use std::sync::Arc;
use std::time::SystemTime;

use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use super::cluster::{Cluster, ClusterError};
use super::relay::LISTEN_AGAIN_AFTER;
use crate::bans;
use crate::live::LiveConnections;
use crate::metrics::Metrics;
use crate::room::unix_ms;
use crate::store::Store;
use parlor_room::PlayerId;

/// What nodes say of a ban.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct BanNews {
    /// The player banned.
    player: PlayerId,
    /// What their connections are told.
    message: String,
}

/// How this node tells the fleet of a ban. Cloning it is cheap.
#[derive(Clone)]
pub(crate) struct FleetBans {
    cluster: Cluster,
}

impl FleetBans {
    /// Tells every node that `player` is banned; they close the player's connections,
    /// each told `message`.
    pub(crate) async fn tell(&self, player: &PlayerId, message: &str) -> Result<(), ClusterError> {
        let news = BanNews {
            player: player.clone(),
            message: message.to_owned(),
        };
        let text = serde_json::to_string(&news).unwrap_or_default();
        self.cluster.publish_ban(&text).await
    }
}

/// Follows the fleet's bans until `shutdown`, closing the banned players' connections in
/// `live`; returns the handle to tell the fleet of this node's bans.
pub(super) fn start(
    cluster: Cluster,
    live: LiveConnections,
    store: Arc<dyn Store>,
    metrics: Arc<Metrics>,
    shutdown: CancellationToken,
) -> FleetBans {
    tokio::spawn(follow(cluster.clone(), live, store, metrics, shutdown));
    FleetBans { cluster }
}

async fn follow(
    cluster: Cluster,
    live: LiveConnections,
    store: Arc<dyn Store>,
    metrics: Arc<Metrics>,
    shutdown: CancellationToken,
) {
    loop {
        let following = tokio::select! {
            following = cluster.follow_bans() => following,
            () = shutdown.cancelled() => return,
        };
        match following {
            Ok(mut news) => {
                // Whatever was published while this node was not listening is in the
                // store: close the connections of every player banned now.
                catch_up(&live, store.as_ref(), &metrics).await;
                loop {
                    let text = tokio::select! {
                        text = news.next() => text,
                        () = shutdown.cancelled() => return,
                    };
                    let Some(text) = text else { break };
                    match serde_json::from_str::<BanNews>(&text) {
                        Ok(ban) => close(&live, &metrics, &ban.player, &ban.message),
                        Err(error) => warn!(%error, "unreadable ban news from the fleet"),
                    }
                }
                warn!("lost the fleet's ban news; following it again");
            }
            Err(error) => warn!(%error, "could not follow the fleet's bans; trying again"),
        }
        tokio::select! {
            () = tokio::time::sleep(LISTEN_AGAIN_AFTER) => {}
            () = shutdown.cancelled() => return,
        }
    }
}

/// Closes the connections of every player with one open here who is banned now.
async fn catch_up(live: &LiveConnections, store: &dyn Store, metrics: &Metrics) {
    let here = live.players();
    if here.is_empty() {
        return;
    }
    match store.bans(unix_ms(SystemTime::now())).await {
        Ok(bans) => {
            for ban in bans.iter().filter(|ban| here.contains(&ban.player_id)) {
                close(live, metrics, &ban.player_id, &bans::sentence(ban));
            }
        }
        Err(error) => {
            warn!(%error, "could not read the bans in force; the next ban news closes what it names");
        }
    }
}

fn close(live: &LiveConnections, metrics: &Metrics, player: &PlayerId, message: &str) {
    let closed = live.close_player(player, &bans::banned(message));
    if closed > 0 {
        info!(%player, closed, "closed a banned player's connections");
        metrics
            .bans_enforced
            .with_label_values(&["connection"])
            .inc_by(closed as u64);
    }
}
