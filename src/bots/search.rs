//! Negamax with alpha-beta pruning and iterative deepening under a node budget, generic
//! over any game with an evaluation. Games small enough to search to the end (tic-tac-toe)
//! are solved exactly; larger ones get the best move of the deepest completed iteration.

use std::time::Instant;

use super::Evaluate;

/// The value of a win found `ply` moves from the root; losses are the negation. Larger
/// than any evaluation, so a forced result always outweighs a positional estimate.
const WIN: i32 = 1_000_000;

/// How deep and how long one search may go. An iteration that would break a limit is
/// abandoned and the previous iteration's answer stands, so a search always answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The deepest iteration, in plies.
    pub max_depth: u32,
    /// The most positions one move's search may visit.
    pub max_nodes: u64,
    /// When the answer is due, if there is a time limit.
    pub deadline: Option<Instant>,
}

/// How often (in positions visited) the search looks at the clock.
const CLOCK_EVERY: u64 = 256;

/// One search's bookkeeping.
struct Search {
    nodes: u64,
    max_nodes: u64,
    deadline: Option<Instant>,
    /// Whether this iteration stopped anywhere at the depth limit rather than at the end
    /// of the game; if not, it searched the whole tree and deeper iterations add nothing.
    cut_off: bool,
}

/// The iteration ran out of nodes; its partial results are discarded.
struct OutOfNodes;

impl Search {
    fn visit(&mut self) -> Result<(), OutOfNodes> {
        self.nodes += 1;
        let late = self.nodes.is_multiple_of(CLOCK_EVERY)
            && self
                .deadline
                .is_some_and(|deadline| Instant::now() >= deadline);
        if self.nodes > self.max_nodes || late {
            Err(OutOfNodes)
        } else {
            Ok(())
        }
    }

