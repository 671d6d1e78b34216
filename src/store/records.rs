//! The records rooms and sessions write to the store: players, game starts, moves,
//! endings and leaderboard candidates, and the rating changes a write returns.

use parlor_rules::GameKind;
use parlor_rules::games::EndReason;
use serde::Serialize;

use crate::domain::SeatKind;

use crate::ratings::Rating;

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
    pub kind: SeatKind,
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
    /// Which game it is.
    pub game: GameKind,
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
    /// Which game it is (the leaderboard is per game).
    pub game: GameKind,
    /// Wall-clock end, Unix milliseconds.
    pub finished_at_ms: i64,
    /// Winning seat, `None` for a draw.
    pub winner: Option<u8>,
    /// Why it ended (`three_in_a_row`, `resigned`, ...).
    pub reason: EndReason,
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

/// A seat's rating before and after a rated game.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RatingChange {
    /// Before the game.
    pub before: Rating,
    /// After it.
    pub after: Rating,
}

/// A human's score offered to the leaderboard; it replaces their entry only if higher.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaderboardCandidate {
    /// The player.
    pub player_id: String,
    /// The score achieved.
    pub score: i64,
}
