//! Sign-in through a site's own accounts (`[auth]`): a token the site signs seats its
//! user as one player from every device and after renewal; a bad token is refused by
//! its own code while the socket stays up; the algorithm comes from the configured key,
//! never the token; tokens PyJWT signs (as a Python site would) are accepted; a guest
//! is linked once; guests can be kept to watching.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use parlor::config::{AuthConfig, Config};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::common::{Client, TestServer, temp_dir, test_config};

const SECRET: &str = "a test secret that is at least 32 bytes long";
const ISSUER: &str = "https://games.example";
const AUDIENCE: &str = "parlor";

pub(crate) fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/auth")
        .join(name)
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// The claims a site signs for its user `sub`, named `name`, valid for ten minutes.
pub(crate) fn claims(sub: &str, name: &str) -> Value {
    json!({"iss": ISSUER, "aud": AUDIENCE, "sub": sub, "name": name, "iat": now(), "exp": now() + 600})
}

fn hs256(claims: &Value, secret: &[u8]) -> String {
    encode(
        &Header::new(Algorithm::HS256),
        claims,
        &EncodingKey::from_secret(secret),
    )
    .unwrap()
}

pub(crate) fn rs256(claims: &Value, kid: Option<&str>) -> String {
    let mut header = Header::new(Algorithm::RS256);
    header.kid = kid.map(str::to_owned);
    let key = std::fs::read(fixture("rsa_private.pem")).unwrap();
    encode(&header, claims, &EncodingKey::from_rsa_pem(&key).unwrap()).unwrap()
}

/// A server whose `[auth]` checks HS256 tokens of [`ISSUER`] for [`AUDIENCE`], changed
/// by `change`.
pub(crate) async fn start_server(dir: &Path, change: impl FnOnce(&mut AuthConfig)) -> TestServer {
    TestServer::start(config(dir, change)).await
}

fn config(dir: &Path, change: impl FnOnce(&mut AuthConfig)) -> Config {
    let mut config = test_config(dir);
    config.auth.jwt_hs256_secret = SECRET.to_owned();
    config.auth.issuer = ISSUER.to_owned();
    config.auth.audience = AUDIENCE.to_owned();
    change(&mut config.auth);
    config
}

/// Says hello with the site's token `jwt` (and a guest's `token`); the reply.
pub(crate) async fn hello_with(client: &mut Client, jwt: &str, token: Option<&str>) -> Value {
    let mut hello = json!({"type": "hello", "jwt": jwt});
    if let Some(token) = token {
        hello["token"] = json!(token);
    }
    client.send(hello).await;
    client.recv().await
}

#[tokio::test]
async fn a_site_user_is_one_player_on_every_device_and_after_renewal() {
    let dir = temp_dir();
    let server = start_server(dir.path(), |_| {}).await;
    let mut phone = server.connect().await;
    let first = hello_with(
        &mut phone,
        &hs256(&claims("user-42", "Ann"), SECRET.as_bytes()),
        None,
    )
    .await;
    assert_eq!(first["type"], "welcome", "{first}");
    assert_eq!(first["signed_in"], true);
    assert_eq!(first["name"], "Ann");
    assert!(
        first.get("token").is_none(),
        "a signed-in player is given no guest token: {first}"
    );
    // Signed in, the player plays.
    let (room, _) = phone.create(["me", "open"]).await;
    assert!(!room.is_empty());

    // Another device, a token issued later (renewed), and the site renamed the user.
    let mut renewed = claims("user-42", "Annie");
    renewed["iat"] = json!(now() + 1);
    let mut laptop = server.connect().await;
    let again = hello_with(&mut laptop, &hs256(&renewed, SECRET.as_bytes()), None).await;
    assert_eq!(again["type"], "welcome", "{again}");
    assert_eq!(again["player_id"], first["player_id"]);
    assert_eq!(again["name"], "Annie");

    // Another account of the same site is another player.
    let mut other = server.connect().await;
    let bob = hello_with(
        &mut other,
        &hs256(&claims("user-7", "Bob"), SECRET.as_bytes()),
        None,
    )
    .await;
    assert_ne!(bob["player_id"], first["player_id"]);

    // The stored game's players' chat opens to the site's token on HTTP, as to a guest's.
    let response = server
        .get_with_authorization(
            "/api/games/g_none",
            &format!(
                "Bearer {}",
                hs256(&claims("user-42", "Annie"), SECRET.as_bytes())
            ),
        )
        .await;
    assert_eq!(
        response.status().as_u16(),
        404,
        "the token is taken; the game is unknown"
    );
    let response = server
        .get_with_authorization(
            "/api/games/g_none",
            &format!(
                "Bearer {}",
                hs256(
                    &claims("user-42", "Annie"),
                    b"another secret, also 32 bytes long!!"
                )
            ),
        )
        .await;
    assert_eq!(response.status().as_u16(), 401);
    server.stop().await;
}

