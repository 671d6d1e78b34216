//! When a player's connection is gone mid-game, everyone in the room sees how long their
//! reconnect grace has left and when the player present may claim the game; from then
//! on `claim_victory` wins it by `abandoned` and `claim_draw` draws it by
//! `draw_claimed`. Before then, or against an opponent who is there, a claim is refused
//! and nothing changes.

use crate::common::{Client, TestServer, play_alternately, temp_dir, test_config};
use serde_json::{Value, json};

/// The players of one game: seat 0, seat 1 (with the token to come back with), a
/// spectator, the room, and the state seat 0 last saw.
struct Game {
    players: [Client; 2],
    token: String,
    spectator: Client,
    room: String,
    state: Value,
}

/// Two players named `names[0]` (seat 0) and `names[1]` (seat 1) two moves each into a
/// game of tic-tac-toe, watched by `names[2]`.
async fn four_moves_in(server: &TestServer, names: [&str; 3]) -> Game {
    let mut first = server.player(names[0]).await;
    let mut second = server.connect().await;
    let token = second.hello(names[1], None).await["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let (room, _) = first.create(["me", "open"]).await;
    second.join(&room, 1).await;
    let mut spectator = server.player(names[2]).await;
    spectator.send(json!({"type": "watch", "room": room})).await;
    spectator.until("joined").await;
    let mut players = [first, second];
    play_alternately(&mut players, &room, &["0", "4", "8", "2"]).await;
    let state = players[0].until_state(|s| s["moves"] == 4).await;
    spectator.until_state(|s| s["moves"] == 4).await;
    Game {
        players,
        token,
        spectator,
        room,
        state,
    }
}

/// The away seat's countdowns in `state`.
fn countdowns(state: &Value, seat: usize) -> (Option<u64>, Option<u64>) {
    let seat = &state["seats"][seat];
    (
        seat["grace_left_ms"].as_u64(),
        seat["claim_left_ms"].as_u64(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_sides_see_the_deadline_and_an_early_claim_is_refused() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.rooms.reconnect_grace_secs = 600;
    config.rooms.claim_after_secs = 300;
    let server = TestServer::start(config).await;
    let Game {
        players: [mut alice, bob],
        token,
        spectator: mut carol,
        room,
        state,
    } = four_moves_in(&server, ["Alice", "Bob", "Carol"]).await;
    assert_eq!(
        countdowns(&state, 1),
        (None, None),
        "none while both are here"
    );
    alice
        .expect_error(
            json!({"type": "claim_victory", "room": room}),
            "opponent_present",
        )
        .await;

    bob.close().await;
    for watcher in [&mut alice, &mut carol] {
        let away = watcher
            .until_state(|s| s["seats"][1]["connected"] == false)
            .await;
        let (grace, claim) = countdowns(&away, 1);
        let (grace, claim) = (grace.unwrap(), claim.unwrap());
        assert!(grace > 0 && grace <= 600_000, "{away}");
        assert!(claim > 0 && claim <= 300_000 && claim < grace, "{away}");
        assert_eq!(countdowns(&away, 0), (None, None));
    }
    for request in ["claim_victory", "claim_draw"] {
        alice
            .expect_error(json!({"type": request, "room": room}), "too_early_to_claim")
            .await;
    }
    carol
        .expect_error(
            json!({"type": "claim_victory", "room": room}),
            "not_a_player",
        )
        .await;

    let mut bob = server.connect().await;
    bob.hello("Bob", Some(&token)).await;
    let back = bob.join(&room, 1).await;
    assert_eq!(
        back["status"], "playing",
        "the refused claims changed nothing"
    );
    assert_eq!(countdowns(&back, 1), (None, None));
    let seen = alice
        .until_state(|s| s["seats"][1]["connected"] == true)
        .await;
    assert_eq!(countdowns(&seen, 1), (None, None), "{seen}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn once_the_claim_time_is_up_the_present_player_wins_or_draws() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.rooms.reconnect_grace_secs = 600;
    config.rooms.claim_after_secs = 0;
    let server = TestServer::start(config).await;

    let Game {
        players: [mut alice, bob],
        spectator: mut carol,
        room,
        ..
    } = four_moves_in(&server, ["Alice", "Bob", "Carol"]).await;
    bob.close().await;
    let away = alice
        .until_state(|s| s["seats"][1]["connected"] == false)
        .await;
    assert_eq!(countdowns(&away, 1).1, Some(0), "{away}");
    alice
        .send(json!({"type": "claim_victory", "room": room, "ref": "k"}))
        .await;
    let finished = carol.until_state(|s| s["status"] == "finished").await;
    assert_eq!(
        finished["result"],
        json!({"winner": 0, "reason": "abandoned"})
    );
    assert_eq!(countdowns(&finished, 1), (None, None));
    let over = alice.until("game_over").await;
    assert_eq!(
        (&over["winner"], &over["reason"]),
        (&json!(0), &json!("abandoned"))
    );
    assert_eq!(
        over["unrated"],
        Value::Null,
        "rated as an abandonment: {over}"
    );
    alice
        .expect_error(
            json!({"type": "claim_victory", "room": room}),
            "game_finished",
        )
        .await;

    let Game {
        players: [mut dora, evan],
        room,
        ..
    } = four_moves_in(&server, ["Dora", "Evan", "Fay"]).await;
    evan.close().await;
    dora.until_state(|s| s["seats"][1]["connected"] == false)
        .await;
    dora.send(json!({"type": "claim_draw", "room": room})).await;
    let over = dora.until("game_over").await;
    assert_eq!(
        (&over["winner"], &over["reason"]),
        (&Value::Null, &json!("draw_claimed"))
    );
    assert!(
        over["scores"][0]["score"].is_u64(),
        "a draw is scored: {over}"
    );
    assert_eq!(over["unrated"], Value::Null, "and rated: {over}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unplayed_game_that_ends_at_once_leaves_the_listings_once_empty() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await; // rooms.idle_secs: 300
    let mut lurker = server.player("Lurker").await;
    lurker.send(json!({"type": "subscribe_lobby"})).await;
    lurker.expect("lobby").await;
    let ([alice, mut bob], room) = server.pair_in_room().await;
    bob.send(json!({"type": "leave", "room": room})).await;
    bob.until("left").await;
    alice.close().await;
    loop {
        let update = lurker.until("lobby_update").await;
        if update["room"]["room"] == room.as_str() && update["change"] == "removed" {
            assert_eq!(update["room"]["status"], "finished", "{update}");
            break;
        }
    }
    bob.expect_error(json!({"type": "watch", "room": room}), "unknown_room")
        .await;
    server.stop().await;
}
