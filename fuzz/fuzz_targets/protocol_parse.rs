//! Client frame decoding: `parlor::protocol::parse` on arbitrary text never panics, and
//! every refusal carries a message a client can act on.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(rejected) = parlor::protocol::parse(text) {
        assert!(!rejected.error.message.is_empty());
    }
});
