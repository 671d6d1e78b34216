//! The wire protocol: every message a client sends or receives, and every error code.
//!
//! One JSON object per WebSocket text frame, tagged by `type`. Names are by direction:
//! [`ClientMsg`] comes in, [`ServerMsg`] and the room's [`StateMsg`]/[`GameOverMsg`]
//! go out. docs/PROTOCOL.md describes the same thing for people.

use parlor_rules::GameKind;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::domain::SeatKind;
use parlor_rules::games::{BoardView, EndReason};

/// The protocol version sent in `welcome`. Bumped only for incompatible changes; new
/// messages and fields are added without a bump, and clients ignore what they don't know.
pub const PROTOCOL_VERSION: u32 = 1;

/// The largest text frame a client may send; larger ones close the socket with 1009.
pub const MAX_FRAME_BYTES: usize = 8 * 1024;

/// A message from a client, after its `type` was recognised and its fields checked.
#[derive(Clone, Debug, PartialEq, Deserialize, strum::VariantNames)]
#[serde(tag = "type", rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ClientMsg {
    /// Identify: must be the first message.
    Hello {
        /// The display name wanted.
        name: String,
        /// The token from an earlier `welcome`, to resume that player.
        #[serde(default)]
        token: Option<String>,
    },
    /// Create a room.
    CreateRoom {
        /// The game's id, e.g. `tictactoe`.
        game: String,
        /// Two seat specs: `open`, `me` or `bot:<level>`.
        seats: Vec<String>,
        /// Room options; must be an object when present.
        #[serde(default)]
        options: Option<Map<String, Value>>,
    },
    /// Take (or take back) a seat.
    Join {
        /// The room's id.
        room: String,
        /// 0 or 1.
        seat: u64,
    },
    /// Spectate a room.
    Watch {
        /// The room's id.
        room: String,
    },
    /// Play a move.
    Move {
        /// The room's id.
        room: String,
        /// The move in the game's notation.
        #[serde(rename = "move")]
        text: String,
    },
    /// Resign the game in progress.
    Resign {
        /// The room's id.
        room: String,
    },
    /// Leave a room (resigning, by `abandoned`, if playing).
    Leave {
        /// The room's id.
        room: String,
    },
    /// List the rooms.
    ListRooms {},
    /// Offer the opponent a draw.
    OfferDraw {
        /// The room's id.
        room: String,
    },
    /// Accept the opponent's draw offer.
    AcceptDraw {
        /// The room's id.
        room: String,
    },
    /// Decline the opponent's draw offer.
    DeclineDraw {
        /// The room's id.
        room: String,
    },
    /// Ask for another game in the same room, seats swapped, once this one is over.
    Rematch {
        /// The room's id.
        room: String,
    },
    /// Receive a `lobby` snapshot of the listed rooms, then a `lobby_update` whenever
    /// one is added, changes or is removed.
    SubscribeLobby {
        /// Only rooms of this game; every game when absent.
        #[serde(default)]
        game: Option<String>,
    },
    /// Stop receiving `lobby_update`s.
    UnsubscribeLobby {},
    /// Take the open seat of the oldest waiting public room of this game and time
    /// control whose other seat holds a connected person, or create one and sit in it.
    QuickJoin {
        /// The game's id.
        game: String,
        /// The time control wanted (no clock when absent); checked as the room option.
        #[serde(default)]
        time_control: Option<Value>,
    },
}

/// Every `type` a client may send, for telling `unknown_type` from `bad_message`: the
/// variants of [`ClientMsg`] by their wire names (a test checks serde reads each one).
const CLIENT_TYPES: &[&str] = <ClientMsg as strum::VariantNames>::VARIANTS;

/// A parsed client message with the `ref` it carried, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct Envelope {
    /// The message.
    pub msg: ClientMsg,
    /// The client's `ref`, echoed in direct replies and errors.
    pub reference: Option<Value>,
}

/// Every error code, in the order they are checked (after `bad_json` … `hello_required`
/// come the room checks, then the codes that only some messages can produce).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::IntoStaticStr, strum::EnumIter)]
#[strum(serialize_all = "snake_case")]
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
    /// The sender holds no seat in the room (from this connection).
    NotAPlayer,
    /// The game is over.
    GameFinished,
    /// It is not the sender's turn (or the game has not started).
    NotYourTurn,
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
    /// A second `hello` on the same connection.
    AlreadyIdentified,
    /// The database could not record the action; nothing changed.
    StorageUnavailable,
    /// The connection (or its address) has sent more than its budget allows; the message
    /// was not acted on. Slow down and send it again.
    RateLimited,
    /// The server holds as many rooms as it may; no new room can be created now.
    ServerFull,
    /// The room has as many spectators as it may; nobody else can watch it now.
    RoomFull,
}

