//! Checkers: material (a king is worth one and a half men), men's advancement, men
//! guarding their own back row, the centre, and a push to trade down when ahead.

use crate::bots::Evaluate;
use crate::games::checkers::{Checkers, Move};
use crate::games::{Game, Seat};

/// A man's worth.
const MAN: i32 = 100;

/// A king's worth.
const KING: i32 = 150;

/// A man's bonus by rows advanced from its own back row (it is crowned on the eighth).
const ADVANCE: [i32; 8] = [0, 0, 2, 4, 7, 11, 16, 0];

/// A man on its own back row while the opponent still has men to crown.
const BACK_ROW: i32 = 8;

/// A piece on the four central squares of rows 4 and 5 (men), or anywhere away from the
/// edges in rows 3 to 6 (kings).
const CENTRE: i32 = 5;

/// A piece: PDN square (1–32), owner, crowned.
type Piece = (u8, Seat, bool);

/// The row (0 at the top, Black's side) and column (0 at the left) of a PDN square.
fn row_col(square: u8) -> (u8, u8) {
    let index = square.saturating_sub(1);
    let row = index / 4;
    let col = 2 * (index % 4) + u8::from(row.is_multiple_of(2));
    (row, col)
}

/// How many rows a piece of `owner` on `row` has advanced: Black (seat 0) moves down.
fn advanced(row: u8, owner: Seat) -> usize {
    usize::from(match owner {
        Seat::First => row,
        Seat::Second => 7 - row.min(7),
    })
}

/// One piece's worth to its owner.
fn worth((square, owner, king): Piece, opponent_has_men: bool) -> i32 {
    let (row, col) = row_col(square);
    if king {
        let central = (2..=5).contains(&row) && (1..=6).contains(&col);
        return KING + if central { CENTRE } else { 0 };
    }
    let rows = advanced(row, owner);
    let guard = rows == 0 && opponent_has_men;
    let central = (3..=4).contains(&row) && (2..=5).contains(&col);
    MAN + ADVANCE[rows.min(7)] + if guard { BACK_ROW } else { 0 } + if central { CENTRE } else { 0 }
}

/// The plain material of a piece.
fn material_of((_, _, king): Piece) -> i32 {
    if king { KING } else { MAN }
}

/// `value` for `owner` as seen by `me`.
fn signed(value: i32, owner: Seat, me: Seat) -> i32 {
    if owner == me { value } else { -value }
}

impl Evaluate for Checkers {
    fn evaluate(&self) -> i32 {
        let me = self.turn().unwrap_or(Seat::First);
        let mut men = [false; 2];
        let mut count = 0;
        let mut material = 0;
        for piece @ (_, owner, king) in self.pieces() {
            men[owner.index()] |= !king;
            count += 1;
            material += signed(material_of(piece), owner, me);
        }
        let position: i32 = self
            .pieces()
            .map(|piece| {
                let owner = piece.1;
                signed(worth(piece, men[owner.other().index()]), owner, me)
            })
            .sum();
        // Ahead, every trade makes the lead count for more.
        position + material * 2 / count.max(1)
    }

    /// Men and kings alone.
    fn material(&self) -> i32 {
        let me = self.turn().unwrap_or(Seat::First);
        self.pieces()
            .map(|piece| signed(material_of(piece), piece.1, me))
            .sum()
    }

    /// Kings alone, at most two a side: nothing left to crown, and two kings cannot
    /// corner two.
    fn few_pieces_left(&self) -> bool {
        let mut count = [0; 2];
        for (_, owner, king) in self.pieces() {
            if !king {
                return false;
            }
            count[owner.index()] += 1;
        }
        count.iter().all(|&kings| kings <= 2)
    }

    /// Jumps.
    fn is_noisy(&self, mv: &Move) -> bool {
        mv.is_capture()
    }

    /// Jumps by the number of pieces they take.
    fn order_hint(&self, mv: &Move) -> i32 {
        if mv.is_capture() {
            100 * (mv.squares().count() as i32 - 1)
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::checkers::Settings;

    fn game(position: &str) -> Checkers {
        Checkers::from_position(&Settings::default(), position).unwrap()
    }

    #[test]
    fn squares_map_to_the_dark_squares() {
        assert_eq!(row_col(1), (0, 1));
        assert_eq!(row_col(4), (0, 7));
        assert_eq!(row_col(5), (1, 0));
        assert_eq!(row_col(32), (7, 6));
    }

    #[test]
    fn the_start_is_level_and_material_counts() {
        let start = Checkers::new(&Settings::default());
        assert_eq!(start.evaluate(), 0);
        assert_eq!(start.material(), 0);
        let up_a_man = game("B:W21,22:B1,2,3");
        assert_eq!(up_a_man.material(), 100);
        assert!(up_a_man.evaluate() > 100);
        let kings = game("W:WK21,K22:B1,2,3");
        assert_eq!(kings.material(), 0);
    }

    #[test]
    fn jumps_are_noisy_and_longer_ones_come_first() {
        let position = game("B:W10,18,27:B1,6");
        let moves = position.legal_moves();
        assert!(moves.iter().all(|mv| position.is_noisy(mv)));
        let longest = moves
            .iter()
            .max_by_key(|mv| position.order_hint(mv))
            .unwrap();
        assert_eq!(longest.to_string(), "6x15x22");
    }
}
