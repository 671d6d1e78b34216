//! How names compare for ownership: the key a name is claimed under, and the rule the
//! keys follow (`engine/names.rs` claims them and upgrades older keys).
//!
//! A name belongs to the first player that used it. Two names that a person would read
//! as the same must not belong to two players, so a name's key is its confusable
//! skeleton (Unicode TS #39, from the `unicode-security` crate) of its lowercase form:
//! `Alice`, `alice` and `Аlice` (with a Cyrillic `А`) share one key, as do `b0b` and
//! `bob`.

use unicode_security::skeleton;

/// The rule the keys in `player_names` follow, as recorded in `store_meta`.
pub(super) const KEY_RULE: &str = "skeleton-v1";

/// The key `name` is claimed under.
pub(super) fn name_key(name: &str) -> String {
    skeleton(&name.to_lowercase())
        .collect::<String>()
        .to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alike_names_share_a_key() {
        assert_eq!(name_key("Alice"), name_key("alice"));
        assert_eq!(name_key("Alice"), name_key("\u{0410}lice"), "Cyrillic A");
        assert_eq!(
            name_key("paypal"),
            name_key("p\u{0430}yp\u{0430}l"),
            "Cyrillic a"
        );
        assert_eq!(name_key("bob"), name_key("b0b"));
        assert_ne!(name_key("Alice"), name_key("Alicia"));
        assert_ne!(name_key("Ann"), name_key("Anna"));
    }
}
