//! What clients send: every client message, and the order in which a frame is checked
//! before it becomes one (`bad_json`, `bad_message`, `unknown_type`, then its fields).

use serde::Deserialize;
use serde_json::Value;

use super::checked::Checked;
use super::{ClientError, ErrorCode};
use parlor_room::{RoomId, RoomOptions, SeatSpec, TimeControl};
use parlor_rules::GameKind;
use parlor_rules::bots::BotLevel;
use parlor_rules::games::Seat;

/// How a connection hears of a move (`hello.updates`).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
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
    parse_err_ty = UnknownUpdates,
    parse_err_fn = UnknownUpdates::named
)]
pub enum Updates {
    /// A full `state` after every change, moves included.
    #[default]
    States,
    /// A move that leaves the game on comes as a `moved` event, carrying only what the
    /// move changed; every other change as a full `state`.
    Moves,
}

parlor_rules::serialize_by_name!(Updates);

/// A name that is no way of hearing of moves.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("\"{0}\" is not a way to hear of moves; use states or moves")]
pub struct UnknownUpdates(pub String);

impl UnknownUpdates {
    /// The error for the name `name`.
    fn named(name: &str) -> UnknownUpdates {
        UnknownUpdates(name.to_owned())
    }
}

/// A message from a client, after its `type` was recognised and its fields checked.
#[derive(Clone, Debug, PartialEq, Deserialize, strum::VariantNames, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ClientMsg {
    /// Identify: must be the first message.
    Hello {
        /// The display name wanted (PROTOCOL.md §5.2). Optional with `jwt`: the site's
        /// token names the player.
        #[serde(default)]
        name: Option<String>,
        /// The token of an earlier `welcome`, to resume that player; with `jwt`, the
        /// guest to link to the site's account (§5.4).
        #[serde(default)]
        token: Option<String>,
        /// A token the hosting site signed, to sign in as the site's user (§5.4).
        #[serde(default)]
        jwt: Option<String>,
        /// How this connection hears of moves, in every room it joins or watches:
        /// `states` (the default) or `moves`.
        #[serde(default)]
        updates: Option<Updates>,
    },
    /// Create a room.
    CreateRoom {
        /// The game id: `tictactoe`, `checkers`, `chess` or `fox_geese` (§12). Exact,
        /// lowercase.
        game: Checked<GameKind>,
        /// Seat specs for seat 0 and seat 1: `open`, `me` or `bot:<level>`.
        seats: Checked<[SeatSpec; 2]>,
        /// Room options (§3): `start`, a position to start from; `takeover`, what
        /// happens to an absent player's seat; `time_control`, a clock; `private`, left
        /// out of every listing. An absent, `null` or empty object is accepted.
        #[serde(default)]
        #[schemars(with = "Option<RoomOptions>")]
        options: Checked<RoomOptions>,
    },
    /// Take (or take back) a seat.
    Join {
        /// The room's id.
        room: RoomId,
        /// `0` or `1`.
        seat: Checked<Seat>,
        /// The last `seq` this client saw of the room, when it comes back after a cut:
        /// it then gets the messages it missed instead of a snapshot (§8.1).
        #[serde(default)]
        since: Option<u64>,
    },
    /// Spectate a room.
    Watch {
        /// The room's id.
        room: RoomId,
        /// As in `join` (§8.1).
        #[serde(default)]
        since: Option<u64>,
    },
    /// Play a move.
    Move {
        /// The room's id.
        room: RoomId,
        /// The move in the game's notation (§12): `"4"` in tic-tac-toe, `"11-15"` or
        /// `"22x15x6"` in checkers, `"e2e4"` or `"e4"` in chess, `"22-15"` or `"17x15"`
        /// in Fox & Geese.
        #[serde(rename = "move")]
        text: String,
        /// How many moves the game had when you chose this one: the `moves` of the
        /// `state` you answer. If the game has another number when the move arrives
        /// (another of your connections moved meanwhile, say), it is refused with
        /// `stale_move` instead of being played in a position you did not see.
        #[serde(default)]
        after: Option<u32>,
    },
    /// Resign the game in progress.
    Resign {
        /// The room's id.
        room: RoomId,
    },
    /// Leave a room (resigning, by `abandoned`, if playing; aborting the game if no move
    /// has been played).
    Leave {
        /// The room's id.
        room: RoomId,
    },
    /// List the rooms.
    ListRooms {},
    /// Offer the opponent a draw.
    OfferDraw {
        /// The room's id.
        room: RoomId,
    },
    /// Accept the opponent's draw offer.
    AcceptDraw {
        /// The room's id.
        room: RoomId,
    },
    /// Decline the opponent's draw offer.
    DeclineDraw {
        /// The room's id.
        room: RoomId,
    },
    /// Ask for another game in the same room, seats swapped, once this one is over.
    Rematch {
        /// The room's id.
        room: RoomId,
    },
    /// Receive a `lobby` snapshot of the listed rooms, then a `lobby_update` whenever
    /// one is added, changes or is removed.
    SubscribeLobby {
        /// Only rooms of this game (§12). Every game when absent or `null`.
        #[serde(default)]
        game: Option<Checked<GameKind>>,
    },
    /// Stop receiving `lobby_update`s.
    UnsubscribeLobby {},
    /// Take the open seat of the oldest waiting public room of this game and time
    /// control whose other seat holds a connected person, or create one and sit in it.
    QuickJoin {
        /// The game id (§12).
        game: Checked<GameKind>,
        /// A time control, as in `options.time_control` (§6.2.3). No clock when absent.
        #[serde(default)]
        #[schemars(with = "Option<TimeControl>")]
        time_control: Checked<TimeControl>,
    },
    /// Say something in the room's chat: the players' chat from a seat, the
    /// spectators' chat when watching.
    Chat {
        /// The room's id.
        room: RoomId,
        /// The line: 1 to `rooms.chat_max_chars` (140) characters once trimmed, one line,
        /// no control characters and no direction overrides; emoji, with their joiners,
        /// are fine.
        text: String,
    },
    /// Ask for a `pong`: a heartbeat for clients that cannot see WebSocket pings (a
    /// browser's script), so they notice a connection that died without closing.
    Ping {},
    /// Give the open seat of a waiting room to a bot now, rather than wait for a
    /// person; the bot's arrival starts the game.
    FillWithBot {
        /// The room's id.
        room: RoomId,
        /// The bot's level: `random`, `easy`, `medium` or `hard`; the server's
        /// `bots.fill_level` when absent or `null`.
        #[serde(default)]
        level: Option<BotLevel>,
    },
    /// Win the game in progress by `abandoned`: the opponent's connection has been gone
    /// for `rooms.claim_after_secs` (their seat's `claim_left_ms` is `0`).
    ClaimVictory {
        /// The room's id.
        room: RoomId,
    },
    /// Draw the game in progress (`draw_claimed`): the opponent's connection has been
    /// gone for `rooms.claim_after_secs`.
    ClaimDraw {
        /// The room's id.
        room: RoomId,
    },
    /// Challenge a bot account to a game (§6.20). The bot answers by itself, through the
    /// Bot API: this connection is then told `challenge_accepted` (join the room and
    /// seat it names) or `challenge_declined`.
    Challenge {
        /// The bot account's name.
        name: String,
        /// The game.
        game: Checked<GameKind>,
        /// The clock, in the form of `options.time_control` (§6.2.3); none by default.
        #[serde(default)]
        #[schemars(with = "Option<TimeControl>")]
        time_control: Checked<TimeControl>,
        /// The seat the challenger plays, 0 or 1; drawn at random when left out.
        #[serde(default)]
        #[schemars(with = "Option<Seat>")]
        seat: Option<Checked<Seat>>,
        /// Whether the game is rated (§13.4); not by default.
        #[serde(default)]
        rated: bool,
    },
    /// Take back a challenge this player made that has not been answered (§6.21).
    CancelChallenge {
        /// The challenge's id, as `challenge_sent` gave it.
        challenge: RoomId,
    },
}

