//! Bots: an open seat opposite a waiting human is filled after `bots.fill_after_secs`;
//! a room with both seats open never fills itself; bots chosen at creation play.

use crate::common::{Client, TestServer, temp_dir};
use serde_json::{Value, json};

/// Plays seat 0's first legal move whenever it is its turn, starting from `state`,
/// until `game_over`, which it returns.
async fn play_first_moves(player: &mut Client, room: &str, mut state: Value) -> Value {
    loop {
        match state["type"].as_str() {
            Some("state") if state["to_move"] == 0 => {
                let mv = state["legal_moves"][0].as_str().unwrap().to_owned();
                player.play(room, &mv).await;
            }
            Some("game_over") => return state,
            _ => {}
        }
        state = player.recv().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_seat_opposite_a_human_gets_a_bot_and_the_game_is_played_out() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut alice = server.player("Alice").await;
    let (room, snapshot) = alice.create(["me", "open"]).await;
    assert_eq!(snapshot.unwrap()["seats"][1]["kind"], "open");

    // fill_after_secs is 1 in the test configuration.
    let filled = alice.until_state(|s| s["seats"][1]["kind"] != "open").await;
    assert_eq!(filled["seats"][1]["kind"], "bot:easy");
    assert_eq!(filled["seats"][1]["connected"], true);
    assert_eq!(filled["status"], "playing");

    // Alice plays the first legal move whenever it is her turn until the game ends.
    let over = play_first_moves(&mut alice, &room, filled).await;
    assert_eq!(
        over["scores"][1]["score"],
        Value::Null,
        "bots are not scored"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_with_both_seats_open_never_becomes_bot_against_bot() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut host = server.player("Host").await;
    let (room, _) = host.create(["open", "open"]).await;
    host.send(json!({"type": "watch", "room": room})).await;
    host.expect("joined").await;
    // A room made after it, with a human waiting, gets its bot after fill_after_secs:
    // by then the first room would have had its bots too, if it were to get any.
    let mut alice = server.player("Alice").await;
    alice.create(["me", "open"]).await;
    let filled = alice.until_state(|s| s["seats"][1]["kind"] != "open").await;
    assert_eq!(filled["seats"][1]["kind"], "bot:easy", "{filled}");
    let (_, state) = server.get_json(&format!("/api/rooms/{room}")).await;
    assert_eq!(state["status"], "waiting");
    assert_eq!(state["seats"][0]["kind"], "open");
    assert_eq!(state["seats"][1]["kind"], "open");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bot_hard_never_loses_and_bots_can_play_each_other() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut alice = server.player("Alice").await;
    let (room, snapshot) = alice.create(["me", "bot:hard"]).await;
    let over = play_first_moves(&mut alice, &room, snapshot.unwrap()).await;
    assert_ne!(over["winner"], 0, "perfect play never loses: {over}");

    // Two bots play a whole game that anyone can watch.
    let (room, _) = alice.create(["bot:random", "bot:hard"]).await;
    alice.send(json!({"type": "watch", "room": room})).await;
    alice.expect("joined").await;
    let over = alice.until("game_over").await;
    assert_eq!(over["room"], room);
    assert_ne!(over["winner"], 0, "random cannot beat perfect play: {over}");
    server.stop().await;
}
