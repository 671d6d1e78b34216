//! Writes to PostgreSQL that committed although the server never heard so (the
//! `COMMIT`'s acknowledgement lost in a stalled network, seen through a fault proxy):
//! a game's start, retried once the database is back, records that same game again,
//! so the room's one stored game is the one played, and nothing unplayed is left behind
//! for adoption or a restart to find.

use std::time::Duration;

use parlor_testkit::fault_proxy::{Fault, FaultProxy};
use serde_json::json;

use crate::common::{TestServer, play_alternately, temp_dir, test_config};
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
    let proxy = FaultProxy::start(&schema.server()).await.unwrap();
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    // Without TLS, so the proxy can see which answer is the `COMMIT`'s.
    let plain = format!("{}&sslmode=disable", schema.store_url_via(proxy.address()));
    config.store.url = Some(plain);
    let server = TestServer::start(config).await;
    let store = sqlx::PgPool::connect(&schema.store_url()).await.unwrap();

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
