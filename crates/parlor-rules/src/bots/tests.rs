//! Tests across levels and games: legality under tiny budgets, tactics, the rule bot.

use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

use super::*;
use crate::games::checkers::Checkers;
use crate::games::chess::Chess;
use crate::games::fox_geese::FoxGeese;
use crate::games::tictactoe::TicTacToe;
use crate::games::{EndReason, Seat};

/// `count` unfinished positions reached by random play from the start (up to 80 plies),
/// the same for the same `seed`.
pub(super) fn random_positions<G: Game>(settings: &G::Settings, count: usize, seed: u64) -> Vec<G> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut positions = Vec::with_capacity(count);
    while positions.len() < count {
        let mut game = G::new(settings);
        for _ in 0..rng.random_range(0..80) {
            let Some(mv) = game.legal_moves().choose(&mut rng).cloned() else {
                break;
            };
            game.play(&mv).unwrap();
        }
        if game.outcome().is_none() {
            positions.push(game);
        }
    }
    positions
}

/// Budgets far too small to search properly: a few hundred positions, a few
/// milliseconds, or a deadline already past.
fn tiny_budgets() -> [Limits; 3] {
    let now = Instant::now();
    [
        Limits {
            max_depth: 64,
            max_nodes: 300,
            deadline: None,
        },
        Limits {
            max_depth: 64,
            max_nodes: u64::MAX,
            deadline: Some(Deadline::at(now + Duration::from_millis(3), Instant::now)),
        },
        Limits {
            max_depth: 64,
            max_nodes: u64::MAX,
            deadline: Some(Deadline::at(now, Instant::now)),
        },
    ]
}

/// Every level answers every position with one of its legal moves.
fn every_level_plays_legally<G: Evaluate>(settings: &G::Settings, count: usize) {
    let mut rng = StdRng::seed_from_u64(1);
    for (n, game) in random_positions::<G>(settings, count, 2).iter().enumerate() {
        let legal = game.legal_moves();
        for &level in BotLevel::ALL {
            let limits = tiny_budgets()[n % 3];
            let mv = choose_move(game, level, &limits, &mut Memory::default(), &mut rng);
            let mv = mv.unwrap_or_else(|| panic!("{level} has no move in {}", game.position()));
            assert!(
                legal.contains(&mv),
                "{level} plays {mv} in {}",
                game.position()
            );
        }
    }
}

#[test]
fn every_level_plays_a_legal_move_on_a_tiny_budget() {
    every_level_plays_legally::<TicTacToe>(&(), 150);
    every_level_plays_legally::<Checkers>(&Default::default(), 150);
    every_level_plays_legally::<FoxGeese>(&Default::default(), 150);
    every_level_plays_legally::<Chess>(&(), 150);
}

#[test]
fn no_level_moves_once_the_game_is_over() {
    let mut game = TicTacToe::new(&());
    for cell in ["0", "3", "1", "4", "2"] {
        let mv = game.parse_move(cell).unwrap();
        game.play(&mv).unwrap();
    }
    let mut rng = StdRng::seed_from_u64(0);
    for &level in BotLevel::ALL {
        assert_eq!(
            choose_move(
                &game,
                level,
                &tiny_budgets()[0],
                &mut Memory::default(),
                &mut rng
            ),
            None
        );
    }
}

fn chess(fen: &str) -> Chess {
    Chess::from_position(&(), fen).unwrap()
}

fn play(game: &mut impl Game, text: &str) {
    let mv = game.parse_move(text).unwrap();
    game.play(&mv).unwrap();
}

/// Whether the side to move in `game` can mate at once.
fn mates_in_one(game: &Chess) -> bool {
    game.legal_moves().iter().any(|mv| {
        let mut next = game.clone();
        next.play(mv).unwrap();
        next.outcome()
            .is_some_and(|o| o.reason == EndReason::Checkmate)
    })
}

/// Whether `mv` forces mate on the next move against every defence.
fn forces_mate_in_two(game: &Chess, mv: &<Chess as Game>::Move) -> bool {
    let mut next = game.clone();
    next.play(mv).unwrap();
    next.outcome().is_none()
        && next.legal_moves().iter().all(|reply| {
            let mut after = next.clone();
            after.play(reply).unwrap();
            mates_in_one(&after)
        })
}

