//! Perft: the number of move sequences of a given length, the standard check of a move
//! generator against published counts.

use super::Game;

/// How many distinct sequences of `depth` legal moves start from `game` (a finished game
/// has none beyond depth 0). Leaves are counted in bulk from `legal_moves`.
pub fn perft<G: Game>(game: &G, depth: u32) -> u64 {
    let moves = game.legal_moves();
    match depth {
        0 => 1,
        1 => moves.len() as u64,
        _ => moves
            .iter()
            .map(|mv| {
                let mut next = game.clone();
                match next.play(mv) {
                    Ok(()) => perft(&next, depth - 1),
                    Err(_) => 0,
                }
            })
            .sum(),
    }
}
