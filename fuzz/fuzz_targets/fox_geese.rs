//! Fox & Geese: position parsing, move parsing (any jump path) and application (see
//! `parlor_fuzz::exercise`), with the fox's list under its documented bound.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parlor_rules::games::fox_geese::{FoxGeese, MOST_FOX_MOVES, Settings};

fuzz_target!(|data: &[u8]| {
    parlor_fuzz::exercise::<FoxGeese>(&Settings::default(), data, MOST_FOX_MOVES)
});
