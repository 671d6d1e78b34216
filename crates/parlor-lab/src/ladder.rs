//! `ladder`: players in a row, each playing the next, and every player's Elo from the
//! chain of those results: the way to rate levels too far apart to play each other
//! usefully (one that wins every game says only "stronger"), with rungs between them.

use std::collections::BTreeMap;

use parlor_rules::GameKind;
use parlor_rules::GameSettings;
use parlor_rules::games::Seat;
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::Serialize;

use crate::play::{self, Budget, Error, Progress, SelfPlayArgs};
use crate::player::Player;
use crate::stats::{self, Breakdown, EloEstimate, Interval, Score, Tally, elo_estimate};

/// Options of `ladder`.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct Args {
    /// The game: tictactoe, checkers, chess or fox_geese
    #[arg(long)]
    pub(crate) game: String,
    /// The players, in the order they are chained: each plays the next. A level
    /// (random, easy, medium, hard, at the run's budgets) or `nodes:N` (hard's search
    /// stopped after N positions a move, no time limit)
    #[arg(long, value_delimiter = ',', required = true)]
    pub(crate) players: Vec<Player>,
    /// Games each player plays the next, colours alternating
    #[arg(long, default_value_t = 200)]
    pub(crate) games_per_link: usize,
    /// The player whose Elo is known [default: the first, at 0]
    #[arg(long, value_name = "PLAYER")]
    pub(crate) anchor: Option<Player>,
    /// The anchor's Elo
    #[arg(
        long,
        value_name = "ELO",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    pub(crate) anchor_elo: f64,
    /// The 95% half-width of the anchor's own Elo, added to every other player's interval
    #[arg(long, value_name = "ELO", default_value_t = 0.0)]
    pub(crate) anchor_margin: f64,
    #[command(flatten)]
    pub(crate) play: SelfPlayArgs,
}

/// One game of one link: the link's number (its lower player's place in the row) and the
/// game's number within it.
#[derive(Clone, Copy, Debug)]
struct Task {
    link: usize,
    number: usize,
}

/// One game played.
#[derive(Clone, Debug, Serialize)]
struct GameRecord {
    link: usize,
    lower: Player,
    upper: Player,
    number: usize,
    /// The seat the upper player (the later one in the row) had.
    upper_seat: Seat,
    opening: Vec<String>,
    /// The result for the upper player.
    result: Score,
    reason: String,
    plies: usize,
    seconds: f64,
    final_position: String,
}

/// One link's results, from its upper player's point of view.
#[derive(Clone, Debug, Serialize)]
struct LinkSummary {
    lower: Player,
    upper: Player,
    tally: Tally,
    score: f64,
    /// The 95% Wilson interval of the score (see the stats module).
    wilson95: Interval,
    /// The upper player's Elo over the lower's and its interval; `None` after a score of
    /// 0 or 1, which says only which is stronger.
    difference: Option<EloEstimate>,
    as_first: Tally,
    as_second: Tally,
    reasons: BTreeMap<String, usize>,
    mean_plies: f64,
    mean_seconds: f64,
}

/// A player's Elo from the chain between it and the anchor.
#[derive(Clone, Debug, Serialize)]
struct Rating {
    player: Player,
    /// `None` where a link between it and the anchor was won or lost in every game.
    elo: Option<EloEstimate>,
}

/// The run, as written to `--json`.
#[derive(Serialize)]
struct Report<'a> {
    command: &'static str,
    commit: Option<String>,
    game: &'static str,
    seed: u64,
    games_per_link: usize,
    opening_plies: usize,
    max_plies: usize,
    threads: usize,
    budget: Budget,
    anchor: Player,
    anchor_elo: f64,
    anchor_margin: f64,
    interval: &'static str,
    elapsed_seconds: f64,
    links: &'a [LinkSummary],
    ratings: &'a [Rating],
    games: &'a [GameRecord],
}

