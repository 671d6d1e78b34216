//! `quick_join` seats a player opposite the person who has waited longest for the same
//! game and time control, or creates a room for them to wait in.

use crate::common::{Client, TestServer, temp_dir};
use serde_json::{Value, json};

/// Sends `quick_join` and returns (whether a room was created, the `joined`, the snapshot).
async fn quick_join(client: &mut Client, request: Value) -> (bool, Value, Value) {
    client.send(request).await;
    let first = client.recv().await;
    assert_ne!(first["type"], "error", "{first}");
    let created = first["type"] == "room_created";
    let joined = if created {
        client.expect("joined").await
    } else {
        assert_eq!(first["type"], "joined", "{first}");
        first
    };
    let state = client.expect("state").await;
    (created, joined, state)
}

#[tokio::test]
async fn quick_join_matches_game_and_clock_oldest_first() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let plain = json!({"type": "quick_join", "game": "tictactoe", "ref": "q"});
    let clocked = json!({"type": "quick_join", "game": "tictactoe",
        "time_control": {"kind": "per_move", "per_move_ms": 30000}});

    // Nobody waits: Ann gets a new room, seated, with the ref echoed.
    let mut ann = server.player("Ann").await;
    let (created, joined, state) = quick_join(&mut ann, plain.clone()).await;
    assert!(created);
    assert_eq!(joined["seat"], 0);
    assert_eq!(joined["ref"], "q");
    assert_eq!(state["status"], "waiting");
    let ann_room = state["room"].as_str().unwrap().to_owned();

    // A clocked request does not match Ann's room.
    let mut cid = server.player("Cid").await;
    let (created, _, state) = quick_join(&mut cid, clocked.clone()).await;
    assert!(created);
    assert_eq!(state["time_control"]["kind"], "per_move");
    let cid_room = state["room"].as_str().unwrap().to_owned();
    assert_ne!(cid_room, ann_room);

    // A later waiting room of the same kind, and a private one.
    let mut eve = server.player("Eve").await;
    eve.create(["me", "open"]).await;
    let mut pia = server.player("Pia").await;
    pia.create_game("tictactoe", ["me", "open"], json!({"private": true}))
        .await;

    // Ben is seated opposite Ann, who has waited longest; the game starts.
    let mut ben = server.player("Ben").await;
    let (created, joined, state) = quick_join(&mut ben, plain.clone()).await;
    assert!(!created);
    assert_eq!(joined["seat"], 1);
    assert_eq!(joined["ref"], "q");
    assert_eq!(state["room"], ann_room.as_str());
    assert_eq!(state["status"], "playing");
    assert_eq!(state["seats"][0]["name"], "Ann");
    let ann_sees = ann.until_state(|s| s["status"] == "playing").await;
    assert_eq!(ann_sees["seats"][1]["name"], "Ben");

    // Dan, asking for the same clock, joins Cid.
    let mut dan = server.player("Dan").await;
    let (created, _, state) = quick_join(&mut dan, clocked).await;
    assert!(!created);
    assert_eq!(state["room"], cid_room.as_str());

    // Eve asking again is not seated opposite herself: she gets a second room.
    let (created, _, state) = quick_join(&mut eve, plain).await;
    assert!(created);
    assert_eq!(state["seats"][0]["name"], "Eve");

    server.stop().await;
}

#[tokio::test]
async fn quick_join_errors_keep_the_socket_open() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut stranger = server.connect().await;
    stranger
        .expect_error(
            json!({"type": "quick_join", "game": "chess"}),
            "hello_required",
        )
        .await;
    let mut zed = server.player("Zed").await;
    zed.expect_error_unchecked(json!({"type": "quick_join"}), "bad_message")
        .await;
    zed.expect_error_unchecked(json!({"type": "quick_join", "game": "go"}), "unknown_game")
        .await;
    zed.expect_error_unchecked(
        json!({"type": "quick_join", "game": "chess", "time_control": {"kind": "hourglass"}}),
        "bad_option",
    )
    .await;
    zed.expect_error_unchecked(
        json!({"type": "quick_join", "game": "chess", "time_control": {"kind": "per_move", "per_move_ms": 0}}),
        "bad_option",
    )
    .await;
    let (created, _, state) =
        quick_join(&mut zed, json!({"type": "quick_join", "game": "chess"})).await;
    assert!(created);
    assert_eq!(state["game"], "chess");
    server.stop().await;
}
