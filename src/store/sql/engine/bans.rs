//! Operators' bans of players: written, lifted and read (`player_bans`).

use sqlx::Pool;

use super::Db;
use crate::store::{Ban, StoreError};
use parlor_room::PlayerId;

/// A row of `player_bans`.
#[derive(sqlx::FromRow)]
struct BanRow {
    player_id: String,
    reason: String,
    banned_by: String,
    banned_at: i64,
    expires_at: Option<i64>,
}

impl From<BanRow> for Ban {
    fn from(row: BanRow) -> Ban {
        Ban {
            player_id: PlayerId::from(row.player_id),
            reason: row.reason,
            banned_by: row.banned_by,
            banned_at_ms: row.banned_at,
            expires_at_ms: row.expires_at,
        }
    }
}

/// Bans a player, replacing any ban they had; [`StoreError::UnknownPlayer`] if there is
/// no such player.
pub(super) async fn ban_player(pool: &Pool<Db>, ban: &Ban) -> Result<(), StoreError> {
    let mut tx = pool.begin().await?;
    let known: Option<String> =
        sqlx::query_scalar("SELECT player_id FROM players WHERE player_id = $1")
            .bind(ban.player_id.as_str())
            .fetch_optional(&mut *tx)
            .await?;
    if known.is_none() {
        tx.rollback().await?;
        return Err(StoreError::UnknownPlayer);
    }
    sqlx::query(
        "INSERT INTO player_bans (player_id, reason, banned_by, banned_at, expires_at) \
         VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT (player_id) DO UPDATE SET reason = excluded.reason, \
         banned_by = excluded.banned_by, banned_at = excluded.banned_at, \
         expires_at = excluded.expires_at",
    )
    .bind(ban.player_id.as_str())
    .bind(&ban.reason)
    .bind(&ban.banned_by)
    .bind(ban.banned_at_ms)
    .bind(ban.expires_at_ms)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Lifts a player's ban; whether there was one.
pub(super) async fn lift_ban(pool: &Pool<Db>, player_id: &PlayerId) -> Result<bool, StoreError> {
    let done = sqlx::query("DELETE FROM player_bans WHERE player_id = $1")
        .bind(player_id.as_str())
        .execute(pool)
        .await?;
    Ok(done.rows_affected() > 0)
}

/// The ban on a player in force at `now_ms`, if any.
pub(super) async fn ban_of(
    pool: &Pool<Db>,
    player_id: &PlayerId,
    now_ms: i64,
) -> Result<Option<Ban>, StoreError> {
    let row: Option<BanRow> = sqlx::query_as(
        "SELECT player_id, reason, banned_by, banned_at, expires_at FROM player_bans \
         WHERE player_id = $1 AND (expires_at IS NULL OR expires_at > $2)",
    )
    .bind(player_id.as_str())
    .bind(now_ms)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(Ban::from))
}

/// Every ban in force at `now_ms`, newest first.
pub(super) async fn bans(pool: &Pool<Db>, now_ms: i64) -> Result<Vec<Ban>, StoreError> {
    let rows: Vec<BanRow> = sqlx::query_as(
        "SELECT player_id, reason, banned_by, banned_at, expires_at FROM player_bans \
         WHERE expires_at IS NULL OR expires_at > $1 ORDER BY banned_at DESC, player_id",
    )
    .bind(now_ms)
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().map(Ban::from).collect())
}
