//! The root of the search: the moves at the root and what each iteration made of them,
//! and one iteration over them.

use std::cmp::Reverse;

use super::{INFINITY, Node, OutOfBudget, Search, static_score};
use crate::bots::Evaluate;

/// A root move, its position and what the current iteration made of it.
pub(super) struct RootMove<G: Evaluate> {
    mv: G::Move,
    next: G,
    value: i32,
    /// Whether `value` is exact (it tied or beat the best so far when searched), rather
    /// than only an upper bound.
    exact: bool,
}

/// The root moves, in the order the next iteration will search them.
pub(super) struct RootMoves<G: Evaluate> {
    moves: Vec<RootMove<G>>,
}

impl<G: Evaluate> RootMoves<G> {
    /// The playable moves, noisy and promising ones first.
    pub(super) fn new(game: &G, moves: Vec<G::Move>) -> Self {
        let mut moves: Vec<RootMove<G>> = moves
            .into_iter()
            .filter_map(|mv| {
                let mut next = game.clone();
                next.play_generated(&mv).ok()?;
                Some(RootMove {
                    mv,
                    next,
                    value: -INFINITY,
                    exact: false,
                })
            })
            .collect();
        moves.sort_by_key(|root| Reverse(static_score(game, &root.mv)));
        RootMoves { moves }
    }

    /// Every move whose exact value is `value`.
    pub(super) fn best(&self, value: i32) -> Vec<G::Move> {
        self.moves
            .iter()
            .filter(|root| root.exact && root.value == value)
            .map(|root| root.mv.clone())
            .collect()
    }

    /// The best exact value of an unfinished iteration, if it finished any move. The
    /// previous iteration's best move is searched first, so once it is finished every
    /// move found exact is at least as good at the new depth: better than the shallower
    /// answer. (In an unfinished first iteration, better than choosing blindly.)
    pub(super) fn partial(&self) -> Option<i32> {
        self.moves
            .iter()
            .filter(|root| root.exact)
            .map(|root| root.value)
            .max()
    }

    /// Best first for the next iteration (a stable sort keeps earlier order among ties).
    pub(super) fn sort(&mut self) {
        self.moves.sort_by_key(|root| Reverse(root.value));
    }
}

impl<M: Clone + PartialEq> Search<M> {
    /// One iteration over the root moves at `depth`; the best value. A move after the
    /// first is first tested against a null window just below the best value, and
    /// searched exactly only if it might tie or beat it.
    pub(super) fn root<G: Evaluate<Move = M>>(
        &mut self,
        root: &mut RootMoves<G>,
        depth: u32,
    ) -> Result<i32, OutOfBudget> {
        root.moves.iter_mut().for_each(|root| root.exact = false);
        let top = Node {
            depth,
            ply: 0,
            alpha: -INFINITY,
            beta: INFINITY,
        };
        let mut best = -INFINITY;
        for root in &mut root.moves {
            let mut value = if best == -INFINITY {
                -self.negamax(&root.next, top.child(-INFINITY, INFINITY))?
            } else {
                -self.negamax(&root.next, top.child(best - 1, best))?
            };
            if best > -INFINITY && value >= best {
                value = -self.negamax(&root.next, top.child(best - 1, INFINITY))?;
            }
            root.value = value;
            root.exact = value >= best;
            best = best.max(value);
        }
        Ok(best)
    }
}
