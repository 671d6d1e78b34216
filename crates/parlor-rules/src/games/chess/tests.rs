//! Tests of chess through shakmaty: perft counts, notation, endings and PGN.

use std::time::Instant;

use proptest::prelude::*;
use shakmaty::san::San;

use super::pgn::tests::replay_movetext;
use super::*;
use crate::games::{laws, perft};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
const CASTLING: &str = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";

fn fen(position: &str) -> Chess {
    Chess::from_position(&(), position).unwrap()
}

fn play_all(mut game: Chess, moves: &[&str]) -> Chess {
    for text in moves {
        let mv = game.parse_move(text).unwrap();
        game.play(&mv).unwrap();
    }
    game
}

/// Everything observable about a game, to check that refused moves change nothing.
fn snapshot(game: &Chess) -> (String, u64, Vec<Zobrist64>, Option<Outcome>) {
    (
        game.position(),
        game.position_hash(),
        game.history.clone(),
        game.outcome(),
    )
}

fn draw(reason: EndReason) -> Option<Outcome> {
    Some(Outcome {
        winner: None,
        reason,
    })
}

fn win(seat: Seat, reason: EndReason) -> Option<Outcome> {
    Some(Outcome {
        winner: Some(seat),
        reason,
    })
}

fn illegal_reason(game: &Chess, text: &str) -> &'static str {
    match game.parse_move(text) {
        Err(MoveError::Illegal { why, .. }) => why,
        other => panic!("{text}: expected Illegal, got {other:?}"),
    }
}

fn assert_over(game: &Chess, outcome: Option<Outcome>) {
    assert_eq!(game.outcome(), outcome);
    assert_eq!(game.turn(), None);
    assert!(game.legal_moves().is_empty());
}

/// A small deterministic generator for random play in tests (splitmix64).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// Plays up to `max_plies` random legal moves, checking at every step that the side to
/// move alternates, that refused moves change nothing and that the hash stays exact.
/// Returns the game and its moves in UCI.
fn random_game(seed: u64, max_plies: usize) -> (Chess, Vec<String>) {
    let mut rng = Rng(seed);
    let mut game = Chess::new(&());
    let mut moves = Vec::new();
    while moves.len() < max_plies {
        let Some(seat) = game.turn() else { break };
        assert_eq!(seat.index(), moves.len() % 2);
        let legal = game.legal_moves();
        assert!(!legal.is_empty());
        let mv = legal[rng.below(legal.len())];
        game.play(&mv).unwrap();
        assert_eq!(
            game.hash,
            game.pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal)
        );
        assert_eq!(game.history.last(), Some(&game.hash));
        moves.push(mv.to_string());
    }
    (game, moves)
}

fn timed_perft(game: &Chess, depth: u32) -> u64 {
    let started = Instant::now();
    let count = perft(game, depth);
    eprintln!("perft depth {depth}: {count} in {:?}", started.elapsed());
    count
}

#[test]
fn perft_from_the_start_matches_the_published_counts() {
    let game = Chess::new(&());
    for (depth, count) in [(1, 20), (2, 400), (3, 8_902), (4, 197_281)] {
        assert_eq!(timed_perft(&game, depth), count, "depth {depth}");
    }
}

#[test]
fn perft_from_the_start_at_depth_5() {
    assert_eq!(timed_perft(&Chess::new(&()), 5), 4_865_609);
}

#[test]
fn perft_from_kiwipete_matches_the_published_counts() {
    let game = fen(KIWIPETE);
    for (depth, count) in [(1, 48), (2, 2_039), (3, 97_862), (4, 4_085_603)] {
        assert_eq!(timed_perft(&game, depth), count, "depth {depth}");
    }
}

#[test]
fn the_start_position_is_whites_move() {
    let game = Chess::new(&());
    assert_eq!(game.position(), START);
    assert_eq!(game.turn(), Some(Seat::First));
    assert_eq!(game.outcome(), None);
    let legal: Vec<String> = game.legal_moves().iter().map(ToString::to_string).collect();
    assert_eq!(legal.len(), 20);
    assert!(legal.contains(&"e2e4".to_owned()));
    assert!(legal.contains(&"g1f3".to_owned()));
}

