//! The load: rooms of two players and K spectators on real WebSocket connections that
//! hear of moves as full states or as `moved` events, players moving from
//! `legal_moves`, and what they saw counted and timed.
//!
//! [`run`] sets the rooms up and collects the figures; [`wire`] speaks the protocol,
//! [`player`] plays and watches, [`bot_rooms`] keeps bot-against-bot rooms busy.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::abuse::{self, Abuse, AbuseCounters, AbuseFigures};
use crate::error::BenchError;
use crate::system;

mod bot_rooms;
mod colyseus;
mod conn;
mod next_room;
mod player;
pub(crate) mod wire;

use bot_rooms::BotRooms;
use conn::Conn;
pub(crate) use conn::Wire;
pub(crate) use next_room::Cycle;
use next_room::NextRoom;
use player::{PlayerConn, watch_room};
pub(crate) use wire::{Updates, Ws, hello, send};

/// How long the generator waits for its connections to close at the end.
const CLOSE_PATIENCE: Duration = Duration::from_secs(20);

/// How many error texts a report keeps.
const ERRORS_KEPT: usize = 5;

/// What load to generate, and for how long.
#[derive(Clone, Debug)]
pub(crate) struct Load {
    /// `ws://127.0.0.1:PORT/ws`.
    pub(crate) url: String,
    /// Where the connections go when `url` is a node of a fleet.
    pub(crate) placement: Placement,
    /// Connections to open (rounded down to whole rooms).
    pub(crate) connections: usize,
    /// Spectators per room.
    pub(crate) spectators: usize,
    /// The game id to create rooms for.
    pub(crate) game: String,
    /// How the players and spectators ask to hear of moves.
    pub(crate) updates: Updates,
    /// How a room's connections go from one game to the next.
    pub(crate) cycle: Cycle,
    /// The protocol the server speaks.
    pub(crate) wire: Wire,
    /// `None`: closed loop; `Some(r)`: open loop at `r` moves per second in total.
    pub(crate) open_rate: Option<f64>,
    /// Load before the measured window starts.
    pub(crate) warmup: Duration,
    /// The measured window.
    pub(crate) duration: Duration,
    /// The pause after all connections are open, before the idle memory is read.
    pub(crate) idle: Duration,
    /// Rooms being set up at once.
    pub(crate) connect_concurrency: usize,
    /// Rooms in which two bots play each other alongside the load (Parlor only).
    pub(crate) bot_rooms: usize,
    /// Clients abusing the server alongside the load: what they do, how many, and how
    /// many messages a second each tries to send.
    pub(crate) abuse: Option<(Abuse, usize, u32)>,
    /// Those rooms' game.
    pub(crate) bot_game: String,
    /// Those bots' level, e.g. `hard`.
    pub(crate) bot_level: String,
}

impl Load {
    /// Rooms of `2 + spectators` connections that fit in `connections`.
    pub(crate) fn rooms(&self) -> usize {
        self.connections / (2 + self.spectators)
    }
}

