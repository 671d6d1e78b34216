//! A real Parlor server on an ephemeral port, and a real WebSocket client, for the
//! integration tests. Each behaviour's module uses what it needs.

use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use parlor::config::{BotPriority, Config};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async};
use tokio_util::sync::CancellationToken;

use crate::conformance::{check_http_answer, check_sent, received};
use crate::waiting::eventually;

/// How long a test waits for any single expected message.
pub(crate) const PATIENCE: Duration = Duration::from_secs(10);

/// How long a server may take to start answering before the test fails.
const STARTING: Duration = Duration::from_secs(60);

/// A configuration for tests: a database in `dir`, fast bots, short timers.
pub(crate) fn test_config(dir: &Path) -> Config {
    let mut config = Config::default();
    config.store.path = dir.join("parlor.db");
    config.server.port = 0;
    config.bots.min_delay_ms = 0;
    config.bots.fill_after_secs = 1;
    config.rooms.reconnect_grace_secs = 1;
    config.rooms.claim_after_secs = 1;
    // With bots replying at once, a test client plays far faster than a person can
    // (a whole chess game in a second); the message budget gets its own tests.
    config.limits.messages_per_sec = 500;
    config.limits.messages_burst = 1_000;
    // Bot threads at normal priority: all the tests share one process, and under
    // SCHED_IDLE (the default, tested in thinkers.rs) one test's busy threads could
    // starve another test's bots for longer than it waits for them.
    config.bots.priority = BotPriority::Nice;
    config.bots.nice = 0;
    // The game log's thread likewise (store.writer_nice, tested in the SQLite store's
    // tests): dozens of servers share this process and its cores, and one test's busy
    // threads would leave another test's commits a tenth of a core.
    config.store.writer_nice = 0;
    config
}

/// A running server.
pub(crate) struct TestServer {
    /// Where it listens (127.0.0.1 and an ephemeral port).
    pub(crate) addr: SocketAddr,
    shutdown: CancellationToken,
    task: JoinHandle<Result<(), parlor::RunError>>,
}

impl TestServer {
    /// Starts a server with `config` on 127.0.0.1 and an ephemeral port.
    pub(crate) async fn start(config: Config) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(parlor::run(config, listener, shutdown.clone()));
        // The listener is bound already; wait until the server answers.
        let health = format!("http://{addr}/healthz");
        eventually("the server answers /healthz", STARTING, async || {
            if task.is_finished() {
                return Ok(false);
            }
            match reqwest::get(&health).await {
                Ok(_) => Ok(true),
                Err(error) => Err(error.to_string()),
            }
        })
        .await;
        if task.is_finished() {
            let ended = task.await.expect("the server's task");
            panic!("the server stopped as it started: {ended:?}");
        }
        TestServer {
            addr,
            shutdown,
            task,
        }
    }

    /// Starts a server with the test configuration and its database in `dir`.
    pub(crate) async fn in_dir(dir: &Path) -> TestServer {
        Self::start(test_config(dir)).await
    }

    /// Stops the server gracefully and waits until it has closed its database.
    pub(crate) async fn stop(self) {
        self.shutdown.cancel();
        self.task.await.unwrap().unwrap();
    }

    /// The server's HTTP address for `path`.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// `GET path`: the status and the JSON body, which must be an answer the API's
    /// description documents.
    pub(crate) async fn get_json(&self, path: &str) -> (u16, Value) {
        let response = reqwest::get(self.url(path)).await.unwrap();
        let status = response.status().as_u16();
        let body = response.json().await.unwrap();
        let route = path.split('?').next().unwrap_or(path);
        check_http_answer("GET", route, status, &body);
        (status, body)
    }

    /// `GET path` with the header `Authorization: <authorization>`: the response, unread.
    pub(crate) async fn get_with_authorization(
        &self,
        path: &str,
        authorization: &str,
    ) -> reqwest::Response {
        reqwest::Client::new()
            .get(self.url(path))
            .header("Authorization", authorization)
            .send()
            .await
            .unwrap()
    }

    /// A new WebSocket connection (not yet identified).
    pub(crate) async fn connect(&self) -> Client {
        let (ws, _) = connect_async(format!("ws://{}/ws", self.addr))
            .await
            .unwrap();
        Client { ws }
    }

    /// Alice in seat 0 and Bob in seat 1 of a new room whose game has started (Bob's
    /// join started it; Alice has not yet read the state saying so); returns both and
    /// the room's id.
    pub(crate) async fn pair_in_room(&self) -> ([Client; 2], String) {
        let mut alice = self.player("Alice").await;
        let mut bob = self.player("Bob").await;
        let (room, _) = alice.create(["me", "open"]).await;
        let state = bob.join(&room, 1).await;
        assert_eq!(state["status"], "playing");
        ([alice, bob], room)
    }

    /// A new connection that has said hello as `name`.
    pub(crate) async fn player(&self, name: &str) -> Client {
        let mut client = self.connect().await;
        client.hello(name, None).await;
        client
    }
}

