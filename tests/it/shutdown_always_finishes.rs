//! SIGTERM always ends the process within `server.shutdown_grace_secs` and a short
//! margin, even when a room is stuck: here its move is waiting on a database that
//! another process holds write-locked, with a very long `store.busy_timeout_ms`.

use std::time::{Duration, Instant};

use crate::common::{Client, client_at, temp_dir};
use crate::process::ParlorProcess;
use serial_test::serial;
use sqlx::Connection;

/// The grace the server is given, seconds.
const GRACE_SECS: u64 = 2;

/// How long past the grace the process may take to exit: main's watchdog margin (5 s)
/// plus room for a loaded machine.
const MARGIN: Duration = Duration::from_secs(8);

/// A room stuck writing a move: a server given `grace_secs` to shut down and a very long
/// `store.busy_timeout_ms`, Alice and Bob playing in a room Alice created, and Alice's
/// first move waiting on the database, which the returned connection holds
/// write-locked (`ROLLBACK` on it lets the write through). The clients are returned too:
/// dropped, they would leave before the test wants them to.
struct StuckRoom {
    parlor: ParlorProcess,
    lock: sqlx::SqliteConnection,
    room: String,
    _clients: [Client; 2],
    _dir: tempfile::TempDir,
}

async fn a_room_stuck_writing_a_move(grace_secs: u64) -> StuckRoom {
    let dir = temp_dir();
    let grace = grace_secs.to_string();
    let parlor = ParlorProcess::start(
        dir.path(),
        &[
            ("PARLOR_STORE__BUSY_TIMEOUT_MS", "600000"),
            ("PARLOR_SERVER__SHUTDOWN_GRACE_SECS", &grace),
        ],
    );
    let (mut alice, _) = client_at(&parlor.address, "Alice", None).await;
    let (mut bob, _) = client_at(&parlor.address, "Bob", None).await;
    let (room, _) = alice.create(["me", "open"]).await;
    bob.join(&room, 1).await;
    alice.until_state(|s| s["status"] == "playing").await;

    // Another process holds the database's write lock; Alice's move waits for it.
    let url = format!("sqlite://{}", dir.path().join("parlor.db").display());
    let mut lock = sqlx::SqliteConnection::connect(&url).await.unwrap();
    sqlx::query("BEGIN EXCLUSIVE")
        .execute(&mut lock)
        .await
        .unwrap();
    alice.play(&room, "4").await;
    StuckRoom {
        parlor,
        lock,
        room,
        _clients: [alice, bob],
        _dir: dir,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn sigterm_ends_a_server_whose_room_is_stuck_writing_a_move() {
    // Bound whole: its clients and directory must live as long as the test.
    let mut stuck = a_room_stuck_writing_a_move(GRACE_SECS).await;
    tokio::time::sleep(Duration::from_millis(500)).await;

    let signalled = Instant::now();
    stuck.parlor.signal(libc::SIGTERM);
    let limit = Duration::from_secs(GRACE_SECS) + MARGIN;
    // Blocking is fine here: nothing else runs in this test while it waits.
    let exited = stuck.parlor.exited_within(limit);
    let took = signalled.elapsed();
    let threads = stuck.parlor.threads_report();
    sqlx::query("ROLLBACK")
        .execute(&mut stuck.lock)
        .await
        .unwrap();
    assert!(
        exited.is_some(),
        "the server was still running {took:?} after SIGTERM with a {GRACE_SECS} s grace; \
         its threads (name, state, waiting in):\n{threads}"
    );
}

/// A room a client created runs on that client's HTTP worker, which drops whatever it
/// still runs when it stops: shutdown must let the room finish first. Here the room is
/// waiting on the database (locked by another process) when SIGTERM comes, and its
/// clients are told to go at once; the lock is released a second later, well within the
/// grace, and the room must then finish its move's write and close on its own before
/// the server stops.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn sigterm_lets_a_client_made_room_finish_its_move_before_its_worker_stops() {
    let mut stuck = a_room_stuck_writing_a_move(10).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    stuck.parlor.signal(libc::SIGTERM);
    // Long enough for the clients' connections to close and an idle worker to stop.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    sqlx::query("ROLLBACK")
        .execute(&mut stuck.lock)
        .await
        .unwrap();
    let exited = stuck.parlor.exited_within(Duration::from_secs(10) + MARGIN);
    assert!(exited.is_some_and(|status| status.success()), "{exited:?}");

    let log = stuck.parlor.log_lines();
    let removed = log
        .iter()
        .position(|line| line.contains("room removed") && line.contains(&stuck.room));
    let stopped = log.iter().position(|line| line.ends_with("stopped"));
    assert!(
        removed.is_some() && removed < stopped,
        "the room must close on its own before the server stops: {log:#?}"
    );
    assert!(
        !log.iter().any(|line| line.contains("still busy")),
        "{log:#?}"
    );
}
