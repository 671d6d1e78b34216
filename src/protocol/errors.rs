//! Every error code a client can be sent, in the order they are checked, and the error
//! a client caused with its sentence for the person.

/// Every error code, in the order they are checked (after `bad_json` … `hello_required`
/// come the room checks, then the codes that only some messages can produce).
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
    strum::VariantArray,
    serde_with::DeserializeFromStr,
    schemars::JsonSchema,
)]
#[schemars(rename_all = "snake_case")]
#[strum(
    serialize_all = "snake_case",
    parse_err_ty = UnknownErrorCode,
    parse_err_fn = UnknownErrorCode::named
)]
pub enum ErrorCode {
    /// The frame is not JSON.
    BadJson,
    /// `type` names no message.
    UnknownType,
    /// A field is missing or has the wrong type, or the frame is not a JSON object.
    BadMessage,
    /// The first message must be `hello`.
    HelloRequired,
    /// No room has that id.
    UnknownRoom,
    /// No player (or no bot account, for `challenge`) has that name.
    UnknownPlayer,
    /// The sender holds no seat in the room (from this connection).
    NotAPlayer,
    /// The game is over.
    GameFinished,
    /// It is not the sender's turn (or the game has not started).
    NotYourTurn,
    /// The move was chosen in a position the game has left (`after` names another
    /// number of moves than the game has).
    StaleMove,
    /// The move is not in the game's notation.
    BadMove,
    /// The move is not legal in the position.
    IllegalMove,
    /// `create_room` named an unknown game.
    UnknownGame,
    /// A seat spec or seat number is not valid.
    BadSeat,
    /// An unknown or invalid room option.
    BadOption,
    /// The name is not 1–24 printable characters.
    BadName,
    /// The name belongs to another player.
    NameTaken,
    /// The seat is held by someone else or a bot.
    SeatTaken,
    /// The sender already holds the other seat of the room.
    AlreadySeated,
    /// Resigning before the game has started.
    GameNotStarted,
    /// The mover's clock ran out before the move arrived.
    OutOfTime,
    /// `accept_draw`/`decline_draw` without a draw offer from the opponent.
    NoDrawOffer,
    /// `rematch` before the game is over.
    GameNotFinished,
    /// `claim_victory` or `claim_draw` while the opponent is connected, or a bot plays
    /// their seat: there is nobody gone to claim against.
    OpponentPresent,
    /// `claim_victory` or `claim_draw` before the opponent has been gone for
    /// `rooms.claim_after_secs`.
    TooEarlyToClaim,
    /// A second `hello` on the same connection.
    AlreadyIdentified,
    /// The site's sign-in token has expired: get a fresh one from the site.
    TokenExpired,
    /// The site's sign-in token is not valid yet (its `nbf` is still to come).
    TokenNotYetValid,
    /// The sign-in token is not one this server takes: a bad signature, another issuer
    /// or audience, a key the site does not publish, no subject, or sign-in is off.
    TokenInvalid,
    /// Only signed-in players may do this here (`[auth] guests = false`, or
    /// `spectators_need_sign_in` for watching).
    SignInRequired,
    /// The site account already has a Parlor player, or the guest is already linked to
    /// another account: a guest is linked once.
    AlreadyLinked,
    /// The operator has banned this player: their `hello` is refused and their open
    /// connections are closed (1008). The message says why and until when.
    Banned,
    /// A bot account asked to take a seat (create, join, quick join, challenge): bot
    /// accounts play only through the Bot API (docs/BOT_API.md). They may watch and chat.
    BotAccount,
    /// The database could not record the action; nothing changed.
    StorageUnavailable,
    /// The connection (or its address) has sent more than its budget allows; the message
    /// was not acted on. Slow down and send it again.
    RateLimited,
    /// The server holds as many rooms as it may; no new room can be created now.
    ServerFull,
    /// The room has as many spectators as it may; nobody else can watch it now.
    RoomFull,
    /// A chat line that is empty, too long or holds control characters, or chat that
    /// the server has turned off.
    BadChat,
    /// The sender neither plays nor watches the room (from this connection).
    NotInRoom,
    /// In a fleet: the node holding the room did not answer in time, so whether the
    /// request was done is not known. Join or watch the room again to see.
    RoomUnreachable,
}

parlor_rules::serialize_by_name!(ErrorCode);

impl ErrorCode {
    /// The code's wire name, derived from the variant's name.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether a refused `join` means the seat `quick_join` tried is gone (taken, held
    /// by the same player, or its room closed), so the next waiting room may be tried.
    pub fn means_seat_gone(self) -> bool {
        matches!(
            self,
            ErrorCode::SeatTaken | ErrorCode::AlreadySeated | ErrorCode::UnknownRoom
        )
    }
}

/// A name that is no error code (one a newer server sent across a fleet).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("\"{0}\" is no error code of this server")]
pub struct UnknownErrorCode(pub String);

impl UnknownErrorCode {
    /// The error for the name `name`.
    fn named(name: &str) -> UnknownErrorCode {
        UnknownErrorCode(name.to_owned())
    }
}

/// An error a client caused, with a sentence the person can act on. It crosses a fleet
/// as it is (a room on another node refused the client).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
#[error("{code}: {message}")]
pub struct ClientError {
    /// The machine-readable code (read from another node: one this node does not know,
    /// a newer node's, reads as `storage_unavailable`, which says that nothing changed).
    #[serde(deserialize_with = "code_or_unavailable")]
    pub code: ErrorCode,
    /// The human-readable explanation.
    pub message: String,
}

/// An error code from another node of the fleet, read as `storage_unavailable` when this
/// node does not know it.
fn code_or_unavailable<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<ErrorCode, D::Error> {
    let name = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(deserializer)?;
    Ok(name.parse().unwrap_or(ErrorCode::StorageUnavailable))
}

impl ClientError {
    /// An error with this code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    /// The error for a failed database write: the action was not taken.
    pub fn storage_unavailable() -> Self {
        Self::new(
            ErrorCode::StorageUnavailable,
            "The server could not save this right now, so nothing changed. Try again in a moment.",
        )
    }
}
