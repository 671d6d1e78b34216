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

/// A `redis-server` of the test's own, on a free port, that the test can kill to see
/// what a fleet does when its Redis goes away (the machine's Redis is never stopped).
/// Killed when dropped, if still running.
pub(crate) struct OwnRedis {
    child: std::process::Child,
    /// Its URL, for `cluster.redis_url`.
    pub(crate) url: String,
}

impl OwnRedis {
    /// Starts `redis-server` (which must be on the PATH) on a free port, keeping nothing
    /// on disk; returns once it answers.
    pub(crate) async fn start() -> OwnRedis {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = std::process::Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("redis-server is on the PATH");
        let url = format!("redis://127.0.0.1:{port}");
        let own = OwnRedis { child, url };
        let client = redis::Client::open(own.url.as_str()).unwrap();
        crate::waiting::eventually(
            "the test's own redis-server answers",
            std::time::Duration::from_secs(60),
            async || {
                let mut connection = client
                    .get_multiplexed_async_connection()
                    .await
                    .map_err(|error| error.to_string())?;
                redis::cmd("PING")
                    .query_async::<String>(&mut connection)
                    .await
                    .map_err(|error| error.to_string())
            },
        )
        .await;
        own
    }

    /// Kills it with SIGKILL and reaps it.
    pub(crate) fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A TCP relay to a server that the test can stall: from then on it passes no byte
/// either way and closes nothing, as a black-holed network or a frozen server would, so
/// a client waits until its own deadline.
pub(crate) struct StallableRelay {
    /// Where the relay listens.
    pub(crate) address: std::net::SocketAddr,
    stall: CancellationToken,
    closed: CancellationToken,
}

impl StallableRelay {
    /// Relays 127.0.0.1:<some port> to `target` (`host:port`).
    pub(crate) async fn start(target: &str) -> StallableRelay {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let (stall, closed) = (CancellationToken::new(), CancellationToken::new());
        tokio::spawn(stallable_relay_from(
            listener,
            target.to_owned(),
            stall.clone(),
            closed.clone(),
        ));
        StallableRelay {
            address,
            stall,
            closed,
        }
    }

    /// Stops passing bytes on every connection, open or new, keeping them all open.
    pub(crate) fn stall(&self) {
        self.stall.cancel();
    }
}

impl Drop for StallableRelay {
    fn drop(&mut self) {
        self.closed.cancel();
    }
}

/// Accepts connections on `listener` and relays each to `target` until `stall`; after
/// it, holds every connection open and passes nothing; all until `closed`.
async fn stallable_relay_from(
    listener: tokio::net::TcpListener,
    target: String,
    stall: CancellationToken,
    closed: CancellationToken,
) {
    loop {
        let (mut inbound, _) = tokio::select! {
            () = closed.cancelled() => return,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(_) => return,
            },
        };
        let (target, stall, closed) = (target.clone(), stall.clone(), closed.clone());
        tokio::spawn(async move {
            let Ok(mut outbound) = tokio::net::TcpStream::connect(&target).await else {
                return;
            };
            tokio::select! {
                () = closed.cancelled() => return,
                () = stall.cancelled() => {}
                _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => return,
            }
            // Stalled: both sockets stay open, and nothing more is read or written.
            closed.cancelled().await;
            drop((inbound, outbound));
        });
    }
}
