//! `stockfish`: a bot level at chess against Stockfish over UCI, or (`--anchor-nodes`)
//! a node-limited Stockfish against a strength-limited one, to anchor the levels below
//! Stockfish's `UCI_Elo` floor.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use parlor_rules::GameSettings;
use parlor_rules::bots::{BotLevel, Memory};
use parlor_rules::games::Seat;
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::Serialize;

use crate::engine::{Engine, Strength, Think};
use crate::play::{self, Budget, BudgetArgs, Error, Progress};
use crate::stats::{self, Breakdown, EloEstimate, Interval, Score, Tally, elo_estimate};

/// Options of `stockfish`.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct Args {
    /// Games to play, colours alternating (an even number keeps colours balanced)
    #[arg(long, default_value_t = 20)]
    pub(crate) games: usize,
    /// Our bot's think time per move in ms (overrides --hard-ms / --medium-ms)
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    pub(crate) ms_per_move: u64,
    /// Stockfish's budget per move: `go nodes K`
    #[arg(long, value_name = "K", default_value_t = 1000)]
    pub(crate) sf_nodes: u64,
    /// Stockfish's `Skill Level` (0 to 20); not used with --sf-elo
    #[arg(long, default_value_t = 0)]
    pub(crate) skill: u8,
    /// Stockfish limited to this Elo (`UCI_LimitStrength`, `UCI_Elo`; 1350 to 2850 in
    /// Stockfish 15.1) instead of a skill level; the report then gives our bot's Elo
    /// with its 95% interval
    #[arg(long, value_name = "ELO")]
    pub(crate) sf_elo: Option<u32>,
    /// Stockfish thinks this long per move (`go movetime`) instead of --sf-nodes nodes
    #[arg(long, value_name = "MS")]
    pub(crate) sf_ms: Option<u64>,
    /// The level playing Stockfish
    #[arg(long, default_value = "hard")]
    pub(crate) level: BotLevel,
    /// Play Stockfish itself at full strength, thinking this many nodes a move (`go
    /// nodes`), instead of a Parlor bot: an anchor below Stockfish's UCI_Elo floor,
    /// measured against `--sf-elo 1350`, for the levels too weak to measure there
    #[arg(long, value_name = "N")]
    pub(crate) anchor_nodes: Option<u64>,
    /// The engine's Elo when it is not limited by `--sf-elo` but was measured earlier
    /// (an anchor: Stockfish at a node budget, or `parlor-bots uci` as `--engine`): the
    /// report then gives the level's Elo
    #[arg(long, value_name = "ELO", conflicts_with = "sf_elo")]
    pub(crate) engine_elo: Option<u32>,
    /// The 95% half-width of `--engine-elo`'s own measurement, combined with this
    /// run's interval in quadrature, so that a chain of links reports its whole
    /// uncertainty
    #[arg(
        long,
        value_name = "ELO",
        requires = "engine_elo",
        default_value_t = 0.0
    )]
    pub(crate) engine_elo_margin: f64,
    /// The engine's executable: a path, or a name looked up on PATH and then in
    /// /usr/games (where Debian installs stockfish)
    #[arg(long, default_value = "stockfish")]
    pub(crate) engine: PathBuf,
    /// The seed the openings and our bot's tie-breaking are derived from
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Random plies before the players take over
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub(crate) opening_plies: usize,
    /// Threads, each with its own engine process [default: all cores but one]
    #[arg(long)]
    pub(crate) threads: Option<usize>,
    /// Seconds to wait for any one answer from the engine before giving up
    #[arg(long, value_name = "S", default_value_t = 60)]
    pub(crate) engine_timeout: u64,
    /// Also write the results as JSON to this file
    #[arg(long, value_name = "PATH")]
    pub(crate) json: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) budget: BudgetArgs,
}

impl Args {
    fn strength(&self) -> Strength {
        self.sf_elo
            .map_or(Strength::Skill(self.skill), Strength::Elo)
    }

    fn think(&self) -> Think {
        self.sf_ms
            .map_or(Think::Nodes(self.sf_nodes), Think::Movetime)
    }

    /// The opponent's Elo, limited or measured, if known.
    fn opponent_elo(&self) -> Option<u32> {
        self.sf_elo.or(self.engine_elo)
    }

    /// Our side, in words.
    fn our_side(&self) -> String {
        match self.anchor_nodes {
            Some(nodes) => format!("Stockfish (Skill Level 20, go nodes {nodes})"),
            None => format!("bot:{}", self.level),
        }
    }

