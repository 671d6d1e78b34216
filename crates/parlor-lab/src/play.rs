//! What every subcommand shares: the bots' budgets, deterministic seeds, random openings,
//! playing one game between two bots, and a pool of threads that each play whole games.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use parlor_rules::GameSettings;
use parlor_rules::bots::{BotLevel, Deadline, Limits, Memory, Strength};
use parlor_rules::catalog::{self, AnyGame};
use parlor_rules::games::Seat;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use serde::Serialize;

use crate::player::Player;

/// Any error that ends a run: a game that could not be set up, an engine that misbehaved,
/// a file that could not be written.
pub(crate) type Error = Box<dyn std::error::Error + Send + Sync>;

/// The searching levels' budgets for one run: the server's defaults unless overridden.
/// A `think_ms` of 0 means no time limit, which makes a search depend only on its node
/// budget, so that results do not depend on the machine's speed or load.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Budget {
    /// `bot:medium`'s limits per move.
    pub(crate) medium: Strength,
    /// `bot:hard`'s limits per move.
    pub(crate) hard: Strength,
}

/// Options of the subcommands in which our bots play each other (`round-robin`,
/// `lengths`).
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct SelfPlayArgs {
    /// The seed every opening and every bot's tie-breaking is derived from
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Random plies before the bots take over [default: 2 in tic-tac-toe, 4 elsewhere]
    #[arg(long, value_name = "N")]
    pub(crate) opening_plies: Option<usize>,
    /// Draw a game still running after this many plies (reported as adjudicated_ply_cap)
    #[arg(long, value_name = "N", default_value_t = 2000)]
    pub(crate) max_plies: usize,
    /// Threads, each playing whole games [default: all cores but one]
    #[arg(long)]
    pub(crate) threads: Option<usize>,
    /// Also write the results as JSON to this file
    #[arg(long, value_name = "PATH")]
    pub(crate) json: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) budget: BudgetArgs,
}

impl SelfPlayArgs {
    /// The worker threads to use.
    pub(crate) fn thread_count(&self) -> usize {
        self.threads.unwrap_or_else(default_threads).max(1)
    }

    /// The random plies that open a game of `game_id`.
    pub(crate) fn opening_plies_for(&self, game_id: &str) -> usize {
        self.opening_plies
            .unwrap_or_else(|| default_opening_plies(game_id))
    }
}

/// Overrides of the server's bot budgets, shared by the subcommands.
#[derive(clap::Args, Clone, Debug, Default)]
pub(crate) struct BudgetArgs {
    /// bot:medium's think time per move in ms; 0 = no time limit [default: the server's]
    #[arg(long, value_name = "MS")]
    pub(crate) medium_ms: Option<u64>,
    /// bot:hard's think time per move in ms; 0 = no time limit [default: the server's]
    #[arg(long, value_name = "MS")]
    pub(crate) hard_ms: Option<u64>,
    /// bot:medium's node budget per move [default: the server's]
    #[arg(long, value_name = "N")]
    pub(crate) medium_nodes: Option<u64>,
    /// bot:hard's node budget per move [default: the server's]
    #[arg(long, value_name = "N")]
    pub(crate) hard_nodes: Option<u64>,
    /// A cap on both searching levels' node budgets per move
    #[arg(long, value_name = "N")]
    pub(crate) max_nodes: Option<u64>,
}

impl BudgetArgs {
    /// The budgets: the server's default strengths, with these overrides applied.
    pub(crate) fn budget(&self) -> Budget {
        let apply = |base: Strength, ms: Option<u64>, nodes: Option<u64>| {
            let mut strength = base;
            if let Some(ms) = ms {
                strength.think_ms = ms;
            }
            if let Some(nodes) = nodes {
                strength.max_nodes = nodes;
            }
            if let Some(cap) = self.max_nodes {
                strength.max_nodes = strength.max_nodes.min(cap);
            }
            strength
        };
        Budget {
            medium: apply(Strength::MEDIUM, self.medium_ms, self.medium_nodes),
            hard: apply(Strength::HARD, self.hard_ms, self.hard_nodes),
        }
    }
}

