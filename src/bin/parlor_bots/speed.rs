//! `speed`: how many positions per second the search visits, one thread, per game.
//!
//! The library does not report how many nodes a search visited, so the game is wrapped in
//! [`Counted`], which implements `Game` and `Evaluate` by delegation and counts every
//! successful `play`. The search plays each move it examines on a copy of the position
//! exactly once, so the count is the number of positions it visited below the root.

use std::cell::Cell;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use parlor::bots::{self, BotLevel, Evaluate, Limits};
use parlor::config::Config;
use parlor::games::checkers::Checkers;
use parlor::games::chess::Chess;
use parlor::games::fox_geese::FoxGeese;
use parlor::games::tictactoe::TicTacToe;
use parlor::games::{BoardView, Game, MoveError, Outcome, PositionError, Seat};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use serde::Serialize;

use crate::play::{self, Error};
use crate::round_robin::selected_games;

/// Options of `speed`.
#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// A game id (tictactoe, checkers, chess, fox_geese) or `all`
    #[arg(long, default_value = "all")]
    pub game: String,
    /// Seconds of searching per position
    #[arg(long, default_value_t = 5.0)]
    pub seconds: f64,
    /// Also write the results as JSON to this file
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
}

thread_local! {
    /// Successful `play` calls on [`Counted`] games on this thread.
    static PLAYS: Cell<u64> = const { Cell::new(0) };
}

/// A game that counts the moves played on it (and on its copies) on this thread.
#[derive(Clone, Debug)]
pub struct Counted<G>(pub G);

impl<G: Game> Game for Counted<G> {
    type Move = G::Move;
    type Settings = G::Settings;
    const ID: &'static str = G::ID;

    fn new(settings: &Self::Settings) -> Self {
        Counted(G::new(settings))
    }

    fn from_position(settings: &Self::Settings, position: &str) -> Result<Self, PositionError> {
        G::from_position(settings, position).map(Counted)
    }

    fn turn(&self) -> Option<Seat> {
        self.0.turn()
    }

    fn legal_moves(&self) -> Vec<Self::Move> {
        self.0.legal_moves()
    }

    fn parse_move(&self, text: &str) -> Result<Self::Move, MoveError> {
        self.0.parse_move(text)
    }

    fn play(&mut self, mv: &Self::Move) -> Result<(), MoveError> {
        self.0.play(mv)?;
        PLAYS.with(|plays| plays.set(plays.get() + 1));
        Ok(())
    }

    fn outcome(&self) -> Option<Outcome> {
        self.0.outcome()
    }

    fn position_hash(&self) -> u64 {
        self.0.position_hash()
    }

    fn position(&self) -> String {
        self.0.position()
    }

    fn board(&self) -> BoardView {
        self.0.board()
    }
}

impl<G: Evaluate> Evaluate for Counted<G> {
    fn evaluate(&self) -> i32 {
        self.0.evaluate()
    }
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
}

#[derive(Serialize)]
struct Report<'a> {
    command: &'static str,
    commit: Option<String>,
    counting: &'static str,
    seconds_per_position: f64,
    rows: &'a [Row],
}

/// The fixed seed of the random play that reaches the test positions.
const POSITION_SEED: u64 = 20_240_601;

/// Runs `speed`.
pub fn run(args: &Args) -> Result<(), Error> {
    if !(args.seconds > 0.0 && args.seconds.is_finite()) {
        return Err("--seconds must be a positive number".into());
    }
    let config = Config::default();
    let commit = play::git_commit();
    let seconds = Duration::from_secs_f64(args.seconds);
    println!(
        "parlor-bots speed at commit {}: the search (bot:hard's, depth ≤ 64, no node \
         limit) for {:.1} s per position, one thread; nodes = moves played by the search \
         (counting adapter)",
        commit.as_deref().unwrap_or("unknown"),
        args.seconds
    );
    println!(
        "{:<10} {:<26} {:>9} {:>12} {:>12}  position",
        "game", "position from", "searches", "nodes", "nodes/s"
    );
    let mut rows = Vec::new();
    for game in selected_games(&args.game)? {
        let game_rows = match game {
            TicTacToe::ID => measure::<TicTacToe>(&(), &[2, 4], seconds)?,
            Checkers::ID => measure::<Checkers>(&config.checkers, &[10, 30], seconds)?,
            Chess::ID => measure::<Chess>(&(), &[10, 30], seconds)?,
            FoxGeese::ID => measure::<FoxGeese>(&config.fox_geese, &[10, 30], seconds)?,
            other => return Err(format!("no speed test for `{other}`").into()),
        };
        for row in &game_rows {
            println!(
                "{:<10} {:<26} {:>9} {:>12} {:>12.0}  {}",
                row.game,
                row.position_from,
                row.searches,
                row.nodes,
                row.nodes_per_second,
                row.position
            );
        }
        rows.extend(game_rows);
    }
    if let Some(path) = &args.json {
        let report = Report {
            command: "speed",
            commit,
            counting: "successful play() calls on a counting adapter, one per position visited",
            seconds_per_position: args.seconds,
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
/// early, and counts the nodes.
fn measure<G: Evaluate>(
    settings: &G::Settings,
    random_plies: &[usize],
    seconds: Duration,
) -> Result<Vec<Row>, Error> {
    let mut rows = Vec::new();
    let mut rng = StdRng::seed_from_u64(POSITION_SEED);
    for (from, game) in positions::<G>(settings, random_plies) {
        let counted = Counted(game);
        PLAYS.with(|plays| plays.set(0));
        let start = Instant::now();
        let deadline = start + seconds;
        let mut searches = 0;
        while Instant::now() < deadline {
            let limits = Limits {
                max_depth: 64,
                max_nodes: u64::MAX,
                deadline: Some(deadline),
            };
            bots::choose_move(&counted, BotLevel::Hard, &limits, &mut rng)
                .ok_or("the search found no move in an unfinished position")?;
            searches += 1;
        }
        let elapsed = start.elapsed().as_secs_f64();
        let nodes = PLAYS.with(Cell::get);
        rows.push(Row {
            game: G::ID,
            position_from: from,
            position: counted.0.position(),
            searches,
            nodes,
            seconds: elapsed,
            nodes_per_second: nodes as f64 / elapsed,
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_adapter_counts_every_move_the_search_plays() {
        // Two empty cells are left, neither ending the game at once, so the search must
        // play both root moves (and today also the replies: six plays in all).
        let mut game = Counted(TicTacToe::new(&()));
        for cell in ["0", "1", "2", "4", "3", "5", "7"] {
            let mv = game.parse_move(cell).unwrap();
            game.play(&mv).unwrap();
        }
        assert_eq!(game.legal_moves().len(), 2);
        PLAYS.with(|plays| plays.set(0));
        let limits = Limits {
            max_depth: 9,
            max_nodes: u64::MAX,
            deadline: None,
        };
        let mut rng = StdRng::seed_from_u64(1);
        bots::choose_move(&game, BotLevel::Hard, &limits, &mut rng).unwrap();
        assert!(PLAYS.with(Cell::get) >= 2);
    }
}
