//! Tests of English checkers: perft counts, jumps and crowning, endings, notation.

use std::collections::HashSet;

use proptest::prelude::*;

use super::*;
use crate::games::{laws, perft};

fn start() -> Checkers {
    Checkers::new(&Settings::default())
}

fn at(fen: &str) -> Checkers {
    Checkers::from_position(&Settings::default(), fen).unwrap()
}

fn texts(game: &Checkers) -> Vec<String> {
    game.legal_moves().iter().map(ToString::to_string).collect()
}

fn play(game: &mut Checkers, moves: &[&str]) {
    for text in moves {
        let mv = game.parse_move(text).unwrap();
        game.play(&mv).unwrap();
    }
}

fn illegal_why(game: &Checkers, text: &str) -> &'static str {
    let mut copy = game.clone();
    let refusal = match game.parse_move(text) {
        Ok(mv) => copy.play(&mv).unwrap_err(),
        Err(error) => error,
    };
    assert_eq!(&copy, game, "a refused move changed the game");
    match refusal {
        MoveError::Illegal { why, .. } => why,
        other => panic!("`{text}` refused with {other:?}"),
    }
}

fn win(seat: Seat) -> Option<Outcome> {
    Some(Outcome {
        winner: Some(seat),
        reason: EndReason::NoMoves,
    })
}

fn draw(reason: EndReason) -> Option<Outcome> {
    Some(Outcome {
        winner: None,
        reason,
    })
}

#[test]
fn perft_matches_the_published_english_draughts_counts() {
    let game = start();
    let expected = [1, 7, 49, 302, 1_469, 7_361, 36_768, 179_740, 845_931];
    for (depth, count) in expected.into_iter().enumerate() {
        assert_eq!(perft(&game, depth as u32), count, "depth {depth}");
    }
}

#[test]
fn the_start_position_and_its_moves() {
    let game = start();
    assert_eq!(
        game.position(),
        "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    );
    assert_eq!(game.turn(), Some(Seat::First));
    assert_eq!(
        texts(&game),
        ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]
    );
    assert_eq!(game.outcome(), None);
}

#[test]
fn capturing_is_mandatory() {
    let game = at("B:W22:B1,18");
    assert_eq!(texts(&game), ["18x25"]);
    assert_eq!(
        illegal_why(&game, "18-23"),
        "a capture is available, so it must be taken"
    );
    assert_eq!(
        illegal_why(&game, "1-6"),
        "a capture is available, so it must be taken"
    );
}

#[test]
fn a_double_jump_is_one_move_and_taking_everything_wins() {
    let mut game = at("W:W22:B10,18");
    assert_eq!(texts(&game), ["22x15x6"]);
    assert_eq!(
        illegal_why(&game, "22x15"),
        "the capture can continue, so it must continue; list every landing square"
    );
    play(&mut game, &["22x15x6"]);
    assert_eq!(game.position(), "B:W6:B");
    assert_eq!(game.outcome(), win(Seat::Second));
    assert_eq!(game.turn(), None);
}

#[test]
fn a_triple_jump_is_one_move() {
    let mut game = at("W:W30:B1,11,19,26");
    assert_eq!(texts(&game), ["30x23x16x7"]);
    play(&mut game, &["30x23x16x7"]);
    assert_eq!(game.position(), "B:W7:B1");
    assert_eq!(game.turn(), Some(Seat::First));
}

#[test]
fn a_shorter_capture_sequence_may_be_chosen() {
    // One man can take one piece or two; another can take one.
    let game = at("W:W22,28:B10,17,18,24");
    assert_eq!(texts(&game), ["22x13", "22x15x6", "28x19"]);
    for (text, after) in [
        ("22x13", "B:W13,28:B10,18,24"),
        ("28x19", "B:W19,22:B10,17,18"),
    ] {
        let mut next = game.clone();
        play(&mut next, &[text]);
        assert_eq!(next.position(), after);
    }
}

#[test]
fn crowning_ends_the_move() {
    // After 11x2 the new king could jump 6 backwards, but its move is over.
    let mut game = at("W:W11:B6,7");
    assert_eq!(texts(&game), ["11x2"]);
    play(&mut game, &["11x2"]);
    assert_eq!(game.position(), "B:WK2:B6");
    // Black's men crown on 29-32 the same way.
    let mut game = at("B:W25,26:B21");
    assert_eq!(texts(&game), ["21x30"]);
    play(&mut game, &["21x30"]);
    assert_eq!(game.position(), "W:W26:BK30");
}

#[test]
fn a_simple_move_to_the_far_row_crowns() {
    let mut game = at("W:W5:B27");
    play(&mut game, &["5-1"]);
    assert_eq!(game.position(), "B:WK1:B27");
}

