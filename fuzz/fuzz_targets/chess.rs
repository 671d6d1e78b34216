//! Chess: FEN parsing, move parsing and application (see `parlor_fuzz::exercise`). No
//! legal chess position has more than 218 moves.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parlor_rules::games::chess::Chess;

fuzz_target!(|data: &[u8]| parlor_fuzz::exercise::<Chess>(&(), data, 218));
