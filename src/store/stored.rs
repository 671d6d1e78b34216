//! What the store's read API returns: stored games with their seats and moves, a
//! player's games, and the two leaderboards (by score and by rating).

use parlor_rules::GameKind;
use parlor_rules::games::EndReason;
use serde::Serialize;

use crate::domain::SeatKind;

use super::GameStatus;

/// A game in a player's list of games.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayerGame {
    /// The game's unique id.
    pub game_id: String,
    /// Which game it is.
    pub game: GameKind,
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
    pub reason: Option<EndReason>,
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

/// A stored game's seat, as returned by [`super::Store::game`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StoredSeat {
    /// 0 or 1.
    pub seat: u8,
    /// `human` or `bot:<level>`.
    pub kind: SeatKind,
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

/// A stored move, as returned by [`super::Store::game`].
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
    /// Which game it is.
    pub game: GameKind,
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
    pub reason: Option<EndReason>,
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
