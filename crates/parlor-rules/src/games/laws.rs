//! The laws every game obeys, as generic checks that each game's property tests share:
//! listed moves play and read back, unlisted moves change nothing, seats alternate from
//! seat 0, a finished game has a result and no moves, and play always ends.

use std::fmt::Debug;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use super::{Game, MoveError, Seat};

/// A small deterministic random source for test play (xorshift64), seeded by proptest.
pub struct TestRng(u64);

impl TestRng {
    /// A generator from any seed (zero is mapped to a usable state).
    pub fn new(seed: u64) -> Self {
        Self(seed | 1)
    }

    /// A number in `0..n`; `n` must not be zero.
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Plays the move at `index % len` of the legal moves for each index, stopping at the
/// end; returns the seat that made each move.
pub fn play_indices<G: Game>(game: &mut G, indices: &[usize]) -> Vec<Seat> {
    let mut movers = Vec::new();
    for index in indices {
        let Some(seat) = game.turn() else { break };
        let moves = game.legal_moves();
        game.play(&moves[index % moves.len()])
            .expect("a listed move plays");
        movers.push(seat);
    }
    movers
}

/// Plays random legal moves until the game ends or `max_plies` moves were made;
/// returns the moves made, in notation.
pub fn play_randomly<G: Game>(game: &mut G, seed: u64, max_plies: usize) -> Vec<String> {
    let mut rng = TestRng::new(seed);
    let mut moves = Vec::new();
    while moves.len() < max_plies && game.turn().is_some() {
        let legal = game.legal_moves();
        let mv = &legal[rng.below(legal.len())];
        game.play(mv).expect("a listed move plays");
        moves.push(mv.to_string());
    }
    moves
}

/// Every listed move plays, passes the turn, and its notation reads back as the same move.
pub fn listed_moves_play<G: Game + Debug>(game: &G) -> Result<(), TestCaseError>
where
    G::Move: Debug,
{
    for mv in game.legal_moves() {
        let mut next = game.clone();
        prop_assert!(next.play(&mv).is_ok(), "{mv} is listed but refused");
        prop_assert_ne!(next.turn(), game.turn());
        prop_assert_eq!(game.parse_move(&mv.to_string()), Ok(mv));
    }
    Ok(())
}

/// Every candidate that is not a listed move is refused and leaves the whole game (as
/// `Debug` shows it) unchanged.
pub fn unlisted_moves_change_nothing<G: Game + Debug>(
    game: &G,
    candidates: impl IntoIterator<Item = G::Move>,
) -> Result<(), TestCaseError> {
    let legal = game.legal_moves();
    let before = format!("{game:?}");
    for mv in candidates.into_iter().filter(|mv| !legal.contains(mv)) {
        let mut next = game.clone();
        prop_assert!(next.play(&mv).is_err(), "{mv} is not listed but played");
        prop_assert_eq!(&format!("{next:?}"), &before);
    }
    Ok(())
}

/// The seats that made consecutive moves alternate, starting with seat 0.
pub fn seats_alternate(movers: &[Seat]) -> Result<(), TestCaseError> {
    for (ply, seat) in movers.iter().enumerate() {
        prop_assert_eq!(
            seat.index(),
            ply % 2,
            "move {} was made out of turn",
            ply + 1
        );
    }
    Ok(())
}

/// A game is over exactly when it has a result, and then it has no moves and refuses
/// `any_move` (some move of the game) with `GameOver`, unchanged.
pub fn finished_means_no_moves<G: Game + Debug>(
    game: &G,
    any_move: &G::Move,
) -> Result<(), TestCaseError> {
    let over = game.outcome().is_some();
    prop_assert_eq!(game.turn().is_none(), over);
    prop_assert_eq!(game.legal_moves().is_empty(), over);
    if over {
        let mut next = game.clone();
        prop_assert_eq!(next.play(any_move), Err(MoveError::GameOver));
        prop_assert_eq!(format!("{next:?}"), format!("{game:?}"));
    }
    Ok(())
}
