//! The seat a friend keeps and the opponent who is gone, across a fleet: every client
//! is connected to a node that holds no rooms, so each `fill_with_bot`, `claim_victory`
//! and `claim_draw` reaches the room through the relay, and each `state` with an away
//! seat's countdowns comes back through it. A game another node adopts after its
//! holder died counts every player away from the adoption, so a player who comes back
//! may claim against one who does not.

use serde_json::{Value, json};

use crate::a_node_may_serve_clients_only::open_room;
use crate::common::{Client, client_at, play_alternately, temp_dir};
use crate::fleet::TestFleet;
use serial_test::serial;

/// The holders' setting that lets a player claim as soon as their opponent is gone
/// (the room's rules are those of the node holding it).
const CLAIM_AT_ONCE: [(&str, &str); 1] = [("PARLOR_ROOMS__CLAIM_AFTER_SECS", "0")];

/// The away seat's countdowns in `state`.
fn countdowns(state: &Value, seat: usize) -> (Option<u64>, Option<u64>) {
    let seat = &state["seats"][seat];
    (
        seat["grace_left_ms"].as_u64(),
        seat["claim_left_ms"].as_u64(),
    )
}

/// `host` (seat 0, on `address`) and a new player on `address` (seat 1) four moves into
/// a game of tic-tac-toe; returns the room and both players, by seat.
async fn four_moves_in(mut host: Client, address: &str, name: &str) -> (String, [Client; 2]) {
    let (room, _) = open_room(&mut host, "tictactoe", ["me", "open"]).await;
    let (mut friend, _) = client_at(address, name, None).await;
    friend.join(&room, 1).await;
    let mut players = [host, friend];
    play_alternately(&mut players, &room, &["0", "4", "8", "2"]).await;
    players[0].until_state(|s| s["moves"] == 4).await;
    (room, players)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn bots_and_claims_are_asked_for_through_another_node() {
    let test = "bots_and_claims_are_asked_for_through_another_node";
    let Some(fleet) = TestFleet::new(test).await else {
        return;
    };
    let dirs = [temp_dir(), temp_dir()];
    let _holder = fleet.start_node_with(dirs[0].path(), &CLAIM_AT_ONCE);
    let serving = fleet.start_serving_node(dirs[1].path());

    // A waiting host asks for a bot through the serving node; it comes at once
    // (the fleet's own fill waits an hour).
    let (mut host, _) = client_at(&serving.address, "Host", None).await;
    let (room, _) = open_room(&mut host, "tictactoe", ["me", "open"]).await;
    let (mut stranger, _) = client_at(&serving.address, "Stranger", None).await;
    stranger
        .expect_error(
            json!({"type": "fill_with_bot", "room": room}),
            "not_a_player",
        )
        .await;
    host.send(json!({"type": "fill_with_bot", "room": room, "level": "medium", "ref": "f"}))
        .await;
    let started = host.until_state(|s| s["status"] == "playing").await;
    assert_eq!(started["seats"][1]["kind"], "bot:medium", "{started}");
    host.expect_error(json!({"type": "fill_with_bot", "room": room}), "seat_taken")
        .await;

    // A claim against a player who is there is refused through the relay; once the
    // friend's connection is gone, the host sees the countdowns and wins by claiming.
    let (alice, _) = client_at(&serving.address, "Alice", None).await;
    let (room, [mut alice, bob]) = four_moves_in(alice, &serving.address, "Bob").await;
    alice
        .expect_error(
            json!({"type": "claim_victory", "room": room}),
            "opponent_present",
        )
        .await;
    bob.close().await;
    let away = alice
        .until_state(|s| s["seats"][1]["connected"] == false)
        .await;
    let (grace, claim) = countdowns(&away, 1);
    assert!(grace.is_some_and(|ms| ms > 0 && ms <= 120_000), "{away}");
    assert_eq!(claim, Some(0), "{away}");
    alice
        .send(json!({"type": "claim_victory", "room": room, "ref": "k"}))
        .await;
    let over = alice.until("game_over").await;
    assert_eq!(
        (&over["winner"], &over["reason"]),
        (&json!(0), &json!("abandoned")),
        "{over}"
    );

    // And a draw claimed the same way.
    let (carol, _) = client_at(&serving.address, "Carol", None).await;
    let (room, [mut carol, dave]) = four_moves_in(carol, &serving.address, "Dave").await;
    dave.close().await;
    carol
        .until_state(|s| s["seats"][1]["connected"] == false)
        .await;
    carol
        .send(json!({"type": "claim_draw", "room": room}))
        .await;
    let over = carol.until("game_over").await;
    assert_eq!(
        (&over["winner"], &over["reason"]),
        (&Value::Null, &json!("draw_claimed")),
        "{over}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn after_an_adoption_the_player_who_returns_may_claim() {
    let test = "after_an_adoption_the_player_who_returns_may_claim";
    let Some(fleet) = TestFleet::new(test).await else {
        return;
    };
    let dirs = [temp_dir(), temp_dir()];
    let holder = fleet.start_node_with(dirs[0].path(), &CLAIM_AT_ONCE);
    let other = fleet.start_node_with(dirs[1].path(), &CLAIM_AT_ONCE);

    let (mut alice, _) = client_at(&holder.address, "Alice", None).await;
    let (mut bob, _) = client_at(&other.address, "Bob", None).await;
    let (room, _) = alice
        .create_game("tictactoe", ["me", "open"], json!({}))
        .await;
    bob.join(&room, 1).await;
    let mut players = [alice, bob];
    play_alternately(&mut players, &room, &["0", "4", "8", "2"]).await;
    let [_alice, mut bob] = players;
    bob.until_state(|s| s["moves"] == 4).await;

    // The holder dies with Alice's connection; Bob, on the node that lives, is put
    // back into the game once that node has adopted it. Alice never comes back.
    holder.kill();
    bob.until("room_moving").await;
    let back = bob.until("joined").await;
    assert_eq!(back["seat"], 1, "{back}");
    let adopted = bob.until("state").await;
    assert_eq!(adopted["moves"], 4, "{adopted}");
    assert_eq!(adopted["seats"][0]["connected"], false, "{adopted}");
    let (grace, claim) = countdowns(&adopted, 0);
    assert!(grace.is_some_and(|ms| ms > 0 && ms <= 120_000), "{adopted}");
    assert_eq!(claim, Some(0), "{adopted}");
    assert_eq!(countdowns(&adopted, 1), (None, None), "Bob is back");

    bob.send(json!({"type": "claim_victory", "room": room}))
        .await;
    let over = bob.until("game_over").await;
    assert_eq!(
        (&over["winner"], &over["reason"]),
        (&json!(1), &json!("abandoned")),
        "{over}"
    );
}
