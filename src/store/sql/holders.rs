//! Who holds a PostgreSQL database: the registry of servers (`servers`, migration 0011),
//! checked as a server starts and kept while it runs.
//!
//! A server registers in one transaction, serialised with every other registration by a
//! transaction-scoped advisory lock: it reads the rows, asks PostgreSQL which of them are
//! alive (a live server's session holds a session-level advisory lock keyed by its node
//! id, which PostgreSQL releases however that server ends), deletes the dead ones, and
//! refuses to start beside live servers it may not share the database with: a single
//! server shares it with no one, a node of a fleet only with nodes of the same fleet.
//! With `--take-over-database` it deletes their rows instead and then waits until they
//! let go: each holder beats every second through its own session and, finding its row
//! gone, gives its games up (its store's `evicted` signal) and closes that session.
//!
//! On top of the registry a server takes the schema's server lock as before: exclusive
//! for a single server, shared for a fleet's nodes, so that no server of an older
//! version, which knows nothing of the registry, can share the database either.

use std::fmt::Write as _;
use std::time::Duration;

use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::{error, info, warn};

use crate::store::StoreError;
use crate::store::claimant::Claimant;

/// Serialises registrations: two servers starting at once never both find the database
/// free.
const REGISTRATION_LOCK: &str =
    "SELECT pg_advisory_xact_lock(1885434483, hashtext(current_schema()))";

/// Takes (`$1` being a node id) the lock that proves that node's server alive; whether
/// it was free. A server takes its own for as long as it runs; another takes a row's
/// only to find out whether its server is gone, and lets go at once.
const TRY_NODE_LOCK: &str = "SELECT pg_try_advisory_lock(hashtextextended('parlor-node:' || current_schema() || ':' || $1, 0))";

/// Lets go of a node's lock taken with [`TRY_NODE_LOCK`].
const NODE_UNLOCK: &str = "SELECT pg_advisory_unlock(hashtextextended('parlor-node:' || current_schema() || ':' || $1, 0))";

/// The schema's server lock, as a single server takes it: no other server at all.
const SINGLE_SERVER_LOCK: &str =
    "SELECT pg_try_advisory_lock(1885434482, hashtext(current_schema()))";

/// The schema's server lock, as a fleet's node takes it: other nodes, no single server.
const FLEET_NODE_LOCK: &str =
    "SELECT pg_try_advisory_lock_shared(1885434482, hashtext(current_schema()))";

/// The database's clock, in ms since the Unix epoch: every server's beats are read
/// against one clock, whatever the machines' clocks say.
const NOW_MS: &str = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

/// How often a server beats.
const BEAT_EVERY: Duration = Duration::from_secs(1);

/// How long one beat (or one attempt to reconnect) may take before the session is
/// taken for broken.
const BEAT_DEADLINE: Duration = Duration::from_secs(3);

/// How long a take-over waits for the servers it displaced to let go.
const TAKE_OVER_PATIENCE: Duration = Duration::from_secs(30);

/// Keep-alives PostgreSQL sends on the holding session, so that it ends (and a dead
/// server's locks go) within about 20 s of the server's machine vanishing, not after
/// the kernel's two hours.
const KEEPALIVES: &[&str] = &[
    "SET tcp_keepalives_idle = 10",
    "SET tcp_keepalives_interval = 5",
    "SET tcp_keepalives_count = 2",
];

/// One row of the registry.
#[derive(Debug, sqlx::FromRow)]
struct Registered {
    node_id: String,
    fleet: Option<String>,
    coordinator: Option<String>,
    host: String,
    pid: i64,
    backend_pid: i64,
    heartbeat_ms: i64,
}

impl Registered {
    /// May a server like `claimant` run beside this live one?
    fn may_share_with(&self, claimant: &Claimant) -> bool {
        match (&claimant.fleet, &self.fleet) {
            (Some(mine), Some(theirs)) => mine.id == *theirs,
            _ => false,
        }
    }

