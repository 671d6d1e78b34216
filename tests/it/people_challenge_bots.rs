//! A person on the WebSocket challenges a bot account (PROTOCOL.md §6.20): an unknown
//! name or a person is refused, a game the bot does not take is declined for it by the
//! server, a challenge can be taken back, and an accepted one names the room and seat
//! the person joins to play the bot, which plays over the Bot API. A challenge still
//! unanswered when its person's connection closes is taken back.

use serde_json::json;

use crate::bots_take_challenges::{bot_account, event};
use crate::common::{TestServer, temp_dir, test_config};

#[tokio::test]
async fn a_person_challenges_a_bot_and_plays_the_game_it_accepts() {
    let dir = temp_dir();
    let server = TestServer::start(test_config(dir.path())).await;
    let robo = bot_account(&server, "Robo").await;
    let (_, mut robo_events) = robo.stream("/api/stream/event").await;
    let mut alice = server.player("Alice").await;
    let _bob = server.player("Bob").await;

    for name in ["Nobody", "Bob"] {
        let asked = json!({"type": "challenge", "name": name, "game": "chess"});
        alice.expect_error(asked, "unknown_player").await;
    }
    let tictactoe = json!({"type": "challenge", "name": "Robo", "game": "tictactoe", "ref": "t"});
    alice.send(tictactoe).await;
    let sent = alice.until("challenge_sent").await;
    assert_eq!(
        (&sent["ref"], &sent["name"]),
        (&"t".into(), &"Robo".into()),
        "{sent}"
    );
    let declined = alice.until("challenge_declined").await;
    assert_eq!(
        (&declined["challenge"], &declined["reason"]),
        (&sent["challenge"], &"variant".into())
    );

    // Taken back before the bot answers.
    alice
        .send(json!({"type": "challenge", "name": "Robo", "game": "chess"}))
        .await;
    let sent = alice.until("challenge_sent").await;
    let challenge = event(&mut robo_events, "challenge").await;
    assert_eq!(challenge["challenge"]["id"], sent["challenge"]);
    alice
        .send(json!({"type": "cancel_challenge", "challenge": sent["challenge"], "ref": "x"}))
        .await;
    let canceled = alice.until("challenge_canceled").await;
    assert_eq!(canceled["ref"], "x");
    event(&mut robo_events, "challengeCanceled").await;

    // Accepted: Alice plays white in a rated blitz game against the bot.
    let blitz = json!({"kind": "fischer", "base_ms": 180_000, "increment_ms": 2000});
    let asked = json!({"type": "challenge", "name": "Robo", "game": "chess", "seat": 0, "time_control": blitz, "rated": true});
    alice.send(asked).await;
    let sent = alice.until("challenge_sent").await;
    assert_eq!(sent["seat"], 0, "{sent}");
    let id = sent["challenge"].as_str().unwrap().to_owned();
    let challenge = event(&mut robo_events, "challenge").await;
    assert_eq!(
        (
            &challenge["challenge"]["challenger"]["name"],
            &challenge["challenge"]["finalColor"],
            &challenge["challenge"]["rated"]
        ),
        (&"Alice".into(), &"white".into(), &true.into()),
        "{challenge}"
    );
    let (status, accepted) = robo
        .post(&format!("/api/challenge/{id}/accept"), None)
        .await;
    assert_eq!(status, 200, "{accepted}");
    let told = alice.until("challenge_accepted").await;
    assert_eq!(
        (&told["room"], &told["seat"]),
        (&id.as_str().into(), &0.into()),
        "{told}"
    );
    let snapshot = alice.join(&id, 0).await;
    assert_eq!(snapshot["status"], "playing", "{snapshot}");

    let (_, mut stream) = robo.stream(&format!("/api/bot/game/stream/{id}")).await;
    // The bot account's seat says so once its stream has taken it; a person's does not.
    let seen = alice
        .until_state(|state| state["seats"][1]["connected"] == true)
        .await;
    assert_eq!(seen["seats"][1]["bot_account"], true, "{seen}");
    assert!(seen["seats"][0].get("bot_account").is_none(), "{seen}");
    let full = stream.next().await.unwrap();
    assert_eq!(
        (&full["white"]["name"], &full["black"]["name"]),
        (&"Alice".into(), &"Robo".into())
    );
    // The bot moves once its stream has shown it the person's move, as a bot does (its
    // move is sent for the position the stream showed last).
    for (person, bot) in [("f2f3", "e7e5"), ("g2g4", "d8h4")] {
        alice.play(&id, person).await;
        loop {
            let line = stream.next().await.unwrap();
            if line["moves"]
                .as_str()
                .is_some_and(|moves| moves.ends_with(person))
            {
                break;
            }
        }
        let (status, played) = robo
            .post(&format!("/api/bot/game/{id}/move/{bot}"), None)
            .await;
        assert_eq!(status, 200, "{bot}: {played}");
    }
    let over = alice.until("game_over").await;
    assert_eq!(over["winner"], 1, "{over}");
    // Rated: both on the leaderboard, the bot account marked as one there too.
    let (_, board) = server
        .get_json("/api/leaderboard?game=chess&by=rating")
        .await;
    let marks: Vec<(&str, bool)> = board["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| (row["name"].as_str().unwrap(), row["bot_account"] == true))
        .collect();
    assert_eq!(marks, [("Robo", true), ("Alice", false)], "{board}");
    server.stop().await;
}

#[tokio::test]
async fn a_challenge_is_taken_back_when_its_connection_closes() {
    let dir = temp_dir();
    let server = TestServer::start(test_config(dir.path())).await;
    let robo = bot_account(&server, "Robo").await;
    let (_, mut robo_events) = robo.stream("/api/stream/event").await;
    let mut alice = server.player("Alice").await;
    alice
        .send(json!({"type": "challenge", "name": "Robo", "game": "chess"}))
        .await;
    let sent = alice.until("challenge_sent").await;
    let made = event(&mut robo_events, "challenge").await;
    assert_eq!(made["challenge"]["id"], sent["challenge"]);

    alice.close().await;
    let canceled = event(&mut robo_events, "challengeCanceled").await;
    assert_eq!(canceled["challenge"]["id"], sent["challenge"], "{canceled}");
    let id = sent["challenge"].as_str().unwrap();
    let (status, answer) = robo
        .post(&format!("/api/challenge/{id}/accept"), None)
        .await;
    assert_eq!(status, 404, "{answer}");
    server.stop().await;
}
