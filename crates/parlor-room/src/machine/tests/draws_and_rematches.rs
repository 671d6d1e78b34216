//! Draw offers and rematches (PROTOCOL.md §6.9–6.12).

use super::*;
use crate::Request;
use crate::machine::DrawAnswer;
use crate::scoring::Opponent;
use crate::views::{Status, Unrated};
use parlor_rules::bots::{BotLevel, DrawView};
use parlor_rules::games::EndReason;

#[test]
fn a_draw_offer_is_shown_to_everyone() {
    let mut fx = Fixture::playing();
    let effects = fx.request(Request::OfferDraw, &bob(), BOB, fx.t0).unwrap();
    assert_eq!(states(&effects)[0].draw_offer, Some(Seat::Second));
}

#[test]
fn offering_again_changes_nothing_but_is_broadcast_again() {
    let mut fx = Fixture::playing();
    fx.request(Request::OfferDraw, &bob(), BOB, fx.t0).unwrap();
    let seq = fx.room.seq();
    let effects = fx.request(Request::OfferDraw, &bob(), BOB, fx.t0).unwrap();
    let state = states(&effects)[0];
    assert_eq!((state.seq, state.draw_offer), (seq + 1, Some(Seat::Second)));
}

#[test]
fn accepting_an_offer_draws_the_game() {
    let mut fx = Fixture::playing();
    fx.request(Request::OfferDraw, &bob(), BOB, fx.t0).unwrap();
    let effects = fx
        .request(Request::AcceptDraw, &alice(), ALICE, fx.t0)
        .unwrap();
    let over = game_over(&effects).unwrap();
    assert_eq!((over.winner, over.reason), (None, EndReason::DrawAgreed));
    assert_eq!(states(&effects)[0].draw_offer, None);
}

#[test]
fn offering_a_draw_to_an_open_offer_accepts_it() {
    let mut fx = Fixture::playing();
    fx.request(Request::OfferDraw, &bob(), BOB, fx.t0).unwrap();
    let effects = fx
        .request(Request::OfferDraw, &alice(), ALICE, fx.t0)
        .unwrap();
    assert_eq!(game_over(&effects).unwrap().reason, EndReason::DrawAgreed);
}

#[test]
fn declining_an_offer_closes_it() {
    let mut fx = Fixture::playing();
    fx.request(Request::OfferDraw, &bob(), BOB, fx.t0).unwrap();
    let effects = fx
        .request(Request::DeclineDraw, &alice(), ALICE, fx.t0)
        .unwrap();
    assert_eq!(states(&effects)[0].draw_offer, None);
    assert_eq!(fx.room.status(), Status::Playing);
}

#[test]
fn accepting_or_declining_without_an_offer_is_refused() {
    let mut fx = Fixture::playing();
    let accept = fx.request(Request::AcceptDraw, &alice(), ALICE, fx.t0);
    assert_eq!(refusal(accept), Refusal::NoDrawOffer);
    fx.request(Request::OfferDraw, &alice(), ALICE, fx.t0)
        .unwrap();
    let own = fx.request(Request::DeclineDraw, &alice(), ALICE, fx.t0);
    assert_eq!(
        refusal(own),
        Refusal::NoDrawOffer,
        "an offer cannot be withdrawn"
    );
}

#[test]
fn moving_instead_of_answering_lets_the_offer_lapse() {
    let mut fx = Fixture::playing();
    fx.request(Request::OfferDraw, &bob(), BOB, fx.t0).unwrap();
    let effects = fx.play(Seat::First, "0", fx.t0).unwrap();
    assert_eq!(moved(&effects)[0].draw_offer, None);
}

#[test]
fn the_offerers_own_move_leaves_the_offer_open() {
    let mut fx = Fixture::playing();
    fx.request(Request::OfferDraw, &alice(), ALICE, fx.t0)
        .unwrap();
    let effects = fx.play(Seat::First, "0", fx.t0).unwrap();
    assert_eq!(moved(&effects)[0].draw_offer, Some(Seat::First));
}

#[test]
fn draw_requests_need_a_game_in_progress() {
    let mut fx = Fixture::open();
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    let waiting = fx.request(Request::OfferDraw, &alice(), ALICE, fx.t0);
    assert_eq!(refusal(waiting), Refusal::RequestBeforeStart);
    let mut fx = Fixture::playing();
    fx.request(Request::Resign, &alice(), ALICE, fx.t0).unwrap();
    let finished = fx.request(Request::OfferDraw, &alice(), ALICE, fx.t0);
    assert_eq!(refusal(finished), Refusal::RequestAfterEnd);
}

fn against_a_bot() -> Fixture {
    let mut fx = Fixture::new(
        [SeatSpec::Me, SeatSpec::Bot(BotLevel::Easy)],
        RoomOptions::default(),
    );
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    fx
}

