//! A game in progress outlives its server: after a graceful stop (the default) the next
//! server on the same database resumes it with its seats, moves, clocks and open draw
//! offer, and the players `hello` with their tokens and `join` their seats again. An
//! operator who asks for games to end on shutdown gets them ended instead.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use crate::common::{
    Client, PATIENCE, TestServer, play_alternately, stored_chat, temp_dir, test_config,
};
use crate::waiting::eventually;

/// How long the server is down between the stop and the start.
const OUTAGE: Duration = Duration::from_secs(4);

/// A Fischer clock slow enough that nobody runs out during the test.
fn fischer() -> Value {
    json!({"time_control": {"kind": "fischer", "base_ms": 60_000, "increment_ms": 1_000}})
}

/// Reads the `shutdown` message and the close frame after it; returns both.
async fn shutdown_and_close(mut client: Client) -> (Value, u16) {
    let notice = client.until("shutdown").await;
    let code = loop {
        let frame = tokio::time::timeout(PATIENCE, client.ws.next())
            .await
            .expect("the server closes after shutdown")
            .expect("a close frame")
            .expect("a clean close");
        if let Message::Close(frame) = frame {
            break frame.map_or(0, |frame| u16::from(frame.code));
        }
    };
    (notice, code)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graceful_restart_ends_no_game() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.rooms.reconnect_grace_secs = 30;
    let server = TestServer::start(config.clone()).await;
    let mut alice = server.connect().await;
    let alice_token = alice.hello("Alice", None).await["token"].clone();
    let mut bob = server.connect().await;
    let bob_token = bob.hello("Bob", None).await["token"].clone();
    let (room, _) = alice
        .create_game("tictactoe", ["me", "open"], fischer())
        .await;
    bob.join(&room, 1).await;
    let mut players = [alice, bob];
    play_alternately(&mut players, &room, &["4", "0"]).await;
    let [mut alice, mut bob] = players;
    let after_moves = alice.until_state(|s| s["moves"] == 2).await;
    // Bob offers a draw while Alice is to move.
    bob.send(json!({"type": "offer_draw", "room": room})).await;
    let offered = alice.until_state(|s| s["draw_offer"] == 1).await;
    let game_id = offered["game_id"].as_str().unwrap().to_owned();
    // And says something: the chat outlives the restart too.
    bob.send(json!({"type": "chat", "room": room, "text": "Draw?"}))
        .await;
    alice.until("chat").await;

    let notices = tokio::spawn(async move {
        let alice = shutdown_and_close(alice).await;
        let bob = shutdown_and_close(bob).await;
        [alice, bob]
    });
    server.stop().await;
    for (notice, code) in notices.await.unwrap() {
        assert_eq!(notice["reason"], "restarting", "{notice}");
        assert_eq!(notice["retry_after_ms"], 1000);
        assert_eq!(code, 1012, "closed as a service restart");
    }

    // Not a wait for anything: the outage is part of the scenario. Down this long, a
    // clock charged for it would show plainly in the checks below.
    tokio::time::sleep(OUTAGE).await;
    let restarted = Instant::now();
    let server = TestServer::start(config).await;
    let (_, stored) = server.get_json(&format!("/api/games/{game_id}")).await;
    assert_eq!(stored["status"], "playing");
    eventually("the lobby lists the resumed room", PATIENCE, async || {
        let (_, rooms) = server.get_json("/api/rooms").await;
        let listed = rooms["rooms"]
            .as_array()
            .unwrap()
            .iter()
            .any(|listed| listed["room"] == room.as_str());
        listed.then_some(()).ok_or_else(|| rooms.to_string())
    })
    .await;

    let mut alice = server.connect().await;
    alice
        .hello("Alice", Some(alice_token.as_str().unwrap()))
        .await;
    let since = offered["seq"].as_u64().unwrap();
    alice
        .send(json!({"type": "join", "room": room, "seat": 0, "since": since}))
        .await;
    alice.until("joined").await;
    let resumed = alice.expect("state").await;
    assert_eq!(resumed["resumed"], true, "{resumed}");
    let chat = alice.expect("chat").await;
    assert_eq!(chat["lines"][0]["text"], "Draw?", "{chat}");
    assert!(
        resumed["seq"].as_u64().unwrap() > since,
        "seq goes on rising"
    );
    assert_eq!(resumed["game_id"], game_id.as_str());
    assert_eq!(resumed["history"], json!(["4", "0"]));
    assert_eq!(resumed["draw_offer"], 1, "the draw offer is still open");
    assert_eq!(resumed["to_move"], 0);
    let before = after_moves["clocks"]["remaining_ms"][1].as_u64().unwrap();
    assert_eq!(
        resumed["clocks"]["remaining_ms"][1].as_u64().unwrap(),
        before,
        "the waiting side's clock is as it was"
    );
    // Alice's clock stands as stored after move 2 until the restart, and runs only from
    // then: what it has used is at most the time since the restart began, measured up to
    // her snapshot. (Charged for the outage as well, it would have used over 4 s more.)
    let since_restart = restarted.elapsed().as_millis() as u64;
    let alice_stored = stored["moves"][1]["clocks_ms"][0].as_u64().unwrap();
    let alice_now = resumed["clocks"]["remaining_ms"][0].as_u64().unwrap();
    assert!(
        alice_stored - alice_now <= since_restart,
        "Alice was charged {} ms, though the server came back only {since_restart} ms before \
         her snapshot: {alice_stored} then {alice_now}",
        alice_stored - alice_now
    );

    let mut bob = server.connect().await;
    bob.hello("Bob", Some(bob_token.as_str().unwrap())).await;
    let seated = bob.join(&room, 1).await;
    assert_eq!(seated["seats"][1]["name"], "Bob");
    bob.send(json!({"type": "chat", "room": room, "text": "Still on?"}))
        .await;
    alice.until("chat").await;

    alice
        .send(json!({"type": "accept_draw", "room": room}))
        .await;
    let over = bob.until("game_over").await;
    assert_eq!(over["reason"], "draw_agreed", "{over}");
    let (_, stored) = server.get_json(&format!("/api/games/{game_id}")).await;
    assert_eq!(stored["status"], "finished");
    assert_eq!(stored["moves"].as_array().unwrap().len(), 2);
    // The line said after the restart is numbered after the one before it, not over it.
    let chat = stored_chat(&server, &game_id, bob_token.as_str().unwrap(), 2).await;
    let said: Vec<&str> = chat
        .iter()
        .filter_map(|line| line["text"].as_str())
        .collect();
    assert_eq!(said, ["Draw?", "Still on?"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_can_have_games_end_on_shutdown() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.server.end_games_on_shutdown = true;
    let server = TestServer::start(config.clone()).await;
    let ([mut alice, _bob], room) = server.pair_in_room().await;
    let state = alice.until_state(|s| s["status"] == "playing").await;
    let game_id = state["game_id"].as_str().unwrap().to_owned();
    let notice = tokio::spawn(async move { alice.until("shutdown").await });
    server.stop().await;
    assert_eq!(notice.await.unwrap()["reason"], "stopping");

    let server = TestServer::start(config).await;
    let (_, stored) = server.get_json(&format!("/api/games/{game_id}")).await;
    assert_eq!(stored["status"], "interrupted");
    // A server resumes its games before it answers anyone: by now a resumed room would
    // be found by its id.
    let (status, body) = server.get_json(&format!("/api/rooms/{room}")).await;
    assert_eq!(status, 404, "nothing is resumed: {body}");
    let (_, rooms) = server.get_json("/api/rooms").await;
    assert_eq!(rooms["rooms"], json!([]), "nothing is resumed");
    server.stop().await;
}
