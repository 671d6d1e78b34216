//! What the server does with clients that misbehave below the protocol's messages: a
//! socket that never says `hello`, text that is not UTF-8, a frame header announcing
//! 2^62 bytes, a client that stops reading, and pages from a foreign origin.

use std::time::{Duration, Instant};

use crate::common::{PATIENCE, TestServer, masked_frame, read_close, temp_dir, test_config};
use crate::waiting::eventually;
use futures_util::SinkExt;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::Message;

#[tokio::test]
async fn a_socket_that_never_says_hello_is_closed_though_it_answers_pings() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.server.hello_timeout_secs = 2;
    config.server.ping_interval_secs = 1;
    let server = TestServer::start(config).await;
    // Taken before connecting: the server's 2 s run from a moment after this.
    let opened = Instant::now();
    let mut silent = server.connect().await;
    let mut talker = server.player("Talker").await;
    // Reading answers the server's pings (tungstenite does so by itself).
    let (code, reason) = silent.closed_with(PATIENCE).await;
    assert_eq!(code, 1008, "{reason}");
    assert!(reason.contains("hello"), "{reason}");
    // Not closed at once: only when the hello timeout ran out, pings answered or not.
    // (A lower bound: a slow machine only makes it longer.)
    assert!(
        opened.elapsed() >= Duration::from_secs(2),
        "{:?}",
        opened.elapsed()
    );
    // A connection that said hello is not affected.
    talker.send(json!({"type": "list_rooms"})).await;
    talker.expect("rooms").await;
    server.stop().await;
}

#[tokio::test]
async fn text_that_is_not_utf8_closes_with_1007() {
    let server = TestServer::in_dir(temp_dir().path()).await;
    let mut socket = server.raw_websocket(None).await;
    socket
        .write_all(&masked_frame(0x1, &[b'{', 0xff, 0xfe, b'}']))
        .await
        .unwrap();
    let (code, reason) = read_close(&mut socket, PATIENCE).await;
    assert_eq!(code, 1007, "{reason}");
    assert!(reason.contains("UTF-8"), "{reason}");
    server.stop().await;
}

#[tokio::test]
async fn a_header_announcing_2_62_bytes_closes_at_once_with_1009() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut socket = server.raw_websocket(None).await;
    let mut header = vec![0x81, 0x80 | 127];
    header.extend_from_slice(&(1u64 << 62).to_be_bytes());
    header.extend_from_slice(&[1, 2, 3, 4]);
    socket.write_all(&header).await.unwrap();
    // Closed by the header alone, without waiting for the bytes it announced: with
    // 1009 and the frame limit as the reason (had the server waited, only the 45 s
    // idle timeout would have closed it, with another code).
    let (code, reason) = read_close(&mut socket, PATIENCE).await;
    assert_eq!(code, 1009, "{reason}");
    assert!(reason.contains("8192"), "{reason}");
    server.stop().await;
}

/// Waits until the server counts `count` open connections; fails after `patience`.
async fn connections_open(server: &TestServer, count: f64, patience: Duration) {
    let what = format!("{count} connections open");
    eventually(&what, patience, async || {
        let open = server.metric("parlor_connections_open").await;
        if open == count {
            Ok(())
        } else {
            Err(format!("{open} open"))
        }
    })
    .await;
}

