//! Many spectators joining a room while two players play: each gets a snapshot and
//! converges to the current state, the others hear of the newcomers in a paced `state`
//! (not one per join), and a room at `limits.spectators_per_room` refuses more with
//! `room_full`.

use std::net::SocketAddr;
use std::time::Instant;

use crate::common::{Client, TestServer, temp_dir, test_config};
use parlor::config::LimitsConfig;
use serde_json::{Value, json};
use tokio_tungstenite::connect_async;

/// Spectators that join during the game.
const NEWCOMERS: usize = 150;

async fn spectator(server: &TestServer, name: String, room: &str) -> Client {
    spectator_at(server.addr, name, room).await
}

/// A new connection to the server at `addr` that says hello as `name` and watches `room`.
async fn spectator_at(addr: SocketAddr, name: String, room: &str) -> Client {
    let (ws, _) = connect_async(format!("ws://{addr}/ws")).await.unwrap();
    let mut client = Client { ws };
    client.hello(&name, None).await;
    client.send(json!({"type": "watch", "room": room})).await;
    client.until("joined").await;
    client.expect("state").await;
    client
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn joining_spectators_are_announced_at_a_pace_and_all_converge() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.limits = LimitsConfig::unlimited();
    let server = TestServer::start(config).await;
    let (mut players, room) = server.pair_in_room().await;
    let mut watcher = spectator(&server, "Watcher".into(), &room).await;

    // The watcher counts every state it receives while the newcomers arrive.
    let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
    let counting = tokio::spawn(async move {
        let mut states = Vec::new();
        loop {
            tokio::select! {
                message = watcher.recv() => {
                    if message["type"] == "state" {
                        states.push(message);
                    }
                }
                _ = &mut stopped => return (watcher, states),
            }
        }
    });

    let started = Instant::now();
    let joining: Vec<_> = (0..NEWCOMERS)
        .map(|index| {
            let addr = server.addr;
            let room = room.clone();
            tokio::spawn(async move { spectator_at(addr, format!("Fan{index}"), &room).await })
        })
        .collect();
    // The players keep playing meanwhile.
    let played = ["0", "3", "1"];
    for (ply, cell) in played.iter().enumerate() {
        let mover = &mut players[ply % 2];
        mover.play(&room, cell).await;
        mover.until_state(|s| s["moves"] == json!(ply + 1)).await;
    }
    let mut newcomers = Vec::new();
    for join in joining {
        newcomers.push(join.await.unwrap());
    }
    let joins_took = started.elapsed();
    stop.send(()).unwrap();
    let (mut watcher, during) = counting.await.unwrap();

    // One state per move, and audience announcements at most one a second: far fewer
    // than one per newcomer.
    let paced = played.len() + joins_took.as_secs() as usize + 3;
    eprintln!(
        "the watcher got {} states while {NEWCOMERS} spectators joined in {joins_took:?}",
        during.len()
    );
    assert!(
        during.len() <= paced,
        "the watcher got {} states while {NEWCOMERS} spectators joined in {joins_took:?} (at most {paced} expected)",
        during.len()
    );

    // Within a pace everyone hears of the whole audience, at the same seq (the
    // watcher may have heard it already, before it stopped counting: on a loaded
    // machine the last joins can take longer than the pace).
    let everyone = NEWCOMERS + 1;
    let whole = |s: &Value| s["spectators"] == json!(everyone) && s["moves"] == json!(played.len());
    let settled = match during.iter().rev().find(|s| whole(s)) {
        Some(state) => state.clone(),
        None => watcher.until_state(whole).await,
    };
    let seq = settled["seq"].as_u64().unwrap();
    for (index, newcomer) in newcomers.iter_mut().enumerate() {
        let seen: Value = newcomer
            .until_state(|s| s["seq"].as_u64().unwrap() >= seq)
            .await;
        assert_eq!(seen["seq"], settled["seq"], "spectator {index}");
        assert_eq!(seen["position"], settled["position"], "spectator {index}");
        assert_eq!(seen["spectators"], json!(everyone), "spectator {index}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_room_refuses_more_spectators() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.limits = LimitsConfig::unlimited();
    config.limits.spectators_per_room = 2;
    let server = TestServer::start(config).await;
    let (_players, room) = server.pair_in_room().await;
    let mut first = spectator(&server, "First".into(), &room).await;
    let _second = spectator(&server, "Second".into(), &room).await;

    let mut third = server.player("Third").await;
    third
        .expect_error(json!({"type": "watch", "room": room}), "room_full")
        .await;
    // Watching again is not a new spectator; leaving makes room.
    first.send(json!({"type": "watch", "room": room})).await;
    first.until("joined").await;
    first.send(json!({"type": "leave", "room": room})).await;
    first.until("left").await;
    third.send(json!({"type": "watch", "room": room})).await;
    third.until("joined").await;
    server.stop().await;
}
