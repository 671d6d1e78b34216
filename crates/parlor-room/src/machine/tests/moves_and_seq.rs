//! Moves (PROTOCOL.md §6.5, §10), durable before visible, and `seq` (§8).

use super::*;
use crate::Request;
use crate::TimeControl;
use crate::views::Status;
use parlor_rules::games::MoveError;

#[test]
fn a_move_changes_nothing_until_it_is_recorded() {
    let fx = Fixture::playing();
    let seq = fx.room.seq();
    let pending = fx
        .room
        .prepare_move(Seat::First, "4", fx.t0, fx.now(fx.t0))
        .unwrap();
    assert_eq!(pending.record.ply, 1);
    assert_eq!(pending.record.notation, "4");
    // The store refused it: the room is as it was.
    drop(pending);
    assert_eq!(fx.room.seq(), seq);
    assert_eq!(fx.state().moves, 0);
    assert_eq!(fx.state().to_move, Some(Seat::First));
}

#[test]
fn a_move_that_ends_the_game_is_recorded_with_its_ending() {
    let mut fx = Fixture::playing();
    for (seat, cell) in [(0, "0"), (1, "3"), (0, "1"), (1, "4")] {
        fx.play(Seat::from_index(seat).unwrap(), cell, fx.t0)
            .unwrap();
    }
    let pending = fx
        .room
        .prepare_move(Seat::First, "2", fx.t0, fx.now(fx.t0))
        .unwrap();
    let finish = &pending.ending.as_ref().unwrap().finish;
    assert_eq!((finish.moves, finish.winner), (5, Some(Seat::First)));
}

#[test]
fn moves_are_checked_in_the_documented_order() {
    let mut fx = Fixture::open();
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    assert_eq!(
        refusal(fx.human_move(&bob(), BOB, "0", fx.t0)),
        Refusal::NotAPlayer
    );
    assert_eq!(
        refusal(fx.human_move(&alice(), ALICE, "0", fx.t0)),
        Refusal::MoveBeforeStart
    );
    fx.join(bob(), Seat::Second, BOB, fx.t0).unwrap();
    assert_eq!(
        refusal(fx.human_move(&bob(), BOB, "0", fx.t0)),
        Refusal::NotYourTurn
    );
    assert!(matches!(
        refusal(fx.human_move(&alice(), ALICE, "x", fx.t0)),
        Refusal::Move(MoveError::Unparseable { .. })
    ));
    fx.human_move(&alice(), ALICE, "0", fx.t0).unwrap();
    assert!(matches!(
        refusal(fx.human_move(&bob(), BOB, "0", fx.t0)),
        Refusal::Move(MoveError::Illegal { .. })
    ));
    fx.request(Request::Resign, &bob(), BOB, fx.t0).unwrap();
    assert_eq!(
        refusal(fx.human_move(&bob(), BOB, "1", fx.t0)),
        Refusal::MoveAfterEnd
    );
}

#[test]
fn every_state_raises_seq_by_one() {
    let mut fx = Fixture::open();
    let mut seen = Vec::new();
    let mut record = |effects: Vec<Effect>| seen.extend(broadcast_seqs(&effects));
    record(fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap());
    record(fx.join(bob(), Seat::Second, BOB, fx.t0).unwrap());
    record(fx.play(Seat::First, "0", fx.t0).unwrap());
    record(fx.request(Request::OfferDraw, &bob(), BOB, fx.t0).unwrap());
    record(fx.request(Request::Resign, &alice(), ALICE, fx.t0).unwrap());
    assert_eq!(seen, vec![2, 3, 4, 5, 6]);
    assert_eq!(fx.room.seq(), 6);
}

#[test]
fn spectators_are_announced_at_a_pace() {
    let mut fx = Fixture::open();
    let first = fx.room.watch(10, None, fx.t0).unwrap();
    assert_eq!(
        states(&first).len(),
        1,
        "a watch after a quiet spell is announced at once"
    );
    let merged = fx.room.watch(11, None, fx.at(ms(200))).unwrap();
    assert!(states(&merged).is_empty(), "one within the pace is merged");
    let due = fx.room.next_deadline().unwrap();
    assert_eq!(due, fx.at(super::super::pacer::AUDIENCE_PACE));
    let effects = fx.tick(due).unwrap();
    assert_eq!(states(&effects)[0].spectators, 2);
}

