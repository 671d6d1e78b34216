//! Running the server, in three stages: building its parts (the store, the fleet when
//! `cluster.redis_url` is set, the bot pool, the rooms' hosts and the lobby, with the
//! games resumed or adopted, and the node's readiness checks), serving HTTP and
//! WebSockets on them (and the metrics on a listener of their own when
//! `server.metrics_bind` is set), and shutting down in order (rooms closed before the
//! workers they run on stop, leases handed over, the database closed last).

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::ServerHandle;
use actix_web::{App, HttpServer, web};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use crate::auth::SignIn;
use crate::bot_api::{self, Challenges, EventStreams};
use crate::config::Config;
use crate::doorstep::Doorstep;
use crate::fleet::{Fleet, NodeParts, RemoteListings};
use crate::http::{MetricsToken, OperatorToken, RulesBook};
use crate::limits::Limits;
use crate::live::LiveConnections;
use crate::lobby::{ListedElsewhere, Lobby, LobbyFeed};
use crate::metrics::Metrics;
use crate::readiness::{Readiness, WATCH_EVERY};
use crate::room::{RoomContext, RoomHosts};
use crate::store::{self, BatchStats, Claimant, Store};
use crate::thinkers::Thinkers;
use crate::ws::{ConnectionSocket, OriginPolicy};
use crate::{AppState, RunError, http, resuming, ws};

/// After the grace, how long closing the database may take before shutdown gives up on
/// it (a write stuck behind another process's lock never finishes).
const STORE_CLOSE: Duration = Duration::from_secs(2);

/// The server's parts, built and ready to serve.
pub(crate) struct Built {
    state: web::Data<AppState>,
    store: Arc<dyn Store>,
    hosts: RoomHosts,
    fleet: Option<Fleet>,
}

/// The server serving, until it is shut down.
pub(crate) struct Serving {
    built: Built,
    server: ServerHandle,
    task: JoinHandle<std::io::Result<()>>,
    /// The metrics' own listener, when `server.metrics_bind` sets one.
    metrics_server: Option<ServerHandle>,
}

/// Builds the server's parts for `config`, all stopping on `shutdown`: joins the fleet
/// (when configured) before the store is opened, and resumes the unfinished games of a
/// single server (a node of a fleet adopts them instead, as it runs).
pub(crate) async fn build(config: Config, shutdown: &CancellationToken) -> Result<Built, RunError> {
    let origins = OriginPolicy::new(&config.server.allowed_origins).map_err(RunError::Config)?;
    let sign_in = SignIn::from_config(&config.auth).await?.map(Arc::new);
    let operator = OperatorToken::from_config(&config.admin)?;
    let metrics_token = MetricsToken::from_config(&config.admin)?;
    let live = LiveConnections::default();
    tell_of_shutdown(live.clone(), shutdown.clone());
    let metrics = Arc::new(Metrics::new()?);
    let batches = BatchStats {
        moves: metrics.store_batch_moves.clone(),
        commit_seconds: metrics.store_commit_seconds.clone(),
    };
    let cluster = match &config.cluster.redis_url {
        Some(url) => Some(Fleet::join(&config.cluster, url).await?),
        None => None,
    };
    let claimant = Claimant {
        node: match &cluster {
            Some(cluster) => cluster.node().to_string(),
            None => format!("{:016x}", rand::random::<u64>()),
        },
        fleet: cluster.as_ref().map(|cluster| cluster.fleet().clone()),
        take_over: config.store.take_over,
    };
    let store = store::open(&config.store, batches, &claimant).await?;
    info!("database ready");
    if cluster.is_some() {
        metrics.register_fleet()?;
    }
    let readiness = Readiness::new(
        store.clone(),
        cluster.clone(),
        metrics.clone(),
        shutdown.clone(),
    );
    tokio::spawn(readiness.clone().watch(WATCH_EVERY));
    stop_when_taken_over(store.evicted(), readiness.clone(), shutdown.clone());
    let config = Arc::new(config);
    let thinkers = Thinkers::start(
        config.bots.thread_count(),
        config.bots.queue,
        config.bots.priority,
        config.bots.nice,
        metrics.bot_think_seconds.clone(),
    )?;
    let lobby_feed = LobbyFeed::default();
    let fenced_out = Arc::new(tokio::sync::Notify::new());
    let context = Arc::new(RoomContext {
        store: store.clone(),
        config: config.clone(),
        settings: Arc::new(config.room_settings()),
        thinkers,
        shutdown: shutdown.clone(),
        metrics: metrics.clone(),
        listing_followers: Arc::new(lobby_feed.clone()),
        fenced_out: fenced_out.clone(),
    });
    let limits = Arc::new(Limits::new(&config.limits, cluster.as_ref()));
    let hosts = RoomHosts::new(tokio::runtime::Handle::current());
    let elsewhere = cluster.as_ref().map(|_| RemoteListings::default());
    let listed_elsewhere = elsewhere
        .clone()
        .map(|listings| Arc::new(listings) as Arc<dyn ListedElsewhere>);
    let lobby = Lobby::new(context, lobby_feed, hosts.clone(), listed_elsewhere);
    let fleet = match (cluster, elsewhere) {
        (Some(cluster), Some(elsewhere)) => Some(Fleet::start(
            cluster,
            &lobby,
            elsewhere,
            NodeParts {
                store: store.clone(),
                live: live.clone(),
                metrics: metrics.clone(),
                fenced_out,
            },
            Duration::from_millis(config.limits.lobby_flush_ms),
            shutdown,
        )),
        _ => {
            resuming::resume_unfinished(store.as_ref(), &lobby).await?;
            None
        }
    };
    tokio::spawn(limits.clone().prune_until(shutdown.clone()));
    let cluster = fleet.as_ref().map(|fleet| fleet.cluster().clone());
    let events = match &cluster {
        Some(cluster) => {
            bot_api::fleet_events::across(EventStreams::default(), cluster.clone(), shutdown)
        }
        None => EventStreams::default(),
    };
    let state = web::Data::new(AppState {
        lobby,
        store: store.clone(),
        rules: RulesBook::new(&config),
        config,
        shutdown: shutdown.clone(),
        metrics,
        metrics_token,
        readiness,
        limits,
        origins,
        relay: fleet.as_ref().map(|fleet| fleet.relay().clone()),
        fleet_bans: fleet.as_ref().map(|fleet| fleet.bans().clone()),
        bot_seats: Default::default(),
        challenges: Challenges::kept_by(cluster),
        events,
        sign_in,
        live,
        operator,
    });
    Ok(Built {
        state,
        store,
        hosts,
        fleet,
    })
}

