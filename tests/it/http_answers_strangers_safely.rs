//! The HTTP side facing a stranger: the page carries its security headers, `HEAD`
//! answers like `GET`, a malformed query string gets the JSON error body, and only the
//! client module may be fetched by pages of other origins.

use crate::common::{TestServer, temp_dir};

#[tokio::test]
async fn the_page_carries_security_headers() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    for path in ["/", "/app.js", "/api/rooms", "/no-such-page"] {
        let response = reqwest::get(server.url(path)).await.unwrap();
        let headers = response.headers();
        let csp = headers
            .get("content-security-policy")
            .unwrap_or_else(|| panic!("{path} has no CSP"))
            .to_str()
            .unwrap();
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert!(csp.contains("script-src 'self'"), "{path}: {csp}");
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(headers["referrer-policy"], "no-referrer", "{path}");
        assert_eq!(headers["x-frame-options"], "DENY", "{path}");
    }
    server.stop().await;
}

#[tokio::test]
async fn head_answers_like_get() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let client = reqwest::Client::new();
    for path in ["/", "/style.css", "/healthz", "/api/leaderboard?game=chess"] {
        let get = client.get(server.url(path)).send().await.unwrap();
        let head = client.head(server.url(path)).send().await.unwrap();
        assert_eq!(head.status(), get.status(), "{path}");
        assert_eq!(head.status(), 200, "{path}");
        assert_eq!(
            head.headers().get("content-type"),
            get.headers().get("content-type"),
            "{path}"
        );
        assert!(
            head.bytes().await.unwrap().is_empty(),
            "{path}: HEAD has a body"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn a_malformed_query_gets_the_json_error_body() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    for path in [
        "/api/leaderboard?game=chess&game=checkers",
        "/api/leaderboard?limit=1&limit=2",
        "/api/players/p_x/games?limit=3&limit=4",
    ] {
        let response = reqwest::get(server.url(path)).await.unwrap();
        assert_eq!(response.status(), 400, "{path}");
        let body: serde_json::Value = response.json().await.unwrap();
        assert_eq!(body["error"]["code"], "bad_request", "{path}: {body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains("duplicate"), "{path}: {message}");
    }
    server.stop().await;
}

#[tokio::test]
async fn only_the_client_module_may_be_imported_by_other_origins() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let module = reqwest::get(server.url("/parlor-client.js")).await.unwrap();
    assert_eq!(module.status().as_u16(), 200);
    assert_eq!(module.headers()["access-control-allow-origin"], "*");
    assert!(
        module.headers()["content-type"]
            .to_str()
            .unwrap()
            .contains("javascript")
    );
    for path in ["/", "/app.js", "/api/rooms"] {
        let response = reqwest::get(server.url(path)).await.unwrap();
        assert!(
            response
                .headers()
                .get("access-control-allow-origin")
                .is_none(),
            "{path} allows other origins"
        );
    }
    server.stop().await;
}
