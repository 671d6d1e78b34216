//! `parlor-bench --chaos`: games that outlive the server, at scale. Sets up many games
//! of two reconnecting players each (all with a Fischer clock), lets them play at a
//! person's pace, kills the server with SIGKILL several times at random moments and
//! starts it again on the same database after an outage. It reports how long each
//! restart took with how many games in flight, how soon the players were seated again,
//! and then reads every game back over HTTP to check that every move a player saw
//! acknowledged is stored and that no one was charged for an outage.

mod player;
mod verify;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rand::Rng;
use serde::Serialize;
use serde_json::json;
use tokio::sync::{Semaphore, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::error::BenchError;
use crate::load::wire::{RoomCreated, Updates, hello_as, send, until};
use crate::server::{Places, Server, Target};
use player::Player;

/// The games a `mixed` run cycles through.
const KINDS: [&str; 4] = ["tictactoe", "checkers", "chess", "fox_geese"];

/// Every game's clock: long enough that no one runs out during a run.
const BASE_MS: u64 = 600_000;
/// Its increment.
const INCREMENT_MS: u64 = 2_000;

/// What a chaos run does.
#[derive(Clone, Debug)]
pub(crate) struct Chaos {
    /// Games played at once (two players each).
    pub(crate) games: usize,
    /// `tictactoe`, `checkers`, `chess`, `fox_geese`, or `mixed` (all four in turn).
    pub(crate) game: String,
    /// How many times the server is killed.
    pub(crate) kills: usize,
    /// How long it stays down each time.
    pub(crate) outage: Duration,
    /// How long it runs between kills, on average (each time from half to one and a
    /// half of it).
    pub(crate) alive: Duration,
    /// A player's mean time to move, ms (each move takes from 0 to twice it).
    pub(crate) think_ms: u64,
    /// Games being set up at once.
    pub(crate) connect_concurrency: usize,
    /// Parlor's `store.url` (PostgreSQL), or `None` for a scratch SQLite file.
    pub(crate) store_url: Option<String>,
}

/// What the players share with the run.
pub(super) struct Ctx {
    address: watch::Receiver<String>,
    cancel: CancellationToken,
    think_ms: u64,
    /// How many restarts have happened.
    restarts: AtomicUsize,
    /// When each restarted server was listening.
    listening: Mutex<Vec<Instant>>,
    /// For each restart, how long after it each player was seated again.
    rejoins: Mutex<Vec<Vec<Duration>>>,
    /// Every move a player saw acknowledged, by game and number.
    acked: Mutex<HashMap<String, BTreeMap<u64, String>>>,
    acked_count: AtomicU64,
    games_finished: AtomicU64,
    /// The games whose room ended with a server (they were over, no rematch begun), as
    /// their players last saw them.
    ended: Mutex<HashSet<String>>,
    problems: Mutex<Vec<String>>,
    problem_count: AtomicU64,
}

impl Ctx {
    /// Something that should not happen: counted, and the first few kept.
    fn problem(&self, what: String) {
        if self.problem_count.fetch_add(1, Ordering::Relaxed) < 10
            && let Ok(mut problems) = self.problems.lock()
        {
            problems.push(what);
        }
    }

    /// A player saw its move `ply` of `game_id` played.
    fn acknowledged(&self, game_id: &str, ply: u64, text: &str) {
        self.acked_count.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut acked) = self.acked.lock() {
            acked
                .entry(game_id.to_owned())
                .or_default()
                .insert(ply, text.to_owned());
        }
    }

    /// A player found its room gone after a restart; `game_id` was its last game.
    fn room_ended(&self, game_id: &str) {
        if let Ok(mut ended) = self.ended.lock() {
            ended.insert(game_id.to_owned());
        }
    }

    /// A player was seated again at `at`, after restart number `restart` (from 1).
    fn rejoined(&self, restart: usize, at: Instant) {
        let since = self
            .listening
            .lock()
            .ok()
            .and_then(|listening| listening.get(restart - 1).copied());
        if let (Some(since), Ok(mut rejoins)) = (since, self.rejoins.lock()) {
            if rejoins.len() < restart {
                rejoins.resize(restart, Vec::new());
            }
            rejoins[restart - 1].push(at.saturating_duration_since(since));
        }
    }
}

