//! Fox & Geese, worked out for the geese and turned round for the fox: geese count, the
//! geese's advance while they stay below the fox (a goose that has passed the fox can
//! never come back to pen it in), how little room the fox has (free neighbours and the
//! area it can walk to), the fox's jumps on offer, and a formation without gaps the fox
//! could jump through.

use crate::bots::Evaluate;
use crate::games::fox_geese::geometry::{DIRECTIONS, POINTS, opposite, row, step};
use crate::games::fox_geese::{FoxGeese, Move, Point, Side};

/// A goose's worth.
const GOOSE: i32 = 100;

/// A goose's bonus per row it has moved up the board, while it is not above the fox.
const ADVANCE: i32 = 3;

/// The cost of a goose above the fox: geese never move down, so it is out of play.
const PASSED: i32 = 40;

/// The cost to the geese of each empty point next to the fox.
const FOX_FREEDOM: i32 = 10;

/// The cost to the geese of each point the fox can walk to.
const FOX_AREA: i32 = 4;

/// The cost of a goose the fox could jump after walking round to it.
const EXPOSED: i32 = 12;

/// `NEIGHBOURS[p]`: the bit set of the points joined to `p` by a line.
const NEIGHBOURS: [u64; POINTS] = {
    let mut sets = [0; POINTS];
    let mut p = 0;
    while p < POINTS {
        let mut d = 0;
        while d < DIRECTIONS {
            if let Some(next) = step(p, d) {
                sets[p] |= 1 << next;
            }
            d += 1;
        }
        p += 1;
    }
    sets
};

/// Every point.
const ALL: u64 = (1 << POINTS) - 1;

/// The indices of the set bits, ascending.
fn indices(mut set: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if set == 0 {
            return None;
        }
        let index = set.trailing_zeros() as usize;
        set &= set - 1;
        Some(index)
    })
}

/// The board as bit sets.
struct Board {
    fox: usize,
    geese: u64,
    empty: u64,
}

impl Board {
    fn of(game: &FoxGeese) -> Board {
        let fox = index(game.fox());
        let geese = game.geese().fold(0, |set, p| set | 1 << index(p));
        Board {
            fox,
            geese,
            empty: ALL & !geese & !(1 << fox),
        }
    }

    fn is_empty(&self, p: usize) -> bool {
        self.empty & 1 << p != 0
    }

    fn has_goose(&self, p: usize) -> bool {
        self.geese & 1 << p != 0
    }

    /// The points the fox can walk to (without jumping), its own included.
    fn fox_area(&self) -> u64 {
        let mut area = 1 << self.fox;
        loop {
            let grown = indices(area).fold(area, |set, p| set | NEIGHBOURS[p] & self.empty);
            if grown == area {
                return area;
            }
            area = grown;
        }
    }

    /// The geese the fox could jump from where it stands.
    fn threats(&self) -> i32 {
        (0..DIRECTIONS)
            .filter(|&d| {
                step(self.fox, d).is_some_and(|over| {
                    self.has_goose(over) && step(over, d).is_some_and(|land| self.is_empty(land))
                })
            })
            .count() as i32
    }

    /// Whether the fox could jump `goose` after walking round to it: on some line through
    /// the goose one neighbour is a point the fox can walk to and the other is empty.
    fn exposed(&self, goose: usize, area: u64) -> bool {
        let reachable = |p: usize| area & 1 << p != 0;
        // Each line through the goose once: a direction and its opposite.
        (0..DIRECTIONS).filter(|&d| d < opposite(d)).any(|d| {
            match (step(goose, d), step(goose, opposite(d))) {
                (Some(a), Some(b)) => {
                    (reachable(a) && self.is_empty(b)) || (reachable(b) && self.is_empty(a))
                }
                _ => false,
            }
        })
    }

    /// The evaluation for the geese.
    fn geese_view(&self, geese_to_move: bool) -> i32 {
        let mut score = 0;
        let fox_row = row(self.fox) as i32;
        let area = self.fox_area();
        for goose in indices(self.geese) {
            let row = row(goose) as i32;
            score += GOOSE;
            score += if row < fox_row {
                -PASSED
            } else {
                ADVANCE * (6 - row)
            };
            if self.exposed(goose, area) {
                score -= EXPOSED;
            }
        }
        score -= FOX_FREEDOM * (NEIGHBOURS[self.fox] & self.empty).count_ones() as i32;
        score -= FOX_AREA * area.count_ones() as i32;
        let threats = self.threats();
        // The geese to move can cover one threat; two or more cost a goose. The fox to
        // move may take one (the search looks at the jumps themselves).
        score -= match (geese_to_move, threats) {
            (true, 0 | 1) => 20 * threats,
            (true, _) => 80,
            (false, _) => 60 * threats,
        };
        score
    }
}

/// A point's index (its number minus one).
fn index(p: Point) -> usize {
    usize::from(p.number()) - 1
}

/// `value` for the geese, as seen by `side`.
fn for_side(value: i32, side: Side) -> i32 {
    match side {
        Side::Geese => value,
        Side::Fox => -value,
    }
}

impl Evaluate for FoxGeese {
    fn evaluate(&self) -> i32 {
        let side = self.side_to_move();
        for_side(Board::of(self).geese_view(side == Side::Geese), side)
    }

    /// The geese alone.
    fn material(&self) -> i32 {
        for_side(GOOSE * self.geese().count() as i32, self.side_to_move())
    }

    /// The fox's jumps.
    fn is_noisy(&self, mv: &Move) -> bool {
        matches!(mv, Move::Jump { .. })
    }

    /// Jumps by the geese they take; geese moving up the board before sideways.
    fn order_hint(&self, mv: &Move) -> i32 {
        match mv {
            Move::Jump { landings, .. } => 100 * landings.len() as i32,
            Move::Step { from, to } if to.coords().1 < from.coords().1 => 1,
            Move::Step { .. } => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Game;
    use crate::games::fox_geese::Settings;

    #[test]
    fn the_geometry_matches_the_rules() {
        let settings = Settings {
            fox_wins_below: 0,
            ..Settings::default()
        };
        for number in 1..=POINTS as u8 {
            let point = Point::new(number).unwrap();
            // A lone fox can step to exactly its neighbours.
            let game = FoxGeese::from_position(&settings, &format!("F:F{number}:G")).unwrap();
            let steps = game.legal_moves().iter().fold(0u64, |set, mv| match mv {
                Move::Step { to, .. } => set | 1 << index(*to),
                Move::Jump { .. } => panic!("nothing to jump"),
            });
            assert_eq!(steps, NEIGHBOURS[index(point)], "point {number}");
        }
    }

    #[test]
    fn the_geese_prefer_a_safe_tight_formation() {
        let settings = Settings::default();
        let game = |text: &str| FoxGeese::from_position(&settings, text).unwrap();
        let start = FoxGeese::new(&settings);
        assert_eq!(start.material(), 13 * GOOSE);
        // A goose left next to the fox with an empty point behind it is worse for the
        // geese than the same goose kept in the line.
        let hanging = game("F:F17:G10,21,22,23,24,25,26,27,28,29,30,31,32");
        let kept = game("F:F17:G21,22,23,24,25,26,27,28,29,30,31,32,33");
        assert!(hanging.evaluate() > kept.evaluate());
        let jump = hanging
            .legal_moves()
            .into_iter()
            .find(|mv| hanging.is_noisy(mv))
            .unwrap();
        assert_eq!(jump.to_string(), "17x5");
    }
}
