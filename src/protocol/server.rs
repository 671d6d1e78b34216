//! What the server sends one connection: direct replies and notices, and the listing of
//! a room that the lobby shows.

use std::time::Duration;

use parlor_room::options::Takeover;
use parlor_room::{PlayerId, RoomId, RoomSettings};
use parlor_rules::GameKind;
use parlor_rules::bots::BotLevel;
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
    serde_with::DeserializeFromStr,
    schemars::JsonSchema,
)]
#[schemars(rename_all = "snake_case")]
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

parlor_rules::serialize_by_name!(Role);

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
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// Answer to `hello`.
    Welcome {
        /// The player's permanent public id. Shown to others in seats.
        player_id: PlayerId,
        /// The name now in use (trimmed).
        name: String,
        /// The player's secret, to send in a later `hello` to resume this player
        /// (PROTOCOL.md §5.3); absent for a player signed in with a site's token (§5.4).
        #[serde(skip_serializing_if = "Option::is_none")]
        token: Option<String>,
        /// `true` for a player signed in with a site's token; absent for guests.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        signed_in: bool,
        /// The protocol version, `1` (`PROTOCOL_VERSION`).
        protocol: u32,
        /// This server's room settings that a client shows its players: when a bot
        /// fills an open seat and of what level, how long an absent player has, and
        /// when their opponent may claim the game (PROTOCOL.md §7.1). Absent from
        /// servers older than it.
        #[serde(skip_serializing_if = "Option::is_none")]
        room_settings: Option<RoomSettingsView>,
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
    /// Sent to one connection after `join`, `watch`, `quick_join` or a `create_room`
    /// with `me`. The next frame for that room is the snapshot `state`.
    Joined {
        /// The room's id.
        room: RoomId,
        /// The seat this connection holds; `null` for a spectator.
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
        /// Every live room (waiting, playing and finished rooms that have not been
        /// removed yet) except private ones, newest first.
        rooms: Vec<RoomSummary>,
        /// The client's `ref`.
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    /// Something the client sent was refused; nothing changed. An `error` never closes
    /// the socket.
    Error {
        /// The machine-readable code (§11).
        code: ErrorCode,
        /// An English sentence for people; its wording may change. Do not parse it.
        message: String,
        /// The client's `ref`, when it could be read (§4).
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    /// This connection's seat was taken over by the same player on another connection;
    /// from then on it receives nothing from that room.
    Replaced {
        /// The room whose seat was taken over.
        room: RoomId,
    },
    /// Answer to `subscribe_lobby`: the listed rooms (of its game, if it named one),
    /// newest first. `lobby_update`s follow. Sent again without `ref` to a subscriber
    /// that fell behind.
    Lobby {
        /// The game the subscription is limited to, or `null` for every game.
        game: Option<GameKind>,
        /// The listed rooms of that game, newest first, as in `rooms`.
        rooms: Vec<RoomSummary>,
        /// The client's `ref`.
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    /// A listed room was added, changed or removed; sent to lobby subscribers.
    LobbyUpdate {
        /// What happened to the room.
        change: LobbyChange,
        /// The room as it is now; for `removed`, as it last was.
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
        /// Which chat. A seated player only ever receives `players`, a spectator only
        /// `spectators`.
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
        /// A sentence for people.
        message: String,
    },
    /// A room this connection is in is moving between the servers of a fleet (or this
    /// server cannot reach the one holding it just now). The connection stays open: the
    /// server puts it back into the room where it is now, which the client sees as a
    /// `joined` without `ref` followed by the room's `state`. Until then the room's
    /// requests are refused with `room_unreachable`.
    RoomMoving {
        /// The room's id.
        room: RoomId,
        /// A sentence for people.
        message: String,
    },
    /// The answer to `challenge`: the challenge was made (§6.20). Its answer comes later,
    /// as `challenge_accepted` or `challenge_declined`.
    ChallengeSent {
        /// The challenge's id (which the game's room takes, if it is accepted).
        challenge: RoomId,
        /// The bot account challenged.
        name: String,
        /// The game.
        game: GameKind,
        /// The challenger's seat.
        seat: Seat,
        /// The client's `ref`.
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    /// A bot accepted this player's challenge: the game's room is open and has started,
    /// with `seat` held for this player; `join` it (§6.3) to play.
    ChallengeAccepted {
        /// The challenge's id.
        challenge: RoomId,
        /// The game's room.
        room: RoomId,
        /// This player's seat there.
        seat: Seat,
    },
    /// This player's challenge was declined, by the bot or, for a bot that does not take
    /// it (its games, or as many games as it may play at once), by the server.
    ChallengeDeclined {
        /// The challenge's id.
        challenge: RoomId,
        /// Why, as a key: `generic`, `later`, `variant`, `tooMany`, … (docs/BOT_API.md).
        reason: String,
        /// Why, for people.
        message: String,
    },
    /// The answer to `cancel_challenge`: the challenge was taken back (§6.21).
    ChallengeCanceled {
        /// The challenge's id.
        challenge: RoomId,
        /// The client's `ref`.
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    /// The server is stopping, and closes the socket right after; reconnect after
    /// `retry_after_ms`.
    Shutdown {
        /// Whether games in progress are kept (`restarting`) or ended (`stopping`).
        reason: ShutdownReason,
        /// A sentence for people.
        message: String,
        /// How long to wait before reconnecting, ms (`server.reconnect_after_ms`); then
        /// back off while the server is not yet back.
        retry_after_ms: u64,
    },
}

/// This server's room settings as `welcome` tells them, so that a page can say what will
/// happen ("if nobody comes within 20 s, an easy bot takes the seat") and count the
/// grace and claim times down without knowing the server's configuration.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RoomSettingsView {
    /// An open seat opposite a connected person is given a bot after this long, ms
    /// (`bots.fill_after_secs`), in a room that fills itself (`options.bot_fill`).
    pub bot_fill_after_ms: u64,
    /// That bot's level (`bots.fill_level`); also the level `fill_with_bot` seats when
    /// it names none.
    pub bot_fill_level: BotLevel,
    /// How long a disconnected player keeps their seat during a game, ms
    /// (`rooms.reconnect_grace_secs`).
    pub reconnect_grace_ms: u64,
    /// How long a disconnected player must have been away before the opponent may
    /// claim the game, ms (`rooms.claim_after_secs`); at most `reconnect_grace_ms`.
    pub claim_after_ms: u64,
    /// A game whose first moves are not made within this long of each side's turn is
    /// aborted, ms (`rooms.first_move_secs`).
    pub first_move_ms: u64,
    /// What happens to an absent player's seat when the grace runs out, in rooms that
    /// do not say (`options.takeover`): `none` (they lose by `abandoned`) or the level
    /// of the bot that plays for them (`rooms.takeover`).
    pub takeover: Takeover,
}

impl From<&RoomSettings> for RoomSettingsView {
    fn from(settings: &RoomSettings) -> RoomSettingsView {
        let ms = |duration: Duration| u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
        RoomSettingsView {
            bot_fill_after_ms: ms(settings.fill_after),
            bot_fill_level: settings.fill_level,
            reconnect_grace_ms: ms(settings.reconnect_grace),
            claim_after_ms: ms(settings.claim_after),
            first_move_ms: ms(settings.first_move),
            takeover: settings.takeover,
        }
    }
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
    serde_with::DeserializeFromStr,
    schemars::JsonSchema,
)]
#[schemars(rename_all = "snake_case")]
#[strum(
    serialize_all = "snake_case",
    parse_err_ty = UnknownShutdownReason,
    parse_err_fn = UnknownShutdownReason::named
)]
pub enum ShutdownReason {
    /// The server is restarting (the default): games in progress are kept, and the
    /// next server resumes them; reconnect and `join` again.
    Restarting,
    /// The operator has the server end the games in progress as it stops (they are
    /// stored as `interrupted`, without a result).
    Stopping,
}

parlor_rules::serialize_by_name!(ShutdownReason);

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
    serde_with::DeserializeFromStr,
    schemars::JsonSchema,
)]
#[schemars(rename_all = "snake_case")]
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

parlor_rules::serialize_by_name!(LobbyChange);

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
