//! PROTOCOL.md §9.2 (seat kinds), §9.4 (joining and watching), §9.5 (seats belong to a
//! connection) and §9.6 (disconnection, reconnect grace, abandonment, bot takeover).

use super::*;
use crate::SeatKind;
use crate::options::Takeover;
use crate::views::Status;
use crate::{Request, RoomCommand};
use parlor_rules::bots::BotLevel;
use parlor_rules::games::EndReason;

#[test]
fn one_player_cannot_take_both_seats() {
    let mut fx = Fixture::open();
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    let again = fx.join(alice(), Seat::Second, ALICE, fx.t0);
    assert_eq!(
        refusal(again),
        Refusal::AlreadySeated { other: Seat::First }
    );
}

#[test]
fn a_held_seat_is_taken() {
    let mut fx = Fixture::open();
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    let taken = fx.join(bob(), Seat::First, BOB, fx.t0);
    assert_eq!(refusal(taken), Refusal::SeatTaken { seat: Seat::First });
    assert_eq!(fx.room.seq(), 2, "a refused join changes nothing");
}

#[test]
fn a_joiner_gets_a_snapshot_with_the_seq_everyone_else_gets() {
    let mut fx = Fixture::open();
    let effects = fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    assert!(matches!(
        &effects[..2],
        [
            Effect::State {
                except: Some(ALICE),
                ..
            },
            Effect::Greet {
                conn: ALICE,
                seat: Some(Seat::First),
                ..
            }
        ]
    ));
    assert_eq!(states(&effects)[0].seq, fx.room.seq());
}

#[test]
fn a_spectator_is_counted_and_greeted_and_a_full_room_refuses_more() {
    let settings = RoomSettings {
        spectators_per_room: 1,
        ..settings()
    };
    let mut fx = Fixture::with_settings(
        [SeatSpec::Open, SeatSpec::Open],
        RoomOptions::default(),
        settings,
    );
    let effects = fx.room.watch(CAROL, None, fx.t0).unwrap();
    assert_eq!(states(&effects)[0].spectators, 1);
    assert!(matches!(
        effects.last(),
        Some(Effect::Greet {
            conn: CAROL,
            seat: None,
            ..
        })
    ));
    assert_eq!(
        refusal(fx.room.watch(99, None, fx.t0)),
        Refusal::RoomFull { limit: 1 }
    );
    // Watching again only greets again.
    let again = fx.room.watch(CAROL, None, fx.t0).unwrap();
    assert!(states(&again).is_empty());
}

#[test]
fn leaving_a_waiting_room_opens_the_seat() {
    let mut fx = Fixture::open();
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    let step = fx
        .room
        .leave(&"p_alice".into(), ALICE, fx.now(fx.t0))
        .unwrap();
    let effects = fx.follow(step, fx.t0);
    assert_eq!(states(&effects)[0].seats[0].kind, SeatKind::Open);
    assert_released_before_any_announcement(&effects, ALICE);
}

/// `conn` is let go before any `state` or `game_over` goes out, so it gets none of them:
/// whoever leaves gets only `left` (PROTOCOL.md §6.7).
fn assert_released_before_any_announcement(effects: &[Effect], conn: ConnId) {
    let released = effects.iter().position(|e| *e == Effect::Release(conn));
    let announced = effects
        .iter()
        .position(|e| matches!(e, Effect::State { .. } | Effect::GameOver(_)));
    assert!(released.is_some(), "{conn} was never released: {effects:?}");
    assert!(
        announced.is_none_or(|announced| released < Some(announced)),
        "{conn} was released after an announcement: {effects:?}"
    );
}

#[test]
fn a_spectator_who_leaves_is_let_go_before_anyone_hears_of_it() {
    let mut fx = Fixture::playing();
    fx.room.watch(CAROL, None, fx.t0).unwrap();
    let later = fx.at(secs(5));
    let step = fx
        .room
        .leave(&"p_carol".into(), CAROL, fx.now(later))
        .unwrap();
    let effects = fx.follow(step, later);
    assert_eq!(states(&effects)[0].spectators, 0);
    assert_released_before_any_announcement(&effects, CAROL);
}

