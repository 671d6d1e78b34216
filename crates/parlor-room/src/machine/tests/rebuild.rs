//! Rebuilding a room from the records its store keeps.

use super::*;
use crate::Request;
use crate::SeatKind;
use crate::machine::{DrawAnswer, PendingEnding, Records};
use crate::records::{DrawOfferRecord, StoredMove, StoredSeat};
use crate::views::Status;
use parlor_rules::bots::{BotLevel, DrawView};
use parlor_rules::games::EndReason;

/// Alice and Bob as the store keeps the seats of their game.
fn stored_seats() -> [StoredSeat; 2] {
    [(Seat::First, alice()), (Seat::Second, bob())].map(|(seat, player)| StoredSeat {
        seat,
        kind: SeatKind::Human,
        player_id: Some(player.player_id),
        name: player.name,
        thinking_ms: None,
        score: None,
        opponent: None,
        rating_before: None,
        rating_after: None,
        stood_in: false,
    })
}

/// A live game of Alice and Bob under `options`, the moves `cells` each played a
/// little slower than the one before, and the store's records of it.
fn played(options: &RoomOptions, cells: &[&str]) -> (Fixture, Vec<StoredMove>, Instant) {
    let mut live = Fixture::new([SeatSpec::Open, SeatSpec::Open], options.clone());
    live.join(alice(), Seat::First, ALICE, live.t0).unwrap();
    live.join(bob(), Seat::Second, BOB, live.t0).unwrap();
    let start = live
        .room
        .start_record(live.now(live.t0), || "unused".into());
    assert!(start.is_none(), "the live game has started");
    let mut moves = Vec::new();
    let mut at = live.t0;
    for (ply, cell) in cells.iter().enumerate() {
        at += secs(2 + ply as u64);
        let seat = live.room.game().turn().unwrap();
        let pending = live
            .room
            .prepare_move(seat, cell, at, live.now(at))
            .unwrap();
        let record = pending.record.clone();
        live.room.apply_move(pending, None, at);
        moves.push(StoredMove {
            ply: record.ply,
            seat: record.seat,
            notation: record.notation,
            played_at_ms: record.played_at_ms,
            think_ms: record.think_ms,
            clocks_ms: record.clocks_ms,
        });
    }
    (live, moves, at)
}

/// The store's records of a tic-tac-toe game between `seats`.
fn records<'a>(
    seats: &'a [StoredSeat],
    moves: &'a [StoredMove],
    draw_offer: Option<DrawOfferRecord>,
) -> Records<'a> {
    Records {
        game_id: "g_test".into(),
        kind: GameKind::TicTacToe,
        rules: settings().games,
        ratings: [None, None],
        started_at_ms: 1_700_000_000_000,
        seats,
        moves,
        draw_offer,
        chat: &[],
    }
}

/// The room rebuilt from `records` under `options`, live again at `live`.
fn rebuilt_from(records: &Records<'_>, options: RoomOptions, live: Now, seq: u64) -> RoomState {
    RoomState::rebuild(
        "r1".into(),
        options,
        Arc::new(settings()),
        records,
        live,
        seq,
    )
    .unwrap()
}

/// Alice and Bob's room rebuilt from `moves` under `options`, live again at `live`.
fn rebuilt(
    options: RoomOptions,
    moves: &[StoredMove],
    draw_offer: Option<DrawOfferRecord>,
    live: Now,
    seq: u64,
) -> RoomState {
    let seats = stored_seats();
    rebuilt_from(&records(&seats, moves, draw_offer), options, live, seq)
}

fn fischer() -> RoomOptions {
    RoomOptions {
        time_control: crate::TimeControl::Fischer {
            base_ms: 60_000,
            increment_ms: 1_000,
        },
        ..RoomOptions::default()
    }
}

#[test]
fn a_room_rebuilt_from_its_records_equals_the_live_room() {
    let (live, moves, at) = played(&fischer(), &["4", "0", "8", "2"]);
    let room = rebuilt(fischer(), &moves, None, live.now(at), live.room.seq());
    let (live_state, rebuilt_state) = (live.room.state_msg(true, at), room.state_msg(true, at));
    assert_eq!(rebuilt_state.position, live_state.position);
    assert_eq!(rebuilt_state.seq, live_state.seq);
    assert_eq!(rebuilt_state.history, live_state.history);
    assert_eq!(rebuilt_state.to_move, live_state.to_move);
    assert_eq!(rebuilt_state.clocks, live_state.clocks);
    assert_eq!(rebuilt_state.game_id, live_state.game_id);
    assert_eq!(room.thinking_ms, live.room.thinking_ms);
    assert!(rebuilt_state.resumed && !live_state.resumed);
}