/// One kill and restart.
#[derive(Debug, Serialize)]
pub(crate) struct Restart {
    /// Moves acknowledged to their players before the kill.
    pub(crate) acked_before: u64,
    /// Games the restarted server resumed, as its log says.
    pub(crate) resumed: Option<u64>,
    /// From starting the process to its listening (resuming every game included), s.
    pub(crate) restart_secs: f64,
    /// Players seated again, and how long after the server listened: median, 99th
    /// percentile and slowest, s.
    pub(crate) rejoined: usize,
    pub(crate) rejoin_p50_secs: f64,
    pub(crate) rejoin_p99_secs: f64,
    pub(crate) rejoin_max_secs: f64,
}

/// What a chaos run found.
#[derive(Debug, Serialize)]
pub(crate) struct ChaosReport {
    pub(crate) games: usize,
    pub(crate) game: String,
    pub(crate) outage_secs: f64,
    pub(crate) restarts: Vec<Restart>,
    /// Moves acknowledged to their players in the whole run.
    pub(crate) moves_acked: u64,
    /// Games played to their end (rematches began new ones).
    pub(crate) games_finished: u64,
    /// Rooms that ended with a killed server because their game was over and no
    /// rematch had begun (only games in progress are resumed); each game is checked to
    /// be stored as finished.
    pub(crate) rooms_ended: usize,
    pub(crate) check: verify::Checked,
    /// Things that should not happen (refusals, silent rooms), and the first few.
    pub(crate) problems: u64,
    pub(crate) first_problems: Vec<String>,
}

impl ChaosReport {
    /// Whether the run found anything wrong.
    pub(crate) fn failed(&self) -> bool {
        self.problems > 0
            || self.check.lost > 0
            || self.check.clocks_wrong > 0
            || self.check.over_an_outage > 0
            || self.check.ended_unfinished > 0
    }

    /// The report for people.
    pub(crate) fn text(&self) -> String {
        let mut text = format!(
            "chaos: {} games of {}, {} kills (SIGKILL), {:.1} s down each time\n",
            self.games,
            self.game,
            self.restarts.len(),
            self.outage_secs
        );
        for (n, restart) in self.restarts.iter().enumerate() {
            text += &format!(
                "  restart {}: {} moves acked before the kill; {} games resumed; listening {:.2} s after start; {} players seated again, p50 {:.2} s, p99 {:.2} s, max {:.2} s after\n",
                n + 1,
                restart.acked_before,
                restart.resumed.map_or("?".to_owned(), |n| n.to_string()),
                restart.restart_secs,
                restart.rejoined,
                restart.rejoin_p50_secs,
                restart.rejoin_p99_secs,
                restart.rejoin_max_secs,
            );
        }
        text += &format!(
            "  {} moves acked, {} games finished, {} finished rooms ended with a server; read back {} games with {} moves: {} acked moves missing, {} clocks not charging exactly the thinking time, {} thinking times as long as an outage ({} moves made across one, longest think {} ms)\n",
            self.moves_acked,
            self.games_finished,
            self.rooms_ended,
            self.check.games,
            self.check.moves,
            self.check.lost,
            self.check.clocks_wrong,
            self.check.over_an_outage,
            self.check.across_an_outage,
            self.check.longest_think_ms,
        );
        if self.problems > 0 {
            text += &format!(
                "  {} problems, first: {:?}\n",
                self.problems, self.first_problems
            );
        }
        text
    }
}