#[test]
fn a_seated_connection_that_drops_is_let_go_before_its_absence_is_announced() {
    let mut fx = Fixture::playing();
    let effects = fx.room.disconnect(ALICE, fx.t0);
    assert!(!states(&effects)[0].seats[0].connected);
    assert_released_before_any_announcement(&effects, ALICE);
}

#[test]
fn leaving_a_game_loses_it_by_abandonment_and_the_seat_stays_the_players() {
    let mut fx = Fixture::playing();
    fx.play(Seat::First, "4", fx.t0).unwrap();
    let step = fx
        .room
        .leave(&"p_alice".into(), ALICE, fx.now(fx.t0))
        .unwrap();
    assert!(
        matches!(step.then, Then::End(_)),
        "recorded before it is applied"
    );
    assert_eq!(fx.room.status(), Status::Playing);
    let effects = fx.follow(step, fx.t0);
    let over = game_over(&effects).unwrap();
    assert_eq!(
        (over.winner, over.reason),
        (Some(Seat::Second), EndReason::Abandoned)
    );
    let seat = &states(&effects)[0].seats[0];
    assert_eq!((seat.kind, seat.connected), (SeatKind::Human, false));
    assert_released_before_any_announcement(&effects, ALICE);
}

#[test]
fn leaving_a_game_before_any_move_aborts_it_and_nobody_loses() {
    let mut fx = Fixture::playing();
    let step = fx.room.leave(&"p_bob".into(), BOB, fx.now(fx.t0)).unwrap();
    let effects = fx.follow(step, fx.t0);
    let over = game_over(&effects).unwrap();
    assert_eq!((over.winner, over.reason), (None, EndReason::Aborted));
    assert_eq!(over.unrated, Some(crate::views::Unrated::Aborted));
    assert!(over.scores.iter().all(|score| score.score.is_none()));
    assert_released_before_any_announcement(&effects, BOB);
}

#[test]
fn a_seat_answers_only_its_holding_connection() {
    let mut fx = Fixture::playing();
    let elsewhere = fx.human_move(&alice(), 42, "0", fx.t0);
    assert_eq!(refusal(elsewhere), Refusal::NotAPlayer);
}

#[test]
fn joining_from_a_new_connection_moves_the_seat_and_replaces_the_old_one() {
    let mut fx = Fixture::playing();
    let effects = fx.join(alice(), Seat::First, 42, fx.t0).unwrap();
    assert_eq!(
        &effects[..2],
        &[Effect::Replaced(ALICE), Effect::Release(ALICE)]
    );
    assert_eq!(
        refusal(fx.human_move(&alice(), ALICE, "0", fx.t0)),
        Refusal::NotAPlayer
    );
    assert!(fx.human_move(&alice(), 42, "0", fx.t0).is_ok());
}

#[test]
fn a_closed_connection_keeps_its_seat_and_is_announced_at_once() {
    let mut fx = Fixture::playing();
    let seq = fx.room.seq();
    let effects = fx.room.disconnect(ALICE, fx.t0);
    let state = states(&effects)[0];
    assert_eq!(state.seq, seq + 1);
    assert_eq!(state.seats[0].kind, SeatKind::Human);
    assert!(!state.seats[0].connected);
}

#[test]
fn a_player_away_past_the_grace_loses_by_abandonment() {
    let mut fx = Fixture::playing();
    fx.play(Seat::First, "0", fx.t0).unwrap();
    fx.play(Seat::Second, "4", fx.t0).unwrap();
    let left = fx.at(secs(5));
    fx.room.disconnect(BOB, left);
    let grace = settings().reconnect_grace;
    assert_eq!(fx.room.next_deadline(), Some(left + grace));
    let effects = fx.tick(left + grace).unwrap();
    let over = game_over(&effects).unwrap();
    assert_eq!(
        (over.winner, over.reason),
        (Some(Seat::First), EndReason::Abandoned)
    );
}

#[test]
fn a_player_away_past_the_grace_before_any_move_calls_the_game_off() {
    // A first-move limit longer than the grace, so that the grace runs out first.
    let patient = RoomSettings {
        first_move: secs(600),
        ..settings()
    };
    let mut fx = Fixture::with_settings(
        [SeatSpec::Open, SeatSpec::Open],
        RoomOptions::default(),
        patient,
    );
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    fx.join(bob(), Seat::Second, BOB, fx.t0).unwrap();
    fx.room.disconnect(BOB, fx.t0);
    let grace = settings().reconnect_grace;
    let effects = fx.tick(fx.t0 + grace).unwrap();
    let over = game_over(&effects).unwrap();
    assert_eq!((over.winner, over.reason), (None, EndReason::Aborted));
}