#[tokio::test]
async fn bad_tokens_are_refused_by_code_and_the_socket_stays_up() {
    let dir = temp_dir();
    let server = start_server(dir.path(), |auth| auth.leeway_secs = 0).await;
    let mut client = server.connect().await;
    let secret = SECRET.as_bytes();
    let with = |change: &dyn Fn(&mut Value)| {
        let mut claims = claims("user-1", "Cara");
        change(&mut claims);
        hs256(&claims, secret)
    };
    let alg_none = {
        let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
        let body = URL_SAFE_NO_PAD.encode(claims("user-1", "Cara").to_string());
        format!("{header}.{body}.")
    };
    let cases: Vec<(&str, String)> = vec![
        ("token_expired", with(&|c| c["exp"] = json!(now() - 3600))),
        (
            "token_not_yet_valid",
            with(&|c| c["nbf"] = json!(now() + 3600)),
        ),
        (
            "token_invalid",
            hs256(
                &claims("user-1", "Cara"),
                b"not the site's secret, though 32+ bytes",
            ),
        ),
        (
            "token_invalid",
            with(&|c| c["iss"] = json!("https://elsewhere.example")),
        ),
        ("token_invalid", with(&|c| c["aud"] = json!("another-app"))),
        (
            "token_invalid",
            with(&|c| drop(c.as_object_mut().unwrap().remove("sub"))),
        ),
        (
            "token_invalid",
            with(&|c| drop(c.as_object_mut().unwrap().remove("exp"))),
        ),
        ("token_invalid", alg_none),
        ("token_invalid", "not a token at all".to_owned()),
    ];
    for (code, jwt) in cases {
        client
            .expect_error(json!({"type": "hello", "jwt": jwt}), code)
            .await;
    }
    // The socket is still up and nobody is signed in: a guest's hello works.
    let welcome = client.hello("Cara", None).await;
    assert!(welcome.get("signed_in").is_none(), "{welcome}");
    server.stop().await;
}

#[tokio::test]
async fn the_algorithm_comes_from_the_key_not_the_token() {
    let dir = temp_dir();
    let public = fixture("rsa_public.pem");
    let server = start_server(dir.path(), |auth| {
        auth.jwt_hs256_secret.clear();
        auth.jwt_public_key_file = public.display().to_string();
    })
    .await;
    let mut client = server.connect().await;
    // HS256 "signed" with the public key, which anyone has: refused.
    let public_pem = std::fs::read(&public).unwrap();
    client
        .expect_error(
            json!({"type": "hello", "jwt": hs256(&claims("user-1", "Dan"), &public_pem)}),
            "token_invalid",
        )
        .await;
    let welcome = hello_with(&mut client, &rs256(&claims("user-1", "Dan"), None), None).await;
    assert_eq!(welcome["signed_in"], true, "{welcome}");
    server.stop().await;

    // The same key published in a JWK set: the token names it by `kid`.
    let dir = temp_dir();
    let server = start_server(dir.path(), |auth| {
        auth.jwt_hs256_secret.clear();
        auth.jwks_file = fixture("jwks.json").display().to_string();
    })
    .await;
    let mut client = server.connect().await;
    client
        .expect_error(
            json!({"type": "hello", "jwt": rs256(&claims("user-1", "Dan"), Some("retired-key"))}),
            "token_invalid",
        )
        .await;
    let welcome = hello_with(
        &mut client,
        &rs256(&claims("user-1", "Dan"), Some("site-key-1")),
        None,
    )
    .await;
    assert_eq!(welcome["signed_in"], true, "{welcome}");
    server.stop().await;
}

