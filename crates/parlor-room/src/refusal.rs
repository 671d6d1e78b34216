//! Why a room refuses what a client asks: one variant per rule of PROTOCOL.md §10, in
//! the order a command is checked. A refused command leaves the room as it was. The
//! words a player reads, and the error code, are the protocol's (the server's
//! `protocol` module): this crate only says which rule refused.

use parlor_rules::games::{MoveError, Seat};

/// Why a room refuses a command (the `Display` is a short note for logs; players read
/// the protocol's sentences).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The sender holds no seat in the room on this connection.
    #[error("not a player of this room on this connection")]
    NotAPlayer,
    /// A move after the game ended.
    #[error("the game is over")]
    MoveAfterEnd,
    /// A resignation or a draw request after the game ended.
    #[error("the game is already over")]
    RequestAfterEnd,
    /// A move while a bot finishes the sender's move for them.
    #[error("a bot is finishing this move")]
    BotFinishingMove,
    /// A move before both seats are filled.
    #[error("the game has not started")]
    MoveBeforeStart,
    /// A move out of turn.
    #[error("not this seat's turn")]
    NotYourTurn,
    /// A move chosen in a position the game has left (its sender said how many moves
    /// there were; the game has another number now).
    #[error("a move chosen after {after} moves, and the game has {played}")]
    StaleMove {
        /// How many moves the sender saw.
        after: u32,
        /// How many the game has.
        played: u32,
    },
    /// The game refused the move: not its notation, or not legal here.
    #[error("{0}")]
    Move(MoveError),
    /// The mover's clock ran out before the move arrived.
    #[error("the mover's time ran out")]
    OutOfTime,
    /// A resignation or a draw request before the game started.
    #[error("the game has not started")]
    RequestBeforeStart,
    /// A draw accepted or declined that the opponent has not offered.
    #[error("no draw offer from the opponent")]
    NoDrawOffer,
    /// A claim while the opponent is present (connected, or a bot plays their seat).
    #[error("the opponent is present")]
    OpponentPresent,
    /// A claim before the opponent has been away for `rooms.claim_after_secs`.
    #[error("the opponent may come back for {left_ms} ms more before a claim")]
    TooEarlyToClaim {
        /// How long until the claim may be made, ms.
        left_ms: u64,
    },
    /// A bot asked for while no seat is open (the game has started).
    #[error("no seat is open for a bot")]
    NoOpenSeat,
    /// A rematch asked for before the game is over.
    #[error("the game is not over")]
    RematchBeforeEnd,
    /// The player already holds the other seat.
    #[error("already holds seat {other:?}")]
    AlreadySeated {
        /// The seat they hold.
        other: Seat,
    },
    /// Someone else, or a bot, holds the seat.
    #[error("seat {seat:?} is taken")]
    SeatTaken {
        /// The seat asked for.
        seat: Seat,
    },
    /// The room has as many spectators as it takes.
    #[error("the room has {limit} spectators, its most")]
    RoomFull {
        /// How many it takes.
        limit: u32,
    },
    /// Chat is turned off on this server.
    #[error("chat is off")]
    ChatOff,
    /// The sender neither plays nor watches the room on this connection.
    #[error("not in this room on this connection")]
    NotInRoom,
    /// A chat line before the game started.
    #[error("the game has not started")]
    ChatBeforeStart,
    /// An empty chat line.
    #[error("an empty chat line")]
    EmptyChat,
    /// A chat line over the server's length.
    #[error("a chat line of {chars} characters, over {max_chars}")]
    ChatTooLong {
        /// The longest line allowed.
        max_chars: usize,
        /// This line's length.
        chars: usize,
    },
    /// A chat line that is not one line of plain text.
    #[error("a chat line with control characters")]
    ChatNotOneLine,
}
