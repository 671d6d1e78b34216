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

mod alerts;
mod auth;
mod bans;
mod bot_api;
pub mod config;
mod doorstep;
mod fleet;
mod http;
#[cfg(test)]
mod layering;
mod limits;
mod live;
mod lobby;
mod metrics;
mod players;
pub mod protocol;
mod readiness;
mod resuming;
mod room;
#[cfg(test)]
mod rules_as_json;
mod run;
mod store;
mod thinkers;
mod thread_priority;
mod ws;

pub use metrics::MetricsError;
pub use store::StoreError;

use std::net::TcpListener;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::auth::{AuthSetupError, SignIn};
use crate::config::Config;
use crate::fleet::{ClusterError, FleetBans, Relay};
use crate::http::{AdminSetupError, MetricsToken, OperatorToken, RulesBook};
use crate::limits::Limits;
use crate::live::LiveConnections;
use crate::lobby::Lobby;
use crate::metrics::Metrics;
use crate::readiness::Readiness;
use crate::store::Store;
use crate::ws::OriginPolicy;

/// What every HTTP handler and WebSocket session shares.
pub(crate) struct AppState {
    /// The live rooms.
    pub(crate) lobby: Lobby,
    /// Durable storage.
    pub(crate) store: Arc<dyn Store>,
    /// The configuration the server runs with.
    pub(crate) config: Arc<Config>,
    /// Each game's rules for players, under this configuration (`GET /api/rules/{game}`).
    pub(crate) rules: RulesBook,
    /// Cancelled when the server shuts down.
    pub(crate) shutdown: CancellationToken,
    /// What `GET /metrics` reports.
    pub(crate) metrics: Arc<Metrics>,
    /// The token `GET /metrics` asks for, when `[admin] metrics_token` sets one.
    pub(crate) metrics_token: Option<MetricsToken>,
    /// Whether this node can serve new players (`GET /readyz`), and its fleet id.
    pub(crate) readiness: Readiness,
    /// What one connection, one address or the whole server may ask for.
    pub(crate) limits: Arc<Limits>,
    /// Which pages may open a WebSocket.
    pub(crate) origins: OriginPolicy,
    /// How this node's clients reach rooms on other nodes of its fleet, if it is in one.
    pub(crate) relay: Option<Relay>,
    /// Sign-in through the site's accounts, when `[auth]` configures it.
    pub(crate) sign_in: Option<Arc<SignIn>>,
    /// This node's live connections, as the operator sees them.
    pub(crate) live: LiveConnections,
    /// The operator's token, when `[admin]` sets one.
    pub(crate) operator: Option<OperatorToken>,
    /// How this node tells the rest of its fleet of a ban, if it is in one.
    pub(crate) fleet_bans: Option<FleetBans>,
    /// The seats the Bot API's game streams hold.
    pub(crate) bot_seats: bot_api::BotSeats,
    /// The Bot API's challenges kept on this node.
    pub(crate) challenges: bot_api::Challenges,
    /// The Bot API's event streams open on this node.
    pub(crate) events: bot_api::EventStreams,
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
    /// Sign-in through the site's accounts (`[auth]`) could not be set up.
    #[error("could not set up sign-in ([auth]): {0}")]
    Auth(#[from] AuthSetupError),
    /// Another server took the database over (`--take-over-database`); this one gave
    /// up its games and stopped.
    #[error(
        "another server took the database over (it was started with --take-over-database); this server gave up its games and stopped. Start it again only as a node of the fleet that holds the database now"
    )]
    TakenOver,
    /// The operator's controls (`[admin]`) could not be set up.
    #[error("could not set up the operator controls ([admin]): {0}")]
    Admin(#[from] AdminSetupError),
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
/// them. The three stages are `run`'s: build, serve, shut down.
pub async fn run(
    config: Config,
    listener: TcpListener,
    shutdown: CancellationToken,
) -> Result<(), RunError> {
    let built = run::build(config, &shutdown).await?;
    let evicted = built.evicted();
    let serving = run::serve(built, listener)?;
    shutdown.cancelled().await;
    run::shut_down(serving).await;
    if evicted.is_cancelled() {
        return Err(RunError::TakenOver);
    }
    Ok(())
}
