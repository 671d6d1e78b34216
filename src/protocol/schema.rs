//! The protocol as one JSON Schema (draft 2020-12), generated once from the types that
//! write and read the frames: `$defs.ClientMessage` is every message a client sends,
//! `$defs.ServerMessage` every frame the server sends, each a `oneOf` discriminated by
//! its `type`, and beside them the values they are made of.

use std::sync::LazyLock;

use schemars::JsonSchema;
use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde_json::{Map, Value, json};

use super::{ClientMsg, GameOverMsg, MovedMsg, PROTOCOL_VERSION, ServerMsg, StateMsg};

/// The document, generated on first use.
static DOCUMENT: LazyLock<Value> = LazyLock::new(generate);

/// The document as it is served and kept in docs/protocol.schema.json: indented JSON and
/// a final newline.
static TEXT: LazyLock<String> = LazyLock::new(|| format!("{:#}\n", *DOCUMENT));

/// The protocol's JSON Schema.
pub fn schema() -> &'static Value {
    &DOCUMENT
}

/// The protocol's JSON Schema as text, as `GET /api/protocol.json` serves it.
pub fn schema_text() -> &'static str {
    &TEXT
}

/// What every client message may carry besides its own fields (PROTOCOL.md §4).
fn reference() -> Value {
    json!({
        "description": "Any JSON value chosen by the client; the server copies it, unchanged, into the reply to this message. A whole number in it must fit in 64 bits (send a larger one as a string).",
    })
}

/// Builds the document: the server's frames described as serde writes them, the client's
/// messages as serde reads them, each with the definitions it uses.
fn generate() -> Value {
    let mut server = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    let replies = definition_of::<ServerMsg>(&mut server);
    let broadcasts = [
        definition_of::<StateMsg>(&mut server),
        definition_of::<MovedMsg>(&mut server),
        definition_of::<GameOverMsg>(&mut server),
    ];
    let (requests, read) = client_messages();

    let mut server_frames = branches(replies);
    server_frames.extend(broadcasts);
    let mut client_messages = branches(requests);
    for message in &mut client_messages {
        if let Some(properties) = message.get_mut("properties").and_then(Value::as_object_mut) {
            properties.insert("ref".to_owned(), reference());
        }
    }

    let mut definitions = server.take_definitions(true);
    // A type both sides use is described once, as written (a test checks that it
    // reads the same).
    for (name, schema) in read {
        definitions.entry(name).or_insert(schema);
    }
    definitions.insert(
        "ClientMessage".to_owned(),
        json!({
            "description": "A message a client sends: one JSON object per WebSocket text frame, tagged by `type`. Unknown fields are ignored, and optional fields may be omitted or null.",
            "oneOf": client_messages,
        }),
    );
    definitions.insert(
        "ServerMessage".to_owned(),
        json!({
            "description": "A frame the server sends: one JSON object per WebSocket text frame, tagged by `type`. Clients must ignore message types and fields they do not know.",
            "oneOf": server_frames,
        }),
    );
    let mut document = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": format!("The Parlor protocol, version {PROTOCOL_VERSION}"),
        "description": "Every frame of Parlor's WebSocket protocol (docs/PROTOCOL.md): `$defs.ClientMessage` is a message a client sends, `$defs.ServerMessage` a frame the server sends, each a `oneOf` discriminated by its `type`.",
        "$defs": definitions,
    });
    unwrap_descriptions(&mut document);
    document
}

/// [`ClientMsg`]'s schema, as serde reads it, and the definitions it uses.
fn client_messages() -> (Value, Map<String, Value>) {
    let mut client = SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator();
    let requests = definition_of::<ClientMsg>(&mut client);
    (requests, client.take_definitions(true))
}

