//! Scores for finished games, from ../shared/references' tic-tac-toe article, made strict.
//!
//! For a human seat with total thinking time `d` ms:
//! `time_score = floor(99 * 10000 / (d + 10000))` (0..=99); a win scores
//! `max(1, par - moves) * 100 + time_score`, a draw `time_score`, a loss 0.
//!
//! Only a win the rules decided on the board earns the bonus for a short game. A win by
//! the opponent's resignation, absence or clock scores the floor, `100 + time_score`:
//! otherwise two accounts could top a leaderboard for ever with a resignation after a
//! few moves, which no real win could beat.
//!
//! Every score says whom it was earned against ([`Opponent`]: a person, or a bot of
//! some level), and the leaderboard keeps each player's best per opponent, so that a
//! quick win over an easy bot never passes for a win over a person.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use parlor_rules::GameKind;
use parlor_rules::bots::BotLevel;
use parlor_rules::games::{EndReason, Outcome, Seat};

/// Whom a seat played, as its score records it: the other seat at the end of the game,
/// where a bot that stood in for an absent person at any time counts as that bot. The
/// wire form is `person` or `bot:<level>`.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    serde_with::SerializeDisplay,
    serde_with::DeserializeFromStr,
)]
pub enum Opponent {
    /// A person.
    Person,
    /// A bot of this level.
    Bot(BotLevel),
}

impl Opponent {
    /// Every opponent: a person, then each bot level, weakest first.
    pub fn all() -> impl Iterator<Item = Opponent> {
        std::iter::once(Opponent::Person).chain(BotLevel::ALL.iter().copied().map(Opponent::Bot))
    }
}

impl fmt::Display for Opponent {
    /// The wire name, written in this one place.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Opponent::Person => f.write_str("person"),
            Opponent::Bot(level) => write!(f, "bot:{level}"),
        }
    }
}

/// A name that is not `person` or `bot:<level>`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("\"{0}\" is not an opponent; use person, bot:random, bot:easy, bot:medium or bot:hard")]
pub struct UnknownOpponent(pub String);

impl FromStr for Opponent {
    type Err = UnknownOpponent;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "person" => Ok(Opponent::Person),
            _ => text
                .strip_prefix("bot:")
                .and_then(|level| level.parse().ok())
                .map(Opponent::Bot)
                .ok_or_else(|| UnknownOpponent(text.to_owned())),
        }
    }
}

/// `[scoring]`: parameters of the score formula.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ScoringConfig {
    /// Per game: a win scores `max(1, par - moves) * 100 + time_score`.
    pub par: ParConfig,
    /// A game ended by resignation or abandonment before each side made this many moves is not scored.
    pub min_moves_per_side: u32,
}

impl Default for ScoringConfig {
    fn default() -> Self {
        Self {
            par: ParConfig::default(),
            min_moves_per_side: 2,
        }
    }
}

/// `[scoring.par]`: each game's par. The defaults of the three long games are the 90th
/// percentile of decisive games' lengths measured with `parlor-bots lengths`, rounded
/// up to ten (docs/BOTS.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ParConfig {
    /// Tic-tac-toe's par (games last 5 to 9 moves).
    pub tictactoe: u32,
    /// English checkers' par.
    pub checkers: u32,
    /// Chess's par (moves counts both sides' moves, so 170 is 85 moves each).
    pub chess: u32,
    /// Fox & Geese's par.
    pub fox_geese: u32,
}

impl Default for ParConfig {
    fn default() -> Self {
        Self {
            tictactoe: 11,
            checkers: 220,
            chess: 170,
            fox_geese: 340,
        }
    }
}

impl ParConfig {
    /// The par of `game`.
    pub fn for_game(&self, game: GameKind) -> u32 {
        match game {
            GameKind::TicTacToe => self.tictactoe,
            GameKind::Checkers => self.checkers,
            GameKind::Chess => self.chess,
            GameKind::FoxGeese => self.fox_geese,
        }
    }
}

/// What the score of one seat depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ScoreInput {
    /// How the game ended.
    pub(crate) outcome: Outcome,
    /// The seat being scored.
    pub(crate) seat: Seat,
    /// Moves played in the whole game, by both sides.
    pub(crate) moves: u32,
    /// Moves played by each seat, indexed by seat.
    pub(crate) moves_by_seat: [u32; 2],
    /// The seat's total thinking time, ms.
    pub(crate) thinking_ms: u64,
    /// The game's par (config `scoring.par.<game>`).
    pub(crate) par: u32,
    /// Config `scoring.min_moves_per_side`.
    pub(crate) min_moves_per_side: u32,
}

/// The time component: 99 for an instant game, falling towards 0 as thinking time grows.
pub(crate) fn time_score(thinking_ms: u64) -> u32 {
    // 99 * 10000 / (d + 10000) is at most 99, so the narrowing cannot truncate.
    (990_000 / (u128::from(thinking_ms) + 10_000)) as u32
}

