//! The kings' safety in the middlegame: the pawn shield in front of a king tucked away
//! on its side, and the pressure enemy pieces put on the squares around it.

use shakmaty::attacks::king_attacks;
use shakmaty::{Bitboard, Board, Color, Role, Square};

use super::{ahead, file_of, neighbour_files, relative};

/// Attack units per square of the king's zone a piece reaches, by role.
const fn attack_weight(role: Role) -> i32 {
    match role {
        Role::Knight | Role::Bishop => 2,
        Role::Rook => 3,
        Role::Queen => 5,
        Role::Pawn | Role::King => 0,
    }
}

/// The most a king's danger is worth, in centipawns.
const MAX_DANGER: i32 = 500;

/// The pressure on one king: the squares around it and what enemy pieces reach there.
pub(super) struct KingAttack {
    /// The king's square and the squares next to it.
    zone: Bitboard,
    /// [`attack_weight`] per zone square reached, summed over the attacking pieces.
    units: i32,
    /// How many pieces reach the zone.
    attackers: i32,
}

impl KingAttack {
    /// No pressure yet on the king of `color`.
    pub(super) fn on(board: &Board, color: Color) -> KingAttack {
        let zone = board.king_of(color).map_or(Bitboard(0), |king| {
            king_attacks(king) | Bitboard::from(king)
        });
        KingAttack {
            zone,
            units: 0,
            attackers: 0,
        }
    }

    /// Counts an enemy piece of `role` that reaches the squares `reach`.
    pub(super) fn add(&mut self, role: Role, reach: Bitboard) {
        let squares = (reach & self.zone).count() as i32;
        if squares > 0 {
            self.units += attack_weight(role) * squares;
            self.attackers += 1;
        }
    }

    /// What the pressure is worth to the attacker in the middlegame: nothing from a
    /// lone piece, then growing with the square of the units, up to [`MAX_DANGER`].
    pub(super) fn danger(&self) -> i32 {
        if self.attackers < 2 {
            return 0;
        }
        (self.units * self.units / 4).min(MAX_DANGER)
    }
}

/// How many pawns (at most three) stand on the two ranks just ahead of a king that
/// stays on its back two ranks away from the centre files.
pub(super) fn shield(board: &Board, color: Color) -> i32 {
    let Some(king) = board.king_of(color) else {
        return 0;
    };
    let file = king.file().to_usize();
    let rank = relative(king, color) / 8;
    if rank > 1 || file == 3 || file == 4 {
        return 0;
    }
    let files = file_of(file) | neighbour_files(file);
    let near = ahead(king, color) & !ahead_by(king, color, 3);
    let shelter = board.pawns() & board.by_color(color) & files & near;
    shelter.count().min(3) as i32
}

/// The squares `ranks` or more ranks ahead of `square` for `color`.
fn ahead_by(square: Square, color: Color, ranks: u32) -> Bitboard {
    let rank = square.rank().to_u32();
    match color {
        Color::White if rank + ranks <= 7 => Bitboard(!0u64 << (8 * (rank + ranks))),
        Color::Black if rank >= ranks => Bitboard(!(!0u64 << (8 * (rank + 1 - ranks)))),
        _ => Bitboard(0),
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::attacks::{knight_attacks, queen_attacks};
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess, Position};

    use super::*;

    fn board(fen: &str) -> Board {
        let position: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        position.board().clone()
    }

    #[test]
    fn one_piece_near_the_king_is_no_attack_but_two_are() {
        let board = board("6k1/5ppp/8/7Q/4N3/8/8/6K1 b - - 0 1");
        let mut attack = KingAttack::on(&board, Color::Black);
        attack.add(Role::Queen, queen_attacks(Square::H5, board.occupied()));
        assert_eq!(attack.danger(), 0);
        attack.add(Role::Knight, knight_attacks(Square::E4));
        assert_eq!(
            attack.attackers, 1,
            "the knight on e4 reaches nothing near g8"
        );
        attack.add(Role::Knight, knight_attacks(Square::G5));
        assert!(attack.danger() > 0);
        assert!(attack.danger() <= MAX_DANGER);
    }

    #[test]
    fn a_king_behind_its_pawns_is_sheltered() {
        let castled = board("6k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 1");
        let bare = board("6k1/5ppp/8/8/8/8/8/6K1 w - - 0 1");
        assert_eq!(shield(&castled, Color::White), 3);
        assert_eq!(shield(&bare, Color::White), 0);
    }
}
