//! Win/draw/loss tallies and the 95% confidence interval of a score.
//!
//! A game scores 1 for a win, ½ for a draw and 0 for a loss. The interval shown is the
//! Wilson score interval applied to the mean score with `n` = games played, i.e. every
//! game is treated as a trial worth 0 or 1. Draws make the true per-game variance smaller
//! than that of a 0/1 trial with the same mean, so with draws the interval is somewhat
//! wider than it needs to be (conservative); unlike the normal approximation it never
//! collapses to a point when every game has the same result. The normal approximation
//! with the observed per-game variance is computed too, for the JSON output.

use std::collections::BTreeMap;

use parlor_rules::games::Seat;
use serde::Serialize;

/// The two-sided 95% quantile of the standard normal distribution.
pub(crate) const Z95: f64 = 1.959_963_984_540_054;

/// Games counted from the measured side's point of view: overall, by the seat it had,
/// and by how they ended.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Breakdown {
    /// Every game.
    pub(crate) all: Tally,
    /// The games in which the measured side had seat 0, and seat 1.
    pub(crate) by_seat: [Tally; 2],
    /// How many games ended for each reason.
    pub(crate) reasons: BTreeMap<String, usize>,
}

impl Breakdown {
    /// Counts one game: its score for the measured side, the seat it had, how it ended.
    pub(crate) fn add(&mut self, score: Score, seat: Seat, reason: &str) {
        self.all.add(score);
        self.by_seat[seat.index()].add(score);
        *self.reasons.entry(reason.to_owned()).or_default() += 1;
    }
}

/// Wins, draws and losses from one side's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Tally {
    /// Games won.
    pub(crate) wins: u32,
    /// Games drawn.
    pub(crate) draws: u32,
    /// Games lost.
    pub(crate) losses: u32,
}

impl Tally {
    /// Counts one game worth `score` (1, ½ or 0).
    pub(crate) fn add(&mut self, score: Score) {
        match score {
            Score::Win => self.wins += 1,
            Score::Draw => self.draws += 1,
            Score::Loss => self.losses += 1,
        }
    }

    /// Games counted.
    pub(crate) fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The mean score per game, or ½ before any game.
    pub(crate) fn score(&self) -> f64 {
        let games = self.games();
        if games == 0 {
            return 0.5;
        }
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(games)
    }

    /// The 95% Wilson score interval of the mean score (see the module docs).
    pub(crate) fn wilson95(&self) -> Interval {
        wilson(self.score(), self.games(), Z95)
    }

    /// The 95% normal-approximation interval: mean ± z·s/√n with `s` the sample standard
    /// deviation of the per-game scores, clipped to [0, 1].
    pub(crate) fn normal95(&self) -> Interval {
        let n = self.games();
        if n < 2 {
            return Interval {
                low: 0.0,
                high: 1.0,
            };
        }
        let mean = self.score();
        let nf = f64::from(n);
        let squares = f64::from(self.wins) * (1.0 - mean).powi(2)
            + f64::from(self.draws) * (0.5 - mean).powi(2)
            + f64::from(self.losses) * mean.powi(2);
        let deviation = (squares / (nf - 1.0)).sqrt();
        let half = Z95 * deviation / nf.sqrt();
        Interval {
            low: (mean - half).max(0.0),
            high: (mean + half).min(1.0),
        }
    }

    /// `W-D-L`, for tables.
    pub(crate) fn wdl(&self) -> String {
        format!("{}-{}-{}", self.wins, self.draws, self.losses)
    }
}

/// One game's result for one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Score {
    /// Scores 1.
    Win,
    /// Scores ½.
    Draw,
    /// Scores 0.
    Loss,
}

/// A closed interval of scores.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub(crate) struct Interval {
    /// The lower bound.
    pub(crate) low: f64,
    /// The upper bound.
    pub(crate) high: f64,
}

/// The Wilson score interval for a proportion `p` observed over `n` trials at normal
/// quantile `z`; the whole of [0, 1] when `n` is 0.
pub(crate) fn wilson(p: f64, n: u32, z: f64) -> Interval {
    if n == 0 {
        return Interval {
            low: 0.0,
            high: 1.0,
        };
    }
    let n = f64::from(n);
    let z2 = z * z;
    let denominator = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denominator;
    let half = z / denominator * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Interval {
        low: (centre - half).max(0.0),
        high: (centre + half).min(1.0),
    }
}

/// An Elo rating and its interval, as measured against an opponent of known rating.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub(crate) struct EloEstimate {
    /// The rating the score implies.
    pub(crate) elo: f64,
    /// The bounds the score's interval implies; `None` where the bound is a score of 0
    /// or 1, which says no more than "below" or "above".
    pub(crate) low: Option<f64>,
    /// See `low`.
    pub(crate) high: Option<f64>,
}

/// The Elo difference a score `p` implies under the logistic model (`400 log10(p / (1 -
/// p))`), or `None` for a score of 0 or 1, which bounds it on one side only.
pub(crate) fn elo_difference(p: f64) -> Option<f64> {
    (p > 0.0 && p < 1.0).then(|| 400.0 * (p / (1.0 - p)).log10())
}

/// The rating of a player who scored `score` (with interval `interval`) against an
/// opponent rated `opponent`; `None` when the score itself is 0 or 1.
pub(crate) fn elo_estimate(opponent: f64, score: f64, interval: Interval) -> Option<EloEstimate> {
    Some(EloEstimate {
        elo: opponent + elo_difference(score)?,
        low: elo_difference(interval.low).map(|d| opponent + d),
        high: elo_difference(interval.high).map(|d| opponent + d),
    })
}

