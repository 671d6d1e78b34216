//! The load: rooms of two players and K spectators on real WebSocket connections,
//! players moving from `legal_moves`, and what they saw counted and timed.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use hdrhistogram::Histogram;
use rand::seq::IndexedRandom;
use serde::Deserialize;
use tokio::net::TcpStream;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async_with_config};
use tokio_util::sync::CancellationToken;

use crate::abuse::{self, Abuse, AbuseCounters, AbuseFigures};
use crate::error::BenchError;
use crate::system;

/// Each client's read buffer. tungstenite's default (128 KiB) would cost more per
/// connection than the servers do, making the generator the bottleneck.
pub const READ_BUFFER_BYTES: usize = 4 * 1024;

/// How long one step of setting up a room (connect, hello, create, join, watch) may take.
const SETUP_PATIENCE: Duration = Duration::from_secs(30);

/// How long the generator waits for its connections to close at the end.
const CLOSE_PATIENCE: Duration = Duration::from_secs(20);

/// How many error texts a report keeps.
const ERRORS_KEPT: usize = 5;

pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// What load to generate, and for how long.
#[derive(Clone, Debug)]
pub struct Load {
    /// `ws://127.0.0.1:PORT/ws`.
    pub url: String,
    /// Connections to open (rounded down to whole rooms).
    pub connections: usize,
    /// Spectators per room.
    pub spectators: usize,
    /// The game id to create rooms for.
    pub game: String,
    /// `None`: closed loop; `Some(r)`: open loop at `r` moves per second in total.
    pub open_rate: Option<f64>,
    /// Load before the measured window starts.
    pub warmup: Duration,
    /// The measured window.
    pub duration: Duration,
    /// The pause after all connections are open, before the idle memory is read.
    pub idle: Duration,
    /// Rooms being set up at once.
    pub connect_concurrency: usize,
    /// Rooms in which two bots play each other alongside the load (Parlor only).
    pub bot_rooms: usize,
    /// Clients abusing the server alongside the load: what they do, how many, and how
    /// many messages a second each tries to send.
    pub abuse: Option<(Abuse, usize, u32)>,
    /// Those rooms' game.
    pub bot_game: String,
    /// Those bots' level, e.g. `hard`.
    pub bot_level: String,
}

impl Load {
    /// Rooms of `2 + spectators` connections that fit in `connections`.
    pub fn rooms(&self) -> usize {
        self.connections / (2 + self.spectators)
    }
}

/// What one run measured.
#[derive(Debug)]
pub struct Measured {
    /// Rooms set up.
    pub rooms: usize,
    /// Connections open after setup.
    pub connections_opened: u64,
    /// Connections still open at the end of the measured window.
    pub connections_held: u64,
    /// Seconds spent opening connections and setting up rooms.
    pub setup_secs: f64,
    /// The measured window, seconds.
    pub window_secs: f64,
    /// Moves whose new state reached the opponent within the window.
    pub moves: u64,
    /// `state` and `game_over` frames received by all connections within the window.
    pub broadcasts: u64,
    /// Games finished within the window.
    pub games: u64,
    /// States of the bot rooms received within the window.
    pub bot_states: u64,
    /// Bot games finished within the window.
    pub bot_games: u64,
    /// Move-to-opponent latency within the window, microseconds.
    pub latency: Histogram<u64>,
    /// `error` messages the server sent, whole run.
    pub error_messages: u64,
    /// Connections that failed or closed before the end, whole run.
    pub connection_failures: u64,
    /// Rooms that could not be set up.
    pub setup_failures: u64,
    /// The first few error texts.
    pub first_errors: Vec<String>,
    /// Server resident memory before any connection, when idle with all of them, and at
    /// the end of the window (bytes); `None` without a known pid.
    pub rss: Option<[u64; 3]>,
    /// Server CPU seconds within the window.
    pub server_cpu_secs: Option<f64>,
    /// Generator CPU seconds within the window.
    pub generator_cpu_secs: Option<f64>,
    /// What the abusing clients did, whole run.
    pub abuse: Option<AbuseFigures>,
}

