//! Every frame the integration tests send or receive, checked against the protocol's
//! JSON Schema (`parlor::protocol::schema`, the document `GET /api/protocol.json`
//! serves): a sent frame must be a `ClientMessage`, a received one a `ServerMessage`.
//! The test client ([`crate::common::Client`]) and every other client of these tests
//! check their frames here; a frame that matches no branch fails its test, naming the
//! frame and what the schema says is wrong with it.
//!
//! Likewise every HTTP answer the test server's `get_json` (and the operator tests'
//! requests) read is checked against the HTTP API's OpenAPI description: its operation,
//! its status and its JSON body must be documented.

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

/// The HTTP API as its OpenAPI description says (docs/openapi.json, which a test keeps
/// the document `GET /api/openapi.json` serves): each operation's path, split at its
/// slashes, and the answers it may give, by status.
struct HttpApi {
    operations: Vec<Operation>,
}

/// One documented operation.
struct Operation {
    method: String,
    path: String,
    segments: Vec<String>,
    /// By status: the schema of a JSON answer, if the answer is JSON.
    answers: HashMap<String, Option<Validator>>,
}

impl Operation {
    /// How well `path` matches this operation's template: `None` if it does not, else
    /// how many of its characters the template's literal parts matched (the best match
    /// wins, so `/api/games/{id}.pgn` beats `/api/games/{id}` for `.pgn`).
    fn matches(&self, path: &str) -> Option<usize> {
        let parts: Vec<&str> = path.split('/').collect();
        if parts.len() != self.segments.len() {
            return None;
        }
        let mut literal = 0;
        for (part, template) in parts.iter().zip(&self.segments) {
            match template.split_once('{') {
                None if part == template => literal += part.len(),
                None => return None,
                Some((before, rest)) => {
                    let after = rest.split_once('}').map_or("", |(_, after)| after);
                    if part.len() <= before.len() + after.len()
                        || !part.starts_with(before)
                        || !part.ends_with(after)
                    {
                        return None;
                    }
                    literal += before.len() + after.len();
                }
            }
        }
        Some(literal)
    }
}

impl HttpApi {
    fn new() -> HttpApi {
        let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/openapi.json"));
        let document: Value = serde_json::from_str(text).expect("docs/openapi.json is JSON");
        // Strict where the description is silent: an answer may hold no field its
        // schema does not name, so a field the server adds must be documented first.
        let mut components = document["components"].clone();
        closed(&mut components);
        let mut operations = Vec::new();
        for (path, methods) in document["paths"].as_object().unwrap() {
            for (method, operation) in methods.as_object().unwrap() {
                let answers = operation["responses"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(status, answer)| {
                        let schema = &answer["content"]["application/json"]["schema"];
                        let validator = (!schema.is_null()).then(|| {
                            let mut root = schema.clone();
                            root["components"] = components.clone();
                            jsonschema::draft202012::new(&root).unwrap_or_else(|error| {
                                panic!("the answer {status} of {method} {path} does not compile: {error}")
                            })
                        });
                        (status.clone(), validator)
                    })
                    .collect();
                operations.push(Operation {
                    method: method.to_uppercase(),
                    path: path.clone(),
                    segments: path.split('/').map(str::to_owned).collect(),
                    answers,
                });
            }
        }
        HttpApi { operations }
    }
}

static HTTP: LazyLock<HttpApi> = LazyLock::new(HttpApi::new);

/// Closes every object schema of `value` that names its properties to any other
/// (`unevaluatedProperties: false`, which looks through `allOf` and `$ref`).
fn closed(value: &mut Value) {
    match value {
        Value::Object(fields) => {
            if fields.contains_key("properties")
                && !fields.contains_key("additionalProperties")
                && !fields.contains_key("unevaluatedProperties")
            {
                fields.insert("unevaluatedProperties".to_owned(), Value::Bool(false));
            }
            fields.values_mut().for_each(closed);
        }
        Value::Array(items) => items.iter_mut().for_each(closed),
        _ => {}
    }
}

/// Fails the test unless the answer `status` with the JSON `body` to `method path`
/// (without its query) is one the API's description documents for that operation.
pub(crate) fn check_http_answer(method: &str, path: &str, status: u16, body: &Value) {
    let operation = HTTP
        .operations
        .iter()
        .filter(|operation| operation.method == method)
        .filter_map(|operation| operation.matches(path).map(|score| (score, operation)))
        .max_by_key(|(score, _)| *score)
        .map(|(_, operation)| operation)
        .unwrap_or_else(|| panic!("docs/openapi.json documents no operation {method} {path}"));
    let answer = operation
        .answers
        .get(&status.to_string())
        .unwrap_or_else(|| {
            panic!(
                "{method} {} does not document the status {status} (answered to {path}: {body})",
                operation.path
            )
        });
    let Some(validator) = answer else {
        panic!(
            "{method} {} documents no JSON answer for {status}, yet one came: {body}",
            operation.path
        );
    };
    let errors: Vec<String> = validator
        .iter_errors(body)
        .map(|error| format!("at \"{}\": {error}", error.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "the {status} answer to {method} {path} is not what docs/openapi.json says ({}): {body}",
        errors.join("; ")
    );
}
