//! Fields of a client message that are read into their values as the message is read,
//! but refused (when they do not read) only where PROTOCOL.md §10 checks them: a game
//! name after `hello_required` and the rate limits, a seat after `unknown_room`. So past
//! the parser every field is typed, and the documented order of errors still holds.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use parlor_room::{RoomOptions, SeatSpec, TimeControl};
use parlor_rules::GameKind;
use parlor_rules::games::Seat;

use super::{ClientError, ErrorCode};

/// A field's value, or the refusal to give when the message's checks reach it.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked<T>(Result<T, ClientError>);

impl<T> Checked<T> {
    /// The value, or why it was refused.
    pub fn get(self) -> Result<T, ClientError> {
        self.0
    }
}

impl<T: JsonSchema> JsonSchema for Checked<T> {
    fn inline_schema() -> bool {
        T::inline_schema()
    }

    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }

    fn schema_id() -> Cow<'static, str> {
        T::schema_id()
    }

    /// What a client must send for the field to be checked into a `T`: `T`'s own form.
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        T::json_schema(generator)
    }
}

impl<T> From<T> for Checked<T> {
    /// A value checked already (one the server makes itself).
    fn from(value: T) -> Self {
        Checked(Ok(value))
    }
}

impl<T: Default> Default for Checked<T> {
    /// A field left out: its default.
    fn default() -> Self {
        Checked(Ok(T::default()))
    }
}

/// A value a client sends as `Sent` (a field of the wrong JSON type is `bad_message`,
/// refused at once), checked into itself.
pub trait Field: Sized {
    /// What the client sends.
    type Sent: DeserializeOwned;

    /// The value `sent` stands for, or why it is refused.
    fn check(sent: Self::Sent) -> Result<Self, ClientError>;
}

impl<'de, T: Field> Deserialize<'de> for Checked<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::Sent::deserialize(deserializer).map(|sent| Checked(T::check(sent)))
    }
}

impl Field for GameKind {
    type Sent = String;

    /// A game this server plays, or `unknown_game` listing them.
    fn check(name: String) -> Result<GameKind, ClientError> {
        name.parse().map_err(|_| {
            ClientError::new(
                ErrorCode::UnknownGame,
                format!(
                    "There is no game \"{name}\". Available: {}.",
                    GameKind::names()
                ),
            )
        })
    }
}

impl Field for [SeatSpec; 2] {
    type Sent = Vec<String>;

    /// The two seats of `create_room`, or `bad_seat`.
    fn check(specs: Vec<String>) -> Result<[SeatSpec; 2], ClientError> {
        Ok(SeatSpec::parse_pair(&specs)?)
    }
}

impl Field for Seat {
    type Sent = u64;

    /// Seat 0 or 1, or `bad_seat`.
    fn check(index: u64) -> Result<Seat, ClientError> {
        Seat::from_index(index)
            .ok_or_else(|| ClientError::new(ErrorCode::BadSeat, "A seat is 0 or 1."))
    }
}

impl Field for RoomOptions {
    type Sent = Option<Map<String, Value>>;

    /// The room options, each checked, or `bad_option` for the first faulty one.
    fn check(sent: Option<Map<String, Value>>) -> Result<RoomOptions, ClientError> {
        Ok(RoomOptions::parse(sent)?)
    }
}

impl Field for TimeControl {
    type Sent = Option<Value>;

    /// A time control, checked as the room option `time_control` is; none when `null`.
    fn check(sent: Option<Value>) -> Result<TimeControl, ClientError> {
        let Some(sent) = sent else {
            return Ok(TimeControl::None);
        };
        let options = Map::from_iter([("time_control".to_owned(), sent)]);
        Ok(RoomOptions::parse(Some(options))?.time_control)
    }
}
