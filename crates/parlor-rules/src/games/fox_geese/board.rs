//! The cross board: its 33 points, the lines joining them, and the fixed Zobrist keys.

use std::fmt;

/// Side of the 7x7 grid the cross is cut from.
pub(super) const SIZE: i8 = 7;

/// Number of points on the board.
pub(super) const POINTS: usize = 33;

/// The fox's starting point (17, the centre), as an index.
pub(super) const FOX_START: u8 = 16;

/// The geese's starting points (21–33), as a bit set of indices.
pub(super) const GEESE_START: u64 = ((1 << 13) - 1) << 20;

/// The eight directions `(dx, dy)`, `y` growing downward: up, left, right, down, then the
/// diagonals up-left, up-right, down-left, down-right.
pub(super) const DIRECTIONS: [(i8, i8); 8] = [
    (0, -1),
    (-1, 0),
    (1, 0),
    (0, 1),
    (-1, -1),
    (1, -1),
    (-1, 1),
    (1, 1),
];

/// Whether `(x, y)` is one of the 33 points: the cross of columns 2–4 and rows 2–4.
const fn on_board(x: i8, y: i8) -> bool {
    x >= 0 && x < SIZE && y >= 0 && y < SIZE && ((x >= 2 && x <= 4) || (y >= 2 && y <= 4))
}

/// The `(x, y)` of every point, in reading order (index 0 is point 1).
pub(super) const COORDS: [(i8, i8); POINTS] = {
    let mut coords = [(0, 0); POINTS];
    let mut n = 0;
    let mut y = 0;
    while y < SIZE {
        let mut x = 0;
        while x < SIZE {
            if on_board(x, y) {
                coords[n] = (x, y);
                n += 1;
            }
            x += 1;
        }
        y += 1;
    }
    coords
};

/// The index of the point at `(x, y)`, if that is a point.
pub(super) const fn index_at(x: i8, y: i8) -> Option<u8> {
    if !on_board(x, y) {
        return None;
    }
    let mut i = 0;
    while i < POINTS {
        if COORDS[i].0 == x && COORDS[i].1 == y {
            return Some(i as u8);
        }
        i += 1;
    }
    None
}

/// `LINES[p][d]`: the point one step from `p` in direction `DIRECTIONS[d]` along a line of
/// the board. Orthogonal lines join all neighbours; diagonal lines leave only the points
/// whose `x + y` is even.
pub(super) const LINES: [[Option<u8>; 8]; POINTS] = {
    let mut lines = [[None; 8]; POINTS];
    let mut p = 0;
    while p < POINTS {
        let (x, y) = COORDS[p];
        let mut d = 0;
        while d < 8 {
            let (dx, dy) = DIRECTIONS[d];
            let diagonal = dx != 0 && dy != 0;
            if !diagonal || (x + y) % 2 == 0 {
                lines[p][d] = index_at(x + dx, y + dy);
            }
            d += 1;
        }
        p += 1;
    }
    lines
};

/// The board's geometry by point index (a point's number minus one), for code that works
/// on indices, such as the bots' evaluation. Directions are numbered as in the rules: up,
/// left, right, down, then up-left, up-right, down-left, down-right.
pub mod geometry {
    use super::{COORDS, LINES};

    /// How many points the board has.
    pub const POINTS: usize = super::POINTS;

    /// How many directions a line can run in from a point.
    pub const DIRECTIONS: usize = 8;

    /// The index one step from `index` along a line in `direction`, if there is one.
    pub const fn step(index: usize, direction: usize) -> Option<usize> {
        match LINES[index][direction] {
            Some(next) => Some(next as usize),
            None => None,
        }
    }

    /// The direction opposite `direction`.
    pub const fn opposite(direction: usize) -> usize {
        if direction < 4 {
            3 - direction
        } else {
            11 - direction
        }
    }

    /// The row of the point at `index`, 0 at the top.
    pub const fn row(index: usize) -> usize {
        COORDS[index].1 as usize
    }
}

/// A SplitMix64 step: the next state and its output, for fixed Zobrist keys.
const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

/// Fixed Zobrist keys: `[0]` a goose on each point, `[1]` the fox on each point.
pub(super) const ZOBRIST: [[u64; POINTS]; 2] = {
    let mut keys = [[0; POINTS]; 2];
    let mut state = 0x466F_7826_4765_6573; // "Fox&Gees"
    let mut piece = 0;
    while piece < 2 {
        let mut p = 0;
        while p < POINTS {
            let (next, key) = splitmix64(state);
            state = next;
            keys[piece][p] = key;
            p += 1;
        }
        piece += 1;
    }
    keys
};

/// Zobrist key of the fox being the side to move.
pub(super) const ZOBRIST_FOX_TO_MOVE: u64 = splitmix64(0x5349_4445).1;

/// A point of the board, numbered 1–33 in reading order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(pub(super) u8);

impl Point {
    /// The point with this number, 1..=33.
    pub fn new(number: u8) -> Option<Point> {
        (1..=POINTS as u8)
            .contains(&number)
            .then(|| Point(number - 1))
    }

    /// The point's number, 1..=33.
    pub fn number(self) -> u8 {
        self.0 + 1
    }

    /// The point's column and row on the 7x7 grid, `(0, 0)` at the top-left.
    pub fn coords(self) -> (u8, u8) {
        let (x, y) = COORDS[self.index()];
        (x as u8, y as u8)
    }

    pub(super) fn index(self) -> usize {
        usize::from(self.0)
    }

    pub(super) fn bit(self) -> u64 {
        1 << self.0
    }

    /// The point one step away in direction `d`, along a line.
    pub(super) fn step(self, d: usize) -> Option<Point> {
        LINES[self.index()][d].map(Point)
    }

    /// Reads a point number written canonically (`"7"`, not `"07"` or `"+7"`).
    pub(super) fn parse(text: &str) -> Option<Point> {
        let canonical = !text.is_empty()
            && text.len() <= 2
            && text.bytes().all(|b| b.is_ascii_digit())
            && !text.starts_with('0');
        if canonical {
            text.parse().ok().and_then(Point::new)
        } else {
            None
        }
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.number())
    }
}
