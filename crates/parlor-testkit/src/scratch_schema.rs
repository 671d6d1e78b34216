//! A PostgreSQL schema made for one test or benchmark run and dropped after it, so that
//! many runs share one database without seeing each other's tables: what the store's
//! tests, the integration tests and `parlor-bench --postgres` all use.

use sqlx::Connection;
use sqlx::postgres::PgConnection;

use crate::test_services::{self, TestService};

/// The variable that names the database tests may use (`.ci/run` always sets it).
pub const TEST_DATABASE_VARIABLE: &str = "PARLOR_TEST_POSTGRES_URL";

/// A schema of one run's own in the database at an administrator's URL. Dropped with
/// everything in it by [`ScratchSchema::remove`], or when the value is dropped.
pub struct ScratchSchema {
    admin_url: String,
    name: String,
    removed: bool,
}

impl ScratchSchema {
    /// Creates a new empty schema named `<prefix>_<16 random hex digits>` in the
    /// database at `admin_url` (a `postgres://` URL).
    pub async fn create(admin_url: &str, prefix: &str) -> Result<ScratchSchema, sqlx::Error> {
        let name = format!("{prefix}_{:016x}", rand::random::<u64>());
        let mut conn = PgConnection::connect(admin_url).await?;
        sqlx::query(&format!("CREATE SCHEMA {name}"))
            .execute(&mut conn)
            .await?;
        conn.close().await?;
        Ok(ScratchSchema {
            admin_url: admin_url.to_owned(),
            name,
            removed: false,
        })
    }

    /// A schema for `test` in the database [`TEST_DATABASE_VARIABLE`] names, or `None`
    /// when the variable is unset: the skip is said on stderr and counted for the report
    /// at the end of the run ([`parlor_testkit::test_services`]).
    ///
    /// # Panics
    ///
    /// Under CI (`CI` set) a missing variable fails the test instead of skipping it, and
    /// a database that cannot be reached fails it anywhere.
    pub async fn for_test(test: &str, prefix: &str) -> Option<ScratchSchema> {
        let url = test_services::url(test, TestService::Postgres)?;
        match ScratchSchema::create(&url, prefix).await {
            Ok(schema) => Some(schema),
            Err(error) => panic!("{test}: no schema in the test database: {error}"),
        }
    }

    /// The administrator's URL the schema was made with.
    pub fn admin_url(&self) -> &str {
        &self.admin_url
    }

    /// The schema's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The URL of the same database with this schema as the search path: what a
    /// server's `store.url` takes to keep its tables here.
    pub fn store_url(&self) -> String {
        let separator = if self.admin_url.contains('?') {
            '&'
        } else {
            '?'
        };
        format!(
            "{}{separator}options[search_path]={}",
            self.admin_url, self.name
        )
    }

    /// Drops the schema and everything in it.
    pub async fn remove(mut self) -> Result<(), sqlx::Error> {
        self.removed = true;
        drop_schema(&self.admin_url, &self.name).await
    }
}

impl Drop for ScratchSchema {
    fn drop(&mut self) {
        if self.removed {
            return;
        }
        let (url, name) = (self.admin_url.clone(), self.name.clone());
        // Drop may run inside an async runtime, which cannot block on a future: the
        // schema is dropped from a thread with a runtime of its own.
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(sqlx::Error::Io)?;
            runtime.block_on(drop_schema(&url, &name))
        })
        .join();
        if !matches!(dropped, Ok(Ok(()))) {
            eprintln!("could not drop the scratch schema {}", self.name);
        }
    }
}

/// Drops schema `name` of the database at `url`, with everything in it.
async fn drop_schema(url: &str, name: &str) -> Result<(), sqlx::Error> {
    let mut conn = PgConnection::connect(url).await?;
    sqlx::query(&format!("DROP SCHEMA {name} CASCADE"))
        .execute(&mut conn)
        .await?;
    conn.close().await
}
