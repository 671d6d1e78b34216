//! The PostgreSQL store, for a fleet of nodes sharing one database: the connection pool,
//! and the engine code of `engine/` compiled for PostgreSQL.
//!
//! `store.url` is a libpq-style URL (`postgres://user:password@host:port/database`, with
//! `?sslmode=…` or `?options=-c%20search_path%3D…` when needed). It may hold a password,
//! so it is never logged: errors name the host, port and database only.

use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};

use super::BatchStats;
use super::placeholders::Placeholders;
use crate::store::StoreError;

#[allow(
    clippy::duplicate_mod,
    reason = "the engine code is compiled once per engine, with that engine's `Db`"
)]
#[path = "engine/mod.rs"]
mod engine;

pub(super) use self::engine::SqlStore;

/// The database `engine/` is compiled for here.
type Db = sqlx::Postgres;

/// How statements generated per batch write their parameters on PostgreSQL.
const PLACEHOLDERS: Placeholders = Placeholders::Numbered;

/// Taken by every transaction that rates games, before it reads the ratings: nodes of a
/// fleet rate one batch of endings at a time, so two games finishing at once on two
/// nodes never both start from a player's old rating. A transaction-scoped advisory
/// lock, released by the commit or the rollback; the key is arbitrary but fixed.
const RATINGS_LOCK: Option<&str> = Some("SELECT pg_advisory_xact_lock(7070162737393745409)");

/// Connections each node keeps to PostgreSQL: the move writer holds one, and reads and
/// other writes share the rest.
const MAX_CONNECTIONS: u32 = 10;

/// How long a write waits for a connection (connecting again, when the database went
/// away) before it fails: a move is refused with `storage_unavailable` after this long,
/// not after sqlx's default of 30 s.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

impl SqlStore {
    /// Connects to the PostgreSQL database at `url`, brings its schema up to date and
    /// starts the move writer. Moves are written in batches (see `engine/batch.rs`),
    /// counted in `stats`.
    pub(super) async fn open(url: &str, stats: BatchStats) -> Result<SqlStore, StoreError> {
        let options = PgConnectOptions::from_str(url).map_err(|error| {
            // sqlx's message names what is wrong without repeating the URL.
            StoreError::BadUrl {
                reason: error.to_string(),
            }
        })?;
        SqlStore::open_with(options, stats).await
    }

    /// Like [`SqlStore::open`], with the connection's options already parsed.
    pub(super) async fn open_with(
        options: PgConnectOptions,
        stats: BatchStats,
    ) -> Result<SqlStore, StoreError> {
        let place = format!(
            "{}:{}/{}",
            options.get_host(),
            options.get_port(),
            options.get_database().unwrap_or("(the user's database)")
        );
        let pool = PgPoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect_with(options)
            .await
            .map_err(|source| StoreError::Unreachable {
                place: place.clone(),
                source,
            })?;
        let store = SqlStore::start(pool, None, stats).await?;
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

    use sqlx::Connection;
    use sqlx::postgres::{PgConnectOptions, PgConnection};

    use super::SqlStore;
    use crate::store::sql::BatchStats;

    /// The variable that names the test database.
    const URL_VARIABLE: &str = "PARLOR_TEST_POSTGRES_URL";

    /// One test's own schema.
    pub(crate) struct TestDb {
        options: PgConnectOptions,
        schema: String,
    }

    impl TestDb {
        /// A new empty schema, or `None` (said loudly) when no test database is named
        /// outside CI. Under CI (`CI` set) a missing database fails the test instead.
        pub(crate) async fn new() -> Option<TestDb> {
            let Ok(url) = std::env::var(URL_VARIABLE) else {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "{URL_VARIABLE} is unset under CI: the PostgreSQL store tests must run"
                );
                eprintln!(
                    "SKIPPED: a PostgreSQL store test; set {URL_VARIABLE} \
                     (e.g. postgres://postgres@127.0.0.1:5432/test) to run it"
                );
                return None;
            };
            let options = PgConnectOptions::from_str(&url).expect("a PostgreSQL URL");
            let schema = format!("parlor_test_{:016x}", rand::random::<u64>());
            let mut conn = PgConnection::connect_with(&options)
                .await
                .expect("connect to the test database");
            sqlx::query(&format!("CREATE SCHEMA {schema}"))
                .execute(&mut conn)
                .await
                .expect("create the test schema");
            conn.close().await.expect("close");
            Some(TestDb { options, schema })
        }

        /// The store in this schema, its batches counted in `stats`.
        pub(crate) async fn open_with(&self, stats: BatchStats) -> SqlStore {
            let options = self
                .options
                .clone()
                .options([("search_path", self.schema.as_str())]);
            SqlStore::open_with(options, stats)
                .await
                .expect("open the PostgreSQL store")
        }
    }

    impl Drop for TestDb {
        fn drop(&mut self) {
            let (options, schema) = (self.options.clone(), self.schema.clone());
            // Drop runs inside the test's runtime, which cannot block on a future: the
            // schema is dropped from a thread with a runtime of its own.
            let dropped = std::thread::spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("a runtime");
                runtime.block_on(async move {
                    let mut conn = PgConnection::connect_with(&options).await?;
                    sqlx::query(&format!("DROP SCHEMA {schema} CASCADE"))
                        .execute(&mut conn)
                        .await?;
                    conn.close().await
                })
            })
            .join();
            if !matches!(dropped, Ok(Ok(()))) {
                eprintln!("could not drop the test schema {}", self.schema);
            }
        }
    }
}
