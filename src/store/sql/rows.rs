//! Typed rows: each query's result as a struct of the column types both engines decode
//! natively (`BIGINT` as `i64`, `DOUBLE PRECISION` as `f64`, `TEXT` as `String`), and
//! their conversion into the store's domain values, with every narrowing checked and
//! every failure a [`StoreError`] naming its column.

use std::str::FromStr;

use parlor_room::PlayerId;
use parlor_rules::GameKind;
use parlor_rules::games::{NoSuchSeat, Seat};

use crate::store::{
    AccountRecord, DrawOfferRecord, GameRating, LeaderboardEntry, PlayerGame, PlayerRecord,
    RatingEntry, StoreError, StoredChatLine, StoredGame, StoredMove, StoredSeat,
};
use parlor_room::chat::ChatLine;
use parlor_room::ratings::Rating;

/// A `players` row: its `player_id`, `name` and `bot_since`.
#[derive(sqlx::FromRow)]
pub(super) struct PlayerRow {
    player_id: String,
    name: String,
    bot_since: Option<i64>,
}

impl From<PlayerRow> for PlayerRecord {
    fn from(row: PlayerRow) -> PlayerRecord {
        PlayerRecord {
            player_id: row.player_id.into(),
            name: row.name,
            bot_account: row.bot_since.is_some(),
        }
    }
}

/// A row of a player's list of games: the game's columns, the player's `seat`, its
/// `score` and `opponent`, and both seats' names as `name0` and `name1`.
#[derive(sqlx::FromRow)]
pub(super) struct PlayerGameRow {
    game_id: String,
    game: String,
    status: String,
    started_at: i64,
    winner: Option<i64>,
    reason: Option<String>,
    seat: i64,
    score: Option<i64>,
    opponent: Option<String>,
    name0: String,
    name1: String,
}

impl TryFrom<PlayerGameRow> for PlayerGame {
    type Error = StoreError;

    fn try_from(row: PlayerGameRow) -> Result<PlayerGame, StoreError> {
        Ok(PlayerGame {
            game_id: row.game_id.into(),
            game: named(&row.game, "game")?,
            status: named(&row.status, "status")?,
            seat: seat(row.seat, "seat")?,
            score: row.score,
            opponent: named_opt(row.opponent.as_deref(), "opponent")?,
            names: vec![row.name0, row.name1],
            started_at_ms: row.started_at,
            winner: row
                .winner
                .map(|winner| seat(winner, "winner"))
                .transpose()?,
            reason: named_opt(row.reason.as_deref(), "reason")?,
        })
    }
}

/// A `games` row.
#[derive(sqlx::FromRow)]
pub(super) struct GameRow {
    game_id: String,
    game: String,
    room_id: String,
    status: String,
    options: String,
    started_at: i64,
    finished_at: Option<i64>,
    winner: Option<i64>,
    reason: Option<String>,
    duration_ms: Option<i64>,
    draw_offer_seat: Option<i64>,
    draw_offer_ply: Option<i64>,
    rules: Option<String>,
}

impl GameRow {
    /// The stored game this row, its decoded seats and its decoded moves make.
    pub(super) fn into_game(
        self,
        seats: Vec<StoredSeat>,
        moves: Vec<StoredMove>,
        chat: Vec<StoredChatLine>,
    ) -> Result<StoredGame, StoreError> {
        Ok(StoredGame {
            game: named(&self.game, "game")?,
            status: named(&self.status, "status")?,
            options: parse_options(&self.options),
            game_id: self.game_id.into(),
            room_id: self.room_id.into(),
            started_at_ms: self.started_at,
            finished_at_ms: self.finished_at,
            winner: self
                .winner
                .map(|winner| seat(winner, "winner"))
                .transpose()?,
            reason: named_opt(self.reason.as_deref(), "reason")?,
            duration_ms: self.duration_ms,
            seats,
            moves,
            chat,
            draw_offer: match (self.draw_offer_seat, self.draw_offer_ply) {
                (Some(seat), Some(ply)) => Some(DrawOfferRecord {
                    seat: self::seat(seat, "draw_offer_seat")?,
                    ply: narrow(ply, "draw_offer_ply")?,
                }),
                _ => None,
            },
            rules: self
                .rules
                .map(|text| serde_json::from_str(&text))
                .transpose()
                .map_err(|error| column_error("rules", error))?,
        })
    }
}

