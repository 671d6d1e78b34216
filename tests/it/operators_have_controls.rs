//! The operator's controls: only the operator's token opens them; a ban closes the
//! player's connections (an `error` with code `banned`, then 1008), refuses their next
//! `hello` and their HTTP calls, is stored (it holds across a restart), is listed, and is
//! lifted; in a fleet, a ban made on one node closes the player's connection on another.
//! Closing a room ends its game `aborted` and tells everyone in it why, on any node.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{Client, PATIENCE, TestServer, client_at, temp_dir, test_config};
use crate::conformance::check_http_answer;
use crate::fleet::TestFleet;
use crate::process::ParlorProcess;

/// The operator's token in these tests.
const OPERATOR_TOKEN: &str = "an-operator-token-of-forty-characters-00";

/// `method path` with the operator's `authorization` (none when `None`) and `body`:
/// the status and the JSON answer.
async fn admin(
    base: &str,
    method: reqwest::Method,
    path: &str,
    authorization: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = reqwest::Client::new().request(method.clone(), format!("{base}{path}"));
    if let Some(authorization) = authorization {
        request = request.header("Authorization", authorization);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let body = response.json().await.unwrap_or(Value::Null);
    let route = path.split('?').next().unwrap_or(path);
    check_http_answer(method.as_str(), route, status, &body);
    (status, body)
}

/// Two nodes of a fleet with the operator's token, and what they run on (kept alive
/// with them).
struct TwoNodes {
    a: ParlorProcess,
    b: ParlorProcess,
    _fleet: TestFleet,
    _dirs: [tempfile::TempDir; 2],
}

impl TwoNodes {
    /// The nodes for `test`, or `None` when the machine's services are not named.
    async fn start(test: &str) -> Option<TwoNodes> {
        let fleet = TestFleet::new(test).await?;
        let dirs = [temp_dir(), temp_dir()];
        let admin_env = [("PARLOR_ADMIN__TOKEN", OPERATOR_TOKEN)];
        let a = fleet.start_node_with(dirs[0].path(), &admin_env);
        let b = fleet.start_node_with(dirs[1].path(), &admin_env);
        Some(TwoNodes {
            a,
            b,
            _fleet: fleet,
            _dirs: dirs,
        })
    }
}

fn bearer() -> String {
    format!("Bearer {OPERATOR_TOKEN}")
}

/// Reads `client`'s frames until an `error`, which must say `banned` and give `reason`,
/// then the close, which must be 1008.
async fn closed_for_a_ban(client: &mut Client, reason: &str) {
    let error = client.until_error().await;
    assert_eq!(error["code"], "banned", "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains(reason), "{message}");
    assert_eq!(
        client.closed_with(PATIENCE).await,
        (1008, "banned".to_owned())
    );
}

impl Client {
    /// Skips frames until an `error`, which it returns.
    async fn until_error(&mut self) -> Value {
        loop {
            let message = self.recv().await;
            if message["type"] == "error" {
                return message;
            }
        }
    }
}

#[tokio::test]
async fn only_the_operators_token_opens_the_controls() {
    let dir = temp_dir();
    let off = TestServer::in_dir(dir.path()).await;
    let (status, body) = admin(
        &off.url(""),
        reqwest::Method::GET,
        "/api/admin/bans",
        Some(&bearer()),
        None,
    )
    .await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (403, &json!("forbidden")),
        "{body}"
    );
    off.stop().await;

    let mut config = test_config(dir.path());
    config.admin.token = OPERATOR_TOKEN.to_owned();
    let server = TestServer::start(config).await;
    let base = server.url("");
    let response = reqwest::get(server.url("/api/admin/connections"))
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 401);
    assert_eq!(response.headers()["www-authenticate"], "Bearer");
    let wrong = format!("Bearer {}", OPERATOR_TOKEN.replace('0', "1"));
    // Not a bearer token at all: 401; a bearer token that is not the operator's: 403.
    for (authorization, expected) in [
        ("Basic b3BlcmF0b3I6c2VjcmV0", 401),
        (OPERATOR_TOKEN, 401),
        (wrong.as_str(), 403),
    ] {
        let (status, body) = admin(
            &base,
            reqwest::Method::GET,
            "/api/admin/connections",
            Some(authorization),
            None,
        )
        .await;
        assert_eq!(status, expected, "{authorization}: {body}");
    }

    // With the token: who is connected, by address, with their players and rooms.
    let mut ann = server.connect().await;
    let welcome = ann.hello("Ann", None).await;
    let (room, _) = ann.create(["me", "open"]).await;
    let (status, body) = admin(
        &base,
        reqwest::Method::GET,
        "/api/admin/connections",
        Some(&bearer()),
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["connections"], 1, "{body}");
    let address = &body["addresses"][0];
    assert_eq!(address["address"], "127.0.0.1", "{body}");
    assert_eq!(address["players"], json!([welcome["player_id"]]), "{body}");
    assert_eq!(address["rooms"], json!([room]), "{body}");
    assert_eq!(
        server
            .metric("parlor_admin_actions_total{action=\"connections\"}")
            .await,
        1.0
    );
    server.stop().await;
}

