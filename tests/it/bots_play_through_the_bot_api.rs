//! A bot account plays through the Bot API (docs/BOT_API.md) against a person on the
//! WebSocket who challenged it: its game stream shows the game as Lichess streams one
//! (`gameFull`, then a `gameState` after every move, `chatLine`s), its moves and chat
//! are asked on that stream's connection and refused as a WebSocket client's would be,
//! and the stream ends after the final state. On the WebSocket a bot account may
//! watch, never take a seat; it plays Parlor's own bots through `POST
//! /api/challenge/ai`.

use serde_json::{Value, json};

use crate::bot_api_client::BotClient;
use crate::bots_take_challenges::{bot_account, event};
use crate::common::{Client, TestServer, temp_dir, test_config};

/// `person` challenges the bot account `bot` (called `name`) to untimed chess as white
/// over the WebSocket; the bot accepts and the person takes the seat. The room.
async fn accepted_game(person: &mut Client, bot: &BotClient, name: &str) -> String {
    let (_, mut events) = bot.stream("/api/stream/event").await;
    let asked = json!({"type": "challenge", "name": name, "game": "chess", "seat": 0});
    person.send(asked).await;
    let id = person.until("challenge_sent").await["challenge"]
        .as_str()
        .unwrap()
        .to_owned();
    event(&mut events, "challenge").await;
    let (status, accepted) = bot.post(&format!("/api/challenge/{id}/accept"), None).await;
    assert_eq!(status, 200, "{accepted}");
    person.until("challenge_accepted").await;
    let snapshot = person.join(&id, 0).await;
    assert_eq!(snapshot["status"], "playing", "{snapshot}");
    id
}