/// A `game_seats` row.
#[derive(sqlx::FromRow)]
pub(super) struct SeatRow {
    seat: i64,
    kind: String,
    player_id: Option<String>,
    name: String,
    thinking_ms: Option<i64>,
    score: Option<i64>,
    opponent: Option<String>,
    rating_before: Option<f64>,
    rating_after: Option<f64>,
    stood_in: i64,
}

impl TryFrom<SeatRow> for StoredSeat {
    type Error = StoreError;

    fn try_from(row: SeatRow) -> Result<StoredSeat, StoreError> {
        Ok(StoredSeat {
            seat: seat(row.seat, "seat")?,
            kind: named(&row.kind, "kind")?,
            player_id: row.player_id.map(PlayerId::from),
            name: row.name,
            thinking_ms: row.thinking_ms,
            score: row.score,
            opponent: named_opt(row.opponent.as_deref(), "opponent")?,
            rating_before: rounded(row.rating_before),
            rating_after: rounded(row.rating_after),
            stood_in: row.stood_in != 0,
        })
    }
}

/// A `moves` row.
#[derive(sqlx::FromRow)]
pub(super) struct MoveRow {
    ply: i64,
    seat: i64,
    notation: String,
    played_at: i64,
    think_ms: i64,
    clock0_ms: Option<i64>,
    clock1_ms: Option<i64>,
}

impl TryFrom<MoveRow> for StoredMove {
    type Error = StoreError;

    fn try_from(row: MoveRow) -> Result<StoredMove, StoreError> {
        Ok(StoredMove {
            ply: narrow(row.ply, "ply")?,
            seat: seat(row.seat, "seat")?,
            notation: row.notation,
            played_at_ms: row.played_at,
            think_ms: row.think_ms,
            clocks_ms: match (row.clock0_ms, row.clock1_ms) {
                (Some(first), Some(second)) => Some([first, second]),
                _ => None,
            },
        })
    }
}

/// A `chat_lines` row.
#[derive(sqlx::FromRow)]
pub(super) struct ChatRow {
    line: i64,
    channel: String,
    player_id: String,
    name: String,
    text: String,
    said_at: i64,
    ply: i64,
}

impl TryFrom<ChatRow> for StoredChatLine {
    type Error = StoreError;

    fn try_from(row: ChatRow) -> Result<StoredChatLine, StoreError> {
        Ok(StoredChatLine {
            number: narrow(row.line, "line")?,
            channel: named(&row.channel, "channel")?,
            line: ChatLine {
                player_id: row.player_id.into(),
                name: row.name,
                text: row.text,
                at_ms: row.said_at,
                ply: narrow(row.ply, "ply")?,
            },
        })
    }
}

/// A `ratings` row: whose rating in which game, and the rating.
#[derive(sqlx::FromRow)]
pub(super) struct RatingRow {
    /// The game's wire name.
    pub(super) game: String,
    /// The rated player's key (a player id).
    pub(super) player_key: String,
    /// The rating itself (Glicko-2's r).
    pub(super) rating: f64,
    /// Its deviation (RD).
    pub(super) deviation: f64,
    /// Its volatility (σ).
    pub(super) volatility: f64,
}

impl RatingRow {
    /// The rating itself.
    pub(super) fn rating(&self) -> Rating {
        Rating {
            rating: self.rating,
            deviation: self.deviation,
            volatility: self.volatility,
        }
    }
}

/// A row of a game's rating list: a `ratings` row joined with the player's `name`.
#[derive(sqlx::FromRow)]
pub(super) struct RatingEntryRow {
    player_key: String,
    name: String,
    rating: f64,
    deviation: f64,
    games: i64,
    bot_since: Option<i64>,
}