/// Runs `chaos` against a Parlor started from `places`.
pub(crate) async fn run(chaos: &Chaos, places: &Places) -> Result<ChaosReport, BenchError> {
    let mut env = vec![
        // Longer than any outage here: players come back before anyone is abandoned.
        ("PARLOR_ROOMS__RECONNECT_GRACE_SECS", "120"),
        ("PARLOR_BOTS__FILL_AFTER_SECS", "3600"),
    ];
    if let Some(url) = &chaos.store_url {
        env.push(("PARLOR_STORE__URL", url));
    }
    let env: Vec<(String, String)> = env
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .collect();
    let places = places.clone();
    let mut server = tokio::task::spawn_blocking(move || {
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        Server::start(Target::Parlor, &places, false, false, &env)
    })
    .await
    .map_err(|e| BenchError::Usage(format!("the server could not be started: {e}")))??;
    eprintln!(
        "parlor-bench: chaos against parlor (pid {}) at {}",
        server.pid, server.url
    );
    let players = set_up(chaos, &server.url).await?;
    eprintln!("parlor-bench: {} games set up", players.len() / 2);
    let (address_tx, address) = watch::channel(server.url.clone());
    let ctx = Arc::new(Ctx {
        address,
        cancel: CancellationToken::new(),
        think_ms: chaos.think_ms,
        restarts: AtomicUsize::new(0),
        listening: Mutex::new(Vec::new()),
        rejoins: Mutex::new(Vec::new()),
        acked: Mutex::new(HashMap::new()),
        acked_count: AtomicU64::new(0),
        games_finished: AtomicU64::new(0),
        ended: Mutex::new(HashSet::new()),
        problems: Mutex::new(Vec::new()),
        problem_count: AtomicU64::new(0),
    });
    let tasks: Vec<_> = players
        .into_iter()
        .map(|player| tokio::spawn(player.play(ctx.clone())))
        .collect();

    let mut restarts = Vec::new();
    for kill in 1..=chaos.kills {
        let alive = chaos.alive.mul_f64(rand::rng().random_range(0.5..1.5));
        tokio::time::sleep(alive).await;
        let acked_before = ctx.acked_count.load(Ordering::Relaxed);
        eprintln!(
            "parlor-bench: SIGKILL {kill} after {alive:.1?}, {acked_before} moves acked so far"
        );
        let (killed, started, listening) = tokio::task::spawn_blocking({
            let outage = chaos.outage;
            move || {
                server.kill_hard();
                std::thread::sleep(outage);
                let started = std::time::Instant::now();
                let restarted = server.restart();
                (
                    server,
                    started,
                    restarted.map(|()| std::time::Instant::now()),
                )
            }
        })
        .await
        .map_err(|e| BenchError::Usage(format!("the restart failed: {e}")))?;
        server = killed;
        let listening = listening?;
        let restart_secs = listening.duration_since(started).as_secs_f64();
        if let Ok(mut at) = ctx.listening.lock() {
            at.push(Instant::now());
        }
        ctx.restarts.fetch_add(1, Ordering::Relaxed);
        address_tx.send_replace(server.url.clone());
        restarts.push(Restart {
            acked_before,
            resumed: resumed_in(&server.log()),
            restart_secs,
            rejoined: 0,
            rejoin_p50_secs: 0.0,
            rejoin_p99_secs: 0.0,
            rejoin_max_secs: 0.0,
        });
    }
    tokio::time::sleep(chaos.alive).await;
    ctx.cancel.cancel();
    for task in tasks {
        let _ = task.await;
    }
    let rejoins = ctx.rejoins.lock().map(|r| r.clone()).unwrap_or_default();
    for (restart, mut times) in restarts.iter_mut().zip(rejoins) {
        times.sort();
        restart.rejoined = times.len();
        restart.rejoin_p50_secs = quantile(&times, 0.5);
        restart.rejoin_p99_secs = quantile(&times, 0.99);
        restart.rejoin_max_secs = times.last().map_or(0.0, Duration::as_secs_f64);
    }
    let acked = ctx.acked.lock().map(|a| a.clone()).unwrap_or_default();
    let http = server.url.replace("ws://", "http://").replace("/ws", "");
    let ended = ctx.ended.lock().map(|e| e.clone()).unwrap_or_default();
    let check = verify::check(&http, &acked, &ended, chaos.outage).await?;
    let report = ChaosReport {
        games: chaos.games,
        game: chaos.game.clone(),
        outage_secs: chaos.outage.as_secs_f64(),
        restarts,
        moves_acked: ctx.acked_count.load(Ordering::Relaxed),
        games_finished: ctx.games_finished.load(Ordering::Relaxed) / 2,
        rooms_ended: ended.len(),
        check,
        problems: ctx.problem_count.load(Ordering::Relaxed),
        first_problems: ctx.problems.lock().map(|p| p.clone()).unwrap_or_default(),
    };
    let _ = tokio::task::spawn_blocking(move || server.stop()).await;
    Ok(report)
}

