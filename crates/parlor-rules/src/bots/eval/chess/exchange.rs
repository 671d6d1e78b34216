//! Static exchange evaluation: what a capture wins or loses once both sides have traded
//! on its square, each recapturing with its least valuable piece while that pays.
//! Pins and checks are ignored; a king recaptures only where nothing recaptures it.

use shakmaty::{Bitboard, Board, Color, Move, Role, Square};

/// A piece's worth in an exchange: the evaluation's values, and a king beyond any trade.
const fn worth(role: Role) -> i32 {
    match role {
        Role::King => 20_000,
        role => super::value(role),
    }
}

/// The roles in the order they are sent into an exchange, cheapest first.
const CHEAPEST_FIRST: [Role; 6] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

/// The material `mover` gains by `mv` (a capture, en passant or a promotion) and the
/// trades that follow on its square, in centipawns; negative if it loses material.
pub(super) fn exchange_value(board: &Board, mover: Color, mv: &Move) -> i32 {
    let (from, to) = match *mv {
        Move::Normal { from, to, .. } | Move::EnPassant { from, to } => (from, to),
        Move::Castle { .. } | Move::Put { .. } => return 0,
    };
    let promotion = mv
        .promotion()
        .map_or(0, |role| worth(role) - worth(Role::Pawn));
    let mut occupied = board.occupied() ^ Bitboard::from(from);
    if let Move::EnPassant { .. } = mv {
        occupied ^= Bitboard::from(Square::from_coords(to.file(), from.rank()));
    }
    let mut gains = [0i32; 32];
    gains[0] = mv.capture().map_or(0, worth) + promotion;
    let mut on_square = worth(mv.promotion().unwrap_or(mv.role()));
    let mut side = mover.other();
    let mut depth = 0;
    while depth + 1 < gains.len() {
        let attackers = board.attacks_to(to, side, occupied) & occupied;
        let Some((square, role)) = cheapest(board, attackers) else {
            break;
        };
        depth += 1;
        gains[depth] = on_square - gains[depth - 1];
        if role == Role::King
            && (board.attacks_to(to, side.other(), occupied ^ Bitboard::from(square)) & occupied)
                .any()
        {
            depth -= 1;
            break;
        }
        occupied ^= Bitboard::from(square);
        on_square = worth(role);
        side = side.other();
    }
    while depth > 0 {
        gains[depth - 1] = -(-gains[depth - 1]).max(gains[depth]);
        depth -= 1;
    }
    gains[0]
}

/// The least valuable of `attackers` and its role.
fn cheapest(board: &Board, attackers: Bitboard) -> Option<(Square, Role)> {
    CHEAPEST_FIRST.into_iter().find_map(|role| {
        (attackers & board.by_role(role))
            .first()
            .map(|square| (square, role))
    })
}

#[cfg(test)]
mod tests {
    use shakmaty::fen::Fen;
    use shakmaty::uci::UciMove;
    use shakmaty::{CastlingMode, Chess, Position};

    use super::*;

    fn value_of(fen: &str, uci: &str) -> i32 {
        let position: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let mv = uci.parse::<UciMove>().unwrap().to_move(&position).unwrap();
        exchange_value(position.board(), position.turn(), &mv)
    }

    #[test]
    fn a_free_piece_is_won_whole() {
        assert_eq!(value_of("4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1", "e4d5"), 900);
    }

    #[test]
    fn a_defended_pawn_taken_by_a_queen_loses_the_queen_for_it() {
        // The pawn on d5 is guarded by the pawn on e6.
        assert_eq!(
            value_of("4k3/8/4p3/3p4/8/8/8/3QK3 w - - 0 1", "d1d5"),
            100 - 900
        );
    }

    #[test]
    fn the_trades_stop_where_they_stop_paying() {
        // Rook takes a pawn guarded once, backed by a second rook (an x-ray): the rook is
        // lost for the pawn and the guarding rook, 100 + 500 - 500.
        assert_eq!(value_of("3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5"), 100);
        // Knight takes a pawn guarded by a pawn: 100 - 320.
        assert_eq!(
            value_of("4k3/8/4p3/3p4/8/4N3/8/4K3 w - - 0 1", "e3d5"),
            -220
        );
    }

    #[test]
    fn a_king_does_not_recapture_into_a_guarded_square() {
        // Rook takes the pawn beside the black king; the king cannot take back, the
        // second rook guards the square.
        assert_eq!(value_of("3k4/3p4/8/8/8/8/3R4/3RK3 w - - 0 1", "d2d7"), 100);
        // Unguarded: the king takes the rook back.
        assert_eq!(
            value_of("3k4/3p4/8/8/8/8/3R4/4K3 w - - 0 1", "d2d7"),
            100 - 500
        );
    }
}
