//! Negamax with alpha-beta pruning, generic over any game with an evaluation: iterative
//! deepening under a node budget and a deadline, a transposition table, move ordering
//! (the table's move, then noisy moves, then killer moves, then quiet moves by history,
//! then captures that lose the exchange) and a quiescence search that plays noisy moves
//! (captures that do not lose the exchange) out past the depth limit. In games that
//! allow it ([`Evaluate::selective`]: chess) it also prunes by judgement
//! ([`selective`]): null-move, reverse futility, futility and late-move pruning,
//! late-move reductions, and one more ply for a side in check.
//!
//! Games small enough to search to the end (tic-tac-toe) are solved exactly; larger ones
//! get the best moves of the deepest completed iteration. Root values are exact for every
//! move that ties the best, so ties are true ties and the caller may choose among them.

mod refutations;
mod root;
mod selective;
#[cfg(test)]
mod tests;

use std::cell::OnceCell;
use std::cmp::Reverse;
use std::time::Instant;

use self::refutations::Refutations;
use self::root::RootMoves;
use super::table::{Bound, Entry, Table};
use super::{Deadline, Evaluate, Memory};
use crate::games::Seat;

/// The value of a win found `ply` moves from the root is `WIN - ply`; losses are the
/// negation. Larger than any evaluation, so a forced result outweighs any estimate.
pub(super) const WIN: i32 = 1_000_000;

/// Beyond every value: the initial window.
const INFINITY: i32 = WIN + 1;

/// Values beyond this are forced results rather than estimates.
const FORCED: i32 = WIN / 2;

/// How often (in positions visited) the search looks at the clock: often enough that a
/// position whose moves are slow to generate cannot carry it far past its deadline,
/// rarely enough that reading the clock costs next to nothing per position.
const CLOCK_EVERY: u64 = 16;

/// Move-ordering scores: the table's move, then noisy moves, then killer moves, then the
/// rest by the game's hint (clamped below the killers), then losing captures.
const TABLE_MOVE: i32 = i32::MAX;
const NOISY: i32 = 1 << 24;
const KILLER: i32 = 1 << 23;
const HINT_LIMIT: i32 = 1 << 22;
/// Noisy moves that lose the exchange on their square come after every quiet move.
const LOSING: i32 = -HINT_LIMIT - 1;

/// How deep and how long one search may go. An iteration that would break a limit is
/// abandoned and the previous iteration's answer stands, so a search always answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The deepest iteration, in plies.
    pub max_depth: u32,
    /// The most positions one move's search may visit.
    pub max_nodes: u64,
    /// When the answer is due, on the caller's clock, if there is a time limit.
    pub deadline: Option<Deadline>,
}

/// What one search found, for bots and for benchmarks (nodes per second).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis<M> {
    /// Every move achieving the best value of the deepest completed iteration (all legal
    /// moves if not even the first iteration finished any move); empty once the game is
    /// over.
    pub best: Vec<M>,
    /// Positions visited, quiescence included, over all iterations.
    pub nodes: u64,
    /// The depth of the deepest completed iteration, in plies (0 if none completed).
    pub depth: u32,
    /// The value of `best` for the side to move at that depth: an evaluation, or
    /// `±(1_000_000 - plies)` for a forced win or loss that many plies away.
    pub value: i32,
    /// Whether that iteration followed every line it searched to the end of the game, so
    /// that `value` is the position's true value with best play (0: a draw) rather
    /// than an estimate.
    pub solved: bool,
}

/// Switches for testing the search against itself.
#[derive(Clone, Copy, Debug)]
pub(super) struct Options {
    /// Whether to use a transposition table at all.
    pub(super) table: bool,
    /// Whether the table may only answer for exactly the depth it was filled at (so that
    /// a search with the table returns exactly the values of one without).
    pub(super) exact_depth: bool,
    /// Whether to prune by judgement in games that allow it ([`Evaluate::selective`]).
    pub(super) selective: bool,
}

impl Options {
    /// How the bots search.
    pub(super) const PLAY: Options = Options {
        table: true,
        exact_depth: false,
        selective: true,
    };
}

/// Searches `game` within `limits` and reports the best moves for the side to move.
/// Iterates deeper until `max_depth`, until the result is forced, until the whole game
/// tree has been searched, or until a budget runs out (or would run out during the next
/// iteration, judging by the time the iterations so far took).
///
/// Starts from nothing: for one-off questions; a bot playing a game uses
/// [`analyse_with`].
pub fn analyse<G: Evaluate>(game: &G, limits: &Limits) -> Analysis<G::Move> {
    analyse_with(game, limits, &mut Memory::default())
}

