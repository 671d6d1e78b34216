//! Fox & Geese on the 33-point cross board: thirteen geese try to pen in one fox, the fox
//! jumps geese to eat them.
//!
//! Points are numbered 1–33 in reading order. A step is written `a-b` (`22-15`); the fox's
//! jumps list every landing point, `axb` or `axbxc…` (`17x15`). The legal list holds one
//! jump per result (landing point and geese taken) with its smallest path, and `play`
//! accepts any legal path (see `moves`). The position is
//! `side:Ffox:Ggeese`, e.g. `G:F17:G21,22,23,24,25,26,27,28,29,30,31,32,33` with `G` or `F`
//! for the side to move. See `docs/games/fox_geese.md` for the board, the rules as
//! implemented and where each choice comes from.

use std::fmt;

use super::{
    BoardView, EndReason, Game, GameKind, Labels, MoveError, Outcome, PositionError, Seat,
};

mod board;
mod moves;
mod position;

use board::{FOX_START, GEESE_START, POINTS, SIZE, ZOBRIST, ZOBRIST_FOX_TO_MOVE, index_at};
pub use board::{Point, geometry};

/// A bound on the length of any move list, with margin: the fox's longest list found by
/// searching reachable positions has 1,576 moves (see docs/games/fox_geese.md, "How
/// long the fox's list can be"); the geese never have more than 13 × 5 steps.
pub const MOST_FOX_MOVES: usize = 2_000;

const NOTATION: &str = "a step `a-b` or jumps `axb`, `axbxc`…, with points numbered 1 to 33";

/// A side: the geese or the fox.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Side {
    /// The thirteen geese (`"geese"`).
    #[default]
    Geese,
    /// The fox (`"fox"`).
    Fox,
}

impl Side {
    /// The other side.
    pub fn other(self) -> Side {
        match self {
            Side::Geese => Side::Fox,
            Side::Fox => Side::Geese,
        }
    }

    /// The letter for this side in the position text: `G` or `F`.
    fn letter(self) -> char {
        match self {
            Side::Geese => 'G',
            Side::Fox => 'F',
        }
    }
}

/// Rules an operator may tune, embedded in config as `[fox_geese]`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields, default))]
pub struct Settings {
    /// The fox wins as soon as fewer geese than this remain (default 4: with three geese
    /// or fewer no arrangement on this board can trap the fox; 0 turns the rule off).
    pub fox_wins_below: u32,
    /// A draw once each side has made this many moves in a row with no capture and no
    /// goose moving forward (default 40; 0 turns the rule off, and threefold repetition
    /// still guarantees an end).
    pub quiet_moves: u32,
    /// The side that moves first, played by seat 0 (default `"geese"`).
    pub first: Side,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            fox_wins_below: 4,
            quiet_moves: 40,
            first: Side::Geese,
        }
    }
}

/// A Fox & Geese move.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Move {
    /// One step along a line onto an empty point (`22-15`), by a goose or the fox.
    Step {
        /// Where the piece stands.
        from: Point,
        /// Where it goes.
        to: Point,
    },
    /// The fox's chain of one or more jumps (`17x15`, `9x11x25`), each over a goose onto
    /// the empty point just beyond along a line.
    Jump {
        /// Where the fox stands.
        from: Point,
        /// Every landing point, in order.
        landings: Vec<Point>,
    },
}

impl Move {
    /// The point the moving piece starts from.
    pub fn from(&self) -> Point {
        match self {
            Move::Step { from, .. } | Move::Jump { from, .. } => *from,
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Step { from, to } => write!(f, "{from}-{to}"),
            Move::Jump { from, landings } => {
                write!(f, "{from}")?;
                landings.iter().try_for_each(|p| write!(f, "x{p}"))
            }
        }
    }
}

/// A Fox & Geese game: the pieces, the side to move, and what the draw rules need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoxGeese {
    settings: Settings,
    fox: Point,
    /// Bit `i` set: a goose on the point with index `i`.
    geese: u64,
    to_move: Side,
    /// Moves in a row (by either side) with no capture and no goose moving forward.
    quiet_plies: u32,
    /// Exact keys of the positions since the last capture or forward goose move, the
    /// current one last. No earlier position can recur: geese never come back.
    seen: Vec<u64>,
    outcome: Option<Outcome>,
}