/// What one run measured.
#[derive(Debug)]
pub(crate) struct Measured {
    /// Rooms set up.
    pub(crate) rooms: usize,
    /// Connections open after setup.
    pub(crate) connections_opened: u64,
    /// Connections still open at the end of the measured window.
    pub(crate) connections_held: u64,
    /// Seconds spent opening connections and setting up rooms.
    pub(crate) setup_secs: f64,
    /// The measured window, seconds.
    pub(crate) window_secs: f64,
    /// Moves whose new state (or `moved` event) reached the opponent within the window.
    pub(crate) moves: u64,
    /// `state`, `moved` and `game_over` frames received by all connections within the
    /// window.
    pub(crate) broadcasts: u64,
    /// Their bytes (the frames' text).
    pub(crate) broadcast_bytes: u64,
    /// How many of them were `moved` events: what the server sent, whatever the load
    /// asked for.
    pub(crate) moved_events: u64,
    /// Games finished within the window.
    pub(crate) games: u64,
    /// States of the bot rooms received within the window.
    pub(crate) bot_states: u64,
    /// Bot games finished within the window.
    pub(crate) bot_games: u64,
    /// Move-to-opponent latency within the window, microseconds.
    pub(crate) latency: Histogram<u64>,
    /// `error` messages the server sent, whole run.
    pub(crate) error_messages: u64,
    /// Connections that failed or closed before the end, whole run.
    pub(crate) connection_failures: u64,
    /// Rooms that could not be set up.
    pub(crate) setup_failures: u64,
    /// The first few error texts.
    pub(crate) first_errors: Vec<String>,
    /// Server resident memory before any connection, when idle with all of them, and at
    /// the end of the window (bytes); `None` without a known pid.
    pub(crate) rss: Option<[u64; 3]>,
    /// Server CPU seconds within the window.
    pub(crate) server_cpu_secs: Option<f64>,
    /// Bytes the server wrote to storage within the window.
    pub(crate) server_written_bytes: Option<u64>,
    /// Generator CPU seconds within the window.
    pub(crate) generator_cpu_secs: Option<f64>,
    /// What the abusing clients did, whole run.
    pub(crate) abuse: Option<AbuseFigures>,
}

#[derive(Default)]
struct Counters {
    moves: AtomicU64,
    broadcasts: AtomicU64,
    broadcast_bytes: AtomicU64,
    moved_events: AtomicU64,
    games: AtomicU64,
    error_messages: AtomicU64,
    connection_failures: AtomicU64,
    open: AtomicU64,
    bot_states: AtomicU64,
    bot_games: AtomicU64,
}

impl Counters {
    fn get(&self) -> [u64; 7] {
        [
            self.moves.load(Ordering::Relaxed),
            self.broadcasts.load(Ordering::Relaxed),
            self.games.load(Ordering::Relaxed),
            self.bot_states.load(Ordering::Relaxed),
            self.bot_games.load(Ordering::Relaxed),
            self.broadcast_bytes.load(Ordering::Relaxed),
            self.moved_events.load(Ordering::Relaxed),
        ]
    }

    /// Counts one `state`, `moved` or `game_over` frame of `bytes` received.
    fn broadcast(&self, bytes: usize) {
        self.broadcasts.fetch_add(1, Ordering::Relaxed);
        self.broadcast_bytes
            .fetch_add(bytes as u64, Ordering::Relaxed);
    }

