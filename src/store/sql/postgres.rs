//! The PostgreSQL store, for a fleet of nodes sharing one database: the connection pool,
//! and the engine code of `engine/` compiled for PostgreSQL.
//!
//! `store.url` is a libpq-style URL (`postgres://user:password@host:port/database`, with
//! `?sslmode=…` or `?options=-c%20search_path%3D…` when needed). It may hold a password,
//! so it is never logged: errors name the host, port and database only.

use std::str::FromStr;
use std::time::Duration;

use std::future::Future;

use sqlx::postgres::{PgConnectOptions, PgConnection, PgPoolOptions};
use sqlx::{Connection, PgPool};

use tokio_util::sync::CancellationToken;

use super::BatchStats;
use super::holders::Holding;
use super::log_connection::LogHost;
use super::lost_sessions::LostSessions;
use super::placeholders::Placeholders;
use crate::store::StoreError;
use crate::store::claimant::Claimant;

#[allow(
    clippy::duplicate_mod,
    reason = "the engine code is compiled once per engine, with that engine's `Db`"
)]
#[path = "engine/mod.rs"]
mod engine;

pub(super) use self::engine::SqlStore;

/// The locking clause of a fenced `INSERT … SELECT … JOIN games g`: the game rows are
/// share-locked until the commit, so a new owner's take-over (an `UPDATE` of the token)
/// waits for the moves being written under the old token and then reads them.
const ROW_SHARE_LOCK: &str = " FOR SHARE OF g";

/// The same for a plain read of a game's token.
const ROW_SHARE_LOCK_PLAIN: &str = " FOR SHARE";

/// The database `engine/` is compiled for here.
type Db = sqlx::Postgres;

/// A connection to it (named, not projected from `Db`, so that trait impls for it are
/// told apart from those for other connection types).
type DbConnection = PgConnection;

/// How statements generated per batch write their parameters on PostgreSQL.
const PLACEHOLDERS: Placeholders = Placeholders::Numbered;

/// Taken by every transaction that rates games, before it reads the ratings: processes
/// sharing the database rate one batch of endings at a time, so two games finishing at
/// once never both start from a player's old rating. A transaction-scoped advisory lock,
/// released by the commit or the rollback, waited for at most 5 s (then the batch fails
/// rather than stalling behind a process that hangs while holding it); the key is
/// arbitrary but fixed.
const RATINGS_LOCK: &[&str] = &[
    "SET LOCAL lock_timeout = '5s'",
    "SELECT pg_advisory_xact_lock(7070162737393745409)",
];

/// Taken by the one-time recompute of the ratings when a node opens an older database
/// (`engine/rerating.rs`): the same lock as [`RATINGS_LOCK`], waited for without a time
/// limit, so that a node starting while another recomputes waits for it and then finds
/// the work done.
const RERATING_LOCK: &[&str] = &["SELECT pg_advisory_xact_lock(7070162737393745409)"];

/// PostgreSQL's default isolation gives each statement its own snapshot; a read of
/// several tables asks for one.
const READ_SNAPSHOT: Option<&str> = Some("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");

/// What keeps other servers off the database: this server's registration and its
/// session holding the server lock (`holders`).
type ExclusiveHold = Holding;

/// Whoever took the database over from this server has cancelled this.
fn hold_evicted(hold: &ExclusiveHold) -> CancellationToken {
    hold.evicted()
}

/// Deletes this server's registration and closes the session holding its locks.
async fn release_hold(hold: ExclusiveHold) {
    hold.release().await;
}

/// Connections each node keeps to PostgreSQL for the store: the move writer holds one,
/// and reads and other writes share the rest. One more holds the server's lock.
const MAX_CONNECTIONS: u32 = 10;

/// The database session serving a connection, told apart from a later one that reuses
/// its process id by when it started.
const SESSION_OF: Option<&str> =
    Some("SELECT pid, backend_start::text FROM pg_stat_activity WHERE pid = pg_backend_pid()");

