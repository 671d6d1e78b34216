//! Chess: material and piece-square weights tapered from the middlegame to the endgame,
//! pawn structure (passed, doubled and isolated pawns), the bishop pair, rooks on open
//! files, the pieces' mobility, pawns attacking pieces and the kings' safety.
//! Everything is in centipawns, worked out for White and turned round for Black. The
//! weights are fitted to labelled positions ([`terms`], [`weights`]).

mod exchange;
mod king;
pub(crate) mod terms;
pub(crate) mod weights;

use shakmaty::attacks::{
    bishop_attacks, knight_attacks, pawn_attacks, queen_attacks, rook_attacks,
};
use shakmaty::{Bitboard, Board, Color, Move, Position, Role, Square};

use self::king::{KingAttack, shield};
use self::terms::{
    BISHOP_PAIR, DOUBLED, ISOLATED, MATERIAL, MOBILITY, PASSED, PAWN_THREAT, ROOK_HALF_OPEN,
    ROOK_OPEN, SHIELD, SQUARES, Sum, Tally,
};
use self::weights::WEIGHTS;
use crate::bots::Evaluate;
use crate::games::MoveError;
use crate::games::chess::{Chess, ChessMove};

/// The phase of a board with every piece (and of any board with more): 24, counting 1
/// per knight or bishop, 2 per rook, 4 per queen. 0 is a bare endgame.
pub const FULL_PHASE: i32 = 24;

/// A bonus for having the move.
pub const TEMPO: i32 = 10;

/// The roles in table order.
const ROLES: [Role; 6] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

/// A piece's worth in the evaluation.
const fn value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 320,
        Role::Bishop => 330,
        Role::Rook => 500,
        Role::Queen => 900,
        Role::King => 0,
    }
}

/// A piece's worth in the rule bot's material count: the classic 1, 3, 3, 5, 9, so that
/// trading a bishop for a knight loses nothing.
const fn points(role: Role) -> i32 {
    match role {
        Role::Knight | Role::Bishop => 300,
        role => value(role),
    }
}

/// A piece's weight in the game phase.
const fn phase_weight(role: Role) -> i32 {
    match role {
        Role::Knight | Role::Bishop => 1,
        Role::Rook => 2,
        Role::Queen => 4,
        Role::Pawn | Role::King => 0,
    }
}

/// The weight of a piece of `role` on `square` (from White's side) beyond its material.
fn square_term(role: Role, square: usize) -> usize {
    SQUARES + 64 * (usize::from(role as u8) - 1) + square
}

/// A square as White sees it: Black's squares are mirrored top to bottom.
pub(super) fn relative(square: Square, color: Color) -> usize {
    match color {
        Color::White => square.to_usize(),
        Color::Black => square.flip_vertical().to_usize(),
    }
}

/// `mg` and `eg` blended by `phase`: all middlegame at [`FULL_PHASE`], all endgame at 0.
fn taper(mg: i32, eg: i32, phase: i32) -> i32 {
    let phase = phase.clamp(0, FULL_PHASE);
    (mg * phase + eg * (FULL_PHASE - phase)) / FULL_PHASE
}

/// The squares of the files next to `file`.
pub(super) fn neighbour_files(file: usize) -> Bitboard {
    let mut files = Bitboard(0);
    for neighbour in [file.wrapping_sub(1), file + 1] {
        if neighbour < 8 {
            files.add(Bitboard(0x0101_0101_0101_0101 << neighbour));
        }
    }
    files
}

/// The squares of `file` itself.
pub(super) fn file_of(file: usize) -> Bitboard {
    Bitboard(0x0101_0101_0101_0101 << file)
}

/// The squares strictly ahead of `square` for `color`, on every file.
pub(super) fn ahead(square: Square, color: Color) -> Bitboard {
    let rank = square.rank().to_usize();
    match color {
        Color::White if rank < 7 => Bitboard(!0u64 << (8 * (rank + 1))),
        Color::Black => Bitboard(!(!0u64 << (8 * rank))),
        Color::White => Bitboard(0),
    }
}

