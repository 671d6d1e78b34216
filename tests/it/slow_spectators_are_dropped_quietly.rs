//! Spectators that never read are dropped once each, quietly: their leaving does not set
//! off a broadcast of its own (which could overflow the next queue), so the rest of the
//! room hears of them in paced states.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use crate::common::{Client, TestServer, temp_dir, test_config};
use parlor::config::LimitsConfig;
use serde_json::{Value, json};
use serial_test::serial;
use tokio::net::TcpSocket;
use tokio_tungstenite::{MaybeTlsStream, client_async};

/// Spectators that stop reading after their snapshot.
const STUCK: usize = 20;

/// How long the test waits for every stuck spectator to be dropped before it fails.
const ALL_DROPPED: Duration = Duration::from_secs(240);

/// A spectator whose socket has a tiny receive buffer, so the server's queue for it
/// fills quickly once it stops reading.
async fn stuck_spectator(addr: SocketAddr, name: String, room: &str) -> Client {
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let stream = socket.connect(addr).await.unwrap();
    let (ws, _) = client_async(format!("ws://{addr}/ws"), MaybeTlsStream::Plain(stream))
        .await
        .unwrap();
    let mut client = Client { ws };
    client.hello(&name, None).await;
    client.send(json!({"type": "watch", "room": room})).await;
    client.until("joined").await;
    client.expect("state").await;
    client
}

async fn dropped_so_far(server: &TestServer) -> u64 {
    server.metric("parlor_slow_consumers_dropped_total").await as u64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn non_reading_spectators_are_dropped_once_without_a_broadcast_storm() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.limits = LimitsConfig::unlimited();
    config.rooms.first_move_secs = 600;
    let server = TestServer::start(config).await;
    let mut alice = server.player("Alice").await;
    let (room, _) = alice.create_game("chess", ["me", "open"], json!({})).await;
    let mut bob = server.player("Bob").await;
    bob.join(&room, 1).await;

    let mut stuck = Vec::new();
    for index in 0..STUCK {
        stuck.push(stuck_spectator(server.addr, format!("Stuck{index}"), &room).await);
    }
    let mut reader = server.player("Reader").await;
    reader.send(json!({"type": "watch", "room": room})).await;
    reader.until("joined").await;
    reader.expect("state").await;

    // The reader keeps every state it receives until one says it is the last spectator
    // left: every drop has then been announced.
    let reading = tokio::spawn(async move {
        let mut states: Vec<Value> = Vec::new();
        loop {
            let message = reader.recv().await;
            if message["type"] == "state" {
                let alone = message["spectators"] == 1;
                states.push(message);
                if alone {
                    return states;
                }
            }
        }
    });

    // Alice offers draws and Bob declines them until every stuck queue has overflowed.
    // How long that takes is the kernel's socket buffers filling at the pace of these
    // round trips: 35 s alone, over 60 s with the whole suite on a busy machine. The
    // bound only keeps a stuck test from running for ever.
    let started = Instant::now();
    let mut offers = 0;
    while dropped_so_far(&server).await < STUCK as u64 {
        assert!(
            started.elapsed() < ALL_DROPPED,
            "only {} of {STUCK} stuck spectators dropped after {offers} offers",
            dropped_so_far(&server).await
        );
        for _ in 0..50 {
            alice
                .send(json!({"type": "offer_draw", "room": room}))
                .await;
            bob.until_state(|s| s["draw_offer"] == 0).await;
            bob.send(json!({"type": "decline_draw", "room": room}))
                .await;
            bob.until_state(|s| s["draw_offer"].is_null()).await;
            offers += 1;
        }
    }
    let states = reading.await.unwrap();
    let took = started.elapsed();
    eprintln!("{STUCK} stuck spectators dropped after {offers} offers, in {took:?}");

    assert_eq!(
        dropped_so_far(&server).await,
        STUCK as u64,
        "each dropped once"
    );
    // States that announce nothing but the audience: neither an offer nor its refusal.
    let audience_only = states
        .windows(2)
        .filter(|pair| pair[0]["draw_offer"] == pair[1]["draw_offer"])
        .count();
    let paced = took.as_secs() as usize + 2;
    assert!(
        audience_only <= paced,
        "{audience_only} audience states for {STUCK} drops in {took:?} (at most {paced})"
    );
    let last = states.last().unwrap();
    assert_eq!(last["spectators"], 1, "only the reader is left: {last}");
    drop(stuck);
    server.stop().await;
}
