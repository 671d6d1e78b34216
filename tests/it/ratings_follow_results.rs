//! Glicko-2 ratings move with results of games between people, show on seats, survive
//! in the store, and make a leaderboard of their own that marks provisional ratings;
//! games against bots are not rated, and their scores say whom they were earned against.

use crate::common::{TestServer, play_alternately, temp_dir};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_win_raises_the_winner_and_lowers_the_loser() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let (mut players, room) = server.pair_in_room().await;
    play_alternately(&mut players, &room, &["0", "3", "1", "4", "2"]).await;
    let over = players[0].until("game_over").await;
    let [alice, bob] = [&over["scores"][0], &over["scores"][1]];
    assert_eq!(alice["rating_before"], 1500);
    assert!(alice["rating_after"].as_i64() > Some(1500), "{over}");
    assert!(bob["rating_after"].as_i64() < Some(1500), "{over}");

    // The stored game keeps both seats' ratings before and after it.
    let (status, stored) = server
        .get_json(&format!("/api/games/{}", over["game_id"].as_str().unwrap()))
        .await;
    assert_eq!(status, 200);
    for seat in 0..2 {
        let (live, kept) = (&over["scores"][seat], &stored["seats"][seat]);
        assert_eq!(kept["rating_before"], live["rating_before"], "{stored}");
        assert_eq!(kept["rating_after"], live["rating_after"], "{stored}");
    }

    // The next game shows the new ratings on the seats (rematch: seats swapped).
    let [mut alice_client, mut bob_client] = players;
    alice_client
        .send(json!({"type": "rematch", "room": room}))
        .await;
    bob_client
        .send(json!({"type": "rematch", "room": room}))
        .await;
    let again = alice_client.until_state(|s| s["status"] == "playing").await;
    assert_eq!(again["seats"][1]["rating"], alice["rating_after"]);
    assert_eq!(again["seats"][0]["rating"], bob["rating_after"]);

    let (status, board) = server
        .get_json("/api/leaderboard?game=tictactoe&by=rating")
        .await;
    assert_eq!(status, 200);
    assert_eq!(board["by"], "rating");
    assert_eq!(board["entries"][0]["name"], "Alice");
    assert_eq!(board["entries"][1]["name"], "Bob");
    assert_eq!(board["entries"][0]["games"], 1);
    assert_eq!(
        board["entries"][0]["provisional"], true,
        "one game leaves the deviation far above 110: {board}"
    );
    let (status, _) = server
        .get_json("/api/leaderboard?game=tictactoe&by=elo")
        .await;
    assert_eq!(status, 400);
    let (status, _) = server
        .get_json("/api/leaderboard?game=tictactoe&by=rating&opponent=person")
        .await;
    assert_eq!(status, 400, "ratings come from games between people only");

    // Alice's win was over a person: the score says so, on every board that lists it.
    assert_eq!(alice["opponent"], "person", "{over}");
    assert_eq!(bob["opponent"], "person", "{over}");
    let (_, stored) = server
        .get_json(&format!("/api/games/{}", over["game_id"].as_str().unwrap()))
        .await;
    assert_eq!(stored["seats"][0]["opponent"], "person", "{stored}");
    for query in ["", "&opponent=person"] {
        let (status, board) = server
            .get_json(&format!("/api/leaderboard?game=tictactoe{query}"))
            .await;
        assert_eq!(status, 200);
        assert_eq!(board["entries"][0]["name"], "Alice", "{board}");
        assert_eq!(board["entries"][0]["opponent"], "person", "{board}");
    }
    let (_, board) = server
        .get_json("/api/leaderboard?game=tictactoe&opponent=bot:easy")
        .await;
    assert_eq!(board["opponent"], "bot:easy");
    assert_eq!(board["entries"], json!([]), "no score against a bot yet");
    let (status, _) = server
        .get_json("/api/leaderboard?game=tictactoe&opponent=bot:expert")
        .await;
    assert_eq!(status, 400);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_against_bots_are_not_rated_and_their_scores_name_the_bot() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut alice = server.player("Alice").await;
    let start = json!({"start": "7k/8/6K1/8/8/8/8/1Q6 w - - 0 1"});
    let (room, _) = alice
        .create_game("chess", ["me", "bot:random"], start)
        .await;
    alice.play(&room, "b1b8").await;
    let over = alice.until("game_over").await;
    assert_eq!(over["reason"], "checkmate");
    assert_eq!(over["scores"][0]["rating_before"], Value::Null);
    assert_eq!(
        over["unrated"], "from_position",
        "the first reason that applies"
    );

    // Two moves each, then resigned: long enough to rate, but against a bot.
    let (room, snapshot) = alice
        .create_game("tictactoe", ["me", "bot:random"], json!({}))
        .await;
    let snapshot = snapshot.unwrap();
    assert_eq!(
        snapshot["seats"][1]["rating"],
        Value::Null,
        "bots have no rating"
    );
    let mut seen = Some(snapshot);
    for made in [0, 2] {
        let ours = |s: &Value| s["moves"] == made && s["to_move"] == 0;
        let state = match seen.take() {
            Some(state) if ours(&state) => state,
            _ => alice.until_state(ours).await,
        };
        let cell = state["legal_moves"][0].as_str().unwrap().to_owned();
        alice.play(&room, &cell).await;
    }
    alice
        .until_state(|s| s["moves"] == 4 && s["to_move"] == 0)
        .await;
    alice.send(json!({"type": "resign", "room": room})).await;
    let over = alice.until("game_over").await;
    assert_eq!(over["unrated"], "bot_opponent", "{over}");
    for seat in 0..2 {
        assert_eq!(over["scores"][seat]["rating_before"], Value::Null, "{over}");
        assert_eq!(over["scores"][seat]["rating_after"], Value::Null, "{over}");
    }
    assert_eq!(over["scores"][0]["opponent"], "bot:random", "{over}");
    assert_eq!(over["scores"][1]["opponent"], "person", "{over}");
    let game_id = over["game_id"].as_str().unwrap();
    let (_, stored) = server.get_json(&format!("/api/games/{game_id}")).await;
    assert_eq!(stored["seats"][0]["opponent"], "bot:random", "{stored}");
    assert_eq!(stored["seats"][0]["rating_after"], Value::Null, "{stored}");
    let player_id = stored["seats"][0]["player_id"].as_str().unwrap();
    let (_, games) = server
        .get_json(&format!("/api/players/{player_id}/games"))
        .await;
    assert_eq!(games["games"][0]["opponent"], "bot:random", "{games}");
    assert_eq!(games["games"][0]["score"], 0, "a loss scores 0: {games}");

    let (_, board) = server
        .get_json("/api/leaderboard?game=tictactoe&by=rating")
        .await;
    assert_eq!(board["entries"], json!([]), "nobody is rated: {board}");
    server.stop().await;
}