/// Ends a session given up mid-write, if it still runs, waiting up to 1 s for it to go;
/// then says whether it is gone. Matched on its start time too, so that a later session
/// that took its process id is never ended.
const END_SESSION: &str = "SELECT pg_terminate_backend(pid, 1000) FROM pg_stat_activity \
                           WHERE pid = $1 AND backend_start::text = $2";

/// Whether a session still runs.
const SESSION_RUNS: &str =
    "SELECT COUNT(*) FROM pg_stat_activity WHERE pid = $1 AND backend_start::text = $2";

/// Ends every session of `lost` that may still be writing a batch given up mid-write,
/// and strikes off each seen gone; fails while one still runs (to be tried again), or
/// while the database cannot be reached. Once it succeeds, no batch given up before can
/// still commit, so what is stored is final.
async fn end_sessions(pool: &PgPool, lost: &LostSessions) -> Result<(), StoreError> {
    for session in lost.pending() {
        let mut conn = pool.acquire().await?;
        sqlx::query(END_SESSION)
            .bind(session.pid)
            .bind(&session.started)
            .execute(&mut *conn)
            .await?;
        let running: i64 = sqlx::query_scalar(SESSION_RUNS)
            .bind(session.pid)
            .bind(&session.started)
            .fetch_one(&mut *conn)
            .await?;
        if running > 0 {
            return Err(StoreError::ConnectionLost {
                reason: format!(
                    "the database session {} given up mid-write has not ended yet",
                    session.pid
                ),
            });
        }
        lost.ended(&session);
    }
    Ok(())
}

/// The settings every store connection gives its database session, so that the server
/// frees what a client that stopped answering held: a statement or an idle transaction
/// longer than the deadline is ended (its locks released), and TCP keepalives find a
/// client that is gone within about 11 s.
fn session_settings(deadline: Duration) -> [(&'static str, String); 5] {
    let millis = deadline.as_millis().to_string();
    [
        ("statement_timeout", millis.clone()),
        ("idle_in_transaction_session_timeout", millis),
        ("tcp_keepalives_idle", "5".to_owned()),
        ("tcp_keepalives_interval", "2".to_owned()),
        ("tcp_keepalives_count", "3".to_owned()),
    ]
}

/// Checks, as a connection goes back to the pool, that it still answers within
/// `deadline`; one that does not (its last statement's future was dropped at a deadline,
/// and the database stopped answering) is closed, never handed out again.
fn answers_within(
    deadline: Duration,
) -> impl for<'c> Fn(
    &'c mut PgConnection,
    sqlx::pool::PoolConnectionMetadata,
) -> futures_util::future::BoxFuture<'c, Result<bool, sqlx::Error>>
+ Send
+ Sync
+ 'static {
    move |conn, _| {
        Box::pin(async move {
            match tokio::time::timeout(deadline, conn.ping()).await {
                Ok(answered) => answered.map(|()| true),
                Err(_) => Err(sqlx::Error::PoolTimedOut),
            }
        })
    }
}

/// The game log's writer on PostgreSQL: a tokio task, writing through a connection it
/// takes out of the store's pool (a connection returned to the pool and taken again
/// would cost a round trip each time), each batch within `deadline`.
struct PoolLog {
    pool: PgPool,
    deadline: Duration,
}

impl LogHost for PoolLog {
    type Connection = PgConnection;

    fn deadline(&self) -> Option<Duration> {
        Some(self.deadline)
    }

    async fn connect(&self) -> Result<PgConnection, StoreError> {
        Ok(self.pool.acquire().await?.detach())
    }

    async fn disconnect(connection: PgConnection) {
        if let Err(error) = connection.close().await {
            tracing::warn!(%error, "the move writer's connection did not close cleanly");
        }
    }