/// A server with a hundred listed rooms (so that every room list is tens of kilobytes)
/// and a 2 s write timeout, and a raw client that says hello, asks for `requests` room
/// lists and reads none of them. Checks that the server drops the client and closes
/// its socket, and returns how the socket ended.
async fn stop_reading_after(requests: usize) -> &'static str {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.server.write_timeout_secs = 2;
    config.limits = parlor::config::LimitsConfig::unlimited();
    let server = TestServer::start(config).await;
    let mut host = server.player("Host").await;
    for _ in 0..100 {
        host.send(json!({"type": "create_room", "game": "chess", "seats": ["open", "open"]}))
            .await;
        host.until("room_created").await;
    }

    let mut reader = server.raw_websocket(Some(4096)).await;
    reader
        .write_all(&masked_frame(0x1, br#"{"type":"hello","name":"Sloth"}"#))
        .await
        .unwrap();
    // The session counts itself once it runs, which may be just after the upgrade's
    // answer reached us: wait for the count rather than race it.
    connections_open(&server, 2.0, PATIENCE).await;
    let request = masked_frame(0x1, br#"{"type":"list_rooms"}"#);
    let flood: Vec<u8> = request
        .iter()
        .copied()
        .cycle()
        .take(request.len() * requests)
        .collect();
    // Written until the server stops taking them: a write that can never finish is
    // given up after 5 s (what happens next is waited for below).
    let _ = tokio::time::timeout(Duration::from_secs(5), reader.write_all(&flood)).await;

    // The server gives up on it: the connection is no longer counted...
    connections_open(&server, 1.0, Duration::from_secs(60)).await;
    // ...and its socket is closed: reading ends (EOF or reset) instead of hanging.
    let drained = tokio::time::timeout(Duration::from_secs(10), async {
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            match reader.read(&mut buffer).await {
                Ok(0) => return "eof",
                Ok(_) => {}
                Err(error) if error.kind() == std::io::ErrorKind::ConnectionReset => {
                    return "reset";
                }
                Err(error) => panic!("unexpected read error: {error}"),
            }
        }
    })
    .await
    .expect("the socket was left open");
    assert_eq!(
        server.metric("parlor_slow_consumers_dropped_total").await,
        1.0,
        "the drop is counted once"
    );
    // The rest of the server is unaffected.
    host.send(json!({"type": "list_rooms"})).await;
    host.until("rooms").await;
    server.stop().await;
    drained
}

#[tokio::test]
async fn a_client_that_stops_reading_is_dropped_when_a_write_stalls() {
    // Enough unread replies to fill the socket's buffers: the next write waits until
    // the write timeout.
    let ended = stop_reading_after(200).await;
    eprintln!("the stalled socket ended with {ended}");
}

#[tokio::test]
async fn a_client_that_floods_requests_and_never_reads_is_dropped() {
    // Far more requests than their replies can wait for: the session stops reading them
    // while a write waits, and gives up on the client when that write stalls.
    let ended = stop_reading_after(3000).await;
    eprintln!("the stalled socket ended with {ended}");
}

#[tokio::test]
async fn pages_from_a_foreign_origin_are_refused_with_403() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.server.allowed_origins = vec!["https://play.example.com".to_owned()];
    let server = TestServer::start(config).await;
    let own = format!("http://{}", server.addr);
    let port = server.addr.port();
    for (i, allowed) in [
        own.clone(),
        format!("http://localhost:{port}"),
        "http://127.0.0.1:3000".to_owned(),
        "http://[::1]:8080".to_owned(),
        "https://play.example.com".to_owned(),
    ]
    .into_iter()
    .enumerate()
    {
        let mut client = server
            .connect_with(&[("Origin", &allowed)])
            .await
            .unwrap_or_else(|refused| panic!("{allowed} was refused: {refused:?}"));
        client.hello(&format!("Page{i}"), None).await;
    }
    server
        .connect_with(&[])
        .await
        .expect("no Origin: not a browser");
    for foreign in [
        "http://evil.example",
        "null",
        "https://play.example.com.evil.example",
    ] {
        let (status, body) = match server.connect_with(&[("Origin", foreign)]).await {
            Ok(_) => panic!("{foreign} was accepted"),
            Err(refused) => refused,
        };
        assert_eq!(status, 403, "{foreign}: {body}");
        assert_eq!(body["error"]["code"], "origin_not_allowed", "{body}");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("allowed_origins")
        );
    }
    server.stop().await;

    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.server.allowed_origins = vec!["*".to_owned()];
    let open = TestServer::start(config).await;
    open.connect_with(&[("Origin", "http://evil.example")])
        .await
        .expect("\"*\" allows any origin");
    open.stop().await;
}

#[tokio::test]
async fn pings_answered_and_binary_frames_refused_as_before() {
    let server = TestServer::in_dir(temp_dir().path()).await;
    let mut client = server.player("Binary").await;
    client.ws.send(Message::Ping(vec![7].into())).await.unwrap();
    client
        .ws
        .send(Message::Binary(vec![1, 2].into()))
        .await
        .unwrap();
    let reply = client.until("error").await;
    assert_eq!(reply["code"], "bad_message", "{reply}");
    server.stop().await;
}

/// The application-level heartbeat (PROTOCOL.md §6.16): a `ping` is answered with a
/// `pong` carrying its `ref`, before `hello` as after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ping_message_is_answered_before_and_after_hello() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut client = server.connect().await;
    client.send(json!({"type": "ping", "ref": "hb1"})).await;
    assert_eq!(client.expect("pong").await["ref"], "hb1");
    client.hello("Pinger", None).await;
    client.send(json!({"type": "ping"})).await;
    let pong = client.expect("pong").await;
    assert!(pong.get("ref").is_none(), "{pong}");
    server.stop().await;
}
