//! The board as three bitboards over the 32 dark squares, and the move generator.
//!
//! Squares are indexed 0..32 internally (PDN square number minus one). Row 0 is the top,
//! Black's side; a square's row is `index / 4`.

use super::notation::Move;
use crate::games::Seat;

/// Marks a missing square: off the board, or a light square.
pub(super) const NONE: u8 = u8::MAX;

/// Row and column steps of the four diagonals: the first two go down the board (Black's
/// forward), the last two up (White's forward).
const DIRECTIONS: [(i32, i32); 4] = [(1, -1), (1, 1), (-1, -1), (-1, 1)];

/// The directions a black man moves and jumps in: down the board.
const BLACK_MAN: &[usize] = &[0, 1];
/// The directions a white man moves and jumps in: up the board.
const WHITE_MAN: &[usize] = &[2, 3];
/// The directions a king of either colour moves and jumps in.
const KING: &[usize] = &[0, 1, 2, 3];

/// Each seat's crowning row: the bottom row (29–32) for Black, the top (1–4) for White.
const CROWN_ROW: [u32; 2] = [0xF000_0000, 0x0000_000F];

/// The diagonal neighbour of each square in each direction, or [`NONE`].
const STEP: [[u8; 4]; 32] = neighbours(1);

/// The square two steps away in each direction (where a jump lands), or [`NONE`].
const JUMP: [[u8; 4]; 32] = neighbours(2);

/// The row of a square index (0 at the top).
const fn row(square: u8) -> u8 {
    square / 4
}

/// The column of a square index (0 at the left).
const fn col(square: u8) -> u8 {
    2 * (square % 4) + if row(square).is_multiple_of(2) { 1 } else { 0 }
}

/// The square index at a row and column, or [`NONE`] off the board or on a light square.
pub(super) const fn square_at(row: i32, col: i32) -> u8 {
    if row < 0 || row > 7 || col < 0 || col > 7 || (row + col) % 2 == 0 {
        NONE
    } else {
        (row * 4 + col / 2) as u8
    }
}

/// For every square and direction, the square `distance` diagonal steps away.
const fn neighbours(distance: i32) -> [[u8; 4]; 32] {
    let mut table = [[NONE; 4]; 32];
    let mut square = 0;
    while square < 32 {
        let mut dir = 0;
        while dir < 4 {
            let (dr, dc) = DIRECTIONS[dir];
            table[square][dir] = square_at(
                row(square as u8) as i32 + dr * distance,
                col(square as u8) as i32 + dc * distance,
            );
            dir += 1;
        }
        square += 1;
    }
    table
}

/// The bit of a square index.
const fn bit(square: u8) -> u32 {
    1 << square
}

/// The square indices of the set bits, ascending.
fn squares_of(mut mask: u32) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let square = mask.trailing_zeros() as u8;
        mask &= mask - 1;
        Some(square)
    })
}

/// SplitMix64: one step of a fixed pseudo-random sequence, for the Zobrist constants.
const fn splitmix(state: u64) -> (u64, u64) {
    let next = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = next;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (next, z ^ (z >> 31))
}

/// Zobrist keys by piece kind (black man, black king, white man, white king) and square,
/// then one for White to move. Fixed, so hashes are stable across runs and builds.
const ZOBRIST: ([[u64; 32]; 4], u64) = {
    let mut keys = [[0; 32]; 4];
    let mut state = 0x5EED_C4EC_4E25_0001;
    let mut kind = 0;
    while kind < 4 {
        let mut square = 0;
        while square < 32 {
            let (next, key) = splitmix(state);
            state = next;
            keys[kind][square] = key;
            square += 1;
        }
        kind += 1;
    }
    let (_, white_to_move) = splitmix(state);
    (keys, white_to_move)
};

/// What stands on a square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Piece {
    /// Whose piece it is.
    pub(super) seat: Seat,
    /// Whether it has been crowned.
    pub(super) king: bool,
}

/// The pieces on the board: who owns each occupied square, and which are kings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Board {
    /// Each seat's pieces (men and kings), indexed by [`Seat::index`].
    pieces: [u32; 2],
    /// The squares holding a king of either colour.
    kings: u32,
}

impl Board {
    /// The standard start: Black men on 1–12, White men on 21–32.
    pub(super) const START: Board = Board {
        pieces: [0x0000_0FFF, 0xFFF0_0000],
        kings: 0,
    };

    /// An empty board.
    pub(super) const EMPTY: Board = Board {
        pieces: [0, 0],
        kings: 0,
    };

    /// The piece on a square index, if any.
    pub(super) fn piece_at(&self, square: u8) -> Option<Piece> {
        let king = self.kings & bit(square) != 0;
        Seat::BOTH
            .into_iter()
            .find(|seat| self.pieces[seat.index()] & bit(square) != 0)
            .map(|seat| Piece { seat, king })
    }

    /// Puts a piece on an empty square index.
    pub(super) fn put(&mut self, square: u8, piece: Piece) {
        self.pieces[piece.seat.index()] |= bit(square);
        if piece.king {
            self.kings |= bit(square);
        }
    }

    /// How many pieces a seat has.
    pub(super) fn count(&self, seat: Seat) -> u32 {
        self.pieces[seat.index()].count_ones()
    }

    /// Whether a man of `seat` stands on its own crowning row (which play never allows).
    pub(super) fn has_uncrowned_man_on_far_row(&self, seat: Seat) -> bool {
        self.pieces[seat.index()] & !self.kings & CROWN_ROW[seat.index()] != 0
    }

    fn empty(&self) -> u32 {
        !(self.pieces[0] | self.pieces[1])
    }

