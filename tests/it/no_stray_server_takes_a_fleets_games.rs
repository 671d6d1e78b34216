//! A fleet's database against the servers that do not belong to it, with real processes
//! on the machine's PostgreSQL (a schema of the test's own) and Redis (a key prefix of
//! its own): a single server, or a node of another fleet, is refused at start with an
//! error that says what to do, while the fleet's own nodes join; an operator's take-over
//! (`--take-over-database`) moves the games to the server that asked, and the displaced
//! node gives them up and stops; and a room whose game another server took over under a
//! higher token gives it back to the fleet instead of refusing every move for good.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{Client, client_at, temp_dir};
use crate::fleet::{TestFleet, join_when_taken_over};
use crate::process::ParlorProcess;
use crate::waiting::eventually;
use serial_test::serial;

/// How long a test waits for a server that should stop by itself before it fails.
const EXIT_PATIENCE: Duration = Duration::from_secs(120);

/// Runs a `parlor` in `dir` with `env` that should refuse to start; its stderr.
fn refused(dir: &Path, env: &[(String, String)]) -> String {
    let child = Command::new(env!("CARGO_BIN_EXE_parlor"))
        .args(["--port", "0"])
        .current_dir(dir)
        .env("PARLOR_STORE__PATH", dir.join("parlor.db"))
        .envs(env.iter().map(|(key, value)| (key, value)))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!output.status.success(), "it started: {said}");
    said
}

/// The fleet's settings with `key` set to `value` (or left out, with `None`).
fn with(fleet: &TestFleet, key: &str, value: Option<&str>) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = fleet
        .env()
        .into_iter()
        .filter(|(name, _)| name != key)
        .collect();
    if let Some(value) = value {
        env.push((key.to_owned(), value.to_owned()));
    }
    env
}

