//! SQL implementations of the [`Store`] trait: SQLite (the embedded default) and
//! PostgreSQL (for a fleet), each through sqlx's native driver for its engine.
//!
//! [`open`] chooses the engine from `[store]`: `store.url` (a `postgres://` URL) selects
//! PostgreSQL, and without it the store is the SQLite file at `store.path`.
//!
//! The SQL is written once, in `engine/`, and compiled once per engine: `sqlite` and
//! `postgres` each name their database type (`Db`) and their few differences, then
//! include `engine/` as a module of their own. Every value bound and every row decoded
//! is therefore checked by the compiler against each driver's own types (the SQL text
//! itself is checked by the tests), rows decode into typed structs (`rows`) through each
//! driver's native decoding, and the tests in `engine/tests/` run against both engines. (A generic `SqlStore<DB>` would need a dozen lines of driver bounds on
//! every function; sqlx's `Any` driver, used before, reduced every value to an integer or
//! a string.) The SQL sticks to what both engines accept:
//!
//! * `$1, $2, …` placeholders (SQLite binds `$N` to the N-th argument), except in the
//!   statements generated per batch, which write SQLite's plain `?` (`Placeholders`),
//!   and in the one-row statements only SQLite's writer thread runs, which number
//!   theirs `?N` (`RowStatement`);
//! * `BIGINT`, `DOUBLE PRECISION` and `TEXT` columns, one set of migrations
//!   (`migrations/`);
//! * `INSERT … ON CONFLICT … DO NOTHING / DO UPDATE … WHERE` for claims and upserts;
//! * `UPDATE … FROM (VALUES …)` for a batch's endings (SQLite 3.33 and later, which the
//!   bundled SQLite is).
//!
//! The engine-neutral parts live here: `batch_stats` (what the group commit reports),
//! `log_connection` (what the game log's writes need of a connection, so the same SQL
//! drives sqlx and the SQLite writer thread's own rusqlite connection), `placeholders`,
//! `rows`, `names` (how names are keyed) and `sqlite_file` (the SQLite file's guards).

mod batch_stats;
mod holders;
mod log_connection;
mod lost_sessions;
mod names;
mod placeholders;
mod postgres;
mod rows;
mod sqlite;
mod sqlite_file;

use std::sync::Arc;

use super::{Claimant, Store, StoreError};
use crate::config::StoreConfig;

pub(crate) use self::batch_stats::BatchStats;
pub(crate) use self::sqlite::SqliteTuning;

/// Opens the store `[store]` names, brings its schema up to date and starts its move
/// writer: PostgreSQL at `store.url` when it is set, otherwise the SQLite file at
/// `store.path`. Moves are written in batches, counted in `stats`. A PostgreSQL store is
/// held by `claimant` alone if it is a single server, or shared by the nodes of its fleet
/// (whose room leases and fencing tokens keep them apart); see `holders`. A SQLite file
/// is held by one process, whatever the claimant.
pub(crate) async fn open(
    config: &StoreConfig,
    stats: BatchStats,
    claimant: &Claimant,
) -> Result<Arc<dyn Store>, StoreError> {
    match config.url.as_deref() {
        Some(url) => Ok(Arc::new(
            postgres::SqlStore::open(url, stats, claimant, config.write_timeout_ms).await?,
        )),
        None => {
            let tuning = SqliteTuning::of(config);
            let store = sqlite::SqlStore::open(&config.path, tuning, stats).await?;
            Ok(Arc::new(store))
        }
    }
}
