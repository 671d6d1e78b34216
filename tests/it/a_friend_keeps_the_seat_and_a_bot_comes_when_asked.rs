//! A room opened for a friend waits for the friend: a bot takes an open seat by itself
//! only where `options.bot_fill` allows (by default a public room, not a private one),
//! and a seated player may ask for a bot at once with `fill_with_bot`. `welcome` says
//! when the room's own bot would come and of what level.

use crate::common::{Client, TestServer, temp_dir, test_config};
use serde_json::{Value, json};

/// A room of tic-tac-toe with `host` in seat 0 and seat 1 open, made with `options`.
async fn waiting_room(host: &mut Client, options: Value) -> String {
    let (room, snapshot) = host.create_game("tictactoe", ["me", "open"], options).await;
    let snapshot = snapshot.expect("the host is seated");
    assert_eq!(snapshot["seats"][1]["kind"], "open");
    room
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_fills_with_a_bot_only_where_its_options_allow() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await; // fill_after_secs: 1
    let mut host = server.player("Host").await;
    // Made first, so their fill timers would run out before the last room's does.
    let no_fill = waiting_room(&mut host, json!({"bot_fill": false})).await;
    let private = waiting_room(&mut host, json!({"private": true})).await;
    let private_fill = waiting_room(&mut host, json!({"private": true, "bot_fill": true})).await;
    let mut other = server.player("Other").await;
    let public = waiting_room(&mut other, json!({})).await;

    let filled = host
        .until_state(|s| s["room"] == private_fill.as_str() && s["status"] == "playing")
        .await;
    assert_eq!(filled["seats"][1]["kind"], "bot:easy", "{filled}");
    let filled = other.until_state(|s| s["status"] == "playing").await;
    assert_eq!(filled["room"], public.as_str());
    assert_eq!(filled["seats"][1]["kind"], "bot:easy");

    // By now the rooms made before the public one would have had their bots: they
    // still wait, and the friend with the link gets the seat.
    for room in [&no_fill, &private] {
        let (status, state) = server.get_json(&format!("/api/rooms/{room}")).await;
        assert_eq!(status, 200);
        assert_eq!(state["seats"][1]["kind"], "open", "{state}");
        let mut friend = server.player(&format!("Friend{}", &room[..4])).await;
        let state = friend.join(room, 1).await;
        assert_eq!(state["status"], "playing");
        assert_eq!(state["seats"][1]["kind"], "human");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_player_may_ask_for_a_bot_at_once() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.bots.fill_after_secs = 3_600;
    let server = TestServer::start(config).await;
    let mut host = server.player("Host").await;
    let mut stranger = server.player("Stranger").await;
    let room = waiting_room(&mut host, json!({"private": true})).await;

    stranger
        .expect_error(
            json!({"type": "fill_with_bot", "room": room}),
            "not_a_player",
        )
        .await;
    host.expect_error_unchecked(
        json!({"type": "fill_with_bot", "room": room, "level": "genius"}),
        "bad_message",
    )
    .await;
    host.send(json!({"type": "fill_with_bot", "room": room, "level": "medium", "ref": "f1"}))
        .await;
    let started = host.expect("state").await;
    assert_eq!(started["status"], "playing", "{started}");
    assert_eq!(started["seats"][1]["kind"], "bot:medium");
    assert_eq!(started["seats"][1]["name"], "Bot (medium)");
    let (status, listed) = server.get_json(&format!("/api/rooms/{room}")).await;
    assert_eq!(status, 200);
    assert_eq!(listed["seats"][1]["kind"], "bot:medium");

    // The game is on: no seat is open any more.
    host.expect_error(
        json!({"type": "fill_with_bot", "room": room, "level": "easy"}),
        "seat_taken",
    )
    .await;
    host.play(&room, "4").await;
    let replied = host.until_state(|s| s["moves"] == 2).await;
    assert_eq!(replied["last_move"]["seat"], 1, "the bot plays");

    // Without a level, the bot is the server's fill level.
    let room = waiting_room(&mut host, json!({"bot_fill": false})).await;
    host.send(json!({"type": "fill_with_bot", "room": room}))
        .await;
    let started = host
        .until_state(|s| s["room"] == room.as_str() && s["status"] == "playing")
        .await;
    assert_eq!(started["seats"][1]["kind"], "bot:easy");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn welcome_tells_the_room_settings_and_bot_fill_must_be_a_boolean() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.bots.fill_after_secs = 20;
    config.rooms.reconnect_grace_secs = 60;
    config.rooms.claim_after_secs = 15;
    let server = TestServer::start(config).await;
    let mut host = server.connect().await;
    let welcome = host.hello("Host", None).await;
    assert_eq!(
        welcome["room_settings"],
        json!({
            "bot_fill_after_ms": 20_000,
            "bot_fill_level": "easy",
            "reconnect_grace_ms": 60_000,
            "claim_after_ms": 15_000,
            "first_move_ms": 30_000,
            "takeover": "none",
        })
    );
    host.expect_error_unchecked(
        json!({"type": "create_room", "game": "chess", "seats": ["me", "open"],
               "options": {"bot_fill": "yes"}}),
        "bad_option",
    )
    .await;
    server.stop().await;
}