#[tokio::test]
async fn a_banned_player_is_closed_out_refused_everywhere_and_let_back_when_lifted() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.admin.token = OPERATOR_TOKEN.to_owned();
    let server = TestServer::start(config.clone()).await;
    let base = server.url("");

    let mut ann = server.connect().await;
    let welcome = ann.hello("Ann", None).await;
    let (ann_id, ann_token) = (
        welcome["player_id"].as_str().unwrap().to_owned(),
        welcome["token"].as_str().unwrap().to_owned(),
    );
    let mut bea = server.player("Bea").await;
    ann.create(["me", "open"]).await;

    // Bad requests change nothing.
    for (body, said) in [
        (json!({}), "reason"),
        (json!({"reason": "  "}), "reason"),
        (
            json!({"reason": "spam", "expires_in_secs": 0}),
            "expires_in_secs",
        ),
        (json!({"reason": "spam", "until": "tomorrow"}), "until"),
    ] {
        let path = format!("/api/admin/players/{ann_id}/ban");
        let (status, answer) = admin(
            &base,
            reqwest::Method::POST,
            &path,
            Some(&bearer()),
            Some(body),
        )
        .await;
        assert_eq!(status, 400, "{answer}");
        assert!(
            answer["error"]["message"].as_str().unwrap().contains(said),
            "{answer}"
        );
    }
    let (status, answer) = admin(
        &base,
        reqwest::Method::POST,
        "/api/admin/players/p_nobody/ban",
        Some(&bearer()),
        Some(json!({"reason": "spam"})),
    )
    .await;
    assert_eq!(status, 404, "{answer}");

    let path = format!("/api/admin/players/{ann_id}/ban");
    let (status, answer) = admin(
        &base,
        reqwest::Method::POST,
        &path,
        Some(&bearer()),
        Some(json!({"reason": "Flooding the chat", "by": "Sue"})),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["connections_closed"], 1, "{answer}");
    assert_eq!(answer["ban"]["banned_by"], "Sue", "{answer}");
    assert_eq!(answer["ban"]["expires_at"], Value::Null, "{answer}");
    closed_for_a_ban(&mut ann, "Flooding the chat").await;

    // Bea is not touched.
    bea.send(json!({"type": "ping", "ref": "still here"})).await;
    assert_eq!(bea.until("pong").await["ref"], "still here");

    // Her next hello, and her HTTP calls, are refused.
    let mut again = server.connect().await;
    again
        .expect_error(
            json!({"type": "hello", "name": "Ann", "token": ann_token}),
            "banned",
        )
        .await;
    let response = server
        .get_with_authorization(
            "/api/games/g_0000000000000000",
            &format!("Bearer {ann_token}"),
        )
        .await;
    assert_eq!(response.status().as_u16(), 403);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "banned", "{body}");
    assert!(
        server
            .metric("parlor_bans_enforced_total{at=\"hello\"}")
            .await
            >= 1.0
    );
    assert!(
        server
            .metric("parlor_bans_enforced_total{at=\"http\"}")
            .await
            >= 1.0
    );
    assert_eq!(
        server
            .metric("parlor_bans_enforced_total{at=\"connection\"}")
            .await,
        1.0
    );
    assert_eq!(
        server
            .metric("parlor_admin_actions_total{action=\"ban\"}")
            .await,
        1.0
    );

    // The ban is stored: it is listed, and holds after a restart.
    server.stop().await;
    let server = TestServer::start(config).await;
    let base = server.url("");
    let (status, list) = admin(
        &base,
        reqwest::Method::GET,
        "/api/admin/bans",
        Some(&bearer()),
        None,
    )
    .await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["bans"].as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list["bans"][0]["player_id"], ann_id.as_str(), "{list}");
    assert_eq!(list["bans"][0]["reason"], "Flooding the chat", "{list}");
    let mut again = server.connect().await;
    again
        .expect_error(
            json!({"type": "hello", "name": "Ann", "token": ann_token}),
            "banned",
        )
        .await;

    // Lifted, she is back.
    let lift = format!("/api/admin/players/{ann_id}/ban?by=Sue");
    let (status, answer) =
        admin(&base, reqwest::Method::DELETE, &lift, Some(&bearer()), None).await;
    assert_eq!(status, 200, "{answer}");
    let (status, _) = admin(&base, reqwest::Method::DELETE, &lift, Some(&bearer()), None).await;
    assert_eq!(status, 404, "a second lift finds no ban");
    let mut back = server.connect().await;
    let welcome = back.hello("Ann", Some(&ann_token)).await;
    assert_eq!(welcome["player_id"], ann_id.as_str());
    server.stop().await;
}

