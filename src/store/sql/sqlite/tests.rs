//! Tests of what only SQLite has: the file, its folder and its pragmas; and the test
//! database the engine tests (`engine/tests/`) open on SQLite.

use std::path::PathBuf;
use std::time::Duration;

use tempfile::TempDir;

use super::log_thread::ThreadLog;
use super::{SqlStore, SqliteTuning};
use crate::config::Synchronous;
use crate::store::sql::BatchStats;
use crate::store::sql::log_connection::LogHost;
use crate::store::{PlayerRecord, Store};

const TEST_TUNING: SqliteTuning = SqliteTuning {
    busy_timeout: Duration::from_secs(5),
    synchronous: Synchronous::Full,
    writer_nice: 0,
};

/// A test's own SQLite file, in a temporary folder removed when the test ends.
pub(crate) struct TestDb {
    dir: TempDir,
}

impl TestDb {
    /// A new file; always there (the engine tests' `None` is PostgreSQL's).
    pub(crate) async fn new() -> Option<TestDb> {
        Some(TestDb::new_file())
    }

    fn new_file() -> TestDb {
        TestDb {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    /// The database file: in a sub-folder that does not exist yet, so every test also
    /// checks that the folder is created.
    fn path(&self) -> PathBuf {
        self.dir.path().join("data").join("parlor.db")
    }

    /// A plain pool on this file, without the store (created, with its folder, if it
    /// does not exist): what a test that sets an older schema up before the store opens
    /// writes through.
    pub(crate) async fn raw_pool(&self) -> sqlx::SqlitePool {
        let path = self.path();
        std::fs::create_dir_all(path.parent().expect("in a folder")).expect("the folder");
        let options = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true);
        sqlx::SqlitePool::connect_with(options)
            .await
            .expect("open the SQLite file")
    }

    /// A connection of the game log writer's own kind (the writer thread's, which
    /// writes a batch's rows one statement each), on this file: the store has made it.
    pub(crate) async fn writer_connection(&self) -> Option<rusqlite::Connection> {
        let log = ThreadLog::new(self.path(), TEST_TUNING).expect("open the writer's connection");
        Some(log.connect().await.expect("the writer's connection"))
    }

    /// The store in this file, its batches counted in `stats`.
    pub(crate) async fn open_with(&self, stats: BatchStats) -> SqlStore {
        SqlStore::open(&self.path(), TEST_TUNING, stats)
            .await
            .expect("open the SQLite store")
    }
}

fn player(id: &str, name: &str) -> PlayerRecord {
    PlayerRecord {
        player_id: id.into(),
        name: name.to_owned(),
        bot_account: false,
    }
}

#[tokio::test]
async fn open_creates_the_folder_and_sets_the_pragmas() {
    let db = TestDb::new_file();
    let store = db.open_with(BatchStats::unreported()).await;
    assert!(db.path().is_file());

    // Hold several connections at once so more than one is checked.
    let mut conns = Vec::new();
    for _ in 0..3 {
        conns.push(store.pool.acquire().await.expect("acquire"));
    }
    for conn in &mut conns {
        let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
            .fetch_one(&mut **conn)
            .await
            .expect("journal_mode");
        assert_eq!(mode, "wal");
        let sync: i64 = sqlx::query_scalar("PRAGMA synchronous")
            .fetch_one(&mut **conn)
            .await
            .expect("synchronous");
        assert_eq!(sync, 2, "synchronous=FULL");
        let timeout: i64 = sqlx::query_scalar("PRAGMA busy_timeout")
            .fetch_one(&mut **conn)
            .await
            .expect("busy_timeout");
        assert_eq!(timeout, 5000);
        let fk: i64 = sqlx::query_scalar("PRAGMA foreign_keys")
            .fetch_one(&mut **conn)
            .await
            .expect("foreign_keys");
        assert_eq!(fk, 1);
    }
    drop(conns);
    store.close().await;
}

#[tokio::test]
async fn the_game_logs_own_connection_gets_its_pragmas_and_a_bounded_timeout() {
    let db = TestDb::new_file();
    let store = db.open_with(BatchStats::unreported()).await;
    // A timeout far past what SQLite's `int` of milliseconds holds is bounded, not a
    // panic on the writer's thread.
    for (busy_timeout, expected_ms) in [
        (Duration::from_secs(5), 5_000),
        (Duration::from_secs(u64::from(u32::MAX)), 3_600_000),
    ] {
        for synchronous in [Synchronous::Full, Synchronous::Normal] {
            let tuning = SqliteTuning {
                busy_timeout,
                synchronous,
                writer_nice: 0,
            };
            let log = ThreadLog::new(db.path(), tuning).expect("the writer's connection");
            let conn = log.connect().await.expect("connect");
            let pragma = |name: &str| -> i64 {
                conn.query_row(&format!("PRAGMA {name}"), [], |row| row.get(0))
                    .expect(name)
            };
            assert_eq!(pragma("busy_timeout"), expected_ms);
            let level = match synchronous {
                Synchronous::Full => 2,
                Synchronous::Normal => 1,
            };
            assert_eq!(pragma("synchronous"), level);
            // Off on the writer alone: its statements check that their games exist.
            assert_eq!(pragma("foreign_keys"), 0);
            let mode: String = conn
                .query_row("PRAGMA journal_mode", [], |row| row.get(0))
                .expect("journal_mode");
            assert_eq!(mode, "wal");
        }
    }
    store.close().await;
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn the_game_logs_thread_runs_at_the_niceness_asked() {
    let db = TestDb::new_file();
    let tuning = SqliteTuning {
        writer_nice: 7,
        ..TEST_TUNING
    };
    let store = SqlStore::open(&db.path(), tuning, BatchStats::unreported())
        .await
        .expect("open the SQLite store");
    crate::thread_priority::probe::wait_for_thread_at(
        "parlor-game-log",
        (7, i64::from(libc::SCHED_OTHER)),
    );
    store.close().await;
}

#[test]
fn the_game_log_refuses_a_file_it_cannot_open_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("nowhere").join("parlor.db");
    let refused = ThreadLog::new(missing, TEST_TUNING);
    assert!(
        matches!(&refused, Err(error) if error.is_connection_lost()),
        "{:?}",
        refused.err()
    );
}

#[tokio::test]
async fn dollar_placeholders_bind_by_number_on_sqlite() {
    let db = TestDb::new_file();
    let store = db.open_with(BatchStats::unreported()).await;
    // Out of order and reused: `$N` must bind the N-th argument, not the next one.
    let text: String = sqlx::query_scalar("SELECT $2 || '-' || $1 || '-' || $1")
        .bind("a")
        .bind("b")
        .fetch_one(&store.pool)
        .await
        .expect("select");
    assert_eq!(text, "b-a-a");
    let n: i64 = sqlx::query_scalar("SELECT $1 + 1")
        .bind(i64::from(u32::MAX))
        .fetch_one(&store.pool)
        .await
        .expect("select");
    assert_eq!(n, i64::from(u32::MAX) + 1);
    store.close().await;
}

#[tokio::test]
async fn synchronous_normal_is_applied_when_asked_for() {
    let db = TestDb::new_file();
    let tuning = SqliteTuning {
        synchronous: Synchronous::Normal,
        ..TEST_TUNING
    };
    let store = SqlStore::open(&db.path(), tuning, BatchStats::unreported())
        .await
        .expect("open");
    let sync: i64 = sqlx::query_scalar("PRAGMA synchronous")
        .fetch_one(&store.pool)
        .await
        .expect("synchronous");
    assert_eq!(sync, 1, "synchronous=NORMAL");
    store.close().await;
}

#[tokio::test]
async fn odd_characters_in_the_path_are_kept() {
    let db = TestDb::new_file();
    let path = db.dir.path().join("a b#c?d%20e").join("par lor.db");
    let store = SqlStore::open(&path, TEST_TUNING, BatchStats::unreported())
        .await
        .expect("open");
    store
        .create_player(&player("p1", "Alice"), "h1", 1)
        .await
        .expect("create");
    store.close().await;
    assert!(path.is_file(), "the file is where it was asked to be");
}
