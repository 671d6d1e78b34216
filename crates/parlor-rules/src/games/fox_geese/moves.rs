//! Move generation and checking. The fox's jumps are listed once per distinct result
//! (where the fox lands and which geese it takes), each written with the smallest path
//! that gives it, so the list stays small however the geese stand; any legal path is
//! accepted on play by walking it.

use std::collections::HashSet;

use super::Move;
use super::board::{DIRECTIONS, LINES, POINTS, Point};

/// `JUMPS[p]`: every `(over, land)` pair a jump from `p` could use, two steps along one
/// line, sorted by landing point so that a depth-first search meets the smallest path
/// to each result first.
const JUMPS: [[Option<(u8, u8)>; 8]; POINTS] = {
    let mut jumps = [[None; 8]; POINTS];
    let mut p = 0;
    while p < POINTS {
        let mut n = 0;
        let mut d = 0;
        while d < DIRECTIONS.len() {
            if let Some(over) = LINES[p][d]
                && let Some(land) = LINES[over as usize][d]
            {
                // Insertion sort by landing point.
                let mut i = n;
                while i > 0 {
                    match jumps[p][i - 1] {
                        Some((_, earlier)) if earlier > land => {
                            jumps[p][i] = jumps[p][i - 1];
                            i -= 1;
                        }
                        _ => break,
                    }
                }
                jumps[p][i] = Some((over, land));
                n += 1;
            }
            d += 1;
        }
        p += 1;
    }
    jumps
};

/// The single jumps from `at` with `geese` on the board: `(over, land)` with a goose on
/// `over` and `land` empty, by ascending landing point. The fox's own starting point
/// counts as empty, as the fox has left it.
fn jumps_from(at: Point, geese: u64) -> impl Iterator<Item = (Point, Point)> {
    JUMPS[at.index()]
        .into_iter()
        .map_while(|jump| jump)
        .map(|(over, land)| (Point(over), Point(land)))
        .filter(move |(over, land)| geese & over.bit() != 0 && geese & land.bit() == 0)
}

/// The fox's steps onto empty neighbours of `fox`.
fn fox_steps(fox: Point, geese: u64) -> impl Iterator<Item = Point> {
    (0..DIRECTIONS.len())
        .filter_map(move |d| fox.step(d))
        .filter(move |to| geese & to.bit() == 0)
}

/// The fox's steps, then one jump per distinct result: every state (landing point,
/// geese left) the fox can reach by one or more jumps, written with the smallest path
/// in sort order. A search over states with a visited set never enumerates paths, so
/// the work is bounded by the number of results, not the number of chains.
pub(super) fn fox_moves(fox: Point, geese: u64) -> Vec<Move> {
    let mut moves: Vec<Move> = fox_steps(fox, geese)
        .map(|to| Move::Step { from: fox, to })
        .collect();
    let mut search = JumpSearch {
        from: fox,
        seen: HashSet::new(),
        path: Vec::new(),
        moves: &mut moves,
    };
    search.extend(fox, geese);
    moves
}

/// A depth-first search of the fox's jump results from `from`.
struct JumpSearch<'a> {
    from: Point,
    /// The states (landing point, geese left) already reached, packed as in
    /// [`state_key`].
    seen: HashSet<u64>,
    path: Vec<Point>,
    moves: &'a mut Vec<Move>,
}

impl JumpSearch<'_> {
    /// Lists every new result reachable from `at` with `geese` left. Children are tried
    /// by ascending landing point, so the first path to reach a state is its smallest:
    /// a smaller path to a state on that path would give a smaller path to the state
    /// itself, as what follows depends only on the state.
    fn extend(&mut self, at: Point, geese: u64) {
        for (over, land) in jumps_from(at, geese) {
            let left = geese & !over.bit();
            if !self.seen.insert(state_key(land, left)) {
                continue;
            }
            self.path.push(land);
            self.moves.push(Move::Jump {
                from: self.from,
                landings: self.path.clone(),
            });
            self.extend(land, left);
            self.path.pop();
        }
    }
}

/// A state of a jump chain packed into one word: 33 goose bits, then the fox's point.
fn state_key(at: Point, geese: u64) -> u64 {
    geese | u64::from(at.0) << 33
}

/// Whether the fox on `fox` has any step or jump.
pub(super) fn fox_can_move(fox: Point, geese: u64) -> bool {
    fox_steps(fox, geese).next().is_some() || jumps_from(fox, geese).next().is_some()
}

/// The geese left after the fox on `from` jumps through `landings`, or why the chain
/// is not legal. Each landing must be two steps along one line from the last, over a
/// goose still on the board, onto an empty point; a taken goose is gone at once.
pub(super) fn walk_jumps(from: Point, landings: &[Point], geese: u64) -> Result<u64, &'static str> {
    if landings.is_empty() {
        return Err("a jump lists at least one landing point");
    }
    let mut at = from;
    let mut left = geese;
    for &land in landings {
        let (over, _) = jumps_from(at, left)
            .find(|&(_, to)| to == land)
            .ok_or("each jump must cross a goose along a line onto an empty point")?;
        left &= !over.bit();
        at = land;
    }
    Ok(left)
}

/// Whether a goose may step in direction `d`: up, sideways or diagonally up, never down.
fn goose_direction(d: usize) -> bool {
    DIRECTIONS[d].1 <= 0
}

/// Every goose step: up, sideways or diagonally up onto an empty point.
pub(super) fn goose_moves(fox: Point, geese: u64) -> Vec<Move> {
    let mut moves = Vec::new();
    for from in (0..POINTS as u8)
        .map(Point)
        .filter(|p| geese & p.bit() != 0)
    {
        for d in (0..DIRECTIONS.len()).filter(|&d| goose_direction(d)) {
            if let Some(to) = from.step(d).filter(|&to| empty(to, fox, geese)) {
                moves.push(Move::Step { from, to });
            }
        }
    }
    moves
}

/// Whether any goose can step.
pub(super) fn geese_can_move(fox: Point, geese: u64) -> bool {
    (0..POINTS as u8)
        .map(Point)
        .filter(|p| geese & p.bit() != 0)
        .any(|from| {
            (0..DIRECTIONS.len())
                .filter(|&d| goose_direction(d))
                .any(|d| from.step(d).is_some_and(|to| empty(to, fox, geese)))
        })
}

/// Why a goose step `from`-`to` is illegal, if it is.
pub(super) fn check_goose_step(
    fox: Point,
    geese: u64,
    from: Point,
    to: Point,
) -> Result<(), &'static str> {
    if geese & from.bit() == 0 {
        return Err("there is no goose on that point");
    }
    if !empty(to, fox, geese) {
        return Err("that point is not empty");
    }
    match direction(from, to) {
        None => Err("those points are not joined by a line"),
        Some(d) if !goose_direction(d) => Err("geese never move backward"),
        Some(_) => Ok(()),
    }
}

/// Why a fox step to `to` is illegal, if it is.
pub(super) fn check_fox_step(fox: Point, geese: u64, to: Point) -> Result<(), &'static str> {
    if !empty(to, fox, geese) {
        return Err("that point is not empty");
    }
    match direction(fox, to) {
        None => Err("those points are not joined by a line"),
        Some(_) => Ok(()),
    }
}

fn empty(p: Point, fox: Point, geese: u64) -> bool {
    geese & p.bit() == 0 && p != fox
}

/// The direction of the line from `from` to its neighbour `to`, if they are joined.
fn direction(from: Point, to: Point) -> Option<usize> {
    (0..DIRECTIONS.len()).find(|&d| from.step(d) == Some(to))
}
