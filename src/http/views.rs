//! What the REST API shows of stored games, players' games and the leaderboards: views
//! of their own, made from the store's records, so that what the store keeps (a seat's
//! stand-in, a game's draw offer and rule settings, a chat line's number) and what a
//! client is shown can change apart.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::store::{GameStatus, LeaderboardEntry, PlayerGame, RatingEntry, StoredGame};
use parlor_room::chat::{ChatChannel, ChatLine};
use parlor_room::ratings;
use parlor_room::records::{StoredChatLine, StoredMove, StoredSeat};
use parlor_room::scoring::Opponent;
use parlor_room::{GameId, PlayerId, RoomId, SeatKind};
use parlor_rules::GameKind;
use parlor_rules::catalog::ReplayedPosition;
use parlor_rules::games::{EndReason, Seat};

/// `GET /api/games/{id}`'s body: a stored game, with what a client needs to replay it
/// without knowing the rules.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "StoredGame")]
pub(super) struct GameView {
    game_id: GameId,
    game: GameKind,
    room_id: RoomId,
    status: GameStatus,
    /// The room's options as they were sent.
    options: Value,
    started_at_ms: i64,
    finished_at_ms: Option<i64>,
    winner: Option<Seat>,
    reason: Option<EndReason>,
    duration_ms: Option<i64>,
    seats: Vec<SeatView>,
    moves: Vec<MoveView>,
    chat: Vec<ChatView>,
    /// Whether `chat` holds the players' lines: only a request that carries the token of
    /// one of the game's players sees them.
    players_chat_shown: bool,
    /// The start and the position after each move that replays (all of them, unless the
    /// rules have changed since the game was played).
    positions: Vec<ReplayedPosition>,
}

/// A seat of a stored game.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "StoredSeat")]
struct SeatView {
    seat: Seat,
    kind: SeatKind,
    player_id: Option<PlayerId>,
    name: String,
    thinking_ms: Option<i64>,
    score: Option<i64>,
    /// Whom the seat played (`person` or `bot:<level>`), once the game has finished;
    /// the score was earned against it.
    opponent: Option<Opponent>,
    rating_before: Option<i64>,
    rating_after: Option<i64>,
}

/// A move of a stored game.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "StoredMove")]
struct MoveView {
    ply: u32,
    seat: Seat,
    notation: String,
    /// As players write it (SAN in chess), from a replay; the notation where the game no
    /// longer replays.
    display: String,
    played_at_ms: i64,
    think_ms: i64,
    clocks_ms: Option<[i64; 2]>,
}

/// A line of a stored game's chat.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "StoredChatLine")]
struct ChatView {
    channel: ChatChannel,
    #[serde(flatten)]
    line: ChatLine,
}

impl GameView {
    /// The view of `game`, its moves shown as `displays` says (their notation beyond),
    /// the chat lines `shown` lets through, and the replayed `positions`.
    pub(super) fn new(
        game: StoredGame,
        displays: Vec<String>,
        positions: Vec<ReplayedPosition>,
        shown: impl Fn(&StoredChatLine) -> bool,
        players_chat_shown: bool,
    ) -> GameView {
        let mut displays = displays.into_iter();
        GameView {
            game_id: game.game_id,
            game: game.game,
            room_id: game.room_id,
            status: game.status,
            options: game.options,
            started_at_ms: game.started_at_ms,
            finished_at_ms: game.finished_at_ms,
            winner: game.winner,
            reason: game.reason,
            duration_ms: game.duration_ms,
            seats: game.seats.into_iter().map(SeatView::from).collect(),
            moves: game
                .moves
                .into_iter()
                .map(|mv| MoveView::new(mv, displays.next()))
                .collect(),
            chat: game
                .chat
                .into_iter()
                .filter(|said| shown(said))
                .map(|said| ChatView {
                    channel: said.channel,
                    line: said.line,
                })
                .collect(),
            players_chat_shown,
            positions,
        }
    }
}

impl From<StoredSeat> for SeatView {
    fn from(seat: StoredSeat) -> SeatView {
        SeatView {
            seat: seat.seat,
            kind: seat.kind,
            player_id: seat.player_id,
            name: seat.name,
            thinking_ms: seat.thinking_ms,
            score: seat.score,
            opponent: seat.opponent,
            rating_before: seat.rating_before,
            rating_after: seat.rating_after,
        }
    }
}

impl MoveView {
    fn new(mv: StoredMove, display: Option<String>) -> MoveView {
        MoveView {
            display: display.unwrap_or_else(|| mv.notation.clone()),
            ply: mv.ply,
            seat: mv.seat,
            notation: mv.notation,
            played_at_ms: mv.played_at_ms,
            think_ms: mv.think_ms,
            clocks_ms: mv.clocks_ms,
        }
    }
}

/// A game in `GET /api/players/{id}/games`.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct PlayerGameView {
    game_id: GameId,
    game: GameKind,
    status: GameStatus,
    /// The seat the player had.
    seat: Seat,
    /// The player's score, once the game has finished; `null` if it was not scored.
    score: Option<i64>,
    /// Whom the player played (`person` or `bot:<level>`), once the game has finished.
    opponent: Option<Opponent>,
    /// Both seats' names, by seat.
    names: Vec<String>,
    started_at_ms: i64,
    winner: Option<Seat>,
    reason: Option<EndReason>,
}

impl From<PlayerGame> for PlayerGameView {
    fn from(game: PlayerGame) -> PlayerGameView {
        PlayerGameView {
            game_id: game.game_id,
            game: game.game,
            status: game.status,
            seat: game.seat,
            score: game.score,
            opponent: game.opponent,
            names: game.names,
            started_at_ms: game.started_at_ms,
            winner: game.winner,
            reason: game.reason,
        }
    }
}

/// A row of a game's leaderboard by score.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct ScoreRowView {
    rank: u32,
    player_id: PlayerId,
    name: String,
    /// Whom the score was earned against.
    opponent: Opponent,
    score: i64,
    /// The game in which they first reached it.
    game_id: GameId,
    achieved_at_ms: i64,
    /// `true` for a bot account (an engine playing through the Bot API); absent
    /// otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    bot_account: bool,
}

impl From<LeaderboardEntry> for ScoreRowView {
    fn from(entry: LeaderboardEntry) -> ScoreRowView {
        ScoreRowView {
            rank: entry.rank,
            player_id: entry.player_id,
            name: entry.name,
            opponent: entry.opponent,
            score: entry.score,
            game_id: entry.game_id,
            achieved_at_ms: entry.achieved_at_ms,
            bot_account: entry.bot_account,
        }
    }
}

/// A row of a game's leaderboard by rating.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct RatingRowView {
    rank: u32,
    player_id: PlayerId,
    name: String,
    rating: f64,
    deviation: f64,
    /// Whether the rating is provisional: its deviation is above 110 (too few rated
    /// games yet to trust it).
    provisional: bool,
    games: i64,
    /// `true` for a bot account (an engine playing through the Bot API); absent
    /// otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    bot_account: bool,
}

impl From<RatingEntry> for RatingRowView {
    fn from(entry: RatingEntry) -> RatingRowView {
        RatingRowView {
            rank: entry.rank,
            player_id: entry.player_id,
            name: entry.name,
            rating: entry.rating,
            deviation: entry.deviation,
            provisional: ratings::is_provisional(entry.deviation),
            games: entry.games,
            bot_account: entry.bot_account,
        }
    }
}