    /// The row as an operator reads it, its last beat counted back from `now_ms`.
    fn describe(&self, now_ms: i64) -> String {
        let what = match &self.coordinator {
            Some(coordinator) => format!("a node of the fleet coordinating through {coordinator}"),
            None => "a single server".to_owned(),
        };
        let ago = (now_ms - self.heartbeat_ms).max(0) as f64 / 1000.0;
        format!(
            "{what} (node {}, process {} on {}, PostgreSQL session {}, last beat {ago:.1} s ago)",
            self.node_id, self.pid, self.host, self.backend_pid
        )
    }
}

/// The live servers a claimant may not run beside, as an operator reads them.
fn describe_all(rows: &[Registered], now_ms: i64) -> String {
    let mut text = String::new();
    for (index, row) in rows.iter().enumerate() {
        let separator = if index == 0 { "" } else { "; " };
        let _ = write!(text, "{separator}{}", row.describe(now_ms));
    }
    text
}

/// This server's hold on the database: its session, beating in a task of its own.
/// Released (its row deleted, its session closed) by [`Holding::release`]; dropped
/// without that (as in a crash), the session closes, PostgreSQL lets go of its locks,
/// and the next server to start deletes its row.
#[derive(Debug)]
pub(super) struct Holding {
    stop: CancellationToken,
    evicted: CancellationToken,
    beating: Option<JoinHandle<()>>,
}

impl Drop for Holding {
    fn drop(&mut self) {
        if let Some(beating) = &self.beating {
            beating.abort();
        }
    }
}

impl Holding {
    /// Registers `claimant` and takes the server lock, through a session of its own
    /// opened with `options` (the database named `place` in errors); the schema must be
    /// up to date. Refuses with [`StoreError::HeldByOthers`] if servers it may not run
    /// beside are alive, unless the claimant takes the database over: then it waits
    /// until they let go ([`StoreError::TakeOverStalled`] if they do not).
    pub(super) async fn take(
        mut session: PgConnection,
        options: PgConnectOptions,
        claimant: &Claimant,
        place: &str,
    ) -> Result<Holding, StoreError> {
        for statement in KEEPALIVES {
            sqlx::query(statement).execute(&mut session).await?;
        }
        let displaced = register(&mut session, claimant, place).await?;
        if !displaced.is_empty() {
            wait_until_gone(&mut session, &displaced, place).await?;
        }
        let lock = match claimant.fleet {
            Some(_) => FLEET_NODE_LOCK,
            None => SINGLE_SERVER_LOCK,
        };
        let locked: bool = sqlx::query_scalar(lock).fetch_one(&mut session).await?;
        if !locked {
            let _ = unregister(&mut session, &claimant.node).await;
            return Err(StoreError::DatabaseInUse {
                place: place.to_owned(),
            });
        }
        let (stop, evicted) = (CancellationToken::new(), CancellationToken::new());
        let beating = tokio::spawn(beat(
            session,
            options,
            claimant.clone(),
            stop.clone(),
            evicted.clone(),
        ));
        Ok(Holding {
            stop,
            evicted,
            beating: Some(beating),
        })
    }

    /// Cancelled when another server has taken the database over from this one.
    pub(super) fn evicted(&self) -> CancellationToken {
        self.evicted.clone()
    }

    /// Deletes this server's row and closes its session.
    pub(super) async fn release(mut self) {
        self.stop.cancel();
        if let Some(beating) = self.beating.take()
            && let Err(error) = beating.await
        {
            warn!(%error, "the database registry's task ended abnormally");
        }
    }
}

