//! What the store's read API returns: stored games with their seats, moves and chat,
//! a player's games, and the two leaderboards (by score and by rating).

use parlor_room::records::{DrawOfferRecord, StoredChatLine, StoredMove, StoredSeat};
use parlor_room::scoring::Opponent;
use parlor_room::{GameId, PlayerId, RoomId};
use parlor_rules::GameKind;
use parlor_rules::games::{EndReason, Seat};

use super::{Fence, GameStatus};

/// A game in a player's list of games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PlayerGame {
    /// The game's unique id.
    pub(crate) game_id: GameId,
    /// Which game it is.
    pub(crate) game: GameKind,
    /// Playing, finished or interrupted.
    pub(crate) status: GameStatus,
    /// The seat the player had.
    pub(crate) seat: Seat,
    /// The player's score, once the game has finished, if it was scored.
    pub(crate) score: Option<i64>,
    /// Whom the player played, once the game has finished.
    pub(crate) opponent: Option<Opponent>,
    /// Both seats' names, by seat.
    pub(crate) names: Vec<String>,
    /// Wall-clock start, Unix ms.
    pub(crate) started_at_ms: i64,
    /// Winning seat; `None` for a draw or an unfinished game.
    pub(crate) winner: Option<Seat>,
    /// Why it ended, once finished.
    pub(crate) reason: Option<EndReason>,
}

/// One row of a game's rating list.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RatingEntry {
    /// 1-based rank.
    pub(crate) rank: u32,
    /// The player.
    pub(crate) player_id: PlayerId,
    /// The player's current name.
    pub(crate) name: String,
    /// Their Glicko-2 rating.
    pub(crate) rating: f64,
    /// Its deviation (above [`parlor_room::ratings::PROVISIONAL_DEVIATION`] the
    /// rating is provisional).
    pub(crate) deviation: f64,
    /// Rated games played.
    pub(crate) games: i64,
    /// Whether the player is a bot account.
    pub(crate) bot_account: bool,
}

/// A game still playing, and the room it is played in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct UnfinishedGame {
    /// The game.
    pub(crate) game_id: GameId,
    /// Its room.
    pub(crate) room_id: RoomId,
    /// The token its room writes under now.
    pub(crate) fence: Fence,
}

/// A whole stored game with every move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StoredGame {
    /// The game's unique id.
    pub(crate) game_id: GameId,
    /// Which game it is.
    pub(crate) game: GameKind,
    /// The room it was played in.
    pub(crate) room_id: RoomId,
    /// Playing, finished or interrupted.
    pub(crate) status: GameStatus,
    /// The room's options when the game started (e.g. `{"start": "<FEN>"}`).
    pub(crate) options: serde_json::Value,
    /// Wall-clock start, Unix ms.
    pub(crate) started_at_ms: i64,
    /// Wall-clock end, Unix ms, once finished.
    pub(crate) finished_at_ms: Option<i64>,
    /// Winning seat; `None` for a draw or an unfinished game.
    pub(crate) winner: Option<Seat>,
    /// Why it ended, once finished.
    pub(crate) reason: Option<EndReason>,
    /// Duration, ms, once finished.
    pub(crate) duration_ms: Option<i64>,
    /// Both seats.
    pub(crate) seats: Vec<StoredSeat>,
    /// Every move, in order.
    pub(crate) moves: Vec<StoredMove>,
    /// Every line said in its two chats, in the order the room received them.
    pub(crate) chat: Vec<StoredChatLine>,
    /// The draw offer last recorded, while the game is unfinished; it is still open
    /// unless the other seat has moved since.
    pub(crate) draw_offer: Option<DrawOfferRecord>,
    /// The game's rule settings as it started, JSON; `None` for games stored before
    /// they were kept.
    pub(crate) rules: Option<serde_json::Value>,
}

/// One row of a game's leaderboard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LeaderboardEntry {
    /// 1-based rank.
    pub(crate) rank: u32,
    /// The player.
    pub(crate) player_id: PlayerId,
    /// The player's current name.
    pub(crate) name: String,
    /// Whom the score was earned against.
    pub(crate) opponent: Opponent,
    /// Their best score in this game against that opponent.
    pub(crate) score: i64,
    /// The game in which they first reached it.
    pub(crate) game_id: GameId,
    /// When, Unix ms.
    pub(crate) achieved_at_ms: i64,
    /// Whether the player is a bot account.
    pub(crate) bot_account: bool,
}