impl ErrorCode {
    /// The code's wire name, derived from the variant's name.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error a client caused, with a sentence the person can act on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ClientError {
    /// The machine-readable code.
    pub code: ErrorCode,
    /// The human-readable explanation.
    pub message: String,
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

/// A frame that could not be read as a client message, with the `ref` it carried if
/// that much could be read.
#[derive(Clone, Debug, PartialEq)]
pub struct Rejected {
    /// What was wrong.
    pub error: ClientError,
    /// The client's `ref`, if the frame was a JSON object carrying one.
    pub reference: Option<Value>,
}

/// Reads one text frame: `bad_json` → `unknown_type` → `bad_message`, in that order.
/// Unknown fields are ignored.
pub fn parse(text: &str) -> Result<Envelope, Rejected> {
    let value: Value = serde_json::from_str(text).map_err(|e| Rejected {
        error: ClientError::new(
            ErrorCode::BadJson,
            format!("The message is not valid JSON ({e}). Send one JSON object per text frame."),
        ),
        reference: None,
    })?;
    let Value::Object(mut object) = value else {
        return Err(Rejected {
            error: ClientError::new(
                ErrorCode::BadMessage,
                "A message must be a JSON object with a \"type\" field.",
            ),
            reference: None,
        });
    };
    let reference = object.remove("ref");
    let reject = |code, message: String| Rejected {
        error: ClientError::new(code, message),
        reference: reference.clone(),
    };
    match object.get("type") {
        Some(Value::String(kind)) if !CLIENT_TYPES.contains(&kind.as_str()) => {
            return Err(reject(
                ErrorCode::UnknownType,
                format!(
                    "There is no message type \"{kind}\". Known types: {}.",
                    CLIENT_TYPES.join(", ")
                ),
            ));
        }
        Some(Value::String(_)) => {}
        _ => {
            return Err(reject(
                ErrorCode::BadMessage,
                "A message must have a \"type\" field holding a string.".to_owned(),
            ));
        }
    }
    match serde_json::from_value(Value::Object(object)) {
        Ok(msg) => Ok(Envelope {
            msg,
            reference: reference.clone(),
        }),
        Err(e) => Err(reject(
            ErrorCode::BadMessage,
            format!("The message has a missing or mistyped field: {e}."),
        )),
    }
}

/// Whether a client plays or watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Holds a seat.
    Player,
    /// Watches.
    Spectator,
}

/// A direct reply or notice from the server to one connection.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// Answer to `hello`.
    Welcome {
        /// The player's stable public id.
        player_id: String,
        /// The name now in use.
        name: String,
        /// The secret to send in a later `hello` to resume this player.
        token: String,
        /// [`PROTOCOL_VERSION`].
        protocol: u32,
        /// The client's `ref`.
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    /// Answer to `create_room`.
    RoomCreated {
        /// The new room's id.
        room: String,
        /// The client's `ref`.
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    /// Answer to `join`/`watch` (and `create_room` with `me`); a `state` follows.
    Joined {
        /// The room's id.
        room: String,
        /// The seat taken, or `null` for a spectator.
        seat: Option<u8>,
        /// Player or spectator.
        role: Role,
        /// The client's `ref`.
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    /// Answer to `leave`.
    Left {
        /// The room's id.
        room: String,
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
        room: String,
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
    /// The server is shutting down; reconnect later.
    Shutdown {
        /// What is happening.
        message: String,
    },
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LobbyChange {
    /// The room is new.
    Added,
    /// Something in its summary changed.
    Changed,
    /// The room is gone.
    Removed,
}

/// A seat as shown in `state` and room listings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SeatView {
    /// 0 or 1.
    pub seat: u8,
    /// `open`, `human` or `bot:<level>`.
    pub kind: SeatKind,
    /// The human's or bot's name; `null` when open.
    pub name: Option<String>,
    /// The human's player id; `null` otherwise.
    pub player_id: Option<String>,
    /// Whether the seat's occupant is connected (bots always are; open seats never).
    pub connected: bool,
    /// The occupant's Glicko-2 rating in this game (a bot level is rated as a player of
    /// its own), once known; `null` for open seats and newcomers.
    pub rating: Option<i64>,
    /// When a bot plays for a person who left (`options.takeover`): that person. They get
    /// the seat back by joining it again. Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stand_in_for: Option<PlayerRef>,
}

/// A person, as named in seat views.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayerRef {
    /// The player's public id.
    pub player_id: String,
    /// The player's name.
    pub name: String,
}

/// The last move played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LastMove {
    /// Who played it.
    pub seat: u8,
    /// The move in notation.
    #[serde(rename = "move")]
    pub text: String,
    /// The move as players write it: SAN in chess (`Nf3`, `exd8=Q+`), the same as
    /// `move` in the other games.
    pub display: String,
}

/// A finished game's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ResultView {
    /// The winning seat, `null` for a draw.
    pub winner: Option<u8>,
    /// Why it ended.
    pub reason: EndReason,
}