#[tokio::test]
async fn a_ban_made_on_one_node_closes_the_player_out_of_every_node() {
    let test = "a_ban_made_on_one_node_closes_the_player_out_of_every_node";
    let Some(nodes) = TwoNodes::start(test).await else {
        return;
    };
    let (a, b) = (&nodes.a, &nodes.b);

    // Ann plays on node B.
    let (mut ann, welcome) = client_at(&b.address, "Ann", None).await;
    let ann_id = welcome["player_id"].as_str().unwrap().to_owned();
    let ann_token = welcome["token"].as_str().unwrap().to_owned();
    ann.create(["me", "open"]).await;

    // The operator bans her through node A, for an hour.
    let path = format!("/api/admin/players/{ann_id}/ban");
    let (status, answer) = admin(
        &format!("http://{}", a.address),
        reqwest::Method::POST,
        &path,
        Some(&bearer()),
        Some(json!({"reason": "Cheating with an engine", "expires_in_secs": 3600})),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer["ban"]["expires_at"].is_string(), "{answer}");
    closed_for_a_ban(&mut ann, "Cheating with an engine").await;

    // Neither node lets her say hello again.
    for node in [a, b] {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws", node.address))
            .await
            .unwrap();
        let mut again = Client { ws };
        again
            .expect_error(
                json!({"type": "hello", "name": "Ann", "token": ann_token}),
                "banned",
            )
            .await;
    }
    let (status, list) = admin(
        &format!("http://{}", b.address),
        reqwest::Method::GET,
        "/api/admin/bans",
        Some(&bearer()),
        None,
    )
    .await;
    assert_eq!(
        (status, list["bans"][0]["player_id"].as_str()),
        (200, Some(ann_id.as_str())),
        "{list}"
    );
    a.logged("operator banned a player", Duration::from_secs(5))
        .await;
    b.logged(
        "closed a banned player's connections",
        Duration::from_secs(5),
    )
    .await;
}