/// Plays `moves` from the start of a game, alternately (seat 0 first), each player
/// waiting for its turn.
pub(crate) async fn play_alternately(players: &mut [Client; 2], room: &str, moves: &[&str]) {
    for (ply, cell) in moves.iter().enumerate() {
        let seat = ply % 2;
        let player = &mut players[seat];
        player
            .until_state(|s| s["to_move"] == json!(seat) && s["moves"] == json!(ply))
            .await;
        player.play(room, cell).await;
    }
}

/// A new temporary directory for a server's database, removed when dropped.
pub(crate) fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// A WebSocket client speaking JSON. Every frame it sends (but those sent unchecked, on
/// purpose) and every frame it receives is checked against the protocol's schema
/// ([`crate::conformance`]).
pub(crate) struct Client {
    /// The connection itself, for tests that read or write frames beyond JSON.
    pub(crate) ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

impl Client {
    /// Sends `message` as a text frame; it must be a `ClientMessage` of the schema.
    pub(crate) async fn send(&mut self, message: Value) {
        check_sent(&message);
        self.send_unchecked(message).await;
    }

    /// Sends `message` as a text frame without checking it against the schema: for
    /// tests of what the server does with messages no client should send.
    pub(crate) async fn send_unchecked(&mut self, message: Value) {
        self.ws
            .send(Message::text(message.to_string()))
            .await
            .unwrap();
    }

    /// Sends `text` as a text frame as it is, JSON or not, unchecked.
    pub(crate) async fn send_raw(&mut self, text: &str) {
        self.ws.send(Message::text(text.to_owned())).await.unwrap();
    }

    /// The next JSON message, skipping pings; panics after [`PATIENCE`] or on close.
    pub(crate) async fn recv(&mut self) -> Value {
        loop {
            let frame = tokio::time::timeout(PATIENCE, self.ws.next())
                .await
                .expect("timed out waiting for a message")
                .expect("the connection closed")
                .expect("the connection failed");
            match frame {
                Message::Text(text) => return received(&text),
                Message::Ping(_) | Message::Pong(_) => continue,
                other => panic!("unexpected frame {other:?}"),
            }
        }
    }

    /// The next JSON message, skipping pings; `None` once the connection has closed
    /// or failed. Waits as long as it takes.
    pub(crate) async fn next_json(&mut self) -> Option<Value> {
        loop {
            match self.ws.next().await? {
                Ok(Message::Text(text)) => return Some(received(&text)),
                Ok(Message::Ping(_) | Message::Pong(_)) => continue,
                Ok(_) | Err(_) => return None,
            }
        }
    }

    /// The next message, which must have this `type`.
    pub(crate) async fn expect(&mut self, kind: &str) -> Value {
        let message = self.recv().await;
        assert_eq!(message["type"], kind, "expected {kind}, got {message}");
        message
    }

