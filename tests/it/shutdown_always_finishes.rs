//! SIGTERM always ends the process within `server.shutdown_grace_secs` and a short
//! margin, even when a room is stuck: here its move is waiting on a database that
//! another process holds write-locked, with a very long `store.busy_timeout_ms`.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::common::{Client, temp_dir};
use sqlx::Connection;
use tokio_tungstenite::connect_async;

/// The grace the server is given, seconds.
const GRACE_SECS: u64 = 2;

/// How long past the grace the process may take to exit: main's watchdog margin (5 s)
/// plus room for a loaded machine.
const MARGIN: Duration = Duration::from_secs(8);

/// Starts `parlor` on a free port with its database in `dir`; returns the process and
/// its address, read from its log.
fn start_parlor(dir: &std::path::Path) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_parlor"))
        .arg("--port")
        .arg("0")
        .current_dir(dir)
        .env("PARLOR_STORE__PATH", dir.join("parlor.db"))
        .env("PARLOR_STORE__BUSY_TIMEOUT_MS", "600000")
        .env("PARLOR_SERVER__SHUTDOWN_GRACE_SECS", GRACE_SECS.to_string())
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (address, found) = mpsc::channel();
    std::thread::spawn(move || {
        let mut address = Some(address);
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            eprintln!("parlor: {line}");
            if let Some((_, rest)) = line.split_once("listening on http://")
                && let Some(address) = address.take()
            {
                let _ = address.send(rest.trim().to_owned());
            }
        }
    });
    let address = found.recv_timeout(Duration::from_secs(30)).unwrap();
    (child, address)
}

async fn player(address: &str, name: &str) -> Client {
    let (ws, _) = connect_async(format!("ws://{address}/ws")).await.unwrap();
    let mut client = Client { ws };
    client.hello(name, None).await;
    client
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_ends_a_server_whose_room_is_stuck_writing_a_move() {
    let dir = temp_dir();
    let (mut child, address) = start_parlor(dir.path());
    let mut alice = player(&address, "Alice").await;
    let mut bob = player(&address, "Bob").await;
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
    tokio::time::sleep(Duration::from_millis(500)).await;

    let pid = i32::try_from(child.id()).unwrap();
    let signalled = Instant::now();
    // SAFETY: kill takes plain integers; `pid` is our own child, still running.
    #[allow(unsafe_code)]
    let sent = unsafe { libc::kill(pid, libc::SIGTERM) };
    assert_eq!(sent, 0);
    let limit = Duration::from_secs(GRACE_SECS) + MARGIN;
    let exited = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if signalled.elapsed() > limit {
            break None;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    if exited.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
    let took = signalled.elapsed();
    sqlx::query("ROLLBACK").execute(&mut lock).await.unwrap();
    assert!(
        exited.is_some(),
        "the server was still running {took:?} after SIGTERM with a {GRACE_SECS} s grace"
    );
}