    /// Counts one `moved` event of `bytes` received (it is a broadcast too).
    fn moved_event(&self, bytes: usize) {
        self.broadcast(bytes);
        self.moved_events.fetch_add(1, Ordering::Relaxed);
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

    /// A connection of the load stopped because of `why`: a failure, unless the run is
    /// ending (then its connections are closed on purpose).
    fn ended(&self, why: String) {
        if !self.cancel.is_cancelled() {
            self.failure(why);
        }
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

/// Runs `load` against the server processes `pids` (none when not known; a fleet's
/// nodes, whose memory and CPU are added up).
pub(crate) async fn run(load: &Load, pids: &[u32]) -> Result<Measured, BenchError> {
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
    let rss_before = total(pids, system::rss_bytes)?;

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
            set_up_room(&load, &name, index, phase).await
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
                let next = Arc::new(NextRoom::new(room.id.clone(), room.spectators.len()));
                for (i, (conn, me)) in room.players.into_iter().enumerate() {
                    let player = PlayerConn::new(
                        conn,
                        room.id.clone(),
                        me,
                        load.game.clone(),
                        clock.clone(),
                        i == 0,
                        load.cycle,
                        &next,
                    );
                    tasks.spawn(player.run(ctx.clone()));
                }
                let follow = (load.cycle == Cycle::NewRoom).then_some(next);
                for conn in room.spectators {
                    tasks.spawn(watch_room(
                        conn,
                        room.id.clone(),
                        follow.clone(),
                        ctx.clone(),
                    ));
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
    let rss_idle = total(pids, system::rss_bytes)?;

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
    let server_cpu_before = total(pids, system::cpu_seconds)?;
    let written_before = total(pids, system::written_bytes)?.flatten();
    let generator_cpu_before = system::cpu_seconds(std::process::id()).ok();
    let window = Instant::now();
    ctx.recording.store(true, Ordering::Relaxed);
    tokio::time::sleep(load.duration).await;
    ctx.recording.store(false, Ordering::Relaxed);
    let window_secs = window.elapsed().as_secs_f64();
    let after = ctx.counters.get();
    let server_cpu_after = total(pids, system::cpu_seconds)?;
    let written_after = total(pids, system::written_bytes)?.flatten();
    let generator_cpu_after = system::cpu_seconds(std::process::id()).ok();
    let rss_load = total(pids, system::rss_bytes)?;
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
        broadcast_bytes: after[5] - before[5],
        moved_events: after[6] - before[6],
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
        server_written_bytes: written_after
            .zip(written_before)
            .map(|(a, b)| a.saturating_sub(b)),
        generator_cpu_secs: generator_cpu_after
            .zip(generator_cpu_before)
            .map(|(a, b)| a - b),
        abuse: load
            .abuse
            .map(|(kind, clients, rate)| abuse_counters.figures(kind, clients, rate)),
    })
}

/// The sum of `figure` over the processes `pids`; `None` when there are none.
fn total<T: std::iter::Sum<T>>(
    pids: &[u32],
    figure: impl Fn(u32) -> Result<T, BenchError>,
) -> Result<Option<T>, BenchError> {
    if pids.is_empty() {
        return Ok(None);
    }
    pids.iter()
        .map(|&pid| figure(pid))
        .sum::<Result<T, _>>()
        .map(Some)
}

/// Where a room's connections go in a fleet.
#[derive(Clone, Debug, Default)]
pub(crate) enum Placement {
    /// Every connection to `url`.
    #[default]
    OneNode,
    /// The room and its first player on `url`, the second player and the spectators on
    /// this other node: every move crosses between the nodes.
    Across(String),
    /// Every other room, with all its connections, on this other node: two nodes share
    /// the load, and nothing crosses.
    Spread(String),
}

/// A room whose game has started, with its open connections.
struct ReadyRoom {
    id: String,
    /// Seat 0's and seat 1's connections, with each player's id.
    players: Vec<(Conn, String)>,
    spectators: Vec<Conn>,
    /// Open loop: when the room's first move is due, ns after the start.
    phase: u64,
}

/// Creates a room: seat 0 creates it, the spectators watch, then seat 1 joins, which
/// starts the game (the players wait for the start signal before moving). Everyone says
/// hello asking to hear of moves as `load.updates` says. In a fleet, the room number
/// `index` is placed as `load.placement` says.
async fn set_up_room(
    load: &Load,
    name: &str,
    index: usize,
    phase: u64,
) -> Result<ReadyRoom, String> {
    let (home, elsewhere) = match &load.placement {
        Placement::OneNode => (load.url.as_str(), load.url.as_str()),
        Placement::Across(other) => (load.url.as_str(), other.as_str()),
        Placement::Spread(other) if index % 2 == 1 => (other.as_str(), other.as_str()),
        Placement::Spread(_) => (load.url.as_str(), load.url.as_str()),
    };
    let open = |url: &str, who: String| {
        let url = url.to_owned();
        async move { Conn::open(load.wire, &url, &who, load.updates).await }
    };
    let (mut first, first_id) = open(home, format!("{name}-a")).await?;
    let id = first.create(&load.game).await?;
    let mut spectators = Vec::with_capacity(load.spectators);
    for i in 0..load.spectators {
        let (mut conn, _) = open(elsewhere, format!("{name}-s{i}")).await?;
        conn.watch(&id).await?;
        spectators.push(conn);
    }
    let (mut second, second_id) = open(elsewhere, format!("{name}-b")).await?;
    second.join(&id, 1).await?;
    Ok(ReadyRoom {
        id,
        players: vec![(first, first_id), (second, second_id)],
        spectators,
        phase,
    })
}