#[test]
fn the_outage_is_charged_to_no_one_and_every_person_gets_the_whole_grace() {
    let (live, moves, at) = played(&fischer(), &["4", "0", "8"]);
    let stored = moves.last().unwrap().clocks_ms.unwrap().map(|ms| ms as u64);
    // The server was down for ten minutes, far longer than either clock.
    let back = at + secs(600);
    let room = rebuilt(fischer(), &moves, None, live.now(back), 7 << 32);
    let clocks = room.state_msg(false, back).clocks.unwrap();
    assert_eq!(
        clocks.remaining_ms, stored,
        "nothing was charged for the outage"
    );
    assert_eq!(clocks.running, Some(Seat::Second));
    let later = room.state_msg(false, back + secs(3)).clocks.unwrap();
    assert_eq!(later.remaining_ms, [stored[0], stored[1] - 3_000]);
    let grace = settings().reconnect_grace;
    assert_eq!(
        room.abandon_deadline().map(|(at, _)| at),
        Some(back + grace)
    );
    assert_eq!(room.seq(), 7 << 32);
    assert_eq!(room.status(), Status::Playing);
}

#[test]
fn a_resumed_room_says_so_until_the_next_move() {
    let (live, moves, at) = played(&RoomOptions::default(), &["4"]);
    let mut fx = Fixture {
        room: rebuilt(RoomOptions::default(), &moves, None, live.now(at), 1 << 32),
        t0: live.t0,
    };
    fx.join(bob(), Seat::Second, BOB, at).unwrap();
    assert!(fx.room.state_msg(false, at).resumed);
    let effects = fx.human_move(&bob(), BOB, "0", at + secs(1)).unwrap();
    // A `moved` event says so by standing for a state without `resumed`.
    assert!(moved(&effects)[0].seq > 1 << 32);
    assert!(!fx.room.state_msg(false, at + secs(1)).resumed);
}

#[test]
fn a_draw_offer_is_resumed_until_the_other_side_has_moved() {
    let (live, moves, at) = played(&RoomOptions::default(), &["4", "0"]);
    // Alice (seat 0) offered before her opponent's move "0": it lapsed with that move.
    let lapsed = DrawOfferRecord {
        seat: Seat::First,
        ply: 1,
    };
    let room = rebuilt(
        RoomOptions::default(),
        &moves,
        Some(lapsed),
        live.now(at),
        1,
    );
    assert_eq!(room.state_msg(false, at).draw_offer, None);
    // Bob (seat 1) offered before his move: still open, as Alice has not moved since.
    let open = DrawOfferRecord {
        seat: Seat::Second,
        ply: 1,
    };
    let room = rebuilt(RoomOptions::default(), &moves, Some(open), live.now(at), 1);
    assert_eq!(room.state_msg(false, at).draw_offer, Some(Seat::Second));
}

#[test]
fn records_a_game_cannot_replay_are_refused() {
    let seats = stored_seats();
    let moves = [StoredMove {
        ply: 1,
        seat: Seat::Second,
        notation: "4".into(),
        played_at_ms: 0,
        think_ms: 10,
        clocks_ms: None,
    }];
    let t0 = Instant::now();
    let refused = RoomState::rebuild(
        "r1".into(),
        RoomOptions::default(),
        Arc::new(settings()),
        &records(&seats, &moves, None),
        when(t0, t0),
        1,
    );
    assert!(matches!(
        refused,
        Err(super::super::RebuildError::Move { ply: 1, .. })
    ));
}

/// The ending Bob's resignation in `fx` prepares.
fn bob_resigns(fx: &mut Fixture, at: Instant) -> PendingEnding {
    fx.join(bob(), Seat::Second, BOB, at).unwrap();
    let step = fx
        .room
        .request(Request::Resign, &bob().player_id, BOB, fx.now(at))
        .unwrap();
    let Then::End(ending) = step.then else {
        panic!("a resignation ends the game");
    };
    *ending
}

#[test]
fn a_seat_a_bot_played_for_stays_unrated_and_unscored_after_a_restart() {
    let (live, moves, at) = played(&RoomOptions::default(), &["4", "0", "8", "2"]);
    let mut seats = stored_seats();
    let unchanged = rebuilt_from(
        &records(&seats, &moves, None),
        RoomOptions::default(),
        live.now(at),
        1,
    );
    let mut control = Fixture {
        room: unchanged,
        t0: live.t0,
    };
    control.join(alice(), Seat::First, ALICE, at).unwrap();
    let rated = bob_resigns(&mut control, at);
    assert!(
        rated.finish.rated.is_some(),
        "without a stand-in the game is rated"
    );
    assert!(rated.finish.seats[0].score.is_some());

    seats[0].stood_in = true;
    let room = rebuilt_from(
        &records(&seats, &moves, None),
        RoomOptions::default(),
        live.now(at),
        1,
    );
    let mut fx = Fixture { room, t0: live.t0 };
    fx.join(alice(), Seat::First, ALICE, at).unwrap();
    let ending = bob_resigns(&mut fx, at);
    assert_eq!(
        ending.finish.rated, None,
        "a bot played for Alice before the restart"
    );
    assert_eq!(ending.finish.seats[0].score, None);
}