/// Pawn structure for `color`, counted `sign` times: passed pawns by rank, isolated and
/// doubled pawns, and pawns attacking the enemy's pieces.
fn pawns(board: &Board, color: Color, sign: i32, tally: &mut impl Tally) {
    let own = board.pawns() & board.by_color(color);
    let theirs = board.pawns() & board.by_color(color.other());
    for square in own {
        let file = square.file().to_usize();
        let files = file_of(file) | neighbour_files(file);
        if (theirs & files & ahead(square, color)).is_empty() {
            tally.add(PASSED + relative(square, color) / 8, sign);
        }
        if (own & neighbour_files(file)).is_empty() {
            tally.add(ISOLATED, sign);
        }
        if (own & file_of(file) & ahead(square, color)).any() {
            tally.add(DOUBLED, sign);
        }
    }
    let pieces = board.by_color(color.other()) & !board.pawns() & !board.kings();
    let threatened = pieces & pawn_reach(own, color);
    if threatened.any() {
        tally.add(PAWN_THREAT, sign * threatened.count() as i32);
    }
}

/// The squares the pawns `pawns` of `color` attack.
fn pawn_reach(pawns: Bitboard, color: Color) -> Bitboard {
    pawns
        .into_iter()
        .fold(Bitboard(0), |reach, pawn| reach | pawn_attacks(color, pawn))
}

/// Mobility: per piece, the squares it reaches that hold no piece of its own side and
/// no enemy pawn guards, counted from a typical number of such squares.
const MOBILITY_ROLES: [(Role, i32); 4] = [
    (Role::Knight, 4),
    (Role::Bishop, 6),
    (Role::Rook, 7),
    (Role::Queen, 13),
];

/// How freely `color`'s knights, bishops, rooks and queens move ([`MOBILITY_ROLES`]),
/// and how hard they press on the enemy king ([`KingAttack`]), counted `sign` times.
fn mobility(board: &Board, color: Color, sign: i32, tally: &mut impl Tally) {
    let occupied = board.occupied();
    let guarded = pawn_reach(board.pawns() & board.by_color(color.other()), color.other());
    let free = !board.by_color(color) & !guarded;
    let mut attack = KingAttack::on(board, color.other());
    for (index, (role, typical)) in MOBILITY_ROLES.into_iter().enumerate() {
        for square in board.by_role(role) & board.by_color(color) {
            let reach = match role {
                Role::Knight => knight_attacks(square),
                Role::Bishop => bishop_attacks(square, occupied),
                Role::Rook => rook_attacks(square, occupied),
                _ => queen_attacks(square, occupied),
            };
            tally.add(
                MOBILITY + index,
                sign * ((reach & free).count() as i32 - typical),
            );
            attack.add(role, reach);
        }
    }
    tally.fixed(sign * attack.danger(), 0);
}

/// Rooks on files without pawns (open) or without their own pawns (half-open), the
/// bishop pair, mobility, and the king's pawn shield, counted `sign` times.
fn pieces(board: &Board, color: Color, sign: i32, tally: &mut impl Tally) {
    let own = board.by_color(color);
    mobility(board, color, sign, tally);
    for rook in board.rooks() & own {
        let file = file_of(rook.file().to_usize());
        if (board.pawns() & file).is_empty() {
            tally.add(ROOK_OPEN, sign);
        } else if (board.pawns() & own & file).is_empty() {
            tally.add(ROOK_HALF_OPEN, sign);
        }
    }
    if (board.bishops() & own).more_than_one() {
        tally.add(BISHOP_PAIR, sign);
    }
    tally.add(SHIELD, sign * shield(board, color));
}

