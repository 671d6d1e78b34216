//! Many rooms, or many changes, cost a lister little: `GET /api/rooms` comes a page at a
//! time, and a lobby subscriber gets each room's changes merged, at most one batch per
//! `limits.lobby_flush_ms`.

use std::collections::HashSet;
use std::time::Instant;

use crate::common::{TestServer, temp_dir, test_config};
use parlor::config::LimitsConfig;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rooms_are_listed_a_page_at_a_time() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.limits = LimitsConfig::unlimited();
    config.limits.rooms_page_size = 10;
    let server = TestServer::start(config).await;
    let mut alice = server.player("Alice").await;
    for _ in 0..25 {
        alice.create(["open", "open"]).await;
    }

    let (status, first) = server.get_json("/api/rooms").await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(
        first["rooms"].as_array().unwrap().len(),
        10,
        "the default page"
    );
    let mut seen = Vec::new();
    let mut page = first;
    loop {
        for room in page["rooms"].as_array().unwrap() {
            seen.push(room["room"].as_str().unwrap().to_owned());
        }
        let Some(next) = page["next"].as_str() else {
            break;
        };
        let (status, body) = server
            .get_json(&format!("/api/rooms?limit=10&after={next}"))
            .await;
        assert_eq!(status, 200, "{body}");
        page = body;
    }
    assert_eq!(seen.len(), 25, "{seen:?}");
    assert_eq!(
        seen.iter().collect::<HashSet<_>>().len(),
        25,
        "no room twice"
    );

    let (status, small) = server.get_json("/api/rooms?limit=3").await;
    assert_eq!(status, 200);
    assert_eq!(small["rooms"].as_array().unwrap().len(), 3);
    assert_eq!(small["rooms"][0]["room"].as_str(), Some(seen[0].as_str()));
    for bad in [
        "/api/rooms?limit=11",
        "/api/rooms?limit=0",
        "/api/rooms?after=nonsense",
    ] {
        let (status, body) = server.get_json(bad).await;
        assert_eq!(status, 400, "{bad}: {body}");
        assert_eq!(body["error"]["code"], "bad_request", "{bad}: {body}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lobby_subscriber_gets_a_burst_of_changes_merged() {
    const FLUSH_MS: u64 = 1_000;
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.limits = LimitsConfig::unlimited();
    config.limits.lobby_flush_ms = FLUSH_MS;
    let server = TestServer::start(config).await;
    let mut watcher = server.player("Watcher").await;
    watcher
        .send(json!({"type": "subscribe_lobby", "ref": 1}))
        .await;
    watcher.expect("lobby").await;

    // Alice leaves her seat and takes it again, over and over: two changes each time.
    // Then Bob takes the other seat and the game starts: the last change.
    let mut alice = server.player("Alice").await;
    let (room, _) = alice.create(["me", "open"]).await;
    let started = Instant::now();
    const CYCLES: usize = 20;
    for _ in 0..CYCLES {
        alice.send(json!({"type": "leave", "room": room})).await;
        alice.until("left").await;
        alice.join(&room, 0).await;
    }
    let mut bob = server.player("Bob").await;
    bob.join(&room, 1).await;
    let took = started.elapsed();

    // The subscriber hears of the changes in order: once it hears of the game on, it
    // has heard of every change before it.
    let mut updates = Vec::new();
    loop {
        let update = watcher.until("lobby_update").await;
        if update["room"]["room"] != json!(room) {
            continue;
        }
        let last = update["room"]["status"] == "playing";
        updates.push(update);
        if last {
            break;
        }
    }
    // The changes came within milliseconds; the subscriber got them merged, a batch
    // per interval at most: three for changes within one interval, as before, and one
    // more for each further interval a loaded machine stretched them over. (Counted,
    // not timed: a loaded machine delivers batches late and unevenly, never more.)
    let intervals = took.as_millis() as usize / FLUSH_MS as usize;
    assert!(
        updates.len() <= intervals + 3,
        "{} updates for one room whose {} changes took {took:?}",
        updates.len(),
        2 * CYCLES + 1
    );
    let last = updates.last().unwrap();
    assert_eq!(last["room"]["seats"][0]["name"], "Alice", "{last}");
    assert_eq!(last["room"]["seats"][0]["connected"], true, "{last}");
    assert_eq!(last["room"]["seats"][1]["name"], "Bob", "{last}");
    server.stop().await;
}
