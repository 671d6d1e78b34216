//! Writes to PostgreSQL that committed although the server never heard so (the
//! `COMMIT`'s acknowledgement lost in a stalled network, seen through a fault proxy):
//! a game's start, retried once the database is back, records that same game again,
//! so the room's one stored game is the one played, and nothing unplayed is left behind
//! for adoption or a restart to find; a winning move, held until the store says it is
//! stored, ends the game with the rating changes stored with it. A held move that never
//! reached the database (the proxy reset it) costs its mover no time for the hold.

use std::time::Duration;

use parlor_testkit::fault_proxy::{Fault, FaultProxy};
use serde_json::json;

use crate::common::{Client, TestServer, play_alternately, temp_dir, test_config};
use crate::services::PostgresSchema;
use crate::waiting::{ASK_AGAIN_EVERY, eventually_every};

/// How long the test waits for what must come: only a deadline for a test that would
/// otherwise hang, far beyond what it takes.
const PATIENCE: Duration = Duration::from_secs(60);

/// PostgreSQL's acknowledgement of a `COMMIT` (its `CommandComplete` tag). Only a write
/// of several statements commits so (a game's start, a move that ends its game): a
/// plain move is one `INSERT`, committed as it runs.
const COMMITTED: &[u8] = b"COMMIT\0";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_whose_commit_is_lost_leaves_one_game_which_is_played() {
    let Some(schema) = PostgresSchema::new("a_start_whose_commit_is_lost").await else {
        return;
    };
    let (proxy, server, store, _dir) = start_behind_a_proxy(&schema).await;

    let mut alice = server.player("Alice").await;
    let (room, _) = alice.create(["me", "open"]).await;
    let mut bob = server.player("Bob").await;
    proxy.set(Fault::LoseAnswer(COMMITTED));
    let joined = bob.join(&room, 1).await;
    assert_eq!(
        joined["status"], "waiting",
        "the start was not acknowledged: {joined}"
    );

    // The start did commit: read past the proxy, while it still holds every answer.
    let landed = eventually_every(
        "the start whose acknowledgement was lost is stored",
        PATIENCE,
        ASK_AGAIN_EVERY,
        async || {
            let ids: Vec<String> =
                sqlx::query_scalar("SELECT game_id FROM games WHERE room_id = $1")
                    .bind(&room)
                    .fetch_all(&store)
                    .await
                    .map_err(|error| error.to_string())?;
            match ids.as_slice() {
                [id] => Ok(id.clone()),
                _ => Err(format!("stored games of the room: {ids:?}")),
            }
        },
    )
    .await;
    eprintln!("the lost start stored {landed}; the room still waits");

    proxy.heal();
    let started = bob.until_state(|s| s["status"] == "playing").await;
    eprintln!("the room started once the database was back: {started}");
    let mut players = [alice, bob];
    play_alternately(&mut players, &room, &["0", "3", "1", "4", "2"]).await;
    let over = players[1].until("game_over").await;
    assert_eq!(over["winner"], 0, "{over}");
    assert_eq!(
        over["game_id"],
        json!(landed),
        "the game played is the one stored"
    );

    let games: Vec<(String, String)> =
        sqlx::query_as("SELECT game_id, status FROM games WHERE room_id = $1")
            .bind(&room)
            .fetch_all(&store)
            .await
            .unwrap();
    assert_eq!(games.len(), 1, "one stored game for one start: {games:?}");
    assert_ne!(games[0].1, "playing", "the stored game ended: {games:?}");
    let seats: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM game_seats WHERE game_id = $1")
        .bind(&landed)
        .fetch_one(&store)
        .await
        .unwrap();
    assert_eq!(seats, 2);
    let (status, game) = server.get_json(&format!("/api/games/{landed}")).await;
    assert_eq!(status, 200, "{game}");
    assert_eq!(game["moves"].as_array().map(Vec::len), Some(5), "{game}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_winning_move_found_stored_ends_the_game_with_its_ratings() {
    let Some(schema) = PostgresSchema::new("a_held_winning_move_found_stored").await else {
        return;
    };
    let (proxy, server, store, _dir) = start_behind_a_proxy(&schema).await;
    let mut alice = server.player("Alice").await;
    let (room, _) = alice.create(["me", "open"]).await;
    let mut bob = server.player("Bob").await;
    bob.join(&room, 1).await;
    let mut players = [alice, bob];
    play_alternately(&mut players, &room, &["0", "3", "1", "4"]).await;
    let [alice, bob] = &mut players;
    let before = alice.until_state(|s| s["moves"] == 4).await;
    let game_id = before["game_id"].as_str().unwrap().to_owned();

    proxy.set(Fault::LoseAnswer(COMMITTED));
    let answer = answer_to(alice, json!({"type": "move", "room": room, "move": "2"})).await;
    assert_eq!(answer["code"], "storage_unavailable", "{answer}");
    // The winning move and its ending did commit: read past the proxy.
    let stored_status = eventually_every(
        "the winning move whose acknowledgement was lost is stored",
        PATIENCE,
        ASK_AGAIN_EVERY,
        async || {
            let status: String = sqlx::query_scalar("SELECT status FROM games WHERE game_id = $1")
                .bind(&game_id)
                .fetch_one(&store)
                .await
                .map_err(|error| error.to_string())?;
            if status == "playing" {
                return Err("the game is still playing in the database".to_owned());
            }
            Ok(status)
        },
    )
    .await;
    eprintln!("the held winning move is stored (the game is {stored_status}); the room holds it");

    proxy.heal();
    let over = bob.until("game_over").await;
    eprintln!("the held winning move was shown once the database was back: {over}");
    assert_eq!(over["winner"], 0, "{over}");
    let [winner, loser] = [&over["scores"][0], &over["scores"][1]];
    assert_eq!(winner["rating_before"], 1500, "{over}");
    assert!(winner["rating_after"].as_i64() > Some(1500), "{over}");
    assert!(loser["rating_after"].as_i64() < Some(1500), "{over}");
    let (status, game) = server.get_json(&format!("/api/games/{game_id}")).await;
    assert_eq!(status, 200, "{game}");
    for seat in 0..2 {
        let (shown, kept) = (&over["scores"][seat], &game["seats"][seat]);
        assert_eq!(shown["rating_before"], kept["rating_before"], "{game}");
        assert_eq!(shown["rating_after"], kept["rating_after"], "{game}");
    }
    assert_eq!(game["moves"].as_array().map(Vec::len), Some(5), "{game}");
    server.stop().await;
}

/// A server whose store is `schema`, reached through a fault proxy without TLS (so the
/// proxy can see which answer is the `COMMIT`'s), a pool that reads the schema past the
/// proxy, and the server's directory (removed when dropped).
async fn start_behind_a_proxy(
    schema: &PostgresSchema,
) -> (FaultProxy, TestServer, sqlx::PgPool, tempfile::TempDir) {
    let proxy = FaultProxy::start(&schema.server()).await.unwrap();
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    let plain = format!("{}&sslmode=disable", schema.store_url_via(proxy.address()));
    config.store.url = Some(plain);
    let server = TestServer::start(config).await;
    let store = sqlx::PgPool::connect(&schema.store_url()).await.unwrap();
    (proxy, server, store, dir)
}

/// Sends `message` from `client` under a `ref` of its own, and returns the answer that
/// echoes it.
async fn answer_to(client: &mut Client, mut message: serde_json::Value) -> serde_json::Value {
    message["ref"] = json!("held");
    client.send(message).await;
    loop {
        let reply = client.recv().await;
        if reply["ref"] == "held" {
            return reply;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_move_found_not_stored_costs_its_mover_no_time_for_the_hold() {
    let Some(schema) = PostgresSchema::new("a_held_move_found_not_stored").await else {
        return;
    };
    let (proxy, server, _store, _dir) = start_behind_a_proxy(&schema).await;
    let mut alice = server.player("Alice").await;
    let clock = json!({"kind": "fischer", "base_ms": 600_000, "increment_ms": 0});
    let options = json!({"time_control": clock});
    let (room, _) = alice
        .create_game("tictactoe", ["me", "open"], options)
        .await;
    let mut bob = server.player("Bob").await;
    bob.join(&room, 1).await;
    // Each side's first move is free: Alice's clock runs from Bob's first move on.
    let mut players = [alice, bob];
    play_alternately(&mut players, &room, &["0", "3"]).await;
    let [alice, bob] = &mut players;
    alice.until_state(|s| s["moves"] == 2).await;

    // The black hole holds the move's write past its deadline (store.write_timeout_ms,
    // 3 s in every test server: the least the game is held); the resets then drop it
    // before it ever reaches the database.
    proxy.black_hole();
    let answer = answer_to(alice, json!({"type": "move", "room": room, "move": "4"})).await;
    assert_eq!(answer["code"], "storage_unavailable", "{answer}");
    proxy.reset();
    eventually_every(
        "the proxy has reset every connection",
        PATIENCE,
        ASK_AGAIN_EVERY,
        async || match proxy.connections() {
            0 => Ok(()),
            open => Err(format!("{open} connections still open")),
        },
    )
    .await;
    proxy.heal();
    // The room lets the move go once the store says it is not stored, and shows the
    // clocks then; Alice plays it again at once.
    let shown = alice.until_state(|s| s["moves"] == 2).await;
    eprintln!("the room let the held move go: clocks {}", shown["clocks"]);
    alice.play(&room, "4").await;
    bob.until_state(|s| s["moves"] == 3).await;

    let game_id = shown["game_id"].as_str().unwrap();
    let (status, game) = server.get_json(&format!("/api/games/{game_id}")).await;
    assert_eq!(status, 200, "{game}");
    let third = &game["moves"][2];
    eprintln!("the move played again was stored as {third}");
    assert_eq!(third["notation"], "4", "{game}");
    // Charged for the hold, the move would cost at least the 3 s deadline; half of it
    // tells the two apart, whatever the timing of the rest.
    let think = third["think_ms"].as_i64().unwrap();
    assert!(
        think < 1_500,
        "the hold was charged to the mover: {think} ms"
    );
    let clocks = third["clocks_ms"].as_array().unwrap();
    assert_eq!(
        clocks[0].as_i64().unwrap(),
        600_000 - think,
        "the clock charged what the thinking time says: {third}"
    );
    server.stop().await;
}
