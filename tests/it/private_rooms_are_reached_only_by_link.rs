//! A room created with `options.private` is in no listing and no lobby feed and gets no
//! bot, but anyone with its id can join, watch and read it.

use crate::common::{TestServer, temp_dir};
use serde_json::json;

#[tokio::test]
async fn private_rooms_are_unlisted_but_open_by_id() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;

    let mut lurker = server.player("Lurker").await;
    lurker.send(json!({"type": "subscribe_lobby"})).await;
    lurker.expect("lobby").await;

    let mut host = server.player("Host").await;
    let (room, _) = host
        .create_game("checkers", ["me", "open"], json!({"private": true}))
        .await;
    // A public room made afterwards is announced; the private one never was.
    let (public, _) = host
        .create_game("checkers", ["open", "bot:easy"], json!({}))
        .await;
    let update = lurker.until("lobby_update").await;
    assert_eq!(update["room"]["room"], public.as_str(), "{update}");

    let (status, listed) = server.get_json("/api/rooms").await;
    assert_eq!(status, 200);
    let ids: Vec<&str> = listed["rooms"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["room"].as_str())
        .collect();
    assert_eq!(ids, [public.as_str()]);
    lurker.send(json!({"type": "list_rooms"})).await;
    let rooms = lurker.until("rooms").await;
    assert_eq!(rooms["rooms"].as_array().unwrap().len(), 1);

    // A public room made after it, with a human waiting, gets its bot after the test
    // server's bots.fill_after_secs: by then no bot took the private room's open seat.
    let mut other = server.player("Other").await;
    other.create(["me", "open"]).await;
    let filled = other.until_state(|s| s["seats"][1]["kind"] != "open").await;
    assert_eq!(filled["seats"][1]["kind"], "bot:easy", "{filled}");
    let (status, state) = server.get_json(&format!("/api/rooms/{room}")).await;
    assert_eq!(status, 200);
    assert_eq!(state["seats"][0]["name"], "Host");
    assert_eq!(state["seats"][1]["kind"], "open", "{state}");

    let mut guest = server.player("Guest").await;
    let state = guest.join(&room, 1).await;
    assert_eq!(state["status"], "playing");
    lurker.send(json!({"type": "watch", "room": room})).await;
    let joined = lurker.until("joined").await;
    assert_eq!(joined["role"], "spectator");

    server.stop().await;
}

#[tokio::test]
async fn private_must_be_a_boolean() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut host = server.player("Host").await;
    host.expect_error_unchecked(
        json!({"type": "create_room", "game": "chess", "seats": ["me", "open"],
               "options": {"private": "yes"}}),
        "bad_option",
    )
    .await;
    server.stop().await;
}
