//! Challenges through the Bot API (docs/BOT_API.md), between two bot accounts that
//! speak only HTTP: a challenge reaches the challenged bot's event stream (and a stream
//! opened later, which is sent what is pending), is declined with a reason, cancelled,
//! or accepted, when both are told `gameStart` with the challenge's id, the game's room
//! holds each one's seat, and they play it to its end through their game streams.

use serde_json::{Value, json};

use crate::bot_api_client::{BotClient, LineReader};
use crate::common::{TestServer, temp_dir, test_config};

/// A bot account named `name` on `server`: said hello once on the WebSocket for its
/// token, then upgraded; its Bot API client.
pub(crate) async fn bot_account(server: &TestServer, name: &str) -> BotClient {
    let mut ws = server.connect().await;
    let token = ws.hello(name, None).await["token"]
        .as_str()
        .unwrap()
        .to_owned();
    ws.close().await;
    let bot = BotClient::new(&server.url(""), Some(&token));
    let (status, upgraded) = bot.post("/api/bot/account/upgrade", None).await;
    assert_eq!(status, 200, "{upgraded}");
    bot
}

/// The next event of `stream` of type `kind`, skipping others.
pub(crate) async fn event(stream: &mut LineReader, kind: &str) -> Value {
    loop {
        let event = stream.next().await.expect("the event stream stays open");
        if event["type"] == kind {
            return event;
        }
    }
}

