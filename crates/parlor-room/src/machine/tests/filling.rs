//! Who fills an open seat: the room's own bot fill as `options.bot_fill` allows, and
//! a bot a seated player asks for (`fill_with_bot`) (PROTOCOL.md §6.18, §9.7).

use serde_json::json;

use super::*;
use crate::SeatKind;
use crate::views::Status;
use crate::{Request, options::OptionError};

fn options(sent: serde_json::Value) -> Result<RoomOptions, OptionError> {
    let serde_json::Value::Object(sent) = sent else {
        panic!("options are an object");
    };
    RoomOptions::parse(Some(sent))
}

fn waiting_for_a_friend(sent: serde_json::Value) -> Fixture {
    let mut fx = Fixture::new(
        [SeatSpec::Me, SeatSpec::Open],
        options(sent).expect("options"),
    );
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    fx
}

#[test]
fn a_private_room_waits_for_the_friend_unless_its_host_asked_for_a_bot() {
    let fx = waiting_for_a_friend(json!({"private": true}));
    assert_eq!(fx.room.next_deadline(), None, "nothing to wait for");
    let mut fx = waiting_for_a_friend(json!({"private": true, "bot_fill": true}));
    let fill = settings().fill_after;
    assert_eq!(fx.room.next_deadline(), Some(fx.t0 + fill));
    let effects = fx.tick(fx.t0 + fill).unwrap();
    assert_eq!(states(&effects)[0].status, Status::Playing);
}

#[test]
fn a_public_room_may_be_told_not_to_fill() {
    let fx = waiting_for_a_friend(json!({"bot_fill": false}));
    assert_eq!(fx.room.next_deadline(), None);
    let fx = waiting_for_a_friend(json!({}));
    assert_eq!(fx.room.next_deadline(), Some(fx.t0 + settings().fill_after));
}

#[test]
fn a_player_who_asks_for_a_bot_gets_one_at_once_and_the_game_starts() {
    let mut fx = waiting_for_a_friend(json!({"private": true}));
    let seq = fx.room.seq();
    let asked = Request::FillWithBot {
        level: Some(BotLevel::Hard),
    };
    let effects = fx.request(asked, &alice(), ALICE, fx.t0).unwrap();
    let broadcast = states(&effects);
    assert_eq!(broadcast.len(), 1, "one state shows the bot and the start");
    assert_eq!(broadcast[0].seq, seq + 1);
    assert_eq!(broadcast[0].status, Status::Playing);
    assert_eq!(broadcast[0].seats[1].kind, SeatKind::Bot(BotLevel::Hard));
}

#[test]
fn a_bot_asked_for_without_a_level_is_the_servers_fill_level() {
    let mut fx = waiting_for_a_friend(json!({}));
    let asked = Request::FillWithBot { level: None };
    fx.request(asked, &alice(), ALICE, fx.t0).unwrap();
    let state = fx.state();
    assert_eq!(state.seats[1].kind, SeatKind::Bot(settings().fill_level));
    assert_eq!(fx.room.status(), Status::Playing);
}

#[test]
fn a_bot_is_refused_to_a_stranger_to_a_game_on_and_after_it_leaving_the_room_as_it_was() {
    let asked = Request::FillWithBot { level: None };
    let mut fx = waiting_for_a_friend(json!({}));
    let seq = fx.room.seq();
    assert_eq!(
        refusal(fx.request(asked, &bob(), BOB, fx.t0)),
        Refusal::NotAPlayer
    );
    assert_eq!(
        refusal(fx.request(asked, &alice(), 42, fx.t0)),
        Refusal::NotAPlayer,
        "only from the connection holding the seat"
    );
    assert_eq!((fx.room.seq(), fx.room.status()), (seq, Status::Waiting));

    let mut fx = Fixture::playing();
    let seq = fx.room.seq();
    assert_eq!(
        refusal(fx.request(asked, &alice(), ALICE, fx.t0)),
        Refusal::NoOpenSeat
    );
    assert_eq!(fx.state().seats[1].kind, SeatKind::Human);
    fx.request(Request::Resign, &bob(), BOB, fx.t0).unwrap();
    let seq_after = fx.room.seq();
    assert!(seq_after > seq);
    assert_eq!(
        refusal(fx.request(asked, &alice(), ALICE, fx.t0)),
        Refusal::RequestAfterEnd
    );
    assert_eq!(fx.room.seq(), seq_after);
}