#[test]
fn a_dropped_connection_is_announced_by_the_timer_not_at_once() {
    let mut fx = Fixture::playing();
    fx.room.watch(CAROL, None, fx.t0).unwrap();
    let seq = fx.room.seq();
    let later = fx.at(secs(5));
    fx.room.dropped(CAROL, later);
    fx.room.dropped(BOB, later);
    assert_eq!(fx.room.seq(), seq);
    assert!(!fx.room.holds(CAROL));
    let effects = fx.tick(later).unwrap();
    let state = states(&effects)[0];
    assert_eq!((state.spectators, state.seats[1].connected), (0, false));
}

/// Alice and Bob under a Fischer clock, each side's free first move made at `t0`.
fn fischer(base_ms: u64, increment_ms: u64) -> Fixture {
    let mut fx = fischer_before_any_move(base_ms, increment_ms);
    fx.play(Seat::First, "4", fx.t0).unwrap();
    fx.play(Seat::Second, "8", fx.t0).unwrap();
    fx
}

fn fischer_before_any_move(base_ms: u64, increment_ms: u64) -> Fixture {
    let options = RoomOptions {
        time_control: TimeControl::Fischer {
            base_ms,
            increment_ms,
        },
        ..RoomOptions::default()
    };
    let mut fx = Fixture::new([SeatSpec::Open, SeatSpec::Open], options);
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    fx.join(bob(), Seat::Second, BOB, fx.t0).unwrap();
    fx
}

#[test]
fn a_move_after_the_flag_is_refused_out_of_time() {
    let mut fx = fischer(1_000, 0);
    let late = fx.human_move(&alice(), ALICE, "0", fx.at(ms(1_001)));
    assert_eq!(refusal(late), Refusal::OutOfTime);
    assert_eq!(fx.room.status(), Status::Playing);
}

#[test]
fn each_sides_first_move_is_free_and_only_then_its_clock_runs() {
    let mut fx = fischer_before_any_move(1_000, 500);
    assert_eq!(fx.room.clock.running(), None);
    assert_eq!(
        fx.room.next_deadline(),
        Some(fx.t0 + settings().first_move),
        "no flag, only the first-move abort guards the opening"
    );
    fx.play(Seat::First, "4", fx.at(ms(5_000))).unwrap();
    assert_eq!(fx.room.clock.running(), None, "Bob has not moved yet");
    fx.play(Seat::Second, "8", fx.at(ms(9_000))).unwrap();
    assert_eq!(fx.room.clock.running(), Some(Seat::First));
    assert_eq!(
        fx.room.clock.remaining_at(fx.at(ms(9_000))),
        Some([1_000, 1_000]),
        "neither first move was charged, nor given the increment"
    );
}

#[test]
fn the_clock_charges_thinking_time_and_records_it_with_the_move() {
    let fx = fischer(10_000, 500);
    let pending = fx
        .room
        .prepare_move(Seat::First, "0", fx.at(ms(2_000)), fx.now(fx.at(ms(2_000))))
        .unwrap();
    assert_eq!(pending.record.think_ms, 2_000);
    assert_eq!(pending.record.clocks_ms, Some([8_500, 10_000]));
}

#[test]
fn a_held_move_found_not_stored_costs_the_mover_no_time_for_the_hold() {
    let mut fx = fischer(10_000, 500);
    let received = fx.at(ms(2_000));
    let held = fx
        .room
        .prepare_move(Seat::First, "0", received, fx.now(received))
        .unwrap();
    let settled = fx.at(ms(7_000));
    let effects = fx.room.held_move_dropped(&held, settled);
    let shown = states(&effects)[0].clocks.map(|c| c.remaining_ms);
    assert_eq!(shown, Some([8_000, 10_000]), "the hold is not charged");
    assert_eq!(
        fx.room.next_deadline(),
        Some(fx.at(ms(15_000))),
        "the flag falls 5 s (the hold) later"
    );
    let again = fx.at(ms(8_000));
    let pending = fx
        .room
        .prepare_move(Seat::First, "0", again, fx.now(again))
        .unwrap();
    assert_eq!(
        pending.record.think_ms, 3_000,
        "2 s before the hold, 1 s after"
    );
    assert_eq!(
        pending.record.clocks_ms,
        Some([7_500, 10_000]),
        "charged as the thinking time stored with it, plus the increment"
    );
}

