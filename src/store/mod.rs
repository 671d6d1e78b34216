//! Durable storage of players, games, moves and the leaderboard.
//!
//! Rooms and sessions talk to a [`Store`] trait object. [`sql::SqlStore`] implements it
//! with sqlx's `Any` driver, so SQLite (the embedded default) and PostgreSQL share one
//! code path and one set of migrations.

pub mod sql;
mod status;

use async_trait::async_trait;
use serde::Serialize;

use crate::ratings::Rating;

pub use sql::{SqlStore, SqliteTuning, batch};
pub use status::{GameStatus, UnknownGameStatus};

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The name, or one a person would read as the same, is owned by another player.
    #[error("the name is already taken by another player")]
    NameTaken,
    /// The database could not be opened, read or written.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// The schema migrations could not be applied at start-up.
    #[error("could not apply database migrations: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// The store has been closed (the server is shutting down).
    #[error("the store is closed")]
    Closed,
    /// Another process holds the database (a second Parlor on the same file would mark
    /// the first one's live games interrupted).
    #[error(
        "the database {path} is in use by another Parlor process{}; stop that process first, or give this one another store.path",
        holder.map(|pid| format!(" (pid {pid})")).unwrap_or_default()
    )]
    InUse {
        /// The database file.
        path: String,
        /// The holding process's id, when its lock file names it.
        holder: Option<u32>,
    },
    /// The lock file beside the database could not be created or locked.
    #[error("could not lock the database with {path}: {source}")]
    Lock {
        /// The lock file.
        path: String,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// The file at `store.path` is not a SQLite database.
    #[error(
        "{path} is not a SQLite database; point store.path at a Parlor database, or at a new file to create one"
    )]
    NotSqlite {
        /// The file.
        path: String,
    },
    /// The database file's folder could not be created.
    #[error("could not create the folder for the database file {path}: {source}")]
    CreateDir {
        /// The folder that could not be created.
        path: String,
        /// The underlying I/O error.
        source: std::io::Error,
    },
}

/// A registered player as the store knows them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayerRecord {
    /// The player's public, stable id.
    pub player_id: String,
    /// The player's current display name.
    pub name: String,
}

/// One seat of a game as stored when the game starts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SeatRecord {
    /// 0 or 1.
    pub seat: u8,
    /// `human` or `bot:<level>`.
    pub kind: String,
    /// The human's player id; `None` for a bot.
    pub player_id: Option<String>,
    /// The name shown for the seat.
    pub name: String,
}

/// A game as recorded when it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewGame {
    /// Unique id of this game.
    pub game_id: String,
    /// The game's id, e.g. `tictactoe`.
    pub game: String,
    /// The room the game is played in.
    pub room_id: String,
    /// Wall-clock start, Unix milliseconds.
    pub started_at_ms: i64,
    /// Both seats.
    pub seats: Vec<SeatRecord>,
    /// The room's options as a JSON object, kept verbatim.
    pub options_json: String,
}

/// One move as appended to a game's log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveRecord {
    /// The game the move belongs to.
    pub game_id: String,
    /// 1 for the first move of the game, then up by one.
    pub ply: u32,
    /// The seat that moved.
    pub seat: u8,
    /// The move in the game's notation.
    pub notation: String,
    /// When the server received the move, Unix milliseconds.
    pub played_at_ms: i64,
    /// How long the mover thought: receipt time minus the time the turn began, in ms.
    pub think_ms: i64,
    /// Both seats' remaining time just after the move, ms; `None` without a clock.
    pub clocks_ms: Option<[i64; 2]>,
}

/// A seat's totals when its game ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatResult {
    /// 0 or 1.
    pub seat: u8,
    /// Sum of the seat's thinking times, ms.
    pub thinking_ms: i64,
    /// The seat's score; `None` for bots and unscored games.
    pub score: Option<i64>,
}

