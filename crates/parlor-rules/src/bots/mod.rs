//! Bot strategies, generic over [`Game`], so every game gets every level.
//!
//! Bots are pure: they take a position and a random source and return a move. Rooms run
//! them off the async executor.

mod deadline;
mod draws;
mod eval;
mod rules;
mod search;
mod table;
#[cfg(test)]
mod tests;

use std::time::{Duration, Instant};

use rand::Rng;
use rand::seq::IndexedRandom;

use crate::games::{Game, MoveError};

/// What `parlor-bots tune` needs to fit the chess evaluation's weights to labelled
/// positions: the features of a position, the terms they count, and the weights the
/// evaluation is built with.
pub mod chess_tuning {
    pub use super::eval::chess::terms::*;
    pub use super::eval::chess::weights::WEIGHTS;
    pub use super::eval::chess::{FULL_PHASE, TEMPO, features};
}

pub use deadline::Deadline;
pub use draws::{DEAD_DRAW_MARGIN, DrawView, judge_draw};
pub use search::{Analysis, Limits, analyse, analyse_with};

/// A game the bots can play: a static estimate of any unfinished position, plus what the
/// rule bot and the search need to know about material and moves.
pub trait Evaluate: Game {
    /// How good the position is for the side to move, in hundredths of a pawn-like unit
    /// (positive is good); only asked of positions where the game is not over.
    fn evaluate(&self) -> i32;

    /// The material balance for the side to move, in the units of [`Evaluate::evaluate`]:
    /// what the rule bot (`bot:easy`) refuses to lose on the opponent's next move. By
    /// default the whole evaluation; games with pieces count only the pieces.
    fn material(&self) -> i32 {
        self.evaluate()
    }

    /// Whether knowing the outcome ([`Game::outcome`], [`Game::turn`]) costs generating
    /// the legal moves anyway, as in chess (is the side to move mated?): the search
    /// then asks for the moves first, so they are generated once. Games that know their
    /// outcome cheaply (the default) get their moves only once a search needs them, not
    /// in positions the transposition table settles.
    fn outcome_needs_moves(&self) -> bool {
        false
    }

    /// Plays `mv`, a move [`Game::legal_moves`] returned for this very position,
    /// skipping the checks that a move from a client needs; by default [`Game::play`].
    fn play_generated(&mut self, mv: &Self::Move) -> Result<(), MoveError> {
        self.play(mv)
    }

    /// Whether `mv` changes the balance sharply (a capture or a promotion): the search
    /// plays such moves out past its depth limit (quiescence) and tries them early.
    fn is_noisy(&self, mv: &Self::Move) -> bool {
        let _ = mv;
        false
    }

    /// Whether the noisy move `mv` loses material once the opponent recaptures on its
    /// square and both sides go on trading there while it pays (a static exchange
    /// evaluation): the search tries such moves late and leaves them out of its
    /// quiescence search. Never, by default.
    fn loses_exchange(&self, mv: &Self::Move) -> bool {
        let _ = mv;
        false
    }

    /// A cheap guess at how good `mv` is, higher first, to order moves among the noisy
    /// or among the quiet ones (e.g. the value captured); 0 by default.
    fn order_hint(&self, mv: &Self::Move) -> i32 {
        let _ = mv;
        0
    }

    /// Whether so few pieces are left that neither side can make progress unless the
    /// evaluation says one is clearly ahead: what lets a bot call a level position a
    /// dead draw ([`draws::judge_draw`]). Never, by default.
    fn few_pieces_left(&self) -> bool {
        false
    }

    /// Whether the search may prune by judgement here (null-move pruning and late-move
    /// reductions), trading exactness for depth: sound only where passing never helps
    /// the side to move and a quiet move late in the order is rarely the best. Never, by
    /// default: checkers and Fox & Geese turn on zugzwang, tic-tac-toe is solved.
    fn selective(&self) -> bool {
        false
    }

    /// The same position with the other side to move (a "null move"), for null-move
    /// pruning; `None` where passing is illegal or unsound (in check, or with only
    /// pawns left in chess) and, by default, always.
    fn pass(&self) -> Option<Self> {
        None
    }

    /// Whether the side to move is in check: such a position is searched one ply deeper
    /// and its moves are never reduced. Never, by default.
    fn in_check(&self) -> bool {
        false
    }

    /// Whether playing `mv` puts the opponent in check ([`Evaluate::in_check`] after
    /// it), known without playing it: such moves are never pruned. Never, by default.
    fn gives_check(&self, mv: &Self::Move) -> bool {
        let _ = mv;
        false
    }

