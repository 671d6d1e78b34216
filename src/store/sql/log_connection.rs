//! What the game log's writes need of a database connection, so that one piece of SQL
//! code drives both sqlx's asynchronous connections and the SQLite writer thread's own
//! synchronous one: statements with their parameters as plain values, a transaction's
//! start and end, and the fenced append of moves, whose best form differs per driver.
//!
//! The SQLite thread's connection does its work as the call is made and returns a future
//! that is already complete, so the shared `async` code runs on that thread without
//! ever yielding to another one.

use std::borrow::Cow;
use std::future::Future;
use std::time::Duration;

use super::lost_sessions::SessionId;
use super::rows::RatingRow;
use crate::store::{Fence, MoveRecord, StoreError};

/// A value bound to one of a statement's parameters, as the game log's writes bind
/// them: text, a 64-bit integer or a double, any of them possibly `NULL`.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Param<'a> {
    /// A `TEXT` value.
    Text(Option<Cow<'a, str>>),
    /// A `BIGINT` value.
    Int(Option<i64>),
    /// A `DOUBLE PRECISION` value.
    Real(Option<f64>),
}

impl<'a> Param<'a> {
    /// Borrowed text (a string or an id), never `NULL`.
    pub(super) fn text(text: &'a (impl AsRef<str> + ?Sized)) -> Param<'a> {
        Param::Text(Some(Cow::Borrowed(text.as_ref())))
    }

    /// An integer, never `NULL`.
    pub(super) fn int(value: impl Into<i64>) -> Param<'a> {
        Param::Int(Some(value.into()))
    }
}

/// Which of the moves given to [`LogConnection::insert_moves`] were written: those
/// whose game is owned under the token they came with, in the order given.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Inserted(pub(super) Vec<bool>);

impl Inserted {
    /// `Ok` if the `index`-th move given, `mv`, was written; [`StoreError::Fenced`] if
    /// its game is owned under another token.
    pub(super) fn check(&self, index: usize, mv: &MoveRecord) -> Result<(), StoreError> {
        if self.written(index) {
            Ok(())
        } else {
            Err(StoreError::Fenced {
                game_id: mv.game_id.clone(),
            })
        }
    }

    /// Whether the `index`-th move given was written.
    pub(super) fn written(&self, index: usize) -> bool {
        self.0.get(index).copied().unwrap_or(false)
    }
}

/// A connection the game log is written through. Every method returns once the
/// database has done the work (or refused it); `begin` … `commit` bracket a transaction,
/// and a connection whose transaction failed half-way is dropped by its user, which
/// rolls it back.
pub(super) trait LogConnection: Send {
    /// Whether a statement costs this connection no round trip (SQLite's writer thread,
    /// which runs the library in process). [`execute_rows`] then writes a batch's rows
    /// with one small prepared statement each, which SQLite runs for fewer instructions
    /// than one statement over a `VALUES` list of them all.
    const ROW_AT_A_TIME: bool = false;

    /// The database session serving this connection, when another connection can end
    /// it (PostgreSQL); `None` on a local database.
    fn session(&mut self) -> impl Future<Output = Result<Option<SessionId>, StoreError>> + Send;