/// A room's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// A seat is still open.
    Waiting,
    /// Both seats are filled and the game is on.
    Playing,
    /// The game has ended.
    Finished,
}

impl Status {
    /// The status's wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Waiting => "waiting",
            Status::Playing => "playing",
            Status::Finished => "finished",
        }
    }
}

/// The room's full state, broadcast after every change (same bytes for everyone).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename = "state")]
pub struct StateMsg {
    /// The room's id.
    pub room: String,
    /// The game's id.
    pub game: GameKind,
    /// The current game's unique id; `null` until it starts.
    pub game_id: Option<String>,
    /// Rises by one with every state the room broadcasts.
    pub seq: u64,
    /// Waiting, playing or finished.
    pub status: Status,
    /// Both seats.
    pub seats: Vec<SeatView>,
    /// How many spectators are connected.
    pub spectators: usize,
    /// The seat to move, `null` unless playing.
    pub to_move: Option<u8>,
    /// The position in the game's text form.
    pub position: String,
    /// The board for drawing.
    pub board: BoardView,
    /// The legal moves of the side to move; empty unless playing.
    pub legal_moves: Vec<String>,
    /// The last move, if any.
    pub last_move: Option<LastMove>,
    /// How many moves have been played.
    pub moves: usize,
    /// The result once finished.
    pub result: Option<ResultView>,
    /// The room's time control (`{"kind":"none"}` without a clock).
    pub time_control: TimeControl,
    /// Both clocks, or `null` without a time control.
    pub clocks: Option<ClockView>,
    /// The seat that has offered a draw still open, if any.
    pub draw_offer: Option<u8>,
    /// The seats that have asked for a rematch of the finished game.
    pub rematch: Vec<u8>,
    /// Every move so far; only in the snapshot sent after `joined`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<String>>,
    /// Every move so far as players write it (see [`LastMove::display`]); only beside
    /// `history`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_display: Option<Vec<String>>,
}

/// How much time each side has, chosen at `create_room` (`options.time_control`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TimeControl {
    /// No clock.
    #[default]
    None,
    /// Each move must be made within `per_move_ms`; running out loses.
    PerMove {
        /// Time for each move, ms.
        per_move_ms: u64,
    },
    /// Chess-style clocks: `base_ms` each, plus `increment_ms` after every move made.
    Fischer {
        /// Each side's starting time, ms.
        base_ms: u64,
        /// Time added to a side's clock after each of its moves, ms.
        increment_ms: u64,
    },
}

/// The longest time control accepted: a week, so arithmetic never overflows.
const MAX_MS: u64 = 7 * 24 * 3600 * 1000;

impl TimeControl {
    /// Checks the values: times must be positive and at most a week.
    pub fn validate(&self) -> Result<(), &'static str> {
        let in_range = |ms: u64| (1..=MAX_MS).contains(&ms);
        match *self {
            TimeControl::None => Ok(()),
            TimeControl::PerMove { per_move_ms } if in_range(per_move_ms) => Ok(()),
            TimeControl::Fischer {
                base_ms,
                increment_ms,
            } if in_range(base_ms) && increment_ms <= MAX_MS => Ok(()),
            TimeControl::PerMove { .. } => Err("per_move_ms must be from 1 ms to a week"),
            TimeControl::Fischer { .. } => {
                Err("base_ms must be from 1 ms to a week and increment_ms at most a week")
            }
        }
    }

    /// Each side's time at the start of a game (or of each move, per move).
    pub fn initial_ms(&self) -> Option<u64> {
        match *self {
            TimeControl::None => None,
            TimeControl::PerMove { per_move_ms } => Some(per_move_ms),
            TimeControl::Fischer { base_ms, .. } => Some(base_ms),
        }
    }
}

/// Both clocks in `state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ClockView {
    /// Each seat's remaining time when the state was sent, ms.
    pub remaining_ms: [u64; 2],
    /// The seat whose clock is running, if any.
    pub running: Option<u8>,
}

/// A seat's score in `game_over`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScoreView {
    /// 0 or 1.
    pub seat: u8,
    /// The seat's name.
    pub name: Option<String>,
    /// The score; `null` for bots and unscored games.
    pub score: Option<u32>,
    /// The seat's rating before the game, if it was rated.
    pub rating_before: Option<i64>,
    /// Its rating after the game, if it was rated.
    pub rating_after: Option<i64>,
}

