//! Names a stranger might use to pass for someone else: invisible characters and
//! direction overrides are refused, and a look-alike of a taken name is taken.

use crate::common::{TestServer, temp_dir};
use serde_json::json;

#[tokio::test]
async fn invisible_characters_are_refused_and_the_connection_stays_up() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut client = server.connect().await;
    for name in [
        "Ann\u{202E}rekcah",
        "Ad\u{200B}min",
        "\u{2066}Bob\u{2069}",
        "Zo\u{200D}e",
    ] {
        client.send(json!({"type": "hello", "name": name})).await;
        let error = client.expect("error").await;
        assert_eq!(error["code"], "bad_name", "{name:?}: {error}");
        assert!(
            error["message"].as_str().unwrap().contains("invisible"),
            "{error}"
        );
    }
    // Nothing was registered, and the same connection can still say hello.
    let welcome = client.hello("Ann", None).await;
    assert_eq!(welcome["name"], "Ann");
    server.stop().await;
}

#[tokio::test]
async fn a_look_alike_of_a_taken_name_is_taken() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let _alice = server.player("Alice").await;
    let mut other = server.connect().await;
    // A Cyrillic capital A, and a digit one for the l.
    for name in ["\u{0410}lice", "A1ice"] {
        other.send(json!({"type": "hello", "name": name})).await;
        let error = other.expect("error").await;
        assert_eq!(error["code"], "name_taken", "{name:?}: {error}");
    }
    server.stop().await;
}