/// Registers `claimant` in one transaction; returns the live servers it displaced (only
/// when it takes the database over).
async fn register(
    session: &mut PgConnection,
    claimant: &Claimant,
    place: &str,
) -> Result<Vec<Registered>, StoreError> {
    let mut transaction = session.begin().await?;
    sqlx::query(REGISTRATION_LOCK)
        .execute(&mut *transaction)
        .await?;
    let now_ms: i64 = sqlx::query_scalar(&format!("SELECT {NOW_MS}"))
        .fetch_one(&mut *transaction)
        .await?;
    let rows: Vec<Registered> = sqlx::query_as(
        "SELECT node_id, fleet, coordinator, host, pid, backend_pid, heartbeat_ms FROM servers",
    )
    .fetch_all(&mut *transaction)
    .await?;
    let mut conflicting = Vec::new();
    for row in rows {
        if is_alive(&mut transaction, &row.node_id).await? {
            if !row.may_share_with(claimant) {
                conflicting.push(row);
            }
        } else {
            sqlx::query("DELETE FROM servers WHERE node_id = $1")
                .bind(&row.node_id)
                .execute(&mut *transaction)
                .await?;
        }
    }
    if !conflicting.is_empty() {
        let holders = describe_all(&conflicting, now_ms);
        if !claimant.take_over {
            return Err(StoreError::HeldByOthers {
                place: place.to_owned(),
                claimant: claimant.to_string(),
                holders,
            });
        }
        warn!(
            database = place,
            %holders,
            "taking the database over, as --take-over-database asks: these servers give up their games and stop"
        );
        for row in &conflicting {
            sqlx::query("DELETE FROM servers WHERE node_id = $1")
                .bind(&row.node_id)
                .execute(&mut *transaction)
                .await?;
        }
    }
    sqlx::query(&format!(
        "INSERT INTO servers (node_id, fleet, coordinator, host, pid, backend_pid, started_at_ms, heartbeat_ms)
         VALUES ($1, $2, $3, coalesce(host(inet_client_addr()), 'a local socket'), $4, pg_backend_pid(), {NOW_MS}, {NOW_MS})"
    ))
    .bind(&claimant.node)
    .bind(claimant.fleet.as_ref().map(|fleet| fleet.id.as_str()))
    .bind(claimant.fleet.as_ref().map(|fleet| fleet.coordinator.as_str()))
    .bind(i64::from(std::process::id()))
    .execute(&mut *transaction)
    .await?;
    let mine: bool = sqlx::query_scalar(TRY_NODE_LOCK)
        .bind(&claimant.node)
        .fetch_one(&mut *transaction)
        .await?;
    if !mine {
        return Err(StoreError::DatabaseInUse {
            place: place.to_owned(),
        });
    }
    transaction.commit().await?;
    Ok(conflicting)
}

/// Whether the server registered as `node` is alive: its session still holds its lock.
async fn is_alive(connection: &mut PgConnection, node: &str) -> Result<bool, StoreError> {
    let free: bool = sqlx::query_scalar(TRY_NODE_LOCK)
        .bind(node)
        .fetch_one(&mut *connection)
        .await?;
    if free {
        sqlx::query(NODE_UNLOCK)
            .bind(node)
            .execute(&mut *connection)
            .await?;
    }
    Ok(!free)
}

/// Waits until every server in `displaced` has let go of the database, polling their
/// locks; fails after [`TAKE_OVER_PATIENCE`].
async fn wait_until_gone(
    session: &mut PgConnection,
    displaced: &[Registered],
    place: &str,
) -> Result<(), StoreError> {
    let deadline = tokio::time::Instant::now() + TAKE_OVER_PATIENCE;
    let mut remaining: Vec<&Registered> = displaced.iter().collect();
    loop {
        let mut still = Vec::new();
        for row in remaining {
            if is_alive(session, &row.node_id).await? {
                still.push(row);
            }
        }
        if still.is_empty() {
            info!(
                database = place,
                "the displaced servers have let go of the database"
            );
            return Ok(());
        }
        if tokio::time::Instant::now() >= deadline {
            let now_ms: i64 = sqlx::query_scalar(&format!("SELECT {NOW_MS}"))
                .fetch_one(&mut *session)
                .await?;
            let rows: Vec<Registered> = still
                .into_iter()
                .map(|row| Registered {
                    node_id: row.node_id.clone(),
                    fleet: row.fleet.clone(),
                    coordinator: row.coordinator.clone(),
                    host: row.host.clone(),
                    pid: row.pid,
                    backend_pid: row.backend_pid,
                    heartbeat_ms: row.heartbeat_ms,
                })
                .collect();
            return Err(StoreError::TakeOverStalled {
                place: place.to_owned(),
                holders: describe_all(&rows, now_ms),
            });
        }
        remaining = still;
        // The displaced servers find out at their next beat; there is nothing to wait
        // on but their locks.
        tokio::time::sleep(BEAT_EVERY / 4).await;
    }
}

/// Deletes `node`'s row.
async fn unregister(session: &mut PgConnection, node: &str) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM servers WHERE node_id = $1")
        .bind(node)
        .execute(session)
        .await?;
    Ok(())
}

