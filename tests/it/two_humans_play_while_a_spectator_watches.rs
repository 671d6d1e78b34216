//! Two humans play tic-tac-toe to the end, once to a win and once to a draw, while a
//! spectator sees every state with `seq` rising by exactly one.

use crate::common::{Client, TestServer, play_alternately, temp_dir};
use serde_json::{Value, json};

/// Collects the spectator's states up to `game_over`, checking that `seq` rises by one.
async fn watch_to_the_end(spectator: &mut Client, first_seq: u64) -> (Vec<Value>, Value) {
    let mut seq = first_seq;
    let mut states = Vec::new();
    loop {
        let message = spectator.recv().await;
        match message["type"].as_str() {
            Some("state") => {
                seq += 1;
                assert_eq!(
                    message["seq"],
                    json!(seq),
                    "spectator skipped a state: {message}"
                );
                assert!(message.get("history").is_none());
                assert!(message.get("history_display").is_none());
                states.push(message);
            }
            Some("game_over") => {
                assert_eq!(
                    message["seq"],
                    json!(seq),
                    "game_over names the finishing state"
                );
                return (states, message);
            }
            _ => panic!("unexpected message {message}"),
        }
    }
}

/// The spectator's states are Bob's arrival (the game starts) and then one per move;
/// returns the moves in the order seen.
fn moves_seen(states: &[Value]) -> Vec<&str> {
    assert_eq!(states[0]["status"], "playing");
    assert_eq!(states[0]["moves"], 0);
    assert_eq!(states[0]["seats"][1]["name"], "Bob");
    states[1..]
        .iter()
        .enumerate()
        .map(|(ply, state)| {
            assert_eq!(state["moves"], json!(ply + 1));
            state["last_move"]["move"].as_str().unwrap()
        })
        .collect()
}

async fn room_with_spectator(server: &TestServer) -> ([Client; 2], Client, String, u64) {
    let mut alice = server.player("Alice").await;
    let (room, snapshot) = alice.create(["me", "open"]).await;
    let snapshot = snapshot.unwrap();
    assert_eq!(snapshot["status"], "waiting");
    assert_eq!(snapshot["seats"][0]["name"], "Alice");
    assert_eq!(snapshot["seats"][1]["kind"], "open");
    assert_eq!(snapshot["history"], json!([]));

    let mut carol = server.player("Carol").await;
    carol
        .send(json!({"type": "watch", "room": room, "ref": 1}))
        .await;
    let joined = carol.expect("joined").await;
    assert_eq!(
        joined,
        json!({"type": "joined", "room": room, "seat": null, "role": "spectator", "ref": 1})
    );
    let watched = carol.expect("state").await;
    assert_eq!(watched["spectators"], 1);
    let first_seq = watched["seq"].as_u64().unwrap();

    let mut bob = server.player("Bob").await;
    let bob_view = bob.join(&room, 1).await;
    assert_eq!(bob_view["status"], "playing");
    assert_eq!(bob_view["to_move"], 0);
    assert_eq!(bob_view["legal_moves"].as_array().unwrap().len(), 9);
    ([alice, bob], carol, room, first_seq)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_win_seen_by_everyone() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let (mut players, mut carol, room, first_seq) = room_with_spectator(&server).await;

    play_alternately(&mut players, &room, &["0", "3", "1", "4", "2"]).await;
    let (states, game_over) = watch_to_the_end(&mut carol, first_seq).await;

    let last = states.last().unwrap();
    assert_eq!(last["status"], "finished");
    assert_eq!(
        last["result"],
        json!({"winner": 0, "reason": "three_in_a_row"})
    );
    assert_eq!(last["position"], "XXXOO....");
    assert_eq!(last["legal_moves"], json!([]));
    assert_eq!(last["to_move"], Value::Null);
    assert_eq!(
        last["last_move"],
        json!({"seat": 0, "move": "2", "display": "2"})
    );
    assert_eq!(last["moves"], 5);
    assert_eq!(moves_seen(&states), ["0", "3", "1", "4", "2"]);

    assert_eq!(game_over["winner"], 0);
    assert_eq!(game_over["reason"], "three_in_a_row");
    let alice_score = game_over["scores"][0]["score"].as_u64().unwrap();
    // (11 - 5) * 100 plus a time score of at most 99.
    assert!((600..=699).contains(&alice_score), "{game_over}");
    let bob = &game_over["scores"][1];
    assert_eq!(
        (&bob["seat"], &bob["name"], &bob["score"]),
        (&json!(1), &json!("Bob"), &json!(0))
    );
    assert!(
        bob["rating_after"].as_i64() < bob["rating_before"].as_i64(),
        "{game_over}"
    );

    // Both players saw the end too.
    for player in &mut players {
        let over = player.until("game_over").await;
        assert_eq!(over["game_id"], game_over["game_id"]);
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draw_seen_by_everyone() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let (mut players, mut carol, room, first_seq) = room_with_spectator(&server).await;

    play_alternately(
        &mut players,
        &room,
        &["0", "1", "2", "4", "3", "5", "7", "6", "8"],
    )
    .await;
    let (states, game_over) = watch_to_the_end(&mut carol, first_seq).await;

    assert_eq!(
        moves_seen(&states),
        ["0", "1", "2", "4", "3", "5", "7", "6", "8"]
    );
    let last = states.last().unwrap();
    assert_eq!(
        last["result"],
        json!({"winner": null, "reason": "board_full"})
    );
    assert_eq!(last["position"], "XOXXOOOXX");
    assert_eq!(game_over["winner"], Value::Null);
    for seat in 0..2 {
        let score = game_over["scores"][seat]["score"].as_u64().unwrap();
        assert!(
            score <= 99,
            "a draw scores only its time score: {game_over}"
        );
    }

    // A late spectator gets the whole history in its snapshot.
    let mut dave = server.player("Dave").await;
    dave.send(json!({"type": "watch", "room": room})).await;
    dave.expect("joined").await;
    let snapshot = dave.expect("state").await;
    assert_eq!(
        snapshot["history"],
        json!(["0", "1", "2", "4", "3", "5", "7", "6", "8"])
    );
    assert_eq!(snapshot["status"], "finished");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_creator_sits_where_me_is() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut bob = server.player("Bob").await;
    bob.send(json!({"type": "create_room", "game": "tictactoe", "seats": ["open", "me"]}))
        .await;
    bob.expect("room_created").await;
    assert_eq!(bob.expect("joined").await["seat"], 1);
    let snapshot = bob.expect("state").await;
    assert_eq!(snapshot["seats"][0]["kind"], "open");
    assert_eq!(snapshot["seats"][1]["name"], "Bob");
    server.stop().await;
}
