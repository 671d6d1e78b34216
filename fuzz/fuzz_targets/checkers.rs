//! Checkers: FEN parsing, move parsing and application (see `parlor_fuzz::exercise`),
//! with the move list bound documented in docs/RELIABILITY.md.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parlor_rules::games::checkers::{Checkers, Settings};

fuzz_target!(|data: &[u8]| {
    parlor_fuzz::exercise::<Checkers>(&Settings::default(), data, parlor_fuzz::CHECKERS_MOST_MOVES)
});
