//! The SQLite game log's writer thread and its connection: a thread of its own that
//! owns one synchronous connection to the database file and runs the batch writer
//! (`engine/batch.rs`) there, with its statements prepared once and cached.
//!
//! Through sqlx, every statement was a round trip to the driver's worker thread (and a
//! batch one to three statements), so a move crossed four threads before it was stored.
//! Here a batch is one hand-off from the rooms to this thread and one answer back; the
//! SQL between is the same code the PostgreSQL store runs, driven by a connection whose
//! futures are complete when they are made.
//!
//! The connection is opened as the store's own are (the same flags, `synchronous` and
//! busy timeout; the file is already in WAL mode) and through the one SQLite library
//! sqlx links, so both share the file's locks. It alone runs without foreign-key checks:
//! each of its writes proves its game exists itself (a move's fenced `INSERT … SELECT`,
//! a start's seats after its game's row, an ending's rows after its game's update
//! counted), so the checks only looked the game up a second time (about 3,000
//! instructions per move). A move is appended with
//! one small prepared `INSERT … SELECT … FROM games WHERE` per move, whose changed-row
//! count says whether the game is still owned under the move's token: no statement text
//! per batch and no temporary b-trees, which the multi-row `INSERT … SELECT … FROM
//! (VALUES …) … RETURNING` needed for its `VALUES` list and its returned rows.
//!
//! The thread runs at niceness `store.writer_nice` (10 by default): where it shares a
//! busy core with the threads serving rooms, a move's arrival seldom preempts them,
//! and the batch it then writes holds what they sent meanwhile. At saturation on one
//! core that took 7 % less CPU per move and 40 % fewer bytes written (BENCHMARKS.md);
//! on an idle core the thread runs at once, as before.

use std::future::{Future, ready};
use std::path::PathBuf;
use std::time::Duration;

use rusqlite::types::{ToSql, ToSqlOutput, Value, ValueRef};
use rusqlite::{Connection, OpenFlags, params_from_iter};

use super::SqliteTuning;
use crate::config::Synchronous;
use crate::store::sql::log_connection::{Inserted, LogConnection, LogHost, Param, move_params};
use crate::store::sql::lost_sessions::SessionId;
use crate::store::sql::rows::RatingRow;
use crate::store::{Fence, MoveRecord, StoreError};
use crate::thread_priority;

/// The thread's name, as `top -H` and the profiles show it.
const THREAD_NAME: &str = "parlor-game-log";

/// Prepared statements kept: a batch's statements differ by their number of rows, so
/// a busy server uses a few dozen.
const CACHED_STATEMENTS: usize = 64;

/// Starts a transaction that takes the file's write lock at once: the writer never
/// finds its transaction unable to write half-way through.
const BEGIN: &str = "BEGIN IMMEDIATE";

/// Ends the transaction, keeping its writes.
const COMMIT: &str = "COMMIT";

/// Ends the transaction, dropping its writes.
const ROLLBACK: &str = "ROLLBACK";

/// One move appended if its game is owned under the move's token (`?9`): one row
/// inserted, or none.
///
/// `OR FAIL`, not the default `ABORT`: an `INSERT … SELECT` may insert several rows, so
/// under `ABORT` SQLite gave each one a statement journal inside the batch's
/// transaction, copying every page it touched (the table's and the key's, about 8 KB
/// per move) to undo a half-done statement. `FAIL` keeps what the statement did before
/// a conflict, and this one inserts at most one row (`game_id` is the games' key), so
/// a duplicate move fails the same way, with nothing to undo.
const FENCED_MOVE: &str = "INSERT OR FAIL INTO moves (game_id, ply, seat, notation, played_at, \
                           think_ms, clock0_ms, clock1_ms) \
                           SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8 FROM games \
                           WHERE game_id = ?1 AND fence = ?9";

/// The game log's writer on SQLite: a thread of its own, writing through a connection
/// it opens to the file at `path`.
pub(super) struct ThreadLog {
    /// The database file.
    path: PathBuf,
    /// The store's tuning, applied to this connection as to the pool's.
    tuning: SqliteTuning,
}

impl ThreadLog {
    /// The writer for the existing database file at `path`, tuned as the store's
    /// connections. Opens a connection once, so a file it cannot write is refused now
    /// rather than at the first game.
    pub(super) fn new(path: PathBuf, tuning: SqliteTuning) -> Result<ThreadLog, StoreError> {
        let log = ThreadLog { path, tuning };
        log.open()?;
        Ok(log)
    }

    /// Opens the writer's connection to the existing file (the store created it), with
    /// the flags sqlx opens the store's own with.
    fn open(&self) -> rusqlite::Result<Connection> {
        let connection = Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX
                | OpenFlags::SQLITE_OPEN_URI,
        )?;
        connection.busy_timeout(self.tuning.lock_wait())?;
        let synchronous = match self.tuning.synchronous {
            Synchronous::Full => "FULL",
            Synchronous::Normal => "NORMAL",
        };
        connection.pragma_update(None, "synchronous", synchronous)?;
        // The writes prove their games exist themselves (see the module's comment).
        connection.pragma_update(None, "foreign_keys", "OFF")?;
        connection.set_prepared_statement_cache_capacity(CACHED_STATEMENTS);
        Ok(connection)
    }
}

impl LogHost for ThreadLog {
    type Connection = Connection;

    fn deadline(&self) -> Option<Duration> {
        // A write to the local file commits or fails: SQLite's own busy timeout bounds
        // its wait for another process's lock.
        None
    }

    fn connect(&self) -> impl Future<Output = Result<Connection, StoreError>> + Send {
        ready(self.open().map_err(StoreError::from))
    }