/// The seat's score, or `None` if the game is not scored: one that ended by resignation
/// or abandonment before each side made `min_moves_per_side` moves.
pub(crate) fn score(input: &ScoreInput) -> Option<u32> {
    if input.outcome.reason == EndReason::Aborted {
        return None;
    }
    let too_short = input
        .moves_by_seat
        .iter()
        .any(|&made| made < input.min_moves_per_side);
    if input.outcome.reason.is_forfeit() && too_short {
        return None;
    }
    let time = time_score(input.thinking_ms);
    Some(match input.outcome.winner {
        Some(winner) if winner == input.seat && input.outcome.reason.is_forfeit() => 100 + time,
        Some(winner) if winner == input.seat => {
            input.par.saturating_sub(input.moves).max(1) * 100 + time
        }
        Some(_) => 0,
        None => time,
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn win(moves: u32, thinking_ms: u64) -> ScoreInput {
        ScoreInput {
            outcome: Outcome {
                winner: Some(Seat::First),
                reason: EndReason::ThreeInARow,
            },
            seat: Seat::First,
            moves,
            moves_by_seat: [moves.div_ceil(2), moves / 2],
            thinking_ms,
            par: 11,
            min_moves_per_side: 2,
        }
    }

    #[test]
    fn the_formula_matches_worked_examples() {
        assert_eq!(time_score(0), 99);
        assert_eq!(time_score(10_000), 49);
        assert_eq!(time_score(u64::MAX), 0);
        assert_eq!(score(&win(5, 0)), Some(699));
        assert_eq!(score(&win(9, 10_000)), Some(249));
        let mut loss = win(5, 0);
        loss.seat = Seat::Second;
        assert_eq!(score(&loss), Some(0));
        let mut draw = win(9, 2_500);
        draw.outcome = Outcome {
            winner: None,
            reason: EndReason::BoardFull,
        };
        assert_eq!(score(&draw), Some(79));
    }

    #[test]
    fn an_early_forfeit_is_not_scored_and_a_late_one_scores_the_floor() {
        let mut early = win(3, 0);
        early.outcome.reason = EndReason::Resigned;
        assert_eq!(score(&early), None);
        let mut late = win(4, 0);
        late.outcome.reason = EndReason::Abandoned;
        assert_eq!(score(&late), Some(199));
        let mut on_time = win(6, 10_000);
        on_time.outcome.reason = EndReason::Timeout;
        assert_eq!(score(&on_time), Some(149));
        // An agreed draw before each side has moved twice is not scored either.
        let mut agreed = win(0, 0);
        agreed.outcome = Outcome {
            winner: None,
            reason: EndReason::DrawAgreed,
        };
        assert_eq!(score(&agreed), None);
    }

    #[test]
    fn opponents_read_back_as_they_are_written() {
        let names: Vec<String> = Opponent::all().map(|o| o.to_string()).collect();
        assert_eq!(
            names,
            ["person", "bot:random", "bot:easy", "bot:medium", "bot:hard"]
        );
        for opponent in Opponent::all() {
            assert_eq!(opponent.to_string().parse(), Ok(opponent));
        }
        for wrong in ["", "human", "bot:", "bot:expert", "Person"] {
            assert!(wrong.parse::<Opponent>().is_err(), "{wrong}");
        }
    }

    proptest! {
        #[test]
        fn a_faster_game_never_scores_lower(moves in 5u32..=9, a in any::<u32>(), b in any::<u32>()) {
            let (fast, slow) = (u64::from(a.min(b)), u64::from(a.max(b)));
            prop_assert!(score(&win(moves, fast)) >= score(&win(moves, slow)));
        }

        #[test]
        fn a_win_in_fewer_moves_always_scores_strictly_higher(
            fewer in 5u32..=9, more in 5u32..=9, fast in any::<u32>(), slow in any::<u32>(),
        ) {
            prop_assume!(fewer < more);
            // Whatever the times: the shorter game may even be the slower one.
            prop_assert!(score(&win(fewer, u64::from(slow))) > score(&win(more, u64::from(fast))));
        }

        #[test]
        fn the_property_holds_for_any_par_while_the_longer_game_is_under_par(
            (fewer, more, par) in (1u32..498)
                .prop_flat_map(|fewer| (Just(fewer), fewer + 1..499))
                .prop_flat_map(|(fewer, more)| (Just(fewer), Just(more), more + 1..500)),
            fast in any::<u64>(),
            slow in any::<u64>(),
        ) {
            let with_par = |moves, ms| ScoreInput { par, ..win(moves, ms) };
            prop_assert!(score(&with_par(fewer, slow)) > score(&with_par(more, fast)));
        }

        #[test]
        fn no_forfeit_win_outscores_a_win_on_the_board_with_the_same_time(
            moves in 4u32..500, board_moves in 1u32..500, par in 10u32..500, ms in any::<u32>(),
        ) {
            let mut forfeit = ScoreInput { par, ..win(moves, u64::from(ms)) };
            forfeit.outcome.reason = EndReason::Resigned;
            let on_the_board = ScoreInput { par, ..win(board_moves, u64::from(ms)) };
            prop_assert!(score(&forfeit) <= score(&on_the_board));
        }
    }
}
