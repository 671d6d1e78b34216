//! A fleet of three real `parlor` nodes: a lobby subscriber on one node sees the rooms
//! of the others come, change and go as if they were its own node's; `list_rooms`,
//! `GET /api/rooms` and `GET /api/rooms/{id}` on any node show every node's rooms. When
//! a node is killed, its room that had no game yet leaves every listing (once the node
//! has been silent a lease), and its game in progress is listed again by the node that
//! adopts it.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Client, client_at, get_json_at, temp_dir};
use crate::fleet::{LEASE_MS, TestFleet};
use crate::waiting::{ASK_AGAIN_EVERY, eventually_every};
use serial_test::serial;

/// How long the test waits for a change on one node to reach another's listings before
/// it fails.
const PATIENCE: Duration = Duration::from_secs(60);

/// A lobby subscriber, and the latest `lobby_update` it received about each room.
struct Subscriber {
    client: Client,
    latest: HashMap<String, Value>,
}

impl Subscriber {
    /// The latest `lobby_update` about `room` once one satisfies `done` (read from the
    /// connection as needed).
    async fn update_about(&mut self, room: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + PATIENCE + Duration::from_millis(3 * LEASE_MS);
        loop {
            if let Some(update) = self.latest.get(room)
                && done(update)
            {
                return update.clone();
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let update = tokio::time::timeout(left, self.client.until("lobby_update"))
                .await
                .unwrap_or_else(|_| panic!("no lobby_update about {room} came"));
            let id = update["room"]["room"].as_str().unwrap().to_owned();
            self.latest.insert(id, update);
        }
    }
}

/// The rooms `GET /api/rooms` on `address` lists, by id.
async fn listed_ids(address: &str) -> Vec<String> {
    let (status, page) = get_json_at(address, "/api/rooms").await;
    assert_eq!(status, 200, "{page}");
    page["rooms"]
        .as_array()
        .expect("a page of rooms")
        .iter()
        .map(|room| room["room"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn every_node_lists_every_nodes_rooms_and_forgets_a_dead_nodes() {
    let test = "every_node_lists_every_nodes_rooms_and_forgets_a_dead_nodes";
    let Some(fleet) = TestFleet::new(test).await else {
        return;
    };
    let dirs = [temp_dir(), temp_dir(), temp_dir()];
    let [doomed, watching, third]: [_; 3] = fleet
        .start_nodes(&dirs)
        .try_into()
        .unwrap_or_else(|_| panic!("three nodes"));

    let (mut watcher, _) = client_at(&watching.address, "Watcher", None).await;
    watcher
        .send(json!({"type": "subscribe_lobby", "ref": "s"}))
        .await;
    let snapshot = watcher.expect("lobby").await;
    assert_eq!(snapshot["rooms"], json!([]), "{snapshot}");
    let mut watcher = Subscriber {
        client: watcher,
        latest: HashMap::new(),
    };

    // A game on the doomed node, its second player on the third node; and a room
    // waiting for a player, with no game yet.
    let (mut alice, _) = client_at(&doomed.address, "Alice", None).await;
    let (mut bob, _) = client_at(&third.address, "Bob", None).await;
    let (mut ann, _) = client_at(&doomed.address, "Ann", None).await;
    let (game_room, _) = alice
        .create_game("tictactoe", ["me", "open"], json!({}))
        .await;
    let (waiting_room, _) = ann.create_game("chess", ["me", "open"], json!({})).await;
    bob.join(&game_room, 1).await;
    alice.until_state(|s| s["status"] == "playing").await;
    alice.play(&game_room, "4").await;
    let latest = bob.until_state(|s| s["moves"] == 1).await;

    // The watcher's node tells it of both, as of its own rooms.
    let update = watcher
        .update_about(&game_room, |u| u["room"]["moves"] == 1)
        .await;
    assert_eq!(update["room"]["status"], "playing");
    assert_eq!(update["room"]["seats"][1]["name"], "Bob");
    let update = watcher.update_about(&waiting_room, |_| true).await;
    assert_eq!(update["room"]["status"], "waiting");
    assert_eq!(update["room"]["game"], "chess");

    // Every node lists both rooms, and answers for a room another node holds.
    for node in [&doomed, &watching, &third] {
        let listed = listed_ids(&node.address).await;
        for room in [&game_room, &waiting_room] {
            assert!(
                listed.contains(room),
                "{} lists {room}: {listed:?}",
                node.address
            );
        }
        let (status, state) = get_json_at(&node.address, &format!("/api/rooms/{game_room}")).await;
        assert_eq!(status, 200, "{state}");
        assert_eq!(state["seq"], latest["seq"], "{state}");
        assert_eq!(state["position"], latest["position"]);
    }
    let (status, body) = get_json_at(&watching.address, "/api/rooms/nowhere").await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["error"]["code"], "not_found");
    watcher
        .client
        .send(json!({"type": "list_rooms", "ref": "l"}))
        .await;
    let rooms = watcher.client.until("rooms").await;
    assert_eq!(rooms["rooms"].as_array().unwrap().len(), 2, "{rooms}");

    // The doomed node dies. Its waiting room, which had no game, is gone with it: every
    // other node takes it out of its listings once the node has been silent a lease.
    doomed.kill();
    let killed = Instant::now();
    let removed = watcher
        .update_about(&waiting_room, |u| u["change"] == "removed")
        .await;
    assert_eq!(removed["room"]["game"], "chess");
    eprintln!(
        "a dead node's room left the lobby after {:.1} s",
        killed.elapsed().as_secs_f64()
    );
    // The game is adopted by a live node, which lists it again.
    let what = "the adopted game is listed once everywhere";
    let state = eventually_every(what, PATIENCE, ASK_AGAIN_EVERY, async || {
        let watching_lists = listed_ids(&watching.address).await;
        let third_lists = listed_ids(&third.address).await;
        let (status, state) =
            get_json_at(&watching.address, &format!("/api/rooms/{game_room}")).await;
        if status == 200 && watching_lists == [game_room.clone()] && third_lists == watching_lists {
            Ok(state)
        } else {
            Err(format!("{watching_lists:?} {third_lists:?} {status}"))
        }
    })
    .await;
    assert_eq!(state["position"], latest["position"], "{state}");
}
