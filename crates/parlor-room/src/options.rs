//! What a room is created with: its options (`create_room`'s `options`, each checked as
//! it is read), the time control and the takeover they may name.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use parlor_rules::bots::BotLevel;

/// How much time each side has, chosen at `create_room` (`options.time_control`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum TimeControl {
    /// No clock.
    #[default]
    None,
    /// Each move must be made within `per_move_ms`; running out loses.
    PerMove {
        /// Time for each move, ms.
        #[cfg_attr(feature = "schema", schemars(range(min = 1, max = MAX_MS)))]
        per_move_ms: u64,
    },
    /// Chess-style clocks: `base_ms` each, plus `increment_ms` after every move made.
    Fischer {
        /// Each side's starting time, ms.
        #[cfg_attr(feature = "schema", schemars(range(min = 1, max = MAX_MS)))]
        base_ms: u64,
        /// Time added to a side's clock after each of its moves, ms.
        #[cfg_attr(feature = "schema", schemars(range(max = MAX_MS)))]
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

/// What happens to a seat whose player stays away past the reconnect grace: `none` (they
/// lose by `abandoned`) or a bot level (a bot plays for them until they come back). Its
/// name is made of the bot level's, so it is written here; serde goes through it.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde_with::SerializeDisplay, serde_with::DeserializeFromStr,
)]
pub enum Takeover {
    /// The absent player loses by `abandoned`.
    None,
    /// A bot of this level plays for them.
    Bot(BotLevel),
}

impl FromStr for Takeover {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "none" => Ok(Takeover::None),
            _ => text.parse().map(Takeover::Bot).map_err(|_| {
                format!("`{text}` is not a takeover; use none, random, easy, medium or hard")
            }),
        }
    }
}

impl fmt::Display for Takeover {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Takeover::None => f.write_str("none"),
            Takeover::Bot(level) => f.write_str(level.as_str()),
        }
    }
}

/// Room options given at `create_room`. Unknown keys are refused, so every option a
/// client sends is one the server honours. The options are kept as they were sent too,
/// to be stored with each game and shown as sent; across a fleet they travel so and are
/// read again by the same checks.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(into = "Map<String, Value>", try_from = "Map<String, Value>")]
pub struct RoomOptions {
    /// Start from this position (the game's standard text form) instead of the usual
    /// start; such games are never scored.
    pub start: Option<String>,
    /// What happens to an absent player's seat after the reconnect grace; `None` means
    /// the server's `rooms.takeover`.
    pub takeover: Option<Takeover>,
    /// The time control (none by default).
    pub time_control: TimeControl,
    /// Left out of every listing (`list_rooms`, the lobby, `GET /api/rooms`) and of
    /// `quick_join`; reachable only by its id.
    pub private: bool,
    /// Whether an open seat opposite a connected person is given a bot after
    /// `bots.fill_after_secs`; `None` means the room's default (see
    /// [`RoomOptions::fills_with_bot`]).
    pub bot_fill: Option<bool>,
    pub(crate) sent: Map<String, Value>,
}

/// Why the options of `create_room` are refused: the first faulty option in the
/// alphabetical order of their keys.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    /// `bot_fill` is not a boolean.
    #[error("option \"bot_fill\" is not true or false")]
    BotFillNotBool,
    /// `private` is not a boolean.
    #[error("option \"private\" is not true or false")]
    PrivateNotBool,
    /// `takeover` is not a string.
    #[error("option \"takeover\" is not a string")]
    TakeoverNotText,
    /// `takeover` names no takeover.
    #[error("option \"takeover\": {0}")]
    Takeover(String),
    /// `time_control` is not a time control.
    #[error("option \"time_control\" is not a time control ({0})")]
    TimeControlUnread(String),
    /// `time_control`'s times are out of range.
    #[error("option \"time_control\": {0}")]
    TimeControlRange(&'static str),
    /// `start` is not a string.
    #[error("option \"start\" is not a string")]
    StartNotText,
    /// No option has this name.
    #[error("there is no room option \"{0}\"")]
    Unknown(String),
}

impl RoomOptions {
    /// Every option name this server knows.
    pub const KNOWN: &[&str] = &["bot_fill", "private", "start", "takeover", "time_control"];

