//! `lengths`: how long games last when one level plays itself, the measure each game's
//! `scoring.par` is chosen from.
//!
//! A win scores `max(1, par - moves) * 100 + time_score`, so par should sit just above
//! the length of nearly every decisive game: then shorter wins score more, and only the
//! longest wins fall to the floor of one step. The suggested par is the 90th percentile
//! of the decisive games' lengths (in plies, the score formula's `moves`), rounded up to
//! a multiple of ten.

use std::collections::BTreeMap;

use parlor_rules::GameSettings;
use parlor_rules::bots::BotLevel;
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::Serialize;

use crate::play::{self, Budget, Error, Progress, SelfPlayArgs};
use crate::player::Player;
use crate::round_robin::selected_games;

/// Options of `lengths`.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct Args {
    /// A game id (tictactoe, checkers, chess, fox_geese) or `all`
    #[arg(long, default_value = "all")]
    pub(crate) game: String,
    /// The level that plays both sides
    #[arg(long, default_value = "medium")]
    pub(crate) level: BotLevel,
    /// Games per game id
    #[arg(long, default_value_t = 100)]
    pub(crate) games: usize,
    #[command(flatten)]
    pub(crate) play: SelfPlayArgs,
}

/// One game played: its length and how it ended.
#[derive(Clone, Debug, Serialize)]
struct GameRecord {
    game: &'static str,
    number: usize,
    decisive: bool,
    reason: String,
    plies: usize,
}

/// The distribution of some games' lengths, in plies.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
struct Spread {
    games: usize,
    min: usize,
    p10: usize,
    median: usize,
    p90: usize,
    max: usize,
    mean: f64,
}

impl Spread {
    /// The spread of `plies` (nearest-rank percentiles); all zero for no games.
    fn of(mut plies: Vec<usize>) -> Spread {
        if plies.is_empty() {
            return Spread::default();
        }
        plies.sort_unstable();
        let rank = |percent: usize| plies[(percent * plies.len()).div_ceil(100).max(1) - 1];
        Spread {
            games: plies.len(),
            min: plies[0],
            p10: rank(10),
            median: rank(50),
            p90: rank(90),
            max: plies[plies.len() - 1],
            mean: plies.iter().sum::<usize>() as f64 / plies.len() as f64,
        }
    }
}

/// One game id's lengths.
#[derive(Clone, Debug, Serialize)]
struct Summary {
    game: &'static str,
    all: Spread,
    decisive: Spread,
    reasons: BTreeMap<String, usize>,
    /// The decisive games' 90th percentile rounded up to a multiple of ten (`None` if no
    /// game was decisive).
    suggested_par: Option<usize>,
}

impl Summary {
    fn of(game: &'static str, records: &[GameRecord]) -> Summary {
        let of_game = || records.iter().filter(|r| r.game == game);
        let decisive = Spread::of(of_game().filter(|r| r.decisive).map(|r| r.plies).collect());
        let mut reasons = BTreeMap::new();
        for record in of_game() {
            *reasons.entry(record.reason.clone()).or_default() += 1;
        }
        Summary {
            game,
            all: Spread::of(of_game().map(|r| r.plies).collect()),
            suggested_par: (decisive.games > 0).then(|| decisive.p90.div_ceil(10) * 10),
            decisive,
            reasons,
        }
    }
}

/// The whole run, as written to `--json`.
#[derive(Serialize)]
struct Report<'a> {
    command: &'static str,
    commit: Option<String>,
    level: BotLevel,
    seed: u64,
    games: usize,
    budget: Budget,
    elapsed_seconds: f64,
    summaries: &'a [Summary],
    records: &'a [GameRecord],
}

