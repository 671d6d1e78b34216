//! Glicko-2 ratings, per game and per rated player (each human, and each bot level as a
//! player of its own). The maths is the skillratings crate's; this module only maps our
//! results onto it.

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

/// The key a seat is rated under in a game: the human's player id, or the seat's kind
/// (`bot:<level>`: each bot level is a rated player of its own).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RatedKey(String);

impl RatedKey {
    /// The key of a seat of `kind`, held by `player` if a person holds it.
    pub fn of(kind: SeatKind, player: Option<&PlayerId>) -> RatedKey {
        RatedKey(player.map_or_else(|| kind.to_string(), |player| player.to_string()))
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