/// A token of `claims` signed with the private key in the fixture `pem` by `algorithm`.
fn signed_with(pem: &str, algorithm: Algorithm, claims: &Value) -> String {
    let key = std::fs::read(fixture(pem)).unwrap();
    let key = match algorithm {
        Algorithm::ES256 => EncodingKey::from_ec_pem(&key),
        Algorithm::EdDSA => EncodingKey::from_ed_pem(&key),
        _ => EncodingKey::from_rsa_pem(&key),
    }
    .unwrap();
    encode(&Header::new(algorithm), claims, &key).unwrap()
}

#[tokio::test]
async fn each_kind_of_public_key_verifies_its_own_algorithm() {
    let kinds = [
        ("rsa_public.pem", "rsa_private.pem", Algorithm::RS256),
        ("ec_public.pem", "ec_private.pem", Algorithm::ES256),
        (
            "ed25519_public.pem",
            "ed25519_private.pem",
            Algorithm::EdDSA,
        ),
    ];
    for (index, (public, private, algorithm)) in kinds.iter().enumerate() {
        let dir = temp_dir();
        let server = start_server(dir.path(), |auth| {
            auth.jwt_hs256_secret.clear();
            auth.jwt_public_key_file = fixture(public).display().to_string();
        })
        .await;
        let mut client = server.connect().await;
        // A token signed by another kind of key is refused.
        let (_, other, other_algorithm) = kinds[(index + 1) % kinds.len()];
        let foreign = signed_with(other, other_algorithm, &claims("user-3", "Flo"));
        client
            .expect_error(json!({"type": "hello", "jwt": foreign}), "token_invalid")
            .await;
        let own = signed_with(private, *algorithm, &claims("user-3", "Flo"));
        let welcome = hello_with(&mut client, &own, None).await;
        assert_eq!(welcome["signed_in"], true, "{algorithm:?}: {welcome}");
        server.stop().await;
    }
}

#[tokio::test]
async fn a_guest_links_once_keeping_their_player() {
    let dir = temp_dir();
    let server = start_server(dir.path(), |_| {}).await;
    let mut guest = server.connect().await;
    let as_guest = guest.hello("Gus", None).await;
    let token = as_guest["token"].as_str().unwrap().to_owned();

    let jwt = hs256(&claims("gus-account", "Gus"), SECRET.as_bytes());
    let mut linking = server.connect().await;
    let linked = hello_with(&mut linking, &jwt, Some(&token)).await;
    assert_eq!(linked["type"], "welcome", "{linked}");
    assert_eq!(
        linked["player_id"], as_guest["player_id"],
        "the guest's player, games and ratings kept"
    );
    assert_eq!(linked["signed_in"], true);
    // From then on the account alone is that player.
    let mut later = server.connect().await;
    let alone = hello_with(&mut later, &jwt, None).await;
    assert_eq!(alone["player_id"], as_guest["player_id"]);
    // The guest's token is retired: it no longer speaks for the player.
    let mut old_token = server.connect().await;
    let stranger = old_token.hello("Gus2", Some(&token)).await;
    assert_ne!(stranger["player_id"], as_guest["player_id"]);

    // Another guest cannot take the account over, nor can the account take a second guest.
    let mut second = server.connect().await;
    let other = second.hello("Hal", None).await;
    let mut trying = server.connect().await;
    trying
        .expect_error(
            json!({"type": "hello", "jwt": jwt, "token": other["token"]}),
            "already_linked",
        )
        .await;
    server.stop().await;
}

/// A signed-in member with a room of theirs open, the room, and a guest who said hello.
async fn a_members_room_and_a_guest(server: &TestServer) -> (Client, String, Client) {
    let mut member = server.connect().await;
    let jwt = hs256(&claims("m-1", "Mia"), SECRET.as_bytes());
    hello_with(&mut member, &jwt, None).await;
    let (room, _) = member.create(["me", "open"]).await;
    let mut guest = server.connect().await;
    guest.hello("Walker", None).await;
    (member, room, guest)
}

