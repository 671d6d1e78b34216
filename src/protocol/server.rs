//! What the server sends one connection: direct replies and notices, and the listing of
//! a room that the lobby shows.

use parlor_room::{PlayerId, RoomId};
use parlor_rules::GameKind;
use parlor_rules::games::Seat;
use serde::Serialize;
use serde_json::Value;

use parlor_room::views::RoomSummary;

use super::{ChatChannel, ChatLine, ClientError, ErrorCode};

/// Whether a client plays or watches.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    strum::Display,
    strum::EnumString,
    strum::IntoStaticStr,
    serde_with::SerializeDisplay,
    serde_with::DeserializeFromStr,
)]
#[strum(
    serialize_all = "snake_case",
    parse_err_ty = UnknownRole,
    parse_err_fn = UnknownRole::named
)]
pub enum Role {
    /// Holds a seat.
    Player,
    /// Watches.
    Spectator,
}

/// A name that is no role.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("\"{0}\" is not a role; a client is a player or a spectator")]
pub struct UnknownRole(pub String);

impl UnknownRole {
    /// The error for the name `name`.
    fn named(name: &str) -> UnknownRole {
        UnknownRole(name.to_owned())
    }
}

/// A direct reply or notice from the server to one connection.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// Answer to `hello`.
    Welcome {
        /// The player's stable public id.
        player_id: PlayerId,
        /// The name now in use.
        name: String,
        /// The secret to send in a later `hello` to resume this player; none for a
        /// signed-in player, who signs in with the site's token instead.
        #[serde(skip_serializing_if = "Option::is_none")]
        token: Option<String>,
        /// Whether the player signed in with the site's token (absent for guests).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        signed_in: bool,
        /// [`PROTOCOL_VERSION`].
        protocol: u32,
        /// The client's `ref`.
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    /// Answer to `create_room`.
    RoomCreated {
        /// The new room's id.
        room: RoomId,
        /// The client's `ref`.
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    /// Answer to `join`/`watch` (and `create_room` with `me`); a `state` follows.
    Joined {
        /// The room's id.
        room: RoomId,
        /// The seat taken, or `null` for a spectator.
        seat: Option<Seat>,
        /// Player or spectator.
        role: Role,
        /// The client's `ref`.
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    /// Answer to `leave`.
    Left {
        /// The room's id.
        room: RoomId,
        /// The client's `ref`.
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    /// Answer to `list_rooms`.
    Rooms {
        /// Every room, newest first.
        rooms: Vec<RoomSummary>,
        /// The client's `ref`.
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    /// Something the client sent was refused; nothing changed.
    Error {
        /// The machine-readable code.
        code: ErrorCode,
        /// A sentence the person can act on.
        message: String,
        /// The client's `ref`.
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    /// This connection's seat was taken over by the same player on another connection.
    Replaced {
        /// The room's id.
        room: RoomId,
    },
    /// Answer to `subscribe_lobby`: the listed rooms (of its game, if it named one),
    /// newest first. `lobby_update`s follow.
    Lobby {
        /// The game the subscription is limited to, or `null` for every game.
        game: Option<GameKind>,
        /// The listed rooms, as in `rooms`.
        rooms: Vec<RoomSummary>,
        /// The client's `ref`.
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    /// A listed room was added, changed or removed; sent to lobby subscribers.
    LobbyUpdate {
        /// What happened to the room.
        change: LobbyChange,
        /// The room as it is now (as it last was, when removed).
        room: RoomSummary,
    },
    /// Answer to `unsubscribe_lobby`.
    LobbyUnsubscribed {
        /// The client's `ref`.
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    /// Answer to `ping`.
    Pong {
        /// The client's `ref`.
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    /// Lines of one of a room's chats: each new line as it is said, and on joining or
    /// watching, the lines said so far in the current game.
    Chat {
        /// The room's id.
        room: RoomId,
        /// The players' chat or the spectators'.
        channel: ChatChannel,
        /// The lines, oldest first.
        lines: Vec<ChatLine>,
    },
    /// The server's operator closed a room this connection was in: its game, if one was
    /// on, ended `aborted` (the `game_over` came just before), and the room is gone.
    RoomClosed {
        /// The room's id.
        room: RoomId,
        /// Why, as the operator said it.
        reason: String,
        /// What happened, for people.
        message: String,
    },
    /// The server is shutting down; reconnect after `retry_after_ms`.
    Shutdown {
        /// Whether games go on after the restart.
        reason: ShutdownReason,
        /// What is happening, for people.
        message: String,
        /// How long to wait before reconnecting, ms (then back off).
        retry_after_ms: u64,
    },
}

/// Why the server is shutting down, as `shutdown` says.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    strum::Display,
    strum::EnumString,
    strum::IntoStaticStr,
    serde_with::SerializeDisplay,
    serde_with::DeserializeFromStr,
)]
#[strum(
    serialize_all = "snake_case",
    parse_err_ty = UnknownShutdownReason,
    parse_err_fn = UnknownShutdownReason::named
)]
pub enum ShutdownReason {
    /// The server is restarting: every game in progress is resumed when it is back.
    Restarting,
    /// The server is stopping and its operator ended the games in progress
    /// (`interrupted`).
    Stopping,
}

/// A name that is no reason to shut down.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("\"{0}\" is not a reason to shut down; use restarting or stopping")]
pub struct UnknownShutdownReason(pub String);

impl UnknownShutdownReason {
    /// The error for the name `name`.
    fn named(name: &str) -> UnknownShutdownReason {
        UnknownShutdownReason(name.to_owned())
    }
}

impl ServerMsg {
    /// The `error` message for a client error, echoing `reference`.
    pub fn error(error: ClientError, reference: Option<Value>) -> Self {
        ServerMsg::Error {
            code: error.code,
            message: error.message,
            reference,
        }
    }
}

/// What happened to a room in a `lobby_update`.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    strum::Display,
    strum::EnumString,
    strum::IntoStaticStr,
    serde_with::SerializeDisplay,
    serde_with::DeserializeFromStr,
)]
#[strum(
    serialize_all = "snake_case",
    parse_err_ty = UnknownLobbyChange,
    parse_err_fn = UnknownLobbyChange::named
)]
pub enum LobbyChange {
    /// The room is new.
    Added,
    /// Something in its summary changed.
    Changed,
    /// The room is gone.
    Removed,
}

/// A name that is no change to a room.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("\"{0}\" is not a change to a room; use added, changed or removed")]
pub struct UnknownLobbyChange(pub String);

impl UnknownLobbyChange {
    /// The error for the name `name`.
    fn named(name: &str) -> UnknownLobbyChange {
        UnknownLobbyChange(name.to_owned())
    }
}
