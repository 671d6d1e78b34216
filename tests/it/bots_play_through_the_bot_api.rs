//! A bot account plays through the Bot API (docs/BOT_API.md) against a person on the
//! WebSocket: its game stream takes its seat and shows the game as Lichess streams one
//! (`gameFull`, then a `gameState` after every move, `chatLine`s), its moves and chat
//! are asked on that stream's connection and refused as a WebSocket client's would be,
//! and the stream ends after the final state.

use serde_json::json;

use crate::bot_api_client::BotClient;
use crate::common::{TestServer, temp_dir, test_config};

#[tokio::test]
async fn a_bot_account_mates_a_person_through_its_game_stream() {
    let dir = temp_dir();
    let server = TestServer::start(test_config(dir.path())).await;
    let base = server.url("");
    let mut robo_ws = server.connect().await;
    let token = robo_ws.hello("Robo", None).await["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let bot = BotClient::new(&base, Some(&token));
    let (status, stream_refused) = bot.get("/api/bot/game/stream/0a1b2c3d4e").await;
    assert_eq!(
        status, 400,
        "a person may not use the bot endpoints: {stream_refused}"
    );
    let (status, upgraded) = bot.post("/api/bot/account/upgrade", None).await;
    assert_eq!(status, 200, "{upgraded}");

    let mut alice = server.player("Alice").await;
    let (room, _) = alice.create_game("chess", ["me", "open"], json!({})).await;
    robo_ws.join(&room, 1).await;
    alice.until_state(|s| s["status"] == "playing").await;

    // Without its stream, a request takes the bot's seat for itself (its WebSocket is
    // told `replaced`) and is refused as any: it is Alice's turn.
    let (status, refused) = bot
        .post(&format!("/api/bot/game/{room}/move/e7e5"), None)
        .await;
    assert_eq!(
        (status, &refused["code"]),
        (400, &"not_your_turn".into()),
        "{refused}"
    );
    robo_ws.until("replaced").await;

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
    let base = server.url("");
    let mut robo_ws = server.connect().await;
    let token = robo_ws.hello("Robo", None).await["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let bot = BotClient::new(&base, Some(&token));
    bot.post("/api/bot/account/upgrade", None).await;
    let mut alice = server.connect().await;
    let alice_token = alice.hello("Alice", None).await["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let (room, _) = alice.create_game("chess", ["me", "open"], json!({})).await;
    robo_ws.join(&room, 1).await;
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
