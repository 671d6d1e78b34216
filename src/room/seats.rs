//! Seat specs from `create_room` and who holds each of a room's seats.

use std::str::FromStr;

use tokio::time::Instant;

use super::{ConnId, PlayerInfo};
use crate::domain::SeatKind;
use crate::protocol::{ClientError, ErrorCode, PlayerRef, SeatView};
use parlor_room::PlayerId;
use parlor_rules::bots::BotLevel;
use parlor_rules::games::Seat;

/// A seat as asked for in `create_room`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SeatSpec {
    /// Left for anyone to join.
    Open,
    /// The creator sits here.
    Me,
    /// A bot of this level sits here.
    Bot(BotLevel),
}

impl FromStr for SeatSpec {
    type Err = ClientError;

    fn from_str(text: &str) -> Result<Self, ClientError> {
        match text {
            "open" => Ok(SeatSpec::Open),
            "me" => Ok(SeatSpec::Me),
            _ => match text.strip_prefix("bot:").map(BotLevel::from_str) {
                Some(Ok(level)) => Ok(SeatSpec::Bot(level)),
                _ => Err(ClientError::new(
                    ErrorCode::BadSeat,
                    format!(
                        "\"{text}\" is not a seat; use \"open\", \"me\" or \"bot:<level>\" with level random, easy, medium or hard."
                    ),
                )),
            },
        }
    }
}

impl SeatSpec {
    /// Reads the two seat specs of `create_room`; at most one may be `me`.
    pub(crate) fn parse_pair(specs: &[String]) -> Result<[SeatSpec; 2], ClientError> {
        let [first, second] = specs else {
            return Err(ClientError::new(
                ErrorCode::BadSeat,
                format!(
                    "\"seats\" must list exactly two seats, not {}.",
                    specs.len()
                ),
            ));
        };
        let pair = [first.parse()?, second.parse()?];
        if pair == [SeatSpec::Me, SeatSpec::Me] {
            return Err(ClientError::new(
                ErrorCode::BadSeat,
                "You can take only one seat; make the other \"open\" or a bot.",
            ));
        }
        Ok(pair)
    }
}

/// Who holds a seat.
#[derive(Debug)]
pub(super) enum SeatState {
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
    pub(super) fn is_open(&self) -> bool {
        matches!(self, SeatState::Open)
    }

    /// The person the seat belongs to, even while a bot stands in for them.
    pub(super) fn player_id(&self) -> Option<&PlayerId> {
        match self {
            SeatState::Human { player, .. } | SeatState::StandIn { player, .. } => {
                Some(&player.player_id)
            }
            SeatState::Open | SeatState::Bot(_) => None,
        }
    }

    /// The connection of the seat's person, if connected.
    pub(super) fn conn(&self) -> Option<ConnId> {
        match self {
            SeatState::Human { conn, .. } | SeatState::StandIn { conn, .. } => *conn,
            SeatState::Open | SeatState::Bot(_) => None,
        }
    }

    /// The level of the bot that plays this seat's moves, if a bot does.
    pub(super) fn bot_level(&self) -> Option<BotLevel> {
        match self {
            SeatState::Bot(level) | SeatState::StandIn { level, .. } => Some(*level),
            SeatState::Open | SeatState::Human { .. } => None,
        }
    }

    /// The name shown for the seat: the person's, or the bot's; `None` while open.
    pub(super) fn name(&self) -> Option<String> {
        match self {
            SeatState::Open => None,
            SeatState::Human { player, .. } => Some(player.name.clone()),
            SeatState::Bot(level) | SeatState::StandIn { level, .. } => {
                Some(format!("Bot ({level})"))
            }
        }
    }

    /// Open, human or a bot (also for a bot standing in for a person).
    pub(super) fn kind(&self) -> SeatKind {
        match self {
            SeatState::Open => SeatKind::Open,
            SeatState::Human { .. } => SeatKind::Human,
            SeatState::Bot(level) | SeatState::StandIn { level, .. } => SeatKind::Bot(*level),
        }
    }

    /// The seat as shown in `state` and listings, as seat number `seat`, without rating.
    pub(super) fn view(&self, seat: Seat) -> SeatView {
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
            stand_in_for,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(a: &str, b: &str) -> Result<[SeatSpec; 2], ErrorCode> {
        SeatSpec::parse_pair(&[a.to_owned(), b.to_owned()]).map_err(|e| e.code)
    }

    #[test]
    fn seat_specs_parse() {
        assert_eq!(
            pair("me", "bot:hard"),
            Ok([SeatSpec::Me, SeatSpec::Bot(BotLevel::Hard)])
        );
        assert_eq!(pair("open", "open"), Ok([SeatSpec::Open, SeatSpec::Open]));
        assert_eq!(pair("me", "me"), Err(ErrorCode::BadSeat));
        assert_eq!(pair("bot:genius", "open"), Err(ErrorCode::BadSeat));
        assert_eq!(pair("bot", "open"), Err(ErrorCode::BadSeat));
        assert_eq!(
            SeatSpec::parse_pair(&["open".to_owned()]).map_err(|e| e.code),
            Err(ErrorCode::BadSeat)
        );
    }
}