#[test]
fn a_bot_judges_an_offer_without_holding_up_the_room() {
    let mut fx = against_a_bot();
    let effects = fx
        .request(Request::OfferDraw, &alice(), ALICE, fx.t0)
        .unwrap();
    assert!(effects.contains(&Effect::JudgeDraw {
        ply: 0,
        seat: Seat::Second
    }));
    let again = fx
        .request(Request::OfferDraw, &alice(), ALICE, fx.t0)
        .unwrap();
    assert!(
        !again.iter().any(|e| matches!(e, Effect::JudgeDraw { .. })),
        "offering again while the bot judges gets the one answer"
    );
}

#[test]
fn a_bot_accepts_only_a_position_it_judges_drawn() {
    for drawn in [DrawView::Proven, DrawView::Dead] {
        let mut fx = against_a_bot();
        fx.request(Request::OfferDraw, &alice(), ALICE, fx.t0)
            .unwrap();
        let step = fx
            .room
            .bot_judged_draw(0, DrawAnswer::Judged(drawn), fx.now(fx.t0));
        let effects = fx.follow(step, fx.t0);
        assert_eq!(game_over(&effects).unwrap().reason, EndReason::DrawAgreed);
    }

    // Level is not drawn: a position still to be played for is played on.
    for open in [DrawView::Open(0), DrawView::Open(-300), DrawView::Open(51)] {
        let mut fx = against_a_bot();
        fx.request(Request::OfferDraw, &alice(), ALICE, fx.t0)
            .unwrap();
        let step = fx
            .room
            .bot_judged_draw(0, DrawAnswer::Judged(open), fx.now(fx.t0));
        let effects = fx.follow(step, fx.t0);
        assert_eq!(states(&effects)[0].draw_offer, None, "{open:?}");
        assert_eq!(fx.room.status(), Status::Playing);
    }
}

#[test]
fn a_random_bot_declines_at_once_without_judging() {
    let mut fx = Fixture::new(
        [SeatSpec::Me, SeatSpec::Bot(BotLevel::Random)],
        RoomOptions::default(),
    );
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    let effects = fx
        .request(Request::OfferDraw, &alice(), ALICE, fx.t0)
        .unwrap();
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::JudgeDraw { .. })),
        "{effects:?}"
    );
    let shown: Vec<_> = states(&effects).iter().map(|s| s.draw_offer).collect();
    assert_eq!(shown, vec![Some(Seat::First), None]);
    assert_eq!(fx.room.status(), Status::Playing);
}

#[test]
fn a_busy_bot_declines_without_judging() {
    let mut fx = against_a_bot();
    fx.request(Request::OfferDraw, &alice(), ALICE, fx.t0)
        .unwrap();
    let step = fx.room.bot_judged_draw(0, DrawAnswer::Busy, fx.now(fx.t0));
    assert!(matches!(
        step.then,
        Then::DrawOffer(DrawChange::Declined { by_bot: true })
    ));
    let effects = fx.follow(step, fx.t0);
    assert_eq!(states(&effects)[0].draw_offer, None);
}

#[test]
fn an_offer_repeated_in_a_judged_position_is_answered_at_once() {
    let mut fx = against_a_bot();
    fx.request(Request::OfferDraw, &alice(), ALICE, fx.t0)
        .unwrap();
    let step = fx
        .room
        .bot_judged_draw(0, DrawAnswer::Judged(DrawView::Open(500)), fx.now(fx.t0));
    fx.follow(step, fx.t0);
    let effects = fx
        .request(Request::OfferDraw, &alice(), ALICE, fx.t0)
        .unwrap();
    let shown: Vec<_> = states(&effects).iter().map(|s| s.draw_offer).collect();
    assert_eq!(shown, vec![Some(Seat::First), None]);
}

#[test]
fn a_judgement_of_a_position_the_room_has_left_is_dropped() {
    let mut fx = against_a_bot();
    fx.request(Request::OfferDraw, &alice(), ALICE, fx.t0)
        .unwrap();
    fx.play(Seat::First, "0", fx.t0).unwrap();
    let step = fx
        .room
        .bot_judged_draw(0, DrawAnswer::Judged(DrawView::Proven), fx.now(fx.t0));
    assert!(step.effects.is_empty());
    assert!(matches!(step.then, Then::Nothing));
}

#[test]
fn a_rematch_is_asked_for_once_the_game_is_over() {
    let mut fx = Fixture::playing();
    let early = fx.request(Request::Rematch, &alice(), ALICE, fx.t0);
    assert_eq!(refusal(early), Refusal::RematchBeforeEnd);
}

#[test]
fn a_rematch_both_seats_agree_to_starts_a_new_game_with_seats_swapped() {
    let mut fx = Fixture::playing();
    fx.request(Request::Resign, &bob(), BOB, fx.t0).unwrap();
    let asked = fx
        .request(Request::Rematch, &alice(), ALICE, fx.t0)
        .unwrap();
    let state = states(&asked)[0];
    assert_eq!(
        (state.status, state.rematch.clone()),
        (Status::Finished, vec![Seat::First])
    );
    let seq = fx.room.seq();
    let agreed = fx.request(Request::Rematch, &bob(), BOB, fx.t0).unwrap();
    let broadcast = states(&agreed);
    assert_eq!(broadcast.len(), 1, "one state announces the new game");
    let state = broadcast[0];
    assert_eq!((state.seq, state.status), (seq + 1, Status::Playing));
    assert_eq!(
        state.seats[0].player_id.as_ref().map(PlayerId::as_str),
        Some("p_bob")
    );
    assert_eq!(
        state.seats[1].player_id.as_ref().map(PlayerId::as_str),
        Some("p_alice")
    );
    assert!(state.rematch.is_empty() && state.result.is_none() && state.moves == 0);
}

