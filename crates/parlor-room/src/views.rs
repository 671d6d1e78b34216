//! How a room is shown: its full `state` after every change (seats, board, clocks,
//! result), the `moved` event that stands for a move's `state` where a connection asked
//! for it, `game_over`, and the room as listings show it. The machine makes them; the
//! server's protocol sends them as they are.

mod shown_seats;

use parlor_rules::GameKind;
use parlor_rules::games::{BoardView, EndReason, Seat};
use serde::{Deserialize, Serialize};

use crate::scoring::Opponent;
use crate::{GameId, PlayerId, RoomId, SeatKind, TimeControl};
pub use shown_seats::ShownSeats;

/// A seat as shown in `state` and room listings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SeatView {
    /// The seat (0 or 1 on the wire).
    pub seat: Seat,
    /// `open`, `human` or `bot:<level>`.
    pub kind: SeatKind,
    /// The human's name, or `"Bot (<level>)"` for a bot; `null` when open.
    pub name: Option<String>,
    /// The human's player id; `null` for open seats and bots.
    pub player_id: Option<PlayerId>,
    /// Whether the occupant is connected: always `true` for bots, always `false` for
    /// open seats, and for a human whether some connection currently holds the seat.
    pub connected: bool,
    /// The occupant's Glicko-2 rating in this game, rounded: a human's own. `null` for
    /// an open seat, for a bot (bots are not rated), for a player with no rated game of
    /// this game yet, and while the room is waiting.
    pub rating: Option<i64>,
    /// `true` when the seat's player is a bot account: an engine playing through the Bot
    /// API under its own name (docs/BOT_API.md), shown as a bot wherever its name is.
    /// Absent otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bot_account: bool,
    /// The person a bot is playing for after they stayed away past the reconnect grace
    /// (`options.takeover`); they get the seat back by joining it again. The seat's
    /// `kind` and `name` are then the bot's and its `player_id` `null`. Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stand_in_for: Option<PlayerRef>,
    /// Only in `state`, while the game is on and this seat's person is away: ms left of
    /// their reconnect grace when the state was sent (as the clocks' `remaining_ms`).
    /// When it runs out they lose by `abandoned`, or a bot takes the seat over
    /// (`takeover`). Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace_left_ms: Option<u64>,
    /// Beside `grace_left_ms`: ms, when the state was sent, until the opponent may claim
    /// the game (`claim_victory`, `claim_draw`); `0` once they may. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_left_ms: Option<u64>,
}

/// A person, as named in seat views.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PlayerRef {
    /// The player's public id.
    pub player_id: PlayerId,
    /// The player's name.
    pub name: String,
}

/// The last move played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LastMove {
    /// Who played it.
    pub seat: Seat,
    /// The move in the game's canonical notation.
    #[serde(rename = "move")]
    pub text: String,
    /// The move as players write it: SAN in chess (`Nf3`, `exd8=Q+`), the same as
    /// `move` in the other games.
    pub display: String,
}

/// A finished game's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    serde_with::DeserializeFromStr,
)]
#[strum(
    serialize_all = "snake_case",
    parse_err_ty = UnknownStatus,
    parse_err_fn = UnknownStatus::named
)]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename_all = "snake_case")
)]
pub enum Status {
    /// A seat is still open.
    Waiting,
    /// Both seats are filled and the game is on.
    Playing,
    /// The game has ended.
    Finished,
}

parlor_rules::serialize_by_name!(Status);

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
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(transform = crate::schema::tagged_state)
)]
pub struct StateMsg {
    /// The room's id.
    pub room: RoomId,
    /// The game id.
    pub game: GameKind,
    /// The id of the room's current game; `null` until the first game starts. A
    /// rematch replaces it with the new game's id.
    pub game_id: Option<GameId>,
    /// The room's state counter: rises by one with every state the room broadcasts.
    pub seq: u64,
    /// Waiting, playing or finished.
    pub status: Status,
    /// Seat 0 then seat 1.
    pub seats: ShownSeats,
    /// Connections watching (players are not counted).
    pub spectators: usize,
    /// The seat to move; `null` unless playing.
    pub to_move: Option<Seat>,
    /// The position in the game's text form.
    pub position: String,
    /// The board in a drawable form.
    pub board: BoardView,
    /// Every legal move of the side to move, in the game's canonical notation and a
    /// stable order; empty unless playing.
    pub legal_moves: Vec<String>,
    /// The latest move; `null` before the first.
    pub last_move: Option<LastMove>,
    /// How many moves have been played.
    pub moves: usize,
    /// Once finished: the winner and why. Otherwise `null`.
    pub result: Option<ResultView>,
    /// The room's time control, in the form of `options.time_control`;
    /// `{"kind":"none"}` without a clock.
    pub time_control: TimeControl,
    /// Both clocks; `null` without a time control.
    pub clocks: Option<ClockView>,
    /// While playing: the seat whose draw offer is open, `null` when none is. The
    /// game's end clears it.
    pub draw_offer: Option<Seat>,
    /// `true`, only when present: the game was resumed after the server restarted, and
    /// no move has been played since. Absent otherwise (never `false`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub resumed: bool,
    /// Once finished: the seats that have asked for a rematch, in seat order, e.g.
    /// `[0]`. Otherwise `[]`.
    pub rematch: Vec<Seat>,
    /// Only in the snapshot after `joined`: every move of the current game so far, in
    /// order, in canonical notation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<String>>,
    /// Only beside `history`: the same moves as players write them (see
    /// `last_move.display`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_display: Option<Vec<String>>,
}

