//! What a room records of its games and reads back to resume one: a game's start, its
//! moves, its ending (with the scores and whom each was earned against, leaderboard
//! candidates and rating changes it makes), its draw offer and its chat lines. The store writes them (durably, before the
//! room applies them) and returns them as they were written.

use parlor_rules::GameKind;
use parlor_rules::games::{EndReason, Seat};

use crate::chat::{ChatChannel, ChatLine};
use crate::ratings::{RatedKey, Rating};
use crate::scoring::Opponent;
use crate::{GameId, PlayerId, RoomId, SeatKind};

/// One seat of a game as stored when the game starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatRecord {
    /// The seat.
    pub seat: Seat,
    /// `human` or `bot:<level>`.
    pub kind: SeatKind,
    /// The human's player id; `None` for a bot.
    pub player_id: Option<PlayerId>,
    /// The name shown for the seat.
    pub name: String,
}

/// A game as recorded when it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewGame {
    /// Unique id of this game.
    pub game_id: GameId,
    /// Which game it is.
    pub game: GameKind,
    /// The room the game is played in.
    pub room_id: RoomId,
    /// Wall-clock start, Unix milliseconds.
    pub started_at_ms: i64,
    /// Both seats.
    pub seats: Vec<SeatRecord>,
    /// The room's options as a JSON object, kept verbatim.
    pub options_json: String,
    /// The game's rule settings as it starts, JSON (see `catalog::GameSettings`).
    pub rules_json: String,
}

impl NewGame {
    /// The keys its seats are rated under in its game, seat 0's first: `None` for a
    /// seat no person holds (or missing from `seats`).
    pub fn rating_keys(&self) -> [Option<RatedKey>; 2] {
        Seat::BOTH.map(|wanted| {
            let seat = self.seats.iter().find(|seat| seat.seat == wanted)?;
            RatedKey::of(seat.kind, seat.player_id.as_ref())
        })
    }
}

/// One move as appended to a game's log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveRecord {
    /// The game the move belongs to.
    pub game_id: GameId,
    /// 1 for the first move of the game, then up by one.
    pub ply: u32,
    /// The seat that moved.
    pub seat: Seat,
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
    /// The seat.
    pub seat: Seat,
    /// Sum of the seat's thinking times, ms.
    pub thinking_ms: i64,
    /// The seat's score; `None` for bots and unscored games.
    pub score: Option<i64>,
    /// Whom the seat played (see [`Opponent`]).
    pub opponent: Opponent,
}

/// A game's ending, written once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameFinish {
    /// The finished game.
    pub game_id: GameId,
    /// Which game it is (the leaderboard is per game).
    pub game: GameKind,
    /// Wall-clock end, Unix milliseconds.
    pub finished_at_ms: i64,
    /// Winning seat, `None` for a draw.
    pub winner: Option<Seat>,
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
    /// [`RatedKey`]). Their ratings are updated in the same transaction.
    pub rated: Option<[RatedKey; 2]>,
}

/// A seat's rating before and after a rated game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatingChange {
    /// Before the game.
    pub before: Rating,
    /// After it.
    pub after: Rating,
}

/// A seat's rating value before and after a rated game: what its end shows, and what
/// a game's record keeps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatingShift {
    /// Before the game.
    pub before: f64,
    /// After it.
    pub after: f64,
}

impl From<RatingChange> for RatingShift {
    fn from(change: RatingChange) -> RatingShift {
        RatingShift {
            before: change.before.rating,
            after: change.after.rating,
        }
    }
}

/// A human's score offered to the leaderboard; it replaces their entry only if higher.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaderboardCandidate {
    /// The player.
    pub player_id: PlayerId,
    /// The score achieved.
    pub score: i64,
    /// Whom it was achieved against: the leaderboard keeps a best per opponent.
    pub opponent: Opponent,
}

/// A draw offer open in a game, as stored with it so that a resumed game still has it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawOfferRecord {
    /// The seat that offered.
    pub seat: Seat,
    /// How many moves had been played when it did.
    pub ply: u32,
}

/// A line said in one of a game's chats, as it is stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatRecord {
    /// The game it was said in.
    pub game_id: GameId,
    /// Its number in the game, both chats counted together, from 0.
    pub number: u64,
    /// Which chat.
    pub channel: ChatChannel,
    /// The line.
    pub line: ChatLine,
}

/// A stored game's seat, as the store returns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredSeat {
    /// The seat.
    pub seat: Seat,
    /// `human` or `bot:<level>`.
    pub kind: SeatKind,
    /// The human's player id; `None` for a bot.
    pub player_id: Option<PlayerId>,
    /// The name shown for the seat.
    pub name: String,
    /// Total thinking time, ms, once the game has finished.
    pub thinking_ms: Option<i64>,
    /// The seat's score, if the game was scored and the seat is human.
    pub score: Option<i64>,
    /// Whom the seat played (see [`Opponent`]), once the game has finished.
    pub opponent: Option<Opponent>,
    /// The seat's Glicko-2 rating in this game before it, rounded, if it was rated (as
    /// in `game_over`).
    pub rating_before: Option<i64>,
    /// The seat's rating after the game, rounded, if it was rated.
    pub rating_after: Option<i64>,
    /// Whether a bot played for the seat's absent person.
    pub stood_in: bool,
}

/// A stored move, as the store returns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredMove {
    /// 1-based move number.
    pub ply: u32,
    /// The seat that moved.
    pub seat: Seat,
    /// The move in the game's notation.
    pub notation: String,
    /// When the server received it, Unix milliseconds.
    pub played_at_ms: i64,
    /// The mover's thinking time for this move, ms.
    pub think_ms: i64,
    /// Both seats' remaining time just after the move, ms; `null` without a clock.
    pub clocks_ms: Option<[i64; 2]>,
}

/// A line said in one of a game's chats, as the store returns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredChatLine {
    /// Its number in the game, both chats counted together (a resumed room numbers its
    /// next line after it).
    pub number: u64,
    /// The players' chat or the spectators'.
    pub channel: ChatChannel,
    /// The line.
    pub line: ChatLine,
}