    fn spawn(writer: impl Future<Output = ()> + Send + 'static) -> Result<(), StoreError> {
        tokio::spawn(writer);
        Ok(())
    }

    async fn yield_to_rooms() {
        // The writer is a task of the runtime: its place goes to the tasks ready on the
        // same worker (rooms whose moves arrived meanwhile).
        tokio::task::yield_now().await;
    }
}

impl SqlStore {
    /// Connects to the PostgreSQL database at `url` as `claimant` (registered in the
    /// database's registry of servers, see `holders`), brings its schema up to date and
    /// starts the move writer. Moves are written in batches (see `engine/batch.rs`),
    /// counted in `stats`; every wait on the database lasts at most `write_timeout_ms`.
    pub(super) async fn open(
        url: &str,
        stats: BatchStats,
        claimant: &Claimant,
        write_timeout_ms: u64,
    ) -> Result<SqlStore, StoreError> {
        let scheme = url.split_once("://").map(|(scheme, _)| scheme);
        if !matches!(scheme, Some("postgres" | "postgresql")) {
            return Err(StoreError::BadUrl {
                reason: "it must start with postgres:// or postgresql://".to_owned(),
            });
        }
        let options = PgConnectOptions::from_str(url).map_err(|error| {
            // sqlx's message names what is wrong without repeating the URL.
            StoreError::BadUrl {
                reason: error.to_string(),
            }
        })?;
        let deadline = Duration::from_millis(write_timeout_ms);
        SqlStore::open_with(options, stats, claimant, deadline).await
    }

    /// Like [`SqlStore::open`], with the connection's options already parsed.
    pub(super) async fn open_with(
        options: PgConnectOptions,
        stats: BatchStats,
        claimant: &Claimant,
        deadline: Duration,
    ) -> Result<SqlStore, StoreError> {
        let place = format!(
            "{}:{}/{}",
            options.get_host(),
            options.get_port(),
            options.get_database().unwrap_or("(the user's database)")
        );
        let unreachable = |source| StoreError::Unreachable {
            place: place.clone(),
            source,
        };
        let session = PgConnection::connect_with(&options)
            .await
            .map_err(unreachable)?;
        // The schema is brought up to date through connections of its own, without the
        // deadline: a migration, or the one-time recompute of the ratings waiting for
        // another node's, may take longer.
        let setup = PgPoolOptions::new()
            .max_connections(2)
            .connect_with(options.clone())
            .await
            .map_err(unreachable)?;
        // The registry is a table of the schema: a database that has none yet is
        // brought up to date first (no server of this version holds it).
        let registry = async {
            let exists: bool = sqlx::query_scalar("SELECT to_regclass('servers') IS NOT NULL")
                .fetch_one(&setup)
                .await?;
            if !exists {
                engine::MIGRATOR.run(&setup).await?;
            }
            Holding::take(session, options.clone(), claimant, &place).await
        };
        let hold = match registry.await {
            Ok(hold) => hold,
            Err(error) => {
                setup.close().await;
                return Err(error);
            }
        };
        let pool = match PgPoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            .acquire_timeout(deadline)
            .after_release(answers_within(deadline))
            .connect_with(options.options(session_settings(deadline)))
            .await
        {
            Ok(pool) => pool,
            Err(error) => {
                hold.release().await;
                setup.close().await;
                return Err(unreachable(error));
            }
        };
        let log = PoolLog {
            pool: pool.clone(),
            deadline,
        };
        let started = SqlStore::start(pool, &setup, hold, stats, log).await;
        setup.close().await;
        let store = started?;
        tracing::info!(database = %place, "connected to PostgreSQL");
        Ok(store)
    }
}

#[cfg(test)]
pub(super) use self::test_db::TestDb;

#[cfg(test)]
mod test_db {
    //! A fresh schema per test in the database `PARLOR_TEST_POSTGRES_URL` names, dropped
    //! when the test ends.

    use std::str::FromStr;