#[tokio::test]
async fn two_bots_challenge_each_other_and_play_the_accepted_game_to_its_end() {
    let dir = temp_dir();
    let server = TestServer::start(test_config(dir.path())).await;
    let robo = bot_account(&server, "Robo").await;
    let bobo = bot_account(&server, "Bobo").await;
    let (status, mut robo_events) = robo.stream("/api/stream/event").await;
    assert_eq!(status, 200);
    assert!(robo_events.chunked);
    let (_, mut bobo_events) = bobo.stream("/api/stream/event").await;
    // Both are online bots now (a finite NDJSON list, as lichess-bot's matchmaking
    // reads it).
    let online = reqwest::get(server.url("/api/bot/online?nb=10"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let mut names: Vec<String> = online
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap()["username"].to_string())
        .collect();
    names.sort();
    assert_eq!(names, ["\"Bobo\"", "\"Robo\""], "{online}");

    // Robo plays chess only (a bot account's default): a tic-tac-toe challenge is
    // declined for it by the server, and never reaches it.
    let tictactoe = json!({"variant": "tictactoe", "rated": false}).to_string();
    let (status, asked) = bobo.post("/api/challenge/Robo", Some(&tictactoe)).await;
    assert_eq!(status, 200, "{asked}");
    assert_eq!(
        (&asked["status"], &asked["declineReasonKey"]),
        (&"declined".into(), &"variant".into()),
        "{asked}"
    );
    let declined = event(&mut bobo_events, "challengeDeclined").await;
    assert_eq!(declined["challenge"]["id"], asked["id"]);
    // Once it takes tic-tac-toe too, the next one reaches it; it declines it itself.
    let games = json!({"games": ["chess", "tictactoe"]}).to_string();
    let (status, set) = robo.post("/api/bot/account/games", Some(&games)).await;
    assert_eq!(status, 200, "{set}");
    let (_, account) = robo.get("/api/account").await;
    assert_eq!(account["games"], json!(["chess", "tictactoe"]), "{account}");
    let (_, asked) = bobo.post("/api/challenge/Robo", Some(&tictactoe)).await;
    let id = asked["id"].as_str().unwrap().to_owned();
    let challenge = event(&mut robo_events, "challenge").await;
    assert_eq!(
        challenge["challenge"]["id"],
        id.as_str(),
        "the first one never came"
    );
    assert_eq!(challenge["challenge"]["variant"]["key"], "tictactoe");
    assert_eq!(
        challenge["compat"]["bot"], false,
        "lichess-bot plays chess only"
    );
    let reason = json!({"reason": "later"}).to_string();
    let (status, declined) = robo
        .post(&format!("/api/challenge/{id}/decline"), Some(&reason))
        .await;
    assert_eq!(status, 200, "{declined}");
    let declined = event(&mut bobo_events, "challengeDeclined").await;
    assert_eq!(declined["challenge"]["declineReasonKey"], "later");
    assert!(declined["challenge"]["declineReason"].as_str().is_some());
    // Answered once only.
    let (status, again) = robo
        .post(&format!("/api/challenge/{id}/accept"), None)
        .await;
    assert_eq!(status, 404, "{again}");

    // A challenge taken back.
    let (_, asked) = bobo.post("/api/challenge/Robo", None).await;
    let id = asked["id"].as_str().unwrap().to_owned();
    event(&mut robo_events, "challenge").await;
    let (status, refused) = robo
        .post(&format!("/api/challenge/{id}/cancel"), None)
        .await;
    assert_eq!(status, 400, "only the challenger cancels: {refused}");
    let (status, canceled) = bobo
        .post(&format!("/api/challenge/{id}/cancel"), None)
        .await;
    assert_eq!(status, 200, "{canceled}");
    event(&mut robo_events, "challengeCanceled").await;

    // A chess challenge with a clock, as lichess-bot's matchmaking sends one (a form
    // here, with the dotted keys), Bobo playing white.
    let form = "rated=true&clock.limit=300&clock.increment=2&color=white&variant=standard";
    let response = reqwest::Client::new()
        .post(server.url("/api/challenge/robo"))
        .bearer_auth(bobo.token())
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let asked: Value = response.json().await.unwrap();
    let id = asked["id"].as_str().unwrap().to_owned();
    assert_eq!(asked["timeControl"]["limit"], 300, "{asked}");
    assert_eq!(asked["speed"], "blitz", "{asked}");
    // A stream opened now is sent the pending challenge first.
    let (_, mut robo_later) = robo.stream("/api/stream/event").await;
    let pending = robo_later.next().await.unwrap();
    assert_eq!(
        (&pending["type"], &pending["challenge"]["id"]),
        (&"challenge".into(), &id.as_str().into())
    );
    assert_eq!(pending["challenge"]["finalColor"], "white");

    let (status, accepted) = robo
        .post(&format!("/api/challenge/{id}/accept"), None)
        .await;
    assert_eq!(status, 200, "{accepted}");
    let start = event(&mut robo_events, "gameStart").await;
    assert_eq!(
        start["game"]["id"],
        id.as_str(),
        "the game's id is the challenge's"
    );
    assert_eq!(start["game"]["color"], "black");
    assert_eq!(start["game"]["opponent"]["username"], "Bobo");
    assert_eq!(start["game"]["secondsLeft"], 300);
    let start = event(&mut bobo_events, "gameStart").await;
    assert_eq!(start["game"]["color"], "white");
    let (_, playing) = robo.get("/api/account/playing").await;
    assert_eq!(playing["nowPlaying"][0]["gameId"], id.as_str(), "{playing}");

    // Both play it through their game streams.
    let (_, mut white) = bobo.stream(&format!("/api/bot/game/stream/{id}")).await;
    let (_, mut black) = robo.stream(&format!("/api/bot/game/stream/{id}")).await;
    let full = white.next().await.unwrap();
    assert_eq!(full["type"], "gameFull", "{full}");
    assert_eq!(
        (&full["white"]["name"], &full["black"]["name"]),
        (&"Bobo".into(), &"Robo".into())
    );
    assert_eq!(
        full["clock"],
        json!({"initial": 300_000, "increment": 2000})
    );
    assert_eq!(full["rated"], true, "a game between two accounts is rated");
    assert_eq!(full["state"]["status"], "started");
    black.next().await.unwrap();
    for (mover, uci) in [
        (&bobo, "f2f3"),
        (&robo, "e7e5"),
        (&bobo, "g2g4"),
        (&robo, "d8h4"),
    ] {
        let (status, played) = mover
            .post(&format!("/api/bot/game/{id}/move/{uci}"), None)
            .await;
        assert_eq!(status, 200, "{uci}: {played}");
        let seen = black.next().await.unwrap();
        assert!(seen["moves"].as_str().unwrap().ends_with(uci), "{seen}");
        white.next().await.unwrap();
    }
    assert!(
        black.next().await.is_none(),
        "the stream ends after the final state"
    );
    assert!(white.next().await.is_none());
    let finish = event(&mut robo_events, "gameFinish").await;
    assert_eq!(
        (
            &finish["game"]["id"],
            &finish["game"]["status"]["name"],
            &finish["game"]["winner"]
        ),
        (&id.as_str().into(), &"mate".into(), &"black".into()),
        "{finish}"
    );
    // The game in PGN, by its Bot API id, as lichess-bot saves it.
    let pgn = reqwest::get(server.url(&format!("/game/export/{id}")))
        .await
        .unwrap();
    assert_eq!(pgn.status().as_u16(), 200);
    let pgn = pgn.text().await.unwrap();
    assert!(
        pgn.contains("[White \"Bobo\"]") && pgn.contains("Qh4#"),
        "{pgn}"
    );
    // After the game, with its stream closed, the bot still says goodbye, as
    // lichess-bot does.
    let goodbye = json!({"room": "player", "text": "Good game!"}).to_string();
    let (status, said) = robo
        .post(&format!("/api/bot/game/{id}/chat"), Some(&goodbye))
        .await;
    assert_eq!(status, 200, "{said}");
    server.stop().await;
}

#[tokio::test]
async fn a_bots_game_is_found_again_after_a_restart_and_played_on() {
    let dir = temp_dir();
    // Long enough a grace for the bots to come back (the tests' default is 1 s).
    let config = || {
        let mut config = test_config(dir.path());
        config.rooms.reconnect_grace_secs = 120;
        config.rooms.claim_after_secs = 120;
        config
    };
    let server = TestServer::start(config()).await;
    let robo = bot_account(&server, "Robo").await;
    let bobo = bot_account(&server, "Bobo").await;
    let white = json!({"color": "white"}).to_string();
    let (_, asked) = bobo.post("/api/challenge/Robo", Some(&white)).await;
    let id = asked["id"].as_str().unwrap().to_owned();
    let (status, accepted) = robo
        .post(&format!("/api/challenge/{id}/accept"), None)
        .await;
    assert_eq!(status, 200, "{accepted}");
    let (_, mut black_stream) = robo.stream(&format!("/api/bot/game/stream/{id}")).await;
    black_stream.next().await.unwrap();
    for (mover, uci) in [(&bobo, "f2f3"), (&robo, "e7e5")] {
        let (status, played) = mover
            .post(&format!("/api/bot/game/{id}/move/{uci}"), None)
            .await;
        assert_eq!(status, 200, "{uci}: {played}");
        black_stream.next().await.unwrap();
    }
    drop(black_stream);
    server.stop().await;

    // The server comes back and resumes the game; the bots, with the same tokens, are
    // told of it on their event streams as lichess-bot recovers after a restart.
    let server = TestServer::start(config()).await;
    let base = server.url("");
    let robo = BotClient::new(&base, Some(robo.token()));
    let bobo = BotClient::new(&base, Some(bobo.token()));
    let (_, mut robo_events) = robo.stream("/api/stream/event").await;
    let start = event(&mut robo_events, "gameStart").await;
    assert_eq!(start["game"]["id"], id.as_str(), "{start}");
    assert_eq!(start["game"]["color"], "black", "{start}");
    assert_eq!(start["game"]["isMyTurn"], false, "{start}");
    let (_, playing) = bobo.get("/api/account/playing").await;
    assert_eq!(playing["nowPlaying"][0]["isMyTurn"], true, "{playing}");
    let (_, mut black_stream) = robo.stream(&format!("/api/bot/game/stream/{id}")).await;
    let full = black_stream.next().await.unwrap();
    assert_eq!(full["state"]["moves"], "f2f3 e7e5", "{full}");
    let (status, played) = bobo
        .post(&format!("/api/bot/game/{id}/move/g2g4"), None)
        .await;
    assert_eq!(status, 200, "{played}");
    // Robo moves once its stream has shown it Bobo's move, as a bot does: its move is
    // sent for the position the stream showed last. (Bobo plays without a stream of its
    // own, so Robo is also told it is gone.)
    loop {
        let line = black_stream.next().await.unwrap();
        if line["moves"] == "f2f3 e7e5 g2g4" {
            break;
        }
    }
    let (status, played) = robo
        .post(&format!("/api/bot/game/{id}/move/d8h4"), None)
        .await;
    assert_eq!(status, 200, "{played}");
    let mut last = black_stream.next().await.unwrap();
    while last["type"] != "gameState" || last["status"] == "started" {
        last = black_stream.next().await.unwrap();
    }
    assert_eq!(
        (&last["status"], &last["winner"]),
        (&"mate".into(), &"black".into()),
        "{last}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_bot_playing_as_many_games_as_it_may_is_not_challenged_to_more() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.limits.bot_games_at_once = 1;
    let server = TestServer::start(config).await;
    let robo = bot_account(&server, "Robo").await;
    let bobo = bot_account(&server, "Bobo").await;
    let (_, mut bobo_events) = bobo.stream("/api/stream/event").await;
    let (_, first) = bobo.post("/api/challenge/Robo", None).await;
    let (_, second) = bobo.post("/api/challenge/Robo", None).await;
    let [first, second] = [&first, &second].map(|asked| asked["id"].as_str().unwrap().to_owned());
    let (status, accepted) = robo
        .post(&format!("/api/challenge/{first}/accept"), None)
        .await;
    assert_eq!(status, 200, "{accepted}");
    // The second was made before Robo was busy; accepting it now is refused.
    let (status, refused) = robo
        .post(&format!("/api/challenge/{second}/accept"), None)
        .await;
    assert_eq!(status, 400, "{refused}");
    // A new one is declined for Robo at once.
    let (status, third) = bobo.post("/api/challenge/Robo", None).await;
    assert_eq!(status, 200, "{third}");
    assert_eq!(third["declineReasonKey"], "tooMany", "{third}");
    let declined = event(&mut bobo_events, "challengeDeclined").await;
    assert_eq!(declined["challenge"]["id"], third["id"]);
    server.stop().await;
}
