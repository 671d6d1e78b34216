//! Every error code is produced by a real bad message; each leaves the room unchanged
//! and the socket working. Only an oversized frame closes the socket (code 1009).

use crate::common::{
    PATIENCE, TestServer, close_reason, masked_frame, read_close, read_frame, temp_dir, test_config,
};
use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use sqlx::Connection;
use tokio::io::AsyncWriteExt;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{CloseCode, Data, OpCode};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_code_in_order_and_the_socket_keeps_working() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;

    // Before hello: the frame-level checks come first, then hello_required.
    let mut alice = server.connect().await;
    alice.send_raw("{not json").await;
    let reply = alice.expect("error").await;
    assert_eq!(reply["code"], "bad_json");
    assert!(reply.get("ref").is_none());
    alice
        .expect_error_unchecked(json!({"type": "dance"}), "unknown_type")
        .await;
    alice
        .expect_error_unchecked(json!({"type": "move", "room": "r"}), "bad_message")
        .await;
    alice
        .expect_error_unchecked(
            json!({"type": "join", "room": "r", "seat": "zero"}),
            "bad_message",
        )
        .await;
    alice.send_raw("[1, 2]").await;
    assert_eq!(alice.expect("error").await["code"], "bad_message");
    alice
        .ws
        .send(Message::binary(vec![1u8, 2, 3]))
        .await
        .unwrap();
    assert_eq!(alice.expect("error").await["code"], "bad_message");
    alice
        .expect_error(json!({"type": "list_rooms"}), "hello_required")
        .await;
    alice
        .expect_error(
            json!({"type": "move", "room": "nope", "move": "4"}),
            "hello_required",
        )
        .await;
    alice
        .expect_error(json!({"type": "hello", "name": "   "}), "bad_name")
        .await;
    alice
        .expect_error(json!({"type": "hello", "name": "a\u{7}b"}), "bad_name")
        .await;
    alice
        .expect_error(json!({"type": "hello", "name": "x".repeat(25)}), "bad_name")
        .await;
    let welcome = alice.hello("Alice", None).await;
    assert_eq!(welcome["protocol"], 1);
    alice
        .expect_error(
            json!({"type": "hello", "name": "Alice"}),
            "already_identified",
        )
        .await;

    let mut other = server.connect().await;
    other
        .expect_error(json!({"type": "hello", "name": "ALICE"}), "name_taken")
        .await;
    let mut bob = other;
    bob.hello("Bob", None).await;

    // Room creation: game, then seats, then options.
    alice
        .expect_error_unchecked(
            json!({"type": "create_room", "game": "go", "seats": ["me", "open"]}),
            "unknown_game",
        )
        .await;
    alice
        .expect_error_unchecked(
            json!({"type": "create_room", "game": "tictactoe", "seats": ["me", "bot:genius"]}),
            "bad_seat",
        )
        .await;
    alice
        .expect_error(
            json!({"type": "create_room", "game": "tictactoe", "seats": ["me", "me"]}),
            "bad_seat",
        )
        .await;
    alice
        .expect_error_unchecked(
            json!({"type": "create_room", "game": "tictactoe", "seats": ["me"]}),
            "bad_seat",
        )
        .await;
    alice.expect_error_unchecked(json!({"type": "create_room", "game": "tictactoe", "seats": ["me", "open"], "options": {"speed": 2}}), "bad_option").await;
    alice.expect_error_unchecked(json!({"type": "create_room", "game": "tictactoe", "seats": ["me", "open"], "options": {"start": 7}}), "bad_option").await;
    alice.expect_error(json!({"type": "create_room", "game": "tictactoe", "seats": ["me", "open"], "options": {"start": "X........"}}), "bad_option").await;
    assert_eq!(
        server.get_json("/api/rooms").await.1["rooms"],
        json!([]),
        "refused creations made no room"
    );

    let (room, _) = alice.create(["me", "open"]).await;
    alice
        .expect_error(
            json!({"type": "move", "room": "nope", "move": "4"}),
            "unknown_room",
        )
        .await;
    bob.expect_error(
        json!({"type": "move", "room": room, "move": "4"}),
        "not_a_player",
    )
    .await;
    alice
        .expect_error(
            json!({"type": "move", "room": room, "move": "4"}),
            "not_your_turn",
        )
        .await;
    alice
        .expect_error(json!({"type": "resign", "room": room}), "game_not_started")
        .await;
    alice
        .expect_error(
            json!({"type": "join", "room": room, "seat": 1}),
            "already_seated",
        )
        .await;
    alice
        .expect_error_unchecked(json!({"type": "join", "room": room, "seat": 2}), "bad_seat")
        .await;

    bob.join(&room, 1).await;
    let mut carol = server.player("Carol").await;
    carol
        .expect_error(
            json!({"type": "join", "room": room, "seat": 0}),
            "seat_taken",
        )
        .await;
    alice.until_state(|s| s["status"] == "playing").await;
    bob.expect_error(
        json!({"type": "move", "room": room, "move": "4"}),
        "not_your_turn",
    )
    .await;
    alice
        .expect_error(
            json!({"type": "move", "room": room, "move": "centre"}),
            "bad_move",
        )
        .await;
    alice
        .expect_error(
            json!({"type": "move", "room": room, "move": "9"}),
            "bad_move",
        )
        .await;
    alice.play(&room, "4").await;
    bob.until_state(|s| s["moves"] == 1).await;
    bob.expect_error(
        json!({"type": "move", "room": room, "move": "4"}),
        "illegal_move",
    )
    .await;

    // None of that changed the room.
    let (_, state) = server.get_json(&format!("/api/rooms/{room}")).await;
    assert_eq!(state["position"], "....X....");
    assert_eq!(state["to_move"], 1);

    bob.send(json!({"type": "resign", "room": room})).await;
    bob.until("game_over").await;
    alice
        .expect_error(
            json!({"type": "move", "room": room, "move": "0"}),
            "game_finished",
        )
        .await;
    carol
        .expect_error(
            json!({"type": "join", "room": room, "seat": 0}),
            "seat_taken",
        )
        .await;

    // After all of that, every socket still works.
    for client in [&mut alice, &mut bob, &mut carol] {
        client
            .send(json!({"type": "list_rooms", "ref": "still-here"}))
            .await;
        let rooms = client.until("rooms").await;
        assert_eq!(rooms["ref"], "still-here");
        assert_eq!(rooms["rooms"][0]["room"], room);
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_an_oversized_frame_closes_the_socket_with_1009() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut client = server.player("Big").await;
    // Just under the limit: an ordinary message (unknown fields are ignored), answered.
    let padding = "x".repeat(8 * 1024 - 40);
    client
        .send(json!({"type": "list_rooms", "pad": padding}))
        .await;
    client.expect("rooms").await;
    // Over it: closed with 1009.
    client
        .send_raw(&format!("{{\"pad\":\"{}\"}}", "x".repeat(9 * 1024)))
        .await;
    assert_eq!(close_code(&mut client).await, Some(CloseCode::Size));

    // The same for a message sent in fragments that add up to more than the limit.
    let mut client = server.player("Fragments").await;
    let chunk = "y".repeat(3 * 1024);
    let fragments = [
        Frame::message(
            format!("{{\"pad\":\"{chunk}"),
            OpCode::Data(Data::Text),
            false,
        ),
        Frame::message(chunk.clone(), OpCode::Data(Data::Continue), false),
        Frame::message(format!("{chunk}\"}}"), OpCode::Data(Data::Continue), true),
    ];
    for fragment in fragments {
        client.ws.send(Message::Frame(fragment)).await.unwrap();
    }
    assert_eq!(close_code(&mut client).await, Some(CloseCode::Size));
    server.stop().await;
}