/// Tells every live connection once `shutdown` is cancelled (a connection opened later
/// finds it cancelled as it opens): each waits on its own alerts, not on the token.
fn tell_of_shutdown(live: LiveConnections, shutdown: CancellationToken) {
    tokio::spawn(async move {
        shutdown.cancelled().await;
        live.shut_down_all();
    });
}

/// Shuts the server down (`shutdown`) when another server takes its database over
/// (`evicted`), not ready from that moment: its rooms stop, and their games are the
/// other server's to go on with.
fn stop_when_taken_over(
    evicted: CancellationToken,
    readiness: Readiness,
    shutdown: CancellationToken,
) {
    tokio::spawn(async move {
        tokio::select! {
            () = evicted.cancelled() => {
                readiness.set_fenced_out(true);
                shutdown.cancel();
            }
            () = shutdown.cancelled() => {}
        }
    });
}

impl Built {
    /// Cancelled when another server has taken the database over from this one.
    pub(crate) fn evicted(&self) -> CancellationToken {
        self.store.evicted()
    }
}

/// Serves HTTP and WebSockets on `listener` with `built`'s parts, and the metrics on a
/// listener of their own when `server.metrics_bind` sets one.
pub(crate) fn serve(built: Built, listener: TcpListener) -> Result<Serving, RunError> {
    let address = listener.local_addr()?;
    let metrics_bind = built.state.config.server.metrics_bind;
    let metrics_server = match metrics_bind {
        Some(bind) => Some(serve_metrics(built.state.clone(), bind)?),
        None => None,
    };
    let (state, hosts) = (built.state.clone(), built.hosts.clone());
    let server = HttpServer::new(move || {
        // Called on each worker thread as it starts: the rooms its clients create run
        // there, and the game log leaves its answers to them at the thread's doorstep.
        hosts.enlist_this_thread();
        Doorstep::open_here();
        App::new()
            .wrap(http::security_headers())
            .app_data(state.clone())
            .route("/ws", web::get().to(ws::upgrade))
            .configure(|routes| http::routes(routes, metrics_bind.is_none()))
    })
    .on_connect(on_connect)
    .disable_signals()
    .shutdown_timeout(5)
    .listen(listener)?
    .run();
    let handle = server.handle();
    info!("listening on http://{address}");
    Ok(Serving {
        built,
        server: handle,
        task: tokio::spawn(server),
        metrics_server,
    })
}

/// Serves `GET /metrics`, and nothing else, on `bind` (`server.metrics_bind`), on one
/// worker of its own; stopped by [`shut_down`] once everything else has.
fn serve_metrics(state: web::Data<AppState>, bind: SocketAddr) -> Result<ServerHandle, RunError> {
    let server = HttpServer::new(move || {
        App::new()
            .wrap(http::security_headers())
            .app_data(state.clone())
            .configure(http::metrics_route)
    })
    .workers(1)
    .disable_signals()
    .shutdown_timeout(1)
    .bind(bind)
    .map_err(|error| {
        RunError::Config(format!(
            "could not listen for the metrics on server.metrics_bind = {bind}: {error}"
        ))
    })?;
    for address in server.addrs() {
        info!("serving the metrics on http://{address}/metrics");
    }
    let server = server.run();
    let handle = server.handle();
    tokio::spawn(server);
    Ok(handle)
}

/// Shuts the server down in order, within `server.shutdown_grace_secs`: stops
/// accepting, lets the rooms close (they close on the shutdown signal), only then stops
/// the HTTP workers they run on, leaves the fleet, ends the games in progress if the
/// settings ask, and closes the database.
pub(crate) async fn shut_down(serving: Serving) {
    let Serving {
        built,
        server,
        mut task,
        metrics_server,
    } = serving;
    let state = &built.state;
    let grace = Duration::from_secs(state.config.server.shutdown_grace_secs);
    info!(grace_secs = grace.as_secs(), "shutting down");
    let deadline = tokio::time::Instant::now() + grace;
    // Rooms run on the HTTP workers, which drop them when they stop: stop accepting,
    // let the rooms close, and only then stop the workers.
    server.pause().await;
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
        server.stop(true).await;
        (&mut task).await
    };
    match tokio::time::timeout_at(deadline, stopped).await {
        Ok(Ok(Ok(()))) => {}
        Ok(Ok(Err(error))) => warn!(%error, "the HTTP server failed while stopping"),
        Ok(Err(error)) => warn!(%error, "the HTTP server task ended abnormally"),
        Err(_) => {
            warn!("connections were still open when the shutdown grace ran out");
            task.abort();
        }
    }
    if let Some(metrics_server) = metrics_server {
        metrics_server.stop(false).await;
    }
    if let Some(fleet) = built.fleet {
        fleet.leave().await;
    }
    let store = built.store;
    // Games another server has taken over are that server's to end.
    if state.config.server.end_games_on_shutdown && !store.evicted().is_cancelled() {
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