    /// Our side and its budget, in words.
    fn our_setting(&self, budget: &Budget) -> String {
        match self.anchor_nodes {
            Some(_) => self.our_side(),
            None => format!(
                "{} ({})",
                self.our_side(),
                budget.describe_level(self.level)
            ),
        }
    }

    /// The engine's setting, in words.
    fn engine_setting(&self) -> String {
        let strength = match self.strength() {
            Strength::Skill(skill) => format!("Skill Level {skill}"),
            Strength::Elo(elo) => format!("UCI_Elo {elo}"),
        };
        format!("{strength}, {}", self.think().go())
    }
}

/// One game against the engine.
#[derive(Clone, Debug, Serialize)]
struct GameRecord {
    number: usize,
    /// The seat our bot played (0 is White).
    our_seat: Seat,
    opening: Vec<String>,
    /// The result for our bot.
    result: Score,
    reason: String,
    plies: usize,
    seconds: f64,
    /// The final position (FEN).
    final_position: String,
    moves: Vec<String>,
}

/// The run, as written to `--json`.
#[derive(Serialize)]
struct Report<'a> {
    command: &'static str,
    commit: Option<String>,
    engine: String,
    skill: u8,
    sf_nodes: u64,
    sf_elo: Option<u32>,
    /// The engine's measured Elo, when it is an anchor rather than limited.
    engine_elo: Option<u32>,
    /// The 95% half-width of `engine_elo`, included in `elo`'s interval.
    engine_elo_margin: f64,
    sf_ms: Option<u64>,
    level: BotLevel,
    /// Stockfish's nodes a move when it played our side instead of `level`.
    anchor_nodes: Option<u64>,
    ms_per_move: u64,
    budget: Budget,
    seed: u64,
    opening_plies: usize,
    threads: usize,
    tally: Tally,
    score: f64,
    wilson95: Interval,
    normal95: Interval,
    /// Our side's Elo, against an engine limited to `sf_elo` or measured at `engine_elo`.
    elo: Option<EloEstimate>,
    as_white: Tally,
    as_black: Tally,
    reasons: BTreeMap<String, usize>,
    elapsed_seconds: f64,
    games: &'a [GameRecord],
}

/// Runs `stockfish`.
pub(crate) fn run(args: &Args) -> Result<(), Error> {
    let settings = GameSettings::default();
    let mut budget = args.budget.budget();
    match args.level {
        BotLevel::Hard => budget.hard.think_ms = args.ms_per_move,
        BotLevel::Medium => budget.medium.think_ms = args.ms_per_move,
        BotLevel::Random | BotLevel::Easy => {}
    }
    let threads = args.threads.unwrap_or_else(play::default_threads).max(1);
    let timeout = Duration::from_secs(args.engine_timeout.max(1));
    let commit = play::git_commit();
    // Start one engine up front to fail early and to learn its name.
    let name = Engine::start(&args.engine, args.strength(), timeout)?
        .name
        .clone();
    println!(
        "parlor-bots stockfish at commit {}: {} vs {name} \
         ({}), {} games, seed {}, {threads} thread(s)",
        commit.as_deref().unwrap_or("unknown"),
        args.our_setting(&budget),
        args.engine_setting(),
        args.games,
        args.seed
    );
    let numbers: Vec<usize> = (0..args.games).collect();
    let mut progress = Progress::new(numbers.len());
    let records = play::run_pool(
        &numbers,
        threads,
        || {
            let engine = Engine::start(&args.engine, args.strength(), timeout)?;
            let anchor = args
                .anchor_nodes
                .map(|_| Engine::start(&args.engine, Strength::Skill(20), timeout))
                .transpose()?;
            Ok((engine, anchor))
        },
        |(engine, anchor), &number| {
            play_one(engine, anchor.as_mut(), number, args, &settings, &budget)
        },
        |_, record: &GameRecord| {
            progress.game_done(&format!(
                "#{} as {}: {:?} by {} ({} plies, {:.0} s)",
                record.number,
                if record.our_seat == Seat::First {
                    "White"
                } else {
                    "Black"
                },
                record.result,
                record.reason,
                record.plies,
                record.seconds
            ));
        },
    )?;
    let elapsed = progress.elapsed();

    let mut counted = Breakdown::default();
    for record in &records {
        counted.add(record.result, record.our_seat, &record.reason);
    }
    let Breakdown {
        all: tally,
        by_seat: [as_white, as_black],
        reasons,
    } = counted;
    let wilson95 = tally.wilson95();
    println!(
        "\n{} vs {name} ({}): W {} D {} L {}, score {:.3}, \
         95% CI (Wilson) [{:.3}, {:.3}]; as White {}, as Black {}",
        args.our_side(),
        args.engine_setting(),
        tally.wins,
        tally.draws,
        tally.losses,
        tally.score(),
        wilson95.low,
        wilson95.high,
        as_white.wdl(),
        as_black.wdl()
    );
    println!("endings: {}", stats::endings([&reasons]));
    let elo = args
        .opponent_elo()
        .and_then(|sf| elo_estimate(f64::from(sf), tally.score(), wilson95))
        .map(|estimate| estimate.with_opponent_margin(args.engine_elo_margin));
    if let Some(estimate) = elo {
        let bound = |bound: Option<f64>| {
            bound.map_or_else(|| "unbounded".to_owned(), |b| format!("{b:.0}"))
        };
        println!(
            "{}'s Elo against an engine of {} ± {:.0}: {:.0}, 95% interval [{}, {}]",
            args.our_side(),
            args.opponent_elo().unwrap_or_default(),
            args.engine_elo_margin,
            estimate.elo,
            bound(estimate.low),
            bound(estimate.high)
        );
    }
    println!("total wall time: {elapsed:.0} s");

    if let Some(path) = &args.json {
        let report = Report {
            command: "stockfish",
            commit,
            engine: name,
            skill: args.skill,
            sf_nodes: args.sf_nodes,
            sf_elo: args.sf_elo,
            engine_elo: args.engine_elo,
            engine_elo_margin: args.engine_elo_margin,
            sf_ms: args.sf_ms,
            level: args.level,
            anchor_nodes: args.anchor_nodes,
            ms_per_move: args.ms_per_move,
            budget,
            seed: args.seed,
            opening_plies: args.opening_plies,
            threads,
            tally,
            score: tally.score(),
            wilson95,
            normal95: tally.normal95(),
            elo,
            as_white,
            as_black,
            reasons,
            elapsed_seconds: elapsed,
            games: &records,
        };
        play::write_json(path, &report)?;
    }
    Ok(())
}

