//! The wire protocol: every message a client sends or receives, and every error code.
//!
//! One JSON object per WebSocket text frame, tagged by `type`. Names are by direction:
//! [`ClientMsg`] comes in, [`ServerMsg`] and the room's [`StateMsg`]/[`GameOverMsg`]
//! go out. docs/PROTOCOL.md describes the same thing for people.

mod checked;
mod client;
mod errors;
mod refusals;
mod schema;
mod server;
#[cfg(test)]
mod tests;

use bytestring::ByteString;
use serde::Serialize;

pub use checked::Checked;
pub use client::{ClientMsg, Envelope, Rejected, Updates, parse};
pub use errors::{ClientError, ErrorCode};
pub use schema::{schema, schema_text, unwrap_descriptions};
pub use server::{LobbyChange, Role, RoomSettingsView, ServerMsg, ShutdownReason};
// What rooms broadcast is the room's own vocabulary, sent as the room made it.
pub use parlor_room::TimeControl;
pub use parlor_room::chat::{ChatChannel, ChatLine};
pub use parlor_room::views::{
    GameOverMsg, MIN_MOVES_EACH_TO_RATE, MovedMsg, RoomSummary, SeatView, StateMsg, Status,
};

/// The protocol version sent in `welcome`. Bumped only for incompatible changes; new
/// messages and fields are added without a bump, and clients ignore what they don't know.
pub const PROTOCOL_VERSION: u32 = 1;

/// The largest text frame a client may send; larger ones close the socket with 1009.
pub const MAX_FRAME_BYTES: usize = 8 * 1024;

/// Encodes a message the server sends as one JSON text frame: the one encoder of every
/// frame, with one failure policy. Server messages hold only strings, numbers, options,
/// sequences and JSON values, which serde_json always encodes; should a message ever fail,
/// the failure is logged and the frame is `{}`, which has no `type` and which every
/// client ignores (docs/PROTOCOL.md §3), so nobody receives half a message.
///
/// The frame holds no spare capacity: serde_json grows its buffer by doubling (a
/// 690-byte state sits in 1,024 bytes), and rooms keep their recent frames for
/// clients that come back (`since`), so the slack would be held by every room.
pub fn encode<T: Serialize>(msg: &T) -> ByteString {
    let mut text = serde_json::to_string(msg).unwrap_or_else(|error| {
        tracing::error!(%error, "could not encode a message; sending {{}} in its place");
        String::from("{}")
    });
    text.shrink_to_fit();
    ByteString::from(text)
}
