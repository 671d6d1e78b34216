//! The rule bot: win now if possible; otherwise avoid any move after which the opponent
//! can win at once; otherwise play at random.

use rand::Rng;
use rand::seq::IndexedRandom;

use crate::games::{Game, Seat};

/// Whether playing `mv` in `game` ends the game with `seat` winning.
fn wins<G: Game>(game: &G, mv: &G::Move, seat: Seat) -> bool {
    let mut next = game.clone();
    next.play(mv).is_ok() && next.outcome().is_some_and(|o| o.winner == Some(seat))
}

/// The rule bot's move; `None` only if the game is over.
pub(super) fn choose<G: Game, R: Rng + ?Sized>(game: &G, rng: &mut R) -> Option<G::Move> {
    let me = game.turn()?;
    let moves = game.legal_moves();
    if let Some(winning) = moves.iter().find(|mv| wins(game, mv, me)) {
        return Some(winning.clone());
    }
    let safe: Vec<&G::Move> = moves
        .iter()
        .filter(|mv| {
            let mut next = game.clone();
            next.play(mv).is_ok()
                && !next
                    .legal_moves()
                    .iter()
                    .any(|reply| wins(&next, reply, me.other()))
        })
        .collect();
    match safe.choose(rng) {
        Some(mv) => Some((*mv).clone()),
        None => moves.choose(rng).cloned(),
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    use super::*;
    use crate::games::tictactoe::TicTacToe;

    fn after(moves: &[&str]) -> TicTacToe {
        let mut game = TicTacToe::new(&());
        for text in moves {
            let mv = game.parse_move(text).unwrap();
            game.play(&mv).unwrap();
        }
        game
    }

    #[test]
    fn takes_a_win_when_there_is_one() {
        // X: 0 1, O: 3 4; X to move wins at 2 (O would also win at 5).
        let game = after(&["0", "3", "1", "4"]);
        for seed in 0..20 {
            let mv = choose(&game, &mut StdRng::seed_from_u64(seed)).unwrap();
            assert_eq!(mv.to_string(), "2");
        }
    }

    #[test]
    fn blocks_the_only_threat() {
        // X: 0 1, O: 4; O must block at 2.
        let game = after(&["0", "4", "1"]);
        for seed in 0..20 {
            let mv = choose(&game, &mut StdRng::seed_from_u64(seed)).unwrap();
            assert_eq!(mv.to_string(), "2");
        }
    }
}