/// What one beat found.
enum Beat {
    /// The row is there.
    Held,
    /// The row is gone: another server took the database over.
    Evicted,
}

/// Beats once through `session`.
async fn beat_once(session: &mut PgConnection, node: &str) -> Result<Beat, StoreError> {
    let updated = sqlx::query(&format!(
        "UPDATE servers SET heartbeat_ms = {NOW_MS} WHERE node_id = $1"
    ))
    .bind(node)
    .execute(session)
    .await?;
    Ok(if updated.rows_affected() == 0 {
        Beat::Evicted
    } else {
        Beat::Held
    })
}

/// Opens a new session for a server whose session broke, and takes its locks again if
/// its row is still there; `None` (and the session closed) if it is not.
async fn rejoin(
    options: &PgConnectOptions,
    claimant: &Claimant,
) -> Result<Option<PgConnection>, StoreError> {
    let mut session = PgConnection::connect_with(options).await?;
    for statement in KEEPALIVES {
        sqlx::query(statement).execute(&mut session).await?;
    }
    if let Beat::Evicted = beat_once(&mut session, &claimant.node).await? {
        let _ = session.close().await;
        return Ok(None);
    }
    let lock = match claimant.fleet {
        Some(_) => FLEET_NODE_LOCK,
        None => SINGLE_SERVER_LOCK,
    };
    for statement in [TRY_NODE_LOCK, lock] {
        let mut query = sqlx::query_scalar::<_, bool>(statement);
        if statement == TRY_NODE_LOCK {
            query = query.bind(&claimant.node);
        }
        if !query.fetch_one(&mut session).await? {
            // The old session has not ended yet (or another server took the lock):
            // tried again at the next beat.
            let _ = session.close().await;
            return Err(StoreError::ConnectionLost {
                reason: "the previous session still holds this server's locks".to_owned(),
            });
        }
    }
    Ok(Some(session))
}

/// Beats every [`BEAT_EVERY`] through `session` until `stop` (then deletes the row and
/// closes the session) or until the row is found gone (then cancels `evicted`). A broken
/// session is opened again with `options`.
async fn beat(
    session: PgConnection,
    options: PgConnectOptions,
    claimant: Claimant,
    stop: CancellationToken,
    evicted: CancellationToken,
) {
    let mut session = Some(session);
    let mut failing = false;
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            () = tokio::time::sleep(BEAT_EVERY) => {}
        }
        let outcome = match session.as_mut() {
            Some(open) => tokio::time::timeout(BEAT_DEADLINE, beat_once(open, &claimant.node))
                .await
                .map(|beat| beat.map(Some)),
            None => tokio::time::timeout(BEAT_DEADLINE, rejoin(&options, &claimant))
                .await
                .map(|rejoined| {
                    rejoined.map(|found| {
                        session = found;
                        session.as_ref().map(|_| Beat::Held)
                    })
                }),
        };
        match outcome {
            Ok(Ok(Some(Beat::Held))) => {
                if failing {
                    info!("this server's hold on the database is beating again");
                    failing = false;
                }
            }
            Ok(Ok(None | Some(Beat::Evicted))) => {
                error!(
                    node = %claimant.node,
                    "another server took this database over (--take-over-database): this server gives up its games and stops"
                );
                evicted.cancel();
                if let Some(open) = session.take() {
                    let _ = open.close().await;
                }
                return;
            }
            Ok(Err(error)) => {
                if !failing {
                    warn!(%error, "could not renew this server's hold on the database; trying again");
                    failing = true;
                }
                session = None;
            }
            Err(_) => {
                if !failing {
                    warn!(
                        "renewing this server's hold on the database did not finish in time; trying again"
                    );
                    failing = true;
                }
                session = None;
            }
        }
    }
    if let Some(mut open) = session.take() {
        let gone = tokio::time::timeout(BEAT_DEADLINE, unregister(&mut open, &claimant.node));
        if !matches!(gone.await, Ok(Ok(()))) {
            warn!(
                "could not delete this server's row in the database's registry; the next server to start finds it dead"
            );
        }
        let _ = open.close().await;
    }
}

#[cfg(test)]
mod tests;