    fn disconnect(connection: Connection) -> impl Future<Output = ()> + Send {
        if let Err((_, error)) = connection.close() {
            tracing::warn!(%error, "the game log's connection did not close cleanly");
        }
        ready(())
    }

    fn spawn(writer: impl Future<Output = ()> + Send + 'static) -> Result<(), StoreError> {
        // The writer waits on tokio's channels and the store's lock, which need no
        // runtime driver: any runtime's handle can block this thread on them.
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|error| StoreError::WriterThread(std::io::Error::other(error.to_string())))?;
        std::thread::Builder::new()
            .name(THREAD_NAME.to_owned())
            .spawn(move || runtime.block_on(writer))
            .map_err(StoreError::WriterThread)?;
        Ok(())
    }

    fn settle(&self) {
        let nice = self.tuning.writer_nice;
        if nice > 0
            && let Err(error) = thread_priority::niceness(nice)
        {
            tracing::warn!(%error, nice, "could not lower the game log's thread's priority");
        }
    }

    fn yield_to_rooms() -> impl Future<Output = ()> + Send {
        // This thread's core goes to the threads ready to run on it (the HTTP workers,
        // whose rooms have moves to send); with none, it comes back at once.
        std::thread::yield_now();
        ready(())
    }
}

impl ToSql for Param<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Param::Text(Some(text)) => ToSqlOutput::Borrowed(ValueRef::Text(text.as_bytes())),
            Param::Int(Some(value)) => ToSqlOutput::Owned(Value::Integer(*value)),
            Param::Real(Some(value)) => ToSqlOutput::Owned(Value::Real(*value)),
            Param::Text(None) | Param::Int(None) | Param::Real(None) => {
                ToSqlOutput::Owned(Value::Null)
            }
        })
    }
}

impl LogConnection for Connection {
    const ROW_AT_A_TIME: bool = true;

    fn session(&mut self) -> impl Future<Output = Result<Option<SessionId>, StoreError>> + Send {
        // The file is written by this thread alone: there is no session to end.
        ready(Ok(None))
    }

    fn begin(&mut self) -> impl Future<Output = Result<(), StoreError>> + Send {
        ready(run_cached(self, BEGIN).map_err(StoreError::from))
    }

    fn commit(&mut self) -> impl Future<Output = Result<(), StoreError>> + Send {
        ready(run_cached(self, COMMIT).map_err(StoreError::from))
    }

    fn rollback(&mut self) -> impl Future<Output = Result<(), StoreError>> + Send {
        ready(roll_back(self).map_err(StoreError::from))
    }

    fn execute(
        &mut self,
        sql: &str,
        params: &[Param<'_>],
    ) -> impl Future<Output = Result<u64, StoreError>> + Send {
        let changed = self
            .prepare_cached(sql)
            .and_then(|mut statement| statement.execute(params_from_iter(params)));
        ready(changed.map(|rows| rows as u64).map_err(StoreError::from))
    }

    fn rating_rows(
        &mut self,
        sql: &str,
        params: &[Param<'_>],
    ) -> impl Future<Output = Result<Vec<RatingRow>, StoreError>> + Send {
        let rows = self.prepare_cached(sql).and_then(|mut statement| {
            let rows = statement.query_map(params_from_iter(params), |row| {
                Ok(RatingRow {
                    game: row.get(0)?,
                    player_key: row.get(1)?,
                    rating: row.get(2)?,
                    deviation: row.get(3)?,
                    volatility: row.get(4)?,
                })
            })?;
            rows.collect::<rusqlite::Result<Vec<RatingRow>>>()
        });
        ready(rows.map_err(StoreError::from))
    }

    fn insert_moves(
        &mut self,
        moves: &[(&MoveRecord, Fence)],
    ) -> impl Future<Output = Result<Inserted, StoreError>> + Send {
        ready(append_moves(self, moves).map_err(StoreError::from))
    }
}

/// Appends the moves; several moves outside a transaction are written in one of their
/// own, so they cost one commit and are written all or none.
fn append_moves(
    connection: &Connection,
    moves: &[(&MoveRecord, Fence)],
) -> rusqlite::Result<Inserted> {
    let own_transaction = moves.len() > 1 && connection.is_autocommit();
    if own_transaction {
        run_cached(connection, BEGIN)?;
    }
    let written = append_each(connection, moves);
    if own_transaction {
        match &written {
            Ok(_) => run_cached(connection, COMMIT)?,
            // The move's own error is the one to report, not the rollback's.
            Err(_) => drop(roll_back(connection)),
        }
    }
    written
}

/// Rolls back the open transaction, if any: some failures (a full disk, an I/O error)
/// have SQLite roll it back by itself.
fn roll_back(connection: &Connection) -> rusqlite::Result<()> {
    if connection.is_autocommit() {
        return Ok(());
    }
    run_cached(connection, ROLLBACK)
}

/// Runs a statement without parameters through the statement cache (`execute_batch`
/// would prepare it again each time).
fn run_cached(connection: &Connection, sql: &str) -> rusqlite::Result<()> {
    connection.prepare_cached(sql)?.execute([])?;
    Ok(())
}

/// Appends each move with [`FENCED_MOVE`]; says which were written.
fn append_each(
    connection: &Connection,
    moves: &[(&MoveRecord, Fence)],
) -> rusqlite::Result<Inserted> {
    let mut statement = connection.prepare_cached(FENCED_MOVE)?;
    let mut written = Vec::with_capacity(moves.len());
    for (mv, fence) in moves {
        let rows = statement.execute(params_from_iter(move_params(mv, *fence)))?;
        written.push(rows == 1);
    }
    Ok(Inserted(written))
}