    /// Skips messages until one of this `type` arrives; an unexpected `error` fails the
    /// test at once, with the server's explanation.
    pub(crate) async fn until(&mut self, kind: &str) -> Value {
        loop {
            let message = self.recv().await;
            if message["type"] == kind {
                return message;
            }
            assert_ne!(message["type"], "error", "waiting for {kind}: {message}");
        }
    }

    /// Skips states until one satisfies `done`.
    pub(crate) async fn until_state(&mut self, done: impl Fn(&Value) -> bool) -> Value {
        loop {
            let message = self.until("state").await;
            if done(&message) {
                return message;
            }
        }
    }

    /// Says hello as `name` (resuming with `token`, if any); returns the `welcome`.
    pub(crate) async fn hello(&mut self, name: &str, token: Option<&str>) -> Value {
        let mut message = json!({"type": "hello", "name": name});
        if let Some(token) = token {
            message["token"] = json!(token);
        }
        self.send(message).await;
        self.expect("welcome").await
    }

    /// Creates a tic-tac-toe room; see [`Client::create_game`].
    pub(crate) async fn create(&mut self, seats: [&str; 2]) -> (String, Option<Value>) {
        self.create_game("tictactoe", seats, json!({})).await
    }

    /// Creates a room and returns its id, skipping earlier messages up to `room_created`
    /// (then consuming `joined` and the snapshot when a seat is `me`).
    pub(crate) async fn create_game(
        &mut self,
        game: &str,
        seats: [&str; 2],
        options: Value,
    ) -> (String, Option<Value>) {
        let request =
            json!({"type": "create_room", "game": game, "seats": seats, "options": options});
        self.send(request).await;
        let created = self.until("room_created").await;
        let room = created["room"].as_str().unwrap().to_owned();
        if seats.contains(&"me") {
            self.expect("joined").await;
            let snapshot = self.expect("state").await;
            return (room, Some(snapshot));
        }
        (room, None)
    }

    /// Joins a seat (skipping earlier messages); returns the snapshot after `joined`.
    pub(crate) async fn join(&mut self, room: &str, seat: u8) -> Value {
        self.send(json!({"type": "join", "room": room, "seat": seat}))
            .await;
        let joined = self.until("joined").await;
        assert_eq!(joined["seat"], seat);
        self.expect("state").await
    }

    /// Sends the move `cell` in `room` (without waiting for an answer).
    pub(crate) async fn play(&mut self, room: &str, cell: &str) {
        self.send(json!({"type": "move", "room": room, "move": cell}))
            .await;
    }

    /// Sends a message and expects an `error` with `code` echoing `ref`.
    pub(crate) async fn expect_error(&mut self, mut message: Value, code: &str) {
        message["ref"] = json!(code);
        check_sent(&message);
        self.expect_error_unchecked(message, code).await;
    }

    /// As [`Client::expect_error`], for a message that is no `ClientMessage` of the
    /// schema (a misspelt game, a seat spec that does not exist…), sent unchecked.
    pub(crate) async fn expect_error_unchecked(&mut self, mut message: Value, code: &str) {
        message["ref"] = json!(code);
        self.send_unchecked(message).await;
        let reply = self.until("error").await;
        assert_eq!(reply["code"], code, "{reply}");
        assert_eq!(reply["ref"], code, "{reply}");
        assert!(
            reply["message"].as_str().is_some_and(|m| m.len() > 10),
            "{reply}"
        );
    }

