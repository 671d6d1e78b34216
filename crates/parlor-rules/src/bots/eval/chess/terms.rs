//! The chess evaluation's terms: which weight each feature of a position draws on, and
//! the two ways the features are added up — into a value for the search ([`Sum`]), or
//! into counts per term for fitting the weights to labelled positions (`parlor-bots
//! tune`, through [`Tally`]).

use super::weights::WEIGHTS;

/// The material of each role but the king (pawn, knight, bishop, rook, queen).
pub const MATERIAL: usize = 0;
/// Per role (pawn to king) and square (a1 = 0, from White's side): 6 × 64 weights.
pub const SQUARES: usize = MATERIAL + 5;
/// A passed pawn, by its rank from its own side (0 = first rank): 8 weights.
pub const PASSED: usize = SQUARES + 6 * 64;
/// A pawn with no pawn of its own side on the files next to it.
pub const ISOLATED: usize = PASSED + 8;
/// A pawn with a pawn of its own side ahead of it on its file.
pub const DOUBLED: usize = ISOLATED + 1;
/// Per square a knight, bishop, rook or queen reaches beyond a typical number: 4
/// weights.
pub const MOBILITY: usize = DOUBLED + 1;
/// A rook on a file without pawns.
pub const ROOK_OPEN: usize = MOBILITY + 4;
/// A rook on a file without pawns of its own side, but with an enemy one.
pub const ROOK_HALF_OPEN: usize = ROOK_OPEN + 1;
/// Two bishops or more.
pub const BISHOP_PAIR: usize = ROOK_HALF_OPEN + 1;
/// Per pawn (up to three) sheltering a king tucked away on its side.
pub const SHIELD: usize = BISHOP_PAIR + 1;
/// Per enemy knight, bishop, rook or queen a pawn attacks.
pub const PAWN_THREAT: usize = SHIELD + 1;
/// How many weights there are.
pub const COUNT: usize = PAWN_THREAT + 1;

/// The terms in order, each with its first weight and a name, for reports and for the
/// weights file the tuner writes.
pub const SECTIONS: [(usize, &str); 16] = [
    (MATERIAL, "material: pawn, knight, bishop, rook, queen"),
    (SQUARES, "pawn by square, a1 to h8"),
    (SQUARES + 64, "knight by square, a1 to h8"),
    (SQUARES + 2 * 64, "bishop by square, a1 to h8"),
    (SQUARES + 3 * 64, "rook by square, a1 to h8"),
    (SQUARES + 4 * 64, "queen by square, a1 to h8"),
    (SQUARES + 5 * 64, "king by square, a1 to h8"),
    (PASSED, "passed pawn by rank"),
    (ISOLATED, "isolated pawn"),
    (DOUBLED, "doubled pawn"),
    (MOBILITY, "mobility per square: knight, bishop, rook, queen"),
    (ROOK_OPEN, "rook on an open file"),
    (ROOK_HALF_OPEN, "rook on a half-open file"),
    (BISHOP_PAIR, "bishop pair"),
    (SHIELD, "pawn shield, per pawn"),
    (PAWN_THREAT, "pawn attacking a piece"),
];

/// A weight: centipawns in the middlegame and in the endgame.
pub type Weight = [i32; 2];

/// What the evaluation's features are added into. Counts are from White's side: a
/// feature of Black's counts negatively.
pub trait Tally {
    /// `count` times the weight `term` (one of the constants above, plus an offset).
    fn add(&mut self, term: usize, count: i32);

    /// A part of the value that no weight scales (the kings' danger), in centipawns
    /// in the middlegame and the endgame.
    fn fixed(&mut self, mg: i32, eg: i32);
}

/// The weighted sum of the features, middlegame and endgame apart.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Sum {
    pub(super) mg: i32,
    pub(super) eg: i32,
}

impl Tally for Sum {
    fn add(&mut self, term: usize, count: i32) {
        let [mg, eg] = WEIGHTS[term];
        self.mg += mg * count;
        self.eg += eg * count;
    }

    fn fixed(&mut self, mg: i32, eg: i32) {
        self.mg += mg;
        self.eg += eg;
    }
}