/// A raw client (it answers no ping unless told to) of `server` that has said hello.
async fn raw_player(server: &TestServer, name: &str) -> tokio::net::TcpStream {
    let mut socket = server.raw_websocket(None).await;
    let hello = json!({"type": "hello", "name": name}).to_string();
    socket
        .write_all(&masked_frame(0x1, hello.as_bytes()))
        .await
        .unwrap();
    socket
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_connection_is_closed_after_the_timeout() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.server.ping_interval_secs = 1;
    config.server.client_timeout_secs = 2;
    let server = TestServer::start(config).await;
    // It reads what comes, and answers nothing: not even the server's pings.
    let mut quiet = raw_player(&server, "Quiet").await;
    let (code, reason) = read_close(&mut quiet, PATIENCE).await;
    assert_eq!(
        (code, reason.as_str()),
        (1000, "no messages or pongs for too long")
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_keeps_talking_outlives_the_timeout_and_is_closed_once_silent() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.server.ping_interval_secs = 1;
    config.server.client_timeout_secs = 3;
    let server = TestServer::start(config).await;
    // It answers no ping: only what it says keeps it open. It says something each time
    // the server pings (every second, by the server's clock), five times: four seconds
    // and more, so the first deadline passes while it is heard from, and must be moved
    // on, not acted upon.
    let mut chatty = raw_player(&server, "Chatty").await;
    let list_rooms = masked_frame(0x1, json!({"type": "list_rooms"}).to_string().as_bytes());
    let mut pings = 0;
    while pings < 5 {
        let (opcode, payload) = tokio::time::timeout(PATIENCE, read_frame(&mut chatty))
            .await
            .expect("the server pings every second");
        match opcode {
            0x9 => {
                pings += 1;
                chatty.write_all(&list_rooms).await.unwrap();
            }
            0x8 => panic!("closed while talking: {:?}", close_reason(&payload)),
            _ => {}
        }
    }
    // Silent from now on, it is closed for its silence.
    let (code, reason) = read_close(&mut chatty, PATIENCE).await;
    assert_eq!(
        (code, reason.as_str()),
        (1000, "no messages or pongs for too long")
    );
    server.stop().await;
}

/// Reads until the server's close frame and returns its code.
async fn close_code(client: &mut crate::common::Client) -> Option<CloseCode> {
    tokio::time::timeout(PATIENCE, async {
        while let Some(frame) = client.ws.next().await {
            if let Ok(Message::Close(frame)) = frame {
                return frame.map(|f| f.code);
            }
        }
        None
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_the_database_cannot_record_is_refused_and_changes_nothing() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.store.busy_timeout_ms = 100;
    let server = TestServer::start(config).await;
    let ([mut alice, mut bob], room) = server.pair_in_room().await;

    // Another process takes the database's write lock and holds it.
    let url = format!("sqlite://{}", dir.path().join("parlor.db").display());
    let mut locker = sqlx::SqliteConnection::connect(&url).await.unwrap();
    sqlx::query("BEGIN EXCLUSIVE")
        .execute(&mut locker)
        .await
        .unwrap();

    alice
        .expect_error(
            json!({"type": "move", "room": room, "move": "4"}),
            "storage_unavailable",
        )
        .await;
    let (_, state) = server.get_json(&format!("/api/rooms/{room}")).await;
    assert_eq!(state["position"], ".........");
    assert_eq!(state["moves"], 0);
    assert_eq!(state["to_move"], 0);

    // Once the lock is gone the same move goes through.
    sqlx::query("ROLLBACK").execute(&mut locker).await.unwrap();
    alice.play(&room, "4").await;
    let state = bob.until_state(|s| s["moves"] == 1).await;
    assert_eq!(state["position"], "....X....");
    server.stop().await;
}