#[test]
fn a_bot_always_agrees_to_a_rematch() {
    let mut fx = against_a_bot();
    fx.request(Request::Resign, &alice(), ALICE, fx.t0).unwrap();
    let effects = fx
        .request(Request::Rematch, &alice(), ALICE, fx.t0)
        .unwrap();
    assert_eq!(fx.room.status(), Status::Playing);
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Think { ply: 0, .. })),
        "the bot, now in seat 0, moves first"
    );
}

#[test]
fn a_game_ended_before_each_side_has_made_two_moves_is_not_rated() {
    let cases: [(&[&str], Option<Unrated>); 4] = [
        (&[], Some(Unrated::TooShort)),
        (&["4", "0"], Some(Unrated::TooShort)),
        (&["4", "0", "8"], Some(Unrated::TooShort)),
        (&["4", "0", "8", "2"], None),
    ];
    for (moves, unrated) in cases {
        let mut fx = Fixture::playing();
        for (ply, cell) in moves.iter().enumerate() {
            let seat = if ply % 2 == 0 {
                Seat::First
            } else {
                Seat::Second
            };
            fx.play(seat, cell, fx.t0).unwrap();
        }
        fx.request(Request::OfferDraw, &bob(), BOB, fx.t0).unwrap();
        let step = fx
            .room
            .request(
                Request::AcceptDraw,
                &alice().player_id,
                ALICE,
                fx.now(fx.t0),
            )
            .unwrap();
        let Then::End(ending) = step.then else {
            panic!("accepting the offer ends the game");
        };
        assert_eq!(
            ending.finish.rated.is_some(),
            unrated.is_none(),
            "what the store is told to rate after {moves:?}"
        );
        let effects = fx.room.conclude(*ending, None, fx.t0);
        let over = game_over(&effects).unwrap();
        assert_eq!(over.unrated, unrated, "game_over after {moves:?}");
    }
}

#[test]
fn a_game_with_a_bot_in_a_seat_is_unrated_and_each_score_names_its_opponent() {
    let mut fx = against_a_bot();
    let ending = fx.room.prepare_ending(
        None,
        EndReason::DrawAgreed,
        crate::machine::OnFailure::Shrug,
        fx.now(fx.t0),
    );
    assert_eq!(ending.finish.rated, None, "nothing for the store to rate");
    let opponents: Vec<_> = ending.finish.seats.iter().map(|s| s.opponent).collect();
    assert_eq!(
        opponents,
        [Opponent::Bot(BotLevel::Easy), Opponent::Person],
        "Alice played the bot, the bot a person"
    );
    let effects = fx.room.conclude(ending, None, fx.t0);
    let over = game_over(&effects).unwrap();
    assert_eq!(
        over.unrated,
        Some(Unrated::BotOpponent),
        "the first reason that applies is given, before too_short"
    );
    assert_eq!(over.scores[0].opponent, Opponent::Bot(BotLevel::Easy));
    assert_eq!(over.scores[0].rating_before, None);

    // Two bots of different levels: not rated either.
    let mut fx = Fixture::new(
        [SeatSpec::Bot(BotLevel::Easy), SeatSpec::Bot(BotLevel::Hard)],
        RoomOptions::default(),
    );
    fx.settle(fx.t0);
    let ending = fx.room.prepare_ending(
        None,
        EndReason::DrawAgreed,
        crate::machine::OnFailure::Shrug,
        fx.now(fx.t0),
    );
    assert_eq!(ending.finish.rated, None);
    let effects = fx.room.conclude(ending, None, fx.t0);
    assert_eq!(
        game_over(&effects).unwrap().unrated,
        Some(Unrated::BotOpponent)
    );
}

#[test]
fn a_game_between_two_people_names_a_person_as_each_opponent() {
    let mut fx = Fixture::playing();
    for (seat, cell) in Seat::BOTH.into_iter().cycle().zip(["4", "0", "8", "2"]) {
        fx.play(seat, cell, fx.t0).unwrap();
    }
    let ending = fx.room.prepare_ending(
        Some(Seat::First),
        EndReason::Resigned,
        crate::machine::OnFailure::Refuse,
        fx.now(fx.t0),
    );
    assert!(
        ending
            .finish
            .seats
            .iter()
            .all(|s| s.opponent == Opponent::Person)
    );
    let entered: Vec<_> = ending
        .finish
        .leaderboard
        .iter()
        .map(|c| c.opponent)
        .collect();
    assert_eq!(
        entered,
        [Opponent::Person],
        "the winner's score, against a person"
    );
    assert!(ending.finish.rated.is_some());
}
