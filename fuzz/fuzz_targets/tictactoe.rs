//! Tic-tac-toe: position parsing, move parsing and application (see `parlor_fuzz::exercise`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use parlor_rules::games::tictactoe::TicTacToe;

fuzz_target!(|data: &[u8]| parlor_fuzz::exercise::<TicTacToe>(&(), data, 9));
