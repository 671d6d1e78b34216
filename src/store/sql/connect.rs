//! Connecting to the database: choosing the engine from the URL, the pool and its size,
//! SQLite's per-connection tuning and file guards, and the schema migrations.
//!
//! This is where an engine is chosen: a `sqlite:` URL gets SQLite's pool size and
//! pragmas, any other URL the client/server defaults (PostgreSQL, once its driver is
//! compiled in). Everything after connecting is engine-neutral SQL.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use sqlx::Executor;
use sqlx::any::AnyPoolOptions;
use sqlx::migrate::Migrator;
use tokio::sync::Mutex;

use super::SqlStore;
use super::batch::{BatchStats, MoveWriter};
use super::names::upgrade_name_keys;
use super::sqlite_file;
use crate::config::{StoreConfig, Synchronous};
use crate::store::StoreError;

/// The schema migrations in `migrations/`, embedded at compile time.
pub(super) static MIGRATOR: Migrator = sqlx::migrate!("./migrations");

/// SQLite allows a single writer at a time; a few connections are enough for readers.
const SQLITE_MAX_CONNECTIONS: u32 = 4;

/// Pool size for client/server databases (PostgreSQL).
const SERVER_MAX_CONNECTIONS: u32 = 10;

/// Run on every new SQLite connection, after the busy timeout (set first, so that these
/// wait for a lock instead of failing at once).
const SQLITE_PRAGMAS: [&str; 2] = ["PRAGMA journal_mode = WAL", "PRAGMA foreign_keys = ON"];

/// How SQLite connections are set up (other databases ignore it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SqliteTuning {
    /// How long a write waits for a lock another process holds before it fails.
    pub(crate) busy_timeout: Duration,
    /// How hard a commit is synced to disk.
    pub(crate) synchronous: Synchronous,
}

impl SqliteTuning {
    /// The tuning `[store]` asks for.
    pub(crate) fn of(config: &StoreConfig) -> SqliteTuning {
        SqliteTuning {
            busy_timeout: Duration::from_millis(config.busy_timeout_ms),
            synchronous: config.synchronous,
        }
    }
}

impl SqlStore {
    /// Opens (creating it if missing) the SQLite database file at `path`, creating its
    /// folder too, and brings its schema up to date.
    ///
    /// Every connection runs with `journal_mode=WAL`, `foreign_keys=ON` and the
    /// `synchronous` level and busy timeout of `tuning`.
    pub(crate) async fn open_sqlite(
        path: &Path,
        tuning: SqliteTuning,
        stats: BatchStats,
    ) -> Result<SqlStore, StoreError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            // Blocking, but it runs once at start-up and is quick.
            std::fs::create_dir_all(parent).map_err(|source| StoreError::CreateDir {
                path: parent.display().to_string(),
                source,
            })?;
        }
        let file_lock = sqlite_file::lock(path)?;
        sqlite_file::check_is_sqlite(path)?;
        let url = sqlite_url(path)?;
        let store = Self::connect(&url, tuning, stats).await?;
        if let Ok(mut slot) = store.file_lock.lock() {
            *slot = Some(file_lock);
        }
        tracing::info!(path = %path.display(), "opened the SQLite database");
        Ok(store)
    }

    /// Connects to the database at `url` (`sqlite://…` or, once the driver is compiled
    /// in, `postgres://…`) and brings its schema up to date.
    ///
    /// `tuning` applies to SQLite only. The URL may hold a password, so it is never
    /// logged. Moves are written in batches (see [`super::batch`]), counted in `stats`.
    pub(crate) async fn connect(
        url: &str,
        tuning: SqliteTuning,
        stats: BatchStats,
    ) -> Result<SqlStore, StoreError> {
        sqlx::any::install_default_drivers();

        let sqlite = url.starts_with("sqlite:");
        let max_connections = if sqlite {
            SQLITE_MAX_CONNECTIONS
        } else {
            SERVER_MAX_CONNECTIONS
        };
        let busy_timeout = tuning.busy_timeout.min(Duration::from_secs(3600));
        let synchronous = tuning.synchronous.pragma();
        let pool = AnyPoolOptions::new()
            .max_connections(max_connections)
            .after_connect(move |conn, _meta| {
                Box::pin(async move {
                    if sqlite {
                        let timeout = format!("PRAGMA busy_timeout = {}", busy_timeout.as_millis());
                        conn.execute(timeout.as_str()).await?;
                        for pragma in SQLITE_PRAGMAS.into_iter().chain([synchronous]) {
                            conn.execute(pragma).await?;
                        }
                    }
                    Ok(())
                })
            })
            .connect(url)
            .await?;

        if let Err(err) = MIGRATOR.run(&pool).await {
            pool.close().await;
            return Err(err.into());
        }
        if let Err(err) = upgrade_name_keys(&pool).await {
            pool.close().await;
            return Err(err);
        }
        tracing::debug!(sqlite, "database connected and migrated");
        let writes = Arc::new(Mutex::new(()));
        Ok(SqlStore {
            moves: MoveWriter::spawn(pool.clone(), writes.clone(), stats),
            pool,
            writes,
            file_lock: Arc::default(),
        })
    }
}

/// The `sqlite://` URL for a database file, with `mode=rwc` (create if missing).
///
/// The path is made absolute (a relative one would be parsed as a URL host) and the
/// characters that would end or escape the path part of the URL are percent-encoded;
/// sqlx decodes them again.
fn sqlite_url(path: &Path) -> Result<String, StoreError> {
    let absolute = std::path::absolute(path).map_err(|e| {
        StoreError::Database(sqlx::Error::Configuration(
            format!("invalid database path {}: {e}", path.display()).into(),
        ))
    })?;
    let Some(text) = absolute.to_str() else {
        return Err(StoreError::Database(sqlx::Error::Configuration(
            format!(
                "the database path {} is not valid UTF-8",
                absolute.display()
            )
            .into(),
        )));
    };
    let mut url = String::with_capacity(text.len() + 20);
    url.push_str("sqlite://");
    for c in text.chars() {
        match c {
            '%' => url.push_str("%25"),
            '?' => url.push_str("%3F"),
            '#' => url.push_str("%23"),
            _ => url.push(c),
        }
    }
    url.push_str("?mode=rwc");
    Ok(url)
}
