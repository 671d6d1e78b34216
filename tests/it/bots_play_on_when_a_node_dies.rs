//! A bot's game on a fleet of two real `parlor` nodes sharing the machine's PostgreSQL
//! (a schema of the test's own) and Redis (a key prefix of its own). A person on node A
//! challenges a bot whose event stream is open on node B: the challenge reaches it
//! there, the bot accepts through node B (the game's room opens there) and the person
//! hears so on node A. The bot streams the game and moves through node A. Node B is
//! killed with SIGKILL: node A adopts the room, the person's WebSocket is put back in it
//! and the bot's open game stream follows it there, going on with no new `gameFull`;
//! the game is played to its end and stored once, every move in order.

use serde_json::{Value, json};

use crate::bot_api_client::{BotClient, LineReader};
use crate::bots_take_challenges::event;
use crate::common::{PATIENCE, client_at, get_json_at, temp_dir};
use crate::fleet::{TestFleet, wait_until_adopted};
use serial_test::serial;

/// The stream's lines until one whose `moves` are `moves`, returning it; fails on a
/// second `gameFull` (the stream must go on, not start over).
async fn until_moves(stream: &mut LineReader, moves: &str) -> Value {
    let seen = tokio::time::timeout(PATIENCE, async {
        loop {
            let line = stream.next().await.expect("the game stream stays open");
            assert_ne!(line["type"], "gameFull", "the stream started over: {line}");
            if line["type"] == "gameState" && line["moves"] == moves {
                return line;
            }
        }
    });
    seen.await
        .unwrap_or_else(|_| panic!("the game stream never showed the moves {moves}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn a_bots_game_goes_on_when_its_node_dies() {
    let Some(fleet) = TestFleet::new("a_bots_game_goes_on_when_its_node_dies").await else {
        return;
    };
    let (dir_a, dir_b) = (temp_dir(), temp_dir());
    let node_a = fleet.start_node(dir_a.path());
    let node_b = fleet.start_node(dir_b.path());
    let (url_a, url_b) = (
        format!("http://{}", node_a.address),
        format!("http://{}", node_b.address),
    );

    let (robo_ws, robo_welcome) = client_at(&node_a.address, "Robo", None).await;
    robo_ws.close().await;
    let token = robo_welcome["token"].as_str().unwrap();
    let robo_a = BotClient::new(&url_a, Some(token));
    let robo_b = BotClient::new(&url_b, Some(token));
    for (path, body) in [
        ("/api/bot/account/upgrade", None),
        ("/api/bot/account/games", Some("games=tictactoe")),
    ] {
        let (status, answer) = robo_a.post(path, body).await;
        assert_eq!(status, 200, "{path}: {answer}");
    }

    // The challenge crosses the fleet: made on A, seen and accepted on B.
    let (_, mut events) = robo_b.stream("/api/stream/event").await;
    let (mut alice, _) = client_at(&node_a.address, "Alice", None).await;
    alice
        .send(json!({"type": "challenge", "name": "Robo", "game": "tictactoe", "seat": 0}))
        .await;
    let sent = alice.until("challenge_sent").await;
    let room = sent["challenge"].as_str().unwrap().to_owned();
    let made = event(&mut events, "challenge").await;
    assert_eq!(made["challenge"]["id"], room.as_str(), "{made}");
    let (status, accepted) = robo_b
        .post(&format!("/api/challenge/{room}/accept"), None)
        .await;
    assert_eq!(status, 200, "{accepted}");
    let told = alice.until("challenge_accepted").await;
    assert_eq!(told["room"], room.as_str(), "{told}");
    let started = event(&mut events, "gameStart").await;
    assert_eq!(started["game"]["gameId"], room.as_str(), "{started}");

    // The bot plays through node A, the relay taking it to the room on node B.
    let (status, mut stream) = robo_a.stream(&format!("/api/bot/game/stream/{room}")).await;
    assert_eq!(status, 200);
    let full = stream.next().await.unwrap();
    assert_eq!(full["type"], "gameFull", "{full}");
    let snapshot = alice.join(&room, 0).await;
    let game_id = snapshot["game_id"].as_str().unwrap().to_owned();
    alice.play(&room, "0").await;
    until_moves(&mut stream, "0").await;
    let (status, played) = robo_a
        .post(&format!("/api/bot/game/{room}/move/3"), None)
        .await;
    assert_eq!(status, 200, "{played}");
    until_moves(&mut stream, "0 3").await;

    node_b.kill();
    wait_until_adopted(&node_a.address, &room).await;

    // Alice's connection is put back in the room by itself (`joined`, then its state).
    alice.until("joined").await;
    alice
        .until_state(|state| state["moves"] == 2 && state["to_move"] == 0)
        .await;
    alice.play(&room, "1").await;
    // Seen on the stream opened before the node died: it followed the room.
    until_moves(&mut stream, "0 3 1").await;
    let (status, played) = robo_a
        .post(&format!("/api/bot/game/{room}/move/4"), None)
        .await;
    assert_eq!(status, 200, "{played}");
    alice
        .until_state(|state| state["moves"] == 4 && state["to_move"] == 0)
        .await;
    alice.play(&room, "2").await;
    let last = until_moves(&mut stream, "0 3 1 4 2").await;
    assert_eq!(
        (&last["status"], &last["winner"]),
        (&"variantEnd".into(), &"white".into()),
        "{last}"
    );

    let (_, game) = get_json_at(&node_a.address, &format!("/api/games/{game_id}")).await;
    let stored: Vec<&str> = game["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|mv| mv["notation"].as_str().unwrap())
        .collect();
    assert_eq!(
        stored,
        ["0", "3", "1", "4", "2"],
        "every move, once, in order"
    );
    assert_eq!(game["status"], "finished", "{game}");
    drop(node_a);
}