/// Sent after the finishing `state`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename = "game_over")]
pub struct GameOverMsg {
    /// The room's id.
    pub room: String,
    /// The finished game's id.
    pub game_id: String,
    /// The `seq` of the finishing state.
    pub seq: u64,
    /// The winning seat, `null` for a draw.
    pub winner: Option<u8>,
    /// Why it ended.
    pub reason: EndReason,
    /// Both seats' scores.
    pub scores: Vec<ScoreView>,
    /// Wall-clock length of the game, ms.
    pub duration_ms: u64,
}

/// A room in `rooms` and `GET /api/rooms`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RoomSummary {
    /// The room's id.
    pub room: String,
    /// The game's id.
    pub game: GameKind,
    /// Waiting, playing or finished.
    pub status: Status,
    /// Both seats.
    pub seats: Vec<SeatView>,
    /// Connected spectators.
    pub spectators: usize,
    /// Moves played.
    pub moves: usize,
    /// The room's time control.
    pub time_control: TimeControl,
    /// When the room was created, Unix ms (listings are newest first).
    pub created_at_ms: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(text: &str) -> ErrorCode {
        parse(text).unwrap_err().error.code
    }

    #[test]
    fn every_client_type_is_read_by_serde() {
        assert_eq!(CLIENT_TYPES.len(), 15);
        for kind in CLIENT_TYPES {
            let error = serde_json::from_value::<ClientMsg>(serde_json::json!({ "type": kind }))
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(!error.contains("unknown variant"), "{kind}: {error}");
        }
    }

    #[test]
    fn every_error_code_is_sent_by_its_wire_name_and_documented() {
        use strum::IntoEnumIterator;
        let protocol = include_str!("../docs/PROTOCOL.md");
        for code in ErrorCode::iter() {
            let name = code.as_str();
            assert_eq!(serde_json::to_value(code).unwrap(), serde_json::json!(name));
            assert!(
                protocol.contains(&format!("`{name}`")),
                "{name} is not in PROTOCOL.md"
            );
        }
        assert_eq!(ErrorCode::NotAPlayer.as_str(), "not_a_player");
    }

    #[test]
    fn errors_are_checked_in_order() {
        assert_eq!(code("{"), ErrorCode::BadJson);
        assert_eq!(code("[1]"), ErrorCode::BadMessage);
        assert_eq!(code(r#"{"type":"fly"}"#), ErrorCode::UnknownType);
        assert_eq!(code(r#"{"type":7}"#), ErrorCode::BadMessage);
        assert_eq!(code(r#"{"room":"a"}"#), ErrorCode::BadMessage);
        assert_eq!(code(r#"{"type":"move","room":"a"}"#), ErrorCode::BadMessage);
        assert_eq!(
            code(r#"{"type":"move","room":"a","move":4}"#),
            ErrorCode::BadMessage
        );
        assert_eq!(
            code(r#"{"type":"join","room":"a","seat":-1}"#),
            ErrorCode::BadMessage
        );
    }

    #[test]
    fn ref_is_kept_even_when_the_message_is_refused() {
        let rejected = parse(r#"{"type":"fly","ref":"r1"}"#).unwrap_err();
        assert_eq!(rejected.reference, Some(Value::from("r1")));
        let ok = parse(r#"{"type":"list_rooms","ref":7,"extra":true}"#).unwrap();
        assert_eq!(ok.msg, ClientMsg::ListRooms {});
        assert_eq!(ok.reference, Some(Value::from(7)));
    }

    #[test]
    fn status_names_agree_with_their_wire_names() {
        for status in [Status::Waiting, Status::Playing, Status::Finished] {
            let wire = serde_json::to_string(&status).unwrap();
            assert_eq!(wire, format!("\"{}\"", status.as_str()));
        }
    }

    #[test]
    fn replies_serialize_as_documented() {
        let welcome = ServerMsg::Welcome {
            player_id: "p".into(),
            name: "Ann".into(),
            token: "t".into(),
            protocol: PROTOCOL_VERSION,
            reference: None,
        };
        assert_eq!(
            serde_json::to_string(&welcome).unwrap(),
            r#"{"type":"welcome","player_id":"p","name":"Ann","token":"t","protocol":1}"#
        );
        let error = ServerMsg::error(
            ClientError::new(ErrorCode::IllegalMove, "no"),
            Some(Value::from("x")),
        );
        assert_eq!(
            serde_json::to_string(&error).unwrap(),
            r#"{"type":"error","code":"illegal_move","message":"no","ref":"x"}"#
        );
    }
}