#[test]
fn kings_move_and_jump_backward_but_men_do_not() {
    let game = at("W:WK6:B10");
    assert_eq!(texts(&game), ["6x15"]);
    let game = at("W:W6:B10");
    assert_eq!(texts(&game), ["6-1", "6-2"]);
    let game = at("W:WK6:B27");
    assert_eq!(texts(&game), ["6-9", "6-10", "6-1", "6-2"]);
}

#[test]
fn no_piece_is_jumped_twice() {
    // From 22 the king could only go on by jumping 18 again.
    let game = at("W:WK15:B18");
    assert_eq!(texts(&game), ["15x22"]);
}

#[test]
fn the_start_square_counts_as_empty() {
    // A king's circle of four jumps ends where it began, in either direction.
    let mut game = at("W:WK15:B18,19,26,27");
    assert_eq!(texts(&game), ["15x22x31x24x15", "15x24x31x22x15"]);
    play(&mut game, &["15x24x31x22x15"]);
    assert_eq!(game.position(), "B:WK15:B");
    assert_eq!(game.outcome(), win(Seat::Second));
}

#[test]
fn the_short_form_names_a_jump_when_only_one_path_fits() {
    let game = at("W:W22:B10,18");
    let mv = game.parse_move("22x6").unwrap();
    assert_eq!(mv.to_string(), "22x15x6");
    assert_eq!(mv.squares().collect::<Vec<_>>(), [22, 15, 6]);
    assert!(mv.is_capture());
    assert_eq!(game.parse_move("22X15X6").unwrap(), mv);

    let circle = at("W:WK15:B18,19,26,27");
    assert_eq!(
        illegal_why(&circle, "15x15"),
        "several capture paths join those squares; list every landing square"
    );
    assert_eq!(illegal_why(&circle, "15x31"), "not a legal move here");
}

#[test]
fn refusals_explain_and_change_nothing() {
    let game = start();
    assert_eq!(
        illegal_why(&game, "21-17"),
        "you have no piece on the square the move starts from"
    );
    assert_eq!(illegal_why(&game, "11-18"), "not a legal move here");
    assert_eq!(illegal_why(&game, "1-5"), "not a legal move here");
    assert_eq!(illegal_why(&game, "9x18"), "not a legal move here");
    assert_eq!(
        illegal_why(&game, "1x10x19x28x19x10x1x10x19x28x19x10x1x10"),
        "no move jumps more than twelve pieces"
    );
    for bad in [
        "", "9", "9-", "-13", "9-13-17", "9--13", "9x13-17", "0-5", "33-1", "09-13", " 9-13",
        "9-13 ", "a-b", "9 - 13", "+9-13",
    ] {
        assert!(
            matches!(game.parse_move(bad), Err(MoveError::Unparseable { .. })),
            "{bad:?}"
        );
    }
}

#[test]
fn positions_round_trip_through_fen() {
    for fen in [
        "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
        "W:WK3,21,22:B1,27,K30",
        "B:W:BK1",
    ] {
        let game = at(fen);
        assert_eq!(game.position(), fen);
        assert_eq!(at(&game.position()), game);
    }
    for (loose, canonical) in [
        (
            "B:B1-12:W21-32",
            "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
        ),
        (" W : BK1-3, 12 : W K32,21. ", "W:W21,K32:BK1,K2,K3,12"),
    ] {
        assert_eq!(at(loose).position(), canonical);
    }
}

#[test]
fn bad_fen_is_refused_with_a_reason() {
    for (fen, reason) in [
        ("", "no side to move"),
        ("W21:B1", "no side to move"),
        ("X:W21:B1", "no side to move"),
        ("B:W33:B1", "`33` is not a square"),
        ("B:W0:B1", "`0` is not a square"),
        ("B:Wx:B1", "`x` is not a square"),
        ("B:W1:B1", "square 1 is listed twice"),
        ("B:W5-7:B6", "square 6 is listed twice"),
        ("B:W7-5:B1", "runs backwards"),
        ("B:W1,,2:B3", "an empty entry"),
        ("B:W21", "no section for Black"),
        ("B:W21:W22", "White has two piece sections"),
        ("B:W21:B1:Q3", "`Q3` is not a piece section"),
        ("B:W1-13:B20", "White has 13 pieces"),
        (
            "B:W21:B30",
            "a Black man stands on the row where it would have been crowned",
        ),
    ] {
        match Checkers::from_position(&Settings::default(), fen) {
            Err(PositionError::Invalid(message)) => {
                assert!(message.contains(reason), "{fen:?}: {message}");
            }
            other => panic!("{fen:?} gave {other:?}"),
        }
    }
}