#[derive(Default)]
struct Counters {
    moves: AtomicU64,
    broadcasts: AtomicU64,
    games: AtomicU64,
    error_messages: AtomicU64,
    connection_failures: AtomicU64,
    open: AtomicU64,
    bot_states: AtomicU64,
    bot_games: AtomicU64,
}

impl Counters {
    fn get(&self) -> [u64; 5] {
        [
            self.moves.load(Ordering::Relaxed),
            self.broadcasts.load(Ordering::Relaxed),
            self.games.load(Ordering::Relaxed),
            self.bot_states.load(Ordering::Relaxed),
            self.bot_games.load(Ordering::Relaxed),
        ]
    }
}

/// What every connection task shares.
struct Ctx {
    epoch: Instant,
    counters: Counters,
    recording: AtomicBool,
    latency: Mutex<Histogram<u64>>,
    errors: Mutex<Vec<String>>,
    cancel: CancellationToken,
    start: watch::Receiver<bool>,
    /// When the load started, ns since `epoch`.
    start_ns: AtomicU64,
    /// Open loop: ns between two moves of one room.
    interval_ns: Option<u64>,
}

impl Ctx {
    fn now_ns(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    fn error(&self, text: String) {
        self.counters.error_messages.fetch_add(1, Ordering::Relaxed);
        self.keep(text);
    }

    fn failure(&self, text: String) {
        self.counters
            .connection_failures
            .fetch_add(1, Ordering::Relaxed);
        self.keep(text);
    }

    fn keep(&self, text: String) {
        let mut kept = self.errors.lock().unwrap_or_else(|p| p.into_inner());
        if kept.len() < ERRORS_KEPT {
            kept.push(text);
        }
    }

    fn record(&self, micros: u64) {
        self.counters.moves.fetch_add(1, Ordering::Relaxed);
        if self.recording.load(Ordering::Relaxed) {
            let mut histogram = self.latency.lock().unwrap_or_else(|p| p.into_inner());
            histogram.saturating_record(micros.max(1));
        }
    }
}

/// What the two players of a room share: the move in flight and, in open loop, the
/// room's schedule.
struct RoomClock {
    /// When the move in flight was sent (or scheduled), ns since the epoch plus one;
    /// 0 when none is.
    in_flight: AtomicU64,
    /// Open loop: when the room's next move is due, ns after the load started.
    next_due: AtomicU64,
}

/// Runs `load` against a server whose pid, when known, is `pid`.
pub async fn run(load: &Load, pid: Option<u32>) -> Result<Measured, BenchError> {
    let rooms = load.rooms();
    if rooms == 0 {
        return Err(BenchError::Usage(format!(
            "{} connections do not fill one room of {} (2 players + {} spectators)",
            load.connections,
            2 + load.spectators,
            load.spectators
        )));
    }
    let (start_tx, start) = watch::channel(false);
    let interval_ns = load
        .open_rate
        .map(|rate| (rooms as f64 / rate * 1e9).max(1.0) as u64);
    let ctx = Arc::new(Ctx {
        epoch: Instant::now(),
        counters: Counters::default(),
        recording: AtomicBool::new(false),
        latency: Mutex::new(
            Histogram::new_with_bounds(1, 3_600_000_000, 3)
                .map_err(|e| BenchError::Usage(format!("histogram: {e}")))?,
        ),
        errors: Mutex::new(Vec::new()),
        cancel: CancellationToken::new(),
        start,
        start_ns: AtomicU64::new(0),
        interval_ns,
    });
    let rss_before = pid.map(system::rss_bytes).transpose()?;

    let setup_started = Instant::now();
    let tag = format!("{:06x}", rand::random::<u32>() & 0xff_ffff);
    let permits = Arc::new(Semaphore::new(load.connect_concurrency.max(1)));
    let mut setups = JoinSet::new();
    for index in 0..rooms {
        let permits = permits.clone();
        let load = load.clone();
        let name = format!("b{tag}-{index}");
        let phase = interval_ns.map_or(0, |i| rand::random_range(0..i));
        setups.spawn(async move {
            let _permit = permits.acquire_owned().await;
            set_up_room(&load, &name, phase).await
        });
    }
    let mut tasks = JoinSet::new();
    let mut rooms_ready = 0;
    let mut setup_failures = 0;
    let mut first_failure = None;
    while let Some(done) = setups.join_next().await {
        match done {
            Ok(Ok(room)) => {
                rooms_ready += 1;
                let clock = Arc::new(RoomClock {
                    in_flight: AtomicU64::new(0),
                    next_due: AtomicU64::new(room.phase),
                });
                for (i, (ws, me)) in room.players.into_iter().enumerate() {
                    let player = PlayerConn {
                        ws,
                        room: room.id.clone(),
                        me,
                        clock: clock.clone(),
                        counts_games: i == 0,
                        acted: None,
                    };
                    tasks.spawn(player.run(ctx.clone()));
                }
                for ws in room.spectators {
                    tasks.spawn(watch_room(ws, ctx.clone()));
                }
            }
            Ok(Err(why)) => {
                setup_failures += 1;
                first_failure.get_or_insert(why);
            }
            Err(join) => {
                setup_failures += 1;
                first_failure.get_or_insert(join.to_string());
            }
        }
    }
    let setup_secs = setup_started.elapsed().as_secs_f64();
    if rooms_ready == 0 {
        return Err(BenchError::NoRooms(first_failure.unwrap_or_default()));
    }
    if let Some(why) = first_failure {
        ctx.keep(format!("setting up a room: {why}"));
    }
    tokio::time::sleep(load.idle).await;
    let connections_opened = ctx.counters.open.load(Ordering::Relaxed);
    let rss_idle = pid.map(system::rss_bytes).transpose()?;

    if load.bot_rooms > 0 {
        let bots = BotRooms {
            url: load.url.clone(),
            name: format!("b{tag}-bots"),
            game: load.bot_game.clone(),
            level: load.bot_level.clone(),
            rooms: load.bot_rooms,
        };
        tasks.spawn(bots.keep(ctx.clone()));
    }
    let abuse_counters = Arc::new(AbuseCounters::default());
    if let Some((kind, clients, rate)) = load.abuse {
        abuse::start(
            &mut tasks,
            &load.url,
            kind,
            clients,
            rate,
            &abuse_counters,
            &ctx.cancel,
        );
    }
    ctx.start_ns.store(ctx.now_ns(), Ordering::Relaxed);
    let _ = start_tx.send(true);
    tokio::time::sleep(load.warmup).await;

    let before = ctx.counters.get();
    let server_cpu_before = pid.map(system::cpu_seconds).transpose()?;
    let generator_cpu_before = system::cpu_seconds(std::process::id()).ok();
    let window = Instant::now();
    ctx.recording.store(true, Ordering::Relaxed);
    tokio::time::sleep(load.duration).await;
    ctx.recording.store(false, Ordering::Relaxed);
    let window_secs = window.elapsed().as_secs_f64();
    let after = ctx.counters.get();
    let server_cpu_after = pid.map(system::cpu_seconds).transpose()?;
    let generator_cpu_after = system::cpu_seconds(std::process::id()).ok();
    let rss_load = pid.map(system::rss_bytes).transpose()?;
    let connections_held = ctx.counters.open.load(Ordering::Relaxed);

    ctx.cancel.cancel();
    let closing = async { while tasks.join_next().await.is_some() {} };
    if tokio::time::timeout(CLOSE_PATIENCE, closing).await.is_err() {
        tasks.abort_all();
    }

    let latency = ctx
        .latency
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    let first_errors = ctx.errors.lock().unwrap_or_else(|p| p.into_inner()).clone();
    Ok(Measured {
        rooms: rooms_ready,
        connections_opened,
        connections_held,
        setup_secs,
        window_secs,
        moves: after[0] - before[0],
        broadcasts: after[1] - before[1],
        games: after[2] - before[2],
        bot_states: after[3] - before[3],
        bot_games: after[4] - before[4],
        latency,
        error_messages: ctx.counters.error_messages.load(Ordering::Relaxed),
        connection_failures: ctx.counters.connection_failures.load(Ordering::Relaxed),
        setup_failures,
        first_errors,
        rss: match (rss_before, rss_idle, rss_load) {
            (Some(a), Some(b), Some(c)) => Some([a, b, c]),
            _ => None,
        },
        server_cpu_secs: server_cpu_after.zip(server_cpu_before).map(|(a, b)| a - b),
        generator_cpu_secs: generator_cpu_after
            .zip(generator_cpu_before)
            .map(|(a, b)| a - b),
        abuse: load
            .abuse
            .map(|(kind, clients, rate)| abuse_counters.figures(kind, clients, rate)),
    })
}

/// A room whose game has started, with its open connections.
struct ReadyRoom {
    id: String,
    /// Seat 0's and seat 1's sockets, with each player's id.
    players: Vec<(Ws, String)>,
    spectators: Vec<Ws>,
    /// Open loop: when the room's first move is due, ns after the start.
    phase: u64,
}

/// Creates a room: seat 0 creates it, the spectators watch, then seat 1 joins, which
/// starts the game (the players wait for the start signal before moving).
async fn set_up_room(load: &Load, name: &str, phase: u64) -> Result<ReadyRoom, String> {
    let (mut first, first_id) = hello(&load.url, &format!("{name}-a")).await?;
    let create = serde_json::json!({
        "type": "create_room", "game": load.game, "seats": ["me", "open"],
    });
    send(&mut first, create.to_string()).await?;
    let created = until(&mut first, "room_created").await?;
    let id = serde_json::from_str::<RoomCreated>(&created)
        .map_err(|e| format!("room_created without a room: {e}"))?
        .room;
    until(&mut first, "joined").await?;
    until(&mut first, "state").await?;
    let mut spectators = Vec::with_capacity(load.spectators);
    for i in 0..load.spectators {
        let (mut ws, _) = hello(&load.url, &format!("{name}-s{i}")).await?;
        send(&mut ws, format!(r#"{{"type":"watch","room":"{id}"}}"#)).await?;
        until(&mut ws, "joined").await?;
        until(&mut ws, "state").await?;
        spectators.push(ws);
    }
    let (mut second, second_id) = hello(&load.url, &format!("{name}-b")).await?;
    send(
        &mut second,
        format!(r#"{{"type":"join","room":"{id}","seat":1}}"#),
    )
    .await?;
    until(&mut second, "joined").await?;
    Ok(ReadyRoom {
        id,
        players: vec![(first, first_id), (second, second_id)],
        spectators,
        phase,
    })
}

#[derive(Deserialize)]
struct RoomCreated {
    room: String,
}

#[derive(Deserialize)]
struct Welcome {
    player_id: String,
}

#[derive(Deserialize)]
struct Kind<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
}

/// A new connection that has said hello; returns it and the player's id.
pub async fn hello(url: &str, name: &str) -> Result<(Ws, String), String> {
    let config = WebSocketConfig::default().read_buffer_size(READ_BUFFER_BYTES);
    let connecting = connect_async_with_config(url, Some(config), true);
    let (mut ws, _) = tokio::time::timeout(SETUP_PATIENCE, connecting)
        .await
        .map_err(|_| format!("connecting to {url} took over {SETUP_PATIENCE:?}"))?
        .map_err(|e| format!("connecting to {url}: {e}"))?;
    let hello = serde_json::json!({"type": "hello", "name": name});
    send(&mut ws, hello.to_string()).await?;
    let welcome = until(&mut ws, "welcome").await?;
    let id = serde_json::from_str::<Welcome>(&welcome)
        .map_err(|e| format!("welcome without a player_id: {e}"))?
        .player_id;
    Ok((ws, id))
}

pub async fn send(ws: &mut Ws, text: String) -> Result<(), String> {
    tokio::time::timeout(SETUP_PATIENCE, ws.send(Message::text(text)))
        .await
        .map_err(|_| "sending took too long".to_owned())?
        .map_err(|e| format!("sending: {e}"))
}

/// Reads until a message of type `kind`; an `error` on the way fails.
async fn until(ws: &mut Ws, kind: &str) -> Result<String, String> {
    let deadline = tokio::time::Instant::now() + SETUP_PATIENCE;
    loop {
        let frame = tokio::time::timeout_at(deadline, ws.next())
            .await
            .map_err(|_| format!("no {kind} within {SETUP_PATIENCE:?}"))?;
        let text = match frame {
            Some(Ok(Message::Text(text))) => text,
            Some(Ok(Message::Close(why))) => {
                return Err(format!("closed waiting for {kind}: {why:?}"));
            }
            Some(Ok(_)) => continue,
            Some(Err(e)) => return Err(format!("waiting for {kind}: {e}")),
            None => return Err(format!("closed waiting for {kind}")),
        };
        let seen = serde_json::from_str::<Kind>(&text)
            .map_err(|e| format!("not a message ({e}): {}", text.as_str()))?;
        if seen.kind == kind {
            return Ok(text.as_str().to_owned());
        }
        if seen.kind == "error" {
            return Err(format!("waiting for {kind}: {}", text.as_str()));
        }
    }
}

/// The parts of a `state` (or other message) a player needs.
#[derive(Deserialize)]
struct Seen<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    status: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    game_id: Option<Cow<'a, str>>,
    #[serde(default)]
    to_move: Option<u8>,
    #[serde(default, borrow)]
    legal_moves: Vec<Cow<'a, str>>,
    #[serde(default)]
    moves: u64,
    #[serde(default, borrow)]
    seats: Vec<SeenSeat<'a>>,
    #[serde(default)]
    last_move: Option<SeenMove>,
}

#[derive(Deserialize)]
struct SeenSeat<'a> {
    #[serde(borrow)]
    player_id: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct SeenMove {
    seat: u8,
}

/// What a player does after reading a frame.
enum Next {
    Nothing,
    Move(String),
    Rematch,
}

/// One player's connection.
struct PlayerConn {
    ws: Ws,
    room: String,
    me: String,
    clock: Arc<RoomClock>,
    /// Whether this player counts the room's finished games (one of the two does).
    counts_games: bool,
    /// The game and move number of the last state this player moved on.
    acted: Option<(String, u64)>,
}

impl PlayerConn {
    async fn run(mut self, ctx: Arc<Ctx>) {
        ctx.counters.open.fetch_add(1, Ordering::Relaxed);
        let mut start = ctx.start.clone();
        let mut started = *start.borrow();
        let mut due: Option<String> = None;
        loop {
            if started
                && let Some(choice) = due.take()
                && let Err(why) = self.play(choice, &ctx).await
            {
                if !ctx.cancel.is_cancelled() {
                    ctx.failure(why);
                }
                break;
            }
            tokio::select! {
                () = ctx.cancel.cancelled() => break,
                _ = start.changed(), if !started => started = true,
                frame = self.ws.next() => match frame {
                    Some(Ok(Message::Text(text))) => match self.read(text.as_str(), &ctx) {
                        Next::Nothing => {}
                        Next::Move(choice) => due = Some(choice),
                        Next::Rematch => {
                            let ask = format!(r#"{{"type":"rematch","room":"{}"}}"#, self.room);
                            if let Err(e) = self.ws.send(Message::text(ask)).await {
                                ctx.failure(format!("asking for a rematch: {e}"));
                                break;
                            }
                        }
                    },
                    Some(Ok(Message::Close(why))) => {
                        ctx.failure(format!("the server closed a player's connection: {why:?}"));
                        break;
                    }
                    Some(Ok(_)) => {}
                    Some(Err(e)) => {
                        ctx.failure(format!("a player's connection failed: {e}"));
                        break;
                    }
                    None => {
                        ctx.failure("a player's connection ended".to_owned());
                        break;
                    }
                },
            }
        }
        close(self.ws).await;
        ctx.counters.open.fetch_sub(1, Ordering::Relaxed);
    }

    /// Sends `choice`, in open loop once the room's next move is due.
    async fn play(&mut self, choice: String, ctx: &Ctx) -> Result<(), String> {
        let sent_ns = match ctx.interval_ns {
            None => ctx.now_ns(),
            Some(interval) => {
                let due = ctx.start_ns.load(Ordering::Relaxed)
                    + self.clock.next_due.fetch_add(interval, Ordering::Relaxed);
                let now = ctx.now_ns();
                if due > now {
                    tokio::select! {
                        () = ctx.cancel.cancelled() => return Ok(()),
                        () = tokio::time::sleep(Duration::from_nanos(due - now)) => {}
                    }
                }
                due
            }
        };
        // Stored before sending, so the opponent's receipt always finds it.
        self.clock.in_flight.store(sent_ns + 1, Ordering::Relaxed);
        let text = format!(
            r#"{{"type":"move","room":"{}","move":{}}}"#,
            self.room,
            serde_json::Value::from(choice)
        );
        self.ws
            .send(Message::text(text))
            .await
            .map_err(|e| format!("sending a move: {e}"))
    }

    fn read(&mut self, text: &str, ctx: &Ctx) -> Next {
        let seen = match serde_json::from_str::<Seen>(text) {
            Ok(seen) => seen,
            Err(e) => {
                ctx.error(format!("a frame that is not a message ({e}): {text}"));
                return Next::Nothing;
            }
        };
        match seen.kind.as_ref() {
            "state" => {
                ctx.counters.broadcasts.fetch_add(1, Ordering::Relaxed);
                self.on_state(&seen, ctx)
            }
            "game_over" => {
                ctx.counters.broadcasts.fetch_add(1, Ordering::Relaxed);
                if self.counts_games {
                    ctx.counters.games.fetch_add(1, Ordering::Relaxed);
                }
                if ctx.interval_ns.is_some() {
                    // The rematch handshake is not a move: the schedule resumes from now.
                    let since_start = ctx
                        .now_ns()
                        .saturating_sub(ctx.start_ns.load(Ordering::Relaxed));
                    self.clock
                        .next_due
                        .fetch_max(since_start, Ordering::Relaxed);
                }
                Next::Rematch
            }
            "error" => {
                ctx.error(text.to_owned());
                Next::Nothing
            }
            _ => Next::Nothing,
        }
    }

    fn on_state(&mut self, seen: &Seen, ctx: &Ctx) -> Next {
        let seat = seen
            .seats
            .iter()
            .position(|s| s.player_id.as_deref() == Some(self.me.as_str()));
        let Some(seat) = seat.and_then(|s| u8::try_from(s).ok()) else {
            return Next::Nothing;
        };
        if let Some(last) = &seen.last_move
            && last.seat != seat
        {
            let sent = self.clock.in_flight.swap(0, Ordering::Relaxed);
            if sent != 0 {
                let micros = ctx.now_ns().saturating_sub(sent - 1) / 1000;
                ctx.record(micros);
            }
        }
        if seen.status.as_deref() != Some("playing") || seen.to_move != Some(seat) {
            return Next::Nothing;
        }
        let game = seen.game_id.as_deref().unwrap_or("");
        if self
            .acted
            .as_ref()
            .is_some_and(|(g, moves)| g == game && *moves == seen.moves)
        {
            return Next::Nothing;
        }
        let Some(choice) = seen.legal_moves.choose(&mut rand::rng()) else {
            return Next::Nothing;
        };
        self.acted = Some((game.to_owned(), seen.moves));
        Next::Move(choice.to_string())
    }
}

/// A spectator: counts what it is sent.
async fn watch_room(mut ws: Ws, ctx: Arc<Ctx>) {
    ctx.counters.open.fetch_add(1, Ordering::Relaxed);
    loop {
        tokio::select! {
            () = ctx.cancel.cancelled() => break,
            frame = ws.next() => match frame {
                Some(Ok(Message::Text(text))) => {
                    let text = text.as_str();
                    if text.starts_with(r#"{"type":"state""#) || text.starts_with(r#"{"type":"game_over""#) {
                        ctx.counters.broadcasts.fetch_add(1, Ordering::Relaxed);
                    } else if text.starts_with(r#"{"type":"error""#) {
                        ctx.error(text.to_owned());
                    }
                }
                Some(Ok(Message::Close(why))) => {
                    ctx.failure(format!("the server closed a spectator's connection: {why:?}"));
                    break;
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => {
                    ctx.failure(format!("a spectator's connection failed: {e}"));
                    break;
                }
                None => {
                    ctx.failure("a spectator's connection ended".to_owned());
                    break;
                }
            },
        }
    }
    close(ws).await;
    ctx.counters.open.fetch_sub(1, Ordering::Relaxed);
}

/// Closes politely, giving up after a second.
async fn close(mut ws: Ws) {
    let _ = tokio::time::timeout(Duration::from_secs(1), ws.close(None)).await;
}

/// Rooms in which two bots play each other, kept busy for the whole run: the load whose
/// effect on the human rooms' latency the issue asks about.
struct BotRooms {
    url: String,
    name: String,
    game: String,
    level: String,
    rooms: usize,
}

impl BotRooms {
    /// Creates the rooms from one connection, watches each, and replaces every room
    /// whose game ends with a new one, until the run ends.
    async fn keep(self, ctx: Arc<Ctx>) {
        let mut ws = match hello(&self.url, &self.name).await {
            Ok((ws, _)) => ws,
            Err(why) => {
                ctx.failure(format!("the bot rooms' connection: {why}"));
                return;
            }
        };
        let bot = format!("bot:{}", self.level);
        let create = serde_json::json!({
            "type": "create_room", "game": self.game, "seats": [bot, bot],
        })
        .to_string();
        for _ in 0..self.rooms {
            if let Err(why) = send(&mut ws, create.clone()).await {
                ctx.failure(format!("creating a bot room: {why}"));
                return;
            }
        }
        loop {
            let frame = tokio::select! {
                () = ctx.cancel.cancelled() => break,
                frame = ws.next() => frame,
            };
            let text = match frame {
                Some(Ok(Message::Text(text))) => text,
                Some(Ok(Message::Close(_)) | Err(_)) | None => {
                    ctx.failure("the bot rooms' connection closed".to_owned());
                    break;
                }
                Some(Ok(_)) => continue,
            };
            let text = text.as_str();
            let reply = if text.starts_with(r#"{"type":"state""#) {
                ctx.counters.bot_states.fetch_add(1, Ordering::Relaxed);
                None
            } else if text.starts_with(r#"{"type":"room_created""#) {
                serde_json::from_str::<RoomCreated>(text)
                    .ok()
                    .map(|created| format!(r#"{{"type":"watch","room":"{}"}}"#, created.room))
            } else if text.starts_with(r#"{"type":"game_over""#) {
                ctx.counters.bot_games.fetch_add(1, Ordering::Relaxed);
                Some(create.clone())
            } else if text.starts_with(r#"{"type":"error""#) {
                ctx.error(format!("bot rooms: {text}"));
                None
            } else {
                None
            };
            if let Some(reply) = reply
                && let Err(why) = send(&mut ws, reply).await
            {
                ctx.failure(format!("the bot rooms' connection: {why}"));
                break;
            }
        }
        close(ws).await;
    }
}
