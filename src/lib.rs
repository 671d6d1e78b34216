//! Parlor: a real-time multiplayer board-game server.
//!
//! ```text
//! browser / any client ──WebSocket JSON──▶ session task ──command──▶ room actor ──▶ store (SQLite | PostgreSQL)
//!                      ◀──same bytes────── (one per socket) ◀─frames── (one per room) ──▶ bots (blocking pool)
//! ```
//!
//! Dependencies point one way: the `parlor-rules` crate (games, bots and their
//! object-safe face, `catalog`) ← [`room`] ← [`ws`]/[`http`]. [`run`] wires it together
//! for `main` and for tests. ARCHITECTURE.md has the map.

mod cluster;
pub mod config;
pub mod domain;
mod http;
#[cfg(test)]
mod layering;
mod limits;
mod lobby;
mod metrics;
mod players;
pub mod protocol;
mod ratings;
mod relay;
mod resuming;
mod room;
#[cfg(test)]
mod rules_as_json;
mod scoring;
pub mod scratch_schema;
mod store;
pub mod test_services;
mod thinkers;
mod ws;

pub use metrics::MetricsError;
pub use store::StoreError;

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use actix_web::{App, HttpServer, web};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use crate::cluster::{Cluster, ClusterError};
use crate::config::Config;
use crate::limits::Limits;
use crate::lobby::{Lobby, LobbyFeed};
use crate::metrics::Metrics;
use crate::relay::Relay;
use crate::room::{RoomContext, RoomHosts};
use crate::store::{BatchStats, Store};
use crate::thinkers::Thinkers;
use crate::ws::{ConnectionSocket, OriginPolicy};

/// After the grace, how long closing the database may take before shutdown gives up on
/// it (a write stuck behind another process's lock never finishes).
const STORE_CLOSE: Duration = Duration::from_secs(2);

