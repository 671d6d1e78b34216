//! What every game's fuzz target checks: a position read from arbitrary text, then a
//! series of moves picked from the legal list by index or written as arbitrary text.

use std::fmt::Debug;

use parlor_rules::games::{Game, PositionError};

/// Plays `data` against `G` and panics if a rule's invariant breaks.
///
/// `data` is the start position up to the first newline (empty: the standard start),
/// then a series of operations, one byte each plus its argument: an even byte plays the
/// legal move at the index the next two bytes give (modulo the list's length); an odd byte plays the text in the next
/// `n` bytes (`n` from the byte's upper bits) through `parse_move`. Checked after every
/// step: the list has at most `most_moves` moves, every listed move plays and reads back
/// through its notation, a refused move leaves the game exactly as it was, and a game
/// with no listed move is over.
pub fn exercise<G: Game + Debug>(settings: &G::Settings, data: &[u8], most_moves: usize)
where
    G::Move: Debug,
{
    let (position, mut ops) = match data.iter().position(|&b| b == b'\n') {
        Some(end) => (&data[..end], &data[end + 1..]),
        None => (data, &[][..]),
    };
    let mut game = if position.is_empty() {
        G::new(settings)
    } else {
        let Ok(text) = std::str::from_utf8(position) else {
            return;
        };
        match G::from_position(settings, text) {
            Ok(game) => game,
            Err(_) => return,
        }
    };
    check_list(settings, &game, most_moves);
    while let Some((&op, rest)) = ops.split_first() {
        ops = rest;
        let before = format!("{game:?}");
        if op % 2 == 0 {
            let legal = game.legal_moves();
            if ops.len() < 2 {
                break;
            }
            let index = u16::from_le_bytes([ops[0], ops[1]]);
            ops = &ops[2..];
            if legal.is_empty() {
                continue;
            }
            let mv = &legal[usize::from(index) % legal.len()];
            let turn = game.turn();
            game.play(mv)
                .unwrap_or_else(|e| panic!("listed {mv} refused: {e}"));
            assert_ne!(game.turn(), turn, "{mv} did not pass the turn");
        } else {
            let len = usize::from(op >> 1).min(ops.len());
            let (text, rest) = ops.split_at(len);
            ops = rest;
            let text = String::from_utf8_lossy(text);
            // `parse_move` only reads the game; `play` must leave it as it was on error.
            if let Ok(mv) = game.parse_move(&text) {
                let turn = game.turn();
                match game.play(&mv) {
                    Ok(()) => assert_ne!(game.turn(), turn, "`{text}` did not pass the turn"),
                    Err(_) => assert_eq!(
                        format!("{game:?}"),
                        before,
                        "`{text}` was refused but changed the game"
                    ),
                }
            }
        }
        check_list(settings, &game, most_moves);
    }
}

/// The list is bounded, every listed move plays and reads back, an empty list means the
/// game is over, and the position's text reads back as a position.
fn check_list<G: Game + Debug>(settings: &G::Settings, game: &G, most_moves: usize)
where
    G::Move: Debug,
{
    let legal = game.legal_moves();
    assert!(
        legal.len() <= most_moves,
        "{} moves in {}",
        legal.len(),
        game.position()
    );
    assert_eq!(
        legal.is_empty(),
        game.turn().is_none(),
        "{}",
        game.position()
    );
    assert_eq!(game.outcome().is_some(), game.turn().is_none());
    for mv in &legal {
        let mut next = game.clone();
        next.play(mv)
            .unwrap_or_else(|e| panic!("listed {mv} refused in {}: {e}", game.position()));
        assert_eq!(game.parse_move(&mv.to_string()).as_ref(), Ok(mv));
    }
    match G::from_position(settings, &game.position()) {
        Ok(_) | Err(PositionError::Unsupported) => {}
        Err(e) => panic!("the reached position {} is refused: {e}", game.position()),
    }
}

/// A bound on a checkers move list, with margin over the longest found by search (see
/// docs/RELIABILITY.md).
pub const CHECKERS_MOST_MOVES: usize = 200;
