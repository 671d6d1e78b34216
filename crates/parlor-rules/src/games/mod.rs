//! Pure game rules: no I/O, no clock, no randomness, no JSON.
//!
//! Every game implements [`Game`]. The rest of the server reaches games through
//! the object-safe, text-in/text-out [`crate::catalog::AnyGame`], so rooms,
//! sessions and storage need no generics.

pub mod checkers;
pub mod chess;
mod export;
pub mod fox_geese;
mod kind;
mod labels;
#[cfg(test)]
pub mod laws;
mod perft;
pub mod tictactoe;

pub use kind::{GameKind, UnknownGame};
pub use labels::CellLabels;
pub(crate) use labels::Labels;
pub use perft::perft;

use std::fmt;

/// A seat at the table. Seat 0 moves first from every game's standard start (a game set
/// up from a position starts with whichever side the position says is to move).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(into = "u8", try_from = "u8"))]
pub enum Seat {
    /// Seat 0: the side that moves first from the standard start (X in tic-tac-toe).
    First,
    /// The seat that moves second (O in tic-tac-toe).
    Second,
}

impl Seat {
    /// Both seats, in turn order.
    pub const BOTH: [Seat; 2] = [Seat::First, Seat::Second];

    /// The opponent's seat.
    pub fn other(self) -> Seat {
        match self {
            Seat::First => Seat::Second,
            Seat::Second => Seat::First,
        }
    }

    /// The seat's number on the wire and its index into per-seat arrays.
    pub fn index(self) -> usize {
        match self {
            Seat::First => 0,
            Seat::Second => 1,
        }
    }

    /// The seat with this wire number, if there is one.
    pub fn from_index(index: u64) -> Option<Seat> {
        match index {
            0 => Some(Seat::First),
            1 => Some(Seat::Second),
            _ => None,
        }
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Seat {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Seat".into()
    }

    /// The seat's number on the wire: `0` or `1`.
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A seat: 0 or 1. Seat 0 moves first from every game's usual start.",
            "type": "integer",
            "enum": [0, 1],
        })
    }
}

impl From<Seat> for u8 {
    fn from(seat: Seat) -> u8 {
        seat.index() as u8
    }
}

impl From<Seat> for i64 {
    fn from(seat: Seat) -> i64 {
        seat.index() as i64
    }
}

impl From<Seat> for usize {
    fn from(seat: Seat) -> usize {
        seat.index()
    }
}

/// A seat number that is neither 0 nor 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("there is no seat {0}; a seat is 0 or 1")]
pub struct NoSuchSeat(pub u64);

impl TryFrom<u8> for Seat {
    type Error = NoSuchSeat;

    fn try_from(index: u8) -> Result<Seat, NoSuchSeat> {
        Seat::from_index(u64::from(index)).ok_or(NoSuchSeat(u64::from(index)))
    }
}

/// Why a game ended (PROTOCOL.md §12.5), named alike on the wire and in storage.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    strum::Display,
    strum::EnumString,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[strum(
    serialize_all = "snake_case",
    parse_err_ty = UnknownEndReason,
    parse_err_fn = UnknownEndReason::named
)]
#[cfg_attr(feature = "serde", derive(serde_with::DeserializeFromStr))]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename_all = "snake_case")
)]
pub enum EndReason {
    /// Tic-tac-toe: three marks in a row, column or diagonal.
    ThreeInARow,
    /// Tic-tac-toe: all nine cells filled with no line.
    BoardFull,
    /// Chess: the side to move is in check and has no legal move.
    Checkmate,
    /// Chess: the side to move is not in check and has no legal move (a draw).
    Stalemate,
    /// Chess: neither side can ever checkmate (a draw).
    InsufficientMaterial,
    /// The same position arose for the third time with the same side to move (a draw).
    ThreefoldRepetition,
    /// Chess: fifty moves by each side without a capture or a pawn move (a draw).
    FiftyMoves,
    /// Checkers: the configured number of moves by each side without a capture or a
    /// man moving (a draw).
    FortyMoves,
    /// Checkers: the side to move has no legal move and loses.
    NoMoves,
    /// Fox & Geese: the fox cannot move; the geese win.
    FoxTrapped,
    /// Fox & Geese: the geese cannot move; the fox wins.
    GeeseStuck,
    /// Fox & Geese: too few geese remain to trap the fox; the fox wins.
    GeeseBelowThreshold,
    /// Fox & Geese: the configured number of moves by each side without a capture or a
    /// goose moving forward (a draw).
    QuietMoves,
    /// A player resigned.
    Resigned,
    /// A player left mid-game or did not reconnect in time.
    Abandoned,
    /// A player's clock ran out; the other side wins.
    Timeout,
    /// A player's clock ran out but the other side cannot possibly win (chess: no mating
    /// material), so it is a draw.
    TimeoutVsInsufficientMaterial,
    /// A side did not make its first move in time; the game does not count.
    Aborted,
    /// The players agreed to a draw.
    DrawAgreed,
    /// The opponent's connection was gone long enough for the player present to claim
    /// a draw rather than wait out the reconnect grace.
    DrawClaimed,
}

#[cfg(feature = "serde")]
crate::serialize_by_name!(EndReason);

impl EndReason {
    /// Every reason.
    pub const ALL: &[EndReason] = <EndReason as strum::VariantArray>::VARIANTS;

    /// The reason's name on the wire and in storage.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether the game ended by a player's choice, absence or clock rather than by the
    /// rules (an agreed draw counts too), which matters for scoring: such an ending early
    /// in a game is not scored (see [`crate::scoring`]).
    pub fn is_forfeit(self) -> bool {
        matches!(
            self,
            EndReason::Resigned
                | EndReason::Abandoned
                | EndReason::Timeout
                | EndReason::TimeoutVsInsufficientMaterial
                | EndReason::DrawAgreed
                | EndReason::DrawClaimed
        )
    }
}