impl Budget {
    /// The limits of one move by `level` thinking from now on the real clock (ignored by
    /// the levels that do not search).
    pub(crate) fn limits(&self, level: BotLevel) -> Limits {
        let strength = match level {
            BotLevel::Hard => self.hard,
            BotLevel::Random | BotLevel::Easy | BotLevel::Medium => self.medium,
        };
        Limits {
            max_depth: strength.max_depth,
            max_nodes: strength.max_nodes,
            deadline: (strength.think_ms > 0)
                .then(|| Deadline::after(Duration::from_millis(strength.think_ms), Instant::now)),
        }
    }

    /// A one-line description for reports.
    pub(crate) fn describe(&self) -> String {
        format!(
            "medium: {}; hard: {}",
            describe(self.medium),
            describe(self.hard)
        )
    }

    /// A description of `level`'s limits alone.
    pub(crate) fn describe_level(&self, level: BotLevel) -> String {
        match level {
            BotLevel::Random | BotLevel::Easy => "no search".to_owned(),
            BotLevel::Medium => describe(self.medium),
            BotLevel::Hard => describe(self.hard),
        }
    }

    /// Whether every search is bounded by nodes alone, so a run depends only on its seed.
    pub(crate) fn deterministic(&self) -> bool {
        self.medium.think_ms == 0 && self.hard.think_ms == 0
    }
}

/// `depth ≤ D, ≤ N nodes, T ms` for one level's limits per move.
fn describe(strength: Strength) -> String {
    let time = if strength.think_ms == 0 {
        "no time limit".to_owned()
    } else {
        format!("{} ms", strength.think_ms)
    };
    format!(
        "depth ≤ {}, ≤ {} nodes, {time}",
        strength.max_depth, strength.max_nodes
    )
}