#[test]
fn both_sides_castle_on_both_wings_in_uci_and_san() {
    for (moves, expected) in [
        (
            &["e1g1", "e8g8"][..],
            "r4rk1/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 w - - 2 2",
        ),
        (
            &["O-O", "O-O"][..],
            "r4rk1/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 w - - 2 2",
        ),
        (
            &["e1c1", "e8c8"][..],
            "2kr3r/pppppppp/8/8/8/8/PPPPPPPP/2KR3R w - - 2 2",
        ),
        (
            &["O-O-O", "O-O-O+"][..],
            "2kr3r/pppppppp/8/8/8/8/PPPPPPPP/2KR3R w - - 2 2",
        ),
        (
            &["e1g1", "O-O-O"][..],
            "2kr3r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 w - - 2 2",
        ),
        (
            &["0-0-0", "0-0"][..],
            "r4rk1/pppppppp/8/8/8/8/PPPPPPPP/2KR3R w - - 2 2",
        ),
    ] {
        assert_eq!(
            play_all(fen(CASTLING), moves).position(),
            expected,
            "{moves:?}"
        );
    }
}

#[test]
fn castling_is_written_as_the_kings_move_and_king_takes_rook_is_tolerated() {
    let game = fen(CASTLING);
    for (text, uci) in [
        ("O-O", "e1g1"),
        ("O-O-O", "e1c1"),
        ("e1h1", "e1g1"),
        ("e1a1", "e1c1"),
    ] {
        assert_eq!(game.parse_move(text).unwrap().to_string(), uci, "{text}");
    }
    assert_eq!(game.parse_move("e1g1"), game.parse_move("O-O"));
}

#[test]
fn castling_is_refused_without_the_right_or_through_check() {
    let moved = play_all(fen(CASTLING), &["e1f1", "e8f8", "f1e1", "f8e8"]);
    assert_eq!(
        moved.position(),
        "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w - - 4 3"
    );
    for text in ["e1g1", "O-O", "e1c1", "O-O-O"] {
        assert_eq!(
            illegal_reason(&moved, text),
            "castling is not allowed in this position"
        );
    }
    // The f-file is open to a Black rook: the king may not pass f1.
    let through_check = fen("4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert_eq!(
        illegal_reason(&through_check, "e1g1"),
        "castling is not allowed in this position"
    );
    assert!(through_check.parse_move("e1c1").is_ok());
}

#[test]
fn en_passant_captures_the_pawn_that_passed() {
    let game = play_all(Chess::new(&()), &["e2e4", "a7a6", "e4e5", "d7d5"]);
    assert_eq!(
        game.position(),
        "rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3"
    );
    assert_eq!(game.parse_move("exd6"), game.parse_move("e5d6"));
    let after = play_all(game.clone(), &["e5d6"]);
    assert_eq!(
        after.position(),
        "rnbqkbnr/1pp1pppp/p2P4/8/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3"
    );

    // The right lasts one move.
    let late = play_all(game, &["a2a3", "a6a5"]);
    assert_eq!(illegal_reason(&late, "e5d6"), "that pawn cannot move there");
}

#[test]
fn pawns_promote_to_each_piece() {
    let start = fen("8/4P3/8/8/8/p7/k7/4K3 w - - 0 1");
    for (text, piece) in [
        ("e7e8q", "Q"),
        ("e7e8r", "R"),
        ("e7e8b", "B"),
        ("e7e8n", "N"),
        ("e8=Q", "Q"),
        ("e8=N", "N"),
        ("e8=R+", "R"),
    ] {
        let game = play_all(start.clone(), &[text]);
        let BoardView::Grid { cells, labels, .. } = game.board();
        assert_eq!(labels[4].as_deref(), Some("e8"));
        assert_eq!(cells[4], piece.chars().next(), "{text}");
        assert_eq!(game.turn(), Some(Seat::Second));
    }
    assert_eq!(start.parse_move("e8=N"), start.parse_move("e7e8n"));
    assert_eq!(
        start.parse_move("e8=N").unwrap().to_string(),
        "e7e8n".to_owned()
    );
    assert_eq!(
        illegal_reason(&start, "e7e8"),
        "a pawn reaching the last rank must promote: add q, r, b or n, as in e7e8q"
    );
    assert_eq!(
        illegal_reason(&start, "e7e8k"),
        "a pawn can only promote to a queen, rook, bishop or knight"
    );
    assert_eq!(
        illegal_reason(&start, "e1e2q"),
        "only a pawn reaching the last rank can promote"
    );
    assert!(matches!(
        start.parse_move("e8"),
        Err(MoveError::Illegal { .. })
    ));
}

