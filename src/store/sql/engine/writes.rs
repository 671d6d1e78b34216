//! The SQL writes: players and their names, game starts, moves, endings that no move
//! caused, open draw offers, the interruption of unfinished games, and the server's
//! incarnation number.
//!
//! The statements here run inside a transaction their caller holds (the batch writer's,
//! [`super::batch`]) or open and commit one of their own; either way they return only
//! once the write is committed. The store's write lock is taken by the caller.

use std::borrow::Cow;

use parlor_room::{GameId, PlayerId};
use parlor_rules::games::Seat;
use sqlx::Pool;

use super::endings::write_finishes;
use super::names::claim_name;
use super::{Db, DbConnection, PLACEHOLDERS, ROW_SHARE_LOCK_PLAIN};
use crate::store::sql::log_connection::{LogConnection, Param};
use crate::store::sql::names::name_key;
use crate::store::{
    ChatRecord, DrawOfferRecord, Fence, GameFinish, GameStatus, MoveRecord, NewGame, PlayerRecord,
    RatingChange, SiteIdentity, StoreError,
};

/// The columns of a stored game's row, as [`insert_games`] binds them.
const GAME_COLUMNS: usize = 8;

/// The columns of a game seat's row, as [`insert_games`] binds them.
const SEAT_COLUMNS: usize = 5;

/// Records games as started under their rooms' tokens, with their seats: one `INSERT`
/// for the games and one for all their seats, inside the caller's transaction.
///
/// Recording a start again is a success: a room whose start's write was lost (it may
/// have committed) records the same game again, and that second record replaces the
/// first (its start time, settings and seats), so one game stays stored. That holds
/// only for the same game of the same room under the same token, still playing and
/// with no move yet; any other game already stored under an id fails as
/// [`StoreError::GameIdTaken`].
pub(super) async fn insert_games(
    conn: &mut impl LogConnection,
    games: &[(&NewGame, Fence)],
) -> Result<(), StoreError> {
    if games.is_empty() {
        return Ok(());
    }
    let mut sql = String::from(
        "INSERT INTO games (game_id, game, room_id, status, options, started_at, rules, fence) \
         VALUES ",
    );
    PLACEHOLDERS.push_rows(&mut sql, games.len(), GAME_COLUMNS);
    sql.push_str(
        " ON CONFLICT (game_id) DO UPDATE SET options = excluded.options, \
         started_at = excluded.started_at, rules = excluded.rules \
         WHERE games.room_id = excluded.room_id AND games.game = excluded.game \
         AND games.fence = excluded.fence AND games.status = excluded.status \
         AND NOT EXISTS (SELECT 1 FROM moves WHERE moves.game_id = games.game_id)",
    );
    let params: Vec<Param<'_>> = games
        .iter()
        .flat_map(|(game, fence)| {
            [
                Param::text(&game.game_id),
                Param::text(game.game.as_str()),
                Param::text(&game.room_id),
                Param::text(GameStatus::Playing.as_str()),
                Param::text(&game.options_json),
                Param::int(game.started_at_ms),
                Param::text(&game.rules_json),
                Param::int(fence.0),
            ]
        })
        .collect();
    let recorded = conn.execute(&sql, &params).await?;
    if usize::try_from(recorded).ok() != Some(games.len()) {
        // Only a batch of one says which; a batch refused is written again one by one.
        let game_id = match games {
            [(game, _)] => game.game_id.clone(),
            _ => GameId::from("(one of a batch)"),
        };
        return Err(StoreError::GameIdTaken { game_id });
    }

    let seats = games.iter().map(|(game, _)| game.seats.len()).sum();
    if seats == 0 {
        return Ok(());
    }
    let mut sql =
        String::from("INSERT INTO game_seats (game_id, seat, kind, player_id, name) VALUES ");
    PLACEHOLDERS.push_rows(&mut sql, seats, SEAT_COLUMNS);
    sql.push_str(
        " ON CONFLICT (game_id, seat) DO UPDATE SET kind = excluded.kind, \
         player_id = excluded.player_id, name = excluded.name",
    );
    let mut params = Vec::with_capacity(seats * SEAT_COLUMNS);
    for (game, _) in games {
        for seat in &game.seats {
            params.extend([
                Param::text(&game.game_id),
                Param::int(seat.seat),
                Param::Text(Some(Cow::Owned(seat.kind.to_string()))),
                Param::Text(seat.player_id.as_ref().map(|id| Cow::Borrowed(id.as_str()))),
                Param::text(&seat.name),
            ]);
        }
    }
    conn.execute(&sql, &params).await?;
    Ok(())
}

/// Appends one move to its game's log and, when it ends the game, writes the ending
/// (and the ratings) too: the statements of one move, inside the caller's transaction.
pub(super) async fn write_move(
    conn: &mut impl LogConnection,
    mv: &MoveRecord,
    finish: Option<&GameFinish>,
    fence: Fence,
) -> Result<Option<[RatingChange; 2]>, StoreError> {
    conn.insert_moves(&[(mv, fence)]).await?.check(0, mv)?;
    match finish {
        Some(finish) => Ok(write_finishes(conn, &[(finish, fence)])
            .await?
            .pop()
            .flatten()),
        None => Ok(None),
    }
}

