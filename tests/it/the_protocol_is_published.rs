//! The protocol published for machines: `GET /api/protocol.json` serves one JSON
//! Schema of draft 2020-12, the one the server generates, whose client and server
//! messages are each a `oneOf` told apart by `type`, and which lists every error code;
//! and `GET /api/openapi.json` serves the HTTP API in OpenAPI 3.1, as docs/openapi.json.

use parlor::protocol::ErrorCode;
use serde_json::Value;

use crate::common::{TestServer, temp_dir};

/// The `type` of each branch of the definition `name`'s `oneOf`; fails the test if a
/// branch has no `type` constant.
fn types(schema: &Value, name: &str) -> Vec<String> {
    let branches = schema["$defs"][name]["oneOf"]
        .as_array()
        .unwrap_or_else(|| panic!("{name} is no oneOf"));
    branches
        .iter()
        .map(|branch| {
            let kind = &branch["properties"]["type"];
            assert_eq!(kind["type"], "string", "{name}: {branch}");
            assert!(
                branch["required"]
                    .as_array()
                    .unwrap()
                    .contains(&"type".into())
            );
            kind["const"]
                .as_str()
                .unwrap_or_else(|| panic!("a branch of {name} has no type constant: {branch}"))
                .to_owned()
        })
        .collect()
}

#[tokio::test]
async fn the_protocol_is_served_as_a_json_schema() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let response = reqwest::get(server.url("/api/protocol.json"))
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"],
        "application/schema+json"
    );
    let schema: Value = response.json().await.unwrap();
    assert_eq!(&schema, parlor::protocol::schema());
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    if let Err(error) = jsonschema::meta::validate(&schema) {
        panic!("the schema is not a valid JSON Schema 2020-12 document: {error}");
    }

    let client = types(&schema, "ClientMessage");
    for kind in ["hello", "create_room", "join", "move", "chat", "ping"] {
        assert!(
            client.iter().any(|known| known == kind),
            "{kind}: {client:?}"
        );
    }
    let server_frames = types(&schema, "ServerMessage");
    for kind in [
        "welcome",
        "error",
        "joined",
        "state",
        "moved",
        "game_over",
        "chat",
    ] {
        assert!(
            server_frames.iter().any(|known| known == kind),
            "{kind}: {server_frames:?}"
        );
    }

    let codes: Vec<&str> = schema["$defs"]["ErrorCode"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|code| code["const"].as_str().unwrap())
        .collect();
    for code in <ErrorCode as strum::VariantArray>::VARIANTS {
        assert!(
            codes.contains(&code.as_str()),
            "{code:?} is not in {codes:?}"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn the_http_api_is_served_as_openapi_3_1_and_kept_in_docs() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let (status, served) = server.get_json("/api/openapi.json").await;
    assert_eq!(status, 200);
    assert_eq!(served["openapi"], "3.1.0");
    let copy: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/openapi.json"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        served, copy,
        "docs/openapi.json is not what the server serves"
    );
    // Every schema it holds is valid JSON Schema 2020-12, OpenAPI 3.1's dialect.
    for (name, schema) in served["components"]["schemas"].as_object().unwrap() {
        if let Err(error) = jsonschema::draft202012::meta::validate(schema) {
            panic!("{name} is not a valid schema: {error}");
        }
    }
    server.stop().await;
}
