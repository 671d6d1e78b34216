//! When PostgreSQL goes away, the moves in flight are refused with `storage_unavailable`
//! and the rooms stay as they were; once the database is back, the same move goes
//! through, and the store holds every move anyone saw, once.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::{TestServer, play_alternately, temp_dir, test_config};
use crate::services::{CuttableRelay, PostgresSchema};
use crate::waiting::{ASK_AGAIN_EVERY, eventually_every};

/// How long a client sends its move again, once the database is back, before the test
/// fails.
const BACK_PATIENCE: Duration = Duration::from_secs(60);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_postgres_cannot_record_is_refused_and_nothing_is_lost() {
    let Some(schema) = PostgresSchema::new("a_move_postgres_cannot_record_is_refused").await else {
        return;
    };
    let mut relay = CuttableRelay::start(&schema.server()).await;
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.store.url = Some(schema.store_url_via(relay.address));
    let server = TestServer::start(config).await;
    let (mut players, room) = server.pair_in_room().await;
    play_alternately(&mut players, &room, &["0", "3"]).await;
    // Two more rooms, so that several moves are in flight when the database goes.
    let mut others = Vec::new();
    for n in 0..2 {
        let mut first = server.player(&format!("First{n}")).await;
        let mut second = server.player(&format!("Second{n}")).await;
        let (other, _) = first.create(["me", "open"]).await;
        second.join(&other, 1).await;
        first.until_state(|s| s["status"] == "playing").await;
        others.push((first, second, other));
    }
    let [alice, bob] = &mut players;
    alice.until_state(|s| s["moves"] == 2).await;

    relay.cut().await;
    let asked = Instant::now();
    // Each refusal is waited for at most PATIENCE, a deadline only for one that never
    // comes (the store gives up on a wait after store.write_timeout_ms, 3 s).
    let refusals = others.iter_mut().map(|(first, _, other)| {
        first.expect_error(
            json!({"type": "move", "room": other, "move": "0"}),
            "storage_unavailable",
        )
    });
    let (_, ()) = tokio::join!(
        futures_util::future::join_all(refusals),
        alice.expect_error(
            json!({"type": "move", "room": room, "move": "4"}),
            "storage_unavailable",
        )
    );
    eprintln!("three moves refused after {:?}", asked.elapsed());
    let (_, state) = server.get_json(&format!("/api/rooms/{room}")).await;
    assert_eq!(state["position"], "X..O.....");
    assert_eq!(state["moves"], 2);

    // Once the database is back the same move goes through. The first attempts may
    // still meet connections cut with the relay and be refused like the others; a
    // client sends the move again after a moment, as §11 says.
    relay.restore().await;
    let back = Instant::now();
    let what = "the move goes through once the database is back";
    eventually_every(what, BACK_PATIENCE, ASK_AGAIN_EVERY, async || {
        alice
            .send(json!({"type": "move", "room": room, "move": "4", "ref": "again"}))
            .await;
        let mut reply = alice.recv().await;
        while reply["type"] == "state" && reply["moves"] != 3 {
            reply = alice.recv().await;
        }
        if reply["type"] == "state" {
            return Ok(());
        }
        assert_eq!(reply["code"], "storage_unavailable", "{reply}");
        Err(reply.to_string())
    })
    .await;
    eprintln!(
        "the move went through {:?} after the database came back",
        back.elapsed()
    );
    let state = bob.until_state(|s| s["moves"] == 3).await;
    assert_eq!(state["position"], "X..OX....");
    bob.play(&room, "5").await;
    alice.until_state(|s| s["moves"] == 4).await;
    alice.play(&room, "8").await;
    let over = bob.until("game_over").await;
    assert_eq!(over["winner"], 0, "{over}");

    let game_id = over["game_id"].as_str().unwrap();
    let (status, game) = server.get_json(&format!("/api/games/{game_id}")).await;
    assert_eq!(status, 200, "{game}");
    let moves: Vec<&str> = game["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|mv| mv["notation"].as_str().unwrap())
        .collect();
    assert_eq!(moves, ["0", "3", "4", "5", "8"], "each move once, in order");
    assert_eq!(game["status"], "finished");
    server.stop().await;
}
