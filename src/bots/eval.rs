//! Each game's static evaluation for the searching bots.

use super::Evaluate;
use crate::games::tictactoe::TicTacToe;

/// Tic-tac-toe is searched to the end, so no estimate is ever needed.
impl Evaluate for TicTacToe {
    fn evaluate(&self) -> i32 {
        0
    }
}