impl EloEstimate {
    /// This estimate made against an opponent whose own rating is known only within
    /// `margin` either side (its 95% half-width): each bound moves away from the estimate
    /// to the root of the sum of the squares of the two half-widths, as for independent
    /// errors. Chaining links this way rates a player far below any limited engine.
    pub(crate) fn with_opponent_margin(self, margin: f64) -> Self {
        Self {
            elo: self.elo,
            low: self
                .low
                .map(|low| self.elo - (self.elo - low).hypot(margin)),
            high: self
                .high
                .map(|high| self.elo + (high - self.elo).hypot(margin)),
        }
    }
}

/// The endings of several sets of games added up, in words: "checkmate 97, stalemate 3".
pub(crate) fn endings<'a>(sets: impl IntoIterator<Item = &'a BTreeMap<String, usize>>) -> String {
    let mut all: BTreeMap<&str, usize> = BTreeMap::new();
    for (reason, count) in sets.into_iter().flatten() {
        *all.entry(reason.as_str()).or_default() += count;
    }
    let words: Vec<String> = all
        .iter()
        .map(|(reason, count)| format!("{reason} {count}"))
        .collect();
    words.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_differences_follow_the_logistic_model() {
        assert_eq!(elo_difference(0.5), Some(0.0));
        // 0.76 is about +200, 0.24 about -200 (the model's usual table).
        let up = elo_difference(0.76).unwrap();
        assert!((up - 200.0).abs() < 1.0, "{up}");
        assert!(close(elo_difference(0.24).unwrap(), -up));
        assert_eq!(elo_difference(0.0), None);
        assert_eq!(elo_difference(1.0), None);
        let interval = Interval {
            low: 0.0,
            high: 0.64,
        };
        let estimate = elo_estimate(1500.0, 0.5, interval).unwrap();
        assert_eq!(estimate.elo, 1500.0);
        assert_eq!(estimate.low, None);
        assert!(estimate.high.is_some_and(|high| high > 1500.0));
    }

    #[test]
    fn an_opponents_margin_widens_both_bounds_in_quadrature() {
        let link = EloEstimate {
            elo: 1000.0,
            low: Some(970.0),
            high: Some(1040.0),
        };
        let chained = link.with_opponent_margin(40.0);
        assert_eq!(chained.elo, 1000.0);
        assert!(close(chained.low.unwrap(), 950.0), "{chained:?}");
        assert!(
            close(chained.high.unwrap(), 1000.0 + 3200f64.sqrt()),
            "{chained:?}"
        );
        let unbounded = EloEstimate { low: None, ..link }.with_opponent_margin(40.0);
        assert_eq!(unbounded.low, None);
        assert_eq!(link.with_opponent_margin(0.0), link);
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-4
    }

    #[test]
    fn wilson_matches_published_values() {
        // 50 of 100: the textbook interval is 0.4038 to 0.5962.
        let half = wilson(0.5, 100, Z95);
        assert!(
            close(half.low, 0.4038) && close(half.high, 0.5962),
            "{half:?}"
        );
        // 10 of 10: the lower bound is n / (n + z²) and the upper bound is 1.
        let all = wilson(1.0, 10, Z95);
        assert!(close(all.low, 10.0 / (10.0 + Z95 * Z95)), "{all:?}");
        assert!(close(all.high, 1.0));
        // 0 of 10 mirrors it.
        let none = wilson(0.0, 10, Z95);
        assert!(
            close(none.low, 0.0) && close(none.high, 1.0 - all.low),
            "{none:?}"
        );
        assert_eq!(
            wilson(0.3, 0, Z95),
            Interval {
                low: 0.0,
                high: 1.0
            }
        );
    }

    #[test]
    fn tallies_score_draws_as_half_and_bound_the_score() {
        let mut tally = Tally::default();
        for score in [Score::Win, Score::Win, Score::Draw, Score::Loss] {
            tally.add(score);
        }
        assert_eq!(tally.games(), 4);
        assert!(close(tally.score(), 2.5 / 4.0));
        assert_eq!(tally.wdl(), "2-1-1");
        let wilson = tally.wilson95();
        assert!(wilson.low < tally.score() && tally.score() < wilson.high);
    }

    #[test]
    fn the_normal_interval_uses_the_per_game_variance() {
        // All draws: no variance, so the interval is the point ½.
        let draws = Tally {
            wins: 0,
            draws: 40,
            losses: 0,
        };
        let normal = draws.normal95();
        assert!(
            close(normal.low, 0.5) && close(normal.high, 0.5),
            "{normal:?}"
        );
        // 30 wins and 10 losses: mean 0.75, sample sd sqrt(40 * 0.1875 / 39).
        let mixed = Tally {
            wins: 30,
            draws: 0,
            losses: 10,
        };
        let sd = (40.0_f64 * 0.1875 / 39.0).sqrt();
        let normal = mixed.normal95();
        assert!(
            close(normal.low, 0.75 - Z95 * sd / 40f64.sqrt()),
            "{normal:?}"
        );
        // Wilson on the same data is within a little of it.
        let wilson = mixed.wilson95();
        assert!((wilson.low - normal.low).abs() < 0.03, "{wilson:?}");
    }
}
