//! This engine's sqlx connection as a [`LogConnection`]: parameters bound through the
//! driver's own types, and moves appended with one fenced `INSERT … RETURNING` (one
//! round trip to the database however many moves).
//!
//! On PostgreSQL the game log's writer writes through it. On SQLite the writer has a
//! connection of its own (`sqlite/log_thread.rs`), and the store's other connections
//! use this one only for what they share with the log: an ending no move caused
//! (`finish_game`) and the reading of ratings.

use std::collections::HashSet;

use super::{DbConnection, PLACEHOLDERS, ROW_SHARE_LOCK, SESSION_OF};
use crate::store::sql::log_connection::{Inserted, LogConnection, Param, move_params};
use crate::store::sql::lost_sessions::SessionId;
use crate::store::sql::rows::RatingRow;
use crate::store::{Fence, MoveRecord, StoreError};

/// The SQL types of a move's parameters as [`move_params`] gives them (a `VALUES` list
/// joined to `games` needs them on PostgreSQL).
const MOVE_TYPES: [&str; 9] = [
    "TEXT", "BIGINT", "BIGINT", "TEXT", "BIGINT", "BIGINT", "BIGINT", "BIGINT", "BIGINT",
];

/// Binds `params` in order to a sqlx query (`query` or `query_as`).
macro_rules! bind_params {
    ($query:expr, $params:expr) => {{
        let mut query = $query;
        for param in $params {
            query = match param {
                Param::Text(text) => query.bind(text.as_deref()),
                Param::Int(value) => query.bind(*value),
                Param::Real(value) => query.bind(*value),
            };
        }
        query
    }};
}

impl LogConnection for DbConnection {
    async fn session(&mut self) -> Result<Option<SessionId>, StoreError> {
        let Some(sql) = SESSION_OF else {
            return Ok(None);
        };
        let (pid, started): (i32, String) = sqlx::query_as(sql).fetch_one(&mut *self).await?;
        Ok(Some(SessionId { pid, started }))
    }

    async fn begin(&mut self) -> Result<(), StoreError> {
        sqlx::query("BEGIN").execute(&mut *self).await?;
        Ok(())
    }

    async fn commit(&mut self) -> Result<(), StoreError> {
        sqlx::query("COMMIT").execute(&mut *self).await?;
        Ok(())
    }

    async fn rollback(&mut self) -> Result<(), StoreError> {
        // Both engines take a `ROLLBACK` outside a transaction without failing the
        // connection (PostgreSQL warns; SQLite's error is only that none is open).
        match sqlx::query("ROLLBACK").execute(&mut *self).await {
            Ok(_) => Ok(()),
            Err(error) => {
                let error = StoreError::from(error);
                if error.is_connection_lost() {
                    Err(error)
                } else {
                    Ok(())
                }
            }
        }
    }

    async fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, StoreError> {
        let query = bind_params!(sqlx::query(sql), params);
        Ok(query.execute(&mut *self).await?.rows_affected())
    }

    async fn rating_rows(
        &mut self,
        sql: &str,
        params: &[Param<'_>],
    ) -> Result<Vec<RatingRow>, StoreError> {
        let query = bind_params!(sqlx::query_as(sql), params);
        Ok(query.fetch_all(&mut *self).await?)
    }

    async fn insert_moves(
        &mut self,
        moves: &[(&MoveRecord, Fence)],
    ) -> Result<Inserted, StoreError> {
        if moves.is_empty() {
            return Ok(Inserted(Vec::new()));
        }
        const HEAD: &str = "INSERT INTO moves (game_id, ply, seat, notation, played_at, \
                            think_ms, clock0_ms, clock1_ms) \
                            SELECT v.column1, v.column2, v.column3, v.column4, \
                            v.column5, v.column6, v.column7, v.column8 FROM (VALUES ";
        const TAIL: &str = ") AS v JOIN games g ON g.game_id = v.column1 AND g.fence = v.column9";
        // One allocation for the whole statement: each row is at most 9 casts of a
        // placeholder of up to 5 characters ("$2304") and their separators.
        let mut sql = String::with_capacity(HEAD.len() + TAIL.len() + 40 + moves.len() * 9 * 25);
        sql.push_str(HEAD);
        PLACEHOLDERS.push_typed_rows(&mut sql, moves.len(), &MOVE_TYPES);
        sql.push_str(TAIL);
        sql.push_str(ROW_SHARE_LOCK);
        sql.push_str(" RETURNING game_id, ply");
        let params: Vec<Param<'_>> = moves
            .iter()
            .flat_map(|(mv, fence)| move_params(mv, *fence))
            .collect();
        let query = bind_params!(sqlx::query_as(&sql), &params);
        let rows: Vec<(String, i64)> = query.fetch_all(&mut *self).await?;
        let written: HashSet<(String, i64)> = rows.into_iter().collect();
        Ok(Inserted(
            moves
                .iter()
                .map(|(mv, _)| written.contains(&(mv.game_id.to_string(), i64::from(mv.ply))))
                .collect(),
        ))
    }
}
