//! Negamax with alpha-beta pruning to the end of the game, for games small enough to
//! search completely. Scores prefer quicker wins and slower losses.

use crate::games::Game;

/// The value of a win found `ply` moves from the root; losses are the negation.
const WIN: i32 = 1_000;

/// The negamax value of `game` for the side to move, searched to the end.
fn negamax<G: Game>(game: &G, ply: i32, mut alpha: i32, beta: i32) -> i32 {
    if let Some(outcome) = game.outcome() {
        return match outcome.winner {
            // The side that just moved won, so the side to move here has lost.
            Some(_) => -(WIN - ply),
            None => 0,
        };
    }
    let mut best = -WIN;
    for mv in game.legal_moves() {
        let mut next = game.clone();
        if next.play(&mv).is_err() {
            continue;
        }
        let value = -negamax(&next, ply + 1, -beta, -alpha);
        best = best.max(value);
        alpha = alpha.max(value);
        if alpha >= beta {
            break;
        }
    }
    best
}

/// Every move that achieves the best value for the side to move (exact values at the
/// root, so ties are true ties); empty once the game is over.
pub(super) fn best_moves<G: Game>(game: &G) -> Vec<G::Move> {
    let mut best = -WIN - 1;
    let mut chosen = Vec::new();
    for mv in game.legal_moves() {
        let mut next = game.clone();
        if next.play(&mv).is_err() {
            continue;
        }
        // A full window at the root keeps every move's value exact.
        let value = -negamax(&next, 1, -WIN - 1, WIN + 1);
        if value > best {
            best = value;
            chosen.clear();
        }
        if value == best {
            chosen.push(mv);
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::games::tictactoe::TicTacToe;
    use crate::games::{Game, Seat};

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
    fn hard_achieves_the_game_theoretic_value_from_every_reachable_position() {
        let mut positions = HashMap::new();
        reachable(&TicTacToe::new(&()), &mut positions);
        let mut memo = HashMap::new();
        let mut checked = 0;
        for game in positions.values().filter(|g| g.outcome().is_none()) {
            let value = solve(game, &mut memo);
            let moves = best_moves(game);
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
    fn the_start_is_a_draw_and_hard_never_loses_it() {
        let start = TicTacToe::new(&());
        assert_eq!(solve(&start, &mut HashMap::new()), 0);
        // Hard against hard, always taking the first best move, draws.
        let mut game = start;
        while game.outcome().is_none() {
            let mv = best_moves(&game)[0];
            game.play(&mv).unwrap();
        }
        assert_eq!(game.outcome().map(|o| o.winner), Some(None));
        assert_eq!(game.turn(), None::<Seat>);
    }
}