/// Runs `ladder`.
pub(crate) fn run(args: &Args) -> Result<(), Error> {
    let kind: GameKind = args
        .game
        .parse()
        .map_err(|_| format!("no game `{}`; use one of {}", args.game, GameKind::names()))?;
    let game = kind.as_str();
    if args.players.len() < 2 {
        return Err("a ladder needs at least two --players, separated by commas".into());
    }
    let anchor = args.anchor.unwrap_or(args.players[0]);
    let anchor_at = args
        .players
        .iter()
        .position(|&player| player == anchor)
        .ok_or_else(|| format!("the anchor {anchor} is not one of --players"))?;
    let settings = GameSettings::default();
    let budget = args.play.budget.budget();
    let threads = args.play.thread_count();
    let opening_plies = args.play.opening_plies_for(game);
    let commit = play::git_commit();
    let tasks: Vec<Task> = (0..args.players.len() - 1)
        .flat_map(|link| (0..args.games_per_link).map(move |number| Task { link, number }))
        .collect();
    println!(
        "parlor-bots ladder at commit {}: {game}, seed {}, {} games per link, \
         {opening_plies} random opening plies, {threads} thread(s)",
        commit.as_deref().unwrap_or("unknown"),
        args.play.seed,
        args.games_per_link
    );
    for player in &args.players {
        println!("  {}", player.describe(&budget));
    }
    println!(
        "anchor: {anchor} at {} ± {}; score = the later player's mean (win 1, draw ½); \
         95% CI = Wilson score interval, n = games (conservative when there are draws)\n",
        args.anchor_elo, args.anchor_margin
    );

    let mut progress = Progress::new(tasks.len());
    let records = play::run_pool(
        &tasks,
        threads,
        || Ok(()),
        |(), task| play_one(args, game, *task, opening_plies, &settings, &budget),
        |_, record: &GameRecord| {
            progress.game_done(&format!(
                "{} vs {} #{}: {:?} ({} plies, {:.1} s)",
                record.upper,
                record.lower,
                record.number,
                record.result,
                record.plies,
                record.seconds
            ));
        },
    )?;
    let elapsed = progress.elapsed();
    let links = summarize(&args.players, &records);
    let differences: Vec<Option<EloEstimate>> = links.iter().map(|l| l.difference).collect();
    let ratings: Vec<Rating> = args
        .players
        .iter()
        .enumerate()
        .map(|(at, &player)| Rating {
            player,
            elo: chain(
                &differences,
                anchor_at,
                at,
                args.anchor_elo,
                args.anchor_margin,
            ),
        })
        .collect();
    print_links(&links);
    print_ratings(&ratings);
    println!("total wall time: {elapsed:.0} s");

    if let Some(path) = &args.play.json {
        let report = Report {
            command: "ladder",
            commit,
            game,
            seed: args.play.seed,
            games_per_link: args.games_per_link,
            opening_plies,
            max_plies: args.play.max_plies,
            threads,
            budget,
            anchor,
            anchor_elo: args.anchor_elo,
            anchor_margin: args.anchor_margin,
            interval: "95% Wilson score interval on the mean score, n = games; \
                       along a chain, half-widths added in quadrature",
            elapsed_seconds: elapsed,
            links: &links,
            ratings: &ratings,
            games: &records,
        };
        play::write_json(path, &report)?;
    }
    Ok(())
}

/// Plays one game of a link. Games `2k` and `2k + 1` of a link share their opening
/// (drawn from the seed and `k`, so every link meets the same openings) and swap colours.
fn play_one(
    args: &Args,
    game: &'static str,
    task: Task,
    opening_plies: usize,
    settings: &GameSettings,
    budget: &Budget,
) -> Result<GameRecord, Error> {
    let seed = args.play.seed;
    let game_number = play::id_number(game);
    let mut opening_rng = StdRng::seed_from_u64(play::derive_seed(
        seed,
        &[game_number, 0, task.number as u64 / 2],
    ));
    let opening = play::random_opening(game, settings, opening_plies, &mut opening_rng)?;
    let mut rng = StdRng::seed_from_u64(play::derive_seed(
        seed,
        &[game_number, 3, task.link as u64, task.number as u64],
    ));
    let (lower, upper) = (args.players[task.link], args.players[task.link + 1]);
    let upper_seat = if task.number.is_multiple_of(2) {
        Seat::First
    } else {
        Seat::Second
    };
    let mut players = [lower; 2];
    players[upper_seat.index()] = upper;
    let start = play::game_after(game, settings, &opening)?;
    let finished = play::play_out(
        start,
        players,
        budget,
        opening.len(),
        args.play.max_plies,
        &mut rng,
    )?;
    Ok(GameRecord {
        link: task.link,
        lower,
        upper,
        number: task.number,
        upper_seat,
        opening,
        result: play::score_for(finished.winner, upper_seat),
        reason: finished.reason,
        plies: finished.plies,
        seconds: finished.seconds,
        final_position: finished.final_position,
    })
}

/// One summary per link, in the row's order.
fn summarize(players: &[Player], records: &[GameRecord]) -> Vec<LinkSummary> {
    players
        .windows(2)
        .enumerate()
        .map(|(link, pair)| {
            let games: Vec<&GameRecord> = records.iter().filter(|r| r.link == link).collect();
            let mut counted = Breakdown::default();
            for record in &games {
                counted.add(record.result, record.upper_seat, &record.reason);
            }
            let Breakdown {
                all: tally,
                by_seat: [as_first, as_second],
                reasons,
            } = counted;
            let count = games.len().max(1) as f64;
            let wilson95 = tally.wilson95();
            LinkSummary {
                lower: pair[0],
                upper: pair[1],
                tally,
                score: tally.score(),
                wilson95,
                difference: elo_estimate(0.0, tally.score(), wilson95),
                as_first,
                as_second,
                reasons,
                mean_plies: games.iter().map(|r| r.plies as f64).sum::<f64>() / count,
                mean_seconds: games.iter().map(|r| r.seconds).sum::<f64>() / count,
            }
        })
        .collect()
}

