//! A room's two chats over real sockets: the players hear only the players' chat and
//! the spectators only theirs; a newcomer is given what was said in its own chat; bad
//! lines, strangers and floods are refused with the socket kept open; and every line is
//! stored with its game, the players' lines shown to the players alone.

use crate::common::{Client, TestServer, stored_chat, temp_dir, test_config};
use serde_json::{Value, json};

/// Says `text` in `room` and returns the `chat` that brings it back to the speaker.
async fn say(client: &mut Client, room: &str, text: &str) -> Value {
    client
        .send(json!({"type": "chat", "room": room, "text": text}))
        .await;
    client.until("chat").await
}

/// The texts of a `chat` message's lines.
fn texts(chat: &Value) -> Vec<&str> {
    chat["lines"]
        .as_array()
        .map(|lines| lines.iter().filter_map(|l| l["text"].as_str()).collect())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_and_spectators_each_hear_only_their_own_chat_and_it_is_stored() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.limits.chat_lines_per_minute = 12;
    config.limits.chat_burst = 3;
    let server = TestServer::start(config).await;

    let mut alice = server.connect().await;
    let alice_token = alice.hello("Alice", None).await["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let (room, _) = alice.create(["me", "open"]).await;
    let chat = |text: &str| json!({"type": "chat", "room": room, "text": text});
    alice
        .expect_error(chat("anyone?"), "game_not_started")
        .await;

    let mut bob = server.player("Bob").await;
    bob.join(&room, 1).await;
    let mut carol = server.connect().await;
    let carol_token = carol.hello("Carol", None).await["token"]
        .as_str()
        .unwrap()
        .to_owned();
    carol.send(json!({"type": "watch", "room": room})).await;
    carol.until("joined").await;
    let mut erin = server.player("Erin").await;
    erin.expect_error(chat("hello?"), "not_in_room").await;

    // The players' chat reaches both players, as one line each time.
    let said = say(&mut alice, &room, "  Good luck!  ").await;
    assert_eq!(said["channel"], "players");
    assert_eq!(texts(&said), ["Good luck!"], "trimmed");
    let line = &said["lines"][0];
    assert_eq!(
        (line["name"].as_str(), line["ply"].as_u64()),
        (Some("Alice"), Some(0))
    );
    let heard = bob.until("chat").await;
    assert_eq!(
        (heard["channel"].as_str(), texts(&heard)),
        (Some("players"), vec!["Good luck!"])
    );

    // Carol's first chat message is her own line: Alice's never reached her.
    let own = say(&mut carol, &room, "This will be close").await;
    assert_eq!(
        (own["channel"].as_str(), texts(&own)),
        (Some("spectators"), vec!["This will be close"])
    );
    // And Carol's never reaches the players: Bob's next chat message is Alice's next line.
    say(&mut alice, &room, "You too?").await;
    let next = bob.until("chat").await;
    assert_eq!(texts(&next), ["You too?"]);

    // A newcomer is given what was said so far in its own chat, after its state.
    let mut dave = server.player("Dave").await;
    dave.send(json!({"type": "watch", "room": room})).await;
    dave.until("joined").await;
    dave.expect("state").await;
    let history = dave.expect("chat").await;
    assert_eq!(
        (history["channel"].as_str(), texts(&history)),
        (Some("spectators"), vec!["This will be close"])
    );

    // Bad lines are refused by name (each takes from the budget, as any line), and the
    // socket stays open.
    dave.expect_error(chat(&"x".repeat(141)), "bad_chat").await;
    dave.expect_error(chat("two\nlines"), "bad_chat").await;
    dave.expect_error(chat("   "), "bad_chat").await;
    dave.expect_error(chat("and now?"), "rate_limited").await;

    // Three lines at once, then the fourth waits for the budget.
    for n in 1..=3 {
        say(&mut bob, &room, &format!("line {n}")).await;
    }
    bob.expect_error(chat("line 4"), "rate_limited").await;

    // Every line is stored with the game, in order, with its chat; a player reads both.
    let game_id = dave_game_id(&server, &room).await;
    let stored = stored_chat(&server, &game_id, &alice_token, 6).await;
    assert_eq!(
        lines_of(&stored),
        vec![
            ("players", "Alice", "Good luck!"),
            ("spectators", "Carol", "This will be close"),
            ("players", "Alice", "You too?"),
            ("players", "Bob", "line 1"),
            ("players", "Bob", "line 2"),
            ("players", "Bob", "line 3"),
        ]
    );

    // The players' chat stays theirs: anyone else, a spectator with their own token
    // included, reads the spectators' lines only, and is told the players' are withheld.
    let path = format!("/api/games/{game_id}");
    let (status, anyone) = server.get_json(&path).await;
    assert_eq!(status, 200, "{anyone}");
    let spectator: Value = server
        .get_with_authorization(&path, &format!("bearer {carol_token}"))
        .await
        .json()
        .await
        .unwrap();
    for (who, game) in [("anyone", &anyone), ("Carol", &spectator)] {
        let chat = game["chat"].as_array().cloned().unwrap_or_default();
        assert_eq!(
            lines_of(&chat),
            vec![("spectators", "Carol", "This will be close")],
            "as {who}: {game}"
        );
        assert_eq!(game["players_chat_shown"], false, "as {who}");
    }

    // A token no player holds, or a header that is not `Bearer <token>`, is refused by
    // name rather than read as anyone.
    for authorization in ["Bearer not-a-token", "Basic QWxpY2U6", "Bearer "] {
        let refused = server.get_with_authorization(&path, authorization).await;
        assert_eq!(refused.status().as_u16(), 401, "{authorization}");
        assert_eq!(
            refused
                .headers()
                .get("www-authenticate")
                .map(|v| v.as_bytes()),
            Some(&b"Bearer"[..])
        );
        let body: Value = refused.json().await.unwrap();
        assert_eq!(body["error"]["code"], "unauthorized", "{body}");
    }
    server.stop().await;
}

/// Each stored line as (channel, name, text).
fn lines_of(stored: &[Value]) -> Vec<(&str, &str, &str)> {
    stored
        .iter()
        .map(|l| {
            (
                l["channel"].as_str().unwrap_or(""),
                l["name"].as_str().unwrap_or(""),
                l["text"].as_str().unwrap_or(""),
            )
        })
        .collect()
}

/// The id of the game in `room`, from its state over HTTP.
async fn dave_game_id(server: &TestServer, room: &str) -> String {
    let (status, state) = server.get_json(&format!("/api/rooms/{room}")).await;
    assert_eq!(status, 200, "{state}");
    state["game_id"].as_str().unwrap().to_owned()
}