/// What every HTTP handler and WebSocket session shares.
pub(crate) struct AppState {
    /// The live rooms.
    pub(crate) lobby: Lobby,
    /// Durable storage.
    pub(crate) store: Arc<dyn Store>,
    /// The configuration the server runs with.
    pub(crate) config: Arc<Config>,
    /// Cancelled when the server shuts down.
    pub(crate) shutdown: CancellationToken,
    /// What `GET /metrics` reports.
    pub(crate) metrics: Arc<Metrics>,
    /// What one connection, one address or the whole server may ask for.
    pub(crate) limits: Arc<Limits>,
    /// Which pages may open a WebSocket.
    pub(crate) origins: OriginPolicy,
    /// How this node's clients reach rooms on other nodes of its fleet, if it is in one.
    pub(crate) relay: Option<Relay>,
}

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The database could not be opened or migrated.
    #[error("could not open the database: {0}")]
    Store(#[from] StoreError),
    /// The HTTP server could not start or failed.
    #[error("the HTTP server failed: {0}")]
    Http(#[from] std::io::Error),
    /// The metrics could not be set up.
    #[error(transparent)]
    Metrics(#[from] MetricsError),
    /// A setting cannot be used as it is.
    #[error("{0}")]
    Config(String),
    /// The fleet's Redis could not be used.
    #[error(transparent)]
    Cluster(#[from] ClusterError),
}

/// Turns Nagle's algorithm off on every accepted connection: a WebSocket frame (a move,
/// a state) is small and should leave at once, not wait for the previous one's ACK.
/// actix-web leaves it on by default.
fn no_delay(connection: &dyn std::any::Any, _: &mut actix_web::dev::Extensions) {
    if let Some(stream) = connection.downcast_ref::<actix_web::rt::net::TcpStream>()
        && let Err(error) = stream.set_nodelay(true)
    {
        warn!(%error, "could not set TCP_NODELAY on a connection");
    }
}

/// Prepares every accepted connection: no Nagle delay, and its socket registered for the
/// WebSocket session that may take it over.
fn on_connect(connection: &dyn std::any::Any, extensions: &mut actix_web::dev::Extensions) {
    no_delay(connection, extensions);
    if let Some(stream) = connection.downcast_ref::<actix_web::rt::net::TcpStream>() {
        ConnectionSocket::register(stream, extensions);
    }
}

/// Runs the server on `listener` until `shutdown` is cancelled, then shuts down
/// gracefully: stops accepting, tells every client (`shutdown`), lets rooms finish the
/// work in hand (in-flight store writes complete), and closes the database. Games in
/// progress stay in the database, and the next `run` on it resumes them (unless
/// `server.end_games_on_shutdown` asks for them to end). All of that
/// gets `server.shutdown_grace_secs` (and the database two seconds more); whatever is
/// still busy then is logged and left behind, so `run` always returns. (A runtime so
/// frozen that `run` cannot even time out is `main`'s watchdog's business.)
///
/// Must be called inside a multi-threaded tokio runtime: the rooms no client of this
/// server created (resumed at start, adopted from another node, created for a client of
/// another node) run there; the others on the HTTP worker of the client that created
/// them.
pub async fn run(
    config: Config,
    listener: TcpListener,
    shutdown: CancellationToken,
) -> Result<(), RunError> {
    let origins = OriginPolicy::new(&config.server.allowed_origins).map_err(RunError::Config)?;
    let metrics = Arc::new(Metrics::new()?);
    let batches = BatchStats {
        moves: metrics.store_batch_moves.clone(),
        commit_seconds: metrics.store_commit_seconds.clone(),
    };
    let cluster = match &config.cluster.redis_url {
        Some(url) => {
            let cluster = Cluster::connect(&config.cluster, url).await?;
            info!(node = %cluster.node(), "joined the fleet");
            Some(cluster)
        }
        None => None,
    };
    let store = store::open(&config.store, batches, cluster.is_some()).await?;
    info!("database ready");
    let config = Arc::new(config);
    let thinkers = Thinkers::start(
        config.bots.thread_count(),
        config.bots.queue,
        config.bots.priority,
        config.bots.nice,
        metrics.bot_think_seconds.clone(),
    )?;
    let lobby_feed = LobbyFeed::default();
    let context = Arc::new(RoomContext {
        store: store.clone(),
        config: config.clone(),
        thinkers,
        shutdown: shutdown.clone(),
        metrics: metrics.clone(),
        listing_followers: Arc::new(lobby_feed.clone()),
        cluster: cluster.clone(),
    });
    let limits = Arc::new(Limits::new(&config.limits));
    let hosts = RoomHosts::new(tokio::runtime::Handle::current());
    let lobby = Lobby::new(context, lobby_feed, hosts.clone());
    let relay = cluster.as_ref().map(|cluster| {
        let relay = Relay::start(
            cluster.clone(),
            lobby.clone(),
            Duration::from_millis(config.limits.lobby_flush_ms),
            shutdown.clone(),
        );
        tokio::spawn(
            relay
                .clone()
                .watch_owners(cluster.lease() / 3, shutdown.clone()),
        );
        relay
    });
    let keeper = match &cluster {
        // A node of a fleet that holds no rooms leaves every game to those that do.
        Some(cluster) if !cluster.owns_rooms() => {
            info!("this node holds no rooms: it serves clients only");
            None
        }
        // A node of a fleet takes the games nobody holds, now and whenever a node dies.
        Some(cluster) => Some(tokio::spawn(resuming::keep_rooms(
            cluster.clone(),
            store.clone(),
            lobby.clone(),
            shutdown.clone(),
        ))),
        None => {
            resuming::resume_unfinished(store.as_ref(), &lobby).await?;
            None
        }
    };
    let state = web::Data::new(AppState {
        lobby,
        store: store.clone(),
        config,
        shutdown: shutdown.clone(),
        metrics,
        limits: limits.clone(),
        origins,
        relay,
    });
    tokio::spawn(limits.prune_until(shutdown.clone()));
    let address = listener.local_addr()?;
    let app_state = state.clone();
    let server = HttpServer::new(move || {
        // Called on each worker thread as it starts: the rooms its clients create run
        // there.
        hosts.enlist_this_thread();
        App::new()
            .wrap(http::security_headers())
            .app_data(app_state.clone())
            .route("/ws", web::get().to(ws::upgrade))
            .configure(http::routes)
    })
    .on_connect(on_connect)
    .disable_signals()
    .shutdown_timeout(5)
    .listen(listener)?
    .run();
    let server_handle = server.handle();
    info!("listening on http://{address}");
    let mut serving = tokio::spawn(server);
    shutdown.cancelled().await;
    let grace = Duration::from_secs(state.config.server.shutdown_grace_secs);
    info!(grace_secs = grace.as_secs(), "shutting down");
    let deadline = tokio::time::Instant::now() + grace;
    // Rooms run on the HTTP workers, which drop them when they stop: stop accepting,
    // let the rooms close (they close on `shutdown`), and only then stop the workers.
    server_handle.pause().await;
    if tokio::time::timeout_at(deadline, state.lobby.wait_closed())
        .await
        .is_err()
    {
        warn!(
            rooms = ?state.lobby.live_ids(),
            "these rooms were still busy when the shutdown grace ran out; stopping without them"
        );
    }
    let stopped = async {
        server_handle.stop(true).await;
        (&mut serving).await
    };
    match tokio::time::timeout_at(deadline, stopped).await {
        Ok(Ok(Ok(()))) => {}
        Ok(Ok(Err(error))) => warn!(%error, "the HTTP server failed while stopping"),
        Ok(Err(error)) => warn!(%error, "the HTTP server task ended abnormally"),
        Err(_) => {
            warn!("connections were still open when the shutdown grace ran out");
            serving.abort();
        }
    }
    if let Some(relay) = &state.relay {
        relay.stopped_telling(Duration::from_secs(2)).await;
    }
    if let (Some(cluster), Some(keeper)) = (&cluster, keeper) {
        // The rooms have stopped: hand them to the other nodes at once rather than
        // when their leases run out.
        keeper.abort();
        resuming::hand_over(cluster, &cluster.held()).await;
    }
    if state.config.server.end_games_on_shutdown {
        match tokio::time::timeout(STORE_CLOSE, store.interrupt_unfinished()).await {
            Ok(Ok(ended)) => info!(ended, "games in progress were ended, as the settings ask"),
            Ok(Err(error)) => {
                warn!(%error, "could not end the games in progress; the next start resumes them");
            }
            Err(_) => warn!(
                "ending the games in progress did not finish in time (a write is still waiting); the next start resumes them"
            ),
        }
    }
    if tokio::time::timeout(STORE_CLOSE, store.close())
        .await
        .is_err()
    {
        warn!("the database did not close in time (a write is still waiting); stopping anyway");
    }
    info!("stopped");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn accepted_connections_send_without_delay() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let _client = tokio::net::TcpStream::connect(address).await.unwrap();
        let (accepted, _) = listener.accept().await.unwrap();
        assert!(!accepted.nodelay().unwrap(), "off until we turn it on");
        no_delay(&accepted, &mut actix_web::dev::Extensions::new());
        assert!(accepted.nodelay().unwrap());
    }
}
