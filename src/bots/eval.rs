//! Each game's static evaluation for the searching bots.

use shakmaty::{Position, Role};

use super::Evaluate;
use crate::games::checkers::Checkers;
use crate::games::chess::Chess;
use crate::games::fox_geese::{FoxGeese, Side};
use crate::games::tictactoe::TicTacToe;
use crate::games::{Game, Seat};

/// Tic-tac-toe is searched to the end, so no estimate is ever needed.
impl Evaluate for TicTacToe {
    fn evaluate(&self) -> i32 {
        0
    }
}

/// Fox & Geese, from the geese's side: each goose is worth 100, each row a goose has
/// advanced 5 (advanced geese leave the fox less room), and each move the fox has costs
/// them 10 (counted when the fox is to move).
impl Evaluate for FoxGeese {
    fn evaluate(&self) -> i32 {
        let geese: i32 = self
            .geese()
            .map(|goose| {
                let (_, row) = goose.coords();
                100 + 5 * (6 - i32::from(row))
            })
            .sum();
        match self.side_to_move() {
            Side::Geese => geese,
            Side::Fox => 10 * self.legal_moves().len() as i32 - geese,
        }
    }
}

/// Chess: material only, in centipawns, for the side to move.
impl Evaluate for Chess {
    fn evaluate(&self) -> i32 {
        let position = self.chess_position();
        let value = |role| match role {
            Role::Pawn => 100,
            Role::Knight => 320,
            Role::Bishop => 330,
            Role::Rook => 500,
            Role::Queen => 900,
            Role::King => 0,
        };
        let board = position.board();
        let material: i32 = board
            .iter()
            .map(|(_, piece)| {
                let worth = value(piece.role);
                if piece.color == position.turn() {
                    worth
                } else {
                    -worth
                }
            })
            .sum();
        material
    }
}

/// Checkers, for the side to move: a man is worth 100 and a king 160; men gain 3 for
/// each row they have advanced, and 10 while they still guard their own back row.
impl Evaluate for Checkers {
    fn evaluate(&self) -> i32 {
        let me = self.turn().unwrap_or(Seat::First);
        self.pieces()
            .map(|(square, owner, king)| {
                // Rows 0..7 from Black's side (the top); Black (seat 0) advances downward.
                let row = i32::from((square - 1) / 4);
                let advanced = if owner == Seat::First { row } else { 7 - row };
                let worth = if king {
                    160
                } else {
                    100 + 3 * advanced + if advanced == 0 { 10 } else { 0 }
                };
                if owner == me { worth } else { -worth }
            })
            .sum()
    }
}
