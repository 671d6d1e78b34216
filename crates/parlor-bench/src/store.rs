//! Parlor's store in a run: a scratch PostgreSQL schema when the run asks for PostgreSQL,
//! and the group commit's figures (commits, moves per commit, commit time) read from the
//! server's `/metrics` before and after the load.

use serde::Serialize;
use sqlx::Connection;
use sqlx::postgres::PgConnection;

use crate::error::BenchError;

/// A schema made for one run in the database a `postgres://` URL names, dropped with
/// [`Scratch::drop_schema`] at the end.
pub(crate) struct Scratch {
    admin_url: String,
    schema: String,
    /// What the server's `store.url` is set to: the same database, this schema.
    pub(crate) store_url: String,
}

impl Scratch {
    /// Creates a new empty schema in the database at `url`.
    pub(crate) async fn create(url: &str) -> Result<Scratch, BenchError> {
        let schema = format!("parlor_bench_{:016x}", rand::random::<u64>());
        let mut conn = PgConnection::connect(url).await.map_err(postgres_error)?;
        sqlx::query(&format!("CREATE SCHEMA {schema}"))
            .execute(&mut conn)
            .await
            .map_err(postgres_error)?;
        let _ = conn.close().await;
        let separator = if url.contains('?') { '&' } else { '?' };
        Ok(Scratch {
            store_url: format!("{url}{separator}options[search_path]={schema}"),
            admin_url: url.to_owned(),
            schema,
        })
    }

    /// Drops the schema and everything in it.
    pub(crate) async fn drop_schema(self) -> Result<(), BenchError> {
        let mut conn = PgConnection::connect(&self.admin_url)
            .await
            .map_err(postgres_error)?;
        sqlx::query(&format!("DROP SCHEMA {} CASCADE", self.schema))
            .execute(&mut conn)
            .await
            .map_err(postgres_error)?;
        let _ = conn.close().await;
        Ok(())
    }
}

fn postgres_error(error: sqlx::Error) -> BenchError {
    BenchError::Postgres(error.to_string())
}

/// The group commit's counters at one moment.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Counters {
    commits: f64,
    commit_secs: f64,
    moves: f64,
}

impl Counters {
    /// Reads the counters from the `/metrics` of the server whose WebSocket URL is `ws`.
    pub(crate) async fn read(ws: &str) -> Result<Counters, BenchError> {
        let metrics = ws
            .replacen("ws://", "http://", 1)
            .replace("/ws", "/metrics");
        let text = reqwest::get(&metrics)
            .await
            .and_then(reqwest::Response::error_for_status)
            .map_err(|e| BenchError::Http(format!("GET {metrics}: {e}")))?
            .text()
            .await
            .map_err(|e| BenchError::Http(format!("GET {metrics}: {e}")))?;
        let value = |name: &str| {
            text.lines()
                .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
                .and_then(|value| value.trim().parse::<f64>().ok())
                .ok_or_else(|| BenchError::Http(format!("{metrics} has no {name}")))
        };
        Ok(Counters {
            commits: value("parlor_store_commit_seconds_count")?,
            commit_secs: value("parlor_store_commit_seconds_sum")?,
            moves: value("parlor_store_batch_moves_sum")?,
        })
    }
}

/// What the store did between two readings of its counters.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct StoreFigures {
    /// `sqlite` or `postgres`.
    pub(crate) engine: &'static str,
    /// Transactions of moves committed.
    pub(crate) commits: u64,
    /// Moves written per commit, on average.
    pub(crate) moves_per_commit: f64,
    /// Time from a batch's first statement to its commit's return, on average, ms.
    pub(crate) commit_ms_mean: f64,
}

impl StoreFigures {
    /// The figures between `before` and `after`, on `engine`.
    pub(crate) fn between(engine: &'static str, before: Counters, after: Counters) -> Self {
        let commits = (after.commits - before.commits).max(0.0);
        let per_commit = |total: f64| if commits > 0.0 { total / commits } else { 0.0 };
        StoreFigures {
            engine,
            commits: commits as u64,
            moves_per_commit: per_commit(after.moves - before.moves),
            commit_ms_mean: per_commit(after.commit_secs - before.commit_secs) * 1e3,
        }
    }
}
