//! English checkers (American rules) on the 8x8 board.
//!
//! Black (seat 0) starts on squares 1–12 and moves first; White (seat 1) starts on
//! 21–32. Men move and capture diagonally forward, kings one square in any diagonal
//! direction. Capturing is mandatory and a capture that can continue must continue, but
//! any capture sequence may be chosen. A man reaching the far row is crowned and its move
//! ends. A side with no legal move loses. The game is drawn automatically after
//! [`Settings::quiet_moves`] moves by each side without a capture or a man moving, and on
//! the third occurrence of a position with the same side to move.
//!
//! Moves are PDN: `11-15`, `22x15x6` (every landing square), or the short `22x6` when
//! only one capture path fits. Positions are PDN FEN (`B:W21,...,32:B1,...,12`). See
//! `docs/games/checkers.md`.

mod board;
mod fen;
mod notation;
mod pdn;
#[cfg(test)]
mod tests;

use board::{Board, square_at};
pub use notation::Move;
pub use pdn::{PdnTags, pdn};

use super::{
    BoardView, EndReason, Game, GameKind, Labels, MoveError, Outcome, PositionError, Seat,
};

/// Checkers rules an operator may tune (the `[checkers]` table of the config file).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields, default))]
pub struct Settings {
    /// The game is drawn once each side has made this many moves in a row without a
    /// capture or a man moving (only kings shuffling). `0` turns the rule off.
    pub quiet_moves: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { quiet_moves: 40 }
    }
}

/// Why a short-form jump was refused.
const AMBIGUOUS: &str = "several capture paths join those squares; list every landing square";

/// A checkers game: the pieces, the side to move, and what the draw rules need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkers {
    settings: Settings,
    board: Board,
    to_move: Seat,
    /// Plies since the last capture or man move.
    quiet_plies: u32,
    /// The positions (with their side to move) since the last capture or man move,
    /// before the current one: only these can repeat.
    earlier: Vec<(Board, Seat)>,
    /// A draw the rules have declared (repetition or too many quiet moves).
    draw: Option<EndReason>,
}

impl Checkers {
    /// Every piece on the board as (square 1–32, owner, crowned), for bots and tools.
    pub fn pieces(&self) -> impl Iterator<Item = (u8, Seat, bool)> + '_ {
        (0u8..32).filter_map(|index| {
            self.board
                .piece_at(index)
                .map(|piece| (index + 1, piece.seat, piece.king))
        })
    }

    fn at(settings: &Settings, board: Board, to_move: Seat) -> Checkers {
        Checkers {
            settings: settings.clone(),
            board,
            to_move,
            quiet_plies: 0,
            earlier: Vec::new(),
            draw: None,
        }
    }

    /// Updates the draw rules after a move that left `before` behind.
    fn record(&mut self, before: (Board, Seat), irreversible: bool) {
        if irreversible {
            self.earlier.clear();
            self.quiet_plies = 0;
            return;
        }
        self.earlier.push(before);
        self.quiet_plies += 1;
        let now = (self.board, self.to_move);
        let limit = self.settings.quiet_moves.saturating_mul(2);
        if self.earlier.iter().filter(|&&seen| seen == now).count() >= 2 {
            self.draw = Some(EndReason::ThreefoldRepetition);
        } else if limit > 0 && self.quiet_plies >= limit {
            self.draw = Some(EndReason::FortyMoves);
        }
    }

    /// Resolves a short-form jump (`22x6`) to the one legal capture it names.
    fn resolve_short_form(&self, text: &str, mv: Move) -> Result<Move, MoveError> {
        let legal = self.legal_moves();
        if legal.contains(&mv) {
            return Ok(mv);
        }
        let mut fits = legal.into_iter().filter(|candidate| {
            candidate.is_capture() && candidate.start() == mv.start() && candidate.end() == mv.end()
        });
        match (fits.next(), fits.next()) {
            (Some(only), None) => Ok(only),
            (Some(_), Some(_)) => Err(MoveError::Illegal {
                text: text.to_owned(),
                why: AMBIGUOUS,
            }),
            // Not legal at all; `play` will say why.
            (None, _) => Ok(mv),
        }
    }

    /// Why a move missing from `legal` is illegal.
    fn why_illegal(&self, mv: &Move, legal: &[Move]) -> &'static str {
        let own = self
            .board
            .piece_at(mv.start())
            .is_some_and(|piece| piece.seat == self.to_move);
        if !own {
            "you have no piece on the square the move starts from"
        } else if !mv.is_capture() && legal.iter().any(Move::is_capture) {
            "a capture is available, so it must be taken"
        } else if legal
            .iter()
            .any(|full| full.is_capture() && full.path().starts_with(mv.path()))
        {
            "the capture can continue, so it must continue; list every landing square"
        } else {
            "not a legal move here"
        }
    }

    /// The board code of a square index: `b`/`B` for a black man/king, `w`/`W` for white.
    fn code(&self, square: u8) -> Option<char> {
        let piece = self.board.piece_at(square)?;
        Some(match (piece.seat, piece.king) {
            (Seat::First, false) => 'b',
            (Seat::First, true) => 'B',
            (Seat::Second, false) => 'w',
            (Seat::Second, true) => 'W',
        })
    }

    /// Every cell of the 8×8 diagram, row by row: its square, or [`board::NONE`] on a
    /// light one.
    fn diagram() -> impl Iterator<Item = u8> {
        (0..8).flat_map(|row| (0..8).map(move |col| square_at(row, col)))
    }
}

