//! `GET /api/openapi.json`: the HTTP API described in OpenAPI 3.1. Its operations come
//! from the handlers' own `#[utoipa::path]` annotations; its schemas from the types that
//! write each answer (schemars, as the protocol's schema is made), the room's `state`
//! and its parts being the protocol's own. docs/openapi.json is a copy a test keeps fresh.

use std::sync::LazyLock;

use actix_web::HttpResponse;
use schemars::JsonSchema;
use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde_json::{Map, Value, json};
use utoipa::OpenApi;

use super::admin;
use super::health::{self, Health, Readiness};
use super::rules;
use super::scrape;
use super::{ErrorBody, Leaderboard, PlayerGames, games, protocol_schema};
use crate::lobby::RoomsPage;
use crate::protocol::{PROTOCOL_VERSION, StateMsg, schema, unwrap_descriptions};

/// The operations, from the handlers' annotations.
#[derive(OpenApi)]
#[openapi(
    paths(
        health::health,
        health::ready,
        scrape::metrics,
        super::rooms,
        super::room,
        games::game,
        games::game_pgn,
        games::game_pdn,
        rules::rules,
        super::leaderboard,
        super::player_games,
        protocol_schema::protocol_schema,
        openapi,
        admin::connections,
        admin::list_bans,
        admin::ban,
        admin::unban,
        admin::close_room,
    ),
    tags(
        (name = "rooms", description = "The live rooms"),
        (name = "games", description = "Stored games, players' games, the leaderboards and each game's rules"),
        (name = "operations", description = "Liveness, readiness and metrics, for operators and their tools"),
        (name = "admin", description = "The operator's controls (`[admin] token`; docs/OPERATIONS.md)"),
        (name = "documents", description = "The descriptions of the protocol and of this API"),
    )
)]
struct Operations;

/// The document, generated on first use.
static DOCUMENT: LazyLock<Value> = LazyLock::new(generate);

/// The document as served and kept in docs/openapi.json: indented, with a final newline.
static TEXT: LazyLock<String> = LazyLock::new(|| format!("{:#}\n", *DOCUMENT));

/// This document: the HTTP API in OpenAPI 3.1.
#[utoipa::path(get, path = "/api/openapi.json", tag = "documents", responses(
    (status = 200, description = "The HTTP API in OpenAPI 3.1", content_type = "application/json", body = Object),
))]
pub(super) async fn openapi() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(TEXT.as_str())
}

/// Builds the document: the operations, then every schema they name.
fn generate() -> Value {
    let mut document = serde_json::to_value(Operations::openapi()).unwrap_or_else(|_| json!({}));
    document["info"] = json!({
        "title": "Parlor HTTP API",
        "version": env!("CARGO_PKG_VERSION"),
        "description": format!(
            "The HTTP side of a Parlor server: live rooms, stored games, leaderboards, health, metrics and the operator's controls. Games are played over the WebSocket at /ws, whose protocol (version {PROTOCOL_VERSION}) /api/protocol.json describes. Every error answer is {{\"error\": {{\"code\", \"message\"}}}}."
        ),
        "license": {"name": "MIT OR Apache-2.0", "identifier": "MIT OR Apache-2.0"},
    });
    let mut schemas = schemas();
    for schema in schemas.values_mut() {
        rebase_refs(schema);
    }
    document["components"] = json!({
        "schemas": schemas,
        "securitySchemes": {
            "operator": {
                "type": "http",
                "scheme": "bearer",
                "description": "The operator's token, `[admin] token`.",
            },
            "metrics": {
                "type": "http",
                "scheme": "bearer",
                "description": "The metrics token, `[admin] metrics_token`, when it is set.",
            },
            "player": {
                "type": "http",
                "scheme": "bearer",
                "description": "A player's token (from `welcome`) or the site's sign-in token.",
            },
        },
    });
    unwrap_descriptions(&mut document);
    document
}

