//! A lobby subscriber gets a snapshot of the listed rooms, then one `lobby_update` per
//! room added, changed or removed, filtered by game when it asked for one, and nothing
//! more once it unsubscribes.

use crate::common::{TestServer, temp_dir, test_config};
use serde_json::{Value, json};

/// The next `lobby_update` about `room`, skipping updates about other rooms.
async fn update_about(client: &mut crate::common::Client, room: &str) -> Value {
    loop {
        let update = client.until("lobby_update").await;
        if update["room"]["room"] == room {
            return update;
        }
    }
}

#[tokio::test]
async fn the_lobby_follows_rooms_live() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.rooms.idle_secs = 1;
    let server = TestServer::start(config).await;

    let mut alice = server.player("Alice").await;
    let per_move = json!({"kind": "per_move", "per_move_ms": 60000});
    let (before, _) = alice
        .create_game(
            "tictactoe",
            ["me", "open"],
            json!({"time_control": per_move}),
        )
        .await;

    // A room that fills and is played while nobody listens to the lobby (rooms then
    // do not wake their lobby watchers) still shows as it is now.
    let mut dan = server.player("Dan").await;
    let mut erin = server.player("Erin").await;
    let (quiet, _) = dan.create(["me", "open"]).await;
    erin.join(&quiet, 1).await;
    dan.until_state(|s| s["to_move"] == 0).await;
    dan.play(&quiet, "4").await;
    erin.until_state(|s| s["moves"] == 1).await;

    let mut watcher = server.player("Watcher").await;
    watcher
        .send(json!({"type": "subscribe_lobby", "ref": "s"}))
        .await;
    let snapshot = watcher.expect("lobby").await;
    assert_eq!(snapshot["ref"], "s");
    assert_eq!(snapshot["game"], Value::Null);
    let rooms = snapshot["rooms"].as_array().unwrap();
    assert_eq!(rooms.len(), 2);
    let listed = |id: &str| rooms.iter().find(|r| r["room"] == id).unwrap();
    assert_eq!(listed(&before)["time_control"], per_move);
    assert_eq!(listed(&before)["seats"][0]["name"], "Alice");
    assert_eq!(listed(&quiet)["status"], "playing");
    assert_eq!(listed(&quiet)["seats"][1]["name"], "Erin");
    assert_eq!(listed(&quiet)["moves"], 1);

    // Its next change reaches the subscriber.
    erin.play(&quiet, "0").await;
    let moved = update_about(&mut watcher, &quiet).await;
    assert_eq!(moved["change"], "changed");
    assert_eq!(moved["room"]["moves"], 2);

    let mut chess_only = server.player("Chess fan").await;
    chess_only
        .send(json!({"type": "subscribe_lobby", "game": "chess"}))
        .await;
    let chess_snapshot = chess_only.expect("lobby").await;
    assert_eq!(chess_snapshot["game"], "chess");
    assert_eq!(chess_snapshot["rooms"], json!([]));

    // A new room appears with its creator seated, without asking again.
    let mut bob = server.player("Bob").await;
    let (room, _) = bob.create(["me", "open"]).await;
    let added = update_about(&mut watcher, &room).await;
    assert_eq!(added["change"], "added");
    assert_eq!(added["room"]["game"], "tictactoe");
    assert_eq!(added["room"]["status"], "waiting");
    assert_eq!(added["room"]["seats"][0]["name"], "Bob");
    assert_eq!(added["room"]["seats"][1]["kind"], "open");
    assert_eq!(added["room"]["time_control"], json!({"kind": "none"}));

    // Someone sits down: the room changes to playing, with both names.
    let mut carol = server.player("Carol").await;
    carol.join(&room, 1).await;
    let changed = update_about(&mut watcher, &room).await;
    assert_eq!(changed["change"], "changed");
    assert_eq!(changed["room"]["status"], "playing");
    assert_eq!(changed["room"]["seats"][1]["name"], "Carol");

    // A chess room reaches the chess subscriber; the tic-tac-toe rooms never did.
    let (chess_room, _) = bob
        .create_game("chess", ["open", "bot:random"], json!({}))
        .await;
    let chess_added = chess_only.until("lobby_update").await;
    assert_eq!(chess_added["change"], "added");
    assert_eq!(chess_added["room"]["room"], chess_room.as_str());

    // The first room empties and is removed after idling.
    alice.send(json!({"type": "leave", "room": before})).await;
    alice.until("left").await;
    let removed = loop {
        let update = update_about(&mut watcher, &before).await;
        if update["change"] == "removed" {
            break update;
        }
        assert_eq!(update["change"], "changed");
    };
    assert_eq!(removed["room"]["room"], before.as_str());

    // After unsubscribing, the next frame is the reply to a later request, not an update.
    watcher
        .send(json!({"type": "unsubscribe_lobby", "ref": 2}))
        .await;
    watcher.until("lobby_unsubscribed").await;
    bob.create(["me", "open"]).await;
    watcher.send(json!({"type": "list_rooms"})).await;
    let next = watcher.recv().await;
    assert_eq!(next["type"], "rooms", "{next}");

    server.stop().await;
}

#[tokio::test]
async fn lobby_requests_are_checked() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut stranger = server.connect().await;
    stranger
        .expect_error(json!({"type": "subscribe_lobby"}), "hello_required")
        .await;
    let mut client = server.player("Dora").await;
    client
        .expect_error_unchecked(
            json!({"type": "subscribe_lobby", "game": "go"}),
            "unknown_game",
        )
        .await;
    client
        .expect_error_unchecked(json!({"type": "subscribe_lobby", "game": 5}), "bad_message")
        .await;
    // Still open and usable after the errors.
    client.send(json!({"type": "subscribe_lobby"})).await;
    client.expect("lobby").await;
    server.stop().await;
}