/// Joins the lines of every description, as doc comments wrap them, into one line per
/// paragraph.
pub fn unwrap_descriptions(value: &mut Value) {
    match value {
        Value::Object(fields) => {
            for (key, field) in fields.iter_mut() {
                match field {
                    Value::String(text) if key == "description" => {
                        *text = text
                            .split("\n\n")
                            .map(|paragraph| paragraph.replace('\n', " "))
                            .collect::<Vec<_>>()
                            .join("\n\n");
                    }
                    _ => unwrap_descriptions(field),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(unwrap_descriptions),
        _ => {}
    }
}

/// `T`'s own schema, out of `generator`'s definitions (which keep what it refers to).
fn definition_of<T: JsonSchema>(generator: &mut SchemaGenerator) -> Value {
    let mut schema = T::json_schema(generator).to_value();
    if let Some(fields) = schema.as_object_mut() {
        fields.remove("$schema");
    }
    schema
}

/// The branches of an enum's `oneOf`.
fn branches(schema: Value) -> Vec<Value> {
    match schema {
        Value::Object(mut fields) => match fields.remove("oneOf") {
            Some(Value::Array(branches)) => branches,
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::fmt::Display;
    use std::str::FromStr;

    use parlor_room::chat::ChatChannel;
    use parlor_room::views::{Status, Unrated};
    use parlor_rules::GameKind;
    use parlor_rules::games::EndReason;

    use super::*;
    use crate::protocol::client::CLIENT_TYPES;
    use crate::protocol::{ErrorCode, LobbyChange, Role, ShutdownReason, Updates};

    /// Where the docs keep a copy of the schema, for readers without a server.
    const COPY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/protocol.schema.json");

    #[test]
    fn the_docs_copy_is_the_schema_served() {
        if std::env::var_os("PARLOR_BLESS").is_some_and(|bless| bless == "1") {
            std::fs::write(COPY, schema_text()).unwrap();
        }
        let copy = std::fs::read_to_string(COPY).unwrap_or_default();
        assert!(
            copy == schema_text(),
            "docs/protocol.schema.json is not the schema the server serves; rewrite it with \
             `PARLOR_BLESS=1 cargo test -p parlor --lib protocol::schema` and commit it"
        );
    }

    /// The wire names a definition allows: its `enum`, or its `oneOf`'s constants.
    fn names(definition: &str) -> Vec<String> {
        let schema = &schema()["$defs"][definition];
        let listed = schema["enum"].as_array().cloned().unwrap_or_else(|| {
            schema["oneOf"]
                .as_array()
                .unwrap()
                .iter()
                .map(|branch| branch["const"].clone())
                .collect()
        });
        listed
            .iter()
            .map(|name| name.as_str().unwrap().to_owned())
            .collect()
    }

    /// Each name `definition` allows reads as a `T` and is written back the same.
    fn reads_back<T: FromStr + Display>(definition: &str) {
        let listed = names(definition);
        assert!(!listed.is_empty(), "{definition} names nothing");
        for name in listed {
            let Ok(value) = name.parse::<T>() else {
                panic!("{definition}: the schema's \"{name}\" is not a wire name");
            };
            assert_eq!(value.to_string(), name, "{definition}");
        }
    }

    #[test]
    fn every_name_the_schema_allows_is_a_wire_name() {
        reads_back::<ErrorCode>("ErrorCode");
        reads_back::<GameKind>("GameKind");
        reads_back::<EndReason>("EndReason");
        reads_back::<Role>("Role");
        reads_back::<ShutdownReason>("ShutdownReason");
        reads_back::<LobbyChange>("LobbyChange");
        reads_back::<Updates>("Updates");
        reads_back::<Status>("Status");
        reads_back::<Unrated>("Unrated");
        reads_back::<ChatChannel>("ChatChannel");
        reads_back::<parlor_room::SeatKind>("SeatKind");
        reads_back::<parlor_room::SeatSpec>("SeatSpec");
    }

    #[test]
    fn every_error_code_and_game_is_in_the_schema() {
        let codes: BTreeSet<String> = names("ErrorCode").into_iter().collect();
        let known: BTreeSet<String> = <ErrorCode as strum::VariantArray>::VARIANTS
            .iter()
            .map(|code| code.as_str().to_owned())
            .collect();
        assert_eq!(codes, known);
        let games: BTreeSet<String> = names("GameKind").into_iter().collect();
        let known: BTreeSet<String> = GameKind::ALL
            .iter()
            .map(|game| game.as_str().to_owned())
            .collect();
        assert_eq!(games, known);
    }

    /// The `type` of each branch of a message definition's `oneOf`.
    fn types(definition: &str) -> Vec<String> {
        schema()["$defs"][definition]["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|branch| {
                branch["properties"]["type"]["const"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    }

    #[test]
    fn every_client_message_has_one_branch() {
        assert_eq!(types("ClientMessage"), CLIENT_TYPES);
        let server = types("ServerMessage");
        let distinct: BTreeSet<&String> = server.iter().collect();
        assert_eq!(distinct.len(), server.len(), "{server:?}");
        for broadcast in ["state", "moved", "game_over"] {
            assert!(server.iter().any(|kind| kind == broadcast), "{server:?}");
        }
    }

    #[test]
    fn a_type_both_sides_use_reads_as_it_is_written() {
        let (_, read) = client_messages();
        let written = &schema()["$defs"];
        for (name, mut schema) in read {
            unwrap_descriptions(&mut schema);
            assert_eq!(written[&name], schema, "{name}");
        }
    }
}
