//! The ids of rooms, players, games and fleet nodes: each its own type from the moment
//! an edge (a client's message, a stored row, a fleet message) reads it, so that no id
//! can be passed where another is meant. Cloning one is cheap (a shared string).

use std::borrow::Borrow;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// Declares an id type: a shared string with its own name, written and read on the
/// wire and in the store as the plain string (which its JSON Schema, named after it and
/// described by its doc line, says).
macro_rules! id_type {
    ($(#[doc = $doc:literal])+ $name:ident) => {
        $(#[doc = $doc])+
        #[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(Arc<str>);

        impl $name {
            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&*self.0, f)
            }
        }

        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl From<String> for $name {
            fn from(id: String) -> Self {
                Self(id.into())
            }
        }

        impl From<&str> for $name {
            fn from(id: &str) -> Self {
                Self(id.into())
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                &*self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                &*self.0 == *other
            }
        }

        #[cfg(feature = "schema")]
        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let description = [$($doc),+].map(str::trim).join(" ");
                schemars::json_schema!({"type": "string", "description": description})
            }
        }
    };
}

id_type! {
    /// A room's id, an opaque string: today 10 lowercase hex digits (`164e769c97`).
    RoomId
}

id_type! {
    /// A player's permanent public id, an opaque string shown to everyone: today `p_`
    /// plus 16 hex digits.
    PlayerId
}

id_type! {
    /// A game's id, one per game played in a room (a rematch is a new game), an opaque
    /// string: today `g_` plus 16 hex digits.
    GameId
}

id_type! {
    /// A node of a fleet, by the name it registers under in Redis.
    NodeId
}

/// One connection to a room, unique in its server's process: a socket of that server, or
/// a client of another node of a fleet in one of its rooms.
pub type ConnId = u64;

/// How many random bytes, in hex, make a room's id.
pub const ROOM_ID_BYTES: usize = 5;

impl RoomId {
    /// Whether the id could be one a server opened: anything else names no room of any
    /// node, and is not worth asking the fleet about.
    pub fn could_be_live(&self) -> bool {
        self.0.len() == 2 * ROOM_ID_BYTES && self.0.bytes().all(|b| b.is_ascii_hexdigit())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn an_id_reads_and_writes_as_its_plain_string() {
        let room = RoomId::from("0a1b2c3d4e");
        assert_eq!(serde_json::to_string(&room).unwrap(), "\"0a1b2c3d4e\"");
        let back: RoomId = serde_json::from_str("\"0a1b2c3d4e\"").unwrap();
        assert_eq!(back, room);
        assert_eq!(room.to_string(), "0a1b2c3d4e");
        assert_eq!(format!("{room:?}"), "\"0a1b2c3d4e\"");
    }

    #[test]
    fn a_map_keyed_by_ids_is_searched_by_text() {
        let mut players = HashMap::new();
        players.insert(PlayerId::from("p_1"), 1);
        assert_eq!(players.get("p_1"), Some(&1));
        assert_eq!(players.get("p_2"), None);
    }

    #[test]
    fn only_ten_hex_digits_could_be_a_live_room() {
        assert!(RoomId::from("0a1b2c3d4e").could_be_live());
        assert!(!RoomId::from("0a1b2c3d4").could_be_live());
        assert!(!RoomId::from("0a1b2c3d4g").could_be_live());
        assert!(!RoomId::from("").could_be_live());
    }
}
