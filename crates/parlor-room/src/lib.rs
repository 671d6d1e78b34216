//! Parlor's rooms as values: the ids everything past a parser speaks of.
//!
//! Like `parlor-rules`, this crate has no async runtime, no database, no network and no
//! clock to read: `cargo tree -p parlor-room` shows it, and the compiler holds it to that.

mod ids;

pub use ids::{GameId, NodeId, PlayerId, ROOM_ID_BYTES, RoomId};
