//! `parlor-bench`: a load generator for Parlor and for the two bare baselines it is
//! measured against.
//!
//! It opens real WebSocket connections in rooms of two players and K spectators; the
//! players play legal moves (closed loop: as soon as it is their turn; open loop: at a
//! fixed total rate) and, when a game ends, open a new room for the next (`--cycle
//! newroom`, the default) or ask for a rematch (`--cycle rematch`); they hear of moves
//! as full states (the protocol's default), or as compact `moved` events with
//! `--updates moves`. Parlor keeps its database on disk unless `--tmpfs` says otherwise.
//! It reports connections held, moves/s, broadcast messages/s, move-to-opponent
//! latency, errors, and the server's memory and CPU per move, as text and as JSON.
//! `--compare` runs Parlor, both baselines and Colyseus with the same load and states
//! Parlor's figures as ratios.
//!
//! See BENCHMARKS.md for the commands and what was measured.

mod abuse;
mod chaos;
mod colyseus;
mod error;
mod fleet;
mod load;
mod report;
mod server;
mod store;
mod system;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use error::BenchError;
use load::{Cycle, Load, Placement, Updates, Wire};
use report::{Comparison, Ratios, Report};
use server::{Places, Server, Target};

/// Load generator for Parlor and its baselines (see BENCHMARKS.md).
#[derive(Debug, Parser)]
#[command(name = "parlor-bench", version)]
struct Args {
    /// Which server to start (on a free port; Parlor on a scratch database).
    #[arg(long, value_enum, default_value_t = Target::Parlor, conflicts_with = "url")]
    target: Target,
    /// Load a server that is already running instead (127.0.0.1 only), e.g.
    /// ws://127.0.0.1:8080/ws. Give --server-pid for its memory and CPU.
    #[arg(long)]
    url: Option<String>,
    /// The running server's pid, for its memory and CPU time (with --url).
    #[arg(long, requires = "url")]
    server_pid: Option<u32>,
    /// Run Parlor, the actix-ws baseline, the tokio-tungstenite baseline and Colyseus,
    /// one after the other with the same load, and print Parlor's ratios to each.
    #[arg(long, conflicts_with_all = ["url", "target"])]
    compare: bool,
    /// Connections to open (rounded down to whole rooms).
    #[arg(long, short = 'n', default_value_t = 1000)]
    connections: usize,
    /// Spectators per room (each room also has 2 players).
    #[arg(long, default_value_t = 2)]
    spectators: usize,
    /// The game to play (the baselines play only tictactoe).
    #[arg(long, default_value = "tictactoe")]
    game: String,
    /// How the load's players and spectators hear of moves. `states` (what a client
    /// gets that does not ask): no `updates` in hello, a full `state` after every move;
    /// `moves`: each says `"updates":"moves"` in hello, and a move that leaves the game
    /// on comes as a compact `moved` event. The baselines and Colyseus honour the choice
    /// too, so `--compare` compares the same bytes.
    #[arg(long, value_enum, default_value_t = Updates::States)]
    updates: Updates,
    /// How a room's connections go on from a finished game. `newroom`: the creator
    /// leaves and creates a new room, the spectators leave and watch it, the second
    /// player leaves and joins it (a client looking for a new game, PROTOCOL.md §17);
    /// `rematch`: both players ask for a rematch in the same room.
    #[arg(long, value_enum, default_value_t = Cycle::NewRoom)]
    cycle: Cycle,
    /// Keep the servers' scratch directories (Parlor's database) on /dev/shm, a tmpfs,
    /// instead of on disk; the report says which it was.
    #[arg(long, conflicts_with = "scratch_dir")]
    tmpfs: bool,
    /// Where the servers' scratch directories go (default: beside the binaries, on the
    /// project's disk).
    #[arg(long, value_name = "DIR")]
    scratch_dir: Option<PathBuf>,
    /// The Colyseus server's folder (default: this crate's `colyseus/`).
    #[arg(long, value_name = "DIR")]
    colyseus_dir: Option<PathBuf>,
    /// Open loop: this many moves per second in total, latency timed from each move's
    /// scheduled time. Without it, closed loop: each player moves as soon as it may.
    #[arg(long, value_name = "MOVES_PER_S")]
    rate: Option<f64>,
    /// Seconds of load that are measured.
    #[arg(long, default_value_t = 10.0)]
    duration: f64,
    /// Seconds of load before the measured window.
    #[arg(long, default_value_t = 2.0)]
    warmup: f64,
    /// Seconds to wait, all connections open and no moves made, before reading the
    /// server's idle memory.
    #[arg(long, default_value_t = 2.0)]
    idle: f64,
    /// Rooms being set up at once (bounds how fast connections are opened).
    #[arg(long, default_value_t = 32)]
    connect_concurrency: usize,
    /// Also keep this many rooms of two bots playing each other (Parlor only), to see
    /// how bot thinking affects the human rooms' latency.
    #[arg(long, default_value_t = 0)]
    bot_rooms: usize,
    /// The bot rooms' game.
    #[arg(long, default_value = "chess")]
    bot_game: String,
    /// The bot rooms' level: random, easy, medium or hard.
    #[arg(long, default_value = "hard")]
    bot_level: String,
    /// Also run clients that abuse the server alongside the load: `flood` (refused
    /// messages), `rooms` (room creation) or `draws` (draw offers to a bot). Parlor then
    /// keeps its per-connection limits (its per-address ones stay off: the whole load
    /// comes from one address).
    #[arg(long, value_enum)]
    abuse: Option<abuse::Abuse>,
    /// How many abusing clients.
    #[arg(long, default_value_t = 1)]
    abusers: usize,
    /// Messages per second each abusing client tries to send.
    #[arg(long, default_value_t = 2000)]
    abuse_rate: u32,
    /// Pin the server to core 0 and the generator to core 1 (with taskset).
    #[arg(long)]
    pin: bool,
    /// The generator's worker threads (default: 1 when pinned, else one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Where the server binaries are (default: beside this one, e.g. target/release).
    #[arg(long)]
    bin_dir: Option<PathBuf>,
    /// Chaos instead of load: `connections / 2` games of two players at a person's
    /// pace, the server killed with SIGKILL `--kills` times (each after about
    /// `--duration` seconds) and restarted on its database after `--outage` seconds;
    /// then every game is read back and checked. `--game mixed` plays all four games.
    #[arg(long, conflicts_with_all = ["url", "compare", "rate", "bot_rooms", "abuse"])]
    chaos: bool,
    /// Chaos: how many times the server is killed.
    #[arg(long, default_value_t = 3, requires = "chaos")]
    kills: usize,
    /// Chaos: seconds the server stays down after each kill.
    #[arg(long, default_value_t = 3.0, requires = "chaos")]
    outage: f64,
    /// Chaos: a player's mean time to move, ms (each move takes 0 to twice it).
    #[arg(long, default_value_t = 500, requires = "chaos")]
    think_ms: u64,
    /// Parlor's store on the PostgreSQL database at this URL (e.g.
    /// postgres://postgres@127.0.0.1:5432/test), in a schema made for the run and
    /// dropped after it, instead of a scratch SQLite file.
    #[arg(long, value_name = "URL", conflicts_with = "url")]
    postgres: Option<String>,
    /// Two Parlor nodes in a fleet on --postgres and --redis: the same load with both
    /// players of every room on one node, then with the second player and the
    /// spectators on the other node (every move crosses between nodes).
    #[arg(long, requires = "postgres", requires = "redis", conflicts_with_all = ["compare", "chaos", "target", "bot_rooms", "abuse"])]
    fleet: bool,
    /// The Redis a --fleet coordinates through, e.g. redis://127.0.0.1:6379.
    #[arg(long, value_name = "URL")]
    redis: Option<String>,
    /// Also write the report as JSON here.
    #[arg(long, value_name = "PATH")]
    json: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("parlor-bench: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), BenchError> {
    let (before, after) = system::raise_open_file_limit();
    eprintln!("parlor-bench: open-file limit raised from {before} to {after}");
    if args.pin {
        system::pin_self(1)?;
        eprintln!("parlor-bench: generator pinned to core 1, servers will run on core 0");
    }
    let threads = args.threads.unwrap_or(if args.pin {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.max(1))
        .enable_all()
        .build()
        .map_err(|source| BenchError::Spawn {
            what: "the generator's runtime".to_owned(),
            source,
        })?;
    let load = Load {
        url: String::new(),
        placement: Placement::OneNode,
        connections: args.connections,
        spectators: args.spectators,
        game: args.game.clone(),
        updates: args.updates,
        cycle: args.cycle,
        wire: Wire::Parlor,
        open_rate: args.rate,
        warmup: secs(args.warmup)?,
        duration: secs(args.duration)?,
        idle: secs(args.idle)?,
        connect_concurrency: args.connect_concurrency,
        bot_rooms: args.bot_rooms,
        bot_game: args.bot_game.clone(),
        bot_level: args.bot_level.clone(),
        abuse: args.abuse.map(|kind| (kind, args.abusers, args.abuse_rate)),
    };
    if let Some(rate) = args.rate
        && !(rate > 0.0 && rate.is_finite())
    {
        return Err(BenchError::Usage(format!(
            "--rate must be a positive number of moves per second, not {rate}"
        )));
    }
    let bin_dir = match &args.bin_dir {
        Some(dir) => dir.clone(),
        None => std::env::current_exe()
            .ok()
            .and_then(|exe| exe.parent().map(Path::to_path_buf))
            .unwrap_or_default(),
    };
    let scratch = match (&args.scratch_dir, args.tmpfs) {
        (Some(dir), _) => dir.clone(),
        (None, true) => PathBuf::from("/dev/shm"),
        (None, false) => bin_dir.join("bench-scratch"),
    };
    std::fs::create_dir_all(&scratch).map_err(|source| BenchError::File {
        path: scratch.clone(),
        source,
    })?;
    eprintln!(
        "parlor-bench: servers' files in {} ({})",
        scratch.display(),
        server::storage_of(&scratch)
    );
    let places = Places {
        bin_dir,
        scratch,
        colyseus: args
            .colyseus_dir
            .clone()
            .unwrap_or_else(|| PathBuf::from(colyseus::DEFAULT_DIR)),
    };
    let schema = match &args.postgres {
        Some(url) => Some(runtime.block_on(store::scratch(url))?),
        None => None,
    };
    let store_url = schema.as_ref().map(|schema| schema.store_url());
    let json = measure_all(args, &runtime, &load, &places, store_url.as_deref());
    if let Some(scratch) = schema
        && let Err(error) = runtime.block_on(scratch.remove())
    {
        eprintln!("parlor-bench: the scratch schema was not dropped: {error}");
    }
    write_json(args.json.as_deref(), json?)
}

/// Runs what `args` ask for and prints its report; the report as JSON.
fn measure_all(
    args: &Args,
    runtime: &tokio::runtime::Runtime,
    load: &Load,
    places: &Places,
    store_url: Option<&str>,
) -> Result<String, BenchError> {
    if args.fleet
        && let (Some(store_url), Some(redis_url)) = (store_url, args.redis.as_deref())
    {
        let reports = runtime.block_on(fleet::run(load, places, store_url, redis_url))?;
        for report in &reports {
            print!("{}", report.text());
        }
        return Ok(serde_json::to_string_pretty(&reports)?);
    }
    Ok(if args.chaos {
        let chaos = chaos::Chaos {
            games: args.connections / 2,
            game: args.game.clone(),
            kills: args.kills,
            outage: secs(args.outage)?,
            alive: secs(args.duration)?,
            think_ms: args.think_ms,
            connect_concurrency: args.connect_concurrency,
            store_url: store_url.map(str::to_owned),
        };
        let report = runtime.block_on(chaos::run(&chaos, places))?;
        print!("{}", report.text());
        let json = serde_json::to_string_pretty(&report)?;
        if report.failed() {
            write_json(args.json.as_deref(), json)?;
            return Err(BenchError::Usage(
                "the chaos run found lost moves, charged outages or problems (above)".to_owned(),
            ));
        }
        json
    } else if args.compare {
        let mut runs = Vec::new();
        for target in [
            Target::Parlor,
            Target::Actix,
            Target::Tungstenite,
            Target::Colyseus,
        ] {
            let report = runtime.block_on(measure(target, load, places, args.pin, store_url))?;
            print!("{}", report.text());
            runs.push(report);
        }
        let ratios: Vec<Ratios> = runs[1..].iter().map(|b| Ratios::of(&runs[0], b)).collect();
        for ratio in &ratios {
            println!("{}", ratio.text());
        }
        serde_json::to_string_pretty(&Comparison { runs, ratios })?
    } else {
        let report = match &args.url {
            Some(url) => {
                check_local(url)?;
                let load = Load {
                    url: url.clone(),
                    ..load.clone()
                };
                let pids: Vec<u32> = args.server_pid.into_iter().collect();
                let measured = runtime.block_on(load::run(&load, &pids))?;
                Report::new(
                    "url".to_owned(),
                    &load,
                    args.pin,
                    &pids,
                    &measured,
                    system::load_average(),
                )
            }
            None => runtime.block_on(measure(args.target, load, places, args.pin, store_url))?,
        };
        print!("{}", report.text());
        serde_json::to_string_pretty(&report)?
    })
}

/// Writes the JSON report to `path`, if one was asked for.
fn write_json(path: Option<&Path>, json: String) -> Result<(), BenchError> {
    if let Some(path) = path {
        std::fs::write(path, json + "\n").map_err(|source| BenchError::File {
            path: path.to_owned(),
            source,
        })?;
    }
    Ok(())
}

/// Starts `target` (Parlor with its store at `store_url` when given, otherwise on a
/// scratch SQLite file), loads it, stops it.
async fn measure(
    target: Target,
    load: &Load,
    places: &Places,
    pin: bool,
    store_url: Option<&str>,
) -> Result<Report, BenchError> {
    if target != Target::Parlor && load.bot_rooms > 0 {
        return Err(BenchError::Usage(format!(
            "the {target} server has no bots; --bot-rooms needs Parlor"
        )));
    }
    if target == Target::Colyseus && load.abuse.is_some() {
        return Err(BenchError::Usage(
            "the abusing clients speak Parlor's protocol, which Colyseus does not; --abuse needs Parlor or a baseline"
                .to_owned(),
        ));
    }
    if target != Target::Parlor && load.game != "tictactoe" {
        return Err(BenchError::Usage(format!(
            "the {target} server plays only tictactoe, not {}",
            load.game
        )));
    }
    let store_env = match (target, store_url) {
        (Target::Parlor, Some(url)) => vec![("PARLOR_STORE__URL", url)],
        _ => Vec::new(),
    };
    let server = Server::start(target, places, pin, load.abuse.is_some(), &store_env)?;
    eprintln!(
        "parlor-bench: {target} (pid {}) at {}",
        server.pid, server.url
    );
    let load = Load {
        url: server.url.clone(),
        wire: if target == Target::Colyseus {
            Wire::Colyseus
        } else {
            Wire::Parlor
        },
        ..load.clone()
    };
    let engine = if store_url.is_some() {
        "postgres"
    } else {
        "sqlite"
    };
    let counted = target == Target::Parlor;
    let before = if counted {
        Some(store::Counters::read(&server.url).await?)
    } else {
        None
    };
    let measured = load::run(&load, &[server.pid]).await;
    let after = match before {
        Some(_) => Some(store::Counters::read(&server.url).await),
        None => None,
    };
    let report = measured.map(|m| {
        let mut report = Report::new(
            target.to_string(),
            &load,
            pin,
            &[server.pid],
            &m,
            system::load_average(),
        );
        // On PostgreSQL the database is the database server's, wherever it keeps it.
        report.storage = store_url
            .is_none()
            .then(|| server::storage_of(&places.scratch));
        if let (Some(before), Some(Ok(after))) = (before, after) {
            report.store = Some(store::StoreFigures::between(engine, before, after));
        }
        report
    });
    // Stopping waits (up to 15 s) for the process to exit: off the async workers.
    let _ = tokio::task::spawn_blocking(move || server.stop()).await;
    report
}

fn secs(value: f64) -> Result<Duration, BenchError> {
    Duration::try_from_secs_f64(value)
        .map_err(|_| BenchError::Usage(format!("{value} is not a number of seconds")))
}

/// Load goes only to this machine.
fn check_local(url: &str) -> Result<(), BenchError> {
    let local = ["ws://127.0.0.1:", "ws://localhost:", "ws://[::1]:"];
    if local.iter().any(|prefix| url.starts_with(prefix)) {
        Ok(())
    } else {
        Err(BenchError::NotLocal(url.to_owned()))
    }
}
