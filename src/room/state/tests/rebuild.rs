//! Rebuilding a room from the records its store keeps.

use super::*;
use crate::domain::SeatKind;
use crate::room::Request;
use crate::room::state::Records;
use crate::store::{StoredMove, StoredSeat};

/// Alice and Bob as the store keeps the seats of their game.
fn stored_seats() -> [StoredSeat; 2] {
    [(0, alice()), (1, bob())].map(|(seat, player)| StoredSeat {
        seat,
        kind: SeatKind::Human,
        player_id: Some(player.player_id),
        name: player.name,
        thinking_ms: None,
        score: None,
        rating_before: None,
        rating_after: None,
    })
}

#[test]
fn a_room_rebuilt_from_its_records_equals_the_live_room() {
    let options = RoomOptions {
        time_control: crate::protocol::TimeControl::Fischer {
            base_ms: 60_000,
            increment_ms: 1_000,
        },
        ..RoomOptions::default()
    };
    let mut live = Fixture::new([SeatSpec::Open, SeatSpec::Open], options.clone());
    live.join(alice(), Seat::First, ALICE, live.t0).unwrap();
    live.join(bob(), Seat::Second, BOB, live.t0).unwrap();
    let start = live
        .room
        .start_record(live.now(live.t0), || "unused".into());
    assert!(start.is_none(), "the live game has started");
    let mut moves = Vec::new();
    let mut at = live.t0;
    for (ply, cell) in ["4", "0", "8", "2"].into_iter().enumerate() {
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
            display: cell.into(),
            played_at_ms: record.played_at_ms,
            think_ms: record.think_ms,
            clocks_ms: record.clocks_ms,
        });
    }
    live.request(Request::OfferDraw, &alice(), ALICE, at)
        .unwrap();
    let seats = stored_seats();
    let records = Records {
        game_id: "g_test".into(),
        seats: &seats,
        moves: &moves,
    };
    let game = catalog::new_game(
        GameKind::TicTacToe,
        &Config::default().game_settings(),
        None,
    )
    .unwrap();
    let rebuilt = RoomState::rebuild(
        "r1".into(),
        game,
        options,
        Arc::new(Config::default()),
        &records,
        live.now(live.t0),
        live.room.seq(),
    )
    .unwrap();
    let (live_state, rebuilt_state) = (live.room.state_msg(true, at), rebuilt.state_msg(true, at));
    assert_eq!(rebuilt_state.position, live_state.position);
    assert_eq!(rebuilt_state.seq, live_state.seq);
    assert_eq!(rebuilt_state.history, live_state.history);
    assert_eq!(rebuilt_state.to_move, live_state.to_move);
    assert_eq!(rebuilt_state.clocks, live_state.clocks);
    assert_eq!(rebuilt_state.game_id, live_state.game_id);
    assert_eq!(rebuilt.thinking_ms, live.room.thinking_ms);
}

#[test]
fn records_a_game_cannot_replay_are_refused() {
    let seats = stored_seats();
    let moves = [StoredMove {
        ply: 1,
        seat: 1,
        notation: "4".into(),
        display: "4".into(),
        played_at_ms: 0,
        think_ms: 10,
        clocks_ms: None,
    }];
    let records = Records {
        game_id: "g".into(),
        seats: &seats,
        moves: &moves,
    };
    let t0 = Instant::now();
    let game = catalog::new_game(
        GameKind::TicTacToe,
        &Config::default().game_settings(),
        None,
    )
    .unwrap();
    let refused = RoomState::rebuild(
        "r1".into(),
        game,
        RoomOptions::default(),
        Arc::new(Config::default()),
        &records,
        when(t0, t0),
        1,
    );
    assert!(matches!(
        refused,
        Err(super::super::RebuildError::Move { ply: 1, .. })
    ));
}