#[test]
fn the_grace_of_a_player_away_before_the_start_counts_from_the_start() {
    let mut fx = Fixture::open();
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    fx.room.disconnect(ALICE, fx.t0);
    let started = fx.at(secs(10));
    fx.join(bob(), Seat::Second, BOB, started).unwrap();
    let grace = settings().reconnect_grace;
    assert_eq!(
        fx.room.abandon_deadline(),
        Some((started + grace, Seat::First))
    );
}

#[test]
fn a_returning_player_keeps_the_game_going() {
    let mut fx = Fixture::playing();
    fx.room.disconnect(ALICE, fx.t0);
    let effects = fx.join(alice(), Seat::First, 42, fx.at(secs(30))).unwrap();
    assert!(states(&effects)[0].seats[0].connected);
    assert_eq!(fx.room.abandon_deadline(), None);
}

fn takeover_room() -> Fixture {
    let options = RoomOptions {
        takeover: Some(Takeover::Bot(BotLevel::Easy)),
        ..RoomOptions::default()
    };
    let mut fx = Fixture::new([SeatSpec::Open, SeatSpec::Open], options);
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    fx.join(bob(), Seat::Second, BOB, fx.t0).unwrap();
    fx.play(Seat::First, "0", fx.t0).unwrap();
    fx.play(Seat::Second, "4", fx.t0).unwrap();
    fx
}

#[test]
fn past_the_grace_a_bot_takes_over_and_plays_for_the_absent_player() {
    let mut fx = takeover_room();
    fx.room.disconnect(ALICE, fx.t0);
    let grace = settings().reconnect_grace;
    let effects = fx.tick(fx.t0 + grace).unwrap();
    let seat = &states(&effects)[0].seats[0];
    assert_eq!(seat.kind, SeatKind::Bot(BotLevel::Easy));
    assert_eq!(seat.stand_in_for.as_ref().unwrap().player_id, "p_alice");
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Think { ply: 2, .. }))
    );
    assert_eq!(fx.room.status(), Status::Playing);
}

#[test]
fn a_player_back_while_their_bot_thinks_gets_the_seat_after_its_move() {
    let mut fx = takeover_room();
    fx.room.disconnect(ALICE, fx.t0);
    let grace = settings().reconnect_grace;
    fx.tick(fx.t0 + grace).unwrap();
    let back = fx.t0 + grace + secs(1);
    fx.join(alice(), Seat::First, 42, back).unwrap();
    assert_eq!(
        refusal(fx.human_move(&alice(), 42, "1", back)),
        Refusal::BotFinishingMove,
        "the bot finishes this move"
    );
    assert_eq!(fx.room.bot_moved(2), Some(Seat::First));
    let effects = fx.play(Seat::First, "8", back).unwrap();
    assert_eq!(states(&effects)[0].seats[0].kind, SeatKind::Human);
}

#[test]
fn a_player_back_between_their_bots_moves_gets_the_seat_at_once() {
    let mut fx = takeover_room();
    fx.play(Seat::First, "8", fx.t0).unwrap();
    fx.room.disconnect(ALICE, fx.t0);
    let grace = settings().reconnect_grace;
    fx.tick(fx.t0 + grace).unwrap();
    let effects = fx.join(alice(), Seat::First, 42, fx.t0 + grace).unwrap();
    assert_eq!(states(&effects)[0].seats[0].kind, SeatKind::Human);
}

#[test]
fn a_seat_a_bot_stood_in_for_is_not_scored_and_the_game_not_rated() {
    let mut fx = takeover_room();
    fx.room.disconnect(ALICE, fx.t0);
    let grace = settings().reconnect_grace;
    fx.tick(fx.t0 + grace).unwrap();
    let step = fx
        .room
        .request(Request::Resign, &"p_bob".into(), BOB, fx.now(fx.t0 + grace))
        .unwrap();
    let Then::End(ending) = step.then else {
        panic!("a resignation ends the game");
    };
    assert_eq!(ending.finish.rated, None);
    assert_eq!(ending.finish.seats[0].score, None);
}

