//! The Colyseus peer parlor-bench compares Parlor with (colyseus/server.mjs, on Node.js)
//! sends the same frames as the actix baseline, byte for byte, for the same requests: a
//! room created, watched and joined, a held seat and a spectator's move refused, a game
//! played to a win, a rematch, its first move and a move out of turn, then the spectator
//! and a player leaving; with every client taking full states, every one asking for
//! moves as events, and a room with both. Every frame each client receives is compared
//! (`joined`, `state`, `moved`, `game_over`, `error`), except the baseline's answers that
//! Colyseus's matchmaking stands in for (`welcome`, `room_created`, `left`); a refused
//! join, which Colyseus answers with a failed join rather than a frame, is compared by
//! the `error` frame that failure carries. Only ids and a game's `duration_ms` are
//! masked before comparing.
//!
//! The Colyseus side is spoken by the generator's own client (src/load/colyseus.rs,
//! compiled into this test), against a real `node server.mjs`; the packages are installed
//! from the lock file (`npm ci`) first if they are missing.

mod common;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::connect_async;
use tokio_tungstenite::tungstenite::Message;

#[path = "../src/load/colyseus.rs"]
mod colyseus;

/// What the client takes from the generator's wire module (src/load/wire.rs).
mod wire {
    use std::time::Duration;

    use tokio::net::TcpStream;
    use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

    /// Each client's read buffer, as the generator's.
    pub(crate) const READ_BUFFER_BYTES: usize = 4 * 1024;
    /// How long one step of setting up a room may take, as the generator's.
    pub(crate) const SETUP_PATIENCE: Duration = Duration::from_secs(30);
    /// A client WebSocket.
    pub(crate) type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;
}

use colyseus::ColyseusConn;
use wire::Ws;

/// How long the test waits for any one frame.
const PATIENCE: Duration = Duration::from_secs(10);

/// A server process, killed when dropped.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `command` with its standard output piped and waits for its
/// `listening on http://ADDR` line; returns it and `ADDR`. The rest of its output is
/// copied to the test's.
fn start(mut command: Command) -> (Process, String) {
    let mut child = command.stdout(Stdio::piped()).spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let process = Process(child);
    let address = loop {
        let line = lines
            .next()
            .expect("the server ended before listening")
            .unwrap();
        if let Some((_, address)) = line.split_once("listening on http://") {
            break address.trim().to_owned();
        }
        println!("{line}");
    };
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            println!("{line}");
        }
    });
    (process, address)
}

/// The actix baseline on an ephemeral port.
fn start_baseline() -> (Process, SocketAddr) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_parlor-baseline-actix"));
    command.args(["--port", "0"]);
    let (process, address) = start(command);
    (process, address.parse().unwrap())
}

/// The Colyseus peer on an ephemeral port, its packages installed first if missing.
fn start_colyseus() -> (Process, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("colyseus");
    if !dir.join("node_modules").is_dir() {
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .status()
            .expect("npm");
        assert!(status.success(), "npm ci failed: {status}");
    }
    let mut command = Command::new("node");
    command
        .args(["server.mjs", "--port", "0"])
        .current_dir(&dir);
    let (process, address) = start(command);
    // As parlor-bench names the servers it measures.
    (process, format!("ws://{address}/ws"))
}

/// The server a script runs against.
#[derive(Clone)]
enum Server {
    /// A baseline, speaking Parlor's protocol.
    Baseline(SocketAddr),
    /// The Colyseus peer, at its `ws://…/ws` URL.
    Colyseus(String),
}

/// One of the script's clients.
enum Client {
    /// Parlor's protocol on one WebSocket.
    Baseline(Box<Ws>),
    /// The generator's Colyseus client.
    Colyseus(Box<ColyseusConn>),
}

