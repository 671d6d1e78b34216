//! Tests of the search: it finds forced wins and stops within its limits.

use std::collections::HashMap;

use super::*;
use crate::bots::tests::random_positions;
use crate::games::checkers::Checkers;
use crate::games::chess::Chess;
use crate::games::fox_geese::FoxGeese;
use crate::games::tictactoe::TicTacToe;
use crate::games::{Game, Seat};

/// `bot:hard`'s default strength, which must be enough to solve tic-tac-toe from any
/// position (without a deadline, so that a slow test machine cannot cut it short).
fn hard() -> Limits {
    Limits {
        deadline: None,
        ..crate::bots::Strength::HARD.limits(Instant::now)
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
        let moves = analyse(game, &hard()).best;
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
    let analysis = analyse(&start, &hard());
    assert_eq!(analysis.value, 0);
    assert_eq!(analysis.best.len(), 9, "every first move draws");
    let mut game = start;
    while game.outcome().is_none() {
        let mv = analyse(&game, &hard()).best[0];
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
    let analysis = analyse(&game, &tiny);
    assert!(!analysis.best.is_empty());
    assert_eq!(analysis.depth, 0);
    let past = Limits {
        max_depth: 9,
        max_nodes: u64::MAX,
        deadline: Some(crate::bots::Deadline::at(Instant::now(), Instant::now)),
    };
    let moves = analyse(&game, &past).best;
    assert!(!moves.is_empty());
    assert!(moves.iter().all(|mv| game.legal_moves().contains(mv)));
}

#[test]
fn a_forced_win_is_reported_with_its_distance() {
    // X: 0 1, O: 3 4; X to move wins at 2 at once.
    let mut game = TicTacToe::new(&());
    for cell in ["0", "3", "1", "4"] {
        let mv = game.parse_move(cell).unwrap();
        game.play(&mv).unwrap();
    }
    let analysis = analyse(&game, &hard());
    assert_eq!(analysis.value, WIN - 1);
    assert_eq!(analysis.depth, 1);
    assert_eq!(
        analysis
            .best
            .iter()
            .map(|mv| mv.to_string())
            .collect::<Vec<_>>(),
        ["2"]
    );
}

/// The position again with its history forgotten (where the game can be set up from a
/// position), so no line of a short search can meet a repetition or a move-count draw,
/// which depend on the path and so could differ with a transposition table.
fn fresh<G: Game>(game: G, settings: &G::Settings) -> G {
    G::from_position(settings, &game.position()).unwrap_or(game)
}

/// Best moves in a canonical order, to compare as sets.
fn sorted<M: ToString>(moves: &[M]) -> Vec<String> {
    let mut names: Vec<String> = moves.iter().map(ToString::to_string).collect();
    names.sort();
    names
}

/// At a fixed depth, the search with a transposition table (answering only for the
/// depth it was filled at) finds exactly the values and best moves of the search
/// without one; `depth` plies, quiescence included.
fn table_changes_nothing<G: Evaluate>(settings: &G::Settings, count: usize, depth: u32) {
    let limits = Limits {
        max_depth: depth,
        max_nodes: u64::MAX,
        deadline: None,
    };
    let without = Options {
        table: false,
        exact_depth: false,
        selective: false,
    };
    let with = Options {
        table: true,
        exact_depth: true,
        selective: false,
    };
    for game in random_positions::<G>(settings, count, 7) {
        let game = fresh(game, settings);
        let plain = run(&game, &limits, without, &mut Memory::default());
        let tabled = run(&game, &limits, with, &mut Memory::default());
        assert_eq!(plain.value, tabled.value, "{}", game.position());
        assert_eq!(plain.depth, tabled.depth, "{}", game.position());
        assert_eq!(
            sorted(&plain.best),
            sorted(&tabled.best),
            "{}",
            game.position()
        );
    }
}

#[test]
fn the_transposition_table_changes_no_value_at_a_fixed_depth() {
    table_changes_nothing::<TicTacToe>(&(), 30, 4);
    table_changes_nothing::<Checkers>(&Default::default(), 20, 4);
    table_changes_nothing::<FoxGeese>(&Default::default(), 20, 4);
    table_changes_nothing::<Chess>(&(), 8, 3);
}

#[test]
fn the_table_saves_work() {
    let limits = Limits {
        max_depth: 4,
        max_nodes: u64::MAX,
        deadline: None,
    };
    let game = Checkers::new(&Default::default());
    let without = Options {
        table: false,
        exact_depth: false,
        selective: false,
    };
    let plain = run(&game, &limits, without, &mut Memory::default());
    let tabled = run(&game, &limits, Options::PLAY, &mut Memory::default());
    assert!(
        tabled.nodes < plain.nodes,
        "{} >= {}",
        tabled.nodes,
        plain.nodes
    );
}

/// A clock standing at the moment it was first read.
fn frozen() -> Instant {
    static AT: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    *AT.get_or_init(Instant::now)
}

#[test]
fn the_search_reads_the_time_only_from_the_clock_it_is_given() {
    // The deadline is past on the real clock by the time the search runs, but the clock
    // the search is given stands still before it: only the search's own budget stops
    // it, and it solves the game. Were it reading the real clock, it would stop at once.
    let deadline = frozen() + std::time::Duration::from_nanos(1);
    let limits = Limits {
        deadline: Some(crate::bots::Deadline::at(deadline, frozen)),
        ..hard()
    };
    let analysis = analyse(&TicTacToe::new(&()), &limits);
    assert_eq!(analysis.value, 0, "a draw with best play");
    assert!(
        analysis.depth >= 9,
        "searched to the end: {}",
        analysis.depth
    );
}

#[test]
fn only_a_search_that_reached_every_end_calls_its_value_solved() {
    let whole = analyse(&TicTacToe::new(&()), &hard());
    assert!(whole.solved, "tic-tac-toe is searched to the end");
    assert_eq!(whole.value, 0);
    let shallow = Limits {
        max_depth: 2,
        ..hard()
    };
    assert!(
        !analyse(&TicTacToe::new(&()), &shallow).solved,
        "two plies reach no end of the game"
    );
    let chess = analyse(&Chess::new(&()), &shallow);
    assert!(!chess.solved, "an estimate is not a result");
}

#[test]
fn a_search_starts_from_what_the_last_one_left_in_memory() {
    let game = Chess::from_position(
        &(),
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    )
    .unwrap();
    let limits = Limits {
        max_depth: 6,
        max_nodes: u64::MAX,
        deadline: None,
    };
    let mut memory = Memory::default();
    let first = analyse_with(&game, &limits, &mut memory);
    let again = analyse_with(&game, &limits, &mut memory);
    assert_eq!(first.depth, 6);
    assert_eq!(again.depth, 6);
    assert!(
        again.nodes * 2 < first.nodes,
        "the second search visits {} positions, the first {}",
        again.nodes,
        first.nodes
    );
    let fresh = analyse(&game, &limits);
    assert_eq!(
        fresh.nodes, first.nodes,
        "a fresh search forgets everything"
    );
}