    use sqlx::postgres::PgConnectOptions;

    use super::SqlStore;
    use crate::store::StoreError;
    use crate::store::sql::BatchStats;
    use parlor_testkit::scratch_schema::ScratchSchema;

    /// One test's own schema.
    pub(crate) struct TestDb {
        schema: ScratchSchema,
    }

    impl TestDb {
        /// A new empty schema, or `None` (said loudly) when no test database is named
        /// outside CI; under CI that fails the test instead.
        pub(crate) async fn new() -> Option<TestDb> {
            let schema = ScratchSchema::for_test("a PostgreSQL store test", "parlor_test").await?;
            Some(TestDb { schema })
        }

        /// A plain pool on this schema, without the store: what a test that sets an
        /// older schema up before the store opens writes through.
        pub(crate) async fn raw_pool(&self) -> sqlx::PgPool {
            let options =
                PgConnectOptions::from_str(&self.schema.store_url()).expect("a PostgreSQL URL");
            sqlx::PgPool::connect_with(options)
                .await
                .expect("connect to PostgreSQL")
        }

        /// A connection of the game log writer's own kind, where that differs from the
        /// pool's: never on PostgreSQL, whose writer writes through a pooled one.
        pub(crate) async fn writer_connection(&self) -> Option<sqlx::PgConnection> {
            None
        }

        /// The store in this schema, its batches counted in `stats`.
        pub(crate) async fn open_with(&self, stats: BatchStats) -> SqlStore {
            self.try_open(stats)
                .await
                .expect("open the PostgreSQL store")
        }

        /// Opens the store in this schema as a single server, or says why not.
        pub(crate) async fn try_open(&self, stats: BatchStats) -> Result<SqlStore, StoreError> {
            self.try_open_as(stats, &crate::store::Claimant::single())
                .await
        }

        /// Opens the store in this schema as `claimant`, or says why not.
        pub(crate) async fn try_open_as(
            &self,
            stats: BatchStats,
            claimant: &crate::store::Claimant,
        ) -> Result<SqlStore, StoreError> {
            let options =
                PgConnectOptions::from_str(&self.schema.store_url()).expect("a PostgreSQL URL");
            SqlStore::open_with(options, stats, claimant, std::time::Duration::from_secs(3)).await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::TestDb;
    use crate::store::StoreError;
    use crate::store::sql::BatchStats;

    #[tokio::test]
    async fn a_second_server_on_the_same_schema_is_refused_until_the_first_closes() {
        let Some(db) = TestDb::new().await else {
            return;
        };
        let first = db.open_with(BatchStats::unreported()).await;
        match db.try_open(BatchStats::unreported()).await {
            Err(StoreError::HeldByOthers { place, holders, .. }) => {
                assert!(
                    place.contains("127.0.0.1") || place.contains("localhost"),
                    "{place}"
                );
                assert!(holders.starts_with("a single server (node "), "{holders}");
            }
            other => panic!("expected HeldByOthers, got {:?}", other.map(|_| ())),
        }
        let elsewhere = TestDb::new().await.expect("a second schema");
        let other = elsewhere.open_with(BatchStats::unreported()).await;
        crate::store::Store::close(&other).await;
        crate::store::Store::close(&first).await;
        let again = db.open_with(BatchStats::unreported()).await;
        crate::store::Store::close(&again).await;
    }

    #[tokio::test]
    async fn a_url_that_is_not_postgres_is_refused_without_repeating_it() {
        let error = super::SqlStore::open(
            "sqlite://secret@data/parlor.db",
            BatchStats::unreported(),
            &crate::store::Claimant::single(),
            3000,
        )
        .await
        .map(|_| ())
        .expect_err("not PostgreSQL");
        assert!(matches!(error, StoreError::BadUrl { .. }), "{error:?}");
        assert!(!error.to_string().contains("secret"), "{error}");
    }
}
