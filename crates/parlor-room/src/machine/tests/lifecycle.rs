//! PROTOCOL.md §9.1 (status), §9.3 (creating) and §9.8 (removal).

use super::*;
use crate::SeatKind;
use crate::command::RoomCommand;
use crate::views::Status;
use parlor_rules::bots::BotLevel;
use parlor_rules::games::EndReason;

#[test]
fn a_new_room_waits_with_seq_one_and_broadcasts_nothing() {
    let fx = Fixture::open();
    assert_eq!(fx.room.status(), Status::Waiting);
    assert_eq!(fx.room.seq(), 1);
    let state = fx.state();
    assert_eq!(state.game_id, None);
    assert_eq!(state.to_move, None);
    assert!(state.legal_moves.is_empty());
}

#[test]
fn the_game_starts_when_the_second_seat_is_filled() {
    let mut fx = Fixture::open();
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    assert_eq!(fx.room.status(), Status::Waiting);
    let effects = fx.join(bob(), Seat::Second, BOB, fx.t0).unwrap();
    assert_eq!(fx.room.status(), Status::Playing);
    let broadcast = states(&effects);
    assert_eq!(
        broadcast.len(),
        1,
        "one state announces the join and the start"
    );
    assert_eq!(broadcast[0].status, Status::Playing);
    assert_eq!(
        broadcast[0].game_id.as_ref().map(GameId::as_str),
        Some("g_test")
    );
    assert_eq!(broadcast[0].to_move, Some(Seat::First));
}

#[test]
fn a_creator_opposite_a_bot_starts_the_game_at_once() {
    let mut fx = Fixture::new(
        [SeatSpec::Me, SeatSpec::Bot(BotLevel::Easy)],
        RoomOptions::default(),
    );
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    assert_eq!(fx.room.status(), Status::Playing);
}

#[test]
fn two_bots_at_creation_start_the_game_and_the_first_is_asked_to_move() {
    let mut fx = Fixture::new(
        [SeatSpec::Bot(BotLevel::Easy), SeatSpec::Bot(BotLevel::Hard)],
        RoomOptions::default(),
    );
    let effects = fx.settle(fx.t0);
    assert_eq!(fx.room.status(), Status::Playing);
    assert!(effects.iter().any(|e| matches!(
        e,
        Effect::Think {
            ply: 0,
            level: BotLevel::Easy,
            ..
        }
    )));
}

#[test]
fn a_start_the_store_could_not_record_leaves_the_room_waiting_and_is_retried() {
    let mut fx = Fixture::open();
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    let step = fx.room.join(bob(), Seat::Second, BOB, None).unwrap();
    assert!(fx.room.start_record(fx.now(fx.t0), || "g".into()).is_some());
    drop(step);
    fx.room.start_failed("g".into(), false, fx.t0);
    let effects = fx.room.after_start(
        AfterStart::Welcome {
            conn: BOB,
            seat: Seat::Second,
            reference: None,
        },
        fx.t0,
    );
    assert_eq!(states(&effects)[0].status, Status::Waiting);
    assert!(
        fx.room
            .start_record(fx.now(fx.at(ms(500))), || "g".into())
            .is_none()
    );
    assert_eq!(
        fx.room.next_deadline(),
        Some(fx.at(super::super::STORE_RETRY))
    );
    let effects = fx.tick(fx.at(super::super::STORE_RETRY)).unwrap();
    assert_eq!(fx.room.status(), Status::Playing);
    assert_eq!(states(&effects).len(), 1, "the late start is announced");
}

#[test]
fn a_start_that_may_have_been_stored_is_retried_under_the_same_id() {
    let mut fx = Fixture::open();
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    drop(fx.room.join(bob(), Seat::Second, BOB, None).unwrap());
    let retry = fx.at(super::super::STORE_RETRY);
    let first = fx.room.start_record(fx.now(fx.t0), || "g1".into()).unwrap();
    fx.room.start_failed(first.game_id, true, fx.t0);
    let again = fx.room.start_record(fx.now(retry), || "g2".into()).unwrap();
    assert_eq!(
        again.game_id.as_str(),
        "g1",
        "the lost start is recorded again"
    );
    // A later failure that surely stored nothing keeps the id the first may have used.
    fx.room.start_failed(again.game_id, false, retry);
    let later = fx.at(super::super::STORE_RETRY * 2);
    let third = fx.room.start_record(fx.now(later), || "g3".into()).unwrap();
    assert_eq!(third.game_id.as_str(), "g1");
}

#[test]
fn a_start_that_surely_failed_is_retried_under_a_new_id() {
    let mut fx = Fixture::open();
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    drop(fx.room.join(bob(), Seat::Second, BOB, None).unwrap());
    let first = fx.room.start_record(fx.now(fx.t0), || "g1".into()).unwrap();
    fx.room.start_failed(first.game_id, false, fx.t0);
    let retry = fx.at(super::super::STORE_RETRY);
    let again = fx.room.start_record(fx.now(retry), || "g2".into()).unwrap();
    assert_eq!(again.game_id.as_str(), "g2");
}

