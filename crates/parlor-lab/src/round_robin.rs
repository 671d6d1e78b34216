//! `round-robin`: the levels against each other in every game.

use std::collections::BTreeMap;

use parlor_rules::GameKind;
use parlor_rules::GameSettings;
use parlor_rules::bots::BotLevel;
use parlor_rules::games::Seat;
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::Serialize;

use crate::play::{self, Budget, Error, Progress, SelfPlayArgs};
use crate::player::Player;
use crate::stats::{self, Breakdown, Interval, Score, Tally};

/// Options of `round-robin`.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct Args {
    /// A game id (tictactoe, checkers, chess, fox_geese) or `all`
    #[arg(long, default_value = "all")]
    pub(crate) game: String,
    /// Games per pairing, colours alternating (an even number keeps colours balanced)
    #[arg(long, default_value_t = 100)]
    pub(crate) games_per_pairing: usize,
    /// Play every pair of levels, not only neighbours (random–easy, easy–medium, medium–hard)
    #[arg(long)]
    pub(crate) all_pairs: bool,
    #[command(flatten)]
    pub(crate) play: SelfPlayArgs,
}

/// One game to play: the game, the pairing and the game's number within the pairing.
#[derive(Clone, Debug)]
struct Task {
    game: &'static str,
    weaker: BotLevel,
    stronger: BotLevel,
    number: usize,
}

/// One game played.
#[derive(Clone, Debug, Serialize)]
struct GameRecord {
    game: &'static str,
    weaker: BotLevel,
    stronger: BotLevel,
    number: usize,
    /// The seat the stronger level played.
    stronger_seat: Seat,
    opening: Vec<String>,
    /// The result for the stronger level.
    result: Score,
    reason: String,
    plies: usize,
    seconds: f64,
    final_position: String,
}

/// The results of one pairing in one game, from the stronger level's point of view.
#[derive(Clone, Debug, Serialize)]
struct PairingSummary {
    game: &'static str,
    weaker: BotLevel,
    stronger: BotLevel,
    tally: Tally,
    score: f64,
    /// The 95% Wilson interval of the score (see the stats module).
    wilson95: Interval,
    /// The 95% normal-approximation interval with the per-game variance.
    normal95: Interval,
    /// Whether the Wilson lower bound is above ½: the stronger level is significantly
    /// stronger.
    significant: bool,
    as_first: Tally,
    as_second: Tally,
    /// How the games ended, by the rules' reason.
    reasons: BTreeMap<String, usize>,
    mean_plies: f64,
    mean_seconds: f64,
}

/// The whole run, as written to `--json`.
#[derive(Serialize)]
struct Report<'a> {
    command: &'static str,
    commit: Option<String>,
    seed: u64,
    games_per_pairing: usize,
    max_plies: usize,
    threads: usize,
    budget: Budget,
    /// Whether every search was bounded by nodes alone (results reproducible from the seed).
    deterministic: bool,
    opening_plies: BTreeMap<&'static str, usize>,
    interval: &'static str,
    elapsed_seconds: f64,
    pairings: &'a [PairingSummary],
    games: &'a [GameRecord],
}

/// The pairings to play, weaker level first.
fn pairings(all_pairs: bool) -> Vec<(BotLevel, BotLevel)> {
    let levels = BotLevel::ALL;
    let mut pairs = Vec::new();
    for (i, &weaker) in levels.iter().enumerate() {
        for &stronger in &levels[i + 1..] {
            let adjacent = stronger as usize == weaker as usize + 1;
            if all_pairs || adjacent {
                pairs.push((weaker, stronger));
            }
        }
    }
    pairs
}

/// The games `--game` names (`all`, or one game's name).
pub(crate) fn selected_games(game: &str) -> Result<Vec<&'static str>, Error> {
    if game == "all" {
        return Ok(GameKind::ALL.iter().map(|kind| kind.as_str()).collect());
    }
    let kind: GameKind = game
        .parse()
        .map_err(|_| format!("no game `{game}`; use one of {} or all", GameKind::names()))?;
    Ok(vec![kind.as_str()])
}