/// Adds every feature of `position` into `tally`, from White's side, and returns the
/// game phase (0 to [`FULL_PHASE`] and beyond): the evaluation is the weighted sum
/// tapered by that phase, turned to the side to move's view, plus [`TEMPO`].
pub fn features(position: &shakmaty::Chess, tally: &mut impl Tally) -> i32 {
    let board = position.board();
    let mut phase = 0;
    for (color, sign) in [(Color::White, 1), (Color::Black, -1)] {
        for (index, role) in ROLES.into_iter().enumerate() {
            let pieces = board.by_piece(role.of(color));
            phase += phase_weight(role) * pieces.count() as i32;
            if role != Role::King && pieces.any() {
                tally.add(MATERIAL + index, sign * pieces.count() as i32);
            }
            for square in pieces {
                tally.add(square_term(role, relative(square, color)), sign);
            }
        }
        pawns(board, color, sign, tally);
        pieces(board, color, sign, tally);
    }
    phase
}

/// `value` from White's side turned to the side to move's.
fn for_side(value: i32, turn: Color) -> i32 {
    match turn {
        Color::White => value,
        Color::Black => -value,
    }
}

impl Evaluate for Chess {
    fn evaluate(&self) -> i32 {
        let position = self.chess_position();
        let mut sum = Sum::default();
        let phase = features(position, &mut sum);
        for_side(taper(sum.mg, sum.eg, phase), position.turn()) + TEMPO
    }

    /// The pieces alone, 1-3-3-5-9.
    fn material(&self) -> i32 {
        let position = self.chess_position();
        let white: i32 = position
            .board()
            .iter()
            .map(|(_, piece)| match piece.color {
                Color::White => points(piece.role),
                Color::Black => -points(piece.role),
            })
            .sum();
        for_side(white, position.turn())
    }

    /// No pawns, and at most one piece besides the king on each side (rook against rook,
    /// bishop against knight, ...): nothing left to promote, nothing to build a mating
    /// net with unless one side is a piece up.
    fn few_pieces_left(&self) -> bool {
        let board = self.chess_position().board();
        board.pawns().is_empty()
            && [Color::White, Color::Black]
                .into_iter()
                .all(|color| board.by_color(color).count() <= 2)
    }

    /// Checkmate and stalemate are known only by generating the moves.
    fn outcome_needs_moves(&self) -> bool {
        true
    }

    /// Without asking shakmaty again whether the move is legal.
    fn play_generated(&mut self, mv: &ChessMove) -> Result<(), MoveError> {
        self.play_legal(mv.to_shakmaty());
        Ok(())
    }

    /// Chess has little zugzwang outside pawn endings, which [`Evaluate::pass`] leaves out.
    fn selective(&self) -> bool {
        true
    }

    /// Passing is refused in check and when the side to move has only its king and
    /// pawns, where zugzwang is common.
    fn pass(&self) -> Option<Self> {
        let position = self.chess_position();
        let board = position.board();
        let pieces = board.by_color(position.turn()) & !board.pawns() & !board.kings();
        if position.is_check() || pieces.is_empty() {
            return None;
        }
        Chess::passed(position)
    }

    fn in_check(&self) -> bool {
        self.chess_position().is_check()
    }

    /// Plays the move on a copy of the bare position (no repetition history, no
    /// outcome), far cheaper than playing it on the game.
    fn gives_check(&self, mv: &ChessMove) -> bool {
        let mut after = self.chess_position().clone();
        after.play_unchecked(mv.to_shakmaty());
        after.is_check()
    }

    /// The from and to squares.
    fn history_key(&self, mv: &ChessMove) -> Option<usize> {
        let mv = mv.to_shakmaty();
        Some(usize::from(mv.from()?) * 64 + usize::from(mv.to()))
    }

    /// Captures and promotions.
    fn is_noisy(&self, mv: &ChessMove) -> bool {
        let mv = mv.to_shakmaty();
        mv.is_capture() || mv.is_promotion()
    }

    /// By a static exchange evaluation on the move's square.
    fn loses_exchange(&self, mv: &ChessMove) -> bool {
        let position = self.chess_position();
        exchange::exchange_value(position.board(), position.turn(), &mv.to_shakmaty()) < 0
    }

