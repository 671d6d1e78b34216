//! Fox & Geese on the 33-point cross board: thirteen geese try to pen in one fox, the fox
//! jumps geese to eat them.
//!
//! Points are numbered 1–33 in reading order. A step is written `a-b` (`22-15`); the fox's
//! jumps list every landing point, `axb` or `axbxc…` (`17x15`). The position is
//! `side:Ffox:Ggeese`, e.g. `G:F17:G21,22,23,24,25,26,27,28,29,30,31,32,33` with `G` or `F`
//! for the side to move. See `docs/games/fox_geese.md` for the board, the rules as
//! implemented and where each choice comes from.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{BoardView, EndReason, Game, MoveError, Outcome, PositionError, Seat};

/// Side of the 7x7 grid the cross is cut from.
const SIZE: i8 = 7;

/// Number of points on the board.
const POINTS: usize = 33;

/// The fox's starting point (17, the centre), as an index.
const FOX_START: u8 = 16;

/// The geese's starting points (21–33), as a bit set of indices.
const GEESE_START: u64 = ((1 << 13) - 1) << 20;

/// The eight directions `(dx, dy)`, `y` growing downward: up, left, right, down, then the
/// diagonals up-left, up-right, down-left, down-right.
const DIRECTIONS: [(i8, i8); 8] = [
    (0, -1),
    (-1, 0),
    (1, 0),
    (0, 1),
    (-1, -1),
    (1, -1),
    (-1, 1),
    (1, 1),
];

const NOTATION: &str = "a step `a-b` or jumps `axb`, `axbxc`…, with points numbered 1 to 33";

/// Whether `(x, y)` is one of the 33 points: the cross of columns 2–4 and rows 2–4.
const fn on_board(x: i8, y: i8) -> bool {
    x >= 0 && x < SIZE && y >= 0 && y < SIZE && ((x >= 2 && x <= 4) || (y >= 2 && y <= 4))
}