/// [`analyse`], starting from what earlier searches left in `memory` and leaving there
/// what this one learns.
pub fn analyse_with<G: Evaluate>(
    game: &G,
    limits: &Limits,
    memory: &mut Memory,
) -> Analysis<G::Move> {
    run(game, limits, Options::PLAY, memory)
}

/// [`analyse_with`] with switches.
pub(super) fn run<G: Evaluate>(
    game: &G,
    limits: &Limits,
    options: Options,
    memory: &mut Memory,
) -> Analysis<G::Move> {
    let started = limits.deadline.map(|deadline| deadline.now());
    let moves = game.legal_moves();
    let mut analysis = Analysis {
        best: moves.clone(),
        nodes: 0,
        depth: 0,
        value: 0,
        solved: false,
    };
    let Some(seat) = game.turn() else {
        return analysis;
    };
    if moves.len() <= 1 {
        return analysis;
    }
    let table = if options.table {
        memory.table.fit(limits.max_nodes);
        std::mem::take(&mut memory.table)
    } else {
        Table::default()
    };
    let mut search = Search::new(seat, limits, options, table);
    let mut root = RootMoves::new(game, moves);
    for depth in 1..=limits.max_depth {
        search.cut_off = false;
        let finished = search.root(&mut root, depth);
        if let Some(value) = finished.ok().or_else(|| root.partial()) {
            let best = root.best(value);
            if !best.is_empty() {
                analysis.best = best;
                analysis.value = value;
            }
        }
        if finished.is_err() {
            break;
        }
        analysis.depth = depth;
        analysis.solved = !search.cut_off;
        if analysis.value.abs() > FORCED || !search.cut_off || !search.time_for_more(started) {
            break;
        }
        root.sort();
    }
    analysis.nodes = search.nodes;
    if options.table {
        memory.table = search.table;
    }
    analysis
}

/// The search ran out of nodes or time; the unfinished iteration is discarded.
#[derive(Clone, Copy, Debug)]
struct OutOfBudget;

/// A move's ordering score from the game alone: noisy moves first, then by hint.
fn static_score<G: Evaluate>(game: &G, mv: &G::Move) -> i32 {
    let hint = game.order_hint(mv).clamp(-HINT_LIMIT, HINT_LIMIT);
    if game.is_noisy(mv) {
        NOISY + hint
    } else {
        hint
    }
}

/// A value as stored in the table: forced results counted from the position itself.
fn to_table(value: i32, ply: u32) -> i32 {
    let ply = ply as i32;
    if value > FORCED {
        value + ply
    } else if value < -FORCED {
        value - ply
    } else {
        value
    }
}

/// A stored value as seen `ply` moves from the root.
fn from_table(value: i32, ply: u32) -> i32 {
    let ply = ply as i32;
    if value > FORCED {
        value - ply
    } else if value < -FORCED {
        value + ply
    } else {
        value
    }
}

/// A position's place in the search: plies left before quiescence, plies from the
/// root, and the window of values that matter.
#[derive(Clone, Copy, Debug)]
struct Node {
    depth: u32,
    ply: u32,
    alpha: i32,
    beta: i32,
}

impl Node {
    /// The node after one move, for the window `alpha..beta` as seen from here.
    fn child(self, alpha: i32, beta: i32) -> Node {
        self.reduced_child(alpha, beta, 0)
    }

    /// [`Node::child`] searched `by` plies shallower.
    fn reduced_child(self, alpha: i32, beta: i32, by: u32) -> Node {
        Node {
            depth: self.depth.saturating_sub(1 + by),
            ply: self.ply + 1,
            alpha: -beta,
            beta: -alpha,
        }
    }

    /// Whether only whether the value reaches `beta` matters here (a null window), not
    /// the value itself: where pruning by judgement is allowed.
    fn is_null_window(self) -> bool {
        self.beta - self.alpha == 1
    }

    /// What to store after finding `best` here (by the move at `best_index`), with
    /// `complete` telling whether every line searched reached the end of the game.
    fn entry(self, best: i32, best_index: Option<usize>, complete: bool) -> Entry {
        let bound = if best <= self.alpha {
            Bound::Upper
        } else if best >= self.beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        Entry {
            value: to_table(best, self.ply),
            depth: self.depth.min(u32::from(u8::MAX)) as u8,
            complete,
            bound,
            best: best_index.and_then(|index| u16::try_from(index).ok()),
        }
    }
}

/// One search's state.
struct Search<M> {
    /// The side to move at the root.
    seat: Seat,
    nodes: u64,
    max_nodes: u64,
    deadline: Option<Deadline>,
    /// Whether the current iteration (or, while a node is searched, its subtree) stopped
    /// anywhere at the depth limit rather than at the end of the game.
    cut_off: bool,
    table: Table,
    exact_depth: bool,
    selective: bool,
    /// The quiet moves that refuted positions, to try such moves early.
    refutations: Refutations<M>,
}