/// A 64-bit seed derived from the run's seed and the parts that name one stream (game,
/// pairing, game number), mixed with SplitMix64 so that neighbouring inputs give
/// unrelated streams.
pub(crate) fn derive_seed(seed: u64, parts: &[u64]) -> u64 {
    let mut state = seed;
    for part in parts {
        state = splitmix(state ^ splitmix(*part));
    }
    splitmix(state)
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A stable number for a game id (FNV-1a), so seeds do not shift when games are added.
pub(crate) fn id_number(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// How many random plies open a game by default: enough that games differ, few enough
/// that the position is still the game's own (tic-tac-toe: one move each).
pub(crate) fn default_opening_plies(game_id: &str) -> usize {
    match game_id {
        "tictactoe" => 2,
        _ => 4,
    }
}

/// A new game at its standard start under the server's default rules.
pub(crate) fn new_game(game_id: &str, settings: &GameSettings) -> Result<Box<dyn AnyGame>, Error> {
    Ok(catalog::new_game(game_id.parse()?, settings, None)?)
}

/// `plies` uniformly random legal moves from the start, drawn from `rng`; a sequence
/// that ends the game is thrown away and drawn again (at most a thousand times).
pub(crate) fn random_opening(
    game_id: &str,
    settings: &GameSettings,
    plies: usize,
    rng: &mut StdRng,
) -> Result<Vec<String>, Error> {
    for _ in 0..1000 {
        let mut game = new_game(game_id, settings)?;
        let mut moves = Vec::with_capacity(plies);
        while moves.len() < plies && game.turn().is_some() {
            let Some(mv) = game.legal_moves().choose(rng).cloned() else {
                break;
            };
            game.play(&mv)?;
            moves.push(mv);
        }
        if game.turn().is_some() {
            return Ok(moves);
        }
    }
    Err(format!("no {plies}-ply opening of {game_id} leaves the game unfinished").into())
}

/// A game from the start after `moves`.
pub(crate) fn game_after(
    game_id: &str,
    settings: &GameSettings,
    moves: &[String],
) -> Result<Box<dyn AnyGame>, Error> {
    let mut game = new_game(game_id, settings)?;
    for mv in moves {
        game.play(mv)?;
    }
    Ok(game)
}

/// How a finished game went.
#[derive(Clone, Debug)]
pub(crate) struct Finished {
    /// The winning seat, or `None` for a draw.
    pub(crate) winner: Option<Seat>,
    /// Why it ended: the rules' reason, or one of [`ADJUDICATED_REPETITION`] and
    /// [`ADJUDICATED_PLY_CAP`].
    pub(crate) reason: String,
    /// Plies played, the opening included.
    pub(crate) plies: usize,
    /// Wall time of the whole game.
    pub(crate) seconds: f64,
    /// The final position, in the game's text form.
    pub(crate) final_position: String,
}

/// The ending of a game the harness drew because the same position (exact text, side to
/// move included) arose a third time without the rules ending the game.
pub(crate) const ADJUDICATED_REPETITION: &str = "adjudicated_repetition";

/// The ending of a game the harness drew because it reached `--max-plies`.
pub(crate) const ADJUDICATED_PLY_CAP: &str = "adjudicated_ply_cap";

/// Plays `game` to its end with `players[seat]` moving for each seat. `opening_plies`
/// already played count towards the plies.
///
/// Every game's rules end it by themselves, but a rules bug could let one run forever, so
/// the harness also draws a game whose exact position text recurs a third time (which the
/// rules of every game treat as a draw; chess positions carry move counters and never
/// recur as text, and chess ends its own repetitions) or which reaches `max_plies`. Such
/// games are reported under their own endings.
pub(crate) fn play_out(
    mut game: Box<dyn AnyGame>,
    players: [Player; 2],
    budget: &Budget,
    opening_plies: usize,
    max_plies: usize,
    rng: &mut StdRng,
) -> Result<Finished, Error> {
    let start = Instant::now();
    let mut plies = opening_plies;
    let mut seen: HashMap<String, u32> = HashMap::new();
    seen.insert(game.position(), 1);
    let draw = |reason: &str, plies, game: &dyn AnyGame| Finished {
        winner: None,
        reason: reason.to_owned(),
        plies,
        seconds: start.elapsed().as_secs_f64(),
        final_position: game.position(),
    };
    let mut memories = [Memory::default(), Memory::default()];
    while let Some(seat) = game.turn() {
        if plies >= max_plies {
            return Ok(draw(ADJUDICATED_PLY_CAP, plies, &*game));
        }
        let player = players[seat.index()];
        let limits = player.limits(budget);
        let mv = game
            .bot_move(player.level(), &limits, &mut memories[seat.index()], rng)
            .ok_or("a bot found no move in an unfinished game")?;
        game.play(&mv)?;
        plies += 1;
        if game.turn().is_some() {
            let count = seen.entry(game.position()).or_default();
            *count += 1;
            if *count >= 3 {
                return Ok(draw(ADJUDICATED_REPETITION, plies, &*game));
            }
        }
    }
    let outcome = game
        .outcome()
        .ok_or("the game has no turn but no outcome")?;
    Ok(Finished {
        winner: outcome.winner,
        reason: outcome.reason.to_string(),
        plies,
        seconds: start.elapsed().as_secs_f64(),
        final_position: game.position(),
    })
}

/// The result for the player in `seat` of a game won by `winner` (`None`: a draw).
pub(crate) fn score_for(winner: Option<Seat>, seat: Seat) -> crate::stats::Score {
    use crate::stats::Score;
    match winner {
        None => Score::Draw,
        Some(winner) if winner == seat => Score::Win,
        Some(_) => Score::Loss,
    }
}

/// All but one of the machine's cores, and at least one.
pub(crate) fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get().saturating_sub(1))
        .unwrap_or(1)
        .max(1)
}

