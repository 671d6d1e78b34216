//! What one connection or one address may ask for: a message budget (`rate_limited`,
//! then 1008), rooms and new players per minute, open connections per address (HTTP
//! 429, counted by the address a trusted proxy names), and the server's room cap
//! (`server_full`).

use std::time::{Duration, Instant};

use crate::common::{PATIENCE, TestServer, temp_dir, test_config};
use crate::conformance::check_sent;
use crate::waiting::eventually;
use futures_util::SinkExt;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

/// Sends `list_rooms` with refs `0..count` and returns the `ref` of each reply and
/// whether it was refused as `rate_limited`.
async fn list_rooms_burst(
    client: &mut crate::common::Client,
    first: u64,
    count: u64,
) -> Vec<(u64, bool)> {
    for reference in first..first + count {
        client
            .send(json!({"type": "list_rooms", "ref": reference}))
            .await;
    }
    let mut replies = Vec::new();
    for _ in 0..count {
        let reply = client.recv().await;
        let limited = reply["type"] == "error";
        if limited {
            assert_eq!(reply["code"], "rate_limited", "{reply}");
            assert!(
                reply["message"].as_str().unwrap().contains("a second"),
                "{reply}"
            );
        } else {
            assert_eq!(reply["type"], "rooms", "{reply}");
        }
        replies.push((reply["ref"].as_u64().unwrap(), limited));
    }
    replies
}

#[tokio::test]
async fn a_flood_is_refused_message_by_message_then_closed_with_1008() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.limits.messages_per_sec = 2;
    config.limits.messages_burst = 5;
    config.limits.close_after_refusals = 10;
    let server = TestServer::start(config).await;
    // The budget is full when the connection opens, and refills from then on.
    let opened = Instant::now();
    let mut client = server.player("Flood").await;

    // Pings are not messages: a hundred of them leave the budget as it was.
    for _ in 0..100 {
        client.ws.send(Message::Ping(vec![1].into())).await.unwrap();
    }
    // The hello took one of the burst of 5; the next 4 pass, and the rest are refused,
    // each with its own ref, and nothing they asked for is done; unless time enough
    // for more passed meanwhile (two a second: counted, not assumed away).
    let replies = list_rooms_burst(&mut client, 0, 8).await;
    let refilled = (opened.elapsed().as_secs_f64() * 2.0).ceil() as usize;
    let passed: Vec<u64> = replies.iter().filter(|r| !r.1).map(|r| r.0).collect();
    let refused: Vec<u64> = replies.iter().filter(|r| r.1).map(|r| r.0).collect();
    assert!(passed.starts_with(&[0, 1, 2, 3]), "{replies:?}");
    assert!(passed.len() <= 4 + refilled, "{replies:?}");
    assert_eq!(refused.len() + passed.len(), 8, "{replies:?}");

    // The connection stays up, and the budget refills at 2 a second. Not a wait for
    // anything: time passing is what refills it, and a longer stall only refills more.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let replies = list_rooms_burst(&mut client, 100, 1).await;
    assert_eq!(replies, vec![(100, false)]);

    // Ten refusals in a row close it with 1008 (sent at once, far more than the budget
    // could refill meanwhile).
    for reference in 0..100 {
        let frame = json!({"type": "list_rooms", "ref": reference});
        check_sent(&frame);
        if client
            .ws
            .send(Message::text(frame.to_string()))
            .await
            .is_err()
        {
            break;
        }
    }
    let (code, reason) = client.closed_with(PATIENCE).await;
    assert_eq!(code, 1008, "{reason}");
    assert!(reason.contains("too many messages"), "{reason}");
    server.stop().await;
}

#[tokio::test]
async fn rooms_per_minute_are_limited_per_connection_and_per_address() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.limits.rooms_per_minute_per_connection = 2;
    config.limits.rooms_per_minute_per_ip = 3;
    let server = TestServer::start(config).await;
    let create = json!({"type": "create_room", "game": "tictactoe", "seats": ["open", "open"]});

    let mut ann = server.player("Ann").await;
    for _ in 0..2 {
        ann.send(create.clone()).await;
        ann.until("room_created").await;
    }
    ann.expect_error(create.clone(), "rate_limited").await;

    let mut ben = server.player("Ben").await;
    ben.send(create.clone()).await;
    ben.until("room_created").await;
    ben.expect_error(create.clone(), "rate_limited").await;
    // quick_join with nobody waiting would create a room: refused the same way.
    ben.expect_error(
        json!({"type": "quick_join", "game": "chess"}),
        "rate_limited",
    )
    .await;

    let (_, rooms) = server.get_json("/api/rooms").await;
    assert_eq!(rooms["rooms"].as_array().unwrap().len(), 3, "{rooms}");
    server.stop().await;
}