impl<M: Clone + PartialEq> Search<M> {
    fn new(seat: Seat, limits: &Limits, options: Options, table: Table) -> Self {
        Search {
            seat,
            nodes: 0,
            max_nodes: limits.max_nodes,
            deadline: limits.deadline,
            cut_off: false,
            table,
            exact_depth: options.exact_depth,
            selective: options.selective,
            refutations: Refutations::default(),
        }
    }

    /// Counts a position; fails once a budget is spent.
    fn visit(&mut self) -> Result<(), OutOfBudget> {
        self.nodes += 1;
        let late = self.nodes.is_multiple_of(CLOCK_EVERY)
            && self.deadline.is_some_and(|deadline| deadline.passed());
        if self.nodes > self.max_nodes || late {
            Err(OutOfBudget)
        } else {
            Ok(())
        }
    }

    /// Whether another iteration is worth starting: it would typically take several
    /// times as long as all the earlier ones together, and only its finished moves count
    /// (see [`RootMoves::partial`]), so start only while the time spent is under the
    /// time left.
    fn time_for_more(&self, started: Option<Instant>) -> bool {
        match (self.deadline, started) {
            (Some(deadline), Some(started)) => {
                let now = deadline.now();
                now.duration_since(started) < deadline.instant().saturating_duration_since(now)
            }
            _ => true,
        }
    }

    /// The value of a finished game for the side to move `ply` moves from the root.
    fn terminal<G: Evaluate>(&self, game: &G, ply: u32) -> Option<i32> {
        let outcome = game.outcome()?;
        let to_move = if ply.is_multiple_of(2) {
            self.seat
        } else {
            self.seat.other()
        };
        let distance = WIN - ply as i32;
        Some(match outcome.winner {
            None => 0,
            Some(winner) if winner == to_move => distance,
            Some(_) => -distance,
        })
    }

    /// The negamax value of `game` for the side to move at `node` (plus quiescence),
    /// fail-soft within the node's window.
    fn negamax<G: Evaluate<Move = M>>(
        &mut self,
        game: &G,
        mut node: Node,
    ) -> Result<i32, OutOfBudget> {
        self.visit()?;
        let known = game.outcome_needs_moves().then(|| game.legal_moves());
        if let Some(value) = self.terminal(game, node.ply) {
            return Ok(value);
        }
        let selective = self.selective && game.selective();
        if node.depth == 0 {
            let moves = known.unwrap_or_else(|| game.legal_moves());
            return self.quiesce_here(game, &moves, node);
        }
        if selective && game.in_check() {
            node.depth += 1;
        }
        let hash = game.position_hash();
        let entry = self.table.probe(hash);
        if let Some(value) = entry.and_then(|entry| self.table_cutoff(entry, node)) {
            return Ok(value);
        }
        let standing = OnceCell::new();
        if selective && let Some(value) = self.prune(game, node, &standing)? {
            return Ok(value);
        }
        let moves = known.unwrap_or_else(|| game.legal_moves());
        let order = self.order(game, &moves, entry.and_then(|entry| entry.best), node.ply);
        let outer = std::mem::replace(&mut self.cut_off, false);
        let searched = self.search_moves(game, &moves, &order, node, &standing);
        let complete = !self.cut_off;
        self.cut_off |= outer;
        let (best, best_index) = searched?;
        self.table
            .store(hash, node.entry(best, best_index, complete));
        Ok(best)
    }

    /// The stored value, if the table settles `node`.
    fn table_cutoff(&mut self, entry: Entry, node: Node) -> Option<i32> {
        let stored = u32::from(entry.depth);
        let deep_enough = if self.exact_depth {
            stored == node.depth
        } else {
            entry.complete || stored >= node.depth
        };
        if !deep_enough {
            return None;
        }
        let value = from_table(entry.value, node.ply);
        let settles = match entry.bound {
            Bound::Exact => true,
            Bound::Lower => value >= node.beta,
            Bound::Upper => value <= node.alpha,
        };
        if !settles {
            return None;
        }
        if !entry.complete {
            self.cut_off = true;
        }
        Some(value)
    }