/// Closes `room` through the operator's route at `base` with `reason`.
async fn close_room(base: &str, room: &str, body: Value) -> (u16, Value) {
    let path = format!("/api/admin/rooms/{room}/close");
    admin(
        base,
        reqwest::Method::POST,
        &path,
        Some(&bearer()),
        Some(body),
    )
    .await
}

/// Reads `client`'s frames until `room_closed`, after a `game_over` with reason
/// `aborted` when `game_on`; returns `room_closed`.
async fn told_closed(client: &mut Client, game_on: bool) -> Value {
    if game_on {
        let over = client.until("game_over").await;
        assert_eq!(
            (&over["reason"], &over["winner"]),
            (&json!("aborted"), &Value::Null),
            "{over}"
        );
        assert_eq!(over["unrated"], "aborted", "{over}");
    }
    client.until("room_closed").await
}

#[tokio::test]
async fn an_operator_closes_a_room_its_game_aborted_and_everyone_told_why() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.admin.token = OPERATOR_TOKEN.to_owned();
    let server = TestServer::start(config).await;
    let base = server.url("");
    let ([mut ann, mut bob], room) = server.pair_in_room().await;
    let mut cara = server.player("Cara").await;
    cara.send(json!({"type": "watch", "room": room})).await;
    cara.until("joined").await;
    ann.play(&room, "4").await;
    let game_id = bob.until_state(|s| s["moves"] == 1).await["game_id"].clone();

    for (body, status) in [(json!({}), 400), (json!({"reason": ""}), 400)] {
        let (got, answer) = close_room(&base, &room, body).await;
        assert_eq!(got, status, "{answer}");
    }
    let (status, answer) = close_room(&base, "0123456789", json!({"reason": "x"})).await;
    assert_eq!(status, 404, "{answer}");

    let (status, answer) =
        close_room(&base, &room, json!({"reason": "Abusive chat", "by": "Sue"})).await;
    assert_eq!((status, &answer["closed"]), (200, &json!(true)), "{answer}");
    for client in [&mut ann, &mut bob, &mut cara] {
        let closed = told_closed(client, true).await;
        assert_eq!(
            (&closed["room"], &closed["reason"]),
            (&json!(room), &json!("Abusive chat")),
            "{closed}"
        );
        assert!(
            closed["message"].as_str().unwrap().contains("Abusive chat"),
            "{closed}"
        );
    }

    // The room is gone; its game is stored as aborted; the connections stay open.
    let (status, _) = server.get_json(&format!("/api/rooms/{room}")).await;
    assert_eq!(status, 404);
    let (status, game) = server
        .get_json(&format!("/api/games/{}", game_id.as_str().unwrap()))
        .await;
    assert_eq!(status, 200);
    assert_eq!(game["reason"], "aborted", "{game}");
    ann.send(json!({"type": "ping", "ref": "after"})).await;
    assert_eq!(ann.until("pong").await["ref"], "after");
    assert_eq!(
        server
            .metric("parlor_admin_actions_total{action=\"close_room\"}")
            .await,
        1.0
    );
    server.stop().await;
}

#[tokio::test]
async fn an_operator_closes_a_room_held_by_another_node() {
    let test = "an_operator_closes_a_room_held_by_another_node";
    let Some(nodes) = TwoNodes::start(test).await else {
        return;
    };
    let (a, b) = (&nodes.a, &nodes.b);

    // Ann opens a room on node A and waits in it.
    let (mut ann, _) = client_at(&a.address, "Ann", None).await;
    let (room, _) = ann.create(["me", "open"]).await;

    // The operator closes it through node B.
    let (status, answer) = close_room(
        &format!("http://{}", b.address),
        &room,
        json!({"reason": "Spam room"}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let closed = told_closed(&mut ann, false).await;
    assert_eq!(closed["reason"], "Spam room", "{closed}");
    a.logged("the operator closed the room", Duration::from_secs(5))
        .await;
}
