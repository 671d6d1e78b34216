//! What is said in a room: its two chats and a line of them, as the wire shows them and
//! the store keeps them.

use serde::{Deserialize, Serialize};

use crate::PlayerId;

/// Which of a room's two chats a line belongs to: as on Lichess, the players talk among
/// themselves and the spectators among themselves, and neither side hears the other.
#[derive(
    Clone,
    Copy,
    Debug,
    Hash,
    PartialEq,
    Eq,
    strum::Display,
    strum::EnumString,
    strum::IntoStaticStr,
    serde_with::DeserializeFromStr,
)]
#[strum(
    serialize_all = "snake_case",
    parse_err_ty = UnknownChatChannel,
    parse_err_fn = UnknownChatChannel::named
)]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename_all = "snake_case")
)]
pub enum ChatChannel {
    /// The two seated players.
    Players,
    /// Everyone watching.
    Spectators,
}

parlor_rules::serialize_by_name!(ChatChannel);

impl ChatChannel {
    /// The channel's wire name, as the store keeps it too.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// A chat name that is not `players` or `spectators`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("\"{0}\" is not a chat; the chats are players and spectators")]
pub struct UnknownChatChannel(pub String);

impl UnknownChatChannel {
    /// The error for the name `name`.
    fn named(name: &str) -> UnknownChatChannel {
        UnknownChatChannel(name.to_owned())
    }
}

/// One line of chat, as it is sent and kept with its game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ChatLine {
    /// Who said it: their public id.
    pub player_id: PlayerId,
    /// Their name when they said it.
    pub name: String,
    /// What they said.
    pub text: String,
    /// When the room received it, Unix ms.
    pub at_ms: i64,
    /// Moves played when it was said.
    pub ply: usize,
}