#[test]
fn the_board_view_numbers_the_dark_squares() {
    let mut game = start();
    play(&mut game, &["11-15"]);
    let BoardView::Grid {
        rows,
        cols,
        cells,
        labels,
    } = game.board();
    assert_eq!((rows, cols), (8, 8));
    assert_eq!((cells.len(), labels.len()), (64, 64));
    assert_eq!(labels[0], None);
    assert_eq!(labels[1].as_deref(), Some("1"));
    assert_eq!(labels[8].as_deref(), Some("5"));
    assert_eq!(labels[7].as_deref(), Some("4"));
    assert_eq!(labels[56].as_deref(), Some("29"));
    assert_eq!(labels[62].as_deref(), Some("32"));
    assert_eq!(labels[63], None);
    assert_eq!(cells[1], Some('b'));
    assert_eq!(cells[21], None); // square 11 (row 2, column 5) is now empty
    assert_eq!(cells[28], Some('b')); // square 15 (row 3, column 4)
    assert_eq!(cells[62], Some('w'));
    let kings = at("B:WK29:BK4").board();
    let BoardView::Grid { cells, .. } = kings;
    assert_eq!(cells[7], Some('B'));
    assert_eq!(cells[56], Some('W'));
    assert_eq!(cells.iter().flatten().count(), 2);
}

#[test]
fn a_side_without_moves_loses() {
    let mut game = at("W:W29:B22,25");
    assert_eq!(game.outcome(), win(Seat::First));
    assert_eq!(game.turn(), None);
    assert!(game.legal_moves().is_empty());
    let before = game.clone();
    let mv = game.parse_move("29-25").unwrap();
    assert_eq!(game.play(&mv), Err(MoveError::GameOver));
    assert_eq!(game, before);
}

#[test]
fn quiet_moves_by_each_side_draw() {
    let settings = Settings { quiet_moves: 2 };
    let mut game = Checkers::from_position(&settings, "B:WK32:BK1,9").unwrap();
    // A man's move resets the count.
    play(
        &mut game,
        &["1-6", "32-27", "9-13", "27-23", "6-10", "23-19"],
    );
    assert_eq!(game.outcome(), None);
    play(&mut game, &["10-14"]);
    assert_eq!(game.outcome(), draw(EndReason::FortyMoves));
    assert_eq!(game.turn(), None);
    assert!(game.legal_moves().is_empty());
    // A capture resets it too.
    let mut game = Checkers::from_position(&settings, "B:WK20,K32:BK1,K11").unwrap();
    play(
        &mut game,
        &["1-5", "20-16", "11x20", "32-27", "5-1", "27-32"],
    );
    assert_eq!(game.outcome(), None);
    play(&mut game, &["1-5"]);
    assert_eq!(game.outcome(), draw(EndReason::FortyMoves));
}

#[test]
fn a_move_that_leaves_no_reply_wins_even_as_it_completes_the_quiet_count() {
    let settings = Settings { quiet_moves: 1 };
    let mut game = Checkers::from_position(&settings, "B:WK12,11,15,25,30:BK8,21").unwrap();
    play(&mut game, &["8-4", "12-8"]);
    assert_eq!(game.outcome(), win(Seat::Second));
}

#[test]
fn a_third_repetition_draws() {
    let mut game = at("B:WK32:BK1");
    let shuffle = ["1-6", "32-27", "6-1", "27-32"];
    play(&mut game, &shuffle);
    play(&mut game, &shuffle[..3]);
    assert_eq!(game.outcome(), None);
    play(&mut game, &shuffle[3..]);
    assert_eq!(game.outcome(), draw(EndReason::ThreefoldRepetition));
    assert_eq!(game.turn(), None);
}

#[test]
fn a_game_from_a_position_starts_with_fresh_counters() {
    let mut game = at("B:WK32:BK1");
    play(&mut game, &["1-6", "32-27", "6-1", "27-32"]);
    let fresh = at(&game.position());
    assert_ne!(fresh, game);
    assert_eq!(fresh.position(), game.position());
    assert_eq!(fresh.position_hash(), game.position_hash());
}

#[test]
fn hashes_follow_pieces_and_side_to_move() {
    let game = start();
    assert_eq!(game.position_hash(), start().position_hash());
    let white_to_move = at("W:W21,22,23,24,25,26,27,28,29,30,31,32:B1-12");
    assert_ne!(game.position_hash(), white_to_move.position_hash());
    let mut hashes = HashSet::new();
    for mv in game.legal_moves() {
        let mut next = game.clone();
        next.play(&mv).unwrap();
        assert!(hashes.insert(next.position_hash()));
    }
    // Transpositions meet: 9-13 then 10-15 equals 10-15 then 9-13 (after any reply).
    let mut a = start();
    play(&mut a, &["9-13", "21-17", "10-15"]);
    let mut b = start();
    play(&mut b, &["10-15", "21-17", "9-13"]);
    assert_eq!(a.position_hash(), b.position_hash());
    assert_ne!(
        at("B:WK2:B1").position_hash(),
        at("B:W5:B1").position_hash()
    );
    assert_ne!(
        at("B:WK5:B1").position_hash(),
        at("B:W5:B1").position_hash()
    );
}

