//! The opponent who is gone: both sides see how long the absent person has left of
//! their grace and until a claim, and once the claim time has passed the player present
//! may end the game (PROTOCOL.md §6.19, §7.4.1, §9.6).

use super::*;
use crate::options::Takeover;
use crate::views::{Status, Unrated};
use crate::{Request, SeatKind};
use parlor_rules::games::EndReason;

/// Alice and Bob, two moves each played without a line, so a game ended now is scored
/// and rated.
fn four_moves_in() -> Fixture {
    let mut fx = Fixture::playing();
    for (seat, cell) in [(0, "0"), (1, "4"), (0, "8"), (1, "2")] {
        let seat = Seat::from_index(seat).unwrap();
        fx.play(seat, cell, fx.t0).unwrap();
    }
    fx
}

#[test]
fn an_absent_persons_seat_shows_the_grace_and_the_claim_counting_down() {
    let mut fx = four_moves_in();
    let present = fx.state();
    assert!(
        present
            .seats
            .iter()
            .all(|seat| seat.grace_left_ms.is_none() && seat.claim_left_ms.is_none())
    );
    let left = fx.at(secs(2));
    let effects = fx.room.disconnect(BOB, left);
    let seat = &states(&effects)[0].seats[1];
    assert!(!seat.connected);
    assert_eq!(
        (seat.grace_left_ms, seat.claim_left_ms),
        (Some(60_000), Some(15_000))
    );
    assert_eq!(states(&effects)[0].seats[0].grace_left_ms, None);
    let later = fx.room.state_msg(false, left + secs(20));
    assert_eq!(
        (later.seats[1].grace_left_ms, later.seats[1].claim_left_ms),
        (Some(40_000), Some(0)),
        "0 once the claim may be made"
    );
    let back = fx.join(bob(), Seat::Second, 42, left + secs(21)).unwrap();
    let seat = &states(&back)[0].seats[1];
    assert!(seat.connected);
    assert_eq!((seat.grace_left_ms, seat.claim_left_ms), (None, None));
}

#[test]
fn a_claim_before_its_time_or_against_a_present_opponent_is_refused_and_changes_nothing() {
    let mut fx = four_moves_in();
    assert_eq!(
        refusal(fx.request(Request::ClaimVictory, &alice(), ALICE, fx.t0)),
        Refusal::OpponentPresent
    );
    let left = fx.at(secs(1));
    fx.room.disconnect(BOB, left);
    let seq = fx.room.seq();
    let early = left + secs(10);
    assert_eq!(
        refusal(fx.request(Request::ClaimVictory, &alice(), ALICE, early)),
        Refusal::TooEarlyToClaim { left_ms: 5_000 }
    );
    assert_eq!(
        refusal(fx.request(Request::ClaimDraw, &alice(), ALICE, early)),
        Refusal::TooEarlyToClaim { left_ms: 5_000 }
    );
    assert_eq!(
        refusal(fx.request(Request::ClaimVictory, &bob(), BOB, early)),
        Refusal::NotAPlayer,
        "the absent side holds no connection"
    );
    assert_eq!((fx.room.seq(), fx.room.status()), (seq, Status::Playing));
}

#[test]
fn once_the_claim_time_has_passed_the_present_player_may_claim_the_win() {
    let mut fx = four_moves_in();
    let left = fx.at(secs(1));
    fx.room.disconnect(BOB, left);
    let claim = left + settings().claim_after;
    let effects = fx
        .request(Request::ClaimVictory, &alice(), ALICE, claim)
        .unwrap();
    let over = game_over(&effects).unwrap();
    assert_eq!(
        (over.winner, over.reason),
        (Some(Seat::First), EndReason::Abandoned)
    );
    assert_eq!(
        over.unrated, None,
        "a claimed win is rated like an abandonment"
    );
    let finished = states(&effects)[0];
    assert_eq!(
        finished.seats[1].grace_left_ms, None,
        "no countdown once over"
    );
    assert_eq!(
        refusal(fx.request(Request::ClaimVictory, &alice(), ALICE, claim)),
        Refusal::RequestAfterEnd
    );
}

#[test]
fn a_claimed_draw_is_scored_and_rated_as_a_draw() {
    let mut fx = four_moves_in();
    let left = fx.at(secs(1));
    fx.room.disconnect(BOB, left);
    let effects = fx
        .request(Request::ClaimDraw, &alice(), ALICE, left + secs(30))
        .unwrap();
    let over = game_over(&effects).unwrap();
    assert_eq!((over.winner, over.reason), (None, EndReason::DrawClaimed));
    assert_eq!(over.unrated, None);
    assert!(
        over.scores.iter().all(|seat| seat.score.is_some()),
        "{over:?}"
    );
}

#[test]
fn a_claim_before_any_move_aborts_the_game() {
    let mut fx = Fixture::playing();
    fx.room.disconnect(BOB, fx.t0);
    let effects = fx
        .request(Request::ClaimVictory, &alice(), ALICE, fx.at(secs(15)))
        .unwrap();
    let over = game_over(&effects).unwrap();
    assert_eq!((over.winner, over.reason), (None, EndReason::Aborted));
    assert_eq!(over.unrated, Some(Unrated::Aborted));
}

#[test]
fn a_claim_may_be_made_at_once_where_the_server_says_so() {
    let mut fx = Fixture::with_settings(
        [SeatSpec::Open, SeatSpec::Open],
        RoomOptions::default(),
        RoomSettings {
            claim_after: secs(0),
            ..settings()
        },
    );
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    fx.join(bob(), Seat::Second, BOB, fx.t0).unwrap();
    fx.play(Seat::First, "4", fx.t0).unwrap();
    fx.room.disconnect(BOB, fx.t0);
    assert_eq!(fx.state().seats[1].claim_left_ms, Some(0));
    let effects = fx
        .request(Request::ClaimDraw, &alice(), ALICE, fx.t0)
        .unwrap();
    assert_eq!(game_over(&effects).unwrap().reason, EndReason::DrawClaimed);
}

#[test]
fn once_a_bot_stands_in_there_is_nothing_to_claim() {
    let options = RoomOptions {
        takeover: Some(Takeover::Bot(BotLevel::Easy)),
        ..RoomOptions::default()
    };
    let mut fx = Fixture::new([SeatSpec::Open, SeatSpec::Open], options);
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    fx.join(bob(), Seat::Second, BOB, fx.t0).unwrap();
    fx.play(Seat::First, "0", fx.t0).unwrap();
    fx.room.disconnect(BOB, fx.t0);
    let grace = settings().reconnect_grace;
    let effects = fx.tick(fx.t0 + grace).unwrap();
    let seat = &states(&effects)[0].seats[1];
    assert_eq!(seat.kind, SeatKind::Bot(BotLevel::Easy));
    assert_eq!((seat.grace_left_ms, seat.claim_left_ms), (None, None));
    assert_eq!(
        refusal(fx.request(Request::ClaimVictory, &alice(), ALICE, fx.t0 + grace)),
        Refusal::OpponentPresent
    );
}

#[test]
fn no_claim_before_the_game_starts() {
    let mut fx = Fixture::open();
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    assert_eq!(
        refusal(fx.request(Request::ClaimVictory, &alice(), ALICE, fx.t0)),
        Refusal::RequestBeforeStart
    );
}
