//! The SQL reads behind the store's read API: players by token, a player's games,
//! ratings and rating lists, stored games and the leaderboard.
//!
//! Each read that touches several tables runs in one transaction, so its parts come
//! from one snapshot. Rows are decoded by [`super::rows`].

use parlor_rules::GameKind;
use std::collections::HashSet;

use parlor_room::{GameId, PlayerId};
use sqlx::Pool;

use super::endings::read_ratings;
use super::{Db, READ_SNAPSHOT};
use crate::store::sql::rows::{
    ChatRow, GameRow, LeaderboardRow, MoveRow, PlayerGameRow, PlayerRow, RatingEntryRow, SeatRow,
};
use crate::store::{
    Fence, GameStatus, LeaderboardEntry, MoveRecord, PlayerGame, PlayerRecord, RatingEntry,
    RatingShift, SiteIdentity, StoreError, StoredGame, UnfinishedGame,
};
use parlor_room::ratings::{RatedKey, Rating};
use parlor_room::scoring::Opponent;

/// A read-only transaction whose statements all see one snapshot (on PostgreSQL that
/// takes `REPEATABLE READ`: its default gives each statement a snapshot of its own).
async fn snapshot(pool: &Pool<Db>) -> Result<sqlx::Transaction<'static, Db>, sqlx::Error> {
    match READ_SNAPSHOT {
        Some(begin) => pool.begin_with(begin).await,
        None => pool.begin().await,
    }
}

/// The player whose token hashes to `token_hash`, if any.
pub(super) async fn player_by_token(
    pool: &Pool<Db>,
    token_hash: &str,
) -> Result<Option<PlayerRecord>, StoreError> {
    let row: Option<PlayerRow> =
        sqlx::query_as("SELECT player_id, name, bot_since FROM players WHERE token_hash = $1")
            .bind(token_hash)
            .fetch_optional(pool)
            .await?;
    Ok(row.map(PlayerRecord::from))
}

/// Whether `mv` is stored as it was played: the same ply of the same game, with the same
/// notation and time (a move a later owner stored at that ply is another move).
pub(super) async fn move_stored(pool: &Pool<Db>, mv: &MoveRecord) -> Result<bool, StoreError> {
    let found: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM moves WHERE game_id = $1 AND ply = $2 AND notation = $3 AND played_at = $4",
    )
    .bind(mv.game_id.as_str())
    .bind(i64::from(mv.ply))
    .bind(mv.notation.as_str())
    .bind(mv.played_at_ms)
    .fetch_one(pool)
    .await?;
    Ok(found > 0)
}

/// Both seats' ratings before and after `game_id`, as its record keeps them once it
/// ended rated; `None` while it is unfinished, or if it was not rated.
pub(super) async fn rating_shifts(
    pool: &Pool<Db>,
    game_id: &GameId,
) -> Result<Option<[RatingShift; 2]>, StoreError> {
    let rows: Vec<(Option<f64>, Option<f64>)> = sqlx::query_as(
        "SELECT rating_before, rating_after FROM game_seats WHERE game_id = $1 ORDER BY seat",
    )
    .bind(game_id.as_str())
    .fetch_all(pool)
    .await?;
    let shift = |row: Option<&(Option<f64>, Option<f64>)>| match row {
        Some(&(Some(before), Some(after))) => Some(RatingShift { before, after }),
        _ => None,
    };
    Ok(shift(rows.first())
        .zip(shift(rows.get(1)))
        .map(|(first, second)| [first, second]))
}

/// The player a site account is bound to, if any.
pub(super) async fn player_by_identity(
    pool: &Pool<Db>,
    identity: &SiteIdentity,
) -> Result<Option<PlayerRecord>, StoreError> {
    let row: Option<PlayerRow> = sqlx::query_as(
        "SELECT players.player_id, players.name, players.bot_since FROM player_identities \
         JOIN players ON players.player_id = player_identities.player_id \
         WHERE player_identities.issuer = $1 AND player_identities.subject = $2",
    )
    .bind(identity.issuer.as_str())
    .bind(identity.subject.as_str())
    .fetch_optional(pool)
    .await?;
    Ok(row.map(PlayerRecord::from))
}

