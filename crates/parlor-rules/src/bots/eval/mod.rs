//! Each game's static evaluation and move hints for the bots.

mod checkers;
pub(crate) mod chess;
mod fox_geese;

use super::Evaluate;
use crate::games::tictactoe::TicTacToe;

/// Tic-tac-toe is searched to the end, so no estimate is ever needed.
impl Evaluate for TicTacToe {
    fn evaluate(&self) -> i32 {
        0
    }
}
