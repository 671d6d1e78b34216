//! With `options.takeover`, a player who stays away past the reconnect grace has a bot
//! play for them instead of losing; coming back with the token gives the seat back.

use crate::common::{TestServer, temp_dir};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_plays_for_an_absent_player_and_hands_the_seat_back() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await; // grace: 1 s
    let mut alice = server.player("Alice").await;
    let mut bob = server.connect().await;
    let welcome = bob.hello("Bob", None).await;
    let token = welcome["token"].as_str().unwrap().to_owned();
    let bob_id = welcome["player_id"].clone();
    let (room, _) = alice
        .create_game("tictactoe", ["me", "open"], json!({"takeover": "random"}))
        .await;
    bob.join(&room, 1).await;
    alice.play(&room, "4").await;
    bob.until_state(|s| s["moves"] == 1).await;
    bob.close().await;

    // After the grace a bot sits in for Bob, says so, and makes his move.
    let taken = alice
        .until_state(|s| s["seats"][1]["kind"] != "human")
        .await;
    assert_eq!(taken["seats"][1]["kind"], "bot:random");
    assert_eq!(
        taken["seats"][1]["stand_in_for"],
        json!({"player_id": bob_id, "name": "Bob"})
    );
    assert_eq!(taken["status"], "playing");
    let replied = alice.until_state(|s| s["moves"] == 2).await;
    assert_eq!(replied["last_move"]["seat"], 1);

    // Bob comes back while it is Alice's turn: the seat is his again at once.
    let mut bob = server.connect().await;
    bob.hello("Bob", Some(&token)).await;
    let snapshot = bob.join(&room, 1).await;
    assert_eq!(snapshot["seats"][1]["kind"], "human");
    assert_eq!(snapshot["seats"][1]["player_id"], bob_id);
    assert!(snapshot["seats"][1].get("stand_in_for").is_none());
    let back = alice
        .until_state(|s| s["seats"][1]["kind"] == "human")
        .await;
    assert_eq!(back["seats"][1]["connected"], true);

    // From his next turn on he plays himself; the bot no longer does.
    let mv = back["legal_moves"][0].as_str().unwrap().to_owned();
    alice.play(&room, &mv).await;
    let turn = bob.until_state(|s| s["moves"] == 3).await;
    assert_eq!(turn["to_move"], 1);
    let mine = turn["legal_moves"][0].as_str().unwrap().to_owned();
    bob.play(&room, &mine).await;
    let state = alice.until_state(|s| s["moves"] == 4).await;
    assert_eq!(state["last_move"]["seat"], 1);
    assert_eq!(state["last_move"]["move"], mine.as_str());

    // Alice resigns: Bob wins, but a seat a bot played for is not scored.
    alice.send(json!({"type": "resign", "room": room})).await;
    let over = bob.until("game_over").await;
    assert_eq!(over["winner"], 1);
    assert_eq!(over["scores"][1]["score"], Value::Null);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_takeover_option_is_refused() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut alice = server.player("Alice").await;
    for takeover in [json!("genius"), json!(3), json!(null)] {
        let request = json!({"type": "create_room", "game": "chess", "seats": ["me", "open"], "options": {"takeover": takeover}});
        alice.expect_error_unchecked(request, "bad_option").await;
    }
    server.stop().await;
}
