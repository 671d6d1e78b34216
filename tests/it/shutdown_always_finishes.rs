//! SIGTERM always ends the process, even when a room is stuck: here its move is waiting
//! on a database that another process holds write-locked, with a very long
//! `store.busy_timeout_ms`. The server gives up on the room once
//! `server.shutdown_grace_secs` has run out, says so, and exits while the write is still
//! waiting. (How soon after the grace it exits is main's watchdog's business; it is not
//! timed here.)

use std::time::{Duration, Instant};

use crate::common::{Client, PATIENCE, client_at, temp_dir};
use crate::process::ParlorProcess;
use crate::waiting::eventually;
use serial_test::serial;
use sqlx::Connection;

/// The grace the server is given, seconds.
const GRACE_SECS: u64 = 2;

/// How long the test waits for the process to exit before it fails: the stuck write
/// would wait ten minutes, so only a server that gave up on it exits in time.
const EXIT_PATIENCE: Duration = Duration::from_secs(120);

/// A room stuck writing a move: a server given `grace_secs` to shut down and a very long
/// `store.busy_timeout_ms`, Alice and Bob playing in a room Alice created, and Alice's
/// first move waiting on the database, which the returned connection holds
/// write-locked (`ROLLBACK` on it lets the write through). The clients are returned too:
/// dropped, they would leave before the test wants them to.
pub(crate) struct StuckRoom {
    /// The server.
    pub(crate) parlor: ParlorProcess,
    /// The connection holding the database's write lock.
    pub(crate) lock: sqlx::SqliteConnection,
    room: String,
    clients: [Client; 2],
    _dir: tempfile::TempDir,
}

/// See [`StuckRoom`]: a server whose shutdown waits for a room until the lock is
/// released or `grace_secs` runs out.
pub(crate) async fn a_room_stuck_writing_a_move(grace_secs: u64) -> StuckRoom {
    let dir = temp_dir();
    let grace = grace_secs.to_string();
    let parlor = ParlorProcess::start(
        dir.path(),
        &[
            ("PARLOR_STORE__BUSY_TIMEOUT_MS", "600000"),
            ("PARLOR_SERVER__SHUTDOWN_GRACE_SECS", &grace),
            // The rooms' comings and goings are logged at debug.
            ("RUST_LOG", "info,parlor::room=debug"),
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
    writer_waits_for_the_lock(&parlor).await;
    StuckRoom {
        parlor,
        lock,
        room,
        clients: [alice, bob],
        _dir: dir,
    }
}

/// Waits until the server's game log writer is waiting for the database's lock: asleep
/// in SQLite's busy handler between two tries (it never sleeps otherwise), as Linux's
/// /proc shows.
async fn writer_waits_for_the_lock(parlor: &ParlorProcess) {
    let what = "the game log's writer waits for the lock";
    eventually(what, PATIENCE, async || {
        let writer = parlor
            .threads()
            .into_iter()
            .find(|thread| thread.name == "parlor-game-log");
        match writer {
            Some(writer) if writer.wchan.contains("nanosleep") => Ok(()),
            _ => Err(parlor.threads_report()),
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn sigterm_ends_a_server_whose_room_is_stuck_writing_a_move() {
    // Bound whole: its clients and directory must live as long as the test.
    let mut stuck = a_room_stuck_writing_a_move(GRACE_SECS).await;

    let signalled = Instant::now();
    stuck.parlor.signal(libc::SIGTERM);
    // Blocking is fine here: nothing else runs in this test while it waits.
    let exited = stuck.parlor.exited_within(EXIT_PATIENCE);
    let took = signalled.elapsed();
    let threads = stuck.parlor.threads_report();
    // Only now is the write let through: the process ended without it.
    sqlx::query("ROLLBACK")
        .execute(&mut stuck.lock)
        .await
        .unwrap();
    assert!(
        exited.is_some(),
        "the server was still running {took:?} after SIGTERM with a {GRACE_SECS} s grace; \
         its threads (name, state, waiting in):\n{threads}"
    );
    eprintln!("the stuck server exited {took:?} after SIGTERM");
    let log = stuck.parlor.log_lines();
    assert!(
        log.iter()
            .any(|line| line.contains("still busy when the shutdown grace ran out")),
        "the server gave up on the room at the grace: {log:#?}"
    );
}

/// A room a client created runs on that client's HTTP worker, which drops whatever it
/// still runs when it stops: shutdown must let the room finish first. Here the room is
/// waiting on the database (locked by another process) when SIGTERM comes, and its
/// clients are told to go at once; the lock is released a little later, long before
/// the grace runs out, and the room must then finish its move's write and close on its own
/// before the server stops.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn sigterm_lets_a_client_made_room_finish_its_move_before_its_worker_stops() {
    // A grace far longer than the test takes to release the lock, however slow.
    let mut stuck = a_room_stuck_writing_a_move(120).await;
    stuck.parlor.signal(libc::SIGTERM);
    stuck.parlor.logged("shutting down", PATIENCE).await;
    // Bob is told to go, and his connection closes (Alice's session is waiting for her
    // move's answer, which waits for the lock).
    let [_alice, bob] = &mut stuck.clients;
    bob.until("shutdown").await;
    bob.closed_with(PATIENCE).await;
    // Not a wait for anything: the moment in which a server that stopped its idle
    // workers without waiting for the rooms would stop the room's. This one must not.
    tokio::time::sleep(Duration::from_secs(1)).await;
    sqlx::query("ROLLBACK")
        .execute(&mut stuck.lock)
        .await
        .unwrap();
    let exited = stuck.parlor.exited_within(EXIT_PATIENCE);
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
