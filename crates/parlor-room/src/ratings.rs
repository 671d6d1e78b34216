//! Glicko-2 ratings, per game and per person: only games between two people are rated
//! (a game against the house bots would let anyone farm points off a bot that never
//! learns, so bots have no rating at all). The maths is the skillratings crate's; this
//! module only maps our results onto it, and says when a rating is still provisional.

use serde::Serialize;
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2};

use crate::PlayerId;
use parlor_rules::games::Seat;

use crate::SeatKind;

/// A player's Glicko-2 rating in one game.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rating {
    /// The rating (1500 for a newcomer).
    pub rating: f64,
    /// How uncertain it is (350 for a newcomer, shrinking with games played).
    pub deviation: f64,
    /// How erratic the player's results are (0.06 to start).
    pub volatility: f64,
}

/// Above this deviation a rating is provisional: too few rated games yet to trust it
/// (Lichess's threshold). A newcomer starts at 350; a few games bring it below.
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// Whether a rating of this deviation is provisional (see [`PROVISIONAL_DEVIATION`]).
pub fn is_provisional(deviation: f64) -> bool {
    deviation > PROVISIONAL_DEVIATION
}

impl Default for Rating {
    fn default() -> Self {
        let fresh = Glicko2Rating::new();
        Rating {
            rating: fresh.rating,
            deviation: fresh.deviation,
            volatility: fresh.volatility,
        }
    }
}

impl From<Rating> for Glicko2Rating {
    fn from(rating: Rating) -> Glicko2Rating {
        Glicko2Rating {
            rating: rating.rating,
            deviation: rating.deviation,
            volatility: rating.volatility,
        }
    }
}

impl From<Glicko2Rating> for Rating {
    fn from(rating: Glicko2Rating) -> Rating {
        Rating {
            rating: rating.rating,
            deviation: rating.deviation,
            volatility: rating.volatility,
        }
    }
}

/// The key a seat is rated under in a game: its person's player id.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RatedKey(String);

impl RatedKey {
    /// The key of a seat of `kind` held by `player`: `None` unless a person holds it
    /// (an open seat, a bot, a bot standing in for a person).
    pub fn of(kind: SeatKind, player: Option<&PlayerId>) -> Option<RatedKey> {
        match (kind, player) {
            (SeatKind::Human, Some(player)) => Some(RatedKey(player.to_string())),
            _ => None,
        }
    }

    /// The key as the store keeps it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Both seats' new ratings after a game between them that `winner` won (`None`: a draw).
pub fn rate(ratings: [Rating; 2], winner: Option<Seat>) -> [Rating; 2] {
    let outcome = match winner {
        Some(Seat::First) => Outcomes::WIN,
        Some(Seat::Second) => Outcomes::LOSS,
        None => Outcomes::DRAW,
    };
    let (first, second) = glicko2(
        &ratings[0].into(),
        &ratings[1].into(),
        &outcome,
        &Glicko2Config::new(),
    );
    [first.into(), second.into()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_winner_gains_and_the_loser_drops() {
        let [winner, loser] = rate([Rating::default(), Rating::default()], Some(Seat::First));
        assert!(winner.rating > 1500.0 && loser.rating < 1500.0);
        assert!(
            winner.deviation < 350.0,
            "a game played makes the rating surer"
        );
        let [loser, winner] = rate([Rating::default(), Rating::default()], Some(Seat::Second));
        assert!(winner.rating > loser.rating);
    }

    #[test]
    fn only_a_person_has_a_key_and_a_newcomer_is_provisional() {
        let alice = PlayerId::from("p_alice");
        assert_eq!(
            RatedKey::of(SeatKind::Human, Some(&alice)).map(|key| key.as_str().to_owned()),
            Some("p_alice".to_owned())
        );
        let easy = SeatKind::Bot(parlor_rules::bots::BotLevel::Easy);
        assert_eq!(RatedKey::of(easy, None), None);
        assert_eq!(RatedKey::of(SeatKind::Open, None), None);

        assert!(is_provisional(Rating::default().deviation));
        assert!(is_provisional(110.1) && !is_provisional(110.0));
        let mut rating = Rating::default();
        let settled = (1..=200).find(|_| {
            [rating, _] = rate([rating, Rating::default()], None);
            !is_provisional(rating.deviation)
        });
        assert!(
            settled.is_some_and(|games| games > 1),
            "one game is not enough to trust a rating, and some number must be: {settled:?}"
        );
    }

    #[test]
    fn a_draw_between_equals_changes_no_rating() {
        let [first, second] = rate([Rating::default(), Rating::default()], None);
        assert!((first.rating - 1500.0).abs() < 1e-6);
        assert!((second.rating - 1500.0).abs() < 1e-6);
    }

    #[test]
    fn beating_a_stronger_player_gains_more() {
        let strong = Rating {
            rating: 1800.0,
            ..Rating::default()
        };
        let [upset, _] = rate([Rating::default(), strong], Some(Seat::First));
        let [expected, _] = rate([Rating::default(), Rating::default()], Some(Seat::First));
        assert!(upset.rating > expected.rating);
    }
}