/// Alice (seat 0) and Bob (seat 1) two moves into a game of tic-tac-toe on `address`;
/// the room, both players, their tokens and the game's id.
async fn two_moves_in(address: &str) -> (String, [Client; 2], [String; 2], String) {
    let (mut alice, welcome_a) = client_at(address, "Alice", None).await;
    let (mut bob, welcome_b) = client_at(address, "Bob", None).await;
    let (room, _) = alice
        .create_game("tictactoe", ["me", "open"], json!({}))
        .await;
    bob.join(&room, 1).await;
    alice.play(&room, "0").await;
    bob.until_state(|s| s["moves"] == 1).await;
    bob.play(&room, "4").await;
    let state = alice.until_state(|s| s["moves"] == 2).await;
    let token = |welcome: &Value| welcome["token"].as_str().unwrap().to_owned();
    let game_id = state["game_id"].as_str().unwrap().to_owned();
    (
        room,
        [alice, bob],
        [token(&welcome_a), token(&welcome_b)],
        game_id,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn only_the_fleets_own_nodes_may_open_its_database() {
    let test = "only_the_fleets_own_nodes_may_open_its_database";
    let Some(fleet) = TestFleet::new(test).await else {
        return;
    };
    let dirs = [temp_dir(), temp_dir(), temp_dir()];
    let first = fleet.start_node(dirs[0].path());
    let (room, _, _, _) = two_moves_in(&first.address).await;

    // A single server on the fleet's database: refused, saying who holds it and how to
    // go on.
    let single = with(&fleet, "PARLOR_CLUSTER__REDIS_URL", None);
    let said = refused(dirs[1].path(), &single);
    assert!(
        said.contains("is held by a node of the fleet coordinating through Redis"),
        "{said}"
    );
    assert!(
        said.contains("a single server would take their games"),
        "{said}"
    );
    assert!(said.contains("--take-over-database"), "{said}");
    // A node of another fleet (the same Redis, another key prefix): refused too.
    let stranger = with(
        &fleet,
        "PARLOR_CLUSTER__KEY_PREFIX",
        Some(&format!("{test}-elsewhere")),
    );
    let said = refused(dirs[1].path(), &stranger);
    assert!(said.contains("is held by a node of the fleet"), "{said}");
    assert!(
        said.contains("elsewhere\" would take their games"),
        "{said}"
    );

    // The fleet's own next node joins, and the game is still played where it was.
    let second = fleet.start_node(dirs[2].path());
    let (mut carol, _) = client_at(&second.address, "Carol", None).await;
    let watched = watch(&mut carol, &room).await;
    assert_eq!(watched["moves"], 2, "{watched}");

    // Once every node has gone (one killed: its row stays, its session does not), the
    // database is free again.
    first.kill();
    let mut second = second;
    second.signal(libc::SIGTERM);
    assert!(
        second.exited_within(EXIT_PATIENCE).is_some(),
        "node 2 stops"
    );
    let store = sqlx::PgPool::connect(&fleet.store_url()).await.unwrap();
    eventually("PostgreSQL has ended the killed node's session", EXIT_PATIENCE, async || {
        let sessions: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM pg_stat_activity WHERE pid IN (SELECT backend_pid::int FROM servers)",
        )
        .fetch_one(&store)
        .await
        .unwrap();
        if sessions == 0 { Ok(()) } else { Err(format!("{sessions} still open")) }
    })
    .await;
    let alone = ParlorProcess::start(dirs[1].path(), &env_refs(&single));
    let (mut dave, _) = client_at(&alone.address, "Dave", None).await;
    let resumed = watch(&mut dave, &room).await;
    assert_eq!(
        resumed["moves"], 2,
        "the single server resumed it: {resumed}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn a_take_over_moves_the_games_and_the_displaced_node_stops() {
    let test = "a_take_over_moves_the_games_and_the_displaced_node_stops";
    let Some(fleet) = TestFleet::new(test).await else {
        return;
    };
    let dirs = [temp_dir(), temp_dir()];
    let mut node = fleet.start_node(dirs[0].path());
    let (room, _, tokens, _) = two_moves_in(&node.address).await;

    let single = with(&fleet, "PARLOR_CLUSTER__REDIS_URL", None);
    let taking = ParlorProcess::start_with_args(
        dirs[1].path(),
        &env_refs(&single),
        &["--take-over-database"],
    );
    let status = node.exited_within(EXIT_PATIENCE).expect("the node stopped");
    assert!(!status.success(), "it says it did not stop of its own will");
    node.logged("another server took this database over", EXIT_PATIENCE)
        .await;

    // The players find their game on the server that took it over, and play on.
    let (mut alice, _) = client_at(&taking.address, "Alice", Some(&tokens[0])).await;
    let (mut bob, _) = client_at(&taking.address, "Bob", Some(&tokens[1])).await;
    let resumed = join_when_taken_over(&mut alice, &room, 0).await;
    assert_eq!(resumed["moves"], 2, "{resumed}");
    bob.join(&room, 1).await;
    alice.play(&room, "8").await;
    let state = bob.until_state(|s| s["moves"] == 3).await;
    assert_eq!(state["position"], "X...O...X", "{state}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn a_room_fenced_out_gives_its_game_back_to_the_fleet() {
    let test = "a_room_fenced_out_gives_its_game_back_to_the_fleet";
    let Some(fleet) = TestFleet::new(test).await else {
        return;
    };
    let dirs = [temp_dir(), temp_dir()];
    let nodes = [
        fleet.start_node(dirs[0].path()),
        fleet.start_node(dirs[1].path()),
    ];
    let (room, [mut alice, _bob], tokens, game_id) = two_moves_in(&nodes[0].address).await;

    // A server that got in anyway (an older version, a mistake) took the game over
    // under a higher token, and went away again.
    let store = sqlx::PgPool::connect(&fleet.store_url()).await.unwrap();
    let raised = sqlx::query("UPDATE games SET fence = fence + 100 WHERE game_id = $1")
        .bind(&game_id)
        .execute(&store)
        .await
        .unwrap();
    assert_eq!(raised.rows_affected(), 1);

    // The move the store refuses is refused; the room then stops and the fleet adopts
    // the game under a token above the stray one, and the players play on.
    alice
        .expect_error(
            json!({"type": "move", "room": room, "move": "8"}),
            "storage_unavailable",
        )
        .await;
    let (mut alice, _) = client_at(&nodes[1].address, "Alice", Some(&tokens[0])).await;
    let (mut bob, _) = client_at(&nodes[1].address, "Bob", Some(&tokens[1])).await;
    let resumed = join_when_taken_over(&mut alice, &room, 0).await;
    assert_eq!(resumed["moves"], 2, "{resumed}");
    bob.join(&room, 1).await;
    alice.play(&room, "8").await;
    let state = bob.until_state(|s| s["moves"] == 3).await;
    assert_eq!(state["position"], "X...O...X", "{state}");
    let fence: i64 = sqlx::query_scalar("SELECT fence FROM games WHERE game_id = $1")
        .bind(&game_id)
        .fetch_one(&store)
        .await
        .unwrap();
    assert!(fence > 100, "adopted above the stray token: {fence}");
}

/// Watches `room`; the state it is in.
async fn watch(client: &mut Client, room: &str) -> Value {
    client.send(json!({"type": "watch", "room": room})).await;
    client.expect("joined").await;
    client.expect("state").await
}

/// `env` as the borrowed pairs [`ParlorProcess::start`] takes.
fn env_refs(env: &[(String, String)]) -> Vec<(&str, &str)> {
    env.iter()
        .map(|(key, value)| (key.as_str(), value.as_str()))
        .collect()
}