impl ClientMsg {
    /// Whether its answer (`room_created`) must come before the room's first frames for
    /// the connection (its `joined`): `create_room` and `quick_join`.
    pub fn opens_a_room(&self) -> bool {
        matches!(
            self,
            ClientMsg::CreateRoom { .. } | ClientMsg::QuickJoin { .. }
        )
    }

    /// Whether the server answers this only once the connection's earlier requests
    /// are answered: it says who the connection speaks for, or opens a room (PROTOCOL.md
    /// §2.5). Other messages are answered while requests for other rooms wait.
    pub fn waits_for_earlier_requests(&self) -> bool {
        matches!(self, ClientMsg::Hello { .. }) || self.opens_a_room()
    }
}

/// Every `type` a client may send, for telling `unknown_type` from `bad_message`: the
/// variants of [`ClientMsg`] by their wire names (a test checks serde reads each one).
pub(super) const CLIENT_TYPES: &[&str] = <ClientMsg as strum::VariantNames>::VARIANTS;

/// A parsed client message with the `ref` it carried, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct Envelope {
    /// The message.
    pub msg: ClientMsg,
    /// The client's `ref`, echoed in direct replies and errors.
    pub reference: Option<Value>,
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

/// Whether `value` holds, anywhere, a whole number beyond 64 bits: JSON parsing keeps
/// such a number only as a float, so it could not be echoed as it was sent.
fn holds_an_integer_too_large(value: &Value) -> bool {
    match value {
        Value::Number(number) => {
            number.is_f64()
                && number
                    .as_f64()
                    .is_some_and(|f| f.fract() == 0.0 && f.abs() >= 9_223_372_036_854_775_808.0)
        }
        Value::Array(items) => items.iter().any(holds_an_integer_too_large),
        Value::Object(fields) => fields.values().any(holds_an_integer_too_large),
        Value::Null | Value::Bool(_) | Value::String(_) => false,
    }
}