    /// Checks every option of `sent` (none when absent); an unknown or mistyped one is
    /// refused.
    pub fn parse(sent: Option<Map<String, Value>>) -> Result<Self, OptionError> {
        let sent = sent.unwrap_or_default();
        let mut options = RoomOptions::default();
        for (key, value) in &sent {
            match (key.as_str(), value) {
                ("start", Value::String(position)) => options.start = Some(position.clone()),
                ("start", _) => return Err(OptionError::StartNotText),
                ("bot_fill", Value::Bool(fill)) => options.bot_fill = Some(*fill),
                ("bot_fill", _) => return Err(OptionError::BotFillNotBool),
                ("private", Value::Bool(private)) => options.private = *private,
                ("private", _) => return Err(OptionError::PrivateNotBool),
                ("takeover", Value::String(text)) => {
                    options.takeover = Some(text.parse().map_err(OptionError::Takeover)?);
                }
                ("takeover", _) => return Err(OptionError::TakeoverNotText),
                ("time_control", value) => {
                    let control: TimeControl = serde_json::from_value(value.clone())
                        .map_err(|why| OptionError::TimeControlUnread(why.to_string()))?;
                    control.validate().map_err(OptionError::TimeControlRange)?;
                    options.time_control = control;
                }
                _ => return Err(OptionError::Unknown(key.clone())),
            }
        }
        options.sent = sent;
        Ok(options)
    }

    /// The options of a room with `time_control` and nothing else (as `quick_join` opens
    /// them), written as a client would send them.
    pub fn clocked(time_control: TimeControl) -> RoomOptions {
        let mut sent = Map::new();
        if time_control != TimeControl::None
            && let Ok(value) = serde_json::to_value(time_control)
        {
            sent.insert("time_control".to_owned(), value);
        }
        RoomOptions {
            time_control,
            sent,
            ..RoomOptions::default()
        }
    }

    /// Whether an open seat opposite a connected person is given a bot after a while:
    /// as `bot_fill` says, and otherwise in a public room but not in a private one,
    /// which waits for the person its link was sent to.
    pub fn fills_with_bot(&self) -> bool {
        self.bot_fill.unwrap_or(!self.private)
    }

    /// Whether games in this room count for scores: not when they start from a given
    /// position.
    pub fn scored(&self) -> bool {
        self.start.is_none()
    }

    /// The options as they were sent, as a JSON object: what is stored with each game.
    pub fn to_json(&self) -> String {
        Value::Object(self.sent.clone()).to_string()
    }
}

impl TryFrom<Map<String, Value>> for RoomOptions {
    type Error = OptionError;

    fn try_from(sent: Map<String, Value>) -> Result<Self, OptionError> {
        RoomOptions::parse(Some(sent))
    }
}

impl From<RoomOptions> for Map<String, Value> {
    fn from(options: RoomOptions) -> Map<String, Value> {
        options.sent
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn options(sent: Value) -> Result<RoomOptions, OptionError> {
        let Value::Object(sent) = sent else {
            panic!("options are an object");
        };
        RoomOptions::parse(Some(sent))
    }

    #[test]
    fn each_faulty_option_is_refused_by_name() {
        assert_eq!(
            options(json!({"private": 1})),
            Err(OptionError::PrivateNotBool)
        );
        assert_eq!(
            options(json!({"bot_fill": "yes"})),
            Err(OptionError::BotFillNotBool)
        );
        assert_eq!(options(json!({"start": 5})), Err(OptionError::StartNotText));
        assert_eq!(
            options(json!({"takeover": 5})),
            Err(OptionError::TakeoverNotText)
        );
        assert!(matches!(
            options(json!({"takeover": "genius"})),
            Err(OptionError::Takeover(_))
        ));
        assert!(matches!(
            options(json!({"time_control": {"kind": "hourglass"}})),
            Err(OptionError::TimeControlUnread(_))
        ));
        assert!(matches!(
            options(json!({"time_control": {"kind": "per_move", "per_move_ms": 0}})),
            Err(OptionError::TimeControlRange(_))
        ));
        assert_eq!(
            options(json!({"colour": "white"})),
            Err(OptionError::Unknown("colour".to_owned()))
        );
    }

    #[test]
    fn options_travel_as_sent_and_read_back_checked() {
        let read = options(json!({"private": true, "takeover": "none"})).expect("options");
        assert!(read.private);
        assert_eq!(read.takeover, Some(Takeover::None));
        let text = serde_json::to_string(&read).expect("encode");
        assert_eq!(text, read.to_json());
        let back: RoomOptions = serde_json::from_str(&text).expect("decode");
        assert_eq!(back, read);
        assert!(serde_json::from_str::<RoomOptions>(r#"{"colour":"white"}"#).is_err());
    }

    #[test]
    fn a_public_room_fills_with_a_bot_and_a_private_one_waits_unless_told() {
        let fills = |sent: Value| options(sent).expect("options").fills_with_bot();
        assert!(fills(json!({})));
        assert!(!fills(json!({"private": true})));
        assert!(fills(json!({"private": true, "bot_fill": true})));
        assert!(!fills(json!({"bot_fill": false})));
    }
}
