//! The rule bot: win now if possible; otherwise avoid any move after which the opponent
//! can win at once or win material (see [`Evaluate::material`]); otherwise play at random.

use super::Deadline;

use rand::Rng;
use rand::seq::IndexedRandom;

use super::Evaluate;
use crate::games::{Game, Seat};

/// Whether playing `mv` in `game` ends the game with `seat` winning.
fn wins<G: Game>(game: &G, mv: &G::Move, seat: Seat) -> bool {
    let mut next = game.clone();
    next.play(mv).is_ok() && next.outcome().is_some_and(|o| o.winner == Some(seat))
}

/// The material `me` has in `game`, where `me` is to move again; a finished game (one
/// the opponent has not won) keeps `before`.
fn kept<G: Evaluate>(game: &G, before: i32) -> i32 {
    if game.outcome().is_some() {
        before
    } else {
        game.material()
    }
}

/// What `me` is sure to keep after playing `mv`: the least material over the opponent's
/// replies, or `None` if a reply wins for the opponent (the worst of all).
fn worst_after<G: Evaluate>(game: &G, mv: &G::Move, me: Seat, before: i32) -> Option<i32> {
    let mut next = game.clone();
    next.play(mv).ok()?;
    let mut worst = before;
    for reply in next.legal_moves() {
        let mut after = next.clone();
        if after.play(&reply).is_err() {
            continue;
        }
        let lost = after
            .outcome()
            .is_some_and(|o| o.winner == Some(me.other()));
        if lost {
            return None;
        }
        worst = worst.min(kept(&after, before));
    }
    Some(worst)
}

/// The rule bot's move; `None` only if the game is over. Among the moves that lose
/// nothing on the opponent's reply it chooses at random; if every move loses something,
/// among those that lose least. Past `deadline` it stops looking at further moves and
/// chooses among those it has judged (any move if it judged none), so a position with a
/// huge number of moves and replies cannot hold a thread for long.
pub(super) fn choose<G: Evaluate, R: Rng + ?Sized>(
    game: &G,
    deadline: Option<Deadline>,
    rng: &mut R,
) -> Option<G::Move> {
    let me = game.turn()?;
    let moves = game.legal_moves();
    let late = || deadline.is_some_and(|deadline| deadline.passed());
    for mv in &moves {
        if wins(game, mv, me) {
            return Some(mv.clone());
        }
        if late() {
            return moves.choose(rng).cloned();
        }
    }
    let before = game.material();
    let mut worst: Vec<Option<i32>> = Vec::with_capacity(moves.len());
    for mv in &moves {
        if late() {
            break;
        }
        worst.push(worst_after(game, mv, me, before));
    }
    if worst.is_empty() {
        return moves.choose(rng).cloned();
    }
    // The most material some move keeps (`None` if every move lets the opponent win).
    let target = worst.iter().copied().max().flatten();
    let safe: Vec<&G::Move> = moves
        .iter()
        .zip(&worst)
        .filter(|(_, worst)| match (target, worst) {
            (Some(target), Some(worst)) => *worst >= target,
            (None, _) => true,
            (Some(_), None) => false,
        })
        .map(|(mv, _)| mv)
        .collect();
    safe.choose(rng).map(|mv| (*mv).clone())
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

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
            let mv = choose(&game, None, &mut StdRng::seed_from_u64(seed)).unwrap();
            assert_eq!(mv.to_string(), "2");
        }
    }

    #[test]
    fn blocks_the_only_threat() {
        // X: 0 1, O: 4; O must block at 2.
        let game = after(&["0", "4", "1"]);
        for seed in 0..20 {
            let mv = choose(&game, None, &mut StdRng::seed_from_u64(seed)).unwrap();
            assert_eq!(mv.to_string(), "2");
        }
    }

    #[test]
    fn past_its_deadline_it_still_answers_a_legal_move() {
        let game = after(&["0", "4"]);
        let past = Some(Deadline::at(Instant::now(), Instant::now));
        for seed in 0..20 {
            let mv = choose(&game, past, &mut StdRng::seed_from_u64(seed)).unwrap();
            assert!(game.legal_moves().contains(&mv));
        }
    }
}