/// Registers a player and claims their name in one transaction; with `identity`, binds
/// that site account to them in the same one.
pub(super) async fn create_player(
    pool: &Pool<Db>,
    player: &PlayerRecord,
    token_hash: &str,
    identity: Option<&SiteIdentity>,
    created_at_ms: i64,
) -> Result<(), StoreError> {
    let name_key = name_key(&player.name);
    let mut tx = pool.begin().await?;
    sqlx::query(
        "INSERT INTO players (player_id, token_hash, name, created_at) VALUES ($1, $2, $3, $4)",
    )
    .bind(player.player_id.as_str())
    .bind(token_hash)
    .bind(player.name.as_str())
    .bind(created_at_ms)
    .execute(&mut *tx)
    .await?;
    if !claim_name(&mut tx, &name_key, &player.player_id).await? {
        tx.rollback().await?;
        return Err(StoreError::NameTaken);
    }
    if let Some(identity) = identity
        && !bind_identity(&mut tx, &player.player_id, identity, created_at_ms).await?
    {
        tx.rollback().await?;
        return Err(StoreError::AlreadyLinked);
    }
    tx.commit().await?;
    Ok(())
}

/// Binds a site account to an existing player, unless either is bound already, and
/// retires the player's guest token for `token_hash`.
pub(super) async fn link_identity(
    pool: &Pool<Db>,
    player_id: &PlayerId,
    identity: &SiteIdentity,
    token_hash: &str,
    linked_at_ms: i64,
) -> Result<(), StoreError> {
    let mut tx = pool.begin().await?;
    if !bind_identity(&mut tx, player_id, identity, linked_at_ms).await? {
        tx.rollback().await?;
        return Err(StoreError::AlreadyLinked);
    }
    sqlx::query("UPDATE players SET token_hash = $2 WHERE player_id = $1")
        .bind(player_id.as_str())
        .bind(token_hash)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}

/// Inserts the binding of `identity` to `player_id`; whether it was free on both sides.
async fn bind_identity(
    conn: &mut DbConnection,
    player_id: &PlayerId,
    identity: &SiteIdentity,
    linked_at_ms: i64,
) -> Result<bool, StoreError> {
    let inserted = sqlx::query(
        "INSERT INTO player_identities (issuer, subject, player_id, linked_at) \
         VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
    )
    .bind(identity.issuer.as_str())
    .bind(identity.subject.as_str())
    .bind(player_id.as_str())
    .bind(linked_at_ms)
    .execute(&mut *conn)
    .await?;
    Ok(inserted.rows_affected() == 1)
}

/// Claims `name` for an existing player and makes it their display name, in one
/// transaction; nothing is written if the name is taken or the player unknown.
pub(super) async fn rename_player(
    pool: &Pool<Db>,
    player_id: &PlayerId,
    name: &str,
) -> Result<(), StoreError> {
    let name_key = name_key(name);
    let mut tx = pool.begin().await?;
    if !claim_name(&mut tx, &name_key, player_id).await? {
        tx.rollback().await?;
        return Err(StoreError::NameTaken);
    }
    let updated = sqlx::query("UPDATE players SET name = $2 WHERE player_id = $1")
        .bind(player_id.as_str())
        .bind(name)
        .execute(&mut *tx)
        .await?;
    if updated.rows_affected() == 0 {
        tx.rollback().await?;
        return Err(StoreError::Database(sqlx::Error::RowNotFound));
    }
    tx.commit().await?;
    Ok(())
}

/// Writes an ending that no move caused, with the rating changes it causes, in a
/// transaction of its own.
pub(super) async fn finish_game(
    pool: &Pool<Db>,
    finish: &GameFinish,
    fence: Fence,
) -> Result<Option<[RatingChange; 2]>, StoreError> {
    let mut tx = pool.begin().await?;
    let changes = write_finishes(&mut *tx, &[(finish, fence)])
        .await?
        .pop()
        .flatten();
    tx.commit().await?;
    Ok(changes)
}

/// Marks games still playing as interrupted (only `game_id`, when given, and only if
/// it is owned under its token), giving each its move count; returns how many.
pub(super) async fn interrupt(
    pool: &Pool<Db>,
    game: Option<(&GameId, Fence)>,
) -> Result<u64, StoreError> {
    // The move count is kept per move only in the moves table; an unfinished game
    // gets its count here, as a finished one does from its ending.
    let mut sql = String::from(
        "UPDATE games SET status = $1, draw_offer_seat = NULL, draw_offer_ply = NULL, \
         moves = (SELECT COUNT(*) FROM moves WHERE moves.game_id = games.game_id) \
         WHERE status = $2",
    );
    if game.is_some() {
        sql.push_str(" AND game_id = $3 AND fence = $4");
    }
    let query = sqlx::query(&sql)
        .bind(GameStatus::Interrupted.as_str())
        .bind(GameStatus::Playing.as_str());
    let query = match game {
        Some((game_id, fence)) => query.bind(game_id.as_str()).bind(fence.0),
        None => query,
    };
    let done = query.execute(pool).await?;
    Ok(done.rows_affected())
}

