//! `speed`: how many positions per second the search visits, one thread, per game, and
//! how deep and how long one move of `bot:hard` takes at the server's budget.
//!
//! Nodes are the search's own count ([`parlor_rules::bots::Analysis::nodes`]): every position
//! it visited, quiescence included, the same quantity its node budget counts.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use parlor_rules::bots::{self, BotLevel, Deadline, Evaluate, Limits};
use parlor_rules::games::Game;
use parlor_rules::games::checkers::Checkers;
use parlor_rules::games::chess::Chess;
use parlor_rules::games::fox_geese::FoxGeese;
use parlor_rules::games::tictactoe::TicTacToe;
use parlor_rules::{GameKind, GameSettings};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use serde::Serialize;

use crate::play::{self, Budget, BudgetArgs, Error};
use crate::round_robin::selected_games;

/// Options of `speed`.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct Args {
    /// A game id (tictactoe, checkers, chess, fox_geese) or `all`
    #[arg(long, default_value = "all")]
    pub(crate) game: String,
    /// Seconds of searching per position
    #[arg(long, default_value_t = 5.0)]
    pub(crate) seconds: f64,
    /// Also write the results as JSON to this file
    #[arg(long, value_name = "PATH")]
    pub(crate) json: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) budget: BudgetArgs,
}

/// The speed on one position.
#[derive(Clone, Debug, Serialize)]
struct Row {
    game: &'static str,
    /// How the position was reached: `start`, or `N random plies (seed S)`.
    position_from: String,
    position: String,
    /// Whole searches run in the time (a search that finishes early, e.g. a solved
    /// tic-tac-toe position, is repeated).
    searches: u64,
    nodes: u64,
    seconds: f64,
    nodes_per_second: f64,
    /// The deepest iteration any of the free searches completed, in plies.
    depth: u32,
    /// One move of `bot:hard` at the run's budget: how deep, how many nodes, how long.
    hard_move: HardMove,
}

/// One move's search at `bot:hard`'s budget.
#[derive(Clone, Debug, Serialize)]
struct HardMove {
    depth: u32,
    nodes: u64,
    milliseconds: f64,
}

#[derive(Serialize)]
struct Report<'a> {
    command: &'static str,
    commit: Option<String>,
    counting: &'static str,
    seconds_per_position: f64,
    budget: Budget,
    rows: &'a [Row],
}

/// The fixed seed of the random play that reaches the test positions.
const POSITION_SEED: u64 = 20_240_601;

/// Runs `speed`.
pub(crate) fn run(args: &Args) -> Result<(), Error> {
    if !(args.seconds > 0.0 && args.seconds.is_finite()) {
        return Err("--seconds must be a positive number".into());
    }
    let settings = GameSettings::default();
    let budget = args.budget.budget();
    let commit = play::git_commit();
    let seconds = Duration::from_secs_f64(args.seconds);
    println!(
        "parlor-bots speed at commit {}: the search (depth ≤ 64, no node limit) for {:.1} s \
         per position, one thread, then one move at bot:hard's budget ({})",
        commit.as_deref().unwrap_or("unknown"),
        args.seconds,
        budget.describe_level(BotLevel::Hard),
    );
    println!(
        "{:<10} {:<16} {:>8} {:>11} {:>10} {:>5} | {:>5} {:>9} {:>8}  position",
        "game", "position from", "searches", "nodes", "nodes/s", "depth", "hard:", "nodes", "ms"
    );
    let mut rows = Vec::new();
    for game in selected_games(&args.game)? {
        let game_rows = match game.parse()? {
            GameKind::TicTacToe => measure::<TicTacToe>(&(), &[2, 4], seconds, &budget)?,
            GameKind::Checkers => {
                measure::<Checkers>(&settings.checkers, &[10, 30], seconds, &budget)?
            }
            GameKind::Chess => measure::<Chess>(&(), &[10, 30], seconds, &budget)?,
            GameKind::FoxGeese => {
                measure::<FoxGeese>(&settings.fox_geese, &[10, 30], seconds, &budget)?
            }
        };
        for row in &game_rows {
            println!(
                "{:<10} {:<16} {:>8} {:>11} {:>10.0} {:>5} | {:>5} {:>9} {:>8.1}  {}",
                row.game,
                row.position_from,
                row.searches,
                row.nodes,
                row.nodes_per_second,
                row.depth,
                row.hard_move.depth,
                row.hard_move.nodes,
                row.hard_move.milliseconds,
                row.position
            );
        }
        rows.extend(game_rows);
    }
    if let Some(path) = &args.json {
        let report = Report {
            command: "speed",
            commit,
            counting: "the search's own node count: every position visited, quiescence included",
            seconds_per_position: args.seconds,
            budget,
            rows: &rows,
        };
        play::write_json(path, &report)?;
    }
    Ok(())
}

/// The start and, for each entry of `random_plies`, the position after that many random
/// plies from a fixed seed (replayed until one leaves the game unfinished).
fn positions<G: Game>(settings: &G::Settings, random_plies: &[usize]) -> Vec<(String, G)> {
    let mut found = vec![("start".to_owned(), G::new(settings))];
    let mut rng = StdRng::seed_from_u64(POSITION_SEED);
    for &plies in random_plies {
        for _ in 0..1000 {
            let mut game = G::new(settings);
            for _ in 0..plies {
                let Some(mv) = game.legal_moves().choose(&mut rng).cloned() else {
                    break;
                };
                if game.play(&mv).is_err() {
                    break;
                }
            }
            if game.outcome().is_none() {
                found.push((format!("{plies} random plies"), game));
                break;
            }
        }
    }
    found
}

/// Searches each test position of `G` for `seconds`, repeating searches that finish
/// early, and counts the nodes; then times one move at `bot:hard`'s budget.
fn measure<G: Evaluate>(
    settings: &G::Settings,
    random_plies: &[usize],
    seconds: Duration,
    budget: &Budget,
) -> Result<Vec<Row>, Error> {
    let mut rows = Vec::new();
    for (from, game) in positions::<G>(settings, random_plies) {
        let start = Instant::now();
        let deadline = start + seconds;
        let (mut searches, mut nodes, mut depth) = (0, 0, 0);
        while Instant::now() < deadline {
            let limits = Limits {
                max_depth: 64,
                max_nodes: u64::MAX,
                deadline: Some(Deadline::at(deadline, Instant::now)),
            };
            let analysis = bots::analyse(&game, &limits);
            if analysis.best.is_empty() {
                return Err("the search found no move in an unfinished position".into());
            }
            searches += 1;
            nodes += analysis.nodes;
            depth = depth.max(analysis.depth);
        }
        let elapsed = start.elapsed().as_secs_f64();
        let hard_start = Instant::now();
        let hard = bots::analyse(&game, &budget.limits(BotLevel::Hard));
        let hard_move = HardMove {
            depth: hard.depth,
            nodes: hard.nodes,
            milliseconds: hard_start.elapsed().as_secs_f64() * 1000.0,
        };
        rows.push(Row {
            game: G::KIND.as_str(),
            position_from: from,
            position: game.position(),
            searches,
            nodes,
            seconds: elapsed,
            nodes_per_second: nodes as f64 / elapsed,
            depth,
            hard_move,
        });
    }
    Ok(rows)
}
