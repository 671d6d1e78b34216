//! The machine's PostgreSQL for the integration tests: a schema of each test's own in the
//! database `PARLOR_TEST_POSTGRES_URL` names, dropped when the test ends.
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
    name: String,
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