/// Runs `work` on every task with `threads` threads, each of which first builds its own
/// state with `init` (e.g. an engine process) and then takes tasks one at a time, so
/// every task's result depends only on the task. `done` sees each result as it arrives,
/// on the calling thread. The first error stops the pool: tasks not yet started are
/// skipped, and that error is returned.
pub(crate) fn run_pool<T, S, R>(
    tasks: &[T],
    threads: usize,
    init: impl Fn() -> Result<S, Error> + Sync,
    work: impl Fn(&mut S, &T) -> Result<R, Error> + Sync,
    mut done: impl FnMut(usize, &R),
) -> Result<Vec<R>, Error>
where
    T: Sync,
    R: Send,
{
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel::<(usize, Result<R, Error>)>();
    let mut results: Vec<Option<R>> = (0..tasks.len()).map(|_| None).collect();
    let mut first_error: Option<Error> = None;
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1).min(tasks.len().max(1)) {
            let sender = sender.clone();
            let (next, stop, init, work) = (&next, &stop, &init, &work);
            scope.spawn(move || {
                let mut state = match init() {
                    Ok(state) => state,
                    Err(error) => {
                        stop.store(true, Ordering::SeqCst);
                        let _ = sender.send((usize::MAX, Err(error)));
                        return;
                    }
                };
                while !stop.load(Ordering::SeqCst) {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    let Some(task) = tasks.get(index) else {
                        break;
                    };
                    let result = work(&mut state, task);
                    if result.is_err() {
                        stop.store(true, Ordering::SeqCst);
                    }
                    if sender.send((index, result)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        for (index, result) in receiver {
            match result {
                Ok(value) => {
                    done(index, &value);
                    if let Some(slot) = results.get_mut(index) {
                        *slot = Some(value);
                    }
                }
                Err(error) => {
                    if first_error.is_none() {
                        first_error = Some(error);
                    }
                }
            }
        }
    });
    if let Some(error) = first_error {
        return Err(error);
    }
    results
        .into_iter()
        .map(|slot| slot.ok_or_else(|| Error::from("a task produced no result")))
        .collect()
}

/// Progress on stderr: a line rewritten in place on a terminal, otherwise a line at
/// most every ten seconds (and always for the last game).
pub(crate) struct Progress {
    start: Instant,
    total: usize,
    done: usize,
    terminal: bool,
    last_line: Option<Instant>,
}

impl Progress {
    /// Progress over `total` games, starting now.
    pub(crate) fn new(total: usize) -> Self {
        Progress {
            start: Instant::now(),
            total,
            done: 0,
            terminal: std::io::stderr().is_terminal(),
            last_line: None,
        }
    }

    /// Counts one finished game, described by `what`.
    pub(crate) fn game_done(&mut self, what: &str) {
        self.done += 1;
        let now = Instant::now();
        let elapsed = self.start.elapsed().as_secs_f64();
        let line = format!(
            "{}/{} games, {:.0} s elapsed — last: {what}",
            self.done, self.total, elapsed
        );
        if self.terminal {
            eprint!("\r\x1b[2K{line}");
            if self.done == self.total {
                eprintln!();
            }
            return;
        }
        let due = self
            .last_line
            .is_none_or(|at| now.duration_since(at) >= Duration::from_secs(10));
        if due || self.done == self.total {
            eprintln!("{line}");
            self.last_line = Some(now);
        }
    }

    /// Seconds since the start.
    pub(crate) fn elapsed(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }
}

/// The commit the working tree is at (`git rev-parse --short HEAD`, with `+dirty` if
/// there are uncommitted changes), when git can tell.
pub(crate) fn git_commit() -> Option<String> {
    let run = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|output| output.status.success())
            .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
    };
    let hash = run(&["rev-parse", "--short", "HEAD"])?;
    let dirty = run(&["status", "--porcelain", "--untracked-files=no"])
        .is_some_and(|status| !status.is_empty());
    Some(if dirty { format!("{hash}+dirty") } else { hash })
}

/// Writes `value` as pretty JSON to `path`.
pub(crate) fn write_json<T: Serialize>(path: &std::path::Path, value: &T) -> Result<(), Error> {
    let text = serde_json::to_string_pretty(value)?;
    std::fs::write(path, text + "\n")
        .map_err(|error| format!("could not write {}: {error}", path.display()))?;
    eprintln!("wrote {}", path.display());
    Ok(())
}