impl FoxGeese {
    fn from_parts(settings: &Settings, fox: Point, geese: u64, to_move: Side) -> Self {
        let mut game = FoxGeese {
            settings: settings.clone(),
            fox,
            geese,
            to_move,
            quiet_plies: 0,
            seen: Vec::new(),
            outcome: None,
        };
        game.seen.push(game.key());
        game.outcome = game.judge();
        game
    }

    /// The fox's point.
    pub fn fox(&self) -> Point {
        self.fox
    }

    /// The geese's points, ascending.
    pub fn geese(&self) -> impl Iterator<Item = Point> + '_ {
        (0..POINTS as u8).map(Point).filter(|p| self.has_goose(*p))
    }

    /// The side to move (also after the game has ended: the side that would move next).
    pub fn side_to_move(&self) -> Side {
        self.to_move
    }

    /// The seat playing `side`: seat 0 plays the side that moves first.
    pub fn seat_of(&self, side: Side) -> Seat {
        if side == self.settings.first {
            Seat::First
        } else {
            Seat::Second
        }
    }

    fn has_goose(&self, p: Point) -> bool {
        self.geese & p.bit() != 0
    }

    fn goose_count(&self) -> u32 {
        self.geese.count_ones()
    }

    /// The pieces and side to move packed exactly: 33 goose bits, 6 fox bits, 1 side bit.
    fn key(&self) -> u64 {
        self.geese | u64::from(self.fox.0) << 33 | u64::from(self.to_move == Side::Fox) << 39
    }

    /// Every move of the side to move, sorted, whether or not the game has ended.
    fn generate(&self) -> Vec<Move> {
        let mut moves = match self.to_move {
            Side::Geese => moves::goose_moves(self.fox, self.geese),
            Side::Fox => moves::fox_moves(self.fox, self.geese),
        };
        moves.sort();
        moves
    }

    /// Whether this move by `mover` captures or advances a goose: only such moves can
    /// never be undone, so only they reset the draw rules. The fox steps back and forth
    /// freely, so its steps, upward ones included, never do.
    fn is_irreversible(mover: Side, mv: &Move) -> bool {
        match mv {
            Move::Jump { .. } => true,
            Move::Step { from, to } => mover == Side::Geese && to.coords().1 < from.coords().1,
        }
    }

    /// How the rules end the game in this position, if they do.
    fn judge(&self) -> Option<Outcome> {
        let win = |side: Side, reason| {
            Some(Outcome {
                winner: Some(self.seat_of(side)),
                reason,
            })
        };
        let draw = |reason| {
            Some(Outcome {
                winner: None,
                reason,
            })
        };
        if self.goose_count() < self.settings.fox_wins_below {
            return win(Side::Fox, EndReason::GeeseBelowThreshold);
        }
        if !self.has_move() {
            return match self.to_move {
                Side::Fox => win(Side::Geese, EndReason::FoxTrapped),
                Side::Geese => win(Side::Fox, EndReason::GeeseStuck),
            };
        }
        let key = self.key();
        if self.seen.iter().filter(|&&k| k == key).count() >= 3 {
            return draw(EndReason::ThreefoldRepetition);
        }
        let limit = self.settings.quiet_moves.saturating_mul(2);
        if limit > 0 && self.quiet_plies >= limit {
            return draw(EndReason::QuietMoves);
        }
        None
    }

    /// Whether the side to move has any move, without listing them.
    fn has_move(&self) -> bool {
        match self.to_move {
            Side::Geese => moves::geese_can_move(self.fox, self.geese),
            Side::Fox => moves::fox_can_move(self.fox, self.geese),
        }
    }

    /// The fox's point and the geese after `mv`, or why it is illegal, checked directly
    /// rather than against the list: a jump may take any legal path.
    fn apply(&self, mv: &Move) -> Result<(Point, u64), &'static str> {
        match (self.to_move, mv) {
            (Side::Geese, Move::Jump { .. }) => Err("geese never jump"),
            (Side::Geese, &Move::Step { from, to }) => {
                moves::check_goose_step(self.fox, self.geese, from, to)?;
                Ok((self.fox, self.geese & !from.bit() | to.bit()))
            }
            (Side::Fox, mv) if mv.from() != self.fox => Err("the fox is not on that point"),
            (Side::Fox, &Move::Step { to, .. }) => {
                moves::check_fox_step(self.fox, self.geese, to)?;
                Ok((to, self.geese))
            }
            (Side::Fox, Move::Jump { from, landings }) => {
                let left = moves::walk_jumps(*from, landings, self.geese)?;
                Ok((*landings.last().unwrap_or(from), left))
            }
        }
    }
}