/// The Elo of the player at `at` in the row: the anchor's (at `anchor_at`, rated
/// `anchor_elo` within `anchor_margin`) plus the differences of the links between them,
/// each side of the interval the root of the sum of the squares of the links' half-widths
/// on that side and the anchor's margin. `None` where a link between them has no finite
/// difference.
fn chain(
    differences: &[Option<EloEstimate>],
    anchor_at: usize,
    at: usize,
    anchor_elo: f64,
    anchor_margin: f64,
) -> Option<EloEstimate> {
    let mut elo = anchor_elo;
    let (mut below, mut above) = (Some(anchor_margin.powi(2)), Some(anchor_margin.powi(2)));
    let add = |sum: Option<f64>, width: Option<f64>| Some(sum? + width?.powi(2));
    for link in at.min(anchor_at)..at.max(anchor_at) {
        let difference = differences.get(link).copied().flatten()?;
        let down = difference.low.map(|low| difference.elo - low);
        let up = difference.high.map(|high| high - difference.elo);
        if at > anchor_at {
            elo += difference.elo;
            below = add(below, down);
            above = add(above, up);
        } else {
            // Walking down the row, a link's upper uncertainty lowers this player.
            elo -= difference.elo;
            below = add(below, up);
            above = add(above, down);
        }
    }
    Some(EloEstimate {
        elo,
        low: below.map(|sum| elo - sum.sqrt()),
        high: above.map(|sum| elo + sum.sqrt()),
    })
}

/// `1234` for a bound, `unbounded` for none.
fn bound(value: Option<f64>) -> String {
    value.map_or_else(|| "unbounded".to_owned(), |v| format!("{v:.0}"))
}

/// Prints every link's results.
fn print_links(links: &[LinkSummary]) {
    println!(
        "\n{:<26} {:>4} {:>4} {:>4} {:>6}  {:<15} {:<24} {:>10} {:>10} {:>6} {:>7}",
        "later vs earlier",
        "W",
        "D",
        "L",
        "score",
        "95% CI (Wilson)",
        "Elo difference [95%]",
        "as 1st",
        "as 2nd",
        "plies",
        "s/game"
    );
    for link in links {
        let difference = link.difference.map_or_else(
            || "none (a clean sweep)".to_owned(),
            |d| format!("{:+.0} [{}, {}]", d.elo, bound(d.low), bound(d.high)),
        );
        println!(
            "{:<26} {:>4} {:>4} {:>4} {:>6.3}  {:<15} {:<24} {:>10} {:>10} {:>6.1} {:>7.2}",
            format!("{} vs {}", link.upper, link.lower),
            link.tally.wins,
            link.tally.draws,
            link.tally.losses,
            link.score,
            format!("[{:.3}, {:.3}]", link.wilson95.low, link.wilson95.high),
            difference,
            link.as_first.wdl(),
            link.as_second.wdl(),
            link.mean_plies,
            link.mean_seconds
        );
    }
    println!(
        "endings: {}",
        stats::endings(links.iter().map(|link| &link.reasons))
    );
}

/// Prints every player's Elo.
fn print_ratings(ratings: &[Rating]) {
    println!("\n{:<14} {:>6}  95% interval", "player", "Elo");
    for rating in ratings {
        match rating.elo {
            Some(elo) => println!(
                "{:<14} {:>6.0}  [{}, {}]",
                rating.player.to_string(),
                elo.elo,
                bound(elo.low),
                bound(elo.high)
            ),
            None => println!(
                "{:<14} {:>6}  (a link to the anchor was a clean sweep)",
                rating.player.to_string(),
                "-"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(elo: f64, down: f64, up: f64) -> Option<EloEstimate> {
        Some(EloEstimate {
            elo,
            low: Some(elo - down),
            high: Some(elo + up),
        })
    }

    #[test]
    fn a_chain_adds_differences_and_half_widths_in_quadrature() {
        // Three players, each 100 above the last; the anchor is the middle one at 1000 ± 40.
        let links = [link(100.0, 30.0, 50.0), link(100.0, 30.0, 40.0)];
        let top = chain(&links, 1, 2, 1000.0, 40.0).unwrap();
        assert_eq!(top.elo, 1100.0);
        assert_eq!(top.low, Some(1100.0 - 50.0)); // sqrt(40² + 30²)
        assert_eq!(top.high, Some(1100.0 + 40f64.hypot(40.0)));
        // Walking down, the link's upper half-width widens the lower side.
        let bottom = chain(&links, 1, 0, 1000.0, 40.0).unwrap();
        assert_eq!(bottom.elo, 900.0);
        assert_eq!(bottom.low, Some(900.0 - 40f64.hypot(50.0)));
        assert_eq!(bottom.high, Some(900.0 + 50.0));
        let anchor = chain(&links, 1, 1, 1000.0, 0.0).unwrap();
        assert_eq!(
            (anchor.elo, anchor.low, anchor.high),
            (1000.0, Some(1000.0), Some(1000.0))
        );
    }

    #[test]
    fn a_clean_sweep_breaks_the_chain_beyond_it() {
        let links = [link(100.0, 30.0, 30.0), None];
        assert!(chain(&links, 0, 1, 0.0, 0.0).is_some());
        assert!(chain(&links, 0, 2, 0.0, 0.0).is_none());
        assert!(chain(&links, 2, 0, 0.0, 0.0).is_none());
    }
}
