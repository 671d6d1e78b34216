//! The machine's PostgreSQL for the integration tests: a schema of each test's own in the
//! database `PARLOR_TEST_POSTGRES_URL` names, dropped when the test ends, and a relay to
//! it that a test can cut.
//!
//! Without the variable a test that needs it says so loudly and is skipped; under CI
//! (`CI` set, as `.ci/run` sets it along with the variable) it fails instead.

use sqlx::Connection;
use sqlx::postgres::PgConnection;

/// The variable that names the test database.
const POSTGRES_VARIABLE: &str = "PARLOR_TEST_POSTGRES_URL";

/// A schema of the test's own, and the `store.url` that points a server at it.
pub(crate) struct PostgresSchema {
    admin_url: String,
    /// The schema's name.
    pub(crate) name: String,
    /// The URL a server's `store.url` takes to use this schema.
    pub(crate) store_url: String,
}

impl PostgresSchema {
    /// A new empty schema, or `None` (said loudly) when no test database is named.
    pub(crate) async fn new(test: &str) -> Option<PostgresSchema> {
        let Ok(admin_url) = std::env::var(POSTGRES_VARIABLE) else {
            assert!(
                std::env::var_os("CI").is_none(),
                "{POSTGRES_VARIABLE} is unset under CI: {test} must run"
            );
            eprintln!(
                "SKIPPED: {test} needs PostgreSQL; set {POSTGRES_VARIABLE} \
                 (e.g. postgres://postgres@127.0.0.1:5432/test) to run it"
            );
            return None;
        };
        let name = format!("parlor_it_{:016x}", rand::random::<u64>());
        let mut conn = PgConnection::connect(&admin_url).await.unwrap();
        sqlx::query(&format!("CREATE SCHEMA {name}"))
            .execute(&mut conn)
            .await
            .unwrap();
        conn.close().await.unwrap();
        let separator = if admin_url.contains('?') { '&' } else { '?' };
        let store_url = format!("{admin_url}{separator}options[search_path]={name}");
        Some(PostgresSchema {
            admin_url,
            name,
            store_url,
        })
    }

    /// The database's `host:port`.
    pub(crate) fn server(&self) -> String {
        let url = reqwest::Url::parse(&self.admin_url).unwrap();
        format!(
            "{}:{}",
            url.host_str().unwrap_or("localhost"),
            url.port().unwrap_or(5432)
        )
    }

    /// The `store.url` for this schema with the server reached at `address` instead.
    pub(crate) fn store_url_via(&self, address: std::net::SocketAddr) -> String {
        let mut url = reqwest::Url::parse(&self.store_url).unwrap();
        url.set_ip_host(address.ip()).unwrap();
        url.set_port(Some(address.port())).unwrap();
        url.to_string()
    }
}

impl Drop for PostgresSchema {
    fn drop(&mut self) {
        let (url, name) = (self.admin_url.clone(), self.name.clone());
        // Drop runs inside the test's runtime, which cannot block on a future: the
        // schema is dropped from a thread with a runtime of its own.
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let mut conn = PgConnection::connect(&url).await?;
                sqlx::query(&format!("DROP SCHEMA {name} CASCADE"))
                    .execute(&mut conn)
                    .await?;
                conn.close().await
            })
        })
        .join();
        if !matches!(dropped, Ok(Ok(()))) {
            eprintln!("could not drop the test schema {}", self.name);
        }
    }
}

/// A TCP relay to the test database that the test can cut and restore, to see what the
/// server does when PostgreSQL goes away: cutting closes every relayed connection and
/// refuses new ones, as a database that went down would.
pub(crate) struct CuttableRelay {
    /// Where the relay listens.
    pub(crate) address: std::net::SocketAddr,
    target: String,
    relaying: Option<tokio::task::JoinHandle<()>>,
}

impl CuttableRelay {
    /// Relays 127.0.0.1:<some port> to `target` (`host:port`).
    pub(crate) async fn start(target: &str) -> CuttableRelay {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let mut relay = CuttableRelay {
            address,
            target: target.to_owned(),
            relaying: None,
        };
        relay.relaying = Some(tokio::spawn(relay_from(listener, relay.target.clone())));
        relay
    }

    /// Closes every relayed connection and stops listening.
    pub(crate) fn cut(&mut self) {
        if let Some(relaying) = self.relaying.take() {
            relaying.abort();
        }
    }

    /// Listens again on the same address.
    pub(crate) async fn restore(&mut self) {
        let listener = tokio::net::TcpListener::bind(self.address).await.unwrap();
        self.relaying = Some(tokio::spawn(relay_from(listener, self.target.clone())));
    }
}

impl Drop for CuttableRelay {
    fn drop(&mut self) {
        self.cut();
    }
}

/// Accepts connections on `listener` and relays each to `target`; aborting it drops the
/// listener and every connection with it.
async fn relay_from(listener: tokio::net::TcpListener, target: String) {
    let mut connections = tokio::task::JoinSet::new();
    while let Ok((mut inbound, _)) = listener.accept().await {
        let target = target.clone();
        connections.spawn(async move {
            if let Ok(mut outbound) = tokio::net::TcpStream::connect(&target).await {
                let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
            }
        });
    }
}
