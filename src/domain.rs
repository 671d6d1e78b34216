//! The server's domain values shared by room, store and wire: what holds a seat, and
//! what is said in a room's chats.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use parlor_room::PlayerId;
use parlor_rules::bots::BotLevel;

/// What holds a seat, as shown on the wire: `open`, `human` or `bot:<level>` (a bot
/// standing in for an absent person shows as the bot). Its name is made of its parts'
/// (the bot level's), so it is written here rather than derived; serde goes through it
/// as for every other named value.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde_with::SerializeDisplay, serde_with::DeserializeFromStr,
)]
pub enum SeatKind {
    /// Nobody yet.
    Open,
    /// A person.
    Human,
    /// A bot of this level.
    Bot(BotLevel),
}

impl fmt::Display for SeatKind {
    /// The wire name, written in this one place.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SeatKind::Open => f.write_str("open"),
            SeatKind::Human => f.write_str("human"),
            SeatKind::Bot(level) => write!(f, "bot:{level}"),
        }
    }
}

/// A seat kind that is not `open`, `human` or `bot:<level>`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("\"{0}\" is not a seat kind; kinds are open, human and bot:<level>")]
pub struct UnknownSeatKind(pub String);

impl FromStr for SeatKind {
    type Err = UnknownSeatKind;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "open" => Ok(SeatKind::Open),
            "human" => Ok(SeatKind::Human),
            _ => text
                .strip_prefix("bot:")
                .and_then(|level| level.parse().ok())
                .map(SeatKind::Bot)
                .ok_or_else(|| UnknownSeatKind(text.to_owned())),
        }
    }
}

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
    serde_with::SerializeDisplay,
    serde_with::DeserializeFromStr,
)]
#[strum(
    serialize_all = "snake_case",
    parse_err_ty = UnknownChatChannel,
    parse_err_fn = UnknownChatChannel::named
)]
pub enum ChatChannel {
    /// The two seated players.
    Players,
    /// Everyone watching.
    Spectators,
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_kinds_keep_their_wire_names() {
        let cases = [
            (SeatKind::Open, "\"open\""),
            (SeatKind::Human, "\"human\""),
            (SeatKind::Bot(BotLevel::Random), "\"bot:random\""),
            (SeatKind::Bot(BotLevel::Easy), "\"bot:easy\""),
            (SeatKind::Bot(BotLevel::Medium), "\"bot:medium\""),
            (SeatKind::Bot(BotLevel::Hard), "\"bot:hard\""),
        ];
        for (kind, wire) in cases {
            assert_eq!(serde_json::to_string(&kind).unwrap(), wire);
            assert_eq!(wire.trim_matches('"').parse::<SeatKind>(), Ok(kind));
        }
        assert!("bot:genius".parse::<SeatKind>().is_err());
    }
}
