//! Time controls through the real server: the room's clock ends games by itself. Short
//! controls keep the tests quick; what they check is what the server reports (the
//! clocks in its states, the thinking time stored with each move, the reason a game
//! ended), never how long anything took by the test's own watch.

use crate::common::{TestServer, temp_dir, test_config};
use serde_json::{Value, json};

fn fischer(base_ms: u64, increment_ms: u64) -> Value {
    json!({"kind": "fischer", "base_ms": base_ms, "increment_ms": increment_ms})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn running_out_of_time_loses_and_the_increment_is_added() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut alice = server.player("Alice").await;
    let mut bob = server.player("Bob").await;
    // Seconds enough that Alice's one timed move never runs her out, however slow the
    // machine; Bob runs out of his by not moving.
    let options = json!({"time_control": fischer(5_000, 1_000)});
    let (room, snapshot) = alice.create_game("chess", ["me", "open"], options).await;
    assert_eq!(snapshot.unwrap()["time_control"], fischer(5_000, 1_000));
    let started = bob.join(&room, 1).await;
    // Each side's clock starts only with its own first move, as on Lichess.
    assert_eq!(started["clocks"]["running"], Value::Null, "{started}");

    alice.play(&room, "e2e4").await;
    let after = bob.until_state(|s| s["moves"] == 1).await;
    assert_eq!(after["clocks"]["running"], Value::Null, "{after}");
    assert_eq!(after["clocks"]["remaining_ms"], json!([5_000, 5_000]));
    bob.play(&room, "e7e5").await;
    let after = alice.until_state(|s| s["moves"] == 2).await;
    assert_eq!(after["clocks"]["running"], 0, "{after}");
    assert_eq!(after["clocks"]["remaining_ms"], json!([5_000, 5_000]));

    alice.play(&room, "d2d4").await;
    let after = bob.until_state(|s| s["moves"] == 3).await;
    let white_left = after["clocks"]["remaining_ms"][0].as_u64().unwrap();
    assert_eq!(after["clocks"]["running"], 1);

    // Bob never moves again: the room flags him by itself.
    let over = alice.until("game_over").await;
    assert_eq!(over["reason"], "timeout");
    assert_eq!(over["winner"], 0);
    let game = server
        .get_json(&format!("/api/games/{}", over["game_id"].as_str().unwrap()))
        .await
        .1;
    assert_eq!(game["moves"][0]["clocks_ms"], json!([5_000, 5_000]));
    // White's clock after d4 is 5,000 ms less the thinking time the server stored with
    // the move, plus the 1,000 ms increment: the state showed it, and it was stored.
    let think = game["moves"][2]["think_ms"].as_u64().unwrap();
    assert_eq!(white_left, 5_000 - think + 1_000, "{after} {game}");
    let clocks = &game["moves"][2]["clocks_ms"];
    assert_eq!(clocks, &json!([white_left, 5_000]), "{game}");

    let pgn = reqwest::get(server.url(&format!(
        "/api/games/{}.pgn",
        over["game_id"].as_str().unwrap()
    )))
    .await
    .unwrap()
    .text()
    .await
    .unwrap();
    assert!(pgn.contains("[TimeControl \"5+1\"]"), "{pgn}");
    // %clk shows whole seconds, rounded down.
    let d4_clock = format!("0:00:{:02}", white_left / 1_000);
    assert!(
        pgn.contains(&format!(
            "1. e4 {{ [%clk 0:00:05] }} e5 {{ [%clk 0:00:05] }} 2. d4 {{ [%clk {d4_clock}] }} 1-0"
        )),
        "{pgn}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_against_a_bare_king_is_a_draw() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut alice = server.player("Alice").await;
    let mut bob = server.player("Bob").await;
    let options =
        json!({"start": "7k/8/8/8/8/8/8/1Q5K w - - 0 1", "time_control": fischer(300, 0)});
    let (room, _) = alice.create_game("chess", ["me", "open"], options).await;
    bob.join(&room, 1).await;
    alice.play(&room, "b1b3").await;
    bob.until_state(|s| s["moves"] == 1).await;
    bob.play(&room, "h8g7").await;
    // White, with a queen, lets the clock run out; Black's lone king could never mate.
    let over = bob.until("game_over").await;
    assert_eq!(over["reason"], "timeout_vs_insufficient_material");
    assert_eq!(over["winner"], Value::Null);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_without_a_first_move_is_aborted_and_not_scored() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.rooms.first_move_secs = 1;
    let server = TestServer::start(config).await;
    let mut alice = server.player("Alice").await;
    let mut bob = server.player("Bob").await;
    let (room, _) = alice
        .create_game("checkers", ["me", "open"], json!({}))
        .await;
    bob.join(&room, 1).await;
    alice.play(&room, "11-15").await;
    // Bob never makes his first move.
    let over = alice.until("game_over").await;
    assert_eq!(over["reason"], "aborted");
    assert_eq!(over["winner"], Value::Null);
    assert_eq!(over["scores"][0]["score"], Value::Null);
    assert_eq!(over["scores"][1]["score"], Value::Null);
    server.stop().await;
}

/// Bots that would think for a minute over each move, on a clock of a few seconds a
/// move: each thinks within its share of the clock (half of it, less a margin) and none
/// loses on time. The other half is the margin a stalled machine may take.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_keep_to_a_fast_clock() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    for strength in [&mut config.bots.medium, &mut config.bots.hard] {
        strength.max_depth = 64;
        strength.max_nodes = u64::MAX;
        strength.think_ms = 60_000;
    }
    let server = TestServer::start(config).await;
    let mut viewer = server.player("Viewer").await;
    let options = json!({"time_control": {"kind": "per_move", "per_move_ms": 4_000}});
    let (room, _) = viewer
        .create_game("chess", ["bot:hard", "bot:medium"], options)
        .await;
    viewer.send(json!({"type": "watch", "room": room})).await;
    viewer.expect("joined").await;
    // Two moves each: every one came long before the bot's own minute was up (each is
    // waited for at most PATIENCE), so the clock cut each bot's thinking short.
    let state = viewer
        .until_state(|s| s["moves"].as_u64() >= Some(4) || s["status"] == "finished")
        .await;
    assert_ne!(state["result"]["reason"], "timeout", "{state}");
    assert_eq!(state["status"], "playing", "{state}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_time_control_is_refused() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut alice = server.player("Alice").await;
    for control in [
        json!({"kind": "sudden"}),
        json!({"kind": "per_move"}),
        json!({"kind": "per_move", "per_move_ms": 0}),
        json!({"kind": "fischer", "base_ms": 60000}),
        json!("fischer"),
    ] {
        let request = json!({"type": "create_room", "game": "chess", "seats": ["me", "open"], "options": {"time_control": control}});
        alice.expect_error_unchecked(request, "bad_option").await;
    }
    server.stop().await;
}
