//! Parlor's store in a run: a scratch PostgreSQL schema when the run asks for PostgreSQL,
//! and the group commit's figures (commits, moves per commit, commit time) read from the
//! server's `/metrics` before and after the load.

use parlor_testkit::scratch_schema::ScratchSchema;
use serde::Serialize;

use crate::error::BenchError;

/// Makes a schema for this run in the database at `url`, dropped when the run ends.
pub(crate) async fn scratch(url: &str) -> Result<ScratchSchema, BenchError> {
    ScratchSchema::create(url, "parlor_bench")
        .await
        .map_err(|error| BenchError::Postgres(error.to_string()))
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