/// A game's ending, written once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameFinish {
    /// The finished game.
    pub game_id: String,
    /// The game's id, e.g. `tictactoe` (the leaderboard is per game).
    pub game: String,
    /// Wall-clock end, Unix milliseconds.
    pub finished_at_ms: i64,
    /// Winning seat, `None` for a draw.
    pub winner: Option<u8>,
    /// Why it ended (`three_in_a_row`, `resigned`, ...).
    pub reason: String,
    /// Wall-clock duration from start to end, ms.
    pub duration_ms: i64,
    /// How many moves were played.
    pub moves: u32,
    /// Per-seat totals and scores.
    pub seats: Vec<SeatResult>,
    /// Players whose score may enter the leaderboard (wins and draws of humans).
    pub leaderboard: Vec<LeaderboardCandidate>,
    /// When the game is rated: the keys both seats are rated under (see
    /// [`crate::ratings::rated_key`]). Their ratings are updated in the same transaction.
    pub rated: Option<[String; 2]>,
}

/// A game in a player's list of games.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayerGame {
    /// The game's unique id.
    pub game_id: String,
    /// The game's id, e.g. `chess`.
    pub game: String,
    /// Playing, finished or interrupted.
    pub status: GameStatus,
    /// The seat the player had.
    pub seat: u8,
    /// Both seats' names, by seat.
    pub names: Vec<String>,
    /// Wall-clock start, Unix ms.
    pub started_at_ms: i64,
    /// Winning seat; `None` for a draw or an unfinished game.
    pub winner: Option<u8>,
    /// Why it ended, once finished.
    pub reason: Option<String>,
}

/// A seat's rating before and after a rated game.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RatingChange {
    /// Before the game.
    pub before: Rating,
    /// After it.
    pub after: Rating,
}

/// One row of a game's rating list.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RatingEntry {
    /// 1-based rank.
    pub rank: u32,
    /// The player.
    pub player_id: String,
    /// The player's current name.
    pub name: String,
    /// Their Glicko-2 rating.
    pub rating: f64,
    /// Its deviation.
    pub deviation: f64,
    /// Rated games played.
    pub games: i64,
}

/// A human's score offered to the leaderboard; it replaces their entry only if higher.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaderboardCandidate {
    /// The player.
    pub player_id: String,
    /// The score achieved.
    pub score: i64,
}

/// A stored game's seat, as returned by [`Store::game`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StoredSeat {
    /// 0 or 1.
    pub seat: u8,
    /// `human` or `bot:<level>`.
    pub kind: String,
    /// The human's player id; `None` for a bot.
    pub player_id: Option<String>,
    /// The name shown for the seat.
    pub name: String,
    /// Total thinking time, ms, once the game has finished.
    pub thinking_ms: Option<i64>,
    /// The seat's score, if the game was scored and the seat is human.
    pub score: Option<i64>,
    /// The seat's Glicko-2 rating in this game before it, rounded, if it was rated (as
    /// in `game_over`).
    pub rating_before: Option<i64>,
    /// The seat's rating after the game, rounded, if it was rated.
    pub rating_after: Option<i64>,
}

/// A stored move, as returned by [`Store::game`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StoredMove {
    /// 1-based move number.
    pub ply: u32,
    /// The seat that moved.
    pub seat: u8,
    /// The move in the game's notation.
    pub notation: String,
    /// The move as players write it (SAN in chess). Only `notation` is stored: the store
    /// fills this with the notation, and readers that know the rules replace it
    /// (`GET /api/games/{id}` does, by replaying the game).
    pub display: String,
    /// When the server received it, Unix milliseconds.
    pub played_at_ms: i64,
    /// The mover's thinking time for this move, ms.
    pub think_ms: i64,
    /// Both seats' remaining time just after the move, ms; `null` without a clock.
    pub clocks_ms: Option<[i64; 2]>,
}