#[tokio::test]
async fn guests_may_watch_but_not_play_where_the_site_says_so() {
    let dir = temp_dir();
    let server = start_server(dir.path(), |auth| auth.guests = false).await;
    let (_member, room, mut guest) = a_members_room_and_a_guest(&server).await;
    guest
        .expect_error(
            json!({"type": "create_room", "game": "tictactoe", "seats": ["me", "open"]}),
            "sign_in_required",
        )
        .await;
    guest
        .expect_error(
            json!({"type": "join", "room": room, "seat": 1}),
            "sign_in_required",
        )
        .await;
    guest
        .expect_error(
            json!({"type": "quick_join", "game": "tictactoe"}),
            "sign_in_required",
        )
        .await;
    guest.send(json!({"type": "watch", "room": room})).await;
    let watching = guest.until("joined").await;
    assert_eq!(watching["role"], "spectator");
    server.stop().await;

    let dir = temp_dir();
    let server = start_server(dir.path(), |auth| {
        auth.guests = false;
        auth.spectators_need_sign_in = true;
    })
    .await;
    let (_member, room, mut guest) = a_members_room_and_a_guest(&server).await;
    guest
        .expect_error(json!({"type": "watch", "room": room}), "sign_in_required")
        .await;
    server.stop().await;
}

#[tokio::test]
async fn a_server_without_sign_in_refuses_site_tokens() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut client = server.connect().await;
    client
        .expect_error(
            json!({"type": "hello", "jwt": hs256(&claims("user-1", "Ivy"), SECRET.as_bytes())}),
            "token_invalid",
        )
        .await;
    server.stop().await;
}

#[tokio::test]
async fn a_server_with_two_key_sources_does_not_start() {
    let dir = temp_dir();
    let config = config(dir.path(), |auth| {
        auth.jwks_file = fixture("jwks.json").display().to_string();
    });
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let ended = parlor::run(config, listener, CancellationToken::new()).await;
    let error = ended.expect_err("two key sources are refused").to_string();
    assert!(error.contains("exactly one"), "{error}");
}

/// A token signed by PyJWT, the library a Python site signs with: `algorithm` over
/// `claims` with `key` (the secret, or a PEM private key's path). `None` outside CI when
/// python3 or PyJWT is missing (said on stderr); under CI (`CI` set) that fails the test.
fn signed_by_pyjwt(claims: &Value, algorithm: &str, key: &str) -> Option<String> {
    const SIGN: &str = "import json, sys, jwt\n\
        claims, algorithm, key = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]\n\
        if algorithm != 'HS256':\n    key = open(key).read()\n\
        print(jwt.encode(claims, key, algorithm=algorithm))";
    let output = std::process::Command::new("python3")
        .args(["-c", SIGN, &claims.to_string(), algorithm, key])
        .output();
    match output {
        Ok(output) if output.status.success() => {
            Some(String::from_utf8(output.stdout).unwrap().trim().to_owned())
        }
        failed => {
            let why = match failed {
                Ok(output) => String::from_utf8_lossy(&output.stderr).into_owned(),
                Err(error) => error.to_string(),
            };
            assert!(
                std::env::var_os("CI").is_none(),
                "PyJWT could not sign a token under CI (pip install 'PyJWT[crypto]'): {why}"
            );
            eprintln!(
                "skipped: python3 with PyJWT is needed to sign tokens as a site would ({why})"
            );
            None
        }
    }
}

#[tokio::test]
async fn tokens_a_python_site_signs_with_pyjwt_are_accepted() {
    let Some(hs) = signed_by_pyjwt(&claims("py-1", "Pia"), "HS256", SECRET) else {
        return;
    };
    let rsa_key = fixture("rsa_private.pem");
    let rs = signed_by_pyjwt(&claims("py-2", "Rafa"), "RS256", rsa_key.to_str().unwrap()).unwrap();
    let dir = temp_dir();
    let server = start_server(dir.path(), |_| {}).await;
    let mut client = server.connect().await;
    let welcome = hello_with(&mut client, &hs, None).await;
    assert_eq!(
        (&welcome["type"], &welcome["name"], &welcome["signed_in"]),
        (&json!("welcome"), &json!("Pia"), &json!(true)),
        "{welcome}"
    );
    server.stop().await;

    let dir = temp_dir();
    let server = start_server(dir.path(), |auth| {
        auth.jwt_hs256_secret = String::new();
        auth.jwt_public_key_file = fixture("rsa_public.pem").to_string_lossy().into_owned();
    })
    .await;
    let mut client = server.connect().await;
    let welcome = hello_with(&mut client, &rs, None).await;
    assert_eq!(
        (&welcome["type"], &welcome["name"]),
        (&json!("welcome"), &json!("Rafa")),
        "{welcome}"
    );
    server.stop().await;
}
