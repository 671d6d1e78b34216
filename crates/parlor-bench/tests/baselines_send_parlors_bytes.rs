//! The two baselines parlor-bench compares Parlor with send the same `state` frames as
//! Parlor, byte for byte, for the same requests: a room created, watched and joined, a
//! game played to a win, a rematch and its first move. Only the values of ids and of
//! Parlor's ratings (which the baselines do not compute) are masked before comparing.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use parlor::config::Config;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async};
use tokio_util::sync::CancellationToken;

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A baseline process, killed when dropped.
struct Baseline(Child);

impl Drop for Baseline {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// How long the test waits for any one frame.
const PATIENCE: Duration = Duration::from_secs(10);

/// A Parlor server in this process, on an ephemeral port, with its database in a
/// scratch folder; stopped gracefully by [`Parlor::stop`].
struct Parlor {
    addr: SocketAddr,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<Result<(), parlor::RunError>>,
    _dir: tempfile::TempDir,
}

impl Parlor {
    /// Starts Parlor with bots that never fill a seat, so only the script's players act.
    async fn start() -> Parlor {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::default();
        config.store.path = dir.path().join("parlor.db");
        config.bots.fill_after_secs = 600;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(parlor::run(config, listener, shutdown.clone()));
        Parlor {
            addr,
            shutdown,
            task,
            _dir: dir,
        }
    }

    /// Stops the server and waits until it has closed its database.
    async fn stop(self) {
        self.shutdown.cancel();
        self.task.await.unwrap().unwrap();
    }
}

fn start_baseline(binary: &Path) -> (Baseline, SocketAddr) {
    let mut child = Command::new(binary)
        .args(["--port", "0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let address = line.split("listening on http://").nth(1).unwrap().trim();
    (Baseline(child), address.parse().unwrap())
}

async fn connect(addr: SocketAddr) -> Ws {
    connect_async(format!("ws://{addr}/ws")).await.unwrap().0
}

async fn send(ws: &mut Ws, message: Value) {
    ws.send(Message::text(message.to_string())).await.unwrap();
}

/// The next text frame, exactly as it came.
async fn next_text(ws: &mut Ws) -> String {
    loop {
        let frame = tokio::time::timeout(PATIENCE, ws.next())
            .await
            .expect("timed out")
            .expect("closed")
            .expect("failed");
        if let Message::Text(text) = frame {
            return text.as_str().to_owned();
        }
    }
}

/// Skips frames up to the next `state` and returns it as it came.
async fn next_state(ws: &mut Ws) -> String {
    loop {
        let text = next_text(ws).await;
        if text.starts_with(r#"{"type":"state""#) {
            return text;
        }
    }
}

/// The state frames each of Alice, Bob and Carol receives during the script, in order.
async fn script(addr: SocketAddr) -> Vec<String> {
    let mut seen = Vec::new();
    let mut alice = connect(addr).await;
    let mut bob = connect(addr).await;
    let mut carol = connect(addr).await;
    for (ws, name) in [
        (&mut alice, "Alice"),
        (&mut bob, "Bob"),
        (&mut carol, "Carol"),
    ] {
        send(ws, json!({"type": "hello", "name": name})).await;
        next_text(ws).await;
    }
    send(
        &mut alice,
        json!({"type": "create_room", "game": "tictactoe", "seats": ["me", "open"]}),
    )
    .await;
    let created: Value = serde_json::from_str(&next_text(&mut alice).await).unwrap();
    let room = created["room"].as_str().unwrap().to_owned();
    seen.push(next_state(&mut alice).await);
    send(&mut carol, json!({"type": "watch", "room": room})).await;
    seen.push(next_state(&mut carol).await);
    seen.push(next_state(&mut alice).await);
    send(&mut bob, json!({"type": "join", "room": room, "seat": 1})).await;
    for ws in [&mut bob, &mut alice, &mut carol] {
        seen.push(next_state(ws).await);
    }
    for (ply, cell) in ["4", "1", "0", "8", "6", "3", "2"].iter().enumerate() {
        let mover = if ply % 2 == 0 { &mut alice } else { &mut bob };
        send(mover, json!({"type": "move", "room": room, "move": cell})).await;
        for ws in [&mut alice, &mut bob, &mut carol] {
            seen.push(next_state(ws).await);
        }
    }
    send(&mut alice, json!({"type": "rematch", "room": room})).await;
    for ws in [&mut alice, &mut bob, &mut carol] {
        seen.push(next_state(ws).await);
    }
    send(&mut bob, json!({"type": "rematch", "room": room})).await;
    for ws in [&mut alice, &mut bob, &mut carol] {
        seen.push(next_state(ws).await);
    }
    // Bob has seat 0 now and moves first.
    send(&mut bob, json!({"type": "move", "room": room, "move": "0"})).await;
    for ws in [&mut alice, &mut bob, &mut carol] {
        seen.push(next_state(ws).await);
    }
    seen.into_iter().map(|frame| mask(&frame, &room)).collect()
}

/// Replaces the room id, player and game ids, and rating values, which differ between
/// servers by design.
fn mask(frame: &str, room: &str) -> String {
    let mut out = frame.replace(room, "ROOM");
    for prefix in ["\"p_", "\"g_"] {
        let mut from = 0;
        while let Some(at) = out[from..].find(prefix) {
            let start = from + at + prefix.len();
            let end = start + 16;
            if out.len() >= end && out[start..end].bytes().all(|b| b.is_ascii_hexdigit()) {
                out.replace_range(start..end, "################");
            }
            from = start;
        }
    }
    let mut from = 0;
    while let Some(at) = out[from..].find("\"rating\":") {
        let start = from + at + "\"rating\":".len();
        let digits = out[start..].bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            out.replace_range(start..start + digits, "null");
        }
        from = start;
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn baselines_send_the_same_state_frames_as_parlor() {
    let parlor = Parlor::start().await;
    let expected = script(parlor.addr).await;
    parlor.stop().await;
    assert_eq!(expected.len(), 36);
    assert!(
        expected[0].contains(r#""status":"waiting""#),
        "{}",
        expected[0]
    );
    assert!(
        expected[24].contains(r#""reason":"three_in_a_row""#),
        "{}",
        expected[24]
    );

    for binary in [
        Path::new(env!("CARGO_BIN_EXE_parlor-baseline-actix")),
        Path::new(env!("CARGO_BIN_EXE_parlor-baseline-tungstenite")),
    ] {
        let (_baseline, addr) = start_baseline(binary);
        let got = script(addr).await;
        for (i, (got, expected)) in got.iter().zip(&expected).enumerate() {
            assert_eq!(
                got,
                expected,
                "{}: state frame {i} differs",
                binary.display()
            );
        }
        assert_eq!(got.len(), expected.len());
    }
}