#[test]
fn a_stored_move_carries_both_clocks_as_the_state_after_it_shows_them() {
    let options = RoomOptions {
        time_control: TimeControl::PerMove {
            per_move_ms: 10_000,
        },
        ..RoomOptions::default()
    };
    let mut fx = Fixture::new([SeatSpec::Open, SeatSpec::Open], options);
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    fx.join(bob(), Seat::Second, BOB, fx.t0).unwrap();
    fx.play(Seat::First, "4", fx.t0).unwrap();
    fx.play(Seat::Second, "8", fx.t0).unwrap();
    let mut clocks = Vec::new();
    for (seat, cell, at) in [(Seat::First, "0", 1_500), (Seat::Second, "2", 1_900)] {
        let at = fx.at(ms(at));
        let pending = fx.room.prepare_move(seat, cell, at, fx.now(at)).unwrap();
        let stored = pending.record.clocks_ms;
        let effects = fx.room.apply_move(pending, None, at);
        let shown = moved(&effects)[0]
            .clocks
            .map(|c| c.remaining_ms.map(|ms| ms as i64));
        assert_eq!(stored, shown, "what is stored is what the state showed");
        clocks.push(stored);
    }
    // The waiting side of a per-move clock has its whole allowance again, not the 8,500
    // ms it had left after its own move.
    assert_eq!(clocks, [Some([8_500, 10_000]), Some([10_000, 9_600])]);
}

#[test]
fn running_out_of_time_loses() {
    let mut fx = fischer(60_000, 0);
    fx.play(Seat::First, "0", fx.t0).unwrap();
    fx.play(Seat::Second, "1", fx.t0).unwrap();
    let flag = fx.room.next_deadline().unwrap();
    assert_eq!(flag, fx.at(secs(60)));
    let effects = fx.tick(flag).unwrap();
    let over = game_over(&effects).unwrap();
    assert_eq!(
        (over.winner, over.reason),
        (Some(Seat::Second), parlor_rules::games::EndReason::Timeout)
    );
}

#[test]
fn a_first_move_not_made_in_time_aborts_the_game() {
    let mut fx = Fixture::playing();
    let first_move = settings().first_move;
    assert_eq!(fx.room.next_deadline(), Some(fx.t0 + first_move));
    let effects = fx.tick(fx.t0 + first_move).unwrap();
    let over = game_over(&effects).unwrap();
    assert_eq!(
        (over.winner, over.reason),
        (None, parlor_rules::games::EndReason::Aborted)
    );
}

#[test]
fn an_ending_a_timer_could_not_record_is_retried() {
    let mut fx = Fixture::playing();
    let first_move = fx.t0 + settings().first_move;
    let Tick::Step(step) = fx.room.on_timer(fx.now(first_move)) else {
        panic!("the room stays open");
    };
    let Then::End(ending) = step.then else {
        panic!("the abort is recorded first");
    };
    assert_eq!(ending.on_failure, super::super::OnFailure::Retry);
    fx.room.retry_later(first_move);
    assert_eq!(fx.room.status(), Status::Playing);
    assert_eq!(
        fx.room.next_deadline(),
        Some(first_move + super::super::STORE_RETRY)
    );
}

#[test]
fn a_move_chosen_in_a_position_the_game_left_is_refused() {
    let mut fx = Fixture::playing();
    let seq = fx.room.seq();
    let moving = |after| {
        let command = crate::RoomCommand::Move {
            text: "4".into(),
            after,
        };
        alice().ask(command, None)
    };
    let refused = fx.room.answer(moving(Some(1)), ALICE, fx.t0, fx.now(fx.t0));
    assert_eq!(
        refusal(refused),
        Refusal::StaleMove {
            after: 1,
            played: 0
        }
    );
    fx.human_move(&alice(), ALICE, "0", fx.t0).unwrap();
    fx.human_move(&bob(), BOB, "1", fx.t0).unwrap();
    // Chosen before both moves: Alice's turn again and "4" legal there, but not played.
    let refused = fx.room.answer(moving(Some(0)), ALICE, fx.t0, fx.now(fx.t0));
    assert_eq!(
        refusal(refused),
        Refusal::StaleMove {
            after: 0,
            played: 2
        }
    );
    assert_eq!(fx.room.seq(), seq + 2, "a refused move changes nothing");
    // Out of turn is still out of turn, whatever it says.
    let bobs = bob().ask(
        crate::RoomCommand::Move {
            text: "5".into(),
            after: Some(2),
        },
        None,
    );
    let refused = fx.room.answer(bobs, BOB, fx.t0, fx.now(fx.t0));
    assert_eq!(refusal(refused), Refusal::NotYourTurn);
    // Chosen in the position as it is, or without saying: played.
    for after in [Some(2), None] {
        let step = fx
            .room
            .answer(moving(after), ALICE, fx.t0, fx.now(fx.t0))
            .unwrap();
        assert!(matches!(step.then, Then::Play(_)), "{after:?}");
    }
}