    /// Searches `moves` in `order` (principal variation search: the first with the full
    /// window, the rest with a null window and again if they might be better); the best
    /// value and the index of the move that achieved it.
    fn search_moves<G: Evaluate<Move = M>>(
        &mut self,
        game: &G,
        moves: &[M],
        order: &[usize],
        node: Node,
        standing: &OnceCell<i32>,
    ) -> Result<(i32, Option<usize>), OutOfBudget> {
        let (mut alpha, beta) = (node.alpha, node.beta);
        let mut best = -INFINITY;
        let mut best_index = None;
        let may_reduce = self.selective && game.selective() && !game.in_check();
        let standing = (may_reduce && self.may_skip_quiet(node))
            .then(|| *standing.get_or_init(|| game.evaluate()));
        for (searched, &index) in order.iter().enumerate() {
            let mv = &moves[index];
            if let Some(standing) = standing
                && best_index.is_some()
                && self.futile(game, mv, node, searched, standing, alpha)
            {
                self.cut_off = true;
                continue;
            }
            let mut next = game.clone();
            if next.play_generated(mv).is_err() {
                continue;
            }
            let value = if best_index.is_none() {
                -self.negamax(&next, node.child(alpha, beta))?
            } else {
                let reduction = if may_reduce {
                    self.reduction(game, &next, mv, node, searched)
                } else {
                    0
                };
                let mut probe =
                    -self.negamax(&next, node.reduced_child(alpha, alpha + 1, reduction))?;
                if reduction > 0 && probe > alpha {
                    probe = -self.negamax(&next, node.child(alpha, alpha + 1))?;
                }
                if probe > alpha && probe < beta {
                    -self.negamax(&next, node.child(alpha, beta))?
                } else {
                    probe
                }
            };
            if value > best || best_index.is_none() {
                best = value;
                best_index = Some(index);
            }
            alpha = alpha.max(value);
            if alpha >= beta {
                if !game.is_noisy(mv) {
                    self.refutations
                        .record(node.ply, mv, game.history_key(mv), node.depth);
                }
                break;
            }
        }
        Ok((best, best_index))
    }

    /// The quiescence value of `game`, a position past the depth limit.
    fn quiesce<G: Evaluate<Move = M>>(&mut self, game: &G, node: Node) -> Result<i32, OutOfBudget> {
        self.visit()?;
        let known = game.outcome_needs_moves().then(|| game.legal_moves());
        if let Some(value) = self.terminal(game, node.ply) {
            return Ok(value);
        }
        let moves = known.unwrap_or_else(|| game.legal_moves());
        self.quiesce_here(game, &moves, node)
    }

    /// Quiescence at an unfinished position already counted, whose legal moves are
    /// `moves`: the side to move may stand on the static evaluation or play a noisy move
    /// that does not lose the exchange, unless every legal move is noisy (a forced
    /// capture), when it must play one.
    fn quiesce_here<G: Evaluate<Move = M>>(
        &mut self,
        game: &G,
        moves: &[M],
        node: Node,
    ) -> Result<i32, OutOfBudget> {
        let (mut alpha, beta) = (node.alpha, node.beta);
        let mut noisy: Vec<(i32, &M)> = moves
            .iter()
            .filter(|mv| game.is_noisy(mv))
            .map(|mv| (game.order_hint(mv), mv))
            .collect();
        let mut best = -INFINITY;
        if noisy.len() < moves.len() {
            self.cut_off = true;
            best = game.evaluate();
            if best >= beta || noisy.is_empty() {
                return Ok(best);
            }
            alpha = alpha.max(best);
            noisy.retain(|&(_, mv)| !game.loses_exchange(mv));
        }
        noisy.sort_by_key(|&(hint, _)| Reverse(hint));
        for (_, mv) in noisy {
            let mut next = game.clone();
            if next.play_generated(mv).is_err() {
                continue;
            }
            let value = -self.quiesce(&next, node.child(alpha, beta))?;
            best = best.max(value);
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
        Ok(best)
    }

    /// The indices of `moves` in the order to search them.
    fn order<G: Evaluate<Move = M>>(
        &self,
        game: &G,
        moves: &[M],
        table_move: Option<u16>,
        ply: u32,
    ) -> Vec<usize> {
        let mut scored: Vec<(i32, usize)> = moves
            .iter()
            .enumerate()
            .map(|(index, mv)| {
                let score = if table_move.is_some_and(|best| usize::from(best) == index) {
                    TABLE_MOVE
                } else if let Some(rank) = self.refutations.killer_rank(ply, mv) {
                    KILLER + rank
                } else if game.is_noisy(mv) {
                    if game.loses_exchange(mv) {
                        LOSING
                    } else {
                        static_score(game, mv)
                    }
                } else {
                    self.refutations
                        .history(game.history_key(mv))
                        .saturating_add(game.order_hint(mv))
                        .clamp(-HINT_LIMIT, HINT_LIMIT)
                };
                (score, index)
            })
            .collect();
        scored.sort_by_key(|&(score, _)| Reverse(score));
        scored.into_iter().map(|(_, index)| index).collect()
    }
}
