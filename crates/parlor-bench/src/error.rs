//! What can stop a benchmark run, each with what to do about it.

use std::path::PathBuf;

/// A benchmark that could not run or finish.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BenchError {
    /// The server binary to start is missing.
    #[error(
        "{0} does not exist; build the servers first with `cargo build --release --workspace --bins` or point --bin-dir at them"
    )]
    MissingBinary(PathBuf),
    /// Starting a process failed.
    #[error("could not start {what}: {source}")]
    Spawn {
        /// What was being started.
        what: String,
        /// Why it failed.
        source: std::io::Error,
    },
    /// The server exited or never said where it listens.
    #[error("{what} did not start listening within {secs} s; its log ({log}) ends with:\n{tail}")]
    ServerStart {
        /// Which server.
        what: String,
        /// How long we waited.
        secs: u64,
        /// Where its output went.
        log: PathBuf,
        /// The end of that output.
        tail: String,
    },
    /// Reading or writing a file (the scratch directory, /proc, the JSON report) failed.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// /proc had something we could not read.
    #[error("could not read {0} (is the server still running, and is this Linux?)")]
    Proc(PathBuf),
    /// The URL is not a local WebSocket URL.
    #[error(
        "--url must be ws://127.0.0.1:PORT/ws or ws://localhost:PORT/ws (load goes only to this machine), not {0}"
    )]
    NotLocal(String),
    /// A flag combination that cannot work.
    #[error("{0}")]
    Usage(String),
    /// Not one room could be set up.
    #[error("no room could be set up; the first failure was: {0}")]
    NoRooms(String),
    /// The server's HTTP API did not answer as expected.
    #[error("{0}")]
    Http(String),
    /// The PostgreSQL database given with --postgres could not be used.
    #[error("PostgreSQL (--postgres): {0}")]
    Postgres(String),
    /// Node.js or the Colyseus server's packages are missing and could not be installed.
    #[error(
        "Colyseus needs Node.js (`node` and `npm` on the PATH) and its packages in {dir}: {why}"
    )]
    Colyseus {
        /// The Colyseus server's folder.
        dir: PathBuf,
        /// What went wrong.
        why: String,
    },
    /// The report could not be encoded.
    #[error("could not encode the report: {0}")]
    Json(#[from] serde_json::Error),
}
