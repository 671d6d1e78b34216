//! A site's key set fetched from its URL (`[auth] jwks_url`): fetched again when a token
//! names a key it lacks (a rotation), and every `jwks_refresh_secs` in any case, so a key
//! the site withdraws stops being trusted.

use std::net::TcpListener;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use actix_web::{App, HttpResponse, HttpServer, web};
use serde_json::json;

use crate::common::temp_dir;
use crate::sites_sign_their_users_in::{claims, fixture, hello_with, rs256, start_server};
use crate::waiting::eventually;

/// A site serving its key set at `/.well-known/jwks.json`, which the test changes.
struct JwksSite {
    published: Arc<RwLock<String>>,
    url: String,
    handle: actix_web::dev::ServerHandle,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl JwksSite {
    /// The site, publishing the fixture's key set (one RSA key, `site-key-1`).
    fn start() -> JwksSite {
        let published = Arc::new(RwLock::new(
            std::fs::read_to_string(fixture("jwks.json")).unwrap(),
        ));
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!(
            "http://{}/.well-known/jwks.json",
            listener.local_addr().unwrap()
        );
        let serving = {
            let published = published.clone();
            HttpServer::new(move || {
                let published = published.clone();
                App::new().route(
                    "/.well-known/jwks.json",
                    web::get().to(move || {
                        let jwks = published.read().unwrap().clone();
                        async move {
                            HttpResponse::Ok()
                                .content_type("application/json")
                                .body(jwks)
                        }
                    }),
                )
            })
            .workers(1)
            .listen(listener)
            .unwrap()
            .run()
        };
        let handle = serving.handle();
        JwksSite {
            published,
            url,
            handle,
            task: tokio::spawn(serving),
        }
    }

    /// Publishes the key under the id `to` instead of `from`.
    fn rename_key(&self, from: &str, to: &str) {
        let renamed = self.published.read().unwrap().replace(from, to);
        *self.published.write().unwrap() = renamed;
    }

    async fn stop(self) {
        self.handle.stop(true).await;
        self.task.await.unwrap().unwrap();
    }
}

#[tokio::test]
async fn a_key_set_is_fetched_from_the_site_and_again_when_a_key_rotates() {
    let site = JwksSite::start();
    let dir = temp_dir();
    let server = start_server(dir.path(), |auth| {
        auth.jwt_hs256_secret.clear();
        auth.jwks_url = site.url.clone();
        auth.jwks_refetch_secs = 0;
    })
    .await;
    let mut client = server.connect().await;
    let eve = claims("user-9", "Eve");
    // A key the site has not published yet is refused, even fetched again.
    client
        .expect_error(
            json!({"type": "hello", "jwt": rs256(&eve, Some("site-key-2"))}),
            "token_invalid",
        )
        .await;
    // The site rotates: the key is published under its new id, the old one withdrawn.
    // The first token naming the new id has the set fetched again.
    site.rename_key("site-key-1", "site-key-2");
    let welcome = hello_with(&mut client, &rs256(&eve, Some("site-key-2")), None).await;
    assert_eq!(welcome["signed_in"], true, "{welcome}");
    // The withdrawn id is gone with the set it was fetched in.
    let mut later = server.connect().await;
    later
        .expect_error(
            json!({"type": "hello", "jwt": rs256(&eve, Some("site-key-1"))}),
            "token_invalid",
        )
        .await;
    server.stop().await;
    site.stop().await;
}

#[tokio::test]
async fn a_key_the_site_withdraws_stops_being_trusted_at_the_next_refresh() {
    let site = JwksSite::start();
    let dir = temp_dir();
    let server = start_server(dir.path(), |auth| {
        auth.jwt_hs256_secret.clear();
        auth.jwks_url = site.url.clone();
        auth.jwks_refresh_secs = 1;
    })
    .await;
    let token = rs256(&claims("user-7", "Gil"), Some("site-key-1"));
    let mut client = server.connect().await;
    assert_eq!(
        hello_with(&mut client, &token, None).await["signed_in"],
        true
    );
    // The key leaked: the site withdraws it, and no token names an unknown key that
    // would have the set fetched again. The periodic refresh drops it all the same.
    site.rename_key("site-key-1", "site-key-3");
    eventually(
        "the withdrawn key is refused",
        Duration::from_secs(30),
        async || {
            let mut client = server.connect().await;
            let reply = hello_with(&mut client, &token, None).await;
            match reply["code"].as_str() {
                Some("token_invalid") => Ok(()),
                _ => Err(reply.to_string()),
            }
        },
    )
    .await;
    server.stop().await;
    site.stop().await;
}