/// The game after the moves `indices` pick (see [`laws::play_indices`]), and who made them.
fn play_indices(indices: &[usize]) -> (Checkers, Vec<Seat>) {
    let mut game = start();
    let movers = laws::play_indices(&mut game, indices);
    (game, movers)
}

/// Every simple move and single jump on the board, legal or not, plus nonsense paths.
fn candidate_moves() -> Vec<Move> {
    let mut candidates = Vec::new();
    for from in 1..=32 {
        for to in 1..=32 {
            for text in [format!("{from}-{to}"), format!("{from}x{to}")] {
                candidates.push(notation::parse(&text).unwrap());
            }
        }
    }
    candidates
}

proptest! {
    #[test]
    fn every_listed_move_plays_and_unlisted_ones_change_nothing(
        indices in prop::collection::vec(any::<usize>(), 0..80),
    ) {
        let (game, _) = play_indices(&indices);
        laws::listed_moves_play(&game)?;
        laws::unlisted_moves_change_nothing(&game, candidate_moves())?;
    }

    #[test]
    fn seats_alternate_starting_with_black(indices in prop::collection::vec(any::<usize>(), 0..120)) {
        let (_, movers) = play_indices(&indices);
        laws::seats_alternate(&movers)?;
    }

    #[test]
    fn a_finished_game_has_an_outcome_and_no_moves(indices in prop::collection::vec(any::<usize>(), 0..300)) {
        let (game, _) = play_indices(&indices);
        laws::finished_means_no_moves(&game, &candidate_moves()[0])?;
        prop_assert_eq!(at(&game.position()).position(), game.position());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_play_always_ends(seed in any::<u64>()) {
        // A game has at most 23 captures and 2 * 12 * 7 men's steps, and at most 80 quiet
        // plies between two of those, so none lasts 20,000 plies.
        let mut game = start();
        let moves = laws::play_randomly(&mut game, seed, 20_000);
        prop_assert!(moves.len() < 20_000);
        laws::finished_means_no_moves(&game, &candidate_moves()[0])?;
        prop_assert!(game.outcome().is_some());
    }
}

/// Searches for the position with the longest move list, as for Fox & Geese: random
/// placements of at most 12 pieces a side, improved by hill climbing one square at a time
/// (keeping any change `from_position` accepts that does not shorten the list). Prints the
/// best found; the figure is in docs/RELIABILITY.md. `CHECKERS_SEARCH_SECS` sets
/// the budget (default 60); `CHECKERS_SEARCH_CAPTURES=1` counts only lists of captures,
/// which steps cannot climb to since a capture takes away every step.
#[test]
#[ignore = "a search, run by hand"]
fn search_the_longest_move_list() {
    let budget: u64 = std::env::var("CHECKERS_SEARCH_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(budget);
    let mut rng = laws::TestRng::new(0xc4ec);
    // 0 empty, 1 black man, 2 black king, 3 white man, 4 white king.
    let fen = |cells: &[usize; 32]| {
        let side = |man: usize, king: usize| {
            (0..32)
                .filter_map(|i| match cells[i] {
                    c if c == man => Some(format!("{}", i + 1)),
                    c if c == king => Some(format!("K{}", i + 1)),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join(",")
        };
        format!("B:W{}:B{}", side(3, 4), side(1, 2))
    };
    let captures_only = std::env::var("CHECKERS_SEARCH_CAPTURES").is_ok_and(|v| v == "1");
    let score = |cells: &[usize; 32]| {
        Checkers::from_position(&Settings::default(), &fen(cells))
            .ok()
            .map(|game| game.legal_moves())
            .map(|moves| match moves.first() {
                Some(mv) if captures_only && !mv.is_capture() => 0,
                _ => moves.len(),
            })
    };
    let mut best = 0;
    while std::time::Instant::now() < deadline {
        let mut cells = [0; 32];
        for cell in cells.iter_mut() {
            *cell = if rng.below(3) == 0 {
                1 + rng.below(4)
            } else {
                0
            };
        }
        let Some(mut current) = score(&cells) else {
            continue;
        };
        for _ in 0..2_000 {
            let mut next = cells;
            next[rng.below(32)] = rng.below(5);
            if let Some(s) = score(&next).filter(|&s| s >= current) {
                (cells, current) = (next, s);
            }
        }
        if current > best {
            best = current;
            eprintln!("{current} moves in {}", fen(&cells));
        }
    }
}
