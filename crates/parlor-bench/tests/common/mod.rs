//! What the tests that compare servers' frames share: masking the ids that differ
//! between servers by design.

/// `frame` with every player id (`"p_` + 16 hex digits) and game id (`"g_` + 16 hex
/// digits) replaced by the same placeholder.
pub(crate) fn mask_ids(frame: String) -> String {
    let mut out = frame;
    for prefix in ["\"p_", "\"g_"] {
        let mut from = 0;
        while let Some(at) = out[from..].find(prefix) {
            let start = from + at + prefix.len();
            let end = start + 16;
            if out.len() >= end && out[start..end].bytes().all(|b| b.is_ascii_hexdigit()) {
                out.replace_range(start..end, "################");
            }
            from = start;
        }
    }
    out
}
