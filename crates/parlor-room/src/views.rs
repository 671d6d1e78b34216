//! How a room is shown: its full `state` after every change (seats, board, clocks,
//! result), the `moved` event that stands for a move's `state` where a connection asked
//! for it, `game_over`, and the room as listings show it. The machine makes them; the
//! server's protocol sends them as they are.

use parlor_rules::GameKind;
use parlor_rules::games::{BoardView, EndReason, Seat};
use serde::{Deserialize, Serialize};

use crate::{GameId, PlayerId, RoomId, SeatKind, TimeControl};

/// A seat as shown in `state` and room listings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatView {
    /// The seat (0 or 1 on the wire).
    pub seat: Seat,
    /// `open`, `human` or `bot:<level>`.
    pub kind: SeatKind,
    /// The human's or bot's name; `null` when open.
    pub name: Option<String>,
    /// The human's player id; `null` otherwise.
    pub player_id: Option<PlayerId>,
    /// Whether the seat's occupant is connected (bots always are; open seats never).
    pub connected: bool,
    /// The occupant's Glicko-2 rating in this game (a bot level is rated as a player of
    /// its own), once known; `null` for open seats and newcomers.
    pub rating: Option<i64>,
    /// When a bot plays for a person who left (`options.takeover`): that person. They get
    /// the seat back by joining it again. Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stand_in_for: Option<PlayerRef>,
}

/// A person, as named in seat views.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerRef {
    /// The player's public id.
    pub player_id: PlayerId,
    /// The player's name.
    pub name: String,
}

/// The last move played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LastMove {
    /// Who played it.
    pub seat: Seat,
    /// The move in notation.
    #[serde(rename = "move")]
    pub text: String,
    /// The move as players write it: SAN in chess (`Nf3`, `exd8=Q+`), the same as
    /// `move` in the other games.
    pub display: String,
}

/// A finished game's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ResultView {
    /// The winning seat, `null` for a draw.
    pub winner: Option<Seat>,
    /// Why it ended.
    pub reason: EndReason,
}

/// A room's status.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    strum::Display,
    strum::EnumString,
    strum::IntoStaticStr,
    serde_with::SerializeDisplay,
    serde_with::DeserializeFromStr,
)]
#[strum(
    serialize_all = "snake_case",
    parse_err_ty = UnknownStatus,
    parse_err_fn = UnknownStatus::named
)]
pub enum Status {
    /// A seat is still open.
    Waiting,
    /// Both seats are filled and the game is on.
    Playing,
    /// The game has ended.
    Finished,
}

impl Status {
    /// The status's wire name, derived from the variant's name.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// A name that is no room status.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("\"{0}\" is not a room status")]
pub struct UnknownStatus(pub String);

impl UnknownStatus {
    /// The error for the name `name`.
    fn named(name: &str) -> UnknownStatus {
        UnknownStatus(name.to_owned())
    }
}

/// The room's full state, broadcast after every change (same bytes for everyone).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename = "state")]
pub struct StateMsg {
    /// The room's id.
    pub room: RoomId,
    /// The game's id.
    pub game: GameKind,
    /// The current game's unique id; `null` until it starts.
    pub game_id: Option<GameId>,
    /// Rises by one with every state the room broadcasts.
    pub seq: u64,
    /// Waiting, playing or finished.
    pub status: Status,
    /// Both seats.
    pub seats: Vec<SeatView>,
    /// How many spectators are connected.
    pub spectators: usize,
    /// The seat to move, `null` unless playing.
    pub to_move: Option<Seat>,
    /// The position in the game's text form.
    pub position: String,
    /// The board for drawing.
    pub board: BoardView,
    /// The legal moves of the side to move; empty unless playing.
    pub legal_moves: Vec<String>,
    /// The last move, if any.
    pub last_move: Option<LastMove>,
    /// How many moves have been played.
    pub moves: usize,
    /// The result once finished.
    pub result: Option<ResultView>,
    /// The room's time control (`{"kind":"none"}` without a clock).
    pub time_control: TimeControl,
    /// Both clocks, or `null` without a time control.
    pub clocks: Option<ClockView>,
    /// The seat that has offered a draw still open, if any.
    pub draw_offer: Option<Seat>,
    /// The game was resumed after the server restarted, and no move has been played
    /// since; sent only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub resumed: bool,
    /// The seats that have asked for a rematch of the finished game.
    pub rematch: Vec<Seat>,
    /// Every move so far; only in the snapshot sent after `joined`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<String>>,
    /// Every move so far as players write it (see [`LastMove::display`]); only beside
    /// `history`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_display: Option<Vec<String>>,
}

/// A move that left the game on, for connections that asked for moves as events
/// (`hello.updates`): exactly the fields of `state` that a move changes, and the board's
/// cells it changed. Applied to the connection's last `state`, it gives the `state` the
/// room would have sent.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename = "moved")]
pub struct MovedMsg {
    /// The room's id.
    pub room: RoomId,
    /// The room's state counter, as the `state` in its place would carry.
    pub seq: u64,
    /// The move.
    pub last_move: LastMove,
    /// How many moves have been played.
    pub moves: usize,
    /// The seat to move.
    pub to_move: Option<Seat>,
    /// The position in the game's text form.
    pub position: String,
    /// The board's cells the move changed, in index order.
    pub cells: Vec<CellChange>,
    /// The legal moves of the side to move.
    pub legal_moves: Vec<String>,
    /// Both clocks, or `null` without a time control.
    pub clocks: Option<ClockView>,
    /// The seat whose draw offer is still open, if any.
    pub draw_offer: Option<Seat>,
}

/// One cell of `board.cells` a move changed: its index, and its new piece code (`null`
/// for empty). On the wire, a pair: `[12, "P"]`.
pub type CellChange = (usize, Option<char>);

/// Both clocks in `state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ClockView {
    /// Each seat's remaining time when the state was sent, ms.
    pub remaining_ms: [u64; 2],
    /// The seat whose clock is running, if any.
    pub running: Option<Seat>,
}

