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
/// The message is written into a buffer the thread keeps, then copied once into a frame
/// of its exact size: serde_json alone grows its buffer by doubling (a 690-byte state
/// was copied three times on the way to 1,024 bytes, and once more to shed the slack,
/// which rooms must not keep in the recent frames they hold for clients that come back).
pub fn encode<T: Serialize>(msg: &T) -> ByteString {
    SCRATCH
        .with(|scratch| match scratch.try_borrow_mut() {
            Ok(mut scratch) => {
                scratch.clear();
                let written = serde_json::to_writer(&mut *scratch, msg).map_err(EncodeError::from);
                let text =
                    written.and_then(|()| Ok(ByteString::from(std::str::from_utf8(&scratch)?)));
                if scratch.capacity() > SCRATCH_KEPT {
                    *scratch = Vec::with_capacity(SCRATCH_START);
                }
                text
            }
            // Only if a message's encoding itself encoded a frame.
            Err(_) => serde_json::to_string(msg)
                .map(ByteString::from)
                .map_err(EncodeError::from),
        })
        .unwrap_or_else(|error| {
            tracing::error!(%error, "could not encode a message; sending {{}} in its place");
            ByteString::from_static("{}")
        })
}

/// What the buffer [`encode`] writes into starts with: room for any frame but the
/// largest (a long game's snapshot, a full page of rooms).
const SCRATCH_START: usize = 4 * 1024;

/// A buffer grown past this by a large frame is let go after it.
const SCRATCH_KEPT: usize = 64 * 1024;

thread_local! {
    /// The buffer [`encode`] writes each frame into before copying it out.
    static SCRATCH: std::cell::RefCell<Vec<u8>> =
        std::cell::RefCell::new(Vec::with_capacity(SCRATCH_START));
}

/// Why a message could not be encoded.
#[derive(Debug, thiserror::Error)]
enum EncodeError {
    /// serde_json refused it.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// serde_json wrote something that is not UTF-8 (it never does).
    #[error(transparent)]
    Utf8(#[from] std::str::Utf8Error),
}