    /// Starts a transaction that will write.
    fn begin(&mut self) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Commits the transaction `begin` started.
    fn commit(&mut self) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Drops what the open transaction wrote, if one is open (a failed statement may
    /// already have ended it); fails only if the connection cannot be trusted further.
    fn rollback(&mut self) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Runs one statement with `params` bound in order; returns how many rows it
    /// changed.
    fn execute(
        &mut self,
        sql: &str,
        params: &[Param<'_>],
    ) -> impl Future<Output = Result<u64, StoreError>> + Send;

    /// Runs a query whose rows are `ratings` rows (game, player key, rating, deviation,
    /// volatility, in that order), with `params` bound in order.
    fn rating_rows(
        &mut self,
        sql: &str,
        params: &[Param<'_>],
    ) -> impl Future<Output = Result<Vec<RatingRow>, StoreError>> + Send;

    /// Appends moves to their games' logs, each only if its game is owned under the
    /// token it came with; says which were written.
    fn insert_moves(
        &mut self,
        moves: &[(&MoveRecord, Fence)],
    ) -> impl Future<Output = Result<Inserted, StoreError>> + Send;
}

/// A statement over any number of rows of parameters, in both of its forms.
pub(super) struct RowStatement<'s, F: FnOnce(usize) -> String> {
    /// The statement for one row, run once per row where statements cost no round trip
    /// ([`LogConnection::ROW_AT_A_TIME`]). Those connections are SQLite's, so it is
    /// written in SQLite's dialect: `?N` is the row's N-th parameter.
    pub(super) one_row: &'s str,
    /// The statement for all the rows at once, given their number: what other
    /// connections run, once.
    pub(super) all_rows: F,
    /// How many parameters each row has.
    pub(super) width: usize,
}

/// Runs `statement` over `params`, its rows' parameters one row after another, in the
/// form that suits `conn`; returns how many rows it changed in all.
pub(super) async fn execute_rows<C: LogConnection, F: FnOnce(usize) -> String>(
    conn: &mut C,
    statement: RowStatement<'_, F>,
    params: &[Param<'_>],
) -> Result<u64, StoreError> {
    let RowStatement {
        one_row,
        all_rows,
        width,
    } = statement;
    if params.is_empty() {
        return Ok(0);
    }
    if !C::ROW_AT_A_TIME {
        return conn.execute(&all_rows(params.len() / width), params).await;
    }
    let mut changed = 0;
    for row in params.chunks(width) {
        changed += conn.execute(one_row, row).await?;
    }
    Ok(changed)
}

/// The parameters of one stored move, in the order of the `moves` table's columns
/// (`game_id, ply, seat, notation, played_at, think_ms, clock0_ms, clock1_ms`), then its
/// room's token: what every driver's fenced append binds.
pub(super) fn move_params<'a>(mv: &'a MoveRecord, fence: Fence) -> [Param<'a>; 9] {
    [
        Param::text(&mv.game_id),
        Param::int(mv.ply),
        Param::int(mv.seat),
        Param::text(&mv.notation),
        Param::int(mv.played_at_ms),
        Param::int(mv.think_ms),
        Param::Int(mv.clocks_ms.map(|clocks| clocks[0])),
        Param::Int(mv.clocks_ms.map(|clocks| clocks[1])),
        Param::int(fence.0),
    ]
}

/// Where the game log's writer runs and how it connects: a tokio task on a pooled
/// connection (PostgreSQL), or a thread of its own that owns its connection (SQLite).
pub(super) trait LogHost: Send + Sync + 'static {
    /// The connection the writer writes through.
    type Connection: LogConnection + 'static;

    /// How long a batch may take, from asking for its connection to its commit, before
    /// it is given up and its connection dropped; `None` on a local database, whose
    /// writes commit or fail with no network to wait on.
    fn deadline(&self) -> Option<Duration>;

    /// Opens a connection: for the first batch, and after one failed.
    fn connect(&self) -> impl Future<Output = Result<Self::Connection, StoreError>> + Send;

    /// Closes the writer's connection once it stops.
    fn disconnect(connection: Self::Connection) -> impl Future<Output = ()> + Send;

    /// Starts `writer`, the whole life of the writer, where this host runs it.
    fn spawn(writer: impl Future<Output = ()> + Send + 'static) -> Result<(), StoreError>;

    /// Prepares where the writer runs, once, before its first batch: nothing by default;
    /// SQLite's thread lowers its own priority (`store.writer_nice`).
    fn settle(&self) {}

    /// Lets whatever else is ready to run where the writer runs (rooms with moves to
    /// send) run first, once, before a batch formed under load is written, so that what
    /// they send joins that batch rather than the next.
    fn yield_to_rooms() -> impl Future<Output = ()> + Send;
}