/// Plays game `number`: games `2k` and `2k + 1` share an opening and swap colours. Our
/// side is the bot, or `anchor` when there is one (`--anchor-nodes`).
fn play_one(
    engine: &mut Engine,
    mut anchor: Option<&mut Engine>,
    number: usize,
    args: &Args,
    settings: &GameSettings,
    budget: &Budget,
) -> Result<GameRecord, Error> {
    let game_number = play::id_number("chess");
    let mut opening_rng = StdRng::seed_from_u64(play::derive_seed(
        args.seed,
        &[game_number, 2, number as u64 / 2],
    ));
    let opening = play::random_opening("chess", settings, args.opening_plies, &mut opening_rng)?;
    let mut rng = StdRng::seed_from_u64(play::derive_seed(
        args.seed,
        &[game_number, 3, number as u64],
    ));
    let our_seat = if number.is_multiple_of(2) {
        Seat::First
    } else {
        Seat::Second
    };
    let start = Instant::now();
    let mut game = play::new_game("chess", settings)?;
    let fen = game.position();
    let mut moves = Vec::new();
    for mv in &opening {
        moves.push(game.play(mv)?.notation);
    }
    engine.new_game()?;
    if let Some(anchor) = anchor.as_deref_mut() {
        anchor.new_game()?;
    }
    let mut memory = Memory::default();
    while let Some(seat) = game.turn() {
        let mv = if seat != our_seat {
            engine.best_move(&fen, &moves, args.think())?
        } else if let (Some(anchor), Some(nodes)) = (anchor.as_deref_mut(), args.anchor_nodes) {
            anchor.best_move(&fen, &moves, Think::Nodes(nodes))?
        } else {
            let limits = budget.limits(args.level);
            game.bot_move(args.level, &limits, &mut memory, &mut rng)
                .ok_or("our bot found no move in an unfinished game")?
        };
        let played = game
            .play(&mv)
            .map_err(|error| format!("illegal move `{mv}` after {moves:?}: {error}"))?;
        moves.push(played.notation);
    }
    let outcome = game
        .outcome()
        .ok_or("the game has no turn but no outcome")?;
    Ok(GameRecord {
        number,
        our_seat,
        opening,
        result: play::score_for(outcome.winner, our_seat),
        reason: outcome.reason.to_string(),
        plies: moves.len(),
        seconds: start.elapsed().as_secs_f64(),
        final_position: game.position(),
        moves,
    })
}
