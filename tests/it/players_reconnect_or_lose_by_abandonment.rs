//! A player who drops keeps the seat for `rooms.reconnect_grace_secs`: coming back with
//! the token resumes the game; not coming back loses it by `abandoned`, and so does
//! leaving it once a move has been played (before that, staying away or leaving aborts it).

use crate::common::{PATIENCE, TestServer, play_alternately, temp_dir, test_config};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_who_reconnects_with_the_token_takes_the_seat_back_and_continues() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.rooms.reconnect_grace_secs = 30;
    let server = TestServer::start(config).await;
    let mut alice = server.player("Alice").await;
    let mut bob = server.connect().await;
    let welcome = bob.hello("Bob", None).await;
    let token = welcome["token"].as_str().unwrap().to_owned();
    let bob_id = welcome["player_id"].clone();
    let (room, _) = alice.create(["me", "open"]).await;
    bob.join(&room, 1).await;
    alice.until_state(|s| s["status"] == "playing").await;
    alice.play(&room, "4").await;
    bob.until_state(|s| s["moves"] == 1).await;

    bob.close().await;
    let away = alice
        .until_state(|s| s["seats"][1]["connected"] == false)
        .await;
    assert_eq!(away["status"], "playing", "the seat is kept");
    assert_eq!(away["seats"][1]["player_id"], bob_id);

    let mut bob = server.connect().await;
    let again = bob.hello("Bob", Some(&token)).await;
    assert_eq!(
        again["player_id"], bob_id,
        "the token resumes the same player"
    );
    let snapshot = bob.join(&room, 1).await;
    assert_eq!(snapshot["history"], json!(["4"]));
    assert_eq!(snapshot["to_move"], 1);
    assert_eq!(snapshot["seats"][1]["connected"], true);
    alice
        .until_state(|s| s["seats"][1]["connected"] == true)
        .await;

    bob.play(&room, "0").await;
    let state = alice.until_state(|s| s["moves"] == 2).await;
    assert_eq!(state["position"], "O...X....");

    // Joining the seat from yet another connection moves it there.
    let mut bob_tab = server.connect().await;
    bob_tab.hello("Bob", Some(&token)).await;
    bob_tab.join(&room, 1).await;
    let replaced = bob.until("replaced").await;
    assert_eq!(replaced["room"], room);
    alice.play(&room, "8").await;
    bob_tab.until_state(|s| s["moves"] == 3).await;
    bob.expect_error(
        json!({"type": "move", "room": room, "move": "1"}),
        "not_a_player",
    )
    .await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_who_does_not_come_back_loses_by_abandonment() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await; // grace: 1 s
    let ([mut alice, bob], room) = server.pair_in_room().await;
    alice.play(&room, "4").await;
    alice.until_state(|s| s["moves"] == 1).await;
    bob.close().await;
    let state = alice.until_state(|s| s["status"] == "finished").await;
    assert_eq!(state["result"], json!({"winner": 0, "reason": "abandoned"}));
    let over = alice.expect("game_over").await;
    assert_eq!(over["reason"], "abandoned");
    // Abandoned before each side made two moves: not scored.
    assert_eq!(over["scores"][0]["score"], serde_json::Value::Null);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_who_does_not_come_back_before_any_move_calls_the_game_off() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await; // grace: 1 s
    let ([mut alice, bob], _) = server.pair_in_room().await;
    bob.close().await;
    let state = alice.until_state(|s| s["status"] == "finished").await;
    assert_eq!(
        state["result"],
        json!({"winner": null, "reason": "aborted"})
    );
    let over = alice.expect("game_over").await;
    assert_eq!(over["unrated"], "aborted");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaving_before_any_move_aborts_the_game_and_nobody_loses() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut alice = server.player("Alice").await;
    let mut bob = server.player("Bob").await;
    let (room, _) = alice.create(["me", "open"]).await;
    bob.join(&room, 1).await;
    bob.send(json!({"type": "leave", "room": room, "ref": "bye"}))
        .await;
    assert_eq!(
        bob.until("left").await,
        json!({"type": "left", "room": room, "ref": "bye"})
    );
    let state = alice.until_state(|s| s["status"] == "finished").await;
    assert_eq!(
        state["result"],
        json!({"winner": null, "reason": "aborted"})
    );
    let over = alice.expect("game_over").await;
    assert_eq!(
        (&over["winner"], &over["reason"]),
        (&json!(null), &json!("aborted"))
    );
    assert_eq!(over["unrated"], "aborted");
    assert_eq!(over["scores"][0]["score"], serde_json::Value::Null);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaving_mid_game_is_abandoning_and_resigning_ends_the_game() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut alice = server.player("Alice").await;
    let mut bob = server.player("Bob").await;
    let (room, _) = alice.create(["me", "open"]).await;
    bob.join(&room, 1).await;
    alice.until_state(|s| s["status"] == "playing").await;
    alice.play(&room, "4").await;
    bob.until_state(|s| s["moves"] == 1).await;
    bob.send(json!({"type": "leave", "room": room, "ref": "bye"}))
        .await;
    assert_eq!(
        bob.until("left").await,
        json!({"type": "left", "room": room, "ref": "bye"})
    );
    let state = alice.until_state(|s| s["status"] == "finished").await;
    assert_eq!(state["result"], json!({"winner": 0, "reason": "abandoned"}));
    alice.expect("game_over").await;

    let (room, _) = alice.create(["me", "open"]).await;
    bob.join(&room, 1).await;
    let mut players = [alice, bob];
    play_alternately(&mut players, &room, &["0", "4", "8", "2"]).await;
    let [mut alice, mut bob] = players;
    alice.until_state(|s| s["moves"] == 4).await;
    alice.send(json!({"type": "resign", "room": room})).await;
    let over = bob.until("game_over").await;
    assert_eq!(over["winner"], 1);
    assert_eq!(over["reason"], "resigned");
    // Two moves each were made, so the resignation is scored, but a win by resignation
    // scores the floor (100 plus the time score), not the bonus of a 4-move win.
    let score = over["scores"][1]["score"].as_u64().unwrap();
    assert!((100..=199).contains(&score), "{over}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_whose_heartbeat_stops_shows_as_gone_long_before_the_client_timeout() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.rooms.reconnect_grace_secs = 30;
    config.server.heartbeat_timeout_secs = 1;
    // A client timeout no test outlives: whatever ends Bob's connection is the
    // heartbeat's, and the server says so in the close frame.
    config.server.client_timeout_secs = 3_600;
    let server = TestServer::start(config).await;
    let ([mut alice, mut bob], room) = server.pair_in_room().await;
    // Bob's client keeps a heartbeat, as the web page does; then its network goes
    // silent without closing: it neither sends nor reads (so it answers no WebSocket
    // ping either).
    bob.send(json!({"type": "ping"})).await;
    bob.until("pong").await;
    let away = alice
        .until_state(|s| s["seats"][1]["connected"] == false)
        .await;
    assert_eq!(away["room"], room.as_str());
    assert_eq!(away["status"], "playing", "the seat is kept for the grace");
    let (code, reason) = bob.closed_with(PATIENCE).await;
    assert_eq!((code, reason.as_str()), (1000, "no ping for too long"));
    server.stop().await;
}