#[test]
fn check_must_be_answered_and_fools_mate_wins_for_black() {
    let checked = play_all(Chess::new(&()), &["e2e4", "f7f6", "d1h5"]);
    assert!(checked.pos.is_check());
    assert_eq!(checked.turn(), Some(Seat::Second));
    assert_eq!(checked.outcome(), None);
    assert_eq!(
        illegal_reason(&checked, "e8f7"),
        "it would leave your king in check"
    );
    assert_eq!(
        illegal_reason(&checked, "a7a6"),
        "it would leave your king in check"
    );
    assert!(checked.parse_move("g7g6").is_ok());

    let mated = play_all(Chess::new(&()), &["f2f3", "e7e5", "g2g4", "Qh4#"]);
    assert_over(&mated, win(Seat::Second, EndReason::Checkmate));
    assert_eq!(
        mated.position(),
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
    );
}

#[test]
fn scholars_mate_wins_for_white() {
    let mated = play_all(
        Chess::new(&()),
        &["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"],
    );
    assert_over(&mated, win(Seat::First, EndReason::Checkmate));
}

#[test]
fn stalemate_is_a_draw() {
    let game = play_all(fen("k7/8/8/2Q5/8/8/8/7K w - - 0 1"), &["c5b6"]);
    assert_over(&game, draw(EndReason::Stalemate));
    let given = fen("k7/8/1Q6/8/8/8/8/7K b - - 0 1");
    assert_over(&given, draw(EndReason::Stalemate));
}

#[test]
fn insufficient_material_is_a_draw() {
    for position in [
        "8/8/8/4k3/8/8/8/4K3 w - - 0 1",
        "8/8/8/4k3/8/8/8/3BK3 b - - 0 1",
        "8/8/8/4k3/8/8/8/3NK3 w - - 0 1",
        "2b5/8/8/4k3/8/8/8/3BK3 w - - 0 1",
    ] {
        assert_over(&fen(position), draw(EndReason::InsufficientMaterial));
    }
    // A king and bishop against a king and pawn can still be won (by Black).
    let game = fen("8/8/8/2k5/4p3/8/6B1/4K3 w - - 0 1");
    assert_eq!(game.outcome(), None);
    let game = play_all(game, &["Bxe4"]);
    assert_over(&game, draw(EndReason::InsufficientMaterial));
}