/// A whole stored game with every move.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StoredGame {
    /// The game's unique id.
    pub game_id: String,
    /// The game's id, e.g. `tictactoe`.
    pub game: String,
    /// The room it was played in.
    pub room_id: String,
    /// Playing, finished or interrupted.
    pub status: GameStatus,
    /// The room's options when the game started (e.g. `{"start": "<FEN>"}`).
    pub options: serde_json::Value,
    /// Wall-clock start, Unix ms.
    pub started_at_ms: i64,
    /// Wall-clock end, Unix ms, once finished.
    pub finished_at_ms: Option<i64>,
    /// Winning seat; `None` for a draw or an unfinished game.
    pub winner: Option<u8>,
    /// Why it ended, once finished.
    pub reason: Option<String>,
    /// Duration, ms, once finished.
    pub duration_ms: Option<i64>,
    /// Both seats.
    pub seats: Vec<StoredSeat>,
    /// Every move, in order.
    pub moves: Vec<StoredMove>,
}

/// One row of a game's leaderboard.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LeaderboardEntry {
    /// 1-based rank.
    pub rank: u32,
    /// The player.
    pub player_id: String,
    /// The player's current name.
    pub name: String,
    /// Their best score in this game.
    pub score: i64,
    /// The game in which they first reached it.
    pub game_id: String,
    /// When, Unix ms.
    pub achieved_at_ms: i64,
}

/// Durable storage. Every write returns only once it is durable (committed; see
/// the README's "Durability" section for what that means on SQLite), so a caller may make
/// its effect visible as soon as the call succeeds.
#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// The player whose token hashes to `token_hash`, if any.
    async fn player_by_token(&self, token_hash: &str) -> Result<Option<PlayerRecord>, StoreError>;

    /// Registers a new player and claims their name, atomically.
    /// Fails with [`StoreError::NameTaken`] if another player owns the name.
    async fn create_player(
        &self,
        player: &PlayerRecord,
        token_hash: &str,
        created_at_ms: i64,
    ) -> Result<(), StoreError>;

    /// Gives an existing player a new display name, claiming it if unclaimed.
    /// Fails with [`StoreError::NameTaken`] if another player owns it.
    async fn rename_player(&self, player_id: &str, name: &str) -> Result<(), StoreError>;

    /// Records a game that has just started, with both seats.
    async fn create_game(&self, game: &NewGame) -> Result<(), StoreError>;

    /// Appends a move to its game's log; if `finish` is given (the move ended the game)
    /// the ending is written in the same transaction, with the rating changes it causes.
    async fn append_move(
        &self,
        mv: &MoveRecord,
        finish: Option<&GameFinish>,
    ) -> Result<Option<[RatingChange; 2]>, StoreError>;

    /// Records a game's ending that no move caused (resignation, abandonment, time),
    /// updating both seats' ratings when it is rated.
    async fn finish_game(
        &self,
        finish: &GameFinish,
    ) -> Result<Option<[RatingChange; 2]>, StoreError>;

    /// Two rated players' current ratings in a game (say, a room's two seats), each
    /// `None` if that player has none yet; one query for both.
    async fn ratings(&self, game: &str, keys: [&str; 2])
    -> Result<[Option<Rating>; 2], StoreError>;

    /// A player's games, newest first; `None` if no such player exists.
    async fn player_games(
        &self,
        player_id: &str,
        limit: u32,
    ) -> Result<Option<Vec<PlayerGame>>, StoreError>;

    /// The highest-rated humans in a game.
    async fn rating_leaderboard(
        &self,
        game: &str,
        limit: u32,
    ) -> Result<Vec<RatingEntry>, StoreError>;

    /// Marks every game still `playing` as `interrupted`; returns how many. Called at start-up.
    async fn interrupt_unfinished(&self) -> Result<u64, StoreError>;

    /// A stored game with its seats and moves.
    async fn game(&self, game_id: &str) -> Result<Option<StoredGame>, StoreError>;

    /// The best scores in a game, highest first, earliest first on ties.
    async fn leaderboard(
        &self,
        game: &str,
        limit: u32,
    ) -> Result<Vec<LeaderboardEntry>, StoreError>;

    /// Waits for in-flight writes and closes the database.
    async fn close(&self);
}
