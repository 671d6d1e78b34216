//! The room frames the Bot API reads, parsed back into typed values at this edge: the
//! parts of `state`, `chat`, `game_over`, `replaced` and `room_closed` (PROTOCOL.md §7)
//! that a Lichess game stream is made from. Frames of other kinds are skipped.

use serde::Deserialize;

use parlor_room::{PlayerId, TimeControl};
use parlor_rules::GameKind;
use parlor_rules::games::{EndReason, Seat};

/// A room frame, as far as the Bot API reads it.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum RoomFrame {
    /// The room's state.
    State(Box<StateFrame>),
    /// Lines of the connection's chat.
    Chat(ChatFrame),
    /// The game ended (its finishing `state` came just before).
    GameOver {},
    /// Another connection took this one's seat.
    Replaced {},
    /// The operator closed the room.
    RoomClosed {},
    /// Any other frame.
    #[serde(other)]
    Other,
}

/// The parts of a `state` a game stream shows.
#[derive(Debug, Deserialize)]
pub(super) struct StateFrame {
    /// The game.
    pub(super) game: GameKind,
    /// `waiting`, `playing` or `finished`.
    pub(super) status: String,
    /// Both seats.
    pub(super) seats: [SeatFrame; 2],
    /// The position (a FEN in chess).
    pub(super) position: String,
    /// The last move, if any.
    pub(super) last_move: Option<LastMove>,
    /// How many moves have been played.
    pub(super) moves: u32,
    /// Once finished: the winner and why.
    pub(super) result: Option<ResultFrame>,
    /// The room's clock.
    pub(super) time_control: TimeControl,
    /// Each side's time left, when there is a clock.
    pub(super) clocks: Option<ClocksFrame>,
    /// The seat whose draw offer is open.
    pub(super) draw_offer: Option<Seat>,
    /// Every move so far, in the snapshot after `joined` only.
    #[serde(default)]
    pub(super) history: Option<Vec<String>>,
}

/// A seat as a `state` shows it.
#[derive(Debug, Deserialize)]
pub(super) struct SeatFrame {
    /// `open`, `human` or `bot:<level>`.
    pub(super) kind: String,
    /// Who sits there.
    pub(super) name: Option<String>,
    /// The person's id, if a person sits there.
    pub(super) player_id: Option<PlayerId>,
    /// The occupant's rating in this game.
    pub(super) rating: Option<i64>,
    /// Whether the occupant is connected.
    pub(super) connected: bool,
    /// While the seat's person is away from a game in progress: ms until the opponent
    /// may claim the game.
    #[serde(default)]
    pub(super) claim_left_ms: Option<u64>,
}

/// The latest move.
#[derive(Debug, Deserialize)]
pub(super) struct LastMove {
    /// In the game's canonical notation (UCI in chess).
    #[serde(rename = "move")]
    pub(super) text: String,
}

/// How a game ended.
#[derive(Debug, Deserialize)]
pub(super) struct ResultFrame {
    /// The winning seat; `None` for a draw.
    pub(super) winner: Option<Seat>,
    /// Why it ended.
    pub(super) reason: EndReason,
}

/// Both sides' clocks.
#[derive(Debug, Deserialize)]
pub(super) struct ClocksFrame {
    /// Time left, ms, seat 0 then seat 1.
    pub(super) remaining_ms: [u64; 2],
}

/// Lines of one chat.
#[derive(Debug, Deserialize)]
pub(super) struct ChatFrame {
    /// `players` or `spectators`.
    pub(super) channel: String,
    /// The lines, oldest first.
    pub(super) lines: Vec<ChatLine>,
}

/// One line of chat.
#[derive(Debug, Deserialize)]
pub(super) struct ChatLine {
    /// Who said it.
    pub(super) name: String,
    /// What they said.
    pub(super) text: String,
}

/// `text` read as a room frame; `None` for text that is not one (never sent by rooms).
pub(super) fn read(text: &str) -> Option<RoomFrame> {
    serde_json::from_str(text).ok()
}