#[tokio::test]
async fn new_players_per_minute_are_limited_per_address_but_returning_players_never() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.limits.players_per_minute_per_ip = 2;
    let server = TestServer::start(config).await;

    let mut first = server.connect().await;
    let welcome = first.hello("First", None).await;
    let token = welcome["token"].as_str().unwrap().to_owned();
    server.player("Second").await;

    let mut third = server.connect().await;
    third
        .expect_error(json!({"type": "hello", "name": "Third"}), "rate_limited")
        .await;
    // Still connected, and a known token is always welcome.
    let again = third.hello("First", Some(&token)).await;
    assert_eq!(again["player_id"], welcome["player_id"]);
    for _ in 0..5 {
        let mut returning = server.connect().await;
        returning.hello("First", Some(&token)).await;
    }
    server.stop().await;
}

#[tokio::test]
async fn the_server_refuses_rooms_past_its_cap_with_server_full() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.limits.max_rooms = 2;
    let server = TestServer::start(config).await;
    let mut ann = server.player("Ann").await;
    let create = json!({"type": "create_room", "game": "checkers", "seats": ["open", "open"]});
    for _ in 0..2 {
        ann.send(create.clone()).await;
        ann.until("room_created").await;
    }
    ann.expect_error(create.clone(), "server_full").await;
    ann.expect_error(
        json!({"type": "quick_join", "game": "chess"}),
        "server_full",
    )
    .await;
    server.stop().await;
}

/// Expects the upgrade to be refused with 429 and the JSON error body.
fn assert_refused(result: Result<crate::common::Client, (u16, Value)>) {
    match result {
        Ok(_) => panic!("the upgrade was accepted"),
        Err((status, body)) => {
            assert_eq!(status, 429, "{body}");
            assert_eq!(body["error"]["code"], "rate_limited", "{body}");
            assert!(
                body["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("connections open"),
                "{body}"
            );
        }
    }
}

#[tokio::test]
async fn connections_per_address_are_capped_and_freed_when_one_closes() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.limits.connections_per_ip = 3;
    let server = TestServer::start(config).await;
    let mut open = Vec::new();
    for _ in 0..3 {
        open.push(server.connect_with(&[]).await.unwrap());
    }
    assert_refused(server.connect_with(&[]).await);
    open.pop().unwrap().close().await;
    let what = "the closed connection's place is freed";
    let client = eventually(what, PATIENCE, async || {
        server
            .connect_with(&[])
            .await
            .map_err(|refused| format!("{refused:?}"))
    })
    .await;
    open.push(client);
    server.stop().await;
}

#[tokio::test]
async fn forwarded_addresses_count_only_from_a_trusted_proxy() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.limits.connections_per_ip = 1;
    let untrusted = TestServer::start(config.clone()).await;
    let _first = untrusted
        .connect_with(&[("X-Forwarded-For", "203.0.113.1")])
        .await
        .unwrap();
    // From an untrusted peer the header is ignored: both are 127.0.0.1.
    assert_refused(
        untrusted
            .connect_with(&[("X-Forwarded-For", "203.0.113.2")])
            .await,
    );
    untrusted.stop().await;

    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.limits.connections_per_ip = 1;
    config.server.trusted_proxies = vec!["127.0.0.1".parse().unwrap()];
    let proxied = TestServer::start(config).await;
    let _one = proxied
        .connect_with(&[("X-Forwarded-For", "203.0.113.1, 127.0.0.1")])
        .await
        .unwrap();
    let _two = proxied
        .connect_with(&[("Forwarded", "for=203.0.113.2;proto=http")])
        .await
        .unwrap();
    assert_refused(
        proxied
            .connect_with(&[("X-Forwarded-For", "203.0.113.1")])
            .await,
    );
    proxied.stop().await;
}
