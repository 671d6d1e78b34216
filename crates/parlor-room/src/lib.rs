//! Parlor's rooms as values: the ids everything past a parser speaks of, the one
//! vocabulary of what a client may ask of a room, and the room's rules as a pure state
//! machine ([`machine`]) with its clocks, seats, scoring and ratings.
//!
//! Like `parlor-rules`, this crate has no async runtime, no database and no network, and
//! reads no clock: time comes in as a value, and what must happen comes out as effects
//! for the room's task (in the server) to perform. `cargo tree -p parlor-room` lists no
//! tokio, actix, sqlx or redis, and the compiler holds it to that.

pub mod chat;
pub mod clock;
pub mod command;
mod ids;
pub mod machine;
pub mod options;
pub mod ratings;
pub mod records;
pub mod refusal;
#[cfg(feature = "schema")]
mod schema;
pub mod scoring;
pub mod seats;
pub mod settings;
pub mod views;

pub use command::{Asked, Request, RoomCommand};
pub use ids::{ConnId, GameId, NodeId, PlayerId, ROOM_ID_BYTES, RoomId};
pub use machine::{Now, RoomState};
pub use options::{RoomOptions, TimeControl};
pub use refusal::Refusal;
pub use seats::{PlayerInfo, SeatKind, SeatSpec};
pub use settings::RoomSettings;
