//! Bot strategies, generic over [`Game`], so every game gets every level.
//!
//! Bots are pure: they take a position and a random source and return a move. Rooms run
//! them off the async executor.

mod eval;
mod rules;
mod search;

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use rand::Rng;
use rand::seq::IndexedRandom;
use serde::{Deserialize, Serialize};

use crate::games::Game;

pub use search::Limits;

/// A game a searching bot can play: a static estimate of any unfinished position.
pub trait Evaluate: Game {
    /// How good the position is for the side to move, in hundredths of a pawn-like unit
    /// (positive is good); only asked of positions where the game is not over.
    fn evaluate(&self) -> i32;
}
/// How strong a bot plays. The wire form is the lowercase name (`bot:easy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BotLevel {
    /// A uniformly random legal move.
    Random,
    /// Wins at once if it can, never hands the opponent an immediate win, else random.
    Easy,
    /// A shallow search: two plies.
    Medium,
    /// A deeper search under a node budget: perfect play in games small enough to search
    /// to the end (tic-tac-toe).
    Hard,
}

impl BotLevel {
    /// Every level, weakest first.
    pub const ALL: [BotLevel; 4] = [
        BotLevel::Random,
        BotLevel::Easy,
        BotLevel::Medium,
        BotLevel::Hard,
    ];

    /// The level's wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            BotLevel::Random => "random",
            BotLevel::Easy => "easy",
            BotLevel::Medium => "medium",
            BotLevel::Hard => "hard",
        }
    }
}

impl fmt::Display for BotLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A bot level name that is not one of `random`, `easy`, `medium`, `hard`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a bot level; use random, easy, medium or hard")]
pub struct UnknownLevel(pub String);

impl FromStr for BotLevel {
    type Err = UnknownLevel;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        BotLevel::ALL
            .into_iter()
            .find(|level| level.as_str() == text)
            .ok_or_else(|| UnknownLevel(text.to_owned()))
    }
}

/// How strong a searching level plays: how deep, how many positions and how long it may
/// think per move (config `[bots.medium]`, `[bots.hard]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Strength {
    /// The deepest search, in plies.
    pub max_depth: u32,
    /// The most positions one move's search may visit.
    pub max_nodes: u64,
    /// The most time one move may take, in milliseconds.
    pub think_ms: u64,
}

impl Strength {
    /// `bot:medium` by default: a shallow, quick search.
    pub const MEDIUM: Strength = Strength {
        max_depth: 2,
        max_nodes: 20_000,
        think_ms: 300,
    };

    /// `bot:hard` by default: a deeper search (and perfect tic-tac-toe).
    pub const HARD: Strength = Strength {
        max_depth: 64,
        max_nodes: 200_000,
        think_ms: 1_000,
    };

    /// The limits of one search starting at `now`.
    pub fn limits(&self, now: Instant) -> Limits {
        Limits {
            max_depth: self.max_depth,
            max_nodes: self.max_nodes,
            deadline: Some(now + Duration::from_millis(self.think_ms)),
        }
    }
}

/// Picks a move for the side to move at the given level; `None` only if the game is over.
/// `limits` bound the searching levels (`medium`, `hard`); the others answer at once.
/// Among equally good moves the choice is random, so games vary.
pub fn choose_move<G: Evaluate, R: Rng + ?Sized>(
    game: &G,
    level: BotLevel,
    limits: &Limits,
    rng: &mut R,
) -> Option<G::Move> {
    match level {
        BotLevel::Random => game.legal_moves().choose(rng).cloned(),
        BotLevel::Easy => rules::choose(game, rng),
        BotLevel::Medium | BotLevel::Hard => search::best_moves(game, *limits).choose(rng).cloned(),
    }
}
