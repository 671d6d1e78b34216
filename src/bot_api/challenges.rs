//! Challenges between players (Lichess's): one player asks another for a game of a kind,
//! clock and colour; the other accepts (the game's room opens under the challenge's id,
//! with a seat held for each), declines (saying why) or the challenger cancels. Kept
//! while they wait for their answer: on the node alone, or, in a fleet, in Redis, so
//! that a challenge made on one node is seen and answered on any.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::game_view::{speed, variant};
use parlor_room::{PlayerId, PlayerInfo, RoomId, TimeControl};
use parlor_rules::GameKind;
use parlor_rules::games::Seat;

/// The colour a challenger asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Colour {
    /// Seat 0.
    White,
    /// Seat 1.
    Black,
    /// Drawn at random when the challenge is made.
    Random,
}

impl Colour {
    /// The colour named `name` (`white`, `black` or `random`).
    pub(crate) fn named(name: &str) -> Option<Colour> {
        match name {
            "white" => Some(Colour::White),
            "black" => Some(Colour::Black),
            "random" => Some(Colour::Random),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Colour::White => "white",
            Colour::Black => "black",
            Colour::Random => "random",
        }
    }
}

/// Where a challenge stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum ChallengeStatus {
    /// Waiting for the challenged player's answer.
    Created,
    /// Accepted: its game's room is open under its id.
    Accepted,
    /// Declined, with the reason's key (Lichess's: `generic`, `later`, `variant`, …).
    Declined(String),
    /// Taken back by the challenger.
    Canceled,
}

/// A player in a challenge.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Party {
    /// Who.
    pub(crate) player: PlayerInfo,
    /// Their rating in the challenge's game, if they have one.
    pub(crate) rating: Option<i64>,
}

/// A challenge.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Challenge {
    /// Its id, which its game's room takes.
    pub(crate) id: RoomId,
    /// Who asked.
    pub(crate) challenger: Party,
    /// Who was asked.
    pub(crate) dest: Party,
    /// The game.
    pub(crate) game: GameKind,
    /// The clock.
    pub(crate) time_control: TimeControl,
    /// Whether the game is to be rated.
    pub(crate) rated: bool,
    /// The colour the challenger asked for.
    pub(crate) colour: Colour,
    /// The challenger's seat (the colour, drawn when random).
    pub(crate) challenger_seat: Seat,
    /// Where it stands.
    pub(crate) status: ChallengeStatus,
}

impl Challenge {
    /// The seat of `player` in the challenge's game, if they are one of its two.
    pub(crate) fn seat_of(&self, player: &PlayerId) -> Option<Seat> {
        if self.challenger.player.player_id == *player {
            Some(self.challenger_seat)
        } else if self.dest.player.player_id == *player {
            Some(self.challenger_seat.other())
        } else {
            None
        }
    }

    /// The player of `seat`.
    pub(crate) fn party(&self, seat: Seat) -> &Party {
        if seat == self.challenger_seat {
            &self.challenger
        } else {
            &self.dest
        }
    }

    /// The challenge as Lichess shows one, for a server at `base_url`.
    pub(crate) fn view(&self, base_url: &str) -> Value {
        let status = match &self.status {
            ChallengeStatus::Created => "created",
            ChallengeStatus::Accepted => "accepted",
            ChallengeStatus::Declined(_) => "declined",
            ChallengeStatus::Canceled => "canceled",
        };
        let time_control = match self.time_control {
            TimeControl::None => json!({"type": "unlimited"}),
            TimeControl::PerMove { per_move_ms } => json!({
                "type": "clock", "limit": per_move_ms / 1000, "increment": 0,
                "show": format!("{}+0", per_move_ms / 1000),
            }),
            TimeControl::Fischer {
                base_ms,
                increment_ms,
            } => json!({
                "type": "clock", "limit": base_ms / 1000, "increment": increment_ms / 1000,
                "show": format!("{}+{}", base_ms / 60_000, increment_ms / 1000),
            }),
        };
        let speed = speed(self.time_control);
        let mut view = json!({
            "id": self.id,
            "url": format!("{base_url}/{}", self.id),
            "status": status,
            "challenger": user(&self.challenger),
            "destUser": user(&self.dest),
            "variant": variant(self.game),
            "rated": self.rated,
            "speed": speed,
            "timeControl": time_control,
            "color": self.colour.name(),
            "finalColor": colour_name(self.challenger_seat),
            "perf": {"name": perf_title(speed)},
            "initialFen": "startpos",
        });
        if let ChallengeStatus::Declined(key) = &self.status {
            view["declineReasonKey"] = json!(key);
            view["declineReason"] = json!(decline_sentence(key));
        }
        view
    }
}

/// A player as a challenge names one.
fn user(party: &Party) -> Value {
    json!({
        "id": party.player.player_id,
        "name": party.player.name,
        "title": party.player.bot_account.then_some("BOT"),
        "rating": party.rating.unwrap_or(1500),
        "provisional": party.rating.is_none(),
        "online": true,
    })
}

fn colour_name(seat: Seat) -> &'static str {
    match seat {
        Seat::First => "white",
        Seat::Second => "black",
    }
}

fn perf_title(speed: &str) -> String {
    let mut title = speed.to_owned();
    if let Some(first) = title.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    title
}

/// The reasons a challenge may be declined for, by key, with Lichess's sentences.
const DECLINE_REASONS: [(&str, &str); 13] = [
    ("generic", "I'm not accepting challenges at the moment."),
    (
        "later",
        "This is not the right time for me, please ask again later.",
    ),
    (
        "tooFast",
        "This time control is too fast for me, please challenge again with a slower game.",
    ),
    (
        "tooSlow",
        "This time control is too slow for me, please challenge again with a faster game.",
    ),
    (
        "timeControl",
        "I'm not accepting challenges with this time control.",
    ),
    ("rated", "Please send me a rated challenge instead."),
    ("casual", "Please send me a casual challenge instead."),
    (
        "standard",
        "I'm not accepting variant challenges right now.",
    ),
    ("variant", "I'm not willing to play this variant right now."),
    ("noBot", "I'm not accepting challenges from bots."),
    ("onlyBot", "I'm only accepting challenges from bots."),
    ("tooMany", "I'm playing as many games as I can right now."),
    ("other", "I'm not accepting this challenge."),
];

/// The key of the reason named `key` (compared without case, as lichess-bot lowercases
/// it), if it is one.
pub(crate) fn decline_reason(key: &str) -> Option<&'static str> {
    DECLINE_REASONS
        .iter()
        .find(|(known, _)| known.eq_ignore_ascii_case(key))
        .map(|(known, _)| *known)
}

/// The sentence of the decline reason `key`.
pub(crate) fn decline_sentence(key: &str) -> &'static str {
    DECLINE_REASONS
        .iter()
        .find(|(known, _)| *known == key)
        .map_or(DECLINE_REASONS[0].1, |(_, sentence)| *sentence)
}

/// A challenge's view to send on an event stream, of type `kind`.
pub(crate) fn event(kind: &str, challenge: &Challenge, base_url: &str) -> String {
    let compat = json!({"bot": challenge.game == GameKind::Chess, "board": true});
    json!({"type": kind, "challenge": challenge.view(base_url), "compat": compat}).to_string()
}
