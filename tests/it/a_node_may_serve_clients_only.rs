//! A node with `cluster.owns_rooms = false` serves clients only: the rooms its clients
//! open (with `create_room` or `quick_join`) are held by a node that holds rooms, so
//! they outlive the serving node, and their players come back through any node.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{Client, client_at, temp_dir};
use crate::fleet::TestFleet;
use crate::waiting::{ASK_AGAIN_EVERY, eventually_every};
use serial_test::serial;

/// How long the test waits for the serving node to hear of a node that holds rooms
/// before it fails.
const PATIENCE: Duration = Duration::from_secs(60);

/// Opens a room through `client`'s node, asking again while that node has not yet
/// heard of a node holding rooms (`room_unreachable`); returns the room's id and the
/// creator's snapshot.
pub(crate) async fn open_room(
    client: &mut Client,
    game: &str,
    seats: [&str; 2],
) -> (String, Value) {
    eventually_every(
        "a node holding rooms was found",
        PATIENCE,
        ASK_AGAIN_EVERY,
        async || {
            client
                .send(json!({"type": "create_room", "game": game, "seats": seats, "ref": "open"}))
                .await;
            let reply = client.recv().await;
            if reply["type"] == "room_created" {
                let room = reply["room"].as_str().unwrap().to_owned();
                assert_eq!(client.recv().await["type"], "joined", "room_created first");
                return Ok((room, client.expect("state").await));
            }
            assert_eq!(reply["code"], "room_unreachable", "{reply}");
            Err(reply.to_string())
        },
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn rooms_opened_through_a_serving_node_live_on_a_holding_node() {
    let test = "rooms_opened_through_a_serving_node_live_on_a_holding_node";
    let Some(fleet) = TestFleet::new(test).await else {
        return;
    };
    let dirs = [temp_dir(), temp_dir()];
    let holder = fleet.start_node(dirs[0].path());
    let serving = fleet.start_serving_node(dirs[1].path());

    // Both players of a game, and both of a quick_join pair, come through the serving
    // node.
    let (mut alice, alice_hi) = client_at(&serving.address, "Alice", None).await;
    let (mut bob, bob_hi) = client_at(&serving.address, "Bob", None).await;
    // A bad request is refused by the serving node as by any other.
    let bad = json!({"type": "create_room", "game": "go", "seats": ["me", "open"]});
    alice.expect_error_unchecked(bad, "unknown_game").await;
    let (room, snapshot) = open_room(&mut alice, "tictactoe", ["me", "open"]).await;
    assert_eq!(snapshot["seats"][0]["name"], "Alice");
    bob.join(&room, 1).await;
    alice.until_state(|s| s["status"] == "playing").await;
    alice.play(&room, "0").await;
    bob.until_state(|s| s["moves"] == 1).await;
    bob.play(&room, "3").await;
    alice.until_state(|s| s["moves"] == 2).await;

    let (mut carol, _) = client_at(&serving.address, "Carol", None).await;
    let (mut dave, _) = client_at(&serving.address, "Dave", None).await;
    carol
        .send(json!({"type": "quick_join", "game": "chess"}))
        .await;
    let paired_room = carol.until("room_created").await["room"]
        .as_str()
        .unwrap()
        .to_owned();
    dave.send(json!({"type": "quick_join", "game": "chess"}))
        .await;
    let joined = dave.until("joined").await;
    assert_eq!(
        joined["room"],
        json!(paired_room),
        "Dave sits opposite Carol"
    );
    let playing = carol.until_state(|s| s["status"] == "playing").await;
    assert_eq!(playing["seats"][1]["name"], "Dave");

    // The serving node dies: the rooms were never its, so the holding node has them
    // at once, and the players come back through it without waiting for a take-over.
    serving.kill();
    let token = |hello: &Value| hello["token"].as_str().unwrap().to_owned();
    let (mut alice, _) = client_at(&holder.address, "Alice", Some(&token(&alice_hi))).await;
    let (mut bob, _) = client_at(&holder.address, "Bob", Some(&token(&bob_hi))).await;
    let rejoined = alice.join(&room, 0).await;
    assert_eq!(rejoined["position"], "X..O.....");
    bob.join(&room, 1).await;
    alice.play(&room, "1").await;
    bob.until_state(|s| s["moves"] == 3).await;
    bob.play(&room, "4").await;
    alice.until_state(|s| s["moves"] == 4).await;
    alice.play(&room, "2").await;
    let over = bob.until("game_over").await;
    assert_eq!(over["winner"], 0, "{over}");
    let response = reqwest::get(format!("http://{}/api/rooms/{paired_room}", holder.address))
        .await
        .expect("the holding node answers");
    assert_eq!(response.status().as_u16(), 200, "the chess room lives on");
}