    /// Closes the connection politely, ignoring a connection already gone.
    pub(crate) async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}

impl TestServer {
    /// A WebSocket connection with extra request headers, or the HTTP status and JSON
    /// body the upgrade was refused with.
    pub(crate) async fn connect_with(
        &self,
        headers: &[(&str, &str)],
    ) -> Result<Client, (u16, Value)> {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        use tokio_tungstenite::tungstenite::http::{HeaderName, HeaderValue};
        let mut request = format!("ws://{}/ws", self.addr)
            .into_client_request()
            .unwrap();
        for (name, value) in headers {
            request.headers_mut().insert(
                HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        match connect_async(request).await {
            Ok((ws, _)) => Ok(Client { ws }),
            Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                let status = response.status().as_u16();
                let body = response.body().clone().unwrap_or_default();
                Err((status, serde_json::from_slice(&body).unwrap_or(Value::Null)))
            }
            Err(other) => panic!("the upgrade failed: {other}"),
        }
    }

    /// A value from `/metrics` (a metric without labels).
    pub(crate) async fn metric(&self, name: &str) -> f64 {
        let response = reqwest::get(self.url("/metrics")).await.unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        text.lines()
            .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
            .unwrap_or_else(|| panic!("no metric {name} in the {status} answer: {text:.400}"))
            .trim()
            .parse()
            .unwrap()
    }

    /// A raw TCP connection that has been upgraded to a WebSocket; the caller writes and
    /// reads frames itself (see [`masked_frame`] and [`read_close`]). `recv_buffer`
    /// shrinks the socket's receive buffer, for clients that stop reading.
    pub(crate) async fn raw_websocket(&self, recv_buffer: Option<u32>) -> TcpStream {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        if let Some(size) = recv_buffer {
            socket.set_recv_buffer_size(size).unwrap();
        }
        let mut stream = socket.connect(self.addr).await.unwrap();
        let request = format!(
            "GET /ws HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
            self.addr
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut head = Vec::new();
        while !head.ends_with(b"\r\n\r\n") {
            let mut byte = [0u8; 1];
            let read = tokio::time::timeout(PATIENCE, stream.read(&mut byte))
                .await
                .expect("no upgrade response")
                .unwrap();
            assert_eq!(read, 1, "closed during the upgrade");
            head.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&head);
        assert!(head.starts_with("HTTP/1.1 101"), "{head}");
        stream
    }
}

/// A client frame (masked, final) with this opcode and payload.
pub(crate) fn masked_frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mask = [0x12, 0x34, 0x56, 0x78];
    let mut frame = vec![0x80 | opcode];
    let length = payload.len();
    if length < 126 {
        frame.push(0x80 | length as u8);
    } else if length <= usize::from(u16::MAX) {
        frame.push(0x80 | 126);
        frame.extend_from_slice(&(length as u16).to_be_bytes());
    } else {
        frame.push(0x80 | 127);
        frame.extend_from_slice(&(length as u64).to_be_bytes());
    }
    frame.extend_from_slice(&mask);
    frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    frame
}

/// Reads the next server frame from a raw WebSocket: its opcode (`0x1` text, `0x8`
/// close, `0x9` ping…) and payload. A ping is not answered: that is the caller's choice.
/// Panics if the socket ends first.
pub(crate) async fn read_frame(stream: &mut TcpStream) -> (u8, Vec<u8>) {
    use tokio::io::AsyncReadExt;
    let mut head = [0u8; 2];
    stream
        .read_exact(&mut head)
        .await
        .expect("ended without a close frame");
    let length = match head[1] & 0x7f {
        126 => u64::from(stream.read_u16().await.unwrap()),
        127 => stream.read_u64().await.unwrap(),
        short => u64::from(short),
    };
    let mut payload = vec![0u8; usize::try_from(length).unwrap()];
    stream.read_exact(&mut payload).await.unwrap();
    (head[0] & 0x0f, payload)
}

/// The code and reason of a close frame's payload.
pub(crate) fn close_reason(payload: &[u8]) -> (u16, String) {
    let code = u16::from_be_bytes([payload[0], payload[1]]);
    (code, String::from_utf8_lossy(&payload[2..]).into_owned())
}

/// Reads server frames from a raw WebSocket until its close frame, answering no ping;
/// returns the close code and reason. Panics after `patience`, or if the socket ends
/// without one.
pub(crate) async fn read_close(stream: &mut TcpStream, patience: Duration) -> (u16, String) {
    let read = async {
        loop {
            let (opcode, payload) = read_frame(stream).await;
            if opcode == 0x8 {
                return close_reason(&payload);
            }
        }
    };
    tokio::time::timeout(patience, read)
        .await
        .expect("no close frame in time")
}

impl Client {
    /// Waits for the server's close frame (skipping other frames); returns its code and
    /// reason. Panics after `patience`, or if the socket ends without one.
    pub(crate) async fn closed_with(&mut self, patience: Duration) -> (u16, String) {
        let wait = async {
            loop {
                match self.ws.next().await {
                    Some(Ok(Message::Close(Some(frame)))) => {
                        return (u16::from(frame.code), frame.reason.to_string());
                    }
                    Some(Ok(Message::Close(None))) => panic!("closed without a code"),
                    Some(Ok(Message::Text(text))) => {
                        received(&text);
                    }
                    Some(Ok(_)) => {}
                    Some(Err(error)) => {
                        panic!("the connection failed before a close frame: {error}")
                    }
                    None => panic!("the connection ended without a close frame"),
                }
            }
        };
        tokio::time::timeout(patience, wait)
            .await
            .expect("no close frame in time")
    }
}

/// `GET path` on the server at `address`: the status and the JSON body, which must be an
/// answer the API's description documents.
pub(crate) async fn get_json_at(address: &str, path: &str) -> (u16, Value) {
    let response = reqwest::get(format!("http://{address}{path}"))
        .await
        .expect("the server answers");
    let status = response.status().as_u16();
    let body = response.json().await.unwrap_or(Value::Null);
    let route = path.split('?').next().unwrap_or(path);
    check_http_answer("GET", route, status, &body);
    (status, body)
}

/// A client of the server at `address` that has said hello as `name` (with `token`,
/// if any); returns it and its `welcome`.
pub(crate) async fn client_at(address: &str, name: &str, token: Option<&str>) -> (Client, Value) {
    let (ws, _) = connect_async(format!("ws://{address}/ws")).await.unwrap();
    let mut client = Client { ws };
    let welcome = client.hello(name, token).await;
    (client, welcome)
}

/// What two states with one `seq` must agree on: everything but what is rendered for
/// each recipient or moment (the clocks' remaining time, an absent seat's countdowns,
/// the newcomer's `history`) and the audience (a snapshot may already count a newcomer
/// or a drop that the broadcast of its `seq` did not; PROTOCOL.md §8).
pub(crate) fn comparable(state: &Value) -> Value {
    let mut state = state.clone();
    if let Some(fields) = state.as_object_mut() {
        for field in ["clocks", "history", "history_display", "spectators"] {
            fields.remove(field);
        }
        if let Some(seats) = fields.get_mut("seats").and_then(Value::as_array_mut) {
            for seat in seats {
                if let Some(seat) = seat.as_object_mut() {
                    for field in ["connected", "grace_left_ms", "claim_left_ms"] {
                        seat.remove(field);
                    }
                }
            }
        }
    }
    state
}

/// The game's stored chat, as the player whose token is `token` reads it (the players'
/// lines are theirs alone), once it holds `count` lines (they are written in the
/// background); fails after [`PATIENCE`].
pub(crate) async fn stored_chat(
    server: &TestServer,
    game_id: &str,
    token: &str,
    count: usize,
) -> Vec<Value> {
    let what = format!("{count} chat lines stored");
    eventually(&what, PATIENCE, async || {
        let response = server
            .get_with_authorization(&format!("/api/games/{game_id}"), &format!("Bearer {token}"))
            .await;
        let status = response.status().as_u16();
        let game: Value = response.json().await.unwrap();
        check_http_answer("GET", &format!("/api/games/{game_id}"), status, &game);
        assert_eq!(status, 200, "{game}");
        let lines = game["chat"].as_array().cloned().unwrap_or_default();
        if lines.len() >= count {
            Ok(lines)
        } else {
            Err(game.to_string())
        }
    })
    .await
}
