//! Every frame the integration tests send or receive, checked against the protocol's
//! JSON Schema (`parlor::protocol::schema`, the document `GET /api/protocol.json`
//! serves): a sent frame must be a `ClientMessage`, a received one a `ServerMessage`.
//! The test client ([`crate::common::Client`]) and every other client of these tests
//! check their frames here; a frame that matches no branch fails its test, naming the
//! frame and what the schema says is wrong with it.

use std::collections::HashMap;
use std::sync::LazyLock;

use jsonschema::Validator;
use serde_json::{Value, json};

/// The messages of one direction: the whole `oneOf`, and each branch by its `type`, to
/// say what is wrong with a frame that the whole refuses.
struct Direction {
    name: &'static str,
    whole: Validator,
    by_type: HashMap<String, Validator>,
}

impl Direction {
    /// The direction the definition `name` (`ClientMessage` or `ServerMessage`) of the
    /// protocol's schema describes.
    fn new(name: &'static str) -> Direction {
        let document = parlor::protocol::schema();
        let definitions = &document["$defs"];
        let compile = |schema: &Value| {
            let mut schema = schema.clone();
            schema["$defs"] = definitions.clone();
            jsonschema::draft202012::new(&schema)
                .unwrap_or_else(|error| panic!("the schema of {name} does not compile: {error}"))
        };
        let whole = compile(&json!({"$ref": format!("#/$defs/{name}")}));
        let by_type = definitions[name]["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|branch| {
                let kind = branch["properties"]["type"]["const"].as_str().unwrap();
                (kind.to_owned(), compile(branch))
            })
            .collect();
        Direction {
            name,
            whole,
            by_type,
        }
    }

    /// Fails the test unless `frame` is one of this direction's messages.
    fn check(&self, frame: &Value) {
        if self.whole.is_valid(frame) {
            return;
        }
        let kind = frame["type"].as_str().unwrap_or_default();
        let why = match self.by_type.get(kind) {
            Some(branch) => branch
                .iter_errors(frame)
                .map(|error| format!("at \"{}\": {error}", error.instance_path()))
                .collect::<Vec<_>>()
                .join("; "),
            None => format!("no {} has the type {:?}", self.name, frame["type"]),
        };
        panic!(
            "a frame is not a {} of the published schema ({why}): {frame}",
            self.name
        );
    }
}

/// What clients send.
static CLIENT: LazyLock<Direction> = LazyLock::new(|| Direction::new("ClientMessage"));

/// What the server sends.
static SERVER: LazyLock<Direction> = LazyLock::new(|| Direction::new("ServerMessage"));

/// Fails the test unless `frame`, about to be sent, is a `ClientMessage`.
pub(crate) fn check_sent(frame: &Value) {
    CLIENT.check(frame);
}

/// Fails the test unless `frame`, just received, is a `ServerMessage`.
pub(crate) fn check_received(frame: &Value) {
    SERVER.check(frame);
}

/// Reads a text frame the server sent, failing the test unless it is JSON and a
/// `ServerMessage`.
pub(crate) fn received(text: &str) -> Value {
    let frame: Value = serde_json::from_str(text).unwrap_or_else(|error| {
        panic!("the server sent a frame that is not JSON ({error}): {text}")
    });
    check_received(&frame);
    frame
}