/// A name that is no end reason (a stored game from a newer version, or a damaged row).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not an end reason")]
pub struct UnknownEndReason(pub String);

impl UnknownEndReason {
    /// The error for the name `name`.
    fn named(name: &str) -> UnknownEndReason {
        UnknownEndReason(name.to_owned())
    }
}

/// How a game ended: the winner (or none for a draw) and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Outcome {
    /// The winning seat, or `None` for a draw.
    pub winner: Option<Seat>,
    /// Why the game ended.
    pub reason: EndReason,
}

/// Why a move was refused. The game is unchanged whenever one of these is returned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The text is not a move in this game's notation.
    #[error("`{text}` is not a move in this game's notation: {expected}")]
    Unparseable {
        /// What the client sent.
        text: String,
        /// A short description of the notation.
        expected: &'static str,
    },
    /// The move is well-formed but not legal here.
    #[error("`{text}` is not legal in this position: {why}")]
    Illegal {
        /// The move as written.
        text: String,
        /// Why it is not legal.
        why: &'static str,
    },
    /// The game is over; no move is legal.
    #[error("the game is over")]
    GameOver,
}

/// What a client draws without knowing the rules, tagged by layout so later games
/// can add layouts without changing existing ones.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "layout", rename_all = "snake_case"))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum BoardView {
    /// A rectangular grid read row by row from the top-left of the game's standard
    /// diagram (chess: rank 8 at the top; checkers: Black's side at the top).
    Grid {
        /// Number of rows.
        rows: u8,
        /// Number of columns.
        cols: u8,
        /// `rows * cols` one-letter piece codes, row by row from the top-left; `null` for
        /// an empty cell (or a cell that is not part of the board).
        cells: Vec<Option<char>>,
        /// Each cell's name in the game's move notation (`"e4"`, `"15"`), or `null` for a
        /// cell that is not part of the board (no piece ever stands there). The same in
        /// every position of a game.
        labels: &'static CellLabels,
    },
}

impl BoardView {
    /// A grid of `rows × cols` from its cells' one-letter piece codes (as
    /// [`Game::cells`] gives them) and its labels.
    pub fn grid(rows: u8, cols: u8, cells: Vec<Option<char>>, labels: &'static CellLabels) -> Self {
        BoardView::Grid {
            rows,
            cols,
            cells,
            labels,
        }
    }
}

/// Why a game could not be set up from a given position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// This game always starts from its standard position.
    #[error("this game cannot start from a given position")]
    Unsupported,
    /// The text is not a valid position for this game.
    #[error("not a valid position: {0}")]
    Invalid(String),
}

/// A game's complete authoritative state. No I/O, no clock, no global RNG.
///
/// `play` either applies a legal move or returns an error with `self` unchanged,
/// which is what lets rooms validate moves and bots search positions safely.
pub trait Game: Clone + Send + Sync + 'static {
    /// A validated move. `Display` writes the game's standard notation.
    type Move: Clone + Eq + fmt::Display + Send;

    /// Rules an operator may tune in config (e.g. checkers' quiet-move limit); `()` for
    /// games without any.
    type Settings: Clone + Default + fmt::Debug + Send + Sync + 'static;

    /// Which game this is.
    const KIND: GameKind;

    /// The starting position under `settings`.
    fn new(settings: &Self::Settings) -> Self;

    /// A game from a given position in the game's standard text form (`options.start`).
    fn from_position(settings: &Self::Settings, position: &str) -> Result<Self, PositionError> {
        let _ = (settings, position);
        Err(PositionError::Unsupported)
    }

    /// The seat to move, or `None` once the game is over.
    fn turn(&self) -> Option<Seat>;

    /// Every legal move of the side to move, in a stable order; empty once the game is over.
    fn legal_moves(&self) -> Vec<Self::Move>;

    /// Reads a move in the game's notation. Sees the position, so notations that depend
    /// on it (SAN, short multi-jumps) can be resolved, which may already show the move is
    /// illegal or ambiguous; `play` makes the final check either way.
    fn parse_move(&self, text: &str) -> Result<Self::Move, MoveError>;

    /// Plays a move if it is legal; on error the game is unchanged.
    fn play(&mut self, mv: &Self::Move) -> Result<(), MoveError>;

    /// A legal move as players write it in this game's records, read in the position
    /// before it: SAN in chess (`Nf3`, `exd8=Q+`). Where the notation already is what
    /// players write, as in the other games here, the notation itself.
    fn describe(&self, mv: &Self::Move) -> String {
        mv.to_string()
    }

    /// The result once the rules have ended the game.
    fn outcome(&self) -> Option<Outcome>;

    /// Whether `seat` could still win by some series of legal moves; when it cannot, the
    /// opponent running out of time is a draw rather than a loss (chess: mating material).
    fn can_win(&self, seat: Seat) -> bool {
        let _ = seat;
        true
    }

    /// A hash of the position (including the side to move), for repetition and
    /// transposition tables.
    fn position_hash(&self) -> u64;

    /// The position in the game's standard text form.
    fn position(&self) -> String;

    /// A structured view of the board for clients.
    fn board(&self) -> BoardView;

    /// The board's cells in [`Game::board`]'s order, each a piece's one-letter code or
    /// `None` (empty, or off the board): the board without its labels, cheap enough to
    /// compare before and after every move.
    fn cells(&self) -> Vec<Option<char>>;
}