impl RatingEntryRow {
    /// The entry this row makes at `rank`.
    pub(super) fn ranked(self, rank: u32) -> RatingEntry {
        RatingEntry {
            rank,
            player_id: self.player_key.into(),
            name: self.name,
            rating: self.rating,
            deviation: self.deviation,
            games: self.games,
            bot_account: self.bot_since.is_some(),
        }
    }
}

/// A `leaderboard` row joined with the player's `name`.
#[derive(sqlx::FromRow)]
pub(super) struct LeaderboardRow {
    player_id: String,
    name: String,
    opponent: String,
    score: i64,
    game_id: String,
    achieved_at: i64,
    bot_since: Option<i64>,
}

impl LeaderboardRow {
    /// The entry this row makes at `rank`.
    pub(super) fn ranked(self, rank: u32) -> Result<LeaderboardEntry, StoreError> {
        Ok(LeaderboardEntry {
            rank,
            player_id: self.player_id.into(),
            name: self.name,
            opponent: named(&self.opponent, "opponent")?,
            score: self.score,
            game_id: self.game_id.into(),
            achieved_at_ms: self.achieved_at,
            bot_account: self.bot_since.is_some(),
        })
    }
}

/// A `players` row as an account shows it.
#[derive(sqlx::FromRow)]
pub(super) struct AccountRow {
    player_id: String,
    name: String,
    created_at: i64,
    bot_since: Option<i64>,
    bot_games: Option<String>,
}

/// A player's `ratings` row, by game.
#[derive(sqlx::FromRow)]
pub(super) struct GameRatingRow {
    game: String,
    rating: f64,
    deviation: f64,
    games: i64,
}

impl AccountRow {
    /// The player's id.
    pub(super) fn player_id(&self) -> &str {
        &self.player_id
    }

    /// The account this row and the player's rating rows make.
    pub(super) fn into_account(
        self,
        ratings: Vec<GameRatingRow>,
    ) -> Result<AccountRecord, StoreError> {
        let ratings = ratings
            .into_iter()
            .map(|row| {
                Ok(GameRating {
                    game: named(&row.game, "game")?,
                    rating: row.rating,
                    deviation: row.deviation,
                    games: row.games,
                })
            })
            .collect::<Result<_, StoreError>>()?;
        Ok(AccountRecord {
            player: PlayerRecord {
                player_id: self.player_id.into(),
                name: self.name,
                bot_account: self.bot_since.is_some(),
            },
            created_at_ms: self.created_at,
            bot_since_ms: self.bot_since,
            bot_games: match self.bot_games.as_deref() {
                None => vec![GameKind::Chess],
                Some(names) => names
                    .split(',')
                    .filter(|name| !name.is_empty())
                    .map(|name| named(name, "bot_games"))
                    .collect::<Result<_, StoreError>>()?,
            },
            ratings,
        })
    }
}

/// Decodes the text of `column` that holds a name (a status, a game, a seat kind, an end
/// reason): a name that does not parse is a decoding error naming the column, never a
/// string passed on.
fn named<T>(name: &str, column: &str) -> Result<T, StoreError>
where
    T: FromStr,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    name.parse()
        .map_err(|unknown| column_error(column, unknown))
}

/// Like [`named`] for a nullable column.
fn named_opt<T>(name: Option<&str>, column: &str) -> Result<Option<T>, StoreError>
where
    T: FromStr,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    name.map(|name| named(name, column)).transpose()
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

/// Reads a seat number from `column`: 0 or 1, or a decoding error naming the column.
fn seat(value: i64, column: &str) -> Result<Seat, StoreError> {
    let index = u64::try_from(value).unwrap_or(u64::MAX);
    Seat::from_index(index).ok_or_else(|| column_error(column, NoSuchSeat(index)))
}

/// The error for a value of `column` that does not decode.
pub(super) fn column_error(
    column: &str,
    problem: impl std::error::Error + Send + Sync + 'static,
) -> StoreError {
    StoreError::Database(sqlx::Error::ColumnDecode {
        index: column.to_owned(),
        source: Box::new(problem),
    })
}