#[tokio::test]
async fn a_bot_account_mates_a_person_through_its_game_stream() {
    let dir = temp_dir();
    let server = TestServer::start(test_config(dir.path())).await;
    let base = server.url("");
    let mut alice = server.connect().await;
    let alice_token = alice.hello("Alice", None).await["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let person = BotClient::new(&base, Some(&alice_token));
    let (status, stream_refused) = person.get("/api/bot/game/stream/0a1b2c3d4e").await;
    assert_eq!(
        status, 400,
        "a person may not use the bot endpoints: {stream_refused}"
    );
    let bot = bot_account(&server, "Robo").await;
    let token = bot.token().to_owned();
    let room = accepted_game(&mut alice, &bot, "Robo").await;

    // Without its stream, a request is refused as any: it is Alice's turn.
    let (status, refused) = bot
        .post(&format!("/api/bot/game/{room}/move/e7e5"), None)
        .await;
    assert_eq!(
        (status, &refused["code"]),
        (400, &"not_your_turn".into()),
        "{refused}"
    );

    let (status, mut stream) = bot.stream(&format!("/api/bot/game/stream/{room}")).await;
    assert_eq!(status, 200);
    assert!(
        stream.chunked,
        "lines must come as chunks of a chunked response"
    );
    let full = stream.next().await.expect("gameFull comes first");
    assert_eq!(full["type"], "gameFull", "{full}");
    assert_eq!(full["id"], room.as_str());
    assert_eq!(full["variant"]["key"], "standard");
    assert_eq!(full["initialFen"], "startpos");
    assert_eq!(
        (&full["white"]["name"], &full["black"]["name"]),
        (&"Alice".into(), &"Robo".into()),
        "{full}"
    );
    assert_eq!(full["state"]["type"], "gameState");
    assert_eq!(full["state"]["moves"], "");
    assert_eq!(full["state"]["status"], "started");

    alice.play(&room, "f2f3").await;
    let state = stream.next().await.unwrap();
    assert_eq!(
        (&state["type"], &state["moves"]),
        (&"gameState".into(), &"f2f3".into())
    );
    let (status, played) = bot
        .post(&format!("/api/bot/game/{room}/move/e7e5"), None)
        .await;
    assert_eq!((status, &played["ok"]), (200, &true.into()), "{played}");
    assert_eq!(stream.next().await.unwrap()["moves"], "f2f3 e7e5");
    // Out of turn: refused with the WebSocket's code, and the game is unchanged.
    let (status, refused) = bot
        .post(&format!("/api/bot/game/{room}/move/d7d5"), None)
        .await;
    assert_eq!(
        (status, &refused["code"]),
        (400, &"not_your_turn".into()),
        "{refused}"
    );

    // A body that is neither a form with `text` nor JSON with it is refused, in JSON.
    let (status, refused) = bot
        .post(&format!("/api/bot/game/{room}/chat"), Some(r#"{"txt": 1}"#))
        .await;
    assert_eq!(status, 400, "{refused}");
    // As lichess-bot sends it: a form.
    let said = reqwest::Client::new()
        .post(format!("{base}/api/bot/game/{room}/chat"))
        .bearer_auth(&token)
        .form(&[("room", "player"), ("text", "good luck")])
        .send()
        .await
        .unwrap();
    assert_eq!(said.status().as_u16(), 200);
    let line = stream.next().await.unwrap();
    assert_eq!(
        (&line["type"], &line["username"], &line["text"]),
        (&"chatLine".into(), &"Robo".into(), &"good luck".into()),
        "{line}"
    );
    let heard = alice.until("chat").await;
    assert_eq!(heard["lines"][0]["text"], "good luck");
    // As berserk sends it: JSON.
    let (status, said) = bot
        .post(
            &format!("/api/bot/game/{room}/chat"),
            Some(r#"{"room":"player","text":"gl"}"#),
        )
        .await;
    assert_eq!(status, 200, "{said}");
    assert_eq!(stream.next().await.unwrap()["text"], "gl");

    alice.play(&room, "g2g4").await;
    assert_eq!(stream.next().await.unwrap()["moves"], "f2f3 e7e5 g2g4");
    let (status, refused) = bot
        .post(&format!("/api/bot/game/{room}/move/e5e3"), None)
        .await;
    assert_eq!(
        (status, &refused["code"]),
        (400, &"illegal_move".into()),
        "{refused}"
    );
    let (status, played) = bot
        .post(&format!("/api/bot/game/{room}/move/d8h4"), None)
        .await;
    assert_eq!(status, 200, "{played}");
    let last = stream.next().await.unwrap();
    assert_eq!(last["moves"], "f2f3 e7e5 g2g4 d8h4", "{last}");
    assert_eq!(
        (&last["status"], &last["winner"]),
        (&"mate".into(), &"black".into()),
        "{last}"
    );
    assert!(
        stream.next().await.is_none(),
        "the stream ends after the final state"
    );
    let over = alice.until("game_over").await;
    assert_eq!(over["winner"], 1, "{over}");
    server.stop().await;
}

#[tokio::test]
async fn a_bot_is_told_when_its_opponent_goes_and_comes_back() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.rooms.reconnect_grace_secs = 120;
    config.rooms.claim_after_secs = 60;
    let server = TestServer::start(config).await;
    let bot = bot_account(&server, "Robo").await;
    let mut alice = server.connect().await;
    let alice_token = alice.hello("Alice", None).await["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let room = accepted_game(&mut alice, &bot, "Robo").await;
    let (_, mut stream) = bot.stream(&format!("/api/bot/game/stream/{room}")).await;
    assert_eq!(stream.next().await.unwrap()["type"], "gameFull");
    alice.play(&room, "e2e4").await;
    assert_eq!(stream.next().await.unwrap()["moves"], "e2e4");

    alice.close().await;
    let gone = stream.next().await.unwrap();
    assert_eq!(
        (&gone["type"], &gone["gone"]),
        (&"opponentGone".into(), &true.into()),
        "{gone}"
    );
    let claim_in = gone["claimWinInSeconds"].as_u64().unwrap();
    assert!((1..=60).contains(&claim_in), "{gone}");

    let mut alice = server.connect().await;
    alice.hello("Alice", Some(&alice_token)).await;
    alice.join(&room, 0).await;
    let back = stream.next().await.unwrap();
    assert_eq!(
        (&back["type"], &back["gone"]),
        (&"opponentGone".into(), &false.into()),
        "{back}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_bot_account_watches_on_the_websocket_and_plays_house_bots_through_the_api() {
    let dir = temp_dir();
    let server = TestServer::start(test_config(dir.path())).await;
    let mut robo_ws = server.connect().await;
    let token = robo_ws.hello("Robo", None).await["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let bot = BotClient::new(&server.url(""), Some(&token));
    let (status, upgraded) = bot.post("/api/bot/account/upgrade", None).await;
    assert_eq!(status, 200, "{upgraded}");
    let closed = robo_ws.until("error").await;
    assert_eq!(
        closed["code"], "bot_account",
        "a connection opened as a person is closed: {closed}"
    );

    let mut robo_ws = server.connect().await;
    let welcome = robo_ws.hello("Robo", Some(&token)).await;
    assert_eq!(welcome["name"], "Robo", "{welcome}");
    let mut alice = server.player("Alice").await;
    let (room, _) = alice.create_game("chess", ["me", "open"], json!({})).await;
    let seat = json!({"type": "join", "room": room, "seat": 1});
    robo_ws.expect_error(seat, "bot_account").await;
    for asked in [
        json!({"type": "create_room", "game": "chess", "seats": ["me", "bot:hard"]}),
        json!({"type": "quick_join", "game": "chess"}),
        json!({"type": "challenge", "name": "Alice", "game": "chess"}),
    ] {
        robo_ws.expect_error(asked, "bot_account").await;
    }
    robo_ws.send(json!({"type": "watch", "room": room})).await;
    let watched = robo_ws.until("state").await;
    assert_eq!(
        watched["status"], "waiting",
        "a bot account may watch: {watched}"
    );

    // Parlor's own bot, as Lichess's "challenge the AI": level 8 is bot:hard.
    let (_, mut events) = bot.stream("/api/stream/event").await;
    let (status, game) = bot
        .post(
            "/api/challenge/ai",
            Some(r#"{"level":8,"clock.limit":null,"color":"black","variant":"tictactoe"}"#),
        )
        .await;
    assert_eq!(status, 200, "{game}");
    assert_eq!(
        (
            &game["source"],
            &game["player"],
            &game["rated"],
            &game["variant"]["key"]
        ),
        (
            &"ai".into(),
            &"black".into(),
            &false.into(),
            &"tictactoe".into()
        ),
        "{game}"
    );
    let id = game["id"].as_str().unwrap().to_owned();
    let start = event(&mut events, "gameStart").await;
    assert_eq!(start["game"]["id"], id.as_str(), "{start}");
    let (_, mut stream) = bot.stream(&format!("/api/bot/game/stream/{id}")).await;
    let full = stream.next().await.unwrap();
    assert_eq!(full["white"]["id"], "bot:hard", "{full}");
    // The bot answers every move; Robo plays the first free cell until the end.
    let mut last: Value = full["state"].clone();
    while last["status"] == "started" {
        let moves: Vec<&str> = last["moves"].as_str().unwrap().split_whitespace().collect();
        if moves.len() % 2 == 1 {
            let cell = (0..9)
                .map(|cell| cell.to_string())
                .find(|cell| !moves.contains(&cell.as_str()))
                .unwrap();
            let (status, played) = bot
                .post(&format!("/api/bot/game/{id}/move/{cell}"), None)
                .await;
            assert_eq!(status, 200, "{played}");
        }
        last = stream
            .next()
            .await
            .expect("the stream goes on until the end");
    }
    assert!(
        ["mate", "draw", "variantEnd"].contains(&last["status"].as_str().unwrap()),
        "{last}"
    );
    let (status, refused) = bot.post("/api/challenge/ai", Some(r#"{"level":9}"#)).await;
    assert_eq!(status, 400, "{refused}");
    server.stop().await;
}
