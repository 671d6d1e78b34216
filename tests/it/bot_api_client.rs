//! A Bot API client written from docs/BOT_API.md, as `berserk` and `lichess-bot` speak
//! it: a bearer token on every request, and every answer's body read as JSON (an answer
//! that is not JSON fails the test, as it would break those programs).

use reqwest::Method;
use serde_json::Value;

/// A client of one server's Bot API, speaking for one token (or none).
pub(crate) struct BotClient {
    http: reqwest::Client,
    base: String,
    token: Option<String>,
}

impl BotClient {
    /// A client of the server at `base` (`http://host:port`), with `token` if any.
    pub(crate) fn new(base: &str, token: Option<&str>) -> BotClient {
        BotClient {
            http: reqwest::Client::new(),
            base: base.trim_end_matches('/').to_owned(),
            token: token.map(str::to_owned),
        }
    }

    /// The token the client speaks for (empty without one).
    pub(crate) fn token(&self) -> &str {
        self.token.as_deref().unwrap_or_default()
    }

    /// `GET path`: the status and the JSON body.
    pub(crate) async fn get(&self, path: &str) -> (u16, Value) {
        self.call(Method::GET, path, None).await
    }

    /// `POST path` with `body` as text (or no body): the status and the JSON body.
    pub(crate) async fn post(&self, path: &str, body: Option<&str>) -> (u16, Value) {
        self.call(Method::POST, path, body).await
    }

    /// `GET path` as a stream of NDJSON lines: the status and a reader of its lines.
    pub(crate) async fn stream(&self, path: &str) -> (u16, LineReader) {
        let mut request = self.http.get(format!("{}{path}", self.base));
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.expect("the server answers");
        let status = response.status().as_u16();
        let chunked = response
            .headers()
            .get("transfer-encoding")
            .is_some_and(|value| value == "chunked");
        let reader = LineReader {
            response,
            buffer: Vec::new(),
            chunked,
            keep_alives: 0,
        };
        (status, reader)
    }

    async fn call(&self, method: Method, path: &str, body: Option<&str>) -> (u16, Value) {
        let mut request = self
            .http
            .request(method.clone(), format!("{}{path}", self.base));
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.body(body.to_owned());
        }
        let response = request.send().await.expect("the server answers");
        let status = response.status().as_u16();
        let text = response.text().await.expect("the body is read");
        let body = serde_json::from_str(&text).unwrap_or_else(|error| {
            panic!(
                "{method} {path} answered {status} with a body that is not JSON ({error}): {text:?}"
            )
        });
        (status, body)
    }
}

/// The lines of an NDJSON stream, read as `lichess-bot` reads them: a bare newline is a
/// keep-alive (counted), every other line must be JSON.
pub(crate) struct LineReader {
    response: reqwest::Response,
    buffer: Vec<u8>,
    /// Whether the response came chunked (which `lichess-bot` needs to see lines at once).
    pub(crate) chunked: bool,
    /// How many keep-alives came so far.
    pub(crate) keep_alives: usize,
}

impl LineReader {
    /// Reads until the next keep-alive (a bare newline) arrives; a JSON line before it
    /// fails the test.
    pub(crate) async fn until_keep_alive(&mut self) {
        let before = self.keep_alives;
        while self.keep_alives == before {
            if let Some(end) = self.buffer.iter().position(|&byte| byte == b'\n') {
                let line: Vec<u8> = self.buffer.drain(..=end).collect();
                assert_eq!(line, b"\n", "a line came before the keep-alive");
                self.keep_alives += 1;
                continue;
            }
            let chunk = self.response.chunk().await.expect("the stream reads");
            let bytes = chunk.expect("the stream stays open");
            self.buffer.extend_from_slice(&bytes);
        }
    }

    /// The next JSON line, skipping keep-alives; `None` once the server has ended the
    /// stream.
    pub(crate) async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buffer.iter().position(|&byte| byte == b'\n') {
                let line: Vec<u8> = self.buffer.drain(..=end).collect();
                let text = String::from_utf8(line).expect("lines are UTF-8");
                let text = text.trim_end_matches('\n');
                if text.is_empty() {
                    self.keep_alives += 1;
                    continue;
                }
                let value = serde_json::from_str(text)
                    .unwrap_or_else(|error| panic!("a line that is not JSON ({error}): {text:?}"));
                return Some(value);
            }
            let chunk = self.response.chunk().await.expect("the stream reads");
            match chunk {
                Some(bytes) => self.buffer.extend_from_slice(&bytes),
                None => {
                    assert!(self.buffer.is_empty(), "the stream ended mid-line");
                    return None;
                }
            }
        }
    }
}