    /// A number below [`HISTORY_SIZE`] naming what `mv` does wherever it is played (its
    /// from and to squares in chess), under which the search remembers how often such a
    /// quiet move refuted a position (the history heuristic) to try it earlier
    /// elsewhere; `None`, the default, keeps no history.
    fn history_key(&self, mv: &Self::Move) -> Option<usize> {
        let _ = mv;
        None
    }
}

/// What a bot's searches keep from one move to the next: the transposition table, so
/// that each search starts from what the last one learnt. Keep one per thread that
/// thinks (it grows to 16 MiB under `bot:hard`); a fresh one forgets everything.
#[derive(Default)]
pub struct Memory {
    table: table::Table,
}

/// The number of history slots a search keeps ([`Evaluate::history_key`]).
pub const HISTORY_SIZE: usize = 64 * 64;

/// How strong a bot plays. The wire form is the lowercase name (`bot:easy`).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    strum::Display,
    strum::EnumString,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[strum(
    serialize_all = "snake_case",
    parse_err_ty = UnknownLevel,
    parse_err_fn = UnknownLevel::named
)]
#[cfg_attr(feature = "serde", derive(serde_with::DeserializeFromStr))]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename_all = "snake_case")
)]
pub enum BotLevel {
    /// A uniformly random legal move.
    Random,
    /// Wins at once if it can; never hands the opponent an immediate win or, where there
    /// is material, a capture that wins material; otherwise random.
    Easy,
    /// A shallow search (four plies by default, plus captures played out).
    Medium,
    /// A deeper search under a time and node budget: perfect play in games small enough
    /// to search to the end (tic-tac-toe).
    Hard,
}

#[cfg(feature = "serde")]
crate::serialize_by_name!(BotLevel);

impl BotLevel {
    /// Every level, weakest first.
    pub const ALL: &[BotLevel] = <BotLevel as strum::VariantArray>::VARIANTS;

    /// The level's wire name.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// A bot level name that is not one of `random`, `easy`, `medium`, `hard`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a bot level; use random, easy, medium or hard")]
pub struct UnknownLevel(pub String);

impl UnknownLevel {
    /// The error for the name `name`.
    fn named(name: &str) -> UnknownLevel {
        UnknownLevel(name.to_owned())
    }
}

/// How strong a searching level plays: how deep, how many positions and how long it may
/// think per move (config `[bots.medium]`, `[bots.hard]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct Strength {
    /// The deepest search, in plies.
    pub max_depth: u32,
    /// The most positions one move's search may visit.
    pub max_nodes: u64,
    /// The most time one move may take, in milliseconds.
    pub think_ms: u64,
}

impl Strength {
    /// `bot:medium` by default: a shallow, quick search (four plies: it sees the double
    /// threats it can make and the ones it would walk into).
    pub const MEDIUM: Strength = Strength {
        max_depth: 4,
        max_nodes: 20_000,
        think_ms: 300,
    };

    /// `bot:hard` by default: a deeper search (and perfect tic-tac-toe).
    pub const HARD: Strength = Strength {
        max_depth: 64,
        max_nodes: 5_000_000,
        think_ms: 1_000,
    };

    /// The limits of one search starting now on `clock` (the caller's: the rules read
    /// none).
    pub fn limits(&self, clock: fn() -> Instant) -> Limits {
        Limits {
            max_depth: self.max_depth,
            max_nodes: self.max_nodes,
            deadline: Some(Deadline::after(Duration::from_millis(self.think_ms), clock)),
        }
    }
}

/// The limits of one move by a bot of `level` thinking from now on `clock`, where the
/// searching levels play at `medium` and `hard` (the levels that do not search use
/// `medium`'s deadline as their bound).
pub fn limits_for(
    level: BotLevel,
    medium: Strength,
    hard: Strength,
    clock: fn() -> Instant,
) -> Limits {
    match level {
        BotLevel::Hard => hard.limits(clock),
        BotLevel::Random | BotLevel::Easy | BotLevel::Medium => medium.limits(clock),
    }
}

/// Picks a move for the side to move at the given level; `None` only if the game is over.
/// `limits` bound the searching levels (`medium`, `hard`) and, by their deadline, the rule
/// bot (`easy`); `random` answers at once.
/// Among equally good moves the choice is random, so games vary. The searching levels
/// start from what earlier searches left in `memory`.
pub fn choose_move<G: Evaluate, R: Rng + ?Sized>(
    game: &G,
    level: BotLevel,
    limits: &Limits,
    memory: &mut Memory,
    rng: &mut R,
) -> Option<G::Move> {
    match level {
        BotLevel::Random => game.legal_moves().choose(rng).cloned(),
        BotLevel::Easy => rules::choose(game, limits.deadline, rng),
        BotLevel::Medium | BotLevel::Hard => {
            analyse_with(game, limits, memory).best.choose(rng).cloned()
        }
    }
}