/// A move that left the game on, for connections that asked for moves as events
/// (`hello.updates`): exactly the fields of `state` that a move changes, and the board's
/// cells it changed. Applied to the connection's last `state`, it gives the `state` the
/// room would have sent.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename = "moved")]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(transform = crate::schema::tagged_moved)
)]
pub struct MovedMsg {
    /// The room's id.
    pub room: RoomId,
    /// The `seq` of the `state` it stands for: one more than the last.
    pub seq: u64,
    /// The move, as in `state`.
    pub last_move: LastMove,
    /// How many moves have been played.
    pub moves: usize,
    /// The seat to move.
    pub to_move: Option<Seat>,
    /// The position in the game's text form.
    pub position: String,
    /// Every cell of `board.cells` the move changed, in index order, as
    /// `[index, code]`: the index into `board.cells` and the cell's new piece code, or
    /// `null` for a cell left empty.
    pub cells: Vec<CellChange>,
    /// The legal moves of the side to move.
    pub legal_moves: Vec<String>,
    /// As in `state`.
    pub clocks: Option<ClockView>,
    /// As in `state`: a move lets the opponent's draw offer lapse.
    pub draw_offer: Option<Seat>,
}

/// One cell of `board.cells` a move changed: its index, and its new piece code (`null`
/// for empty). On the wire, a pair: `[12, "P"]`.
pub type CellChange = (usize, Option<char>);

/// Both clocks in `state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ClockView {
    /// Each side's time left when this state was sent, ms: seat 0's, then seat 1's.
    pub remaining_ms: [u64; 2],
    /// The seat whose clock is running; `null` while waiting, while the side to move
    /// has yet to make its first move, and once finished.
    pub running: Option<Seat>,
}

/// A seat's score in `game_over`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ScoreView {
    /// The seat (0 or 1 on the wire).
    pub seat: Seat,
    /// The seat's name.
    pub name: Option<String>,
    /// The score; `null` for bots and for unscored games, including every game started
    /// from a position.
    pub score: Option<u32>,
    /// Whom the seat played: the other seat at the end (`person` or `bot:<level>`; a bot
    /// that stood in for a person counts as a bot). The leaderboard keeps scores per
    /// opponent.
    pub opponent: Opponent,
    /// The seat's rating in this game before it, rounded; `null` for both seats when
    /// the game was not rated (only games between two people are).
    pub rating_before: Option<i64>,
    /// The seat's rating after the game, rounded; `null` as `rating_before` is.
    pub rating_after: Option<i64>,
}

/// Why a finished game was not rated (PROTOCOL.md §13.4); `null` when it was.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    strum::Display,
    strum::EnumString,
    strum::IntoStaticStr,
    serde_with::DeserializeFromStr,
)]
#[strum(
    serialize_all = "snake_case",
    parse_err_ty = UnknownUnrated,
    parse_err_fn = UnknownUnrated::named
)]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename_all = "snake_case")
)]
pub enum Unrated {
    /// It started from a given position (`options.start`).
    FromPosition,
    /// It ended as `aborted`.
    Aborted,
    /// A bot played for an absent person in it.
    BotStoodIn,
    /// A bot held a seat: only games between two people are rated.
    BotOpponent,
    /// A side made fewer than two moves (`MIN_MOVES_EACH_TO_RATE`).
    TooShort,
}

parlor_rules::serialize_by_name!(Unrated);

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
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(transform = crate::schema::tagged_game_over)
)]
pub struct GameOverMsg {
    /// The room's id.
    pub room: RoomId,
    /// The finished game's id.
    pub game_id: GameId,
    /// The `seq` of the finishing state.
    pub seq: u64,
    /// The winning seat, `null` for a draw.
    pub winner: Option<Seat>,
    /// Why the game ended.
    pub reason: EndReason,
    /// Both seats' scores, seat 0 then seat 1.
    pub scores: Vec<ScoreView>,
    /// Why the game was not rated; `null` when it was.
    pub unrated: Option<Unrated>,
    /// Time from the start of the game to its end, ms.
    pub duration_ms: u64,
}

/// A room in `rooms` and `GET /api/rooms`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RoomSummary {
    /// The room's id.
    pub room: RoomId,
    /// The game's id.
    pub game: GameKind,
    /// Waiting, playing or finished.
    pub status: Status,
    /// Both seats.
    pub seats: ShownSeats,
    /// Connected spectators.
    pub spectators: usize,
    /// Moves played.
    pub moves: usize,
    /// The room's time control, as in `state`; `{"kind":"none"}` without a clock.
    pub time_control: TimeControl,
    /// Creation time, Unix ms. Rooms are sorted by it, newest first (ties by room id).
    pub created_at_ms: i64,
}
