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

    /// `GET path`: the status and the JSON body.
    pub(crate) async fn get(&self, path: &str) -> (u16, Value) {
        self.call(Method::GET, path, None).await
    }

    /// `POST path` with `body` as text (or no body): the status and the JSON body.
    pub(crate) async fn post(&self, path: &str, body: Option<&str>) -> (u16, Value) {
        self.call(Method::POST, path, body).await
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