/// Runs `round-robin`.
pub(crate) fn run(args: &Args) -> Result<(), Error> {
    let settings = GameSettings::default();
    let budget = args.play.budget.budget();
    let games = selected_games(&args.game)?;
    let threads = args.play.thread_count();
    let opening_plies = |game: &str| args.play.opening_plies_for(game);
    let commit = play::git_commit();
    let mut tasks = Vec::new();
    for &game in &games {
        for (weaker, stronger) in pairings(args.all_pairs) {
            for number in 0..args.games_per_pairing {
                tasks.push(Task {
                    game,
                    weaker,
                    stronger,
                    number,
                });
            }
        }
    }
    println!(
        "parlor-bots round-robin at commit {}, seed {}, {} games per pairing, {threads} thread(s)",
        commit.as_deref().unwrap_or("unknown"),
        args.play.seed,
        args.games_per_pairing
    );
    println!("budgets per move: {}", budget.describe());
    println!(
        "score = the stronger level's mean (win 1, draw ½); 95% CI = Wilson score interval \
         on that mean with n = games (conservative when there are draws)\n"
    );

    let mut progress = Progress::new(tasks.len());
    let mut remaining: BTreeMap<&str, usize> = BTreeMap::new();
    for task in &tasks {
        *remaining.entry(task.game).or_default() += 1;
    }
    let mut finished: Vec<GameRecord> = Vec::new();
    let seed = args.play.seed;
    let records = play::run_pool(
        &tasks,
        threads,
        || Ok(()),
        |(), task| {
            play_one(
                task,
                seed,
                opening_plies(task.game),
                args.play.max_plies,
                &settings,
                &budget,
            )
        },
        |_, record: &GameRecord| {
            progress.game_done(&format!(
                "{} {} vs {} #{}: {:?} ({} plies, {:.1} s)",
                record.game,
                record.stronger,
                record.weaker,
                record.number,
                record.result,
                record.plies,
                record.seconds
            ));
            finished.push(record.clone());
            if let Some(left) = remaining.get_mut(record.game) {
                *left -= 1;
                if *left == 0 {
                    let of_game: Vec<GameRecord> = finished
                        .iter()
                        .filter(|r| r.game == record.game)
                        .cloned()
                        .collect();
                    print_table(
                        record.game,
                        args.games_per_pairing,
                        opening_plies(record.game),
                        &summarize(&of_game, args.all_pairs),
                    );
                }
            }
        },
    )?;
    let elapsed = progress.elapsed();
    println!("total wall time: {elapsed:.0} s");

    if let Some(path) = &args.play.json {
        let summaries = summarize(&records, args.all_pairs);
        let report = Report {
            command: "round-robin",
            commit,
            seed: args.play.seed,
            games_per_pairing: args.games_per_pairing,
            max_plies: args.play.max_plies,
            threads,
            budget,
            deterministic: budget.deterministic(),
            opening_plies: games.iter().map(|g| (*g, opening_plies(g))).collect(),
            interval: "95% Wilson score interval on the mean score, n = games",
            elapsed_seconds: elapsed,
            pairings: &summaries,
            games: &records,
        };
        play::write_json(path, &report)?;
    }
    Ok(())
}

/// Plays one game of the round robin. Games `2k` and `2k + 1` of a pairing share their
/// opening (drawn from the seed, the game and `k`) and swap colours; the bots' own
/// randomness comes from a stream of its own for every game.
fn play_one(
    task: &Task,
    seed: u64,
    opening_plies: usize,
    max_plies: usize,
    settings: &GameSettings,
    budget: &Budget,
) -> Result<GameRecord, Error> {
    let game_number = play::id_number(task.game);
    let mut opening_rng = StdRng::seed_from_u64(play::derive_seed(
        seed,
        &[game_number, 0, task.number as u64 / 2],
    ));
    let opening = play::random_opening(task.game, settings, opening_plies, &mut opening_rng)?;
    let pairing = (task.weaker as u64) << 8 | task.stronger as u64;
    let mut rng = StdRng::seed_from_u64(play::derive_seed(
        seed,
        &[game_number, 1, pairing, task.number as u64],
    ));
    let stronger_seat = if task.number.is_multiple_of(2) {
        Seat::First
    } else {
        Seat::Second
    };
    let mut players = [Player::Level(task.weaker); 2];
    players[stronger_seat.index()] = Player::Level(task.stronger);
    let game = play::game_after(task.game, settings, &opening)?;
    let finished = play::play_out(game, players, budget, opening.len(), max_plies, &mut rng)?;
    Ok(GameRecord {
        game: task.game,
        weaker: task.weaker,
        stronger: task.stronger,
        number: task.number,
        stronger_seat,
        opening,
        result: play::score_for(finished.winner, stronger_seat),
        reason: finished.reason,
        plies: finished.plies,
        seconds: finished.seconds,
        final_position: finished.final_position,
    })
}

