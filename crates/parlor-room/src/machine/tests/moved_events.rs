//! A move that leaves the game on is announced as a `moved` event, and that event,
//! applied to the state before it as docs/PROTOCOL.md says, is exactly the `state` it
//! stands for; where it could not be, the move comes as a `state`. The `state` the room
//! makes with the event's legal moves is the one it would make afresh.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::*;
use crate::TimeControl;
use crate::views::Status;
use parlor_rules::games::BoardView;

/// The state a client holds after applying `moved` to `before`, following PROTOCOL.md.
fn applied(before: &StateMsg, moved: &MovedMsg) -> StateMsg {
    let mut state = before.clone();
    state.seq = moved.seq;
    state.last_move = Some(moved.last_move.clone());
    state.moves = moved.moves;
    state.to_move = moved.to_move;
    state.position = moved.position.clone();
    let BoardView::Grid { cells, .. } = &mut state.board;
    for (index, code) in &moved.cells {
        cells[*index] = *code;
    }
    state.legal_moves = moved.legal_moves.clone();
    state.clocks = moved.clocks;
    state.draw_offer = moved.draw_offer;
    state.resumed = false;
    state
}

/// Alice and Bob playing `kind` under a Fischer clock.
fn playing(kind: GameKind) -> Fixture {
    let options = RoomOptions {
        time_control: TimeControl::Fischer {
            base_ms: 300_000,
            increment_ms: 2_000,
        },
        ..RoomOptions::default()
    };
    let mut fx = Fixture::of_game(kind, [SeatSpec::Open, SeatSpec::Open], options, settings());
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    fx.join(bob(), Seat::Second, BOB, fx.t0).unwrap();
    fx
}

/// Plays `text` at `at` and checks its announcement: a `moved` event that, applied to
/// the state before, gives the state after; or, once the game is over, a `state`.
fn play_and_check(fx: &mut Fixture, text: &str, at: Instant) {
    let before = fx.room.state_msg(false, at);
    let seat = fx.room.game().turn().unwrap();
    let effects = fx.play(seat, text, at).unwrap();
    let after = fx.room.state_msg(false, at);
    match moved(&effects).as_slice() {
        [event] => {
            assert!(
                states(&effects).is_empty(),
                "{text}: a move is announced once"
            );
            assert_eq!(applied(&before, event), after, "after {text}");
            let from_event = fx.room.state_after_move(event.legal_moves.clone(), at);
            assert_eq!(
                from_event, after,
                "the state made with the event's moves, {text}"
            );
        }
        [] => assert_ne!(
            after.status,
            Status::Playing,
            "{text}: only an ending is a state"
        ),
        more => panic!("{text}: {} moved events", more.len()),
    }
}

#[test]
fn applied_to_the_state_before_it_a_moved_event_gives_the_state_after_it() {
    for &kind in GameKind::ALL {
        for seed in 0..4 {
            let mut fx = playing(kind);
            let mut rng = StdRng::seed_from_u64(seed);
            let mut at = fx.t0;
            while fx.room.status() == Status::Playing && fx.room.seq() < 160 {
                at += ms(700);
                let moves = fx.room.game().legal_moves();
                play_and_check(&mut fx, &moves[rng.random_range(0..moves.len())], at);
            }
        }
    }
}

#[test]
fn a_move_that_changes_far_cells_names_each_of_them() {
    let mut fx = playing(GameKind::Chess);
    let mut at = fx.t0;
    // Both castle; then White takes en passant (three cells change: from, to and the
    // taken pawn's).
    for text in [
        "e2e4", "g8f6", "g1f3", "e7e6", "f1c4", "f8c5", "e1g1", "e8g8", "e4e5", "d7d5",
    ] {
        at += ms(500);
        play_and_check(&mut fx, text, at);
    }
    at += ms(500);
    let before = fx.room.state_msg(false, at);
    let effects = fx.play(Seat::First, "e5d6", at).unwrap();
    let event = moved(&effects)[0];
    // e5 (3rd row from the top is rank 6: d6 is index 2*8+3; e5 is 3*8+4; d5 3*8+3).
    assert_eq!(
        event.cells,
        vec![(19, Some('P')), (27, None), (28, None)],
        "d6 gets the pawn, d5 and e5 are emptied"
    );
    assert_eq!(applied(&before, event), fx.room.state_msg(false, at));
}

#[test]
fn a_move_while_the_audience_is_still_to_be_announced_comes_as_a_state() {
    let mut fx = Fixture::playing();
    fx.room.watch(CAROL, None, fx.t0).unwrap();
    // A second spectator within the pace is announced later, in one state.
    fx.room.watch(4, None, fx.t0 + ms(10)).unwrap();
    let effects = fx.play(Seat::First, "4", fx.t0 + ms(20)).unwrap();
    assert!(moved(&effects).is_empty());
    assert_eq!(states(&effects)[0].spectators, 2);
    // The state carried the audience: the next move is an event again.
    let effects = fx.play(Seat::Second, "0", fx.t0 + ms(30)).unwrap();
    assert_eq!(moved(&effects).len(), 1);
}