/// Every schema the operations name, by name: the protocol's definitions (the room's
/// `state` among them), then the HTTP answers' and requests' own.
fn schemas() -> Map<String, Value> {
    let mut schemas = schema()["$defs"].as_object().cloned().unwrap_or_default();
    let mut written = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    let mut answers = vec![
        named::<Health>(&mut written),
        named::<Readiness>(&mut written),
        // Named after its `type` by serde; here after what it is.
        ("StateMessage".to_owned(), named::<StateMsg>(&mut written).1),
        named::<RoomsPage>(&mut written),
        named::<super::views::GameView>(&mut written),
        named::<PlayerGames>(&mut written),
        named::<Leaderboard>(&mut written),
        named::<ErrorBody<'static>>(&mut written),
        rules::answer_schema(&mut written),
    ];
    answers.extend(admin::answer_schemas(&mut written));
    let mut read = SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator();
    answers.extend(admin::request_schemas(&mut read));
    for (name, schema) in answers
        .into_iter()
        .chain(written.take_definitions(true))
        .chain(read.take_definitions(true))
    {
        schemas.entry(name).or_insert(schema);
    }
    schemas
}

/// `T`'s name and its own schema, out of `generator`'s definitions.
pub(super) fn named<T: JsonSchema>(generator: &mut SchemaGenerator) -> (String, Value) {
    let mut schema = T::json_schema(generator).to_value();
    if let Some(fields) = schema.as_object_mut() {
        fields.remove("$schema");
    }
    (T::schema_name().into_owned(), schema)
}

/// Points every `$ref` of `value` at `#/components/schemas/` rather than `#/$defs/`.
fn rebase_refs(value: &mut Value) {
    match value {
        Value::Object(fields) => {
            for (key, field) in fields.iter_mut() {
                match field {
                    Value::String(target) if key == "$ref" => {
                        if let Some(name) = target.strip_prefix("#/$defs/") {
                            *target = format!("#/components/schemas/{name}");
                        }
                    }
                    _ => rebase_refs(field),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(rebase_refs),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COPY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/openapi.json");

    #[test]
    fn the_docs_copy_is_the_document_served() {
        if std::env::var_os("PARLOR_BLESS").is_some_and(|bless| bless == "1") {
            std::fs::write(COPY, TEXT.as_str()).unwrap();
        }
        let copy = std::fs::read_to_string(COPY).unwrap_or_default();
        assert!(
            copy == *TEXT,
            "docs/openapi.json is not the document the server serves; rewrite it with \
             `PARLOR_BLESS=1 cargo test -p parlor --lib http::openapi` and commit it"
        );
    }

    #[test]
    fn every_reference_names_a_schema_and_no_two_types_share_a_name() {
        let document = &*DOCUMENT;
        let schemas = document["components"]["schemas"].as_object().unwrap();
        let text = document.to_string();
        for piece in text.split("\"$ref\":\"").skip(1) {
            let target = piece.split('"').next().unwrap();
            let name = target
                .strip_prefix("#/components/schemas/")
                .unwrap_or_else(|| panic!("a $ref outside the components: {target}"));
            assert!(schemas.contains_key(name), "{target} names no schema");
        }
        // The protocol's definitions and the HTTP answers' share names only for the same
        // types, described alike.
        let protocol = schema()["$defs"].as_object().unwrap();
        let mut written = SchemaSettings::draft2020_12()
            .for_serialize()
            .into_generator();
        let _ = named::<RoomsPage>(&mut written);
        let _ = named::<super::super::views::GameView>(&mut written);
        for (name, mine) in written.take_definitions(true) {
            if let Some(theirs) = protocol.get(&name) {
                let mut mine = mine;
                unwrap_descriptions(&mut mine);
                assert_eq!(&mine, theirs, "two types are both called {name}");
            }
        }
    }

    #[test]
    fn every_operation_says_what_it_answers() {
        let document = &*DOCUMENT;
        assert_eq!(document["openapi"], "3.1.0");
        let paths = document["paths"].as_object().unwrap();
        for path in [
            "/healthz",
            "/readyz",
            "/metrics",
            "/api/rooms",
            "/api/rooms/{id}",
            "/api/games/{id}",
            "/api/rules/{game}",
            "/api/leaderboard",
            "/api/players/{id}/games",
            "/api/protocol.json",
            "/api/openapi.json",
            "/api/admin/connections",
            "/api/admin/bans",
            "/api/admin/players/{id}/ban",
            "/api/admin/rooms/{id}/close",
        ] {
            let operations = paths[path]
                .as_object()
                .unwrap_or_else(|| panic!("{path} is missing"));
            for (method, operation) in operations {
                let responses = operation["responses"].as_object().unwrap();
                assert!(responses.contains_key("200"), "{method} {path} has no 200");
            }
        }
    }
}
