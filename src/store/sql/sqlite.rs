//! The SQLite store, the embedded default: the file's guards, the pool, each
//! connection's pragmas, the engine code of `engine/` compiled for SQLite, and the
//! game log's writer thread (`log_thread`).
//!
//! Every connection runs with `journal_mode=WAL` and `synchronous=FULL` (or `NORMAL`,
//! when asked for), so a commit has reached the disk when the call returns.

use std::path::Path;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use super::BatchStats;
use super::lost_sessions::LostSessions;
use super::placeholders::Placeholders;
use super::sqlite_file;
use crate::config::{StoreConfig, Synchronous};
use crate::store::StoreError;

#[allow(
    clippy::duplicate_mod,
    reason = "the engine code is compiled once per engine, with that engine's `Db`"
)]
#[path = "engine/mod.rs"]
mod engine;

pub(super) use self::engine::SqlStore;
use self::log_thread::ThreadLog;

mod log_thread;

/// SQLite has no row locks (one process writes the file, one transaction at a time):
/// a fenced `INSERT … SELECT … JOIN games g` (which the game log's own connection does
/// not use, `log_thread`) needs no locking clause, and neither does a read of a game's
/// token.
const ROW_SHARE_LOCK: &str = "";

/// See [`ROW_SHARE_LOCK`].
const ROW_SHARE_LOCK_PLAIN: &str = "";

/// The database `engine/` is compiled for here.
type Db = sqlx::Sqlite;

/// A connection to it (named, not projected from `Db`, so that trait impls for it are
/// told apart from those for other connection types).
type DbConnection = sqlx::SqliteConnection;

/// How statements generated per batch write their parameters on SQLite.
const PLACEHOLDERS: Placeholders = Placeholders::Anonymous;

/// Rating updates need no lock of their own on SQLite: a single process holds the file
/// (`sqlite_file`), and it writes one transaction at a time.
const RATINGS_LOCK: &[&str] = &[];

/// Nor does the one-time recompute of the ratings (`engine/rerating.rs`), for the same
/// reason.
const RERATING_LOCK: &[&str] = &[];

/// A plain `BEGIN`: a SQLite read transaction sees one snapshot of the file.
const READ_SNAPSHOT: Option<&str> = None;

/// A local file has no server sessions: no query names the one serving a connection.
const SESSION_OF: Option<&str> = None;

/// Nor are there sessions to end before a move's outcome is read: the game log's writer
/// never gives a batch up mid-write on SQLite (a write commits or fails).
async fn end_sessions(_: &sqlx::SqlitePool, _: &LostSessions) -> Result<(), StoreError> {
    Ok(())
}

/// What keeps a second server off the file while the store is open.
type ExclusiveHold = sqlite_file::FileLock;

/// Nothing takes a SQLite file over from the server holding its lock: never cancelled.
fn hold_evicted(_: &ExclusiveHold) -> tokio_util::sync::CancellationToken {
    tokio_util::sync::CancellationToken::new()
}

/// Unlocks the file.
async fn release_hold(hold: ExclusiveHold) {
    drop(hold);
}

/// The longest busy timeout a connection is given, whatever `store.busy_timeout_ms` says.
const MAX_LOCK_WAIT: Duration = Duration::from_secs(3600);

/// SQLite allows a single writer at a time; a few connections are enough for readers.
const SQLITE_MAX_CONNECTIONS: u32 = 4;

/// How SQLite connections are set up (other databases ignore it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SqliteTuning {
    /// How long a write waits for a lock another process holds before it fails.
    pub(crate) busy_timeout: Duration,
    /// How hard a commit is synced to disk.
    pub(crate) synchronous: Synchronous,
    /// The game log's thread's niceness (`store.writer_nice`).
    pub(crate) writer_nice: i32,
}

impl SqliteTuning {
    /// The tuning `[store]` asks for.
    pub(crate) fn of(config: &StoreConfig) -> SqliteTuning {
        SqliteTuning {
            busy_timeout: Duration::from_millis(config.busy_timeout_ms),
            synchronous: config.synchronous,
            writer_nice: config.writer_nice,
        }
    }

    /// The busy timeout every connection is given: `busy_timeout`, at most an hour
    /// (SQLite counts it in an `int` of milliseconds).
    pub(crate) fn lock_wait(self) -> Duration {
        self.busy_timeout.min(MAX_LOCK_WAIT)
    }
}

impl SqlStore {
    /// Opens (creating it if missing) the SQLite database file at `path`, creating its
    /// folder too, and brings its schema up to date.
    ///
    /// Every connection runs with `journal_mode=WAL`, `foreign_keys=ON` and the
    /// `synchronous` level and busy timeout of `tuning`. Moves are written in batches
    /// (see `engine/batch.rs`), counted in `stats`.
    pub(super) async fn open(
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
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .busy_timeout(tuning.lock_wait())
            .journal_mode(SqliteJournalMode::Wal)
            .foreign_keys(true)
            .synchronous(match tuning.synchronous {
                Synchronous::Full => SqliteSynchronous::Full,
                Synchronous::Normal => SqliteSynchronous::Normal,
            });
        let pool = SqlitePoolOptions::new()
            .max_connections(SQLITE_MAX_CONNECTIONS)
            .connect_with(options)
            .await?;
        let log = match ThreadLog::new(path.to_path_buf(), tuning) {
            Ok(log) => log,
            Err(error) => {
                pool.close().await;
                return Err(error);
            }
        };
        let setup = pool.clone();
        let store = SqlStore::start(pool, &setup, file_lock, stats, log).await?;
        tracing::info!(path = %path.display(), "opened the SQLite database");
        Ok(store)
    }
}

#[cfg(test)]
pub(super) use self::tests::TestDb;

#[cfg(test)]
mod tests;
