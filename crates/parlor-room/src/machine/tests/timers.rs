//! Bot fill and the bots' pace (PROTOCOL.md §9.7).

use super::*;
use crate::SeatKind;
use crate::TimeControl;
use crate::views::Status;
use parlor_rules::bots::BotLevel;

#[test]
fn an_open_seat_opposite_a_connected_player_is_filled_with_a_bot() {
    let mut fx = Fixture::open();
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    let fill = settings().fill_after;
    assert_eq!(fx.room.next_deadline(), Some(fx.t0 + fill));
    let effects = fx.tick(fx.t0 + fill).unwrap();
    let broadcast = states(&effects);
    assert_eq!(broadcast.len(), 1, "one state shows the bot and the start");
    assert_eq!(broadcast[0].status, Status::Playing);
    assert_eq!(
        broadcast[0].seats[1].kind,
        SeatKind::Bot(settings().fill_level)
    );
}

#[test]
fn bot_fill_is_cancelled_when_the_player_leaves_and_restarts_when_they_return() {
    let mut fx = Fixture::open();
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    fx.room.disconnect(ALICE, fx.at(secs(5)));
    fx.settle(fx.at(secs(5)));
    let idle = settings().idle;
    assert_eq!(fx.room.next_deadline(), Some(fx.at(secs(5)) + idle));
    fx.join(alice(), Seat::First, ALICE, fx.at(secs(10)))
        .unwrap();
    let fill = settings().fill_after;
    assert_eq!(fx.room.next_deadline(), Some(fx.at(secs(10)) + fill));
}

#[test]
fn spectators_alone_never_fill_a_room() {
    let mut fx = Fixture::open();
    fx.room.watch(CAROL, None, fx.t0).unwrap();
    fx.settle(fx.t0);
    assert_eq!(fx.room.next_deadline(), None);
}

#[test]
fn a_private_room_is_never_filled() {
    let options = RoomOptions {
        private: true,
        ..RoomOptions::default()
    };
    let mut fx = Fixture::new([SeatSpec::Me, SeatSpec::Open], options);
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    assert_eq!(fx.room.next_deadline(), None);
}

#[test]
fn a_bot_moves_no_sooner_than_the_minimum_delay_after_the_last_move() {
    let mut fx = Fixture::new(
        [SeatSpec::Me, SeatSpec::Bot(BotLevel::Easy)],
        RoomOptions::default(),
    );
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    let moved = fx.at(secs(3));
    let effects = fx.play(Seat::First, "0", moved).unwrap();
    let delay = settings().bot_min_delay;
    assert!(effects.contains(&Effect::Think {
        ply: 1,
        level: BotLevel::Easy,
        budget: None,
        not_before: moved + delay,
    }));
    let again = fx.settle(moved);
    assert!(again.is_empty(), "a bot is asked once per position");
}

#[test]
fn a_bot_under_a_clock_thinks_within_a_share_of_its_time() {
    let options = RoomOptions {
        time_control: TimeControl::PerMove { per_move_ms: 1_000 },
        ..RoomOptions::default()
    };
    let mut fx = Fixture::new([SeatSpec::Me, SeatSpec::Bot(BotLevel::Easy)], options);
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    let effects = fx.play(Seat::First, "0", fx.t0).unwrap();
    let budget = ms(1_000 / 2 - 150);
    assert!(effects.contains(&Effect::Think {
        ply: 1,
        level: BotLevel::Easy,
        budget: Some(budget),
        not_before: fx.t0 + budget.min(settings().bot_min_delay),
    }));
}

#[test]
fn a_bot_move_for_a_position_the_room_has_left_is_ignored() {
    let mut fx = Fixture::new(
        [SeatSpec::Me, SeatSpec::Bot(BotLevel::Easy)],
        RoomOptions::default(),
    );
    fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
    fx.play(Seat::First, "0", fx.t0).unwrap();
    assert_eq!(fx.room.bot_moved(0), None);
    assert_eq!(fx.room.bot_moved(1), Some(Seat::Second));
}