/// Runs `lengths`.
pub(crate) fn run(args: &Args) -> Result<(), Error> {
    let settings = GameSettings::default();
    let budget = args.play.budget.budget();
    let games = selected_games(&args.game)?;
    let threads = args.play.thread_count();
    let commit = play::git_commit();
    let tasks: Vec<(&'static str, usize)> = games
        .iter()
        .flat_map(|&game| (0..args.games).map(move |number| (game, number)))
        .collect();
    println!(
        "parlor-bots lengths at commit {}, seed {}: bot:{} against itself, {} games per game, \
         {threads} thread(s); budget: {}",
        commit.as_deref().unwrap_or("unknown"),
        args.play.seed,
        args.level,
        args.games,
        budget.describe_level(args.level),
    );
    let mut progress = Progress::new(tasks.len());
    let records = play::run_pool(
        &tasks,
        threads,
        || Ok(()),
        |(), &(game, number)| play_one(args, game, number, &settings, &budget),
        |_, record: &GameRecord| {
            progress.game_done(&format!(
                "{} #{}: {} ({} plies)",
                record.game, record.number, record.reason, record.plies
            ));
        },
    )?;
    let summaries: Vec<Summary> = games.iter().map(|g| Summary::of(g, &records)).collect();
    println!(
        "\n{:<10} {:>5} {:>8} | decisive plies: {:>4} {:>4} {:>6} {:>4} {:>4} {:>6} | all: {:>6} {:>6} | par",
        "game", "games", "decisive", "min", "p10", "median", "p90", "max", "mean", "median", "mean"
    );
    for s in &summaries {
        println!(
            "{:<10} {:>5} {:>8} | {:>19} {:>4} {:>6} {:>4} {:>4} {:>6.1} | {:>11} {:>6.1} | {}",
            s.game,
            s.all.games,
            s.decisive.games,
            s.decisive.min,
            s.decisive.p10,
            s.decisive.median,
            s.decisive.p90,
            s.decisive.max,
            s.decisive.mean,
            s.all.median,
            s.all.mean,
            s.suggested_par
                .map_or("-".to_owned(), |par| par.to_string()),
        );
        let reasons: Vec<String> = s.reasons.iter().map(|(r, n)| format!("{r} {n}")).collect();
        println!("{:<10} endings: {}", "", reasons.join(", "));
    }
    let elapsed = progress.elapsed();
    println!("total wall time: {elapsed:.0} s");
    if let Some(path) = &args.play.json {
        let report = Report {
            command: "lengths",
            commit,
            level: args.level,
            seed: args.play.seed,
            games: args.games,
            budget,
            elapsed_seconds: elapsed,
            summaries: &summaries,
            records: &records,
        };
        play::write_json(path, &report)?;
    }
    Ok(())
}

/// Plays game `number` of `game`: a random opening drawn from the seed, then the level
/// against itself.
fn play_one(
    args: &Args,
    game: &'static str,
    number: usize,
    settings: &GameSettings,
    budget: &Budget,
) -> Result<GameRecord, Error> {
    let plies = args.play.opening_plies_for(game);
    let game_number = play::id_number(game);
    let mut rng = StdRng::seed_from_u64(play::derive_seed(
        args.play.seed,
        &[game_number, 2, number as u64],
    ));
    let opening = play::random_opening(game, settings, plies, &mut rng)?;
    let start = play::game_after(game, settings, &opening)?;
    let finished = play::play_out(
        start,
        [Player::Level(args.level); 2],
        budget,
        opening.len(),
        args.play.max_plies,
        &mut rng,
    )?;
    Ok(GameRecord {
        game,
        number,
        decisive: finished.winner.is_some(),
        reason: finished.reason,
        plies: finished.plies,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let spread = Spread::of((1..=20).rev().collect());
        assert_eq!(
            spread,
            Spread {
                games: 20,
                min: 1,
                p10: 2,
                median: 10,
                p90: 18,
                max: 20,
                mean: 10.5,
            }
        );
        assert_eq!(Spread::of(vec![7]).p90, 7);
        assert_eq!(Spread::of(Vec::new()), Spread::default());
    }
}