impl Game for FoxGeese {
    type Move = Move;
    type Settings = Settings;

    const KIND: GameKind = GameKind::FoxGeese;

    fn new(settings: &Settings) -> Self {
        Self::from_parts(settings, Point(FOX_START), GEESE_START, settings.first)
    }

    /// Reads `side:Ffox:Ggeese` (see the module docs) and accepts only positions play
    /// could reach (see [`position::parse`]); the draw counters start afresh.
    fn from_position(settings: &Settings, position: &str) -> Result<Self, PositionError> {
        let (to_move, fox, geese) = position::parse(position)
            .map_err(|why| PositionError::Invalid(format!("`{position}`: {why}")))?;
        Ok(Self::from_parts(settings, fox, geese, to_move))
    }

    fn turn(&self) -> Option<Seat> {
        match self.outcome {
            Some(_) => None,
            None => Some(self.seat_of(self.to_move)),
        }
    }

    fn legal_moves(&self) -> Vec<Move> {
        match self.outcome {
            Some(_) => Vec::new(),
            None => self.generate(),
        }
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let unparseable = || MoveError::Unparseable {
            text: text.to_owned(),
            expected: NOTATION,
        };
        let points = |separator: char| -> Result<Vec<Point>, MoveError> {
            text.split(separator)
                .map(|part| Point::parse(part).ok_or_else(unparseable))
                .collect()
        };
        if text.contains('-') {
            match points('-')?.as_slice() {
                &[from, to] => Ok(Move::Step { from, to }),
                _ => Err(unparseable()),
            }
        } else if text.contains('x') {
            match points('x')?.split_first() {
                Some((&from, landings)) if !landings.is_empty() => Ok(Move::Jump {
                    from,
                    landings: landings.to_vec(),
                }),
                _ => Err(unparseable()),
            }
        } else {
            Err(unparseable())
        }
    }

    fn play(&mut self, mv: &Move) -> Result<(), MoveError> {
        if self.outcome.is_some() {
            return Err(MoveError::GameOver);
        }
        let (fox, geese) = self.apply(mv).map_err(|why| MoveError::Illegal {
            text: mv.to_string(),
            why,
        })?;
        self.fox = fox;
        self.geese = geese;
        if Self::is_irreversible(self.to_move, mv) {
            self.quiet_plies = 0;
            self.seen.clear();
        } else {
            self.quiet_plies = self.quiet_plies.saturating_add(1);
        }
        self.to_move = self.to_move.other();
        self.seen.push(self.key());
        self.outcome = self.judge();
        Ok(())
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn position_hash(&self) -> u64 {
        let geese = self.geese().fold(0, |hash, p| hash ^ ZOBRIST[0][p.index()]);
        let side = if self.to_move == Side::Fox {
            ZOBRIST_FOX_TO_MOVE
        } else {
            0
        };
        geese ^ ZOBRIST[1][self.fox.index()] ^ side
    }

    fn position(&self) -> String {
        let geese: Vec<String> = self.geese().map(|p| p.to_string()).collect();
        format!(
            "{}:F{}:G{}",
            self.to_move.letter(),
            self.fox,
            geese.join(",")
        )
    }

    fn board(&self) -> BoardView {
        static LABELS: Labels = Labels::new();
        let labels = LABELS.get(|| diagram().map(|p| p.map(|p| p.to_string())).collect());
        BoardView::grid(SIZE as u8, SIZE as u8, Game::cells(self), labels)
    }

    fn cells(&self) -> Vec<Option<char>> {
        diagram()
            .map(|p| match p {
                Some(p) if p == self.fox => Some('F'),
                Some(p) if self.has_goose(p) => Some('G'),
                _ => None,
            })
            .collect()
    }
}

/// Every cell of the 7×7 diagram, row by row: its point, or `None` in a corner off the
/// board.
fn diagram() -> impl Iterator<Item = Option<Point>> {
    (0..SIZE).flat_map(|y| (0..SIZE).map(move |x| index_at(x, y).map(Point)))
}

#[cfg(test)]
mod tests;