/// Creates the games: in each, one player creates the room and takes seat 0, the other
/// only says hello (it joins seat 1 when the run starts, which starts the game).
async fn set_up(chaos: &Chaos, url: &str) -> Result<Vec<Player>, BenchError> {
    let gate = Arc::new(Semaphore::new(chaos.connect_concurrency.max(1)));
    let mut tasks = Vec::new();
    for n in 0..chaos.games {
        let game = if chaos.game == "mixed" {
            KINDS[n % KINDS.len()].to_owned()
        } else {
            chaos.game.clone()
        };
        let url = url.to_owned();
        let gate = gate.clone();
        tasks.push(tokio::spawn(async move {
            let _permit = gate.acquire_owned().await.map_err(|e| e.to_string())?;
            let (first, second) = (format!("chaos{n}a"), format!("chaos{n}b"));
            let (mut ws, welcome) = hello_as(&url, &first, None, Updates::States).await?;
            let create = json!({
                "type": "create_room",
                "game": game,
                "seats": ["me", "open"],
                "options": {"time_control": {"kind": "fischer", "base_ms": BASE_MS, "increment_ms": INCREMENT_MS}},
            });
            send(&mut ws, create.to_string()).await?;
            let created = until(&mut ws, "room_created").await?;
            let room = serde_json::from_str::<RoomCreated>(&created)
                .map_err(|e| format!("room_created without a room: {e}"))?
                .room;
            let (_, other) = hello_as(&url, &second, None, Updates::States).await?;
            Ok::<_, String>([
                Player {
                    name: first,
                    token: welcome.token,
                    player_id: welcome.player_id,
                    room: room.clone(),
                    seat: 0,
                    seed: rand::rng().random(),
                    done: false,
                    game_id: None,
                },
                Player {
                    name: second,
                    token: other.token,
                    player_id: other.player_id,
                    room,
                    seat: 1,
                    seed: rand::rng().random(),
                    done: false,
                    game_id: None,
                },
            ])
        }));
    }
    let mut players = Vec::new();
    for task in tasks {
        match task.await {
            Ok(Ok(pair)) => players.extend(pair),
            Ok(Err(why)) => return Err(BenchError::NoRooms(why)),
            Err(why) => return Err(BenchError::NoRooms(why.to_string())),
        }
    }
    Ok(players)
}

/// The `resumed=N` of the last "unfinished games resumed" line in a server's log.
fn resumed_in(log: &str) -> Option<u64> {
    let line = log
        .lines()
        .rev()
        .find(|line| line.contains("unfinished games resumed"))?;
    let value = line.split_once("resumed=")?.1;
    value
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// The `q` quantile of sorted durations, seconds.
fn quantile(sorted: &[Duration], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let index = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[index.min(sorted.len() - 1)].as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_resumed_count_is_read_from_the_last_start() {
        let log = "… unfinished games resumed incarnation=1 resumed=0 interrupted=0\n\
                   … unfinished games resumed incarnation=2 resumed=997 interrupted=0\n";
        assert_eq!(resumed_in(log), Some(997));
        assert_eq!(resumed_in("nothing"), None);
    }
}
