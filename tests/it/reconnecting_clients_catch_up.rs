//! A client that comes back and says the last `seq` it saw (`since` on `join` or
//! `watch`) gets exactly the room's messages it missed, in order, instead of a snapshot;
//! when the room no longer has them (too long ago, or the game is over and everyone
//! left), a snapshot as before.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{Client, TestServer, play_alternately, temp_dir};

/// Watches `room` from a new connection as `name`, saying `since` if given; returns the
/// client and the message after `joined`.
async fn watch(server: &TestServer, name: &str, room: &str, since: Option<u64>) -> (Client, Value) {
    let mut client = server.player(name).await;
    let mut watch = json!({"type": "watch", "room": room});
    if let Some(since) = since {
        watch["since"] = json!(since);
    }
    client.send(watch).await;
    client.expect("joined").await;
    let next = client.recv().await;
    (client, next)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_who_comes_back_gets_exactly_what_it_missed() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let ([mut alice, mut bob], room) = server.pair_in_room().await;
    let (carol, snapshot) = watch(&server, "Carol", &room, None).await;
    assert_eq!(snapshot["type"], "state");
    assert!(
        snapshot.get("history").is_some(),
        "a first watch gets a snapshot"
    );
    let seen = snapshot["seq"].as_u64().unwrap();
    carol.close().await;

    // Three moves while Carol is away.
    let mut players = [alice, bob];
    play_alternately(&mut players, &room, &["4", "0", "8"]).await;
    [alice, bob] = players;
    let latest = bob.until_state(|s| s["moves"] == 3).await;
    alice.until_state(|s| s["moves"] == 3).await;

    let (mut carol, first) = watch(&server, "Carol on her phone", &room, Some(seen)).await;
    let mut caught_up = vec![first];
    while caught_up.last().unwrap()["seq"].as_u64() < latest["seq"].as_u64() {
        caught_up.push(carol.recv().await);
    }
    let mut expected = seen;
    for message in &caught_up {
        assert_eq!(message["type"], "state", "{message}");
        expected += 1;
        assert_eq!(
            message["seq"], expected,
            "every missed state, in order: {message}"
        );
        assert!(
            message.get("history").is_none(),
            "not a snapshot: {message}"
        );
    }
    assert_eq!(caught_up.last().unwrap()["moves"], 3);
    assert_eq!(caught_up.last().unwrap()["position"], latest["position"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seq_the_room_never_had_gets_a_snapshot() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let ([mut alice, _bob], room) = server.pair_in_room().await;
    let state = alice.until_state(|s| s["status"] == "playing").await;
    let future = state["seq"].as_u64().unwrap() + 1_000;
    let (_carol, next) = watch(&server, "Carol", &room, Some(future)).await;
    assert_eq!(next["type"], "state");
    assert!(next.get("history").is_some(), "a snapshot: {next}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_room_everyone_left_greets_a_return_with_a_snapshot() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let ([mut alice, mut bob], room) = server.pair_in_room().await;
    let (carol, snapshot) = watch(&server, "Carol", &room, None).await;
    let seen = snapshot["seq"].as_u64().unwrap();
    carol.close().await;

    // Alice wins with the top row while Carol is away, then both players leave.
    let mut players = [alice, bob];
    play_alternately(&mut players, &room, &["0", "3", "1", "4", "2"]).await;
    [alice, bob] = players;
    // Carol's going is announced too: then nobody but the players is in the room.
    let over = bob
        .until_state(|s| s["status"] == "finished" && s["spectators"] == 0)
        .await;
    for player in [&mut alice, &mut bob] {
        player.send(json!({"type": "leave", "room": room})).await;
        player.until("left").await;
    }

    // The room no longer keeps the frames Carol missed, but still shows how it ended.
    let (_carol, next) = watch(&server, "Carol again", &room, Some(seen)).await;
    assert_eq!(next["type"], "state", "{next}");
    assert!(next.get("history").is_some(), "a snapshot: {next}");
    assert_eq!(next["status"], "finished");
    assert_eq!(next["position"], over["position"]);
    assert_eq!(next["result"], over["result"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_alone_in_the_room_who_comes_back_gets_exactly_what_it_missed() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut alice = server.connect().await;
    let token = alice.hello("Alice", None).await["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let (room, snapshot) = alice.create(["me", "open"]).await;
    let seen = snapshot.unwrap()["seq"].as_u64().unwrap();
    alice.close().await;
    // Her going is announced, to nobody, before she comes back.
    loop {
        let (_, state) = server.get_json(&format!("/api/rooms/{room}")).await;
        if state["seats"][0]["connected"] == false {
            break;
        }
        // A pause between polls of the room, which cannot tell us when it changes.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // Alice's going and her coming back were announced to nobody else: the room has
    // them, all the same, for her.
    let mut alice = server.connect().await;
    alice.hello("Alice", Some(&token)).await;
    alice
        .send(json!({"type": "join", "room": room, "seat": 0, "since": seen}))
        .await;
    alice.expect("joined").await;
    let mut expected = seen;
    loop {
        let missed = alice.expect("state").await;
        expected += 1;
        assert_eq!(
            missed["seq"], expected,
            "every missed state, in order: {missed}"
        );
        assert!(missed.get("history").is_none(), "not a snapshot: {missed}");
        if missed["seats"][0]["connected"] == true {
            break;
        }
    }
    assert!(
        expected > seen + 1,
        "her going, then her coming back: {expected}"
    );
    server.stop().await;
}
