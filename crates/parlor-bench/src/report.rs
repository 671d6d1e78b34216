//! The figures a run reports, as JSON and as text, and Parlor's ratios to the baselines.

use std::fmt::Write as _;

use serde::Serialize;

use crate::abuse::AbuseFigures;
use crate::load::{Cycle, Load, Measured, Updates};
use crate::store::StoreFigures;

/// One target's figures.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Report {
    /// `parlor`, `actix`, `tungstenite`, or `url` for a server given by --url.
    pub(crate) target: String,
    /// Where the load went.
    pub(crate) url: String,
    /// The game played.
    pub(crate) game: String,
    /// `closed` or `open`.
    pub(crate) mode: &'static str,
    /// Open loop: the total move rate asked for, per second.
    pub(crate) open_rate_per_s: Option<f64>,
    /// How the load's connections asked to hear of moves: `moves` (most moves as
    /// `moved` events) or `states` (a full `state` for every move). The frame sizes
    /// depend on it.
    pub(crate) updates: Updates,
    /// How a room's connections went on from a finished game: a new room each game, or
    /// a rematch in the same room.
    pub(crate) cycle: Cycle,
    /// Where the server's scratch directory (Parlor's SQLite database) was: `disk` or
    /// `tmpfs`; `None` for a server the generator did not start, or Parlor on
    /// PostgreSQL.
    pub(crate) storage: Option<&'static str>,
    /// The share of the broadcasts received that were `moved` events: what the server
    /// actually sent (one that predates the event sends states whatever is asked).
    pub(crate) moved_share: f64,
    /// Whether server and generator were pinned to cores 0 and 1.
    pub(crate) pinned: bool,
    /// Connections asked for.
    pub(crate) connections_requested: usize,
    /// Rooms set up.
    pub(crate) rooms: usize,
    /// Spectators per room.
    pub(crate) spectators_per_room: usize,
    /// Connections open once set up.
    pub(crate) connections_opened: u64,
    /// Connections still open at the end of the measured window.
    pub(crate) connections_held: u64,
    /// Seconds spent opening connections and setting up rooms.
    pub(crate) setup_secs: f64,
    /// The measured window, seconds.
    pub(crate) window_secs: f64,
    /// Moves whose state (or `moved` event) reached the opponent in the window.
    pub(crate) moves: u64,
    /// Moves per second.
    pub(crate) moves_per_s: f64,
    /// `state`, `moved` and `game_over` frames received per second, all connections.
    pub(crate) broadcasts_per_s: f64,
    /// Their average size, bytes of text (mostly `moved` events with `updates` `moves`,
    /// full states with `states`).
    pub(crate) bytes_per_broadcast: f64,
    /// Games finished in the window.
    pub(crate) games: u64,
    /// Rooms of two bots playing alongside the load.
    pub(crate) bot_rooms: usize,
    /// Bot rooms' states received per second.
    pub(crate) bot_states_per_s: f64,
    /// Bot games finished in the window.
    pub(crate) bot_games: u64,
    /// What abusing clients alongside the load did, and what the server made of it.
    pub(crate) abuse: Option<AbuseFigures>,
    /// From a move's sending (open loop: its scheduled time) to the opponent's receipt
    /// of the frame announcing it (its new state or `moved` event).
    pub(crate) latency_us: Latency,
    /// Everything that went wrong, whole run.
    pub(crate) errors: Errors,
    /// The server process, when its pid is known.
    pub(crate) server: Option<ServerFigures>,
    /// Parlor's store over the whole load (warm-up included).
    pub(crate) store: Option<StoreFigures>,
    /// The generator's CPU time in the window over the window's length (1.0 = one core).
    pub(crate) generator_cpu_share: Option<f64>,
    /// The machine's load averages (1, 5, 15 min) at the end of the run.
    pub(crate) load_average: Option<[f64; 3]>,
}

