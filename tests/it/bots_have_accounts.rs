//! Bot accounts through the Bot API (docs/BOT_API.md): a player's token is tested and
//! names its account; a player without games becomes a bot account for good (`title:
//! "BOT"`), a person who has played cannot; accounts are found by name and their
//! players' presence by id; every answer, refusals included, is JSON.

use crate::bot_api_client::BotClient;
use crate::common::{TestServer, play_alternately, temp_dir, test_config};

#[tokio::test]
async fn a_player_without_games_becomes_a_bot_account_and_a_person_who_played_cannot() {
    let dir = temp_dir();
    let server = TestServer::start(test_config(dir.path())).await;
    let base = server.url("");
    let mut robo = server.connect().await;
    let welcome = robo.hello("Robo", None).await;
    let token = welcome["token"].as_str().unwrap().to_owned();
    let robo_id = welcome["player_id"].as_str().unwrap().to_owned();

    // The token test names the token's player and says it may play as a bot; a token
    // nobody holds is null.
    let anyone = BotClient::new(&base, None);
    let (status, tested) = anyone
        .post("/api/token/test", Some(&format!("{token},not-a-token")))
        .await;
    assert_eq!(status, 200, "{tested}");
    assert_eq!(tested[&token]["userId"], robo_id.as_str(), "{tested}");
    let scopes = tested[&token]["scopes"].as_str().unwrap();
    assert!(
        scopes.split(',').any(|scope| scope == "bot:play"),
        "{tested}"
    );
    assert!(tested["not-a-token"].is_null(), "{tested}");

    // Without a token, or with one nobody holds, the account is refused, in JSON.
    let (status, refused) = anyone.get("/api/account").await;
    assert_eq!(status, 401, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .is_some_and(|error| !error.is_empty())
    );
    let stranger = BotClient::new(&base, Some("0123456789abcdef"));
    let (status, refused) = stranger.get("/api/account").await;
    assert_eq!(status, 401, "{refused}");

    let bot = BotClient::new(&base, Some(&token));
    let (status, account) = bot.get("/api/account").await;
    assert_eq!(status, 200, "{account}");
    assert_eq!(account["id"], robo_id.as_str());
    assert_eq!(account["username"], "Robo");
    assert!(
        account.get("title").is_none(),
        "a person has no title: {account}"
    );
    assert_eq!(account["perfs"]["blitz"]["games"], 0, "{account}");
    assert_eq!(account["perfs"]["blitz"]["rating"], 1500, "{account}");
    assert_eq!(account["perfs"]["checkers"]["prov"], true, "{account}");

    let (status, upgraded) = bot.post("/api/bot/account/upgrade", None).await;
    assert_eq!((status, &upgraded["ok"]), (200, &true.into()), "{upgraded}");
    let (_, account) = bot.get("/api/account").await;
    assert_eq!(account["title"], "BOT", "{account}");
    // Its connection opened as a person is closed; one opened again is a bot account's.
    let closed = robo.until("error").await;
    assert_eq!(closed["code"], "bot_account", "{closed}");
    let mut robo = server.connect().await;
    robo.hello("Robo", Some(&token)).await;
    // Asking again changes nothing.
    let (status, again) = bot.post("/api/bot/account/upgrade", None).await;
    assert_eq!(status, 200, "{again}");

    // A person who has played stays a person.
    let mut alice = server.connect().await;
    let alice_token = alice.hello("Alice", None).await["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let (room, _) = alice.create(["me", "open"]).await;
    let mut bob = server.player("Bob").await;
    bob.join(&room, 1).await;
    let mut players = [alice, bob];
    play_alternately(&mut players, &room, &["0"]).await;
    let person = BotClient::new(&base, Some(&alice_token));
    let (status, refused) = person.post("/api/bot/account/upgrade", None).await;
    assert_eq!(status, 400, "{refused}");
    let why = refused["error"].as_str().unwrap();
    assert!(why.contains("played games as a person"), "{refused}");
    let (_, account) = person.get("/api/account").await;
    assert!(account.get("title").is_none(), "{account}");

    // Found by name, whatever its case; a name nobody has is a 404 in JSON.
    let (status, found) = anyone.get("/api/user/robo").await;
    assert_eq!(status, 200, "{found}");
    assert_eq!(
        (&found["username"], &found["title"], &found["blocking"]),
        (&"Robo".into(), &"BOT".into(), &false.into()),
        "{found}"
    );
    let (status, missing) = anyone.get("/api/user/nobody-at-all").await;
    assert_eq!(status, 404, "{missing}");
    assert!(missing["error"].is_string(), "{missing}");

    // Robo has a connection open; an id nobody has is left out.
    let (status, statuses) = anyone
        .get(&format!("/api/users/status?ids={robo_id},no-such-player"))
        .await;
    assert_eq!(status, 200, "{statuses}");
    let statuses = statuses.as_array().unwrap();
    assert_eq!(statuses.len(), 1, "{statuses:?}");
    assert_eq!(statuses[0]["id"], robo_id.as_str());
    assert_eq!(statuses[0]["online"], true);
    assert_eq!(statuses[0]["title"], "BOT");
    robo.close().await;
    server.stop().await;
}

#[tokio::test]
async fn a_banned_bot_is_cut_off_its_streams_and_refused() {
    let operator = "an-operator-token-for-this-test-0123456789";
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.admin.token = operator.to_owned();
    let server = TestServer::start(config).await;
    let base = server.url("");
    let mut ws = server.connect().await;
    let welcome = ws.hello("Robo", None).await;
    ws.close().await;
    let (token, robo_id) = (
        welcome["token"].as_str().unwrap(),
        welcome["player_id"].as_str().unwrap(),
    );
    let bot = BotClient::new(&base, Some(token));
    bot.post("/api/bot/account/upgrade", None).await;
    let (status, mut events) = bot.stream("/api/stream/event").await;
    assert_eq!(status, 200);
    // The stream counts as the bot being online, and as one of its connections.
    let (_, statuses) = bot.get(&format!("/api/users/status?ids={robo_id}")).await;
    assert_eq!(statuses[0]["online"], true, "{statuses}");

    let ban = reqwest::Client::new()
        .post(server.url(&format!("/api/admin/players/{robo_id}/ban")))
        .bearer_auth(operator)
        .json(&serde_json::json!({"reason": "Cheating", "by": "Sue"}))
        .send()
        .await
        .unwrap();
    assert_eq!(ban.status().as_u16(), 200);
    let answer: serde_json::Value = ban.json().await.unwrap();
    assert_eq!(answer["connections_closed"], 1, "{answer}");
    assert!(
        events.next().await.is_none(),
        "the banned bot's stream ends"
    );
    let (status, refused) = bot.get("/api/account").await;
    assert_eq!(status, 403, "{refused}");
    server.stop().await;
}

#[tokio::test]
async fn a_token_over_its_budget_is_refused_429_but_its_streams_open() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.limits.bot_requests_per_minute = 3;
    let server = TestServer::start(config).await;
    let mut ws = server.connect().await;
    let token = ws.hello("Robo", None).await["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let bot = BotClient::new(&server.url(""), Some(&token));
    for _ in 0..3 {
        let (status, account) = bot.get("/api/account").await;
        assert_eq!(status, 200, "{account}");
    }
    let response = reqwest::Client::new()
        .get(server.url("/api/account"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 429);
    assert_eq!(response.headers()["retry-after"], "60");
    let refused: serde_json::Value = response.json().await.unwrap();
    assert!(
        refused["error"]
            .as_str()
            .is_some_and(|error| error.contains("bot_requests_per_minute")),
        "{refused}"
    );
    // Streams are never refused for their rate; a quiet one is kept alive with bare
    // newlines (every 6 s), as lichess-bot's 15 s read timeout needs.
    let (status, mut events) = bot.stream("/api/stream/event").await;
    assert_eq!(status, 200);
    events.until_keep_alive().await;
    ws.close().await;
    server.stop().await;
}