#[test]
fn a_state_made_before_a_drop_is_made_again_with_the_drop_and_nothing_more_is_announced() {
    let mut fx = Fixture::playing();
    fx.room.watch(CAROL, None, fx.t0).unwrap();
    let seq = fx.room.seq();
    // Carol's queue overflowed while an earlier state of the same step went out.
    fx.room.dropped(CAROL, fx.t0);
    assert_eq!(
        fx.room.restate(seq - 1, fx.t0),
        None,
        "only the latest state"
    );
    let fresh = fx.room.restate(seq, fx.t0).unwrap();
    assert_eq!((fresh.seq, fresh.spectators), (seq, 0));
    // The drop rode on that state: no paced announcement follows for it.
    let later = fx.tick(fx.at(secs(2))).unwrap_or_default();
    assert!(states(&later).is_empty(), "{later:?}");
}

#[test]
fn a_player_returning_after_a_move_between_nodes_gets_their_own_seat_back() {
    let mut fx = Fixture::playing();
    // Bob's room moved: his new connection asks only to come back.
    let back = |fx: &mut Fixture, player: PlayerInfo, conn| {
        let asked = player.ask(RoomCommand::Return { since: None }, None);
        let step = fx.room.answer(asked, conn, fx.t0, fx.now(fx.t0)).unwrap();
        fx.follow(step, fx.t0)
    };
    let effects = back(&mut fx, bob(), 77);
    assert!(effects.iter().any(|effect| matches!(
        effect,
        Effect::Greet {
            conn: 77,
            seat: Some(Seat::Second),
            ..
        }
    )));
    assert_eq!(fx.room.seat_of(&bob().player_id, 77), Ok(Seat::Second));
    // Someone who holds no seat comes back as a spectator.
    let carol = PlayerInfo {
        player_id: PlayerId::from("p_carol"),
        name: "Carol".to_owned(),
        bot_account: false,
    };
    let effects = back(&mut fx, carol, CAROL);
    assert!(effects.iter().any(|effect| matches!(
        effect,
        Effect::Greet {
            conn: CAROL,
            seat: None,
            ..
        }
    )));
    assert_eq!(fx.state().spectators, 1);
}

#[test]
fn seats_held_for_two_players_start_the_game_and_are_theirs_when_they_come() {
    let mut fx = Fixture::open();
    let reserve = |fx: &mut Fixture, player: PlayerInfo, seat| {
        let asked = player.ask(RoomCommand::Reserve { seat }, None);
        let step = fx.room.answer(asked, 0, fx.t0, fx.now(fx.t0))?;
        let mut effects = fx.follow(step, fx.t0);
        effects.extend(fx.settle(fx.t0));
        Ok::<_, Refusal>(effects)
    };
    reserve(&mut fx, alice(), Seat::First).unwrap();
    assert_eq!(fx.room.status(), Status::Waiting);
    // Nobody else may take a held seat, nor the same player the other one.
    assert_eq!(
        refusal(fx.join(bob(), Seat::First, BOB, fx.t0)),
        Refusal::SeatTaken { seat: Seat::First }
    );
    assert_eq!(
        refusal(reserve(&mut fx, alice(), Seat::Second)),
        Refusal::AlreadySeated { other: Seat::First }
    );
    reserve(&mut fx, bob(), Seat::Second).unwrap();
    assert_eq!(
        fx.room.status(),
        Status::Playing,
        "both seats held: the game starts"
    );
    let view = fx.room.state_msg(false, fx.t0);
    assert!(view.seats.iter().all(|seat| !seat.connected), "{view:?}");
    // Held seats are taken by their players when they come.
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    assert_eq!(fx.room.seat_of(&alice().player_id, ALICE), Ok(Seat::First));
    // A started game's seats can no longer be held for anyone.
    let carol = PlayerInfo {
        player_id: PlayerId::from("p_carol"),
        name: "Carol".to_owned(),
        bot_account: false,
    };
    assert_eq!(
        refusal(reserve(&mut fx, carol, Seat::Second)),
        Refusal::SeatTaken { seat: Seat::Second }
    );
}
