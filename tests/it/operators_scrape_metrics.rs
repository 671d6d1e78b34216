//! `GET /metrics` reports what the server did, in Prometheus's text format, to the
//! operator only: behind `[admin] metrics_token` when it is set, and on a listener of
//! its own (the main one answering 404) when `server.metrics_bind` is set.

use crate::common::{PATIENCE, TestServer, get_json_at, play_alternately, temp_dir, test_config};
use crate::conformance::check_http_answer;
use crate::process::ParlorProcess;
use crate::waiting::eventually;
use serde_json::{Value, json};

/// The value of the sample whose line starts with `series` (name and labels).
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|value| value.parse().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scrape_counts_connections_moves_errors_rooms_and_broadcasts() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let (mut players, room) = server.pair_in_room().await;
    let mut carol = server.player("Carol").await;
    carol.send(json!({"type": "watch", "room": room})).await;
    carol.until("state").await;

    play_alternately(&mut players, &room, &["0", "3", "1"]).await;
    players[1].until_state(|s| s["moves"] == 3).await;
    players[1]
        .expect_error(
            json!({"type": "move", "room": room, "move": "1"}),
            "illegal_move",
        )
        .await;
    let [mut alice, mut bob] = players;
    bob.play(&room, "4").await;
    alice.until_state(|s| s["moves"] == 4).await;
    alice.play(&room, "2").await;
    carol.until("game_over").await;

    // A room counts what it did once it has sent it: the last move's counters and the
    // room's status are settled a moment after the clients hear of the end.
    let text = eventually("the finished room is counted", PATIENCE, async || {
        let response = reqwest::get(server.url("/metrics")).await.unwrap();
        assert_eq!(response.status(), 200);
        let content_type = response.headers()["content-type"]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(content_type.starts_with("text/plain"), "{content_type}");
        let text = response.text().await.unwrap();
        let finished = sample(
            &text,
            "parlor_rooms{game=\"tictactoe\",status=\"finished\"}",
        );
        if finished == Some(1.0) {
            Ok(text)
        } else {
            Err(format!("{finished:?} finished"))
        }
    })
    .await;

    let value =
        |series: &str| sample(&text, series).unwrap_or_else(|| panic!("no {series} in\n{text}"));
    assert_eq!(value("parlor_connections_open"), 3.0);
    assert_eq!(
        value("parlor_moves_accepted_total{game=\"tictactoe\"}"),
        5.0
    );
    assert_eq!(value("parlor_errors_total{code=\"illegal_move\"}"), 1.0);
    assert_eq!(
        value("parlor_rooms{game=\"tictactoe\",status=\"finished\"}"),
        1.0
    );
    assert_eq!(
        value("parlor_rooms{game=\"tictactoe\",status=\"playing\"}"),
        0.0
    );
    assert_eq!(value("parlor_move_to_broadcast_seconds_count"), 5.0);
    // Every move after the spectator arrived reached all three connections.
    assert!(value("parlor_broadcast_fanout_sum") >= 5.0 * 3.0, "{text}");
    assert!(value("parlor_messages_in_total") >= 10.0, "{text}");
    assert!(value("parlor_messages_out_total") > value("parlor_messages_in_total"));
    assert_eq!(value("parlor_slow_consumers_dropped_total"), 0.0);
    // Every move went through the group commit, in one batch or several, and so did the
    // game's start (a batch of no moves, unless it shared one with moves).
    assert_eq!(value("parlor_store_batch_moves_sum"), 5.0);
    let batches = value("parlor_store_batch_moves_count");
    assert!((1.0..=6.0).contains(&batches), "{text}");
    assert_eq!(value("parlor_store_commit_seconds_count"), batches);
    assert!(value("process_resident_memory_bytes") > 0.0, "{text}");

    alice.close().await;
    bob.close().await;
    carol.close().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_metrics_token_a_scrape_without_it_is_refused() {
    let token = "metrics-token-for-the-tests-0123456789";
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.admin.metrics_token = token.to_owned();
    let server = TestServer::start(config).await;
    let refused = async |response: reqwest::Response| {
        let status = response.status().as_u16();
        assert_eq!(response.headers()["www-authenticate"], "Bearer");
        let body: Value = response.json().await.unwrap();
        check_http_answer("GET", "/metrics", status, &body);
        assert_eq!(status, 401, "{body}");
        assert_eq!(body["error"]["code"], "unauthorized", "{body}");
    };
    refused(reqwest::get(server.url("/metrics")).await.unwrap()).await;
    refused(
        server
            .get_with_authorization("/metrics", "Bearer not-the-token")
            .await,
    )
    .await;
    let scraped = server
        .get_with_authorization("/metrics", &format!("Bearer {token}"))
        .await;
    assert_eq!(scraped.status(), 200);
    let text = scraped.text().await.unwrap();
    assert!(text.contains("parlor_connections_open"), "{text}");
    // The rest of the API asks for no token.
    let (status, body) = server.get_json("/healthz").await;
    assert_eq!(status, 200, "{body}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_metrics_listener_the_metrics_are_served_there_only() {
    let dir = temp_dir();
    let parlor = ParlorProcess::start(
        dir.path(),
        &[("PARLOR_SERVER__METRICS_BIND", "127.0.0.1:0")],
    );
    let line = parlor
        .logged("serving the metrics on http://", PATIENCE)
        .await;
    let metrics_address = line
        .split("serving the metrics on http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap()
        .to_owned();
    let scraped = reqwest::get(format!("http://{metrics_address}/metrics"))
        .await
        .unwrap();
    assert_eq!(scraped.status(), 200);
    let text = scraped.text().await.unwrap();
    assert!(text.contains("parlor_store_up"), "{text}");
    // The main listener has no /metrics, and the metrics' listener nothing else.
    let (status, body) = get_json_at(&parlor.address, "/metrics").await;
    assert_eq!(status, 404, "{body}");
    let elsewhere = reqwest::get(format!("http://{metrics_address}/healthz"))
        .await
        .unwrap();
    assert_eq!(elsewhere.status(), 404);
    let (status, body) = get_json_at(&parlor.address, "/healthz").await;
    assert_eq!(status, 200, "{body}");
    parlor.kill();
}