/// Latency percentiles, microseconds.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Latency {
    /// Moves timed.
    pub(crate) samples: u64,
    /// Median.
    pub(crate) p50: u64,
    /// 90th percentile.
    pub(crate) p90: u64,
    /// 99th percentile.
    pub(crate) p99: u64,
    /// 99.9th percentile.
    pub(crate) p999: u64,
    /// The slowest.
    pub(crate) max: u64,
}

/// What went wrong.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Errors {
    /// All of the below.
    pub(crate) total: u64,
    /// `error` messages from the server.
    pub(crate) error_messages: u64,
    /// Connections that failed or were closed by the server.
    pub(crate) connection_failures: u64,
    /// Rooms that could not be set up.
    pub(crate) setup_failures: u64,
    /// The first few, as text.
    pub(crate) first: Vec<String>,
}

/// The server's memory and CPU.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct ServerFigures {
    /// Its pid (a fleet's nodes' pids, their figures added up).
    pub(crate) pids: Vec<u32>,
    /// Resident memory before any connection, bytes.
    pub(crate) rss_before_bytes: u64,
    /// Resident memory with every connection open and idle, bytes.
    pub(crate) rss_idle_bytes: u64,
    /// The difference per connection opened, bytes.
    pub(crate) idle_bytes_per_connection: f64,
    /// Resident memory at the end of the window, bytes.
    pub(crate) rss_load_bytes: u64,
    /// CPU seconds (user + system) in the window.
    pub(crate) cpu_secs: f64,
    /// CPU time per move, microseconds.
    pub(crate) cpu_per_move_us: Option<f64>,
    /// CPU time over the window's length (1.0 = one core busy).
    pub(crate) cpu_share: f64,
    /// Bytes written to storage per move in the window (the database's pages, its
    /// log, the server's own log file).
    pub(crate) written_bytes_per_move: Option<f64>,
}

impl Report {
    /// Puts the figures of one run together.
    pub(crate) fn new(
        target: String,
        load: &Load,
        pinned: bool,
        pids: &[u32],
        m: &Measured,
        load_average: Option<[f64; 3]>,
    ) -> Report {
        let per_s = |n: u64| {
            if m.window_secs > 0.0 {
                n as f64 / m.window_secs
            } else {
                0.0
            }
        };
        let h = &m.latency;
        let server = match (m.rss, m.server_cpu_secs) {
            (Some([before, idle, under_load]), Some(cpu)) => Some(ServerFigures {
                pids: pids.to_vec(),
                rss_before_bytes: before,
                rss_idle_bytes: idle,
                idle_bytes_per_connection: if m.connections_opened > 0 {
                    (idle as f64 - before as f64) / m.connections_opened as f64
                } else {
                    0.0
                },
                rss_load_bytes: under_load,
                cpu_secs: cpu,
                cpu_per_move_us: (m.moves > 0).then(|| cpu / m.moves as f64 * 1e6),
                cpu_share: cpu / m.window_secs.max(1e-9),
                written_bytes_per_move: m
                    .server_written_bytes
                    .filter(|_| m.moves > 0)
                    .map(|bytes| bytes as f64 / m.moves as f64),
            }),
            _ => None,
        };
        Report {
            target,
            url: load.url.clone(),
            game: load.game.clone(),
            mode: if load.open_rate.is_some() {
                "open"
            } else {
                "closed"
            },
            open_rate_per_s: load.open_rate,
            updates: load.updates,
            cycle: load.cycle,
            storage: None,
            pinned,
            connections_requested: load.connections,
            rooms: m.rooms,
            spectators_per_room: load.spectators,
            connections_opened: m.connections_opened,
            connections_held: m.connections_held,
            setup_secs: m.setup_secs,
            window_secs: m.window_secs,
            moves: m.moves,
            moves_per_s: per_s(m.moves),
            broadcasts_per_s: per_s(m.broadcasts),
            moved_share: if m.broadcasts > 0 {
                m.moved_events as f64 / m.broadcasts as f64
            } else {
                0.0
            },
            bytes_per_broadcast: if m.broadcasts > 0 {
                m.broadcast_bytes as f64 / m.broadcasts as f64
            } else {
                0.0
            },
            games: m.games,
            bot_rooms: load.bot_rooms,
            bot_states_per_s: per_s(m.bot_states),
            bot_games: m.bot_games,
            abuse: m.abuse.clone(),
            latency_us: Latency {
                samples: h.len(),
                p50: h.value_at_quantile(0.5),
                p90: h.value_at_quantile(0.9),
                p99: h.value_at_quantile(0.99),
                p999: h.value_at_quantile(0.999),
                max: h.max(),
            },
            errors: Errors {
                total: m.error_messages + m.connection_failures + m.setup_failures,
                error_messages: m.error_messages,
                connection_failures: m.connection_failures,
                setup_failures: m.setup_failures,
                first: m.first_errors.clone(),
            },
            server,
            store: None,
            generator_cpu_share: m.generator_cpu_secs.map(|c| c / m.window_secs.max(1e-9)),
            load_average,
        }
    }