/// Records the draw offer open in an unfinished game, or that none is; refused as
/// [`StoreError::Fenced`] if the game is owned under another token.
pub(super) async fn record_draw_offer(
    pool: &Pool<Db>,
    game_id: &GameId,
    offer: Option<DrawOfferRecord>,
    fence: Fence,
) -> Result<(), StoreError> {
    let mut tx = pool.begin().await?;
    check_fence(&mut tx, game_id, fence).await?;
    sqlx::query(
        "UPDATE games SET draw_offer_seat = $1, draw_offer_ply = $2 \
         WHERE game_id = $3 AND status = $4",
    )
    .bind(offer.map(|offer| i64::from(offer.seat)))
    .bind(offer.map(|offer| i64::from(offer.ply)))
    .bind(game_id.as_str())
    .bind(GameStatus::Playing.as_str())
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Records that a bot has played for the person in `seat` of an unfinished game;
/// refused as [`StoreError::Fenced`] if the game is owned under another token.
pub(super) async fn record_stand_in(
    pool: &Pool<Db>,
    game_id: &GameId,
    seat: Seat,
    fence: Fence,
) -> Result<(), StoreError> {
    let mut tx = pool.begin().await?;
    check_fence(&mut tx, game_id, fence).await?;
    sqlx::query("UPDATE game_seats SET stood_in = 1 WHERE game_id = $1 AND seat = $2")
        .bind(game_id.as_str())
        .bind(i64::from(seat))
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}

/// Records a chat line of a game (once: a line already stored under its number stays);
/// refused as [`StoreError::Fenced`] if the game is owned under another token.
pub(super) async fn record_chat(
    pool: &Pool<Db>,
    said: &ChatRecord,
    fence: Fence,
) -> Result<(), StoreError> {
    let mut tx = pool.begin().await?;
    check_fence(&mut tx, &said.game_id, fence).await?;
    let line = &said.line;
    sqlx::query(
        "INSERT INTO chat_lines (game_id, line, channel, player_id, name, text, said_at, ply) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (game_id, line) DO NOTHING",
    )
    .bind(said.game_id.as_str())
    .bind(i64::try_from(said.number).unwrap_or(i64::MAX))
    .bind(said.channel.as_str())
    .bind(line.player_id.as_str())
    .bind(&line.name)
    .bind(&line.text)
    .bind(line.at_ms)
    .bind(i64::try_from(line.ply).unwrap_or(i64::MAX))
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Fails with [`StoreError::Fenced`] unless `game_id` is owned under `fence` (an unknown
/// game passes: the write that follows finds nothing to change). The game's row stays
/// share-locked on PostgreSQL until the caller's transaction ends.
async fn check_fence(
    conn: &mut DbConnection,
    game_id: &GameId,
    fence: Fence,
) -> Result<(), StoreError> {
    let sql = format!("SELECT fence FROM games WHERE game_id = $1{ROW_SHARE_LOCK_PLAIN}");
    let owner: Option<i64> = sqlx::query_scalar(&sql)
        .bind(game_id.as_str())
        .fetch_optional(&mut *conn)
        .await?;
    match owner {
        Some(owner) if owner != fence.0 => Err(StoreError::Fenced {
            game_id: game_id.clone(),
        }),
        _ => Ok(()),
    }
}

/// Hands an unfinished game to the owner of `fence`, if no token as high holds it.
pub(super) async fn take_over(
    pool: &Pool<Db>,
    game_id: &GameId,
    fence: Fence,
) -> Result<(), StoreError> {
    let updated = sqlx::query(
        "UPDATE games SET fence = $1 WHERE game_id = $2 AND status = $3 AND fence < $1",
    )
    .bind(fence.0)
    .bind(game_id.as_str())
    .bind(GameStatus::Playing.as_str())
    .execute(pool)
    .await?;
    if updated.rows_affected() == 0 {
        return Err(StoreError::Fenced {
            game_id: game_id.clone(),
        });
    }
    Ok(())
}

/// Takes the next incarnation number: one more than the last, or 1 the first time.
pub(super) async fn next_incarnation(pool: &Pool<Db>) -> Result<u64, StoreError> {
    // One statement, so two servers asking at once (a fleet) never get the same number.
    let value: String = sqlx::query_scalar(
        "INSERT INTO store_meta (key, value) VALUES ('incarnation', '1') \
         ON CONFLICT (key) DO UPDATE \
         SET value = CAST(CAST(store_meta.value AS BIGINT) + 1 AS TEXT) \
         RETURNING value",
    )
    .fetch_one(pool)
    .await?;
    value.parse().map_err(|error| {
        StoreError::Database(sqlx::Error::ColumnDecode {
            index: "store_meta.incarnation".to_owned(),
            source: Box::new(error),
        })
    })
}