#[test]
fn a_winning_move_finishes_the_game() {
    let mut fx = Fixture::playing();
    for (seat, cell) in [(0, "0"), (1, "3"), (0, "1"), (1, "4")] {
        let seat = Seat::from_index(seat).unwrap();
        fx.play(seat, cell, fx.t0).unwrap();
    }
    let effects = fx.play(Seat::First, "2", fx.t0).unwrap();
    assert_eq!(fx.room.status(), Status::Finished);
    let finishing = states(&effects)[0];
    let over = game_over(&effects).unwrap();
    assert_eq!(over.winner, Some(Seat::First));
    assert_eq!(over.seq, finishing.seq);
    assert_eq!(finishing.to_move, None);
    assert!(finishing.legal_moves.is_empty());
}

#[test]
fn a_finished_room_is_removed_once_idle_whoever_is_connected() {
    let mut fx = Fixture::playing();
    let resigned = fx.t0 + secs(5);
    fx.request(crate::Request::Resign, &alice(), ALICE, resigned)
        .unwrap();
    let idle = settings().idle;
    assert_eq!(fx.room.next_deadline(), Some(resigned + idle));
    assert!(fx.tick(resigned + idle - ms(1)).is_some());
    assert!(fx.tick(resigned + idle).is_none());
}

#[test]
fn a_waiting_room_is_idle_only_while_nobody_is_in_it() {
    let mut fx = Fixture::open();
    let idle = settings().idle;
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    fx.room.disconnect(ALICE, fx.at(secs(10)));
    fx.settle(fx.at(secs(10)));
    assert!(fx.tick(fx.at(secs(10)) + idle - ms(1)).is_some());
    assert!(fx.tick(fx.at(secs(10)) + idle).is_none());
}

#[test]
fn a_playing_room_is_never_idle() {
    let mut fx = Fixture::playing();
    fx.room.disconnect(ALICE, fx.t0);
    fx.room.disconnect(BOB, fx.t0);
    fx.settle(fx.t0);
    let idle = settings().idle;
    // Nobody is in it, yet it is not removed: the first-move abort ends its game.
    let next = fx.room.next_deadline().unwrap();
    assert!(next < fx.t0 + idle);
    let effects = fx.tick(next).unwrap();
    assert_eq!(game_over(&effects).unwrap().reason, EndReason::Aborted);
}

#[test]
fn a_game_aborted_before_any_move_closes_its_room_once_nobody_is_in_it() {
    let mut fx = Fixture::playing();
    let left = fx.at(secs(3));
    let step = fx.room.leave(&"p_bob".into(), BOB, fx.now(left)).unwrap();
    fx.follow(step, left);
    fx.settle(left);
    let idle = settings().idle;
    // Alice is still there, perhaps to read the result: the room waits as usual.
    assert_eq!(fx.room.next_deadline(), Some(left + idle));
    let gone = fx.at(secs(4));
    fx.room.disconnect(ALICE, gone);
    fx.settle(gone);
    assert!(fx.room.next_deadline().is_some_and(|at| at <= gone));
    assert!(fx.tick(gone).is_none(), "closed at once");
}

#[test]
fn a_game_with_moves_keeps_its_room_for_the_idle_time_when_empty() {
    let mut fx = Fixture::playing();
    fx.play(Seat::First, "4", fx.t0).unwrap();
    fx.request(crate::Request::Resign, &bob(), BOB, fx.t0)
        .unwrap();
    fx.room.disconnect(ALICE, fx.t0);
    fx.room.disconnect(BOB, fx.t0);
    fx.settle(fx.t0);
    let idle = settings().idle;
    assert_eq!(fx.room.next_deadline(), Some(fx.t0 + idle));
}

#[test]
fn a_room_writes_nothing_to_the_store_until_its_game_starts() {
    let mut fx = Fixture::open();
    assert!(fx.room.start_record(fx.now(fx.t0), || "g".into()).is_none());
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    assert!(fx.room.start_record(fx.now(fx.t0), || "g".into()).is_none());
    let step = fx.room.join(bob(), Seat::Second, BOB, None).unwrap();
    assert!(matches!(step.then, Then::Start(_)));
    let record = fx
        .room
        .start_record(fx.now(fx.t0), || "g_new".into())
        .unwrap();
    assert_eq!(record.game_id, "g_new");
    assert_eq!(record.seats[0].kind, SeatKind::Human);
    assert_eq!(
        record.seats[1].player_id.as_ref().map(PlayerId::as_str),
        Some("p_bob")
    );
}

#[test]
fn the_operator_closing_a_room_aborts_its_game_unrated_and_needs_no_seat() {
    let mut fx = Fixture::playing();
    fx.play(Seat::First, "4", fx.t0).unwrap();
    let close = RoomCommand::Close {
        reason: "Abuse in the chat".to_owned(),
    };
    // The operator holds no seat and no connection in the room.
    let step = fx
        .room
        .answer(
            PlayerInfo {
                player_id: "operator".into(),
                name: "operator".to_owned(),
                bot_account: false,
            }
            .ask(close.clone(), None),
            0,
            fx.t0,
            fx.now(fx.t0),
        )
        .unwrap();
    let effects = fx.follow(step, fx.t0);
    assert_eq!(fx.room.status(), Status::Finished);
    let over = game_over(&effects).unwrap();
    assert_eq!((over.winner, over.reason), (None, EndReason::Aborted));
    assert_eq!(over.unrated, Some(crate::views::Unrated::Aborted));

    // A room without a game in progress closes with nothing to record.
    let mut open = Fixture::open();
    let step = open
        .room
        .answer(alice().ask(close, None), ALICE, open.t0, open.now(open.t0))
        .unwrap();
    assert!(matches!(step.then, Then::Nothing));
    assert!(step.effects.is_empty());
}