    /// The negamax value of `game` for the side to move, searched `depth` plies deep.
    fn negamax<G: Evaluate>(
        &mut self,
        game: &G,
        depth: u32,
        ply: i32,
        mut alpha: i32,
        beta: i32,
    ) -> Result<i32, OutOfNodes> {
        self.visit()?;
        if let Some(outcome) = game.outcome() {
            return Ok(match outcome.winner {
                // The side that just moved won, so the side to move here has lost.
                Some(_) => -(WIN - ply),
                None => 0,
            });
        }
        if depth == 0 {
            self.cut_off = true;
            return Ok(game.evaluate());
        }
        let mut best = -WIN;
        for mv in game.legal_moves() {
            let mut next = game.clone();
            if next.play(&mv).is_err() {
                continue;
            }
            let value = -self.negamax(&next, depth - 1, ply + 1, -beta, -alpha)?;
            best = best.max(value);
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
        Ok(best)
    }

    /// Every root move with the best value at `depth`; root values are exact (a full
    /// window per move), so ties are true ties.
    fn root<G: Evaluate>(
        &mut self,
        game: &G,
        depth: u32,
    ) -> Result<(Vec<G::Move>, bool), OutOfNodes> {
        let mut best = -WIN - 1;
        let mut chosen = Vec::new();
        for mv in game.legal_moves() {
            let mut next = game.clone();
            if next.play(&mv).is_err() {
                continue;
            }
            let value = -self.negamax(&next, depth - 1, 1, -WIN - 1, WIN + 1)?;
            if value > best {
                best = value;
                chosen.clear();
            }
            if value == best {
                chosen.push(mv);
            }
        }
        // A value beyond any evaluation is a forced result: deeper search cannot change it.
        Ok((chosen, best.abs() > WIN / 2))
    }
}

/// Every move that achieves the best value found within `limits` for the side to move;
/// empty once the game is over. Iterates deeper until `max_depth`, until the result is
/// forced, until no iteration can add anything (the whole game tree was searched), or
/// until the node budget runs out.
pub(super) fn best_moves<G: Evaluate>(game: &G, limits: Limits) -> Vec<G::Move> {
    let mut best = game.legal_moves();
    if best.len() <= 1 {
        return best;
    }
    let mut search = Search {
        nodes: 0,
        max_nodes: limits.max_nodes,
        deadline: limits.deadline,
        cut_off: false,
    };
    for depth in 1..=limits.max_depth {
        search.cut_off = false;
        match search.root(game, depth) {
            Ok((moves, settled)) => {
                best = moves;
                if settled || !search.cut_off {
                    break;
                }
            }
            Err(OutOfNodes) => break,
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::games::tictactoe::TicTacToe;
    use crate::games::{Game, Seat};

    /// `bot:hard`'s default strength, which must be enough to solve tic-tac-toe from any
    /// position (without a deadline, so that a slow test machine cannot cut it short).
    fn hard() -> Limits {
        Limits {
            deadline: None,
            ..crate::bots::Strength::HARD.limits(Instant::now())
        }
    }

    /// The game-theoretic value for the side to move (+1 win, 0 draw, -1 loss), by plain
    /// minimax with memoisation: an oracle written independently of the search above.
    fn solve(game: &TicTacToe, memo: &mut HashMap<u64, i32>) -> i32 {
        if let Some(value) = memo.get(&game.position_hash()) {
            return *value;
        }
        let value = match game.outcome() {
            Some(outcome) => match outcome.winner {
                None => 0,
                Some(winner) if Some(winner) == game.turn() => 1,
                Some(_) => -1,
            },
            None => game
                .legal_moves()
                .iter()
                .map(|mv| {
                    let mut next = game.clone();
                    next.play(mv).unwrap();
                    -solve(&next, memo)
                })
                .max()
                .unwrap(),
        };
        memo.insert(game.position_hash(), value);
        value
    }

    fn reachable(game: &TicTacToe, seen: &mut HashMap<u64, TicTacToe>) {
        if seen.insert(game.position_hash(), game.clone()).is_some() {
            return;
        }
        for mv in game.legal_moves() {
            let mut next = game.clone();
            next.play(&mv).unwrap();
            reachable(&next, seen);
        }
    }

    #[test]
    fn bot_hard_achieves_the_game_theoretic_value_from_every_reachable_position() {
        let mut positions = HashMap::new();
        reachable(&TicTacToe::new(&()), &mut positions);
        let mut memo = HashMap::new();
        let mut checked = 0;
        for game in positions.values().filter(|g| g.outcome().is_none()) {
            let value = solve(game, &mut memo);
            let moves = best_moves(game, hard());
            assert!(!moves.is_empty());
            for mv in moves {
                let mut next = game.clone();
                next.play(&mv).unwrap();
                assert_eq!(
                    -solve(&next, &mut memo),
                    value,
                    "{} plays {mv}",
                    game.position()
                );
            }
            checked += 1;
        }
        // 5,478 reachable positions, of which 958 are finished.
        assert_eq!(checked, 5_478 - 958);
    }

    #[test]
    fn the_start_is_a_draw_and_bot_hard_never_loses_it() {
        let start = TicTacToe::new(&());
        assert_eq!(solve(&start, &mut HashMap::new()), 0);
        let mut game = start;
        while game.outcome().is_none() {
            let mv = best_moves(&game, hard())[0];
            game.play(&mv).unwrap();
        }
        assert_eq!(game.outcome().map(|o| o.winner), Some(None));
        assert_eq!(game.turn(), None::<Seat>);
    }

    #[test]
    fn a_tiny_budget_or_a_past_deadline_still_answers_with_a_legal_move() {
        let game = TicTacToe::new(&());
        let tiny = Limits {
            max_depth: 9,
            max_nodes: 5,
            deadline: None,
        };
        let moves = best_moves(&game, tiny);
        assert!(!moves.is_empty());
        let past = Limits {
            max_depth: 9,
            max_nodes: u64::MAX,
            deadline: Some(Instant::now()),
        };
        let moves = best_moves(&game, past);
        assert!(!moves.is_empty());
        assert!(moves.iter().all(|mv| game.legal_moves().contains(mv)));
    }
}
