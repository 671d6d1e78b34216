//! A fleet for the tests: the machine's PostgreSQL (a schema of the test's own) and
//! Redis (a key prefix of its own), the settings every node of it starts with, and how
//! a test waits for a node to take a room over and a client finds its room again.

use std::path::Path;
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::{Value, json};

use parlor_testkit::test_services::{self, TestService};

use crate::common::Client;
use crate::process::ParlorProcess;
use crate::services::{PostgresSchema, RedisPrefix};
use crate::waiting::{ASK_AGAIN_EVERY, eventually_every};

/// The nodes' lease, ms: short, so that tests wait little for a take-over.
pub(crate) const LEASE_MS: u64 = 2_000;

/// How long a client asks again to join a room that no node holds yet before the test
/// fails: far longer than a lease.
const ADOPTION_PATIENCE: Duration = Duration::from_secs(60);

/// A fleet's shared services, and the settings of its nodes.
pub(crate) struct TestFleet {
    schema: PostgresSchema,
    redis: RedisPrefix,
}

impl TestFleet {
    /// The services for `test`, or `None` (the skip said and counted once) when the
    /// machine's are not named.
    pub(crate) async fn new(test: &str) -> Option<TestFleet> {
        test_services::urls(test, [TestService::Postgres, TestService::Redis])?;
        let schema = PostgresSchema::new(test).await?;
        let redis = RedisPrefix::new(test).await?;
        Some(TestFleet { schema, redis })
    }

    /// The fleet's `store.url`.
    pub(crate) fn store_url(&self) -> String {
        self.schema.store_url()
    }

    /// The database's `host:port`, for a proxy in front of it.
    pub(crate) fn store_server(&self) -> String {
        self.schema.server()
    }

    /// The fleet's `store.url` with the database reached at `address` (a proxy).
    pub(crate) fn store_url_via(&self, address: std::net::SocketAddr) -> String {
        self.schema.store_url_via(address)
    }

    /// What every node is started with: the fleet, a grace longer than any outage, no
    /// bots filling seats, and limits that let one address run every client.
    pub(crate) fn env(&self) -> Vec<(String, String)> {
        [
            ("PARLOR_STORE__URL", self.store_url()),
            ("PARLOR_CLUSTER__REDIS_URL", self.redis.url.clone()),
            ("PARLOR_CLUSTER__KEY_PREFIX", self.redis.prefix.clone()),
            ("PARLOR_CLUSTER__LEASE_MS", LEASE_MS.to_string()),
            ("PARLOR_ROOMS__RECONNECT_GRACE_SECS", "120".to_owned()),
            ("PARLOR_ROOMS__FIRST_MOVE_SECS", "120".to_owned()),
            ("PARLOR_BOTS__FILL_AFTER_SECS", "3600".to_owned()),
            ("PARLOR_LIMITS__CONNECTIONS_PER_IP", "1000".to_owned()),
            (
                "PARLOR_LIMITS__PLAYERS_PER_MINUTE_PER_IP",
                "1000".to_owned(),
            ),
            ("PARLOR_LIMITS__ROOMS_PER_MINUTE_PER_IP", "1000".to_owned()),
            (
                "PARLOR_LIMITS__ROOMS_PER_MINUTE_PER_CONNECTION",
                "1000".to_owned(),
            ),
        ]
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value))
        .collect()
    }

    /// Every message the fleet's nodes send to each other's inboxes from now on, as
    /// JSON, in the order Redis passes them on.
    pub(crate) async fn overhear_inboxes(
        &self,
    ) -> impl futures_util::Stream<Item = Value> + Unpin + use<> {
        let client = redis::Client::open(self.redis.url.as_str()).unwrap();
        let mut pubsub = client.get_async_pubsub().await.unwrap();
        pubsub
            .psubscribe(format!("{}:node:*", self.redis.prefix))
            .await
            .unwrap();
        pubsub.into_on_message().map(|message| {
            let text: String = message.get_payload().unwrap();
            serde_json::from_str(&text).unwrap()
        })
    }

    /// Starts a node of the fleet in `dir`.
    pub(crate) fn start_node(&self, dir: &Path) -> ParlorProcess {
        self.start_node_with(dir, &[])
    }

    /// Starts a node of the fleet in `dir` with `extra` settings in its environment.
    pub(crate) fn start_node_with(&self, dir: &Path, extra: &[(&str, &str)]) -> ParlorProcess {
        let env = self.env();
        let mut env: Vec<(&str, &str)> =
            env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        env.extend_from_slice(extra);
        ParlorProcess::start(dir, &env)
    }

    /// Starts a node of the fleet in `dir`, listening on `port`, with `extra` settings in
    /// its environment: a node started again where a proxy expects it.
    pub(crate) fn start_node_on_port(
        &self,
        dir: &Path,
        port: u16,
        extra: &[(&str, &str)],
    ) -> ParlorProcess {
        let env = self.env();
        let mut env: Vec<(&str, &str)> =
            env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        env.extend_from_slice(extra);
        ParlorProcess::start_on_port(dir, &env, port)
    }

    /// Starts a node of the fleet in each of `dirs`.
    pub(crate) fn start_nodes(&self, dirs: &[tempfile::TempDir]) -> Vec<ParlorProcess> {
        dirs.iter().map(|dir| self.start_node(dir.path())).collect()
    }

    /// Starts a node of the fleet in `dir` that holds no rooms (`cluster.owns_rooms =
    /// false`): it serves clients only.
    pub(crate) fn start_serving_node(&self, dir: &Path) -> ParlorProcess {
        let mut env = self.env();
        env.push(("PARLOR_CLUSTER__OWNS_ROOMS".to_owned(), "false".to_owned()));
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        ParlorProcess::start(dir, &env)
    }

    /// The Redis key of `room`'s lease.
    pub(crate) fn lease_key(&self, room: &str) -> String {
        format!("{}:room:{room}:owner", self.redis.prefix)
    }

    /// The fleet's Redis URL.
    pub(crate) fn redis_url(&self) -> &str {
        &self.redis.url
    }
}

/// Joins `seat` of `room`, asking again while no node holds the room yet (it answers
/// `unknown_room` until one has taken it over); returns the snapshot.
pub(crate) async fn join_when_taken_over(client: &mut Client, room: &str, seat: u8) -> Value {
    let what = format!("a node took room {room} over");
    eventually_every(&what, ADOPTION_PATIENCE, ASK_AGAIN_EVERY, async || {
        client
            .send(json!({"type": "join", "room": room, "seat": seat, "ref": "again"}))
            .await;
        let reply = client.recv().await;
        if reply["type"] == "joined" {
            return Ok(client.expect("state").await);
        }
        assert_eq!(reply["code"], "unknown_room", "{reply}");
        Err(reply.to_string())
    })
    .await
}

/// Waits until the node at `address` serves `room` (`GET /api/rooms/{room}` answers
/// 200): it has taken the room over. Fails the test after far longer than a lease.
pub(crate) async fn wait_until_adopted(address: &str, room: &str) {
    let what = format!("the node at {address} has adopted room {room}");
    crate::waiting::eventually(&what, ADOPTION_PATIENCE, async || {
        let url = format!("http://{address}/api/rooms/{room}");
        match reqwest::get(&url).await {
            Ok(response) if response.status().is_success() => Ok(()),
            Ok(response) => Err(response.status().to_string()),
            Err(error) => Err(error.to_string()),
        }
    })
    .await;
}
