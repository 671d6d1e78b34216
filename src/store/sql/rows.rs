//! Row decoding: database rows to the store's domain values, with every narrowing
//! checked and every failure a [`StoreError`].

use std::str::FromStr;

use sqlx::Row;
use sqlx::any::AnyRow;

use crate::ratings::Rating;
use crate::store::{
    DrawOfferRecord, LeaderboardEntry, PlayerGame, PlayerRecord, RatingEntry, StoreError,
    StoredGame, StoredMove, StoredSeat,
};

/// Decodes a `players` row (its `player_id` and `name`).
pub(super) fn player_from_row(row: &AnyRow) -> Result<PlayerRecord, StoreError> {
    Ok(PlayerRecord {
        player_id: row.try_get("player_id")?,
        name: row.try_get("name")?,
    })
}

/// Decodes a row of a player's list of games: the game's columns, the player's `seat`
/// and both seats' names as `name0` and `name1`.
pub(super) fn player_game_from_row(row: &AnyRow) -> Result<PlayerGame, StoreError> {
    Ok(PlayerGame {
        game_id: row.try_get("game_id")?,
        game: named(row, "game")?,
        status: named(row, "status")?,
        seat: narrow(row.try_get("seat")?, "seat")?,
        names: vec![row.try_get("name0")?, row.try_get("name1")?],
        started_at_ms: row.try_get("started_at")?,
        winner: narrow_opt(row.try_get("winner")?, "winner")?,
        reason: named_opt(row, "reason")?,
    })
}

/// Decodes a `games` row, completed with the game's decoded seats and moves.
pub(super) fn game_from_row(
    row: &AnyRow,
    seats: Vec<StoredSeat>,
    moves: Vec<StoredMove>,
) -> Result<StoredGame, StoreError> {
    Ok(StoredGame {
        game_id: row.try_get("game_id")?,
        game: named(row, "game")?,
        room_id: row.try_get("room_id")?,
        status: named(row, "status")?,
        options: parse_options(&row.try_get::<String, _>("options")?),
        started_at_ms: row.try_get("started_at")?,
        finished_at_ms: row.try_get("finished_at")?,
        winner: narrow_opt(row.try_get("winner")?, "winner")?,
        reason: named_opt(row, "reason")?,
        duration_ms: row.try_get("duration_ms")?,
        seats,
        moves,
        draw_offer: match (
            row.try_get::<Option<i64>, _>("draw_offer_seat")?,
            row.try_get::<Option<i64>, _>("draw_offer_ply")?,
        ) {
            (Some(seat), Some(ply)) => Some(DrawOfferRecord {
                seat: narrow(seat, "draw_offer_seat")?,
                ply: narrow(ply, "draw_offer_ply")?,
            }),
            _ => None,
        },
        rules: row
            .try_get::<Option<String>, _>("rules")?
            .map(|text| serde_json::from_str(&text))
            .transpose()
            .map_err(|error| column_error("rules", error))?,
    })
}

/// Decodes a `game_seats` row.
pub(super) fn seat_from_row(row: &AnyRow) -> Result<StoredSeat, StoreError> {
    Ok(StoredSeat {
        seat: narrow(row.try_get("seat")?, "seat")?,
        kind: named(row, "kind")?,
        player_id: row.try_get("player_id")?,
        name: row.try_get("name")?,
        thinking_ms: row.try_get("thinking_ms")?,
        score: row.try_get("score")?,
        rating_before: rounded(row.try_get("rating_before")?),
        rating_after: rounded(row.try_get("rating_after")?),
        stood_in: row.try_get::<i64, _>("stood_in")? != 0,
    })
}

