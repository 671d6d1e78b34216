//! `GET /metrics` reports what the server did, in Prometheus's text format.

use crate::common::{PATIENCE, TestServer, play_alternately, temp_dir};
use crate::waiting::eventually;
use serde_json::json;

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