/// A seat's score in `game_over`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScoreView {
    /// The seat (0 or 1 on the wire).
    pub seat: Seat,
    /// The seat's name.
    pub name: Option<String>,
    /// The score; `null` for bots and unscored games.
    pub score: Option<u32>,
    /// The seat's rating before the game, if it was rated.
    pub rating_before: Option<i64>,
    /// Its rating after the game, if it was rated.
    pub rating_after: Option<i64>,
}

/// Why a finished game was not rated (PROTOCOL.md §13.4).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    strum::Display,
    strum::EnumString,
    strum::IntoStaticStr,
    serde_with::SerializeDisplay,
    serde_with::DeserializeFromStr,
)]
#[strum(
    serialize_all = "snake_case",
    parse_err_ty = UnknownUnrated,
    parse_err_fn = UnknownUnrated::named
)]
pub enum Unrated {
    /// It started from a given position (`options.start`).
    FromPosition,
    /// It ended as `aborted`.
    Aborted,
    /// A bot played for an absent person in it.
    BotStoodIn,
    /// Two bots of the same level, which share one rating, played it.
    SameBot,
    /// A side made fewer than [`MIN_MOVES_EACH_TO_RATE`] moves.
    TooShort,
}

/// A name that is no reason a game goes unrated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("\"{0}\" is not a reason a game goes unrated")]
pub struct UnknownUnrated(pub String);

impl UnknownUnrated {
    /// The error for the name `name`.
    fn named(name: &str) -> UnknownUnrated {
        UnknownUnrated(name.to_owned())
    }
}

/// How many moves each side must have made for a game to be rated (as on Lichess): a
/// game decided before both sides have really played says nothing about their skill.
pub const MIN_MOVES_EACH_TO_RATE: u32 = 2;

/// Sent after the finishing `state`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename = "game_over")]
pub struct GameOverMsg {
    /// The room's id.
    pub room: RoomId,
    /// The finished game's id.
    pub game_id: GameId,
    /// The `seq` of the finishing state.
    pub seq: u64,
    /// The winning seat, `null` for a draw.
    pub winner: Option<Seat>,
    /// Why it ended.
    pub reason: EndReason,
    /// Both seats' scores.
    pub scores: Vec<ScoreView>,
    /// Why the game was not rated; `null` when it was.
    pub unrated: Option<Unrated>,
    /// Wall-clock length of the game, ms.
    pub duration_ms: u64,
}

/// A room in `rooms` and `GET /api/rooms`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoomSummary {
    /// The room's id.
    pub room: RoomId,
    /// The game's id.
    pub game: GameKind,
    /// Waiting, playing or finished.
    pub status: Status,
    /// Both seats.
    pub seats: Vec<SeatView>,
    /// Connected spectators.
    pub spectators: usize,
    /// Moves played.
    pub moves: usize,
    /// The room's time control.
    pub time_control: TimeControl,
    /// When the room was created, Unix ms (listings are newest first).
    pub created_at_ms: i64,
}