#[test]
fn bot_hard_finds_a_mate_in_two() {
    // Légal's trap: after 5...Bxd1, 6.Bxf7+ Ke7 7.Nd5#.
    let mut game = Chess::new(&());
    for mv in [
        "e4", "e5", "Nf3", "d6", "Bc4", "Bg4", "Nc3", "g6", "Nxe5", "Bxd1",
    ] {
        play(&mut game, mv);
    }
    assert!(!mates_in_one(&game));
    assert!(forces_mate_in_two(
        &game,
        &game.parse_move("Bxf7+").unwrap()
    ));
    let limits = Limits {
        deadline: None,
        ..Strength::HARD.limits(Instant::now)
    };
    let analysis = analyse(&game, &limits);
    assert_eq!(analysis.value, search::WIN - 3);
    assert!(!analysis.best.is_empty());
    for mv in &analysis.best {
        assert!(forces_mate_in_two(&game, mv), "{mv}");
    }
    let mut rng = StdRng::seed_from_u64(3);
    let mv = choose_move(
        &game,
        BotLevel::Hard,
        &limits,
        &mut Memory::default(),
        &mut rng,
    )
    .unwrap();
    assert!(forces_mate_in_two(&game, &mv));
}

#[test]
fn the_searching_bots_take_a_hanging_queen_and_see_a_recapture() {
    let mut rng = StdRng::seed_from_u64(4);
    let limits = Limits {
        deadline: None,
        ..Strength::MEDIUM.limits(Instant::now)
    };
    // The black queen on d5 hangs to the e4 pawn.
    let free = chess("4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1");
    for level in [BotLevel::Medium, BotLevel::Hard] {
        let mv = choose_move(&free, level, &limits, &mut Memory::default(), &mut rng).unwrap();
        assert_eq!(mv.to_string(), "e4d5", "{level}");
    }
    // The knight on d5 is defended by the c6 pawn: taking it with the queen loses her.
    let defended = chess("4k3/8/2p5/3n4/8/8/3Q4/4K3 w - - 0 1");
    for level in [BotLevel::Medium, BotLevel::Hard] {
        let mv = choose_move(&defended, level, &limits, &mut Memory::default(), &mut rng).unwrap();
        assert_ne!(mv.to_string(), "d2d5", "{level}");
    }
}

#[test]
fn bot_easy_never_hangs_its_queen() {
    // The queen on d1 is lost on d5 (two pawns guard it), d7 and d8 (the king takes).
    let game = chess("4k3/8/2p1p3/8/8/8/8/3QK3 w - - 0 1");
    let hanging = ["d1d5", "d1d7", "d1d8"];
    assert!(hanging.iter().all(|mv| game.parse_move(mv).is_ok()));
    for seed in 0..40 {
        let mv = choose_move(
            &game,
            BotLevel::Easy,
            &tiny_budgets()[0],
            &mut Memory::default(),
            &mut StdRng::seed_from_u64(seed),
        );
        let mv = mv.unwrap().to_string();
        assert!(!hanging.contains(&mv.as_str()), "plays {mv}");
    }
}

#[test]
fn bot_easy_never_steps_into_a_jump() {
    // Black's man on 18 is jumped (27x18) if it steps to 23; 18-22, 1-5 and 1-6 are safe.
    let game = Checkers::from_position(&Default::default(), "B:W27:B1,18").unwrap();
    assert_eq!(game.legal_moves().len(), 4);
    let mut seen = std::collections::HashSet::new();
    for seed in 0..40 {
        let mv = choose_move(
            &game,
            BotLevel::Easy,
            &tiny_budgets()[0],
            &mut Memory::default(),
            &mut StdRng::seed_from_u64(seed),
        );
        let mv = mv.unwrap().to_string();
        assert_ne!(mv, "18-23");
        seen.insert(mv);
    }
    assert_eq!(
        seen.len(),
        3,
        "the safe moves are chosen at random: {seen:?}"
    );
}

#[test]
fn bot_easy_keeps_the_rules_it_had_in_tic_tac_toe() {
    // X: 0 1, O: 4; O must block at 2.
    let mut game = TicTacToe::new(&());
    for cell in ["0", "4", "1"] {
        play(&mut game, cell);
    }
    for seed in 0..20 {
        let mv = choose_move(
            &game,
            BotLevel::Easy,
            &tiny_budgets()[0],
            &mut Memory::default(),
            &mut StdRng::seed_from_u64(seed),
        );
        assert_eq!(mv.unwrap().to_string(), "2");
    }
    assert_eq!(game.turn(), Some(Seat::Second));
}
