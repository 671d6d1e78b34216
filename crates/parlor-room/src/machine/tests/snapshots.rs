//! A snapshot made from the room's `state` text by adding the history is, byte for byte,
//! the snapshot encoded afresh, in every game and at every point of it.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::*;
use crate::views::Status;

#[test]
fn a_snapshot_made_from_the_state_is_the_snapshot_encoded_afresh() {
    for &kind in GameKind::ALL {
        let mut fx = Fixture::of_game(
            kind,
            [SeatSpec::Open, SeatSpec::Open],
            RoomOptions::default(),
            settings(),
        );
        fx.join(alice(), Seat::First, ALICE, fx.t0).unwrap();
        let waiting = serde_json::to_string(&fx.room.state_msg(false, fx.t0)).unwrap();
        let snapshot = serde_json::to_string(&fx.room.state_msg(true, fx.t0)).unwrap();
        assert_eq!(fx.room.snapshot_from(&waiting), Some(snapshot), "{kind:?}");
        fx.join(bob(), Seat::Second, BOB, fx.t0).unwrap();
        let mut rng = StdRng::seed_from_u64(11);
        let mut at = fx.t0;
        for ply in 0..40 {
            at += ms(300);
            let state = serde_json::to_string(&fx.room.state_msg(false, at)).unwrap();
            let snapshot = serde_json::to_string(&fx.room.state_msg(true, at)).unwrap();
            assert_eq!(
                fx.room.snapshot_from(&state),
                Some(snapshot),
                "{kind:?} after {ply} moves"
            );
            if fx.room.status() != Status::Playing {
                break;
            }
            let moves = fx.room.game().legal_moves();
            let seat = fx.room.game().turn().unwrap();
            fx.play(seat, &moves[rng.random_range(0..moves.len())], at)
                .unwrap();
        }
    }
    assert_eq!(Fixture::playing().room.snapshot_from("not an object"), None);
}