/// Decodes a `moves` row.
pub(super) fn move_from_row(row: &AnyRow) -> Result<StoredMove, StoreError> {
    let notation: String = row.try_get("notation")?;
    Ok(StoredMove {
        ply: narrow(row.try_get("ply")?, "ply")?,
        seat: narrow(row.try_get("seat")?, "seat")?,
        display: notation.clone(),
        notation,
        played_at_ms: row.try_get("played_at")?,
        think_ms: row.try_get("think_ms")?,
        clocks_ms: match (
            row.try_get::<Option<i64>, _>("clock0_ms")?,
            row.try_get::<Option<i64>, _>("clock1_ms")?,
        ) {
            (Some(first), Some(second)) => Some([first, second]),
            _ => None,
        },
    })
}

/// Decodes a rating from a row of `ratings` (its `rating`, `deviation` and `volatility`).
pub(super) fn rating_from_row(row: &AnyRow) -> Result<Rating, StoreError> {
    Ok(Rating {
        rating: row.try_get("rating")?,
        deviation: row.try_get("deviation")?,
        volatility: row.try_get("volatility")?,
    })
}

/// Decodes a row of a game's rating list (a `ratings` row joined with the player's
/// `name`), placed at `rank`.
pub(super) fn rating_entry_from_row(rank: u32, row: &AnyRow) -> Result<RatingEntry, StoreError> {
    Ok(RatingEntry {
        rank,
        player_id: row.try_get("player_key")?,
        name: row.try_get("name")?,
        rating: row.try_get("rating")?,
        deviation: row.try_get("deviation")?,
        games: row.try_get("games")?,
    })
}

/// Decodes a `leaderboard` row joined with the player's `name`, placed at `rank`.
pub(super) fn leaderboard_entry_from_row(
    rank: u32,
    row: &AnyRow,
) -> Result<LeaderboardEntry, StoreError> {
    Ok(LeaderboardEntry {
        rank,
        player_id: row.try_get("player_id")?,
        name: row.try_get("name")?,
        score: row.try_get("score")?,
        game_id: row.try_get("game_id")?,
        achieved_at_ms: row.try_get("achieved_at")?,
    })
}

/// Decodes a text `column` that holds a name (a status, a game, a seat kind, an end
/// reason): a name that does not parse is a decoding error naming the column, never a
/// string passed on.
fn named<T>(row: &AnyRow, column: &str) -> Result<T, StoreError>
where
    T: FromStr,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    let name: String = row.try_get(column)?;
    name.parse()
        .map_err(|unknown| column_error(column, unknown))
}

/// Like [`named`] for a nullable column.
fn named_opt<T>(row: &AnyRow, column: &str) -> Result<Option<T>, StoreError>
where
    T: FromStr,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    let name: Option<String> = row.try_get(column)?;
    name.map(|name| {
        name.parse()
            .map_err(|unknown| column_error(column, unknown))
    })
    .transpose()
}

/// Stored options as JSON; text that is not JSON (never written by Parlor) is kept as a
/// string rather than lost. Unlike an unknown status, this is not an error: the store
/// never interprets the options, and failing here would hide the game's moves too.
fn parse_options(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|_| serde_json::Value::String(text.to_owned()))
}

/// A stored rating as clients see it: rounded to a whole number.
fn rounded(rating: Option<f64>) -> Option<i64> {
    rating.map(|value| value.round() as i64)
}

/// Narrows an integer read from the database to the record's type, or fails as a
/// decoding error naming the column.
fn narrow<T>(value: i64, column: &str) -> Result<T, StoreError>
where
    T: TryFrom<i64, Error = std::num::TryFromIntError>,
{
    T::try_from(value).map_err(|e| column_error(column, e))
}

/// Like [`narrow`] for a nullable column.
fn narrow_opt<T>(value: Option<i64>, column: &str) -> Result<Option<T>, StoreError>
where
    T: TryFrom<i64, Error = std::num::TryFromIntError>,
{
    value.map(|v| narrow(v, column)).transpose()
}

/// The error for a value of `column` that does not decode.
fn column_error(
    column: &str,
    problem: impl std::error::Error + Send + Sync + 'static,
) -> StoreError {
    StoreError::Database(sqlx::Error::ColumnDecode {
        index: column.to_owned(),
        source: Box::new(problem),
    })
}
