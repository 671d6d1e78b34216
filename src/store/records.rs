//! The records rooms and sessions write to the store: players, game starts, moves,
//! endings, chat lines and leaderboard candidates, and the rating changes a write
//! returns.

use parlor_room::{GameId, PlayerId, RoomId};
use parlor_rules::GameKind;
use parlor_rules::games::{EndReason, Seat};
use serde::Serialize;

use crate::domain::{ChatChannel, ChatLine, SeatKind};

use crate::ratings::{RatedKey, Rating};

/// The ownership token a room writes under. In a fleet every room has one owner node at
/// a time, and each new owner takes a higher token; the store keeps a game's token and
/// refuses a write under a lower one, so a node that lost a room can never write for it
/// again. A single server writes everything under [`Fence::SINGLE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Fence(pub(crate) i64);

impl Fence {
    /// The token of every write on a server that is not part of a fleet.
    pub(crate) const SINGLE: Fence = Fence(0);
}

/// A registered player as the store knows them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct PlayerRecord {
    /// The player's public, stable id.
    pub(crate) player_id: PlayerId,
    /// The player's current display name.
    pub(crate) name: String,
}

/// One seat of a game as stored when the game starts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct SeatRecord {
    /// The seat.
    pub(crate) seat: Seat,
    /// `human` or `bot:<level>`.
    pub(crate) kind: SeatKind,
    /// The human's player id; `None` for a bot.
    pub(crate) player_id: Option<PlayerId>,
    /// The name shown for the seat.
    pub(crate) name: String,
}

/// A game as recorded when it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NewGame {
    /// Unique id of this game.
    pub(crate) game_id: GameId,
    /// Which game it is.
    pub(crate) game: GameKind,
    /// The room the game is played in.
    pub(crate) room_id: RoomId,
    /// Wall-clock start, Unix milliseconds.
    pub(crate) started_at_ms: i64,
    /// Both seats.
    pub(crate) seats: Vec<SeatRecord>,
    /// The room's options as a JSON object, kept verbatim.
    pub(crate) options_json: String,
    /// The game's rule settings as it starts, JSON (see `catalog::GameSettings`).
    pub(crate) rules_json: String,
}

impl NewGame {
    /// The keys its seats are rated under in its game, seat 0's first; a seat missing
    /// from `seats` has the key of an open seat.
    pub(crate) fn rating_keys(&self) -> [RatedKey; 2] {
        Seat::BOTH.map(|wanted| {
            self.seats
                .iter()
                .find(|seat| seat.seat == wanted)
                .map_or_else(
                    || RatedKey::of(SeatKind::Open, None),
                    |seat| RatedKey::of(seat.kind, seat.player_id.as_ref()),
                )
        })
    }
}

/// One move as appended to a game's log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MoveRecord {
    /// The game the move belongs to.
    pub(crate) game_id: GameId,
    /// 1 for the first move of the game, then up by one.
    pub(crate) ply: u32,
    /// The seat that moved.
    pub(crate) seat: Seat,
    /// The move in the game's notation.
    pub(crate) notation: String,
    /// When the server received the move, Unix milliseconds.
    pub(crate) played_at_ms: i64,
    /// How long the mover thought: receipt time minus the time the turn began, in ms.
    pub(crate) think_ms: i64,
    /// Both seats' remaining time just after the move, ms; `None` without a clock.
    pub(crate) clocks_ms: Option<[i64; 2]>,
}

/// A seat's totals when its game ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SeatResult {
    /// The seat.
    pub(crate) seat: Seat,
    /// Sum of the seat's thinking times, ms.
    pub(crate) thinking_ms: i64,
    /// The seat's score; `None` for bots and unscored games.
    pub(crate) score: Option<i64>,
}

/// A game's ending, written once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GameFinish {
    /// The finished game.
    pub(crate) game_id: GameId,
    /// Which game it is (the leaderboard is per game).
    pub(crate) game: GameKind,
    /// Wall-clock end, Unix milliseconds.
    pub(crate) finished_at_ms: i64,
    /// Winning seat, `None` for a draw.
    pub(crate) winner: Option<Seat>,
    /// Why it ended (`three_in_a_row`, `resigned`, ...).
    pub(crate) reason: EndReason,
    /// Wall-clock duration from start to end, ms.
    pub(crate) duration_ms: i64,
    /// How many moves were played.
    pub(crate) moves: u32,
    /// Per-seat totals and scores.
    pub(crate) seats: Vec<SeatResult>,
    /// Players whose score may enter the leaderboard (wins and draws of humans).
    pub(crate) leaderboard: Vec<LeaderboardCandidate>,
    /// When the game is rated: the keys both seats are rated under (see
    /// [`RatedKey`]). Their ratings are updated in the same transaction.
    pub(crate) rated: Option<[RatedKey; 2]>,
}

/// A seat's rating before and after a rated game.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub(crate) struct RatingChange {
    /// Before the game.
    pub(crate) before: Rating,
    /// After it.
    pub(crate) after: Rating,
}

/// A human's score offered to the leaderboard; it replaces their entry only if higher.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LeaderboardCandidate {
    /// The player.
    pub(crate) player_id: PlayerId,
    /// The score achieved.
    pub(crate) score: i64,
}

/// A draw offer open in a game, as stored with it so that a resumed game still has it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DrawOfferRecord {
    /// The seat that offered.
    pub(crate) seat: Seat,
    /// How many moves had been played when it did.
    pub(crate) ply: u32,
}

/// A line said in one of a game's chats, as it is stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ChatRecord {
    /// The game it was said in.
    pub(crate) game_id: GameId,
    /// Its number in the game, both chats counted together, from 0.
    pub(crate) number: u64,
    /// Which chat.
    pub(crate) channel: ChatChannel,
    /// The line.
    pub(crate) line: ChatLine,
}