/// A message's `ref` alone, read from its text beside the message itself.
#[derive(Deserialize)]
struct RefOnly {
    /// `Some(Value::Null)` for `"ref": null`, which is echoed as sent.
    #[serde(rename = "ref", default, deserialize_with = "present")]
    reference: Option<Value>,
}

/// The `ref` of a frame already read as a message. The second pass that reads it is
/// skipped for a frame that cannot hold one: a key reads `ref` only if the text has
/// those letters, or an escape (a backslash) that could spell them; most frames (a
/// move from a client that sends no `ref`) have neither.
fn read_ref(text: &str) -> Result<Option<Value>, serde_json::Error> {
    let bytes = text.as_bytes();
    let could_hold_one = bytes.contains(&b'\\') || bytes.windows(3).any(|three| three == b"ref");
    if !could_hold_one {
        return Ok(None);
    }
    serde_json::from_str::<RefOnly>(text).map(|RefOnly { reference }| reference)
}

/// A field that is there, whatever it holds (`null` too).
fn present<'de, D: serde::Deserializer<'de>>(field: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(field).map(Some)
}

/// Reads one text frame: `bad_json` → `unknown_type` → `bad_message`, in that order.
/// Unknown fields are ignored.
pub fn parse(text: &str) -> Result<Envelope, Rejected> {
    // A well-formed message is read straight into its type, and its `ref` in a second
    // pass that skips the rest; anything else is read again step by step below, to say
    // exactly what is wrong with it.
    if let Ok(msg) = serde_json::from_str::<ClientMsg>(text)
        && let Ok(reference) = read_ref(text)
        && !reference.as_ref().is_some_and(holds_an_integer_too_large)
    {
        return Ok(Envelope { msg, reference });
    }
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
    if reference.as_ref().is_some_and(holds_an_integer_too_large) {
        return Err(Rejected {
            error: ClientError::new(
                ErrorCode::BadMessage,
                "\"ref\" holds an integer too large to be echoed exactly (beyond 64 bits); send it as a string.",
            ),
            reference: None,
        });
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
