//! Claiming players' names under their keys (`crate::store::sql::names`), and the
//! one-time upgrade of keys written under the older rule.

use parlor_room::PlayerId;
use sqlx::Pool;

use super::{Db, DbConnection};
use crate::store::StoreError;
use crate::store::sql::names::{KEY_RULE, name_key};

/// Claims `name_key` for `player_id` unless another player holds it; whether the
/// player holds it now.
pub(super) async fn claim_name(
    conn: &mut DbConnection,
    name_key: &str,
    player_id: &PlayerId,
) -> Result<bool, StoreError> {
    sqlx::query(
        "INSERT INTO player_names (name_key, player_id) VALUES ($1, $2) \
         ON CONFLICT (name_key) DO NOTHING",
    )
    .bind(name_key)
    .bind(player_id.as_str())
    .execute(&mut *conn)
    .await?;
    let owner: String =
        sqlx::query_scalar("SELECT player_id FROM player_names WHERE name_key = $1")
            .bind(name_key)
            .fetch_one(&mut *conn)
            .await?;
    Ok(owner == player_id.as_str())
}

/// Gives every name claimed under the older rule (lowercase only) its key under the
/// current one, once per database. Where two old names share a new key (`bob` and
/// `b0b`), the first claimed keeps it; the other player keeps their name as it is, and
/// only a rename to a look-alike is refused from now on.
pub(super) async fn upgrade_name_keys(pool: &Pool<Db>) -> Result<(), StoreError> {
    let rule: Option<String> =
        sqlx::query_scalar("SELECT value FROM store_meta WHERE key = 'name_keys'")
            .fetch_optional(pool)
            .await?;
    if rule.as_deref() == Some(KEY_RULE) {
        return Ok(());
    }
    let mut tx = pool.begin().await?;
    let claims: Vec<(String, String)> = sqlx::query_as(
        "SELECT n.name_key, n.player_id FROM player_names n \
             JOIN players p ON p.player_id = n.player_id ORDER BY p.created_at, n.name_key",
    )
    .fetch_all(&mut *tx)
    .await?;
    for (old_key, player_id) in &claims {
        claim_name(
            &mut tx,
            &name_key(old_key),
            &PlayerId::from(player_id.as_str()),
        )
        .await?;
    }
    sqlx::query(
        "INSERT INTO store_meta (key, value) VALUES ('name_keys', $1) \
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    )
    .bind(KEY_RULE)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    if !claims.is_empty() {
        tracing::info!(
            names = claims.len(),
            "name keys upgraded to confusable skeletons"
        );
    }
    Ok(())
}