impl Client {
    /// A client named `name` that asks to hear of moves as `updates` says (`None`: says
    /// nothing, which means full states).
    async fn open(server: &Server, name: &str, updates: Option<&str>) -> Client {
        match server {
            Server::Baseline(addr) => {
                let mut ws = connect_async(format!("ws://{addr}/ws")).await.unwrap().0;
                let mut hello = json!({"type": "hello", "name": name});
                if let Some(updates) = updates {
                    hello["updates"] = json!(updates);
                }
                ws.send(Message::text(hello.to_string())).await.unwrap();
                let mut client = Client::Baseline(Box::new(ws));
                let welcome = client.next_raw().await;
                assert!(welcome.starts_with(r#"{"type":"welcome""#), "{welcome}");
                client
            }
            Server::Colyseus(url) => Client::Colyseus(Box::new(ColyseusConn::new(
                url,
                format!("p_{:016x}", rand::random::<u64>()),
                name.to_owned(),
                updates == Some("moves"),
            ))),
        }
    }

    /// Creates a room, seated in seat 0; returns its id.
    async fn create(&mut self) -> String {
        match self {
            Client::Baseline(ws) => {
                let create =
                    json!({"type": "create_room", "game": "tictactoe", "seats": ["me", "open"]});
                ws.send(Message::text(create.to_string())).await.unwrap();
                let created: Value = serde_json::from_str(&self.next_raw().await).unwrap();
                assert_eq!(created["type"], "room_created", "{created}");
                created["room"].as_str().unwrap().to_owned()
            }
            Client::Colyseus(client) => client.create().await.unwrap(),
        }
    }

    /// Watches `room`.
    async fn watch(&mut self, room: &str) {
        match self {
            Client::Baseline(ws) => {
                let watch = json!({"type": "watch", "room": room});
                ws.send(Message::text(watch.to_string())).await.unwrap();
            }
            Client::Colyseus(client) => client.watch(room).await.unwrap(),
        }
    }

    /// Takes `seat` in `room`.
    async fn join(&mut self, room: &str, seat: u8) {
        match self {
            Client::Baseline(ws) => {
                let join = json!({"type": "join", "room": room, "seat": seat});
                ws.send(Message::text(join.to_string())).await.unwrap();
            }
            Client::Colyseus(client) => client.join(room, seat).await.unwrap(),
        }
    }

    /// Asks for `seat` in `room`, which someone holds: the refusal, as the baseline's
    /// `error` frame or the text of the failed Colyseus join (which carries that frame).
    async fn refused_join(&mut self, room: &str, seat: u8) -> String {
        match self {
            Client::Baseline(_) => {
                self.join(room, seat).await;
                self.next().await
            }
            Client::Colyseus(client) => {
                let why = client.join(room, seat).await.unwrap_err();
                let (Some(start), Some(end)) = (why.find('{'), why.rfind('}')) else {
                    panic!("a refusal without a frame: {why}");
                };
                why[start..=end].to_owned()
            }
        }
    }

    /// Sends a client message of Parlor's (`move` or `rematch`).
    async fn send(&mut self, message: Value) {
        match self {
            Client::Baseline(ws) => ws.send(Message::text(message.to_string())).await.unwrap(),
            Client::Colyseus(client) => client.send(message.to_string()).await.unwrap(),
        }
    }

    /// Leaves `room`.
    async fn leave(&mut self, room: &str) {
        match self {
            Client::Baseline(ws) => {
                let leave = json!({"type": "leave", "room": room});
                ws.send(Message::text(leave.to_string())).await.unwrap();
            }
            Client::Colyseus(client) => client.leave().await,
        }
    }

    /// The next frame, exactly as it came.
    async fn next_raw(&mut self) -> String {
        match self {
            Client::Baseline(ws) => tokio::time::timeout(PATIENCE, async {
                loop {
                    match ws.next().await.expect("closed").expect("failed") {
                        Message::Text(text) => break text.as_str().to_owned(),
                        Message::Close(why) => panic!("closed: {why:?}"),
                        _ => {}
                    }
                }
            })
            .await
            .expect("timed out"),
            Client::Colyseus(client) => tokio::time::timeout(PATIENCE, client.next())
                .await
                .expect("timed out")
                .expect("closed")
                .expect("failed"),
        }
    }

    /// The next frame of those both servers send, exactly as it came: the baseline's
    /// `welcome`, `room_created` and `left`, for which Colyseus's matchmaking stands in,
    /// are skipped.
    async fn next(&mut self) -> String {
        loop {
            let frame = self.next_raw().await;
            let baseline_only = ["welcome", "room_created", "left"]
                .iter()
                .any(|kind| frame.starts_with(&format!(r#"{{"type":"{kind}""#)));
            if !baseline_only {
                return frame;
            }
        }
    }
}

/// The `updates` each of Alice, Bob and Carol asks for; `None` leaves it out.
type Updates = [Option<&'static str>; 3];

/// The script's runs: everyone takes full states (without saying so); everyone asks for
/// moves as events; Alice and Carol ask for moves, Bob for full states.
const RUNS: [Updates; 3] = [
    [None, None, None],
    [Some("moves"), Some("moves"), Some("moves")],
    [Some("moves"), Some("states"), Some("moves")],
];

/// Reads `count` frames from each of `clients`, in turn, onto `seen`.
async fn take(seen: &mut Vec<String>, clients: &mut [&mut Client], count: usize) {
    for client in clients {
        for _ in 0..count {
            seen.push(client.next().await);
        }
    }
}

/// Every frame (of those both servers send) that Alice, Bob and Carol receive during
/// the script, in order, ids and durations masked.
async fn script(server: &Server, updates: Updates) -> Vec<String> {
    let mut seen = Vec::new();
    let mut alice = Client::open(server, "Alice", updates[0]).await;
    let mut bob = Client::open(server, "Bob", updates[1]).await;
    let mut carol = Client::open(server, "Carol", updates[2]).await;
    let room = alice.create().await;
    take(&mut seen, &mut [&mut alice], 2).await;
    carol.watch(&room).await;
    take(&mut seen, &mut [&mut carol], 2).await;
    take(&mut seen, &mut [&mut alice], 1).await;
    bob.join(&room, 1).await;
    take(&mut seen, &mut [&mut bob], 2).await;
    take(&mut seen, &mut [&mut alice, &mut carol], 1).await;
    // A held seat is refused.
    let mut dave = Client::open(server, "Dave", None).await;
    seen.push(dave.refused_join(&room, 1).await);
    // A spectator's move is refused.
    carol
        .send(json!({"type": "move", "room": room, "move": "4"}))
        .await;
    take(&mut seen, &mut [&mut carol], 1).await;
    let cells = ["4", "1", "0", "8", "6", "3", "2"];
    for (ply, cell) in cells.iter().enumerate() {
        let mover = if ply % 2 == 0 { &mut alice } else { &mut bob };
        mover
            .send(json!({"type": "move", "room": room, "move": cell}))
            .await;
        // The winning move: its state, then game_over.
        let count = if ply + 1 == cells.len() { 2 } else { 1 };
        take(&mut seen, &mut [&mut alice, &mut bob, &mut carol], count).await;
    }
    alice.send(json!({"type": "rematch", "room": room})).await;
    take(&mut seen, &mut [&mut alice, &mut bob, &mut carol], 1).await;
    bob.send(json!({"type": "rematch", "room": room})).await;
    take(&mut seen, &mut [&mut alice, &mut bob, &mut carol], 1).await;
    // Bob has seat 0 now and moves first; his second move in a row is refused.
    for _ in 0..2 {
        bob.send(json!({"type": "move", "room": room, "move": "0"}))
            .await;
    }
    take(&mut seen, &mut [&mut alice, &mut bob, &mut carol], 1).await;
    take(&mut seen, &mut [&mut bob], 1).await;
    carol.leave(&room).await;
    take(&mut seen, &mut [&mut alice, &mut bob], 1).await;
    bob.leave(&room).await;
    take(&mut seen, &mut [&mut alice], 1).await;
    alice.leave(&room).await;
    seen.into_iter().map(|frame| mask(&frame, &room)).collect()
}

/// Replaces the room id, player and game ids, and a game's duration, which differ
/// between servers by design.
fn mask(frame: &str, room: &str) -> String {
    let mut out = common::mask_ids(frame.replace(&format!(r#""{room}""#), r#""ROOM""#));
    if let Some(at) = out.find("\"duration_ms\":") {
        let start = at + "\"duration_ms\":".len();
        let digits = out[start..].bytes().take_while(u8::is_ascii_digit).count();
        out.replace_range(start..start + digits, "0");
    }
    out
}

/// How many of `frames` are of type `kind`.
fn count(frames: &[String], kind: &str) -> usize {
    let start = format!(r#"{{"type":"{kind}""#);
    frames
        .iter()
        .filter(|frame| frame.starts_with(&start))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn colyseus_sends_the_same_frames_as_the_baseline() {
    let (_baseline, addr) = start_baseline();
    let mut expected = Vec::new();
    for updates in RUNS {
        expected.push(script(&Server::Baseline(addr), updates).await);
    }
    for (frames, moved) in expected.iter().zip([0, 7 * 3, 7 * 2]) {
        assert_eq!(frames.len(), 48);
        assert_eq!(count(frames, "joined"), 3);
        assert_eq!(count(frames, "game_over"), 3);
        assert_eq!(count(frames, "error"), 3);
        assert_eq!(count(frames, "moved"), moved);
        assert!(frames[1].contains(r#""status":"waiting""#), "{}", frames[1]);
    }
    // The held seat, the spectator's move and Bob's move out of turn, as the baseline
    // words their refusals.
    assert_eq!(
        expected[0][9],
        r#"{"type":"error","code":"seat_taken","message":"That seat is taken."}"#
    );
    assert_eq!(
        expected[0][10],
        r#"{"type":"error","code":"not_a_player","message":"You hold no seat in this room."}"#
    );
    assert_eq!(
        expected[0][44],
        r#"{"type":"error","code":"not_your_turn","message":"It is the other seat's turn."}"#
    );

    let (_colyseus, url) = start_colyseus();
    for (updates, expected) in RUNS.into_iter().zip(&expected) {
        let got = script(&Server::Colyseus(url.clone()), updates).await;
        for (i, (got, expected)) in got.iter().zip(expected).enumerate() {
            assert_eq!(got, expected, "updates {updates:?}: frame {i} differs");
        }
        assert_eq!(got.len(), expected.len(), "updates {updates:?}");
    }
}
