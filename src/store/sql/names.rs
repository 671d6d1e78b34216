//! How names compare for ownership: the key a name is claimed under, and the one-time
//! upgrade of keys written under the older rule.
//!
//! A name belongs to the first player that used it. Two names that a person would read
//! as the same must not belong to two players, so a name's key is its confusable
//! skeleton (Unicode TS #39, from the `unicode-security` crate) of its lowercase form:
//! `Alice`, `alice` and `Аlice` (with a Cyrillic `А`) share one key, as do `b0b` and
//! `bob`.

use sqlx::{AnyConnection, AnyPool};
use unicode_security::skeleton;

use crate::store::StoreError;

/// The rule the keys in `player_names` follow, as recorded in `store_meta`.
const KEY_RULE: &str = "skeleton-v1";

/// The key `name` is claimed under.
pub(super) fn name_key(name: &str) -> String {
    skeleton(&name.to_lowercase())
        .collect::<String>()
        .to_lowercase()
}

/// Claims `name_key` for `player_id` unless another player holds it; whether the
/// player holds it now.
pub(super) async fn claim_name(
    conn: &mut AnyConnection,
    name_key: &str,
    player_id: &str,
) -> Result<bool, StoreError> {
    sqlx::query(
        "INSERT INTO player_names (name_key, player_id) VALUES ($1, $2) \
         ON CONFLICT (name_key) DO NOTHING",
    )
    .bind(name_key)
    .bind(player_id)
    .execute(&mut *conn)
    .await?;
    let owner: String =
        sqlx::query_scalar("SELECT player_id FROM player_names WHERE name_key = $1")
            .bind(name_key)
            .fetch_one(&mut *conn)
            .await?;
    Ok(owner == player_id)
}

/// Gives every name claimed under the older rule (lowercase only) its key under the
/// current one, once per database. Where two old names share a new key (`bob` and
/// `b0b`), the first claimed keeps it; the other player keeps their name as it is, and
/// only a rename to a look-alike is refused from now on.
pub(super) async fn upgrade_name_keys(pool: &AnyPool) -> Result<(), StoreError> {
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
        claim_name(&mut tx, &name_key(old_key), player_id).await?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alike_names_share_a_key() {
        assert_eq!(name_key("Alice"), name_key("alice"));
        assert_eq!(name_key("Alice"), name_key("\u{0410}lice"), "Cyrillic A");
        assert_eq!(
            name_key("paypal"),
            name_key("p\u{0430}yp\u{0430}l"),
            "Cyrillic a"
        );
        assert_eq!(name_key("bob"), name_key("b0b"));
        assert_ne!(name_key("Alice"), name_key("Alicia"));
        assert_ne!(name_key("Ann"), name_key("Anna"));
    }
}