impl Game for Checkers {
    type Move = Move;
    type Settings = Settings;

    const KIND: GameKind = GameKind::Checkers;

    fn new(settings: &Settings) -> Self {
        Checkers::at(settings, Board::START, Seat::First)
    }

    fn from_position(settings: &Settings, position: &str) -> Result<Self, PositionError> {
        let (board, to_move) = fen::parse(position).map_err(PositionError::Invalid)?;
        Ok(Checkers::at(settings, board, to_move))
    }

    fn turn(&self) -> Option<Seat> {
        self.outcome().is_none().then_some(self.to_move)
    }

    fn legal_moves(&self) -> Vec<Move> {
        if self.draw.is_some() {
            return Vec::new();
        }
        self.board.moves(self.to_move)
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let mv = notation::parse(text)?;
        if mv.is_capture() && mv.path().len() == 2 {
            self.resolve_short_form(text, mv)
        } else {
            Ok(mv)
        }
    }

    fn play(&mut self, mv: &Move) -> Result<(), MoveError> {
        let legal = self.legal_moves();
        if legal.is_empty() {
            return Err(MoveError::GameOver);
        }
        if !legal.contains(mv) {
            return Err(MoveError::Illegal {
                text: mv.to_string(),
                why: self.why_illegal(mv, &legal),
            });
        }
        let before = (self.board, self.to_move);
        let irreversible = self.board.apply(self.to_move, mv);
        self.to_move = self.to_move.other();
        self.record(before, irreversible);
        Ok(())
    }

    fn outcome(&self) -> Option<Outcome> {
        // A side left without a move loses even if the same move also completed a draw.
        if !self.board.has_move(self.to_move) {
            return Some(Outcome {
                winner: Some(self.to_move.other()),
                reason: EndReason::NoMoves,
            });
        }
        self.draw.map(|reason| Outcome {
            winner: None,
            reason,
        })
    }

    fn position_hash(&self) -> u64 {
        self.board.hash(self.to_move)
    }

    fn position(&self) -> String {
        fen::format(&self.board, self.to_move)
    }

    fn board(&self) -> BoardView {
        static LABELS: Labels = Labels::new();
        let labels = LABELS.get(|| {
            Self::diagram()
                .map(|square| (square != board::NONE).then(|| (square + 1).to_string()))
                .collect()
        });
        BoardView::grid(8, 8, Game::cells(self), labels)
    }

    fn cells(&self) -> Vec<Option<char>> {
        Self::diagram()
            .map(|square| match square {
                board::NONE => None,
                _ => self.code(square),
            })
            .collect()
    }
}
