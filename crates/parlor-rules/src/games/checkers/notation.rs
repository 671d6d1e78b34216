//! Moves and their PDN notation: `11-15` for a simple move, `22x15x6` for a jump
//! listing every landing square.

use std::fmt;
use std::hash::{Hash, Hasher};

use crate::games::MoveError;

/// The most squares a move can visit: a start and one landing per captured piece (a side
/// has at most twelve).
const MAX_SQUARES: usize = 13;

/// A short description of the notation, for refusals.
pub(super) const NOTATION: &str = "PDN squares 1-32: `11-15` for a move, `22x15x6` for a jump \
     listing every landing square (or `22x6` when only one jump path fits)";

/// A checkers move: the squares the piece visits, and whether it jumps.
///
/// `Display` writes the full PDN form: `11-15`, or `22x15x6` with every landing square.
#[derive(Clone, Copy, Debug)]
pub struct Move {
    /// Square indices (PDN number minus one); only the first `len` are meaningful.
    squares: [u8; MAX_SQUARES],
    len: u8,
    jump: bool,
}

impl Move {
    /// A simple one-square move between two square indices.
    pub(super) fn step(from: u8, to: u8) -> Move {
        let mut squares = [0; MAX_SQUARES];
        squares[0] = from;
        squares[1] = to;
        Move {
            squares,
            len: 2,
            jump: false,
        }
    }

    /// The start of a jump from a square index, before any landing square.
    pub(super) fn start_jump(from: u8) -> Move {
        let mut squares = [0; MAX_SQUARES];
        squares[0] = from;
        Move {
            squares,
            len: 1,
            jump: true,
        }
    }

    /// Appends a square index; `false` (and no change) if the move is already full.
    pub(super) fn push(&mut self, square: u8) -> bool {
        match self.squares.get_mut(usize::from(self.len)) {
            Some(slot) => {
                *slot = square;
                self.len += 1;
                true
            }
            None => false,
        }
    }

    /// Removes the last square index (never the start).
    pub(super) fn pop(&mut self) {
        if self.len > 1 {
            self.len -= 1;
        }
    }

    /// The visited square indices (PDN numbers minus one), start first.
    pub(super) fn path(&self) -> &[u8] {
        &self.squares[..usize::from(self.len)]
    }

    /// The index of the starting square.
    pub(super) fn start(&self) -> u8 {
        self.squares[0]
    }

    /// The index of the final square.
    pub(super) fn end(&self) -> u8 {
        self.squares[usize::from(self.len) - 1]
    }

    /// The PDN numbers (1–32) of the squares the piece visits, start first.
    pub fn squares(&self) -> impl Iterator<Item = u8> + '_ {
        self.path().iter().map(|square| square + 1)
    }

    /// Whether the move jumps (captures).
    pub fn is_capture(&self) -> bool {
        self.jump
    }
}

impl PartialEq for Move {
    fn eq(&self, other: &Move) -> bool {
        self.jump == other.jump && self.path() == other.path()
    }
}

impl Eq for Move {}

impl Hash for Move {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.jump.hash(state);
        self.path().hash(state);
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let separator = if self.jump { "x" } else { "-" };
        for (i, square) in self.squares().enumerate() {
            if i > 0 {
                f.write_str(separator)?;
            }
            write!(f, "{square}")?;
        }
        Ok(())
    }
}

/// Reads PDN move text as written, without looking at the position: `a-b` or
/// `axbx...` (an `X` works too). The short form `22x6` comes back as a two-square jump
/// for the caller to resolve.
pub(super) fn parse(text: &str) -> Result<Move, MoveError> {
    let unparseable = || MoveError::Unparseable {
        text: text.to_owned(),
        expected: NOTATION,
    };
    let jump = text.contains(['x', 'X']);
    let parts: Vec<&str> = if jump {
        text.split(['x', 'X']).collect()
    } else {
        text.split('-').collect()
    };
    if parts.len() < 2 || (!jump && parts.len() != 2) {
        return Err(unparseable());
    }
    let mut mv = Move {
        squares: [0; MAX_SQUARES],
        len: 0,
        jump,
    };
    for part in parts {
        let square = parse_square(part).ok_or_else(unparseable)?;
        if !mv.push(square) {
            return Err(MoveError::Illegal {
                text: text.to_owned(),
                why: "no move jumps more than twelve pieces",
            });
        }
    }
    Ok(mv)
}

/// A PDN square number `1`..`32` (no sign, no leading zero) as a square index.
pub(super) fn parse_square(text: &str) -> Option<u8> {
    let well_formed = !text.is_empty()
        && text.len() <= 2
        && text.bytes().all(|b| b.is_ascii_digit())
        && !text.starts_with('0');
    if !well_formed {
        return None;
    }
    let number: u8 = text.parse().ok()?;
    (1..=32).contains(&number).then(|| number - 1)
}