#[test]
fn a_resumed_game_nobody_comes_back_to_is_aborted_not_lost() {
    let (live, moves, at) = played(&RoomOptions::default(), &["4", "0"]);
    let grace = settings().reconnect_grace;
    let room = rebuilt(RoomOptions::default(), &moves, None, live.now(at), 1);
    let mut fx = Fixture { room, t0: live.t0 };
    let Tick::Step(step) = fx.room.on_timer(fx.now(at + grace)) else {
        panic!("the room goes on");
    };
    let Then::End(ending) = step.then else {
        panic!("the grace has run out");
    };
    assert_eq!(ending.finish.reason, EndReason::Aborted);
    assert_eq!(ending.finish.winner, None);
    assert_eq!(ending.finish.rated, None);

    // Once anyone is back, the usual rule holds: the one still away loses.
    let room = rebuilt(RoomOptions::default(), &moves, None, live.now(at), 1);
    let mut fx = Fixture { room, t0: live.t0 };
    fx.join(alice(), Seat::First, ALICE, at + secs(1)).unwrap();
    let Tick::Step(step) = fx.room.on_timer(fx.now(at + grace)) else {
        panic!("the room goes on");
    };
    let Then::End(ending) = step.then else {
        panic!("Bob's grace has run out");
    };
    assert_eq!(ending.finish.reason, EndReason::Abandoned);
    assert_eq!(ending.finish.winner, Some(Seat::First));
}

#[test]
fn an_open_offer_to_a_bot_is_judged_once_the_game_is_resumed() {
    let (live, moves, at) = played(&RoomOptions::default(), &["4", "0"]);
    let mut seats = stored_seats();
    seats[1] = StoredSeat {
        kind: SeatKind::Bot(BotLevel::Easy),
        player_id: None,
        name: "Bot (easy)".into(),
        ..seats[1].clone()
    };
    let offer = DrawOfferRecord {
        seat: Seat::First,
        ply: 2,
    };
    let mut room = rebuilt_from(
        &records(&seats, &moves, Some(offer)),
        RoomOptions::default(),
        live.now(at),
        1,
    );
    assert_eq!(room.state_msg(false, at).draw_offer, Some(Seat::First));
    let effects = room.settle(at);
    assert!(
        effects.contains(&Effect::JudgeDraw {
            ply: 2,
            seat: Seat::Second
        }),
        "the bot is asked: {effects:?}"
    );
    assert!(room.settle(at).is_empty(), "and asked once");
}

#[test]
fn a_random_bot_declines_a_resumed_offer_whatever_the_judgement() {
    let (live, moves, at) = played(&RoomOptions::default(), &["4", "0"]);
    let mut seats = stored_seats();
    seats[1] = StoredSeat {
        kind: SeatKind::Bot(BotLevel::Random),
        player_id: None,
        name: "Bot (random)".into(),
        ..seats[1].clone()
    };
    let offer = DrawOfferRecord {
        seat: Seat::First,
        ply: 2,
    };
    let mut room = rebuilt_from(
        &records(&seats, &moves, Some(offer)),
        RoomOptions::default(),
        live.now(at),
        1,
    );
    let effects = room.settle(at);
    assert!(
        effects.contains(&Effect::JudgeDraw {
            ply: 2,
            seat: Seat::Second
        }),
        "the offer is answered, not left open: {effects:?}"
    );
    let drawn = DrawAnswer::Judged(DrawView::Proven);
    let step = room.bot_judged_draw(2, drawn, live.now(at));
    assert!(
        matches!(
            step.then,
            Then::DrawOffer(DrawChange::Declined { by_bot: true })
        ),
        "random never agrees"
    );
}

#[test]
fn a_rebuilt_room_keeps_its_chat_and_numbers_the_next_line_after_the_stored_ones() {
    use crate::chat::{ChatChannel, ChatLine};
    use crate::records::StoredChatLine;
    let (live, moves, at) = played(&RoomOptions::default(), &["4"]);
    let line = |number, channel, text: &str| StoredChatLine {
        number,
        channel,
        line: ChatLine {
            player_id: "p_alice".into(),
            name: "Alice".into(),
            text: text.into(),
            at_ms: 1_700_000_000_000,
            ply: 0,
        },
    };
    // Line 1 never reached the store (it is written in the background).
    let chat = [
        line(0, ChatChannel::Players, "good luck"),
        line(2, ChatChannel::Spectators, "here we go"),
    ];
    let seats = stored_seats();
    let records = Records {
        chat: &chat,
        ..records(&seats, &moves, None)
    };
    let mut room = rebuilt_from(
        &records,
        RoomOptions::default(),
        live.now(at),
        live.room.seq(),
    );
    assert_eq!(room.chat_lines(ChatChannel::Players)[0].text, "good luck");
    assert_eq!(
        room.chat_lines(ChatChannel::Spectators)[0].text,
        "here we go"
    );

    room.join(alice(), Seat::First, ALICE, None).unwrap();
    let step = room
        .chat(&alice(), ALICE, "back again", live.now(at))
        .unwrap();
    let [Effect::Chat { said, .. }] = step.effects.as_slice() else {
        panic!("one line: {:?}", step.effects);
    };
    assert_eq!(
        said.number, 3,
        "after the highest stored line, not after the count"
    );
}
