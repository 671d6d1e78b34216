//! Ending a game by agreement, and playing again: draw offers (accepted, declined,
//! lapsed, answered by a bot) and rematches with the seats swapped.

use crate::common::{TestServer, play_alternately, temp_dir};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_offered_draw_is_accepted_declined_or_lapses() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let ([mut alice, mut bob], room) = server.pair_in_room().await;

    // Alice offers, then moves; Bob moves instead of answering: the offer lapses.
    alice
        .send(json!({"type": "offer_draw", "room": room}))
        .await;
    let offered = bob.until_state(|s| s["draw_offer"] == 0).await;
    assert_eq!(offered["moves"], 0);
    alice.play(&room, "4").await;
    let state = bob.until_state(|s| s["moves"] == 1).await;
    assert_eq!(
        state["draw_offer"], 0,
        "still open after the offerer's own move"
    );
    bob.play(&room, "0").await;
    let state = alice.until_state(|s| s["moves"] == 2).await;
    assert_eq!(
        state["draw_offer"],
        Value::Null,
        "lapsed when the opponent moved"
    );
    bob.expect_error(
        json!({"type": "accept_draw", "room": room}),
        "no_draw_offer",
    )
    .await;

    // Offered again and declined.
    alice
        .send(json!({"type": "offer_draw", "room": room}))
        .await;
    bob.until_state(|s| s["draw_offer"] == 0).await;
    bob.send(json!({"type": "decline_draw", "room": room}))
        .await;
    alice
        .until_state(|s| s["draw_offer"].is_null() && s["moves"] == 2)
        .await;

    // Offered once more and accepted.
    alice
        .send(json!({"type": "offer_draw", "room": room}))
        .await;
    bob.until_state(|s| s["draw_offer"] == 0).await;
    bob.send(json!({"type": "accept_draw", "room": room})).await;
    let over = alice.until("game_over").await;
    assert_eq!(over["reason"], "draw_agreed");
    assert_eq!(over["winner"], Value::Null);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_declines_a_draw_at_the_start_and_accepts_only_a_drawn_position() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut alice = server.player("Alice").await;

    // The usual start of chess is level, but far from drawn: the bot plays on.
    let (room, _) = alice
        .create_game("chess", ["me", "bot:easy"], json!({}))
        .await;
    alice
        .send(json!({"type": "offer_draw", "room": room}))
        .await;
    let offered = alice.until_state(|s| s["draw_offer"] == 0).await;
    let declined = alice
        .until_state(|s| s["seq"].as_u64() > offered["seq"].as_u64())
        .await;
    assert_eq!(declined["draw_offer"], Value::Null, "{declined}");
    assert_eq!(declined["status"], "playing");
    assert_eq!(declined["moves"], 0);

    // The bot has a queen more: it declines too.
    let start = json!({"start": "k7/8/8/8/8/8/8/K6q w - - 0 1"});
    let (room, _) = alice.create_game("chess", ["me", "bot:easy"], start).await;
    alice
        .send(json!({"type": "offer_draw", "room": room}))
        .await;
    let offered = alice.until_state(|s| s["draw_offer"] == 0).await;
    assert_eq!(offered["status"], "playing");
    let declined = alice.until_state(|s| s["draw_offer"].is_null()).await;
    assert_eq!(declined["status"], "playing");

    // Tic-tac-toe after X takes the centre and the perfect bot a corner: a draw with
    // best play, which the bot's search proves, so it agrees.
    let (room, _) = alice
        .create_game("tictactoe", ["me", "bot:hard"], json!({}))
        .await;
    alice.play(&room, "4").await;
    let replied = alice
        .until_state(|s| s["moves"] == 2 && s["to_move"] == 0)
        .await;
    let corner = replied["last_move"]["move"].as_str().map(str::to_owned);
    assert!(
        matches!(corner.as_deref(), Some("0" | "2" | "6" | "8")),
        "the perfect bot answers the centre in a corner: {replied}"
    );
    alice
        .send(json!({"type": "offer_draw", "room": room}))
        .await;
    let over = alice.until("game_over").await;
    assert_eq!(over["reason"], "draw_agreed", "{over}");
    assert_eq!(over["unrated"], "bot_opponent", "{over}");

    // A random bot never agrees, drawn or not.
    let (room, _) = alice
        .create_game("tictactoe", ["me", "bot:random"], json!({}))
        .await;
    alice
        .send(json!({"type": "offer_draw", "room": room}))
        .await;
    alice.until_state(|s| s["draw_offer"] == 0).await;
    let declined = alice.until_state(|s| s["draw_offer"].is_null()).await;
    assert_eq!(declined["status"], "playing", "{declined}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rematch_starts_a_new_game_with_the_seats_swapped() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let (mut players, room) = server.pair_in_room().await;
    // Bob asks (his queue holds nothing that play_alternately waits for).
    players[1]
        .expect_error(
            json!({"type": "rematch", "room": room}),
            "game_not_finished",
        )
        .await;
    play_alternately(&mut players, &room, &["0", "3", "1", "4", "2"]).await;
    let first = players[0].until("game_over").await;
    let [mut alice, mut bob] = players;

    alice.send(json!({"type": "rematch", "room": room})).await;
    let asked = bob.until_state(|s| s["rematch"] == json!([0])).await;
    assert_eq!(asked["status"], "finished");
    bob.send(json!({"type": "rematch", "room": room})).await;
    let again = alice.until_state(|s| s["status"] == "playing").await;
    assert_ne!(again["game_id"], first["game_id"]);
    assert_eq!(again["seats"][0]["name"], "Bob", "seats swapped");
    assert_eq!(again["seats"][1]["name"], "Alice");
    assert_eq!(again["moves"], 0);
    assert_eq!(again["rematch"], json!([]));

    // Bob now moves first.
    bob.play(&room, "4").await;
    alice
        .until_state(|s| s["moves"] == 1 && s["to_move"] == 1)
        .await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_always_agrees_to_a_rematch() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut alice = server.player("Alice").await;
    let (room, _) = alice
        .create_game("tictactoe", ["me", "bot:random"], json!({}))
        .await;
    alice.send(json!({"type": "resign", "room": room})).await;
    alice.until("game_over").await;
    alice.send(json!({"type": "rematch", "room": room})).await;
    let again = alice.until_state(|s| s["status"] == "playing").await;
    assert_eq!(again["seats"][0]["kind"], "bot:random");
    assert_eq!(again["seats"][1]["name"], "Alice");
    server.stop().await;
}