    fn directions(&self, square: u8, seat: Seat) -> &'static [usize] {
        match (self.kings & bit(square) != 0, seat) {
            (true, _) => KING,
            (false, Seat::First) => BLACK_MAN,
            (false, Seat::Second) => WHITE_MAN,
        }
    }

    /// Every legal move of `seat`: its captures if it has any (capturing is mandatory),
    /// otherwise its simple moves. Ordered by starting square, then direction.
    pub(super) fn moves(&self, seat: Seat) -> Vec<Move> {
        let mut moves = Vec::new();
        self.captures(seat, &mut moves);
        if moves.is_empty() {
            self.steps(seat, &mut moves);
        }
        moves
    }

    /// Whether `seat` has any legal move; cheaper than [`Board::moves`].
    pub(super) fn has_move(&self, seat: Seat) -> bool {
        let empty = self.empty();
        let opponents = self.pieces[seat.other().index()];
        squares_of(self.pieces[seat.index()]).any(|from| {
            self.directions(from, seat).iter().any(|&dir| {
                let (step, jump) = (STEP[usize::from(from)][dir], JUMP[usize::from(from)][dir]);
                step != NONE
                    && (empty & bit(step) != 0
                        || (jump != NONE && opponents & bit(step) != 0 && empty & bit(jump) != 0))
            })
        })
    }

    fn steps(&self, seat: Seat, out: &mut Vec<Move>) {
        let empty = self.empty();
        for from in squares_of(self.pieces[seat.index()]) {
            for &dir in self.directions(from, seat) {
                let to = STEP[usize::from(from)][dir];
                if to != NONE && empty & bit(to) != 0 {
                    out.push(Move::step(from, to));
                }
            }
        }
    }

    fn captures(&self, seat: Seat, out: &mut Vec<Move>) {
        for from in squares_of(self.pieces[seat.index()]) {
            let king = self.kings & bit(from) != 0;
            let search = JumpSearch {
                opponents: self.pieces[seat.other().index()],
                // The jumping piece's own square counts as empty during its jump.
                empty: self.empty() | bit(from),
                directions: self.directions(from, seat),
                crown: if king { 0 } else { CROWN_ROW[seat.index()] },
            };
            search.extend(&mut Move::start_jump(from), from, 0, out);
        }
    }

    /// Applies a legal move of `seat`; returns whether it was irreversible (a capture or
    /// a man moving), which resets the draw counters.
    pub(super) fn apply(&mut self, seat: Seat, mv: &Move) -> bool {
        let (from, to) = (mv.start(), mv.end());
        let was_king = self.kings & bit(from) != 0;
        let crowned = was_king || CROWN_ROW[seat.index()] & bit(to) != 0;
        let mover = &mut self.pieces[seat.index()];
        *mover = (*mover & !bit(from)) | bit(to);
        self.kings &= !bit(from);
        if crowned {
            self.kings |= bit(to);
        }
        let captured = mv
            .path()
            .windows(2)
            .filter_map(|pair| jumped(pair[0], pair[1]))
            .fold(0, |mask, square| mask | bit(square));
        self.pieces[seat.other().index()] &= !captured;
        self.kings &= !captured;
        mv.is_capture() || !was_king
    }

    /// A Zobrist hash of the pieces and the side to move.
    pub(super) fn hash(&self, to_move: Seat) -> u64 {
        let (keys, white_to_move) = &ZOBRIST;
        let mut hash = if to_move == Seat::Second {
            *white_to_move
        } else {
            0
        };
        for seat in Seat::BOTH {
            let men = self.pieces[seat.index()] & !self.kings;
            let kings = self.pieces[seat.index()] & self.kings;
            for (kind, mask) in [(2 * seat.index(), men), (2 * seat.index() + 1, kings)] {
                hash = squares_of(mask).fold(hash, |h, sq| h ^ keys[kind][usize::from(sq)]);
            }
        }
        hash
    }
}

/// The square jumped over between two landing squares of a capture, if they are a jump
/// apart.
fn jumped(from: u8, to: u8) -> Option<u8> {
    let from = usize::from(from);
    (0..4)
        .find(|&dir| JUMP[from][dir] == to)
        .map(|dir| STEP[from][dir])
}

/// The fixed facts of one piece's capture search.
struct JumpSearch {
    /// The opponent's pieces (jumped ones stay on the board until the move ends).
    opponents: u32,
    /// Empty squares, including the jumping piece's start.
    empty: u32,
    /// The directions the piece may jump in.
    directions: &'static [usize],
    /// Squares where the piece is crowned, ending the move (none for a king).
    crown: u32,
}

impl JumpSearch {
    /// Extends the capture `path`, now at `square` having jumped the pieces in `taken`,
    /// pushing every complete capture sequence to `out`.
    fn extend(&self, path: &mut Move, square: u8, taken: u32, out: &mut Vec<Move>) {
        let mut continued = false;
        for &dir in self.directions {
            let (over, land) = (
                STEP[usize::from(square)][dir],
                JUMP[usize::from(square)][dir],
            );
            // Parity keeps a landing square from ever being a jumped piece's square.
            if land == NONE
                || self.opponents & !taken & bit(over) == 0
                || self.empty & bit(land) == 0
                || !path.push(land)
            {
                continue;
            }
            continued = true;
            if self.crown & bit(land) != 0 {
                out.push(*path);
            } else {
                self.extend(path, land, taken | bit(over), out);
            }
            path.pop();
        }
        if !continued && path.path().len() > 1 {
            out.push(*path);
        }
    }
}