#[test]
fn a_third_repetition_by_knight_shuffles_draws() {
    let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8", "Nf3", "Nf6", "Ng1", "Ng8"];
    let almost = play_all(Chess::new(&()), &shuffle[..7]);
    assert_eq!(almost.outcome(), None);
    let game = play_all(almost, &shuffle[7..]);
    assert_over(&game, draw(EndReason::ThreefoldRepetition));
    assert_eq!(game.position_hash(), Chess::new(&()).position_hash());
    // The clocks differ, the position does not.
    assert_eq!(
        game.position(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 8 5"
    );
}

#[test]
fn positions_differing_in_castling_rights_or_en_passant_are_different() {
    // Shuffling the kings loses castling rights: the start placement recurs, but not
    // the start position, and the history restarts with each lost right.
    let game = play_all(fen(CASTLING), &["e1f1", "e8f8", "f1e1", "f8e8"]);
    assert_eq!(game.pos.board(), fen(CASTLING).pos.board());
    assert_ne!(game.position_hash(), fen(CASTLING).position_hash());
    assert_eq!(game.history.len(), 3);

    // An en passant right that cannot be used does not make a position different.
    let pushed = play_all(Chess::new(&()), &["e2e4"]);
    let plain = fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    assert_eq!(pushed.position_hash(), plain.position_hash());
    assert_eq!(pushed.position(), plain.position());
    // One that can be used does.
    let usable = play_all(Chess::new(&()), &["e2e4", "a7a6", "e4e5", "d7d5"]);
    let without = fen("rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3");
    assert_ne!(usable.position_hash(), without.position_hash());
}

#[test]
fn the_repetition_history_restarts_at_irreversible_moves() {
    let game = play_all(Chess::new(&()), &["g1f3", "g8f6"]);
    assert_eq!(game.history.len(), 3);
    let game = play_all(game, &["e2e4"]);
    assert_eq!(game.history, vec![game.hash]);
    let game = play_all(game, &["f6e4", "f3g1"]);
    assert_eq!(game.history.len(), 2);
}

#[test]
fn fifty_moves_without_a_capture_or_pawn_move_draw() {
    let start = fen("k7/8/1K6/8/8/8/8/7R w - - 99 80");
    assert_eq!(start.outcome(), None);
    let game = play_all(start.clone(), &["h1h2"]);
    assert_over(&game, draw(EndReason::FiftyMoves));
    assert_eq!(game.position(), "k7/8/1K6/8/8/8/7R/8 b - - 100 80");

    // A capture or pawn move on the hundredth half-move resets the count.
    let capture = play_all(fen("k7/8/1K6/8/8/8/7p/7R w - - 99 80"), &["h1h2"]);
    assert_eq!(capture.outcome(), None);

    // A FEN already past the limit is a finished game.
    assert_over(
        &fen("k7/8/1K6/8/8/8/8/7R w - - 100 80"),
        draw(EndReason::FiftyMoves),
    );
}

#[test]
fn mate_on_the_hundredth_half_move_is_checkmate() {
    let game = play_all(fen("k7/8/1K6/8/8/8/8/7R w - - 99 80"), &["Rh8#"]);
    assert_eq!(game.pos.halfmoves(), 100);
    assert_over(&game, win(Seat::First, EndReason::Checkmate));
}

#[test]
fn san_and_uci_name_the_same_moves() {
    for (position, pairs) in [
        (
            START,
            &[
                ("Nf3", "g1f3"),
                ("e4", "e2e4"),
                ("Nc3", "b1c3"),
                ("a3", "a2a3"),
            ][..],
        ),
        (
            KIWIPETE,
            &[
                ("O-O", "e1g1"),
                ("O-O-O", "e1c1"),
                ("dxe6", "d5e6"),
                ("Nxf7", "e5f7"),
                ("Qxf6", "f3f6"),
                ("Bxa6", "e2a6"),
                ("Qxh3", "f3h3"),
                ("gxh3", "g2h3"),
            ][..],
        ),
    ] {
        let game = fen(position);
        for (san, uci) in pairs {
            let from_san = game.parse_move(san).unwrap();
            assert_eq!(Ok(from_san), game.parse_move(uci), "{san} / {uci}");
            assert_eq!(from_san.to_string(), *uci);
        }
    }
    // Every legal move's SAN, as shakmaty writes it, reads back as that move.
    for position in [START, KIWIPETE, CASTLING, "8/4P3/8/8/8/p7/k7/4K3 w - - 0 1"] {
        let game = fen(position);
        for mv in game.legal_moves() {
            let san = San::from_move(&game.pos, mv.0).to_string();
            let plus = SanPlus::from_move(game.pos.clone(), mv.0).to_string();
            assert_eq!(game.parse_move(&san), Ok(mv), "{san}");
            assert_eq!(game.parse_move(&plus), Ok(mv), "{plus}");
        }
    }
}

#[test]
fn ambiguous_san_asks_for_the_origin() {
    let game = fen("4k3/8/8/8/8/8/8/R4RK1 w - - 0 1");
    assert_eq!(
        illegal_reason(&game, "Rc1"),
        "more than one piece can make that move: add the file or rank it comes from, \
         as in Nbd2"
    );
    assert_eq!(game.parse_move("Rac1").unwrap().to_string(), "a1c1");
    assert_eq!(game.parse_move("Rfc1").unwrap().to_string(), "f1c1");
}

#[test]
fn illegal_and_unparseable_moves_leave_the_game_unchanged() {
    let mut game = play_all(Chess::new(&()), &["e2e4"]);
    let before = snapshot(&game);

    for (text, why) in [
        ("e2e5", "there is no piece on that square"),
        ("e4e5", "that piece is not yours"),
        ("e7e4", "that pawn cannot move there"),
        ("d2d4", "that piece is not yours"),
        ("g8g6", "that piece cannot move there"),
        ("Nf3", NOT_LEGAL),
        ("exd5", NOT_LEGAL),
        ("O-O", "castling is not allowed in this position"),
    ] {
        assert_eq!(illegal_reason(&game, text), why, "{text}");
    }
    let from_start = Chess::new(&());
    assert_eq!(
        illegal_reason(&from_start, "e2e5"),
        "that pawn cannot move there"
    );

    for text in [
        "zz", "", " e7e5", "e7e5 ", "e7-e5", "E7E5", "e7e5x", "e9e5", "0000", "--", "Q@f7", "Nf3!",
        "o-o", "e5=",
    ] {
        assert_eq!(
            game.parse_move(text),
            Err(MoveError::Unparseable {
                text: text.to_owned(),
                expected: NOTATION
            }),
            "{text:?}"
        );
    }

    // A move that was legal elsewhere is refused here.
    let elsewhere = Chess::new(&()).parse_move("e2e4").unwrap();
    assert_eq!(
        game.play(&elsewhere),
        Err(MoveError::Illegal {
            text: "e2e4".to_owned(),
            why: "there is no piece on that square"
        })
    );
    assert_eq!(snapshot(&game), before);
}

#[test]
fn moving_into_check_is_explained() {
    let game = fen("4k3/8/8/8/8/8/r7/4K3 w - - 0 1");
    assert_eq!(
        illegal_reason(&game, "e1e2"),
        "it would leave your king in check"
    );
    assert!(game.parse_move("e1f1").is_ok());
    assert_eq!(
        illegal_reason(&game, "e1e3"),
        "that piece cannot move there"
    );

    let pinned = fen("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1");
    assert_eq!(
        illegal_reason(&pinned, "e2c3"),
        "it would leave your king in check"
    );
    assert_eq!(illegal_reason(&pinned, "Nc3"), NOT_LEGAL);
}

#[test]
fn a_finished_game_refuses_every_move() {
    let mut mated = play_all(Chess::new(&()), &["f2f3", "e7e5", "g2g4", "d8h4"]);
    let before = snapshot(&mated);
    assert_eq!(mated.parse_move("e2e4"), Err(MoveError::GameOver));
    assert_eq!(mated.parse_move("a3"), Err(MoveError::GameOver));
    let listed = Chess::new(&()).legal_moves();
    assert_eq!(mated.play(&listed[0]), Err(MoveError::GameOver));
    assert_eq!(snapshot(&mated), before);

    // A drawn position still has moves in shakmaty's eyes; not in ours.
    let mut drawn = play_all(fen("k7/8/1K6/8/8/8/8/7R w - - 99 80"), &["h1h2"]);
    assert_eq!(drawn.parse_move("a8b8"), Err(MoveError::GameOver));
    let kb8 = ChessMove(Move::Normal {
        role: Role::King,
        from: Square::A8,
        capture: None,
        to: Square::B8,
        promotion: None,
    });
    assert_eq!(drawn.play(&kb8), Err(MoveError::GameOver));
}

#[test]
fn fen_round_trips_and_bad_fen_is_refused_with_a_reason() {
    for position in [
        START,
        KIWIPETE,
        CASTLING,
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "8/8/8/8/8/5k2/8/R3K3 b Q - 37 120",
    ] {
        assert_eq!(fen(position).position(), position);
        assert_eq!(fen(&fen(position).position()).position(), position);
    }
    // An en passant square nobody can use is dropped, as FIDE's repetition rule does.
    assert_eq!(
        fen("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2").position(),
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );

    for (position, reason) in [
        ("", "invalid fen"),
        ("hello", "invalid board part in fen"),
        ("8/8/8/8/8/8/8/K7 w - - 0 1", "missing king"),
        ("4k3/8/8/8/8/8/8/4RK2 w - - 0 1", "opposite check"),
        ("P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "pawns on backrank"),
        ("4k3/8/8/8/8/8/8/4K3 w KQ - 0 1", "invalid castling rights"),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",
            "variants",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3+3 0 1",
            "variants",
        ),
    ] {
        match Chess::from_position(&(), position) {
            Err(PositionError::Invalid(why)) => {
                assert!(why.contains(reason), "{position:?}: {why}");
            }
            other => panic!("{position:?}: {other:?}"),
        }
    }
}

#[test]
fn the_board_is_drawn_from_whites_side_with_square_labels() {
    let game = play_all(Chess::new(&()), &["e2e4"]);
    let BoardView::Grid {
        rows,
        cols,
        cells,
        labels,
    } = game.board();
    assert_eq!((rows, cols), (8, 8));
    assert_eq!((cells.len(), labels.len()), (64, 64));
    let at = |name: &str| {
        let index = labels
            .iter()
            .position(|label| label.as_deref() == Some(name))
            .unwrap();
        cells[index]
    };
    assert_eq!(labels[0].as_deref(), Some("a8"));
    assert_eq!(labels[7].as_deref(), Some("h8"));
    assert_eq!(labels[56].as_deref(), Some("a1"));
    assert_eq!(labels[63].as_deref(), Some("h1"));
    assert_eq!(cells[0], Some('r'));
    assert_eq!(cells[4], Some('k'));
    assert_eq!(cells[60], Some('K'));
    assert_eq!(cells[59], Some('Q'));
    assert_eq!(at("e4"), Some('P'));
    assert_eq!(at("e2"), None);
    assert_eq!(at("d8"), Some('q'));
    assert_eq!(cells.iter().flatten().count(), 32);
}

#[test]
fn the_game_reads_san_and_answers_in_uci() {
    let mut game = Chess::new(&());
    let mv = game.parse_move("Nf3").unwrap();
    assert_eq!(mv.to_string(), "g1f3");
    game.play(&mv).unwrap();
    assert_eq!(game.turn(), Some(Seat::Second));
    assert_eq!(
        mv.to_shakmaty().to_uci(CastlingMode::Standard).to_string(),
        "g1f3"
    );
}

#[test]
fn a_random_game_exports_to_pgn_that_replays() {
    let (game, moves) = random_game(7, 6_000);
    assert!(game.outcome().is_some());
    let text = pgn(
        &PgnTags {
            result: result_token(game.outcome()).to_owned(),
            ..PgnTags::default()
        },
        None,
        &moves,
        &[],
    )
    .unwrap();
    assert_eq!(replay_movetext(&text), game.position());
}

/// Any move shakmaty can represent, mostly nonsense.
fn any_move() -> impl Strategy<Value = Move> {
    let square = (0u32..64).prop_map(Square::new);
    let role = prop::sample::select(Role::ALL.to_vec());
    prop_oneof![
        (
            role.clone(),
            square.clone(),
            prop::option::of(role.clone()),
            square.clone(),
            prop::option::of(role.clone()),
        )
            .prop_map(|(role, from, capture, to, promotion)| Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            }),
        (square.clone(), square.clone()).prop_map(|(from, to)| Move::EnPassant { from, to }),
        (square.clone(), square.clone()).prop_map(|(king, rook)| Move::Castle { king, rook }),
        (role, square).prop_map(|(role, to)| Move::Put { role, to }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_listed_move_plays_and_reads_back(seed in any::<u64>(), plies in 0usize..120) {
        let (game, _) = random_game(seed, plies);
        laws::listed_moves_play(&game)?;
        for mv in game.legal_moves() {
            let san = SanPlus::from_move(game.pos.clone(), mv.0).to_string();
            prop_assert_eq!(game.parse_move(&san), Ok(mv));
        }
    }

    #[test]
    fn unlisted_moves_are_refused_and_change_nothing(
        seed in any::<u64>(),
        plies in 0usize..120,
        tries in prop::collection::vec(any_move(), 1..64),
    ) {
        let (game, _) = random_game(seed, plies);
        // Moves that were legal one ply earlier are the most plausible mistakes.
        let (previous, _) = random_game(seed, plies.saturating_sub(1));
        let candidates = tries
            .into_iter()
            .map(ChessMove)
            .chain(previous.legal_moves());
        laws::unlisted_moves_change_nothing(&game, candidates)?;
    }

    #[test]
    fn random_play_ends_by_the_rules_and_finished_games_have_no_moves(seed in any::<u64>()) {
        let (game, moves) = random_game(seed, 6_000);
        prop_assert!(moves.len() < 6_000);
        let outcome = game.outcome();
        prop_assert!(outcome.is_some());
        let (start, _) = random_game(seed, 0);
        laws::finished_means_no_moves(&game, &start.legal_moves()[0])?;
        if let Some(Outcome { winner: Some(seat), reason }) = outcome {
            prop_assert_eq!(reason, EndReason::Checkmate);
            // The side that just moved delivered mate.
            prop_assert_eq!(seat.index(), (moves.len() + 1) % 2);
        }
    }

    #[test]
    fn exported_games_replay_to_the_same_position(seed in any::<u64>(), plies in 0usize..300) {
        let (game, moves) = random_game(seed, plies);
        let clocks: Vec<Option<u64>> = (0..moves.len() as u64).map(|ply| Some(3_600_000 - ply * 700)).collect();
        let text = pgn(&PgnTags::default(), None, &moves, &clocks).unwrap();
        prop_assert!(text.lines().all(|line| line.len() < 80));
        prop_assert_eq!(replay_movetext(&text), game.position());
    }
}