/// A player's games, newest first; `None` if no such player exists.
pub(super) async fn player_games(
    pool: &Pool<Db>,
    player_id: &PlayerId,
    limit: u32,
) -> Result<Option<Vec<PlayerGame>>, StoreError> {
    let mut tx = snapshot(pool).await?;
    let known: Option<String> =
        sqlx::query_scalar("SELECT player_id FROM players WHERE player_id = $1")
            .bind(player_id.as_str())
            .fetch_optional(&mut *tx)
            .await?;
    if known.is_none() {
        tx.rollback().await?;
        return Ok(None);
    }
    let rows: Vec<PlayerGameRow> = sqlx::query_as(
        "SELECT g.game_id, g.game, g.status, g.started_at, g.winner, g.reason, s.seat, \
         s.score, s.opponent, \
         (SELECT name FROM game_seats WHERE game_id = g.game_id AND seat = 0) AS name0, \
         (SELECT name FROM game_seats WHERE game_id = g.game_id AND seat = 1) AS name1 \
         FROM games g JOIN game_seats s ON s.game_id = g.game_id \
         WHERE s.player_id = $1 ORDER BY g.started_at DESC, g.game_id LIMIT $2",
    )
    .bind(player_id.as_str())
    .bind(i64::from(limit))
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    rows.into_iter()
        .map(PlayerGame::try_from)
        .collect::<Result<Vec<_>, StoreError>>()
        .map(Some)
}

/// Two seats' current ratings in `game`, each `None` if the seat has no key (no person
/// holds it) or its person has no rating yet.
pub(super) async fn ratings(
    pool: &Pool<Db>,
    game: GameKind,
    keys: [Option<&RatedKey>; 2],
) -> Result<[Option<Rating>; 2], StoreError> {
    let mut conn = pool.acquire().await?;
    let wanted: HashSet<(&str, &str)> = keys
        .iter()
        .flatten()
        .map(|key| (game.as_str(), key.as_str()))
        .collect();
    let stored = read_ratings(&mut *conn, &wanted).await?;
    let in_game = stored.get(game.as_str());
    Ok(keys.map(|key| {
        in_game
            .zip(key)
            .and_then(|(ratings, key)| ratings.get(key.as_str()))
            .copied()
    }))
}

/// The highest-rated players in `game`, at most `limit`.
pub(super) async fn rating_leaderboard(
    pool: &Pool<Db>,
    game: GameKind,
    limit: u32,
) -> Result<Vec<RatingEntry>, StoreError> {
    // Only people are rated; the join with players keeps it so should a row of another
    // key ever be written.
    ranked(
        pool,
        "SELECT r.player_key, p.name, r.rating, r.deviation, r.games, p.bot_since FROM ratings r \
         JOIN players p ON p.player_id = r.player_key \
         WHERE r.game = $1 ORDER BY r.rating DESC, r.player_key LIMIT $2",
        game,
        limit,
        None,
        RatingEntryRow::ranked,
    )
    .await
}

/// The rows `sql` (with `$1` the game, `$2` the limit and, if `filter` is given, `$3`
/// that filter) selects, best first, each decoded with its rank (1 for the first).
async fn ranked<R, T>(
    pool: &Pool<Db>,
    sql: &str,
    game: GameKind,
    limit: u32,
    filter: Option<String>,
    entry: fn(R, u32) -> T,
) -> Result<Vec<T>, StoreError>
where
    R: for<'r> sqlx::FromRow<'r, <Db as sqlx::Database>::Row> + Send + Unpin,
{
    let mut query = sqlx::query_as(sql)
        .bind(game.as_str())
        .bind(i64::from(limit));
    if let Some(filter) = filter {
        query = query.bind(filter);
    }
    let rows: Vec<R> = query.fetch_all(pool).await?;
    Ok((1u32..)
        .zip(rows)
        .map(|(rank, row)| entry(row, rank))
        .collect())
}

