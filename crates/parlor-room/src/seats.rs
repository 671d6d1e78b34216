//! Seats: what holds one on the wire (`SeatKind`), a seat as `create_room` asks for it
//! (`SeatSpec`), the person in it (`PlayerInfo`), and who holds each seat of a room as
//! the machine keeps it (`SeatState`).

use std::fmt;
use std::str::FromStr;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::views::{PlayerRef, SeatView};
use crate::{ConnId, PlayerId};
use parlor_rules::bots::BotLevel;
use parlor_rules::games::Seat;

/// A human player as a room knows them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerInfo {
    /// The player's public id.
    pub player_id: PlayerId,
    /// The player's name.
    pub name: String,
    /// Whether the player is a bot account: an engine playing through the Bot API.
    #[serde(default)]
    pub bot_account: bool,
}

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

/// A seat as asked for in `create_room`: `open`, `me` or `bot:<level>`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde_with::SerializeDisplay, serde_with::DeserializeFromStr,
)]
pub enum SeatSpec {
    /// Left for anyone to join.
    Open,
    /// The creator sits here.
    Me,
    /// A bot of this level sits here.
    Bot(BotLevel),
}

/// Why the seats asked for in `create_room` are refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SeatSpecError {
    /// A seat that is not `open`, `me` or `bot:<level>`.
    #[error("\"{0}\" is not a seat")]
    NotASeat(String),
    /// Not exactly two seats.
    #[error("{0} seats asked for, not two")]
    NotTwo(usize),
    /// Both seats are `me`.
    #[error("both seats are \"me\"")]
    BothMe,
}

impl fmt::Display for SeatSpec {
    /// The seat's name in `create_room`, written in this one place.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SeatSpec::Open => f.write_str("open"),
            SeatSpec::Me => f.write_str("me"),
            SeatSpec::Bot(level) => write!(f, "bot:{level}"),
        }
    }
}

impl FromStr for SeatSpec {
    type Err = SeatSpecError;

    fn from_str(text: &str) -> Result<Self, SeatSpecError> {
        match text {
            "open" => Ok(SeatSpec::Open),
            "me" => Ok(SeatSpec::Me),
            _ => match text.strip_prefix("bot:").map(BotLevel::from_str) {
                Some(Ok(level)) => Ok(SeatSpec::Bot(level)),
                _ => Err(SeatSpecError::NotASeat(text.to_owned())),
            },
        }
    }
}

impl SeatSpec {
    /// Reads the two seat specs of `create_room`; at most one may be `me`.
    pub fn parse_pair(specs: &[String]) -> Result<[SeatSpec; 2], SeatSpecError> {
        let [first, second] = specs else {
            return Err(SeatSpecError::NotTwo(specs.len()));
        };
        let pair = [first.parse()?, second.parse()?];
        if pair == [SeatSpec::Me, SeatSpec::Me] {
            return Err(SeatSpecError::BothMe);
        }
        Ok(pair)
    }

    /// The seat of a pair that says `me`, if one does.
    pub fn mine(pair: &[SeatSpec; 2]) -> Option<Seat> {
        Seat::BOTH
            .into_iter()
            .find(|seat| pair[seat.index()] == SeatSpec::Me)
    }
}

/// Who holds a seat.
#[derive(Debug)]
pub(crate) enum SeatState {
    /// Nobody yet.
    Open,
    /// A person, connected through `conn` or away since `away_since`.
    Human {
        player: PlayerInfo,
        conn: Option<ConnId>,
        away_since: Option<Instant>,
    },
    /// A bot.
    Bot(BotLevel),
    /// A bot playing for a person who stayed away past the reconnect grace. If they have
    /// come back (`conn`), the seat is theirs again once the bot's current move is made.
    StandIn {
        player: PlayerInfo,
        level: BotLevel,
        conn: Option<ConnId>,
    },
}

impl SeatState {
    /// Whether nobody holds the seat.
    pub(crate) fn is_open(&self) -> bool {
        matches!(self, SeatState::Open)
    }