/// The `(x, y)` of every point, in reading order (index 0 is point 1).
const COORDS: [(i8, i8); POINTS] = {
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
const fn index_at(x: i8, y: i8) -> Option<u8> {
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
const LINES: [[Option<u8>; 8]; POINTS] = {
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
const ZOBRIST: [[u64; POINTS]; 2] = {
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
const ZOBRIST_FOX_TO_MOVE: u64 = splitmix64(0x5349_4445).1;

/// A side: the geese or the fox.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
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

/// A point of the board, numbered 1–33 in reading order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(u8);

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

    fn index(self) -> usize {
        usize::from(self.0)
    }

    fn bit(self) -> u64 {
        1 << self.0
    }

    /// The point one step away in direction `d`, along a line.
    fn step(self, d: usize) -> Option<Point> {
        LINES[self.index()][d].map(Point)
    }

    /// Reads a point number written canonically (`"7"`, not `"07"` or `"+7"`).
    fn parse(text: &str) -> Option<Point> {
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

    fn is_empty(&self, p: Point) -> bool {
        !self.has_goose(p) && p != self.fox
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
            Side::Geese => self.goose_moves(),
            Side::Fox => fox_moves(self.fox, self.geese),
        };
        moves.sort();
        moves
    }

    /// One step up, sideways or diagonally up for each goose; never down.
    fn goose_moves(&self) -> Vec<Move> {
        let mut moves = Vec::new();
        for from in self.geese() {
            for (d, &(_, dy)) in DIRECTIONS.iter().enumerate() {
                if dy > 0 {
                    continue;
                }
                if let Some(to) = from.step(d).filter(|&to| self.is_empty(to)) {
                    moves.push(Move::Step { from, to });
                }
            }
        }
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
        if self.generate().is_empty() {
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

    /// Why a move that is not in the legal list is refused.
    fn why_illegal(&self, mv: &Move) -> &'static str {
        match (self.to_move, mv) {
            (Side::Geese, Move::Jump { .. }) => "geese never jump",
            (Side::Geese, Move::Step { from, .. }) if !self.has_goose(*from) => {
                "there is no goose on that point"
            }
            (Side::Fox, mv) if mv.from() != self.fox => "the fox is not on that point",
            (_, Move::Step { to, .. }) if !self.is_empty(*to) => "that point is not empty",
            (side, Move::Step { from, to }) => match direction(*from, *to) {
                None => "those points are not joined by a line",
                Some(_) if side == Side::Geese => "geese never move backward",
                Some(_) => "that step is not legal",
            },
            (Side::Fox, Move::Jump { .. }) => {
                "each jump must cross a goose along a line onto an empty point"
            }
        }
    }
}

/// The direction of the line from `from` to its neighbour `to`, if they are joined.
fn direction(from: Point, to: Point) -> Option<usize> {
    (0..DIRECTIONS.len()).find(|&d| from.step(d) == Some(to))
}

/// The fox's steps and every jump chain from `fox` (each prefix of a chain is a move of
/// its own: the fox may stop after any jump).
fn fox_moves(fox: Point, geese: u64) -> Vec<Move> {
    let empty = |p: Point, geese: u64| geese & p.bit() == 0;
    let mut moves: Vec<Move> = (0..DIRECTIONS.len())
        .filter_map(|d| fox.step(d))
        .filter(|&to| empty(to, geese))
        .map(|to| Move::Step { from: fox, to })
        .collect();
    // The fox has left its point, so a chain may land there again.
    let mut landings = Vec::new();
    extend_chains(fox, fox, geese, &mut landings, &mut moves);
    moves
}

/// Adds every chain continuing from `at` (reached by `landings`) with `geese` left.
/// A jumped goose is gone at once, so no goose can be jumped twice.
fn extend_chains(
    from: Point,
    at: Point,
    geese: u64,
    landings: &mut Vec<Point>,
    moves: &mut Vec<Move>,
) {
    for d in 0..DIRECTIONS.len() {
        let Some(over) = at.step(d) else { continue };
        let Some(land) = over.step(d) else { continue };
        if geese & over.bit() == 0 || geese & land.bit() != 0 {
            continue;
        }
        landings.push(land);
        moves.push(Move::Jump {
            from,
            landings: landings.clone(),
        });
        extend_chains(from, land, geese & !over.bit(), landings, moves);
        landings.pop();
    }
}

impl Game for FoxGeese {
    type Move = Move;
    type Settings = Settings;

    const ID: &'static str = "fox_geese";

    fn new(settings: &Settings) -> Self {
        Self::from_parts(settings, Point(FOX_START), GEESE_START, settings.first)
    }

    /// Reads `side:Ffox:Ggeese` (see the module docs); the draw counters start afresh.
    fn from_position(settings: &Settings, position: &str) -> Result<Self, PositionError> {
        let invalid = |why: &str| PositionError::Invalid(format!("`{position}`: {why}"));
        let mut parts = position.split(':');
        let (Some(side), Some(fox), Some(geese), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(invalid("expected three fields, `side:Ffox:Ggeese`"));
        };
        let to_move = match side {
            "G" => Side::Geese,
            "F" => Side::Fox,
            _ => return Err(invalid("the side to move must be `G` or `F`")),
        };
        let fox = fox
            .strip_prefix('F')
            .and_then(Point::parse)
            .ok_or_else(|| invalid("the fox must be `F` and a point from 1 to 33"))?;
        let geese_list = geese
            .strip_prefix('G')
            .ok_or_else(|| invalid("the geese must be `G` and a list of points"))?;
        let mut set = 0u64;
        let mut last: Option<Point> = None;
        if !geese_list.is_empty() {
            for text in geese_list.split(',') {
                let p = Point::parse(text)
                    .ok_or_else(|| invalid("each goose must be a point from 1 to 33"))?;
                if last.is_some_and(|last| p <= last) {
                    return Err(invalid("the geese must be listed in ascending order, once"));
                }
                if p == fox {
                    return Err(invalid("a goose cannot stand on the fox's point"));
                }
                set |= p.bit();
                last = Some(p);
            }
        }
        Ok(Self::from_parts(settings, fox, set, to_move))
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
        if !self.generate().contains(mv) {
            return Err(MoveError::Illegal {
                text: mv.to_string(),
                why: self.why_illegal(mv),
            });
        }
        match mv {
            Move::Step { from, to } if self.to_move == Side::Geese => {
                self.geese = self.geese & !from.bit() | to.bit();
            }
            Move::Step { to, .. } => self.fox = *to,
            Move::Jump { from, landings } => {
                let mut at = *from;
                for &land in landings {
                    if let Some(over) = jumped(at, land) {
                        self.geese &= !over.bit();
                    }
                    at = land;
                }
                self.fox = at;
            }
        }
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
        let cell = |x: i8, y: i8| index_at(x, y).map(Point);
        let grid: Vec<Option<Point>> = (0..SIZE)
            .flat_map(|y| (0..SIZE).map(move |x| cell(x, y)))
            .collect();
        BoardView::Grid {
            rows: SIZE as u8,
            cols: SIZE as u8,
            cells: grid
                .iter()
                .map(|p| match p {
                    Some(p) if *p == self.fox => Some("F".to_owned()),
                    Some(p) if self.has_goose(*p) => Some("G".to_owned()),
                    _ => None,
                })
                .collect(),
            labels: grid.iter().map(|p| p.map(|p| p.to_string())).collect(),
        }
    }
}

/// The point jumped when landing on `land` from `at`, two steps along one line.
fn jumped(at: Point, land: Point) -> Option<Point> {
    (0..DIRECTIONS.len()).find_map(|d| {
        let over = at.step(d)?;
        (over.step(d) == Some(land)).then_some(over)
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::games::{laws, perft};

    fn start() -> FoxGeese {
        FoxGeese::new(&Settings::default())
    }

    fn fox_first() -> Settings {
        Settings {
            first: Side::Fox,
            ..Settings::default()
        }
    }

    fn at(position: &str) -> FoxGeese {
        FoxGeese::from_position(&Settings::default(), position).unwrap()
    }

    fn play(game: &mut FoxGeese, moves: &[&str]) {
        for text in moves {
            let mv = game.parse_move(text).unwrap();
            game.play(&mv).unwrap();
        }
    }

    fn listed(game: &FoxGeese) -> Vec<String> {
        game.legal_moves().iter().map(ToString::to_string).collect()
    }

    fn point(number: u8) -> Point {
        Point::new(number).unwrap()
    }

    fn ended(winner: Option<Seat>, reason: EndReason) -> Option<Outcome> {
        Some(Outcome { winner, reason })
    }

    #[test]
    fn the_board_has_33_points_numbered_in_reading_order() {
        assert_eq!(point(1).coords(), (2, 0));
        assert_eq!(point(3).coords(), (4, 0));
        assert_eq!(point(7).coords(), (0, 2));
        assert_eq!(point(17).coords(), (3, 3));
        assert_eq!(point(27).coords(), (6, 4));
        assert_eq!(point(31).coords(), (2, 6));
        assert_eq!(point(33).coords(), (4, 6));
        assert_eq!(Point::new(0), None);
        assert_eq!(Point::new(34), None);
    }

    #[test]
    fn diagonal_lines_join_only_points_with_an_even_sum() {
        let mut orthogonal = 0;
        let mut diagonal = 0;
        for p in (1..=33).map(point) {
            let (x, y) = p.coords();
            for (d, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
                let Some(q) = p.step(d) else { continue };
                let (qx, qy) = q.coords();
                assert_eq!(
                    (i16::from(qx) - i16::from(x), i16::from(qy) - i16::from(y)),
                    (i16::from(dx), i16::from(dy))
                );
                // Every line runs both ways.
                assert_eq!(q.step(back(d)), Some(p));
                if dx != 0 && dy != 0 {
                    assert_eq!((x + y) % 2, 0, "diagonal from point {p}");
                    diagonal += 1;
                } else {
                    orthogonal += 1;
                }
            }
        }
        // Each segment is seen from both ends. Orthogonal: 2 in each of rows 0, 1, 5, 6 and
        // 6 in each of rows 2-4, the same again in columns. Diagonal: 4 + 2 + 4 each way.
        assert_eq!((orthogonal / 2, diagonal / 2), (52, 20));
    }

    /// The index of the opposite direction.
    fn back(d: usize) -> usize {
        let (dx, dy) = DIRECTIONS[d];
        DIRECTIONS
            .iter()
            .position(|&(ex, ey)| (ex, ey) == (-dx, -dy))
            .unwrap()
    }

    #[test]
    fn the_start_has_the_fox_in_the_centre_and_geese_on_21_to_33() {
        let game = start();
        assert_eq!(
            game.position(),
            "G:F17:G21,22,23,24,25,26,27,28,29,30,31,32,33"
        );
        assert_eq!(game.turn(), Some(Seat::First));
        assert_eq!(game.side_to_move(), Side::Geese);
        assert_eq!(game.outcome(), None);
        assert_eq!(
            listed(&game),
            [
                "21-14", "21-15", "22-15", "23-15", "23-16", "25-18", "25-19", "26-19", "27-19",
                "27-20"
            ]
        );
    }

    #[test]
    fn perft_geese_first_matches_the_hand_count() {
        let game = start();
        for (depth, count) in [1, 10, 54, 812].into_iter().enumerate() {
            assert_eq!(perft(&game, depth as u32), count, "depth {depth}");
        }
    }

    #[test]
    fn perft_fox_first_matches_the_hand_count() {
        let game = FoxGeese::new(&fox_first());
        for (depth, count) in [1, 5, 63, 300].into_iter().enumerate() {
            assert_eq!(perft(&game, depth as u32), count, "depth {depth}");
        }
    }

    #[test]
    fn fox_first_puts_the_fox_in_seat_0() {
        let mut game = FoxGeese::new(&fox_first());
        assert_eq!(
            game.position(),
            "F:F17:G21,22,23,24,25,26,27,28,29,30,31,32,33"
        );
        assert_eq!(game.turn(), Some(Seat::First));
        assert_eq!(game.seat_of(Side::Fox), Seat::First);
        assert_eq!(listed(&game), ["17-9", "17-10", "17-11", "17-16", "17-18"]);
        play(&mut game, &["17-10"]);
        assert_eq!(game.turn(), Some(Seat::Second));
        assert_eq!(game.side_to_move(), Side::Geese);

        // A trapped fox is now a win for seat 1.
        let trapped = FoxGeese::from_position(&fox_first(), "F:F2:G1,3,5,10").unwrap();
        assert_eq!(
            trapped.outcome(),
            ended(Some(Seat::Second), EndReason::FoxTrapped)
        );
    }

    #[test]
    fn geese_never_move_backward() {
        // The goose on 16 may go up, sideways or (16 is odd) not diagonally; never to 23.
        let mut game = at("G:F1:G16,29,30,31");
        let before = game.clone();
        assert_eq!(
            listed(&game)
                .iter()
                .filter(|m| m.starts_with("16-"))
                .count(),
            3
        );
        let mv = game.parse_move("16-23").unwrap();
        assert_eq!(
            game.play(&mv),
            Err(MoveError::Illegal {
                text: "16-23".to_owned(),
                why: "geese never move backward"
            })
        );
        // The goose on 29 (even) has diagonals forward, but never backward to 31 or 33.
        assert!(listed(&game).contains(&"29-23".to_owned()));
        assert!(listed(&game).contains(&"29-25".to_owned()));
        let mv = game.parse_move("29-33").unwrap();
        assert!(game.play(&mv).is_err());
        assert_eq!(game, before);
    }

    #[test]
    fn diagonal_steps_exist_only_from_even_points() {
        // 22 is odd: no diagonal to 14 or 16. 23 is even: diagonals to 15 and 17.
        let mut game = at("G:F1:G22,23,31,32");
        for text in ["22-14", "22-16"] {
            let mv = game.parse_move(text).unwrap();
            assert_eq!(
                game.play(&mv),
                Err(MoveError::Illegal {
                    text: text.to_owned(),
                    why: "those points are not joined by a line"
                })
            );
        }
        assert!(listed(&game).contains(&"23-15".to_owned()));
        assert!(listed(&game).contains(&"23-17".to_owned()));

        // The fox on 10 (odd) has four lines; on 9 (even) it has seven.
        assert_eq!(listed(&at("F:F10:G29,31,32,33")).len(), 4);
        assert_eq!(listed(&at("F:F9:G29,31,32,33")).len(), 7);
        let mut fox = at("F:F10:G29,31,32,33");
        let mv = fox.parse_move("10-4").unwrap();
        assert!(matches!(fox.play(&mv), Err(MoveError::Illegal { .. })));
    }

    #[test]
    fn the_fox_jumps_a_goose_and_removes_it() {
        let mut game = start();
        play(&mut game, &["23-16"]);
        assert_eq!(
            listed(&game),
            ["17-9", "17-10", "17-11", "17-18", "17-23", "17x15"]
        );
        play(&mut game, &["17x15"]);
        assert_eq!(
            game.position(),
            "G:F15:G21,22,24,25,26,27,28,29,30,31,32,33"
        );
        assert_eq!(game.geese().count(), 12);
    }

    #[test]
    fn jumps_chain_and_the_fox_may_stop_after_any_jump() {
        // 17 over 18 to 19, then diagonally over 11 to 5.
        let game = at("F:F17:G11,18,28,30,31,32,33");
        let moves = listed(&game);
        assert!(moves.contains(&"17x19".to_owned()));
        assert!(moves.contains(&"17x19x5".to_owned()));

        let mut partial = game.clone();
        play(&mut partial, &["17x19"]);
        assert_eq!(partial.position(), "G:F19:G11,28,30,31,32,33");

        let mut full = game;
        play(&mut full, &["17x19x5"]);
        assert_eq!(full.position(), "G:F5:G28,30,31,32,33");
    }

    #[test]
    fn no_goose_is_jumped_twice_in_a_chain() {
        // Four geese round a square: the fox may go all the way round back to 9, but may
        // never cross a goose it has already taken (9x11x9 would jump 10 twice).
        let game = at("F:F9:G10,16,18,24");
        let moves = listed(&game);
        assert!(moves.contains(&"9x11x25x23x9".to_owned()));
        assert!(moves.contains(&"9x23x25x11x9".to_owned()));
        assert!(!moves.contains(&"9x11x9".to_owned()));
        assert!(!moves.contains(&"9x23x9".to_owned()));
        assert!(moves.iter().all(|m| m.matches('x').count() <= 4));

        let mut round = game;
        play(&mut round, &["9x11x25x23x9"]);
        assert_eq!(round.geese().count(), 0);
        assert_eq!(
            round.outcome(),
            ended(Some(Seat::Second), EndReason::GeeseBelowThreshold)
        );
    }

    #[test]
    fn the_geese_win_when_the_fox_is_trapped() {
        let mut game = at("G:F2:G1,3,6,10");
        assert_eq!(game.outcome(), None);
        play(&mut game, &["6-5"]);
        assert_eq!(
            game.outcome(),
            ended(Some(Seat::First), EndReason::FoxTrapped)
        );
        assert_eq!(game.turn(), None);
        assert!(game.legal_moves().is_empty());
    }

    #[test]
    fn the_fox_wins_when_the_geese_are_stuck() {
        let mut game = at("F:F17:G1,2,3,4,5,6");
        assert_eq!(game.outcome(), None);
        play(&mut game, &["17-10"]);
        assert_eq!(
            game.outcome(),
            ended(Some(Seat::Second), EndReason::GeeseStuck)
        );
        assert!(game.legal_moves().is_empty());
    }

    #[test]
    fn the_fox_wins_when_too_few_geese_remain() {
        let mut game = at("F:F17:G10,31,32,33");
        play(&mut game, &["17x5"]);
        assert_eq!(
            game.outcome(),
            ended(Some(Seat::Second), EndReason::GeeseBelowThreshold)
        );

        // With the threshold at 3, three geese play on.
        let settings = Settings {
            fox_wins_below: 3,
            ..Settings::default()
        };
        let mut game = FoxGeese::from_position(&settings, "F:F17:G10,31,32,33").unwrap();
        play(&mut game, &["17x5"]);
        assert_eq!(game.outcome(), None);
        assert_eq!(game.turn(), Some(Seat::First));
    }

    /// The default threshold of 4 is the smallest number of geese that can trap the fox
    /// at all: no three geese trap it on any point, four do on point 2.
    #[test]
    fn three_geese_can_never_trap_the_fox_but_four_can() {
        for fox in (1..=33).map(point) {
            let others: Vec<Point> = (1..=33).map(point).filter(|&p| p != fox).collect();
            for (i, a) in others.iter().enumerate() {
                for (j, b) in others.iter().enumerate().skip(i + 1) {
                    for c in others.iter().skip(j + 1) {
                        let geese = a.bit() | b.bit() | c.bit();
                        assert!(!fox_moves(fox, geese).is_empty(), "{fox} {a} {b} {c}");
                    }
                }
            }
        }
        let four = point(1).bit() | point(3).bit() | point(5).bit() | point(10).bit();
        assert!(fox_moves(point(2), four).is_empty());
    }

    #[test]
    fn quiet_moves_draw_the_game() {
        let settings = Settings {
            quiet_moves: 2,
            ..Settings::default()
        };
        let mut game = FoxGeese::from_position(&settings, "G:F2:G22,31,32,33").unwrap();
        play(&mut game, &["22-21", "2-1", "21-22"]);
        assert_eq!(game.outcome(), None);
        play(&mut game, &["1-2"]);
        assert_eq!(game.outcome(), ended(None, EndReason::QuietMoves));
        assert_eq!(game.turn(), None);

        // A goose moving forward starts the count again.
        let mut game = FoxGeese::from_position(&settings, "G:F2:G22,31,32,33").unwrap();
        play(&mut game, &["22-21", "2-1", "21-14", "1-2", "14-15", "2-1"]);
        assert_eq!(game.outcome(), None);
        play(&mut game, &["15-14"]);
        assert_eq!(game.outcome(), ended(None, EndReason::QuietMoves));
    }

    #[test]
    fn threefold_repetition_draws_the_game() {
        let mut game = at("G:F2:G22,31,32,33");
        let shuffle = ["22-21", "2-1", "21-22", "1-2"];
        play(&mut game, &shuffle);
        play(&mut game, &shuffle[..3]);
        assert_eq!(game.outcome(), None);
        play(&mut game, &shuffle[3..]);
        assert_eq!(game.outcome(), ended(None, EndReason::ThreefoldRepetition));
        assert!(game.legal_moves().is_empty());
    }

    #[test]
    fn zero_turns_the_quiet_moves_rule_off() {
        let settings = Settings {
            quiet_moves: 0,
            ..Settings::default()
        };
        let mut game = FoxGeese::from_position(&settings, "G:F2:G22,31,32,33").unwrap();
        play(&mut game, &["22-21", "2-1", "21-22"]);
        assert_eq!(game.outcome(), None);
    }

    #[test]
    fn notation_round_trips_and_rejects_everything_else() {
        let game = at("F:F17:G11,18,28,30,31,32,33");
        for mv in game.legal_moves() {
            assert_eq!(game.parse_move(&mv.to_string()), Ok(mv));
        }
        assert_eq!(
            game.parse_move("22-15"),
            Ok(Move::Step {
                from: point(22),
                to: point(15)
            })
        );
        assert_eq!(
            game.parse_move("17x19x5"),
            Ok(Move::Jump {
                from: point(17),
                landings: vec![point(19), point(5)]
            })
        );
        for bad in [
            "", "17", "17-", "-17", "17-10-3", "0-1", "34-1", "07-10", "17x", "x17", "17X19",
            "17 -10", " 17-10", "17-10 ", "17-10x3", "17x19-5", "a-b", "+1-2", "17–10", "17:10",
            "100-1",
        ] {
            assert!(
                matches!(game.parse_move(bad), Err(MoveError::Unparseable { .. })),
                "{bad:?}"
            );
        }
        // Well-formed but illegal moves parse, and `play` refuses them.
        let mut game = start();
        let before = game.clone();
        for (text, why) in [
            ("17-17", "there is no goose on that point"),
            ("24-17", "that point is not empty"),
            ("21-13", "those points are not joined by a line"),
            ("21x7", "geese never jump"),
        ] {
            let mv = game.parse_move(text).unwrap();
            assert_eq!(
                game.play(&mv),
                Err(MoveError::Illegal {
                    text: text.to_owned(),
                    why
                })
            );
        }
        assert_eq!(game, before);

        let mut fox = FoxGeese::new(&fox_first());
        for (text, why) in [
            ("16-9", "the fox is not on that point"),
            ("17-24", "that point is not empty"),
            (
                "17x31",
                "each jump must cross a goose along a line onto an empty point",
            ),
            (
                "17x31x17",
                "each jump must cross a goose along a line onto an empty point",
            ),
        ] {
            let mv = fox.parse_move(text).unwrap();
            assert_eq!(
                fox.play(&mv),
                Err(MoveError::Illegal {
                    text: text.to_owned(),
                    why
                })
            );
        }
    }

    #[test]
    fn positions_round_trip_and_bad_ones_are_refused() {
        let settings = Settings::default();
        for text in [
            "G:F17:G21,22,23,24,25,26,27,28,29,30,31,32,33",
            "F:F5:G28,30,31,32,33",
            "G:F2:G1,3,6,10",
            "F:F9:G",
        ] {
            let game = FoxGeese::from_position(&settings, text).unwrap();
            assert_eq!(game.position(), text);
        }
        for bad in [
            "",
            "G:F17",
            "X:F17:G21",
            "G:17:G21",
            "G:F0:G21",
            "G:F34:G21",
            "G:F17:21",
            "G:F17:G22,21",
            "G:F17:G21,21",
            "G:F17:G17",
            "G:F17:G21,",
            "G:F17:G21:",
            "g:F17:G21",
        ] {
            assert!(
                matches!(
                    FoxGeese::from_position(&settings, bad),
                    Err(PositionError::Invalid(_))
                ),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn the_board_view_is_a_7x7_grid_with_point_labels() {
        let game = start();
        let view = game.board();
        let BoardView::Grid {
            rows,
            cols,
            ref cells,
            ref labels,
        } = view;
        assert_eq!((rows, cols), (7, 7));
        assert_eq!(labels.iter().filter(|l| l.is_none()).count(), 16);
        assert_eq!(labels[0], None);
        assert_eq!(labels[2].as_deref(), Some("1"));
        assert_eq!(labels[14].as_deref(), Some("7"));
        assert_eq!(labels[48], None);
        assert_eq!(cells[24].as_deref(), Some("F"));
        assert_eq!(cells.iter().flatten().filter(|c| *c == "G").count(), 13);
        assert_eq!(cells[2], None);
        let json = serde_json::to_string(&view).unwrap();
        assert!(json.starts_with(r#"{"layout":"grid","rows":7,"cols":7,"cells":[null,null,null"#));
    }

    #[test]
    fn the_hash_covers_pieces_and_side_and_ignores_move_order() {
        let mut a = start();
        play(&mut a, &["21-14", "17-10", "27-20"]);
        let mut b = start();
        play(&mut b, &["27-20", "17-10", "21-14"]);
        assert_eq!(a.position_hash(), b.position_hash());
        assert_eq!(a.position(), b.position());
        let geese_to_move = at("G:F17:G21,22,23,24,25,26,27,28,29,30,31,32,33");
        let fox_to_move = at("F:F17:G21,22,23,24,25,26,27,28,29,30,31,32,33");
        assert_ne!(geese_to_move.position_hash(), fox_to_move.position_hash());
        assert_ne!(start().position_hash(), a.position_hash());
    }

    #[test]
    fn nothing_can_be_played_after_the_end() {
        let mut game = at("F:F2:G1,3,5,10");
        let before = game.clone();
        let mv = game.parse_move("2-5").unwrap();
        assert_eq!(game.play(&mv), Err(MoveError::GameOver));
        assert_eq!(game, before);
    }

    #[test]
    fn settings_read_from_config_with_defaults() {
        assert_eq!(
            Settings::default(),
            Settings {
                fox_wins_below: 4,
                quiet_moves: 40,
                first: Side::Geese
            }
        );
        let empty: Settings = serde_json::from_str("{}").unwrap();
        assert_eq!(empty, Settings::default());
        let fox: Settings = serde_json::from_str(r#"{"first":"fox","quiet_moves":25}"#).unwrap();
        assert_eq!(
            fox,
            Settings {
                quiet_moves: 25,
                first: Side::Fox,
                ..Settings::default()
            }
        );
        assert!(serde_json::from_str::<Settings>(r#"{"first":"Fox"}"#).is_err());
        assert!(serde_json::from_str::<Settings>(r#"{"threshold":3}"#).is_err());
        assert_eq!(
            serde_json::to_string(&Settings::default()).unwrap(),
            r#"{"fox_wins_below":4,"quiet_moves":40,"first":"geese"}"#
        );
    }

    /// The game after the moves `indices` pick (see [`laws::play_indices`]), and who made them.
    fn play_indices(settings: &Settings, indices: &[usize]) -> (FoxGeese, Vec<Seat>) {
        let mut game = FoxGeese::new(settings);
        let movers = laws::play_indices(&mut game, indices);
        (game, movers)
    }

    fn any_settings() -> impl Strategy<Value = Settings> {
        (prop::bool::ANY, 0u32..6, 1u32..8).prop_map(|(fox, below, quiet)| Settings {
            fox_wins_below: below,
            quiet_moves: quiet,
            first: if fox { Side::Fox } else { Side::Geese },
        })
    }

    #[test]
    fn a_fox_stepping_up_and_back_does_not_escape_the_repetition_rule() {
        // Found by the strength benchmark: the fox's upward steps used to reset the draw
        // rules, so a fox going up and down kept a game going for ever.
        let mut game = FoxGeese::from_position(&Settings::default(), "G:F10:G28,31,32,33").unwrap();
        let cycle = ["28-29", "10-5", "29-28", "5-10"];
        for text in cycle.iter().chain(cycle.iter()) {
            assert_eq!(game.outcome(), None);
            let mv = game.parse_move(text).unwrap();
            game.play(&mv).unwrap();
        }
        assert_eq!(
            game.outcome(),
            Some(Outcome {
                winner: None,
                reason: EndReason::ThreefoldRepetition
            })
        );
    }

    proptest! {
        #[test]
        fn every_listed_move_plays_and_unlisted_ones_change_nothing(
            settings in any_settings(),
            indices in prop::collection::vec(any::<usize>(), 0..60),
        ) {
            let (game, _) = play_indices(&settings, &indices);
            laws::listed_moves_play(&game)?;
            let legal = game.legal_moves();
            for mv in &legal {
                let mut next = game.clone();
                next.play(mv).unwrap();
                match mv {
                    Move::Step { from, to } => {
                        let ((x, y), (tx, ty)) = (from.coords(), to.coords());
                        if x != tx && y != ty {
                            prop_assert_eq!((x + y) % 2, 0);
                        }
                        if game.side_to_move() == Side::Geese {
                            prop_assert!(ty <= y, "a goose moved backward: {}", mv);
                        }
                        prop_assert_eq!(next.geese().count(), game.geese().count());
                    }
                    Move::Jump { landings, .. } => {
                        prop_assert_eq!(game.side_to_move(), Side::Fox);
                        prop_assert_eq!(
                            next.geese().count() + landings.len(),
                            game.geese().count()
                        );
                    }
                }
            }
            let mut candidates: Vec<Move> = Vec::new();
            for from in (1..=33).map(point) {
                for to in (1..=33).map(point) {
                    candidates.push(Move::Step { from, to });
                    candidates.push(Move::Jump { from, landings: vec![to] });
                }
            }
            for mv in &legal {
                if let Move::Jump { from, landings } = mv {
                    for extra in (1..=33).map(point) {
                        let mut longer = landings.clone();
                        longer.push(extra);
                        candidates.push(Move::Jump { from: *from, landings: longer });
                    }
                }
            }
            laws::unlisted_moves_change_nothing(&game, candidates)?;
        }

        #[test]
        fn seats_and_sides_alternate_starting_with_seat_0(
            settings in any_settings(),
            indices in prop::collection::vec(any::<usize>(), 0..80),
        ) {
            let mut game = FoxGeese::new(&settings);
            prop_assert_eq!(game.side_to_move(), settings.first);
            for (ply, index) in indices.iter().enumerate() {
                let Some(seat) = game.turn() else { break };
                prop_assert_eq!(seat.index(), ply % 2);
                let side = game.side_to_move();
                prop_assert_eq!(game.seat_of(side), seat);
                let moves = game.legal_moves();
                game.play(&moves[index % moves.len()]).unwrap();
                prop_assert_eq!(game.side_to_move(), side.other());
            }
        }

        #[test]
        fn random_play_always_ends_and_a_finished_game_has_no_moves(
            fox in prop::bool::ANY,
            seed in 1u64..,
        ) {
            // Default draw rules: at most 61 forward goose steps (the geese's rows add up
            // to 61) and 13 captures, with fewer than 80 quiet moves around each.
            let settings = Settings {
                first: if fox { Side::Fox } else { Side::Geese },
                ..Settings::default()
            };
            let mut game = FoxGeese::new(&settings);
            let moves = laws::play_randomly(&mut game, seed, 6_000);
            prop_assert!(moves.len() < 6_000, "no end after {} moves", moves.len());
            prop_assert!(game.outcome().is_some());
            laws::finished_means_no_moves(&game, &Move::Step { from: point(1), to: point(2) })?;
        }
    }
}