    /// The report as a few lines of text.
    pub(crate) fn text(&self) -> String {
        let mut out = String::new();
        let l = &self.latency_us;
        let bots = if self.bot_rooms > 0 {
            format!(
                "; {} bot rooms alongside: {:.0} of their states/s, {} bot games finished",
                self.bot_rooms, self.bot_states_per_s, self.bot_games
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "{}: {} loop{}, cycle {}{}, {} {} rooms (2 players + {} spectators), {} connections held of {} opened",
            self.target,
            self.mode,
            self.open_rate_per_s
                .map_or(String::new(), |r| format!(" at {r:.0} moves/s")),
            self.cycle.name(),
            self.storage
                .map_or(String::new(), |s| format!(", files on {s}")),
            self.rooms,
            self.game,
            self.spectators_per_room,
            self.connections_held,
            self.connections_opened,
        );
        let _ = writeln!(
            out,
            "  {:.0} moves/s, {:.0} broadcast messages/s of {:.0} bytes on average (updates: {}; {:.0}% of them moved events), {} games, over {:.1} s (setup took {:.1} s){bots}",
            self.moves_per_s,
            self.broadcasts_per_s,
            self.bytes_per_broadcast,
            match self.updates {
                Updates::Moves => "moves",
                Updates::States => "states",
            },
            self.moved_share * 100.0,
            self.games,
            self.window_secs,
            self.setup_secs
        );
        let _ = writeln!(
            out,
            "  latency (move sent -> opponent hears of it), us: p50 {} p90 {} p99 {} p99.9 {} max {} ({} moves)",
            l.p50, l.p90, l.p99, l.p999, l.max, l.samples
        );
        if let Some(s) = &self.server {
            let _ = writeln!(
                out,
                "  server pid {}: RSS {:.1} MiB before, {:.1} MiB idle ({:.0} bytes per connection), {:.1} MiB under load; CPU {:.2} of a core, {} per move; {} written to storage per move",
                s.pids
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join("+"),
                mib(s.rss_before_bytes),
                mib(s.rss_idle_bytes),
                s.idle_bytes_per_connection,
                mib(s.rss_load_bytes),
                s.cpu_share,
                s.cpu_per_move_us
                    .map_or("n/a".to_owned(), |us| format!("{us:.1} us")),
                s.written_bytes_per_move
                    .map_or("n/a".to_owned(), |b| format!("{b:.0} bytes")),
            );
        }
        if let Some(store) = &self.store {
            let _ = writeln!(
                out,
                "  store ({}): {} commits, {:.1} moves per commit, {:.2} ms per commit on average (warm-up included)",
                store.engine, store.commits, store.moves_per_commit, store.commit_ms_mean
            );
        }
        if let Some(share) = self.generator_cpu_share {
            let _ = writeln!(out, "  generator CPU {share:.2} of a core");
        }
        let e = &self.errors;
        let _ = writeln!(
            out,
            "  errors: {} ({} error messages, {} connection failures, {} rooms not set up)",
            e.total, e.error_messages, e.connection_failures, e.setup_failures
        );
        for first in &e.first {
            let _ = writeln!(out, "    {first}");
        }
        if let Some(a) = &self.abuse {
            let _ = writeln!(
                out,
                "  alongside, {} {:?} abusers at {}/s each: {} sent, {} refused for a limit, {} other frames received, closed {} times",
                a.clients, a.kind, a.rate_per_client, a.sent, a.refused, a.answered, a.closed
            );
        }
        if let Some([one, five, fifteen]) = self.load_average {
            let _ = writeln!(out, "  load average {one:.2} {five:.2} {fifteen:.2}");
        }
        out
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// Parlor's figures divided by a baseline's.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Ratios {
    /// The baseline.
    pub(crate) baseline: String,
    /// Moves per second (higher is better; the target is at least 0.8 against actix).
    pub(crate) moves_per_s: Option<f64>,
    /// Latency p50 (lower is better).
    pub(crate) p50: Option<f64>,
    /// Latency p99.
    pub(crate) p99: Option<f64>,
    /// Latency p99.9.
    pub(crate) p999: Option<f64>,
    /// Idle memory per connection.
    pub(crate) idle_bytes_per_connection: Option<f64>,
    /// Server CPU per move.
    pub(crate) cpu_per_move: Option<f64>,
    /// Bytes per broadcast frame: what each server sends for the same move, with the
    /// same `updates` mode.
    pub(crate) bytes_per_broadcast: Option<f64>,
}

fn ratio(a: f64, b: f64) -> Option<f64> {
    (b > 0.0).then(|| a / b)
}

impl Ratios {
    /// `parlor`'s figures over `baseline`'s.
    pub(crate) fn of(parlor: &Report, baseline: &Report) -> Ratios {
        let (p, b) = (&parlor.latency_us, &baseline.latency_us);
        let both = parlor.server.as_ref().zip(baseline.server.as_ref());
        Ratios {
            baseline: baseline.target.clone(),
            moves_per_s: ratio(parlor.moves_per_s, baseline.moves_per_s),
            p50: ratio(p.p50 as f64, b.p50 as f64),
            p99: ratio(p.p99 as f64, b.p99 as f64),
            p999: ratio(p.p999 as f64, b.p999 as f64),
            idle_bytes_per_connection: both
                .and_then(|(p, b)| ratio(p.idle_bytes_per_connection, b.idle_bytes_per_connection)),
            cpu_per_move: both.and_then(|(p, b)| ratio(p.cpu_per_move_us?, b.cpu_per_move_us?)),
            bytes_per_broadcast: ratio(parlor.bytes_per_broadcast, baseline.bytes_per_broadcast),
        }
    }

    /// One line of text.
    pub(crate) fn text(&self) -> String {
        let f = |r: Option<f64>| r.map_or("n/a".to_owned(), |r| format!("{r:.2}x"));
        format!(
            "parlor / {}: moves/s {}, p50 {}, p99 {}, p99.9 {}, idle bytes per connection {}, CPU per move {}, bytes per broadcast {}",
            self.baseline,
            f(self.moves_per_s),
            f(self.p50),
            f(self.p99),
            f(self.p999),
            f(self.idle_bytes_per_connection),
            f(self.cpu_per_move),
            f(self.bytes_per_broadcast)
        )
    }
}

/// `--compare`: the runs and Parlor's ratios to each peer.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Comparison {
    /// Parlor, actix, tungstenite and Colyseus, in the order run.
    pub(crate) runs: Vec<Report>,
    /// Parlor over each baseline.
    pub(crate) ratios: Vec<Ratios>,
}
