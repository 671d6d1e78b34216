//! The SQL behind accounts as the Bot API shows them: a player's account with their
//! ratings, found by id or by name, a player becoming a bot account, and the game of a
//! room (a Bot API game's id is its room's).

use parlor_room::{GameId, PlayerId, RoomId};
use parlor_rules::GameKind;
use sqlx::Pool;

use super::Db;
use crate::store::sql::names::name_key;
use crate::store::sql::rows::{AccountRow, GameRatingRow};
use crate::store::{AccountRecord, BotUpgrade, StoreError};

const ACCOUNT_COLUMNS: &str = "p.player_id, p.name, p.created_at, p.bot_since, p.bot_games";

/// The latest game played in `room`, if one was (a room's games are the Bot API's games).
pub(super) async fn latest_game_in_room(
    pool: &Pool<Db>,
    room: &RoomId,
) -> Result<Option<GameId>, StoreError> {
    let row: Option<(String,)> = sqlx::query_as(
        "SELECT game_id FROM games WHERE room_id = $1 ORDER BY started_at DESC LIMIT 1",
    )
    .bind(room.as_str())
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|(game_id,)| GameId::from(game_id)))
}

/// The account of `player_id`, if there is such a player.
pub(super) async fn account(
    pool: &Pool<Db>,
    player_id: &PlayerId,
) -> Result<Option<AccountRecord>, StoreError> {
    let query = format!("SELECT {ACCOUNT_COLUMNS} FROM players p WHERE p.player_id = $1");
    let row: Option<AccountRow> = sqlx::query_as(&query)
        .bind(player_id.as_str())
        .fetch_optional(pool)
        .await?;
    with_ratings(pool, row, player_id.as_str()).await
}

/// The account of the player who owns the name `name`, if any.
pub(super) async fn account_named(
    pool: &Pool<Db>,
    name: &str,
) -> Result<Option<AccountRecord>, StoreError> {
    let query = format!(
        "SELECT {ACCOUNT_COLUMNS} FROM player_names n JOIN players p ON p.player_id = n.player_id \
         WHERE n.name_key = $1"
    );
    let row: Option<AccountRow> = sqlx::query_as(&query)
        .bind(name_key(name))
        .fetch_optional(pool)
        .await?;
    let Some(row) = row else { return Ok(None) };
    let player_id = row.player_id().to_owned();
    with_ratings(pool, Some(row), &player_id).await
}

/// `row` made an account with the ratings of `player_id` (the key a person's ratings
/// are kept under).
async fn with_ratings(
    pool: &Pool<Db>,
    row: Option<AccountRow>,
    player_id: &str,
) -> Result<Option<AccountRecord>, StoreError> {
    let Some(row) = row else { return Ok(None) };
    let ratings: Vec<GameRatingRow> = sqlx::query_as(
        "SELECT game, rating, deviation, games FROM ratings WHERE player_key = $1 ORDER BY game",
    )
    .bind(player_id)
    .fetch_all(pool)
    .await?;
    row.into_account(ratings).map(Some)
}

/// Sets the games the bot account `player_id` takes challenges in; whether it is one.
pub(super) async fn set_bot_games(
    pool: &Pool<Db>,
    player_id: &PlayerId,
    games: &[GameKind],
) -> Result<bool, StoreError> {
    let names: Vec<&str> = games.iter().map(|game| game.as_str()).collect();
    let updated = sqlx::query(
        "UPDATE players SET bot_games = $2 WHERE player_id = $1 AND bot_since IS NOT NULL",
    )
    .bind(player_id.as_str())
    .bind(names.join(","))
    .execute(pool)
    .await?;
    Ok(updated.rows_affected() == 1)
}

/// Makes `player_id` a bot account at `now_ms`, unless they have a game (as a person:
/// such a player stays one) or are one already.
pub(super) async fn upgrade_to_bot(
    pool: &Pool<Db>,
    player_id: &PlayerId,
    now_ms: i64,
) -> Result<BotUpgrade, StoreError> {
    let mut tx = pool.begin().await?;
    let bot_since: Option<(Option<i64>,)> =
        sqlx::query_as("SELECT bot_since FROM players WHERE player_id = $1")
            .bind(player_id.as_str())
            .fetch_optional(&mut *tx)
            .await?;
    let upgrade = match bot_since {
        None => BotUpgrade::UnknownPlayer,
        Some((Some(_),)) => BotUpgrade::AlreadyBot,
        Some((None,)) => {
            let played: Option<(i64,)> =
                sqlx::query_as("SELECT seat FROM game_seats WHERE player_id = $1 LIMIT 1")
                    .bind(player_id.as_str())
                    .fetch_optional(&mut *tx)
                    .await?;
            if played.is_some() {
                BotUpgrade::HasPlayed
            } else {
                sqlx::query("UPDATE players SET bot_since = $2 WHERE player_id = $1")
                    .bind(player_id.as_str())
                    .bind(now_ms)
                    .execute(&mut *tx)
                    .await?;
                BotUpgrade::Upgraded
            }
        }
    };
    tx.commit().await?;
    Ok(upgrade)
}