    /// The person the seat belongs to, even while a bot stands in for them.
    pub(crate) fn player_id(&self) -> Option<&PlayerId> {
        match self {
            SeatState::Human { player, .. } | SeatState::StandIn { player, .. } => {
                Some(&player.player_id)
            }
            SeatState::Open | SeatState::Bot(_) => None,
        }
    }

    /// The connection of the seat's person, if connected.
    pub(crate) fn conn(&self) -> Option<ConnId> {
        match self {
            SeatState::Human { conn, .. } | SeatState::StandIn { conn, .. } => *conn,
            SeatState::Open | SeatState::Bot(_) => None,
        }
    }

    /// The level of the bot that plays this seat's moves, if a bot does.
    pub(crate) fn bot_level(&self) -> Option<BotLevel> {
        match self {
            SeatState::Bot(level) | SeatState::StandIn { level, .. } => Some(*level),
            SeatState::Open | SeatState::Human { .. } => None,
        }
    }

    /// The name shown for the seat: the person's, or the bot's; `None` while open.
    pub(crate) fn name(&self) -> Option<String> {
        match self {
            SeatState::Open => None,
            SeatState::Human { player, .. } => Some(player.name.clone()),
            SeatState::Bot(level) | SeatState::StandIn { level, .. } => {
                Some(format!("Bot ({level})"))
            }
        }
    }

    /// Open, human or a bot (also for a bot standing in for a person).
    pub(crate) fn kind(&self) -> SeatKind {
        match self {
            SeatState::Open => SeatKind::Open,
            SeatState::Human { .. } => SeatKind::Human,
            SeatState::Bot(level) | SeatState::StandIn { level, .. } => SeatKind::Bot(*level),
        }
    }

    /// The seat as shown in `state` and listings, as seat number `seat`, without rating.
    pub(crate) fn view(&self, seat: Seat) -> SeatView {
        let (player_id, stand_in_for) = match self {
            SeatState::StandIn { player, .. } => (
                None,
                Some(PlayerRef {
                    player_id: player.player_id.clone(),
                    name: player.name.clone(),
                }),
            ),
            _ => (self.player_id().cloned(), None),
        };
        SeatView {
            seat,
            kind: self.kind(),
            name: self.name(),
            player_id,
            connected: match self {
                SeatState::Open => false,
                SeatState::Human { conn, .. } => conn.is_some(),
                SeatState::Bot(_) | SeatState::StandIn { .. } => true,
            },
            rating: None,
            bot_account: match self {
                SeatState::Human { player, .. } => player.bot_account,
                SeatState::Open | SeatState::Bot(_) | SeatState::StandIn { .. } => false,
            },
            stand_in_for,
            grace_left_ms: None,
            claim_left_ms: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(a: &str, b: &str) -> Result<[SeatSpec; 2], SeatSpecError> {
        SeatSpec::parse_pair(&[a.to_owned(), b.to_owned()])
    }

    #[test]
    fn seat_specs_parse() {
        assert_eq!(
            pair("me", "bot:hard"),
            Ok([SeatSpec::Me, SeatSpec::Bot(BotLevel::Hard)])
        );
        assert_eq!(pair("open", "open"), Ok([SeatSpec::Open, SeatSpec::Open]));
        assert_eq!(pair("me", "me"), Err(SeatSpecError::BothMe));
        assert_eq!(
            pair("bot:genius", "open"),
            Err(SeatSpecError::NotASeat("bot:genius".to_owned()))
        );
        assert_eq!(
            pair("bot", "open"),
            Err(SeatSpecError::NotASeat("bot".to_owned()))
        );
        assert_eq!(
            SeatSpec::parse_pair(&["open".to_owned()]),
            Err(SeatSpecError::NotTwo(1))
        );
    }

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

    #[test]
    fn seat_specs_read_back_as_written() {
        for spec in [SeatSpec::Open, SeatSpec::Me, SeatSpec::Bot(BotLevel::Hard)] {
            assert_eq!(spec.to_string().parse::<SeatSpec>(), Ok(spec));
        }
        assert_eq!(
            SeatSpec::mine(&[SeatSpec::Open, SeatSpec::Me]),
            Some(Seat::Second)
        );
        assert_eq!(SeatSpec::mine(&[SeatSpec::Open, SeatSpec::Open]), None);
    }
}