/// One summary per game and pairing, in the order played.
fn summarize(records: &[GameRecord], all_pairs: bool) -> Vec<PairingSummary> {
    let mut summaries = Vec::new();
    for &kind in GameKind::ALL {
        let id = kind.as_str();
        for (weaker, stronger) in pairings(all_pairs) {
            let games: Vec<&GameRecord> = records
                .iter()
                .filter(|r| r.game == id && r.weaker == weaker && r.stronger == stronger)
                .collect();
            if games.is_empty() {
                continue;
            }
            let mut counted = Breakdown::default();
            for record in &games {
                counted.add(record.result, record.stronger_seat, &record.reason);
            }
            let Breakdown {
                all: tally,
                by_seat: [as_first, as_second],
                reasons,
            } = counted;
            let count = games.len() as f64;
            let wilson95 = tally.wilson95();
            summaries.push(PairingSummary {
                game: id,
                weaker,
                stronger,
                tally,
                score: tally.score(),
                wilson95,
                normal95: tally.normal95(),
                significant: wilson95.low > 0.5,
                as_first,
                as_second,
                reasons,
                mean_plies: games.iter().map(|r| r.plies as f64).sum::<f64>() / count,
                mean_seconds: games.iter().map(|r| r.seconds).sum::<f64>() / count,
            });
        }
    }
    summaries
}

/// Prints one game's table to stdout.
fn print_table(game: &str, per_pairing: usize, opening_plies: usize, rows: &[PairingSummary]) {
    println!(
        "\n{game}: {per_pairing} games per pairing, colours alternating, \
         {opening_plies} random opening plies"
    );
    println!(
        "{:<17} {:>4} {:>4} {:>4} {:>6}  {:<15} {:<5} {:>10} {:>10} {:>6} {:>7}",
        "stronger vs weaker",
        "W",
        "D",
        "L",
        "score",
        "95% CI (Wilson)",
        ">0.5",
        "as 1st",
        "as 2nd",
        "plies",
        "s/game"
    );
    for row in rows {
        println!(
            "{:<17} {:>4} {:>4} {:>4} {:>6.3}  {:<15} {:<5} {:>10} {:>10} {:>6.1} {:>7.2}",
            format!("{} vs {}", row.stronger, row.weaker),
            row.tally.wins,
            row.tally.draws,
            row.tally.losses,
            row.score,
            format!("[{:.3}, {:.3}]", row.wilson95.low, row.wilson95.high),
            if row.significant { "yes" } else { "no" },
            row.as_first.wdl(),
            row.as_second.wdl(),
            row.mean_plies,
            row.mean_seconds
        );
    }
    println!(
        "endings: {}",
        stats::endings(rows.iter().map(|row| &row.reasons))
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbouring_pairings_by_default_and_all_six_on_request() {
        assert_eq!(
            pairings(false),
            vec![
                (BotLevel::Random, BotLevel::Easy),
                (BotLevel::Easy, BotLevel::Medium),
                (BotLevel::Medium, BotLevel::Hard),
            ]
        );
        assert_eq!(pairings(true).len(), 6);
    }

    #[test]
    fn paired_games_share_their_opening_and_swap_colours() {
        let settings = GameSettings::default();
        let budget = crate::play::BudgetArgs::default().budget();
        let task = |number| Task {
            game: "tictactoe",
            weaker: BotLevel::Random,
            stronger: BotLevel::Easy,
            number,
        };
        let a = play_one(&task(6), 9, 2, 1000, &settings, &budget).unwrap();
        let b = play_one(&task(7), 9, 2, 1000, &settings, &budget).unwrap();
        assert_eq!(a.opening, b.opening);
        assert_eq!(a.opening.len(), 2);
        assert_eq!(a.stronger_seat, Seat::First);
        assert_eq!(b.stronger_seat, Seat::Second);
        let again = play_one(&task(6), 9, 2, 1000, &settings, &budget).unwrap();
        assert_eq!(again.result, a.result);
        assert_eq!(again.plies, a.plies);
    }
}
