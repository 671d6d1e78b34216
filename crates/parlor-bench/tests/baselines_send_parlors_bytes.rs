//! The two baselines parlor-bench compares Parlor with send the same `state` and
//! `moved` frames as Parlor, byte for byte, for the same requests: a room created,
//! watched and joined, a game played to a win, a rematch and its first move; with every
//! connection taking full states, every one asking for moves as events
//! (`hello.updates`), and a room with both. Only the values of ids and of Parlor's
//! ratings (which the baselines do not compute) are masked before comparing.

mod common;

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

/// Skips frames up to the next `state` or `moved` and returns it as it came.
async fn next_state(ws: &mut Ws) -> String {
    loop {
        let text = next_text(ws).await;
        if text.starts_with(r#"{"type":"state""#) || text.starts_with(r#"{"type":"moved""#) {
            return text;
        }
    }
}

/// The `updates` each of Alice, Bob and Carol says in `hello`; `None` leaves it out.
type Updates = [Option<&'static str>; 3];

/// Everyone takes full states, without saying so.
const STATES: Updates = [None, None, None];
/// Everyone asks for moves as events.
const MOVES: Updates = [Some("moves"), Some("moves"), Some("moves")];
/// Alice and Carol ask for moves as events, Bob for full states: the room needs both.
const MIXED: Updates = [Some("moves"), Some("states"), Some("moves")];

/// The script's runs against one server: a name suffix (Parlor keeps a name for its
/// player) and everyone's `updates`.
const RUNS: [(&str, Updates); 3] = [("", STATES), ("M", MOVES), ("X", MIXED)];

/// The `state` and `moved` frames each of Alice, Bob and Carol (their names followed by
/// `suffix`) receives during the script, in order, each having said hello with its
/// `updates`.
async fn script(addr: SocketAddr, suffix: &str, updates: Updates) -> Vec<String> {
    let mut seen = Vec::new();
    let mut alice = connect(addr).await;
    let mut bob = connect(addr).await;
    let mut carol = connect(addr).await;
    for ((ws, name), updates) in [
        (&mut alice, "Alice"),
        (&mut bob, "Bob"),
        (&mut carol, "Carol"),
    ]
    .into_iter()
    .zip(updates)
    {
        let mut hello = json!({"type": "hello", "name": format!("{name}{suffix}")});
        if let Some(updates) = updates {
            hello["updates"] = json!(updates);
        }
        send(ws, hello).await;
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
    let mut out = common::mask_ids(frame.replace(room, "ROOM"));
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

/// How many of `frames` are `moved` events.
fn moved_count(frames: &[String]) -> usize {
    frames
        .iter()
        .filter(|frame| frame.starts_with(r#"{"type":"moved""#))
        .count()
}

/// The `code` of the error a `hello` whose `updates` is not a known value gets.
async fn unknown_updates_refusal(addr: SocketAddr) -> Value {
    let mut ws = connect(addr).await;
    send(
        &mut ws,
        json!({"type": "hello", "name": "Dave", "updates": "sometimes"}),
    )
    .await;
    let refusal: Value = serde_json::from_str(&next_text(&mut ws).await).unwrap();
    refusal["code"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn baselines_send_the_same_state_and_moved_frames_as_parlor() {
    let parlor = Parlor::start().await;
    let mut expected = Vec::new();
    for (suffix, updates) in RUNS {
        expected.push(script(parlor.addr, suffix, updates).await);
    }
    assert_eq!(unknown_updates_refusal(parlor.addr).await, "bad_message");
    parlor.stop().await;
    for frames in &expected {
        assert_eq!(frames.len(), 36);
        assert!(frames[0].contains(r#""status":"waiting""#), "{}", frames[0]);
        // The finishing move is a full state for everyone.
        assert!(
            frames[24].contains(r#""reason":"three_in_a_row""#),
            "{}",
            frames[24]
        );
    }
    // Every other move, six of the first game and the rematch's first, is a `moved`
    // event for those who asked: all three, then Alice and Carol.
    assert_eq!(moved_count(&expected[0]), 0);
    assert_eq!(moved_count(&expected[1]), 7 * 3);
    assert_eq!(moved_count(&expected[2]), 7 * 2);
    // Alice's first move, as she hears of it.
    assert_eq!(
        expected[1][6],
        r#"{"type":"moved","room":"ROOM","seq":5,"last_move":{"seat":0,"move":"4","display":"4"},"moves":1,"to_move":1,"position":"....X....","cells":[[4,"X"]],"legal_moves":["0","1","2","3","5","6","7","8"],"clocks":null,"draw_offer":null}"#
    );

    for binary in [
        Path::new(env!("CARGO_BIN_EXE_parlor-baseline-actix")),
        Path::new(env!("CARGO_BIN_EXE_parlor-baseline-tungstenite")),
    ] {
        let (_baseline, addr) = start_baseline(binary);
        for ((suffix, updates), expected) in RUNS.into_iter().zip(&expected) {
            let got = script(addr, suffix, updates).await;
            for (i, (got, expected)) in got.iter().zip(expected).enumerate() {
                assert_eq!(
                    got,
                    expected,
                    "{}, updates {updates:?}: frame {i} differs",
                    binary.display()
                );
            }
            assert_eq!(got.len(), expected.len());
        }
        assert_eq!(unknown_updates_refusal(addr).await, "bad_message");
    }
}
