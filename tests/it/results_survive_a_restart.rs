//! A finished game is on the leaderboard and in `/api/games/{id}` after the server is
//! stopped and started again on the same database file; a game cut off by the restart
//! is still `playing` (resumed: see `games_outlive_the_process`).

use crate::common::{TestServer, play_alternately, temp_dir};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_leaderboard_and_game_records_survive_a_restart() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let (mut players, room) = server.pair_in_room().await;
    play_alternately(&mut players, &room, &["0", "3", "1", "4", "2"]).await;
    let [mut alice, mut bob] = players;
    let over = alice.until("game_over").await;
    let game_id = over["game_id"].as_str().unwrap().to_owned();
    let score = over["scores"][0]["score"].clone();

    // A second game is left unfinished when the server stops.
    let (unfinished_room, _) = alice.create(["me", "open"]).await;
    bob.join(&unfinished_room, 1).await;
    let playing = alice.until_state(|s| s["status"] == "playing").await;
    let unfinished = playing["game_id"].as_str().unwrap().to_owned();

    let shutdown_notice = tokio::spawn(async move { alice.until("shutdown").await });
    server.stop().await;
    assert_eq!(shutdown_notice.await.unwrap()["reason"], "restarting");

    let server = TestServer::in_dir(dir.path()).await;
    let (status, board) = server
        .get_json("/api/leaderboard?game=tictactoe&limit=5")
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        board["entries"].as_array().unwrap().len(),
        1,
        "losses are not listed: {board}"
    );
    assert_eq!(board["entries"][0]["name"], "Alice");
    assert_eq!(board["entries"][0]["score"], score);
    assert_eq!(board["entries"][0]["rank"], 1);
    assert_eq!(board["entries"][0]["game_id"], game_id.as_str());

    let (status, game) = server.get_json(&format!("/api/games/{game_id}")).await;
    assert_eq!(status, 200);
    assert_eq!(game["status"], "finished");
    assert_eq!(game["winner"], 0);
    assert_eq!(game["reason"], "three_in_a_row");
    let notation: Vec<&str> = game["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["notation"].as_str().unwrap())
        .collect();
    assert_eq!(notation, ["0", "3", "1", "4", "2"]);
    let times: Vec<i64> = game["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["played_at_ms"].as_i64().unwrap())
        .collect();
    assert!(
        times.windows(2).all(|w| w[0] <= w[1]),
        "timestamps rise: {times:?}"
    );
    assert_eq!(game["seats"][0]["name"], "Alice");
    assert_eq!(game["seats"][1]["score"], 0);

    let (_, cut_off) = server.get_json(&format!("/api/games/{unfinished}")).await;
    assert_eq!(cut_off["status"], "playing");

    let alice_id = game["seats"][0]["player_id"].as_str().unwrap();
    let (status, list) = server
        .get_json(&format!("/api/players/{alice_id}/games"))
        .await;
    assert_eq!(status, 200);
    let ids: Vec<&str> = list["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["game_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [unfinished.as_str(), game_id.as_str()], "newest first");
    assert_eq!(list["games"][1]["names"], json!(["Alice", "Bob"]));
    assert_eq!(list["games"][1]["seat"], 0);
    assert_eq!(server.get_json("/api/players/p_nobody/games").await.0, 404);
    assert_eq!(
        server
            .get_json(&format!("/api/players/{alice_id}/games?limit=0"))
            .await
            .0,
        400
    );

    let (status, missing) = server.get_json("/api/games/g_nothing").await;
    assert_eq!(status, 404);
    assert_eq!(missing["error"]["code"], "not_found");
    let (status, _) = server.get_json("/api/rooms/nothing").await;
    assert_eq!(status, 404);
    let (status, bad) = server
        .get_json("/api/leaderboard?game=tictactoe&limit=0")
        .await;
    assert_eq!(status, 400);
    assert_eq!(bad["error"]["code"], "bad_request");
    let (_, rooms) = server.get_json("/api/rooms").await;
    let listed: Vec<&Value> = rooms["rooms"].as_array().unwrap().iter().collect();
    assert_eq!(
        listed.len(),
        1,
        "only the unfinished game's room is back: {rooms}"
    );
    assert_eq!(listed[0]["room"], unfinished_room.as_str());
    server.stop().await;
}