    /// Most valuable victim by least valuable attacker, promotions by the new piece;
    /// quiet moves by how much the piece's square improves, castling a little more.
    fn order_hint(&self, mv: &ChessMove) -> i32 {
        let mv = mv.to_shakmaty();
        let promotion = mv.promotion().map_or(0, value);
        if let Some(victim) = mv.capture() {
            return 10 * value(victim) - value(mv.role()) / 10 + promotion;
        }
        if promotion > 0 {
            return promotion;
        }
        match mv {
            Move::Castle { .. } => 30,
            Move::Normal { role, from, to, .. } => {
                let turn = self.chess_position().turn();
                let weight = |square| WEIGHTS[square_term(role, relative(square, turn))][0];
                weight(to) - weight(from)
            }
            Move::EnPassant { .. } | Move::Put { .. } => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Game;

    fn game(fen: &str) -> Chess {
        Chess::from_position(&(), fen).unwrap()
    }

    #[test]
    fn the_start_is_level_but_for_the_tempo() {
        let start = Chess::new(&());
        assert_eq!(start.evaluate(), TEMPO);
        assert_eq!(start.material(), 0);
    }

    #[test]
    fn the_evaluation_is_symmetric_between_the_colours() {
        // The same position with colours swapped and the board mirrored.
        let white = game("r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 1 5");
        let black = game("rnbqk2r/ppp2ppp/3p1n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQK2R b KQkq - 1 5");
        assert_eq!(white.evaluate(), black.evaluate());
    }

    #[test]
    fn an_extra_piece_counts_and_so_does_a_far_passed_pawn() {
        // More than two pawns, though a lone knight is worth less in the endgame.
        let up_a_knight = game("4k3/p7/8/8/8/8/P7/1N2K3 w - - 0 1");
        assert!(up_a_knight.evaluate() > 200);
        assert_eq!(up_a_knight.material(), 300);
        let passed = game("4k3/P7/8/8/8/8/8/4K3 w - - 0 1");
        let held = game("4k3/8/8/8/8/8/P7/4K3 w - - 0 1");
        assert!(passed.evaluate() > held.evaluate() + 100);
    }

    #[test]
    fn a_free_piece_is_worth_more_than_a_shut_in_one() {
        let free = game("4k3/8/8/8/3B4/8/8/4K3 w - - 0 1");
        let shut_in = game("4k3/8/8/8/8/8/1P6/B3K3 w - - 0 1");
        let pawn = game("4k3/8/8/8/8/8/1P6/4K3 w - - 0 1");
        // The pawn on b2 is worth its own; the bishop behind it reaches nothing.
        assert!(free.evaluate() > shut_in.evaluate() - (pawn.evaluate() - TEMPO));
    }

    #[test]
    fn passing_is_refused_in_check_and_with_only_pawns() {
        let open = game("4k3/8/8/8/8/8/P7/1N2K3 w - - 0 1");
        let passed = open.pass().expect("a knight up, out of check");
        assert_eq!(passed.turn(), Some(crate::games::Seat::Second));
        assert!(passed.position().starts_with("4k3/8/8/8/8/8/P7/1N2K3 b"));
        assert!(game("4k3/8/8/8/8/8/P7/4K3 w - - 0 1").pass().is_none());
        assert!(game("4k3/8/8/8/8/8/8/1N2K2r w - - 0 1").pass().is_none());
        assert!(open.selective() && !open.in_check());
        assert!(game("4k3/8/8/8/8/8/8/1N2K2r w - - 0 1").in_check());
    }

    #[test]
    fn moves_are_keyed_by_their_squares_for_the_history() {
        let start = Chess::new(&());
        let key = |text: &str| start.history_key(&start.parse_move(text).unwrap());
        assert_eq!(key("e2e4"), Some(12 * 64 + 28));
        assert!(key("g1f3").is_some_and(|key| key < crate::bots::HISTORY_SIZE));
    }

    #[test]
    fn captures_of_big_pieces_are_tried_first() {
        let position = game("4k3/8/8/3q4/4P3/8/8/4K2R w K - 0 1");
        let hint = |text: &str| position.order_hint(&position.parse_move(text).unwrap());
        assert!(hint("e4d5") > hint("h1h8"));
        assert!(position.is_noisy(&position.parse_move("e4d5").unwrap()));
        assert!(!position.is_noisy(&position.parse_move("e4e5").unwrap()));
    }
}
