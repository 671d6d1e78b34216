//! The machine's PostgreSQL and Redis for the integration tests: a schema of each test's
//! own in the database `PARLOR_TEST_POSTGRES_URL` names, dropped when the test ends, a
//! relay to it that a test can cut, and a key prefix of each test's own in the Redis
//! `PARLOR_TEST_REDIS_URL` names.
//!
//! Without the variable a test that needs it says so and is skipped, and the skip is
//! counted in the line the test binary prints as it exits; under CI (`CI` set, as
//! `.ci/run` sets it along with the variable) it fails instead
//! (`parlor_testkit::test_services`).

use parlor_testkit::scratch_schema::ScratchSchema;
use parlor_testkit::test_services::{self, TestService};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// A schema of the test's own, and the `store.url` that points a server at it.
pub(crate) struct PostgresSchema {
    schema: ScratchSchema,
}

impl PostgresSchema {
    /// A new empty schema, or `None` (the skip said and counted) when no test database
    /// is named.
    pub(crate) async fn new(test: &str) -> Option<PostgresSchema> {
        let schema = ScratchSchema::for_test(test, "parlor_it").await?;
        Some(PostgresSchema { schema })
    }

    /// The URL a server's `store.url` takes to use this schema.
    pub(crate) fn store_url(&self) -> String {
        self.schema.store_url()
    }

    /// The database's `host:port`.
    pub(crate) fn server(&self) -> String {
        let url = reqwest::Url::parse(self.schema.admin_url()).unwrap();
        format!(
            "{}:{}",
            url.host_str().unwrap_or("localhost"),
            url.port().unwrap_or(5432)
        )
    }

    /// The `store.url` for this schema with the server reached at `address` instead.
    pub(crate) fn store_url_via(&self, address: std::net::SocketAddr) -> String {
        let mut url = reqwest::Url::parse(&self.store_url()).unwrap();
        url.set_ip_host(address.ip()).unwrap();
        url.set_port(Some(address.port())).unwrap();
        url.to_string()
    }
}

/// A key prefix of the test's own in the Redis `PARLOR_TEST_REDIS_URL` names; its keys
/// are deleted when the test ends.
pub(crate) struct RedisPrefix {
    /// The Redis server's URL.
    pub(crate) url: String,
    /// The prefix, for `cluster.key_prefix`.
    pub(crate) prefix: String,
}

impl RedisPrefix {
    /// A new prefix, or `None` (the skip said and counted) when no test Redis is named
    /// outside CI.
    pub(crate) async fn new(test: &str) -> Option<RedisPrefix> {
        let url = test_services::url(test, TestService::Redis)?;
        let prefix = format!("parlor-it-{:016x}", rand::random::<u64>());
        Some(RedisPrefix { url, prefix })
    }
}

impl Drop for RedisPrefix {
    fn drop(&mut self) {
        let (url, pattern) = (self.url.clone(), format!("{}:*", self.prefix));
        // Drop runs inside the test's runtime: the keys go from a thread of their own.
        let _ = std::thread::spawn(move || -> redis::RedisResult<()> {
            let mut redis = redis::Client::open(url)?.get_connection()?;
            let keys: Vec<String> = redis::cmd("KEYS").arg(&pattern).query(&mut redis)?;
            if !keys.is_empty() {
                redis::cmd("DEL").arg(keys).exec(&mut redis)?;
            }
            Ok(())
        })
        .join();
    }
}

/// A TCP relay to the test database that the test can cut and restore, to see what the
/// server does when PostgreSQL goes away: cutting closes every relayed connection and
/// refuses new ones, as a database that went down would.
pub(crate) struct CuttableRelay {
    /// Where the relay listens.
    pub(crate) address: std::net::SocketAddr,
    target: String,
    relaying: Option<Relaying>,
}

/// A running relay: the task accepting connections, and the one task per connection.
struct Relaying {
    accepting: tokio::task::JoinHandle<()>,
    connections: TaskTracker,
    cut: CancellationToken,
}

impl Relaying {
    fn start(listener: tokio::net::TcpListener, target: String) -> Relaying {
        let connections = TaskTracker::new();
        let cut = CancellationToken::new();
        let accepting = tokio::spawn(relay_from(
            listener,
            target,
            connections.clone(),
            cut.clone(),
        ));
        Relaying {
            accepting,
            connections,
            cut,
        }
    }
}

impl CuttableRelay {
    /// Relays 127.0.0.1:<some port> to `target` (`host:port`).
    pub(crate) async fn start(target: &str) -> CuttableRelay {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        CuttableRelay {
            address,
            target: target.to_owned(),
            relaying: Some(Relaying::start(listener, target.to_owned())),
        }
    }

    /// Closes every relayed connection and stops listening; returns once every
    /// connection is closed, so that nothing sent afterwards reaches the database.
    pub(crate) async fn cut(&mut self) {
        if let Some(relaying) = self.relaying.take() {
            relaying.cut.cancel();
            relaying.accepting.abort();
            let _ = relaying.accepting.await;
            relaying.connections.close();
            relaying.connections.wait().await;
        }
    }

    /// Listens again on the same address.
    pub(crate) async fn restore(&mut self) {
        let listener = tokio::net::TcpListener::bind(self.address).await.unwrap();
        self.relaying = Some(Relaying::start(listener, self.target.clone()));
    }
}

impl Drop for CuttableRelay {
    fn drop(&mut self) {
        if let Some(relaying) = self.relaying.take() {
            relaying.cut.cancel();
            relaying.accepting.abort();
        }
    }
}

/// Accepts connections on `listener` and relays each to `target` on a task of
/// `connections`, until aborted; each connection closes when `cut` is cancelled.
async fn relay_from(
    listener: tokio::net::TcpListener,
    target: String,
    connections: TaskTracker,
    cut: CancellationToken,
) {
    while let Ok((mut inbound, _)) = listener.accept().await {
        let target = target.clone();
        let cut = cut.clone();
        connections.spawn(async move {
            if let Ok(mut outbound) = tokio::net::TcpStream::connect(&target).await {
                tokio::select! {
                    () = cut.cancelled() => {}
                    _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                }
            }
        });
    }
}
