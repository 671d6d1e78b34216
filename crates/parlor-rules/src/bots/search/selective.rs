//! Pruning by judgement, in games that allow it ([`Evaluate::selective`]: chess): what
//! the search cuts or searches shallower because it is very likely, not proven, not to
//! matter. Every answer resting on it marks the node as cut off, so it is never taken
//! for a solved value.

use std::cell::OnceCell;

use super::{FORCED, Node, OutOfBudget, Search};
use crate::bots::Evaluate;

/// Null-move pruning: the depth taken off a passed position's search on top of the
/// pass itself, and the shallowest depth it is tried at.
const NULL_MOVE_REDUCTION: u32 = 2;
const NULL_MOVE_DEPTH: u32 = 3;

/// Late-move reductions: quiet moves after this many searched moves, at this depth or
/// deeper, are first searched a ply shallower (two plies after twice as many).
const LATE_MOVE: usize = 3;
const LATE_MOVE_DEPTH: u32 = 3;

/// Reverse futility pruning: at this depth or shallower, a position whose static value
/// beats `beta` by this margin per ply left fails high without a search.
const FUTILITY_DEPTH: u32 = 3;
const FUTILITY_MARGIN: i32 = 120;

/// Futility pruning: at this depth or shallower, a quiet move is left out when the
/// static value plus this margin per ply left does not reach `alpha`.
const QUIET_FUTILITY_DEPTH: u32 = 2;
const QUIET_FUTILITY_MARGIN: i32 = 150;

/// Late-move pruning: at this depth or shallower, quiet moves after the first
/// `LATE_MOVE_COUNT + depth²` are left out.
const LATE_PRUNE_DEPTH: u32 = 3;
const LATE_MOVE_COUNT: usize = 4;

impl<M: Clone + PartialEq> Search<M> {
    /// A value for `node` (whose static value, once known, is kept in `standing`)
    /// without searching its moves, if judgement gives one: only in null-window nodes
    /// out of check, away from forced results. Reverse futility pruning first (the
    /// static value beats `beta` by a margin that grows with the depth left), then
    /// null-move pruning.
    pub(super) fn prune<G: Evaluate<Move = M>>(
        &mut self,
        game: &G,
        node: Node,
        standing: &OnceCell<i32>,
    ) -> Result<Option<i32>, OutOfBudget> {
        if !node.is_null_window() || node.beta.abs() >= FORCED || game.in_check() {
            return Ok(None);
        }
        let standing = *standing.get_or_init(|| game.evaluate());
        let margin = FUTILITY_MARGIN * node.depth as i32;
        if node.depth <= FUTILITY_DEPTH && standing - margin >= node.beta {
            self.cut_off = true;
            return Ok(Some(standing - margin));
        }
        if standing >= node.beta {
            return self.null_move(game, node);
        }
        Ok(None)
    }

    /// Null-move pruning: if the side to move, allowed to pass, still reaches `beta` in a
    /// shallower search, a real move will too (no zugzwang), so the node fails high
    /// without searching its moves. Only deep enough to gain; a forced result found
    /// after a pass is not trusted and only `beta` is returned.
    fn null_move<G: Evaluate<Move = M>>(
        &mut self,
        game: &G,
        node: Node,
    ) -> Result<Option<i32>, OutOfBudget> {
        if node.depth < NULL_MOVE_DEPTH {
            return Ok(None);
        }
        let Some(passed) = game.pass() else {
            return Ok(None);
        };
        let child = node.reduced_child(node.beta - 1, node.beta, NULL_MOVE_REDUCTION);
        let value = -self.negamax(&passed, child)?;
        if value < node.beta {
            return Ok(None);
        }
        self.cut_off = true;
        Ok(Some(if value > FORCED { node.beta } else { value }))
    }

    /// Late-move reductions: how many plies shallower to search `mv` (leading to `next`),
    /// the move searched after `searched` others at `node`, in a position out of check:
    /// none for the first moves, noisy moves, killers and checks.
    pub(super) fn reduction<G: Evaluate<Move = M>>(
        &self,
        game: &G,
        next: &G,
        mv: &M,
        node: Node,
        searched: usize,
    ) -> u32 {
        if node.depth < LATE_MOVE_DEPTH
            || searched < LATE_MOVE
            || game.is_noisy(mv)
            || self.refutations.is_killer(node.ply, mv)
            || next.in_check()
        {
            0
        } else if searched >= 2 * LATE_MOVE {
            2
        } else {
            1
        }
    }

    /// Whether `node` is shallow enough, and its window far enough from forced results,
    /// that [`Search::futile`] may leave out its quiet moves.
    pub(super) fn may_skip_quiet(&self, node: Node) -> bool {
        node.depth <= LATE_PRUNE_DEPTH.max(QUIET_FUTILITY_DEPTH) && node.alpha.abs() < FORCED
    }

    /// Futility and late-move pruning: whether to leave out the quiet move `mv`, the
    /// move after `searched` others at `node`, a shallow node out of check whose static
    /// value is `standing`: when even a margin over that value does not reach `alpha`,
    /// or when so many moves came before it that it is very likely no better. Never
    /// noisy moves, killers or checks.
    pub(super) fn futile<G: Evaluate<Move = M>>(
        &self,
        game: &G,
        mv: &M,
        node: Node,
        searched: usize,
        standing: i32,
        alpha: i32,
    ) -> bool {
        if alpha.abs() >= FORCED
            || game.is_noisy(mv)
            || self.refutations.is_killer(node.ply, mv)
            || game.gives_check(mv)
        {
            return false;
        }
        let depth = node.depth;
        let hopeless = depth <= QUIET_FUTILITY_DEPTH
            && standing + QUIET_FUTILITY_MARGIN * depth as i32 <= alpha;
        let late =
            depth <= LATE_PRUNE_DEPTH && searched >= LATE_MOVE_COUNT + (depth * depth) as usize;
        hopeless || late
    }
}