/// A stored game with its seats and moves, read from one snapshot.
pub(super) async fn game(
    pool: &Pool<Db>,
    game_id: &GameId,
) -> Result<Option<StoredGame>, StoreError> {
    let mut tx = snapshot(pool).await?;
    let Some(row): Option<GameRow> = sqlx::query_as(
        "SELECT game_id, game, room_id, status, options, started_at, finished_at, winner, \
         reason, duration_ms, draw_offer_seat, draw_offer_ply, rules FROM games \
         WHERE game_id = $1",
    )
    .bind(game_id.as_str())
    .fetch_optional(&mut *tx)
    .await?
    else {
        tx.rollback().await?;
        return Ok(None);
    };
    let seats: Vec<SeatRow> = sqlx::query_as(
        "SELECT seat, kind, player_id, name, thinking_ms, score, opponent, rating_before, \
         rating_after, stood_in FROM game_seats WHERE game_id = $1 ORDER BY seat",
    )
    .bind(game_id.as_str())
    .fetch_all(&mut *tx)
    .await?;
    let moves: Vec<MoveRow> = sqlx::query_as(
        "SELECT ply, seat, notation, played_at, think_ms, clock0_ms, clock1_ms FROM moves \
         WHERE game_id = $1 ORDER BY ply",
    )
    .bind(game_id.as_str())
    .fetch_all(&mut *tx)
    .await?;
    let chat: Vec<ChatRow> = sqlx::query_as(
        "SELECT line, channel, player_id, name, text, said_at, ply FROM chat_lines \
         WHERE game_id = $1 ORDER BY line",
    )
    .bind(game_id.as_str())
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;

    let seats = seats
        .into_iter()
        .map(TryFrom::try_from)
        .collect::<Result<_, _>>()?;
    let moves = moves
        .into_iter()
        .map(TryFrom::try_from)
        .collect::<Result<_, _>>()?;
    let chat = chat
        .into_iter()
        .map(TryFrom::try_from)
        .collect::<Result<_, _>>()?;
    row.into_game(seats, moves, chat).map(Some)
}

/// Every game still playing, oldest first, with its room.
pub(super) async fn unfinished_games(pool: &Pool<Db>) -> Result<Vec<UnfinishedGame>, StoreError> {
    let rows: Vec<(String, String, i64)> = sqlx::query_as(
        "SELECT game_id, room_id, fence FROM games WHERE status = $1 \
         ORDER BY started_at, game_id",
    )
    .bind(GameStatus::Playing.as_str())
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(game_id, room_id, fence)| UnfinishedGame {
            game_id: game_id.into(),
            room_id: room_id.into(),
            fence: Fence(fence),
        })
        .collect())
}

/// The best scores in `game` against `opponent` (against anyone: each player's best per
/// opponent), highest first, earliest first on ties, at most `limit`.
pub(super) async fn leaderboard(
    pool: &Pool<Db>,
    game: GameKind,
    opponent: Option<Opponent>,
    limit: u32,
) -> Result<Vec<LeaderboardEntry>, StoreError> {
    let sql = match opponent {
        Some(_) => {
            "SELECT l.player_id, p.name, l.opponent, l.score, l.game_id, l.achieved_at, p.bot_since \
             FROM leaderboard l JOIN players p ON p.player_id = l.player_id \
             WHERE l.game = $1 AND l.opponent = $3 \
             ORDER BY l.score DESC, l.achieved_at ASC, l.player_id ASC \
             LIMIT $2"
        }
        None => {
            "SELECT l.player_id, p.name, l.opponent, l.score, l.game_id, l.achieved_at, p.bot_since \
             FROM leaderboard l JOIN players p ON p.player_id = l.player_id \
             WHERE l.game = $1 \
             ORDER BY l.score DESC, l.achieved_at ASC, l.player_id ASC, l.opponent ASC \
             LIMIT $2"
        }
    };
    let filter = opponent.map(|opponent| opponent.to_string());
    let rows = ranked(pool, sql, game, limit, filter, LeaderboardRow::ranked).await?;
    rows.into_iter().collect()
}
