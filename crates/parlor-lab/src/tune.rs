//! `tune`: fits the chess evaluation's weights to positions labelled by Stockfish.
//!
//! Positions come from games `bot:hard` plays against itself on a small node budget
//! from random openings; the quiet ones (not in check, and every capture or promotion
//! loses material) are labelled with Stockfish's value at a fixed node count and kept
//! in a file, so a later fit can reuse them. The fit minimises the squared difference between the
//! expected scores the two values imply (a logistic curve of the value), over every
//! weight at once, by gradient descent (Adam), pulled gently towards the weights the
//! evaluation has now. One position in ten is held out to check that the fit
//! generalises. The fitted weights can be written as the evaluation's `weights.rs`.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use parlor_rules::GameSettings;
use parlor_rules::bots::chess_tuning::{
    COUNT, FULL_PHASE, SECTIONS, TEMPO, Tally, WEIGHTS, Weight, features,
};
use parlor_rules::bots::{BotLevel, Evaluate, Limits, Memory};
use parlor_rules::games::Game;
use parlor_rules::games::chess::Chess;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::engine::{Engine, Strength, Think};
use crate::play::{self, Error, Progress};

/// Options of `tune`.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct Args {
    /// The labelled positions (`FEN;centipawns for the side to move` per line): read if
    /// the file exists, otherwise collected and written there first
    #[arg(long, value_name = "PATH")]
    data: PathBuf,
    /// Games to collect positions from
    #[arg(long, default_value_t = 4000)]
    games: usize,
    /// Nodes per move of the bot:hard that plays those games against itself
    #[arg(long, value_name = "N", default_value_t = 2000)]
    bot_nodes: u64,
    /// Random plies before the bots take over, drawn between 2 and this many
    #[arg(long, value_name = "N", default_value_t = 10)]
    opening_plies: usize,
    /// Keep one position in this many plies (positions next to each other are alike)
    #[arg(long, value_name = "N", default_value_t = 3)]
    sample_every: usize,
    /// Stockfish's nodes per labelled position (`go nodes K`), at full strength
    #[arg(long, value_name = "K", default_value_t = 20_000)]
    sf_nodes: u64,
    /// The engine's executable (see `stockfish --engine`)
    #[arg(long, default_value = "stockfish")]
    engine: PathBuf,
    /// Threads collecting positions, each with its own engine [default: all cores but one]
    #[arg(long)]
    threads: Option<usize>,
    /// The seed the openings and the bots' tie-breaking are derived from
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Steps of gradient descent
    #[arg(long, default_value_t = 3000)]
    steps: usize,
    /// Adam's step size, in centipawns
    #[arg(long, default_value_t = 1.0)]
    rate: f64,
    /// How strongly each weight is pulled towards its present value (L2, per weight)
    #[arg(long, default_value_t = 3e-9)]
    pull: f64,
    /// Write the fitted weights here as Rust (the evaluation's `weights.rs`)
    #[arg(long, value_name = "PATH")]
    write: Option<PathBuf>,
}

/// Centipawns at which the expected score is 1/(1 + 10^-1), as in Elo.
const SCALE: f64 = 400.0;

/// Labels beyond this are clamped: the curve is flat there anyway.
const MAX_LABEL: i32 = 2000;

/// A labelled position.
struct Labelled {
    fen: String,
    /// Stockfish's value for the side to move, in centipawns.
    value: i32,
}

/// A position reduced to what the fit needs.
struct Sample {
    /// `(term, count)` from White's side, one entry per term.
    counts: Vec<(usize, i32)>,
    /// The unweighted part (kings' danger), middlegame and endgame.
    fixed: [f64; 2],
    /// The game phase as the middlegame's share, 0 to 1.
    mg_share: f64,
    /// The tempo bonus from White's side.
    tempo: f64,
    /// The label from White's side, as an expected score.
    target: f64,
}

/// Collects a position's features as counts per term.
#[derive(Default)]
struct Counts {
    counts: Vec<(usize, i32)>,
    fixed: [i32; 2],
}

impl Tally for Counts {
    fn add(&mut self, term: usize, count: i32) {
        match self.counts.iter_mut().find(|(seen, _)| *seen == term) {
            Some((_, total)) => *total += count,
            None => self.counts.push((term, count)),
        }
    }

    fn fixed(&mut self, mg: i32, eg: i32) {
        self.fixed[0] += mg;
        self.fixed[1] += eg;
    }
}

/// Runs `tune`.
pub(crate) fn run(args: &Args) -> Result<(), Error> {
    if !args.data.exists() {
        collect(args)?;
    }
    let positions = read(&args.data)?;
    let samples: Vec<Sample> = positions.iter().map(sample).collect::<Result<_, Error>>()?;
    let (train, test): (Vec<_>, Vec<_>) = samples
        .into_iter()
        .enumerate()
        .partition(|(index, _)| index % 10 != 0);
    let train: Vec<Sample> = train.into_iter().map(|(_, sample)| sample).collect();
    let test: Vec<Sample> = test.into_iter().map(|(_, sample)| sample).collect();
    let start: Vec<[f64; 2]> = WEIGHTS
        .iter()
        .map(|&[mg, eg]| [f64::from(mg), f64::from(eg)])
        .collect();
    println!(
        "parlor-bots tune: {} positions from {} ({} to fit, {} held out), {COUNT} weights",
        positions.len(),
        args.data.display(),
        train.len(),
        test.len()
    );
    println!(
        "present weights: error {:.6} on the fitted positions, {:.6} held out",
        error(&train, &start),
        error(&test, &start)
    );
    let fitted = fit(&train, &start, args);
    let rounded: Vec<[f64; 2]> = fitted
        .iter()
        .map(|&[mg, eg]| [mg.round(), eg.round()])
        .collect();
    println!(
        "fitted weights:  error {:.6} on the fitted positions, {:.6} held out",
        error(&train, &rounded),
        error(&test, &rounded)
    );
    report(&rounded);
    if let Some(path) = &args.write {
        fs::write(path, rust_source(&rounded))
            .map_err(|error| format!("could not write {}: {error}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// Plays the games, labels their quiet positions and writes them to `args.data`.
fn collect(args: &Args) -> Result<(), Error> {
    let threads = args.threads.unwrap_or_else(play::default_threads).max(1);
    let timeout = Duration::from_secs(60);
    println!(
        "collecting positions from {} games of bot:hard at {} nodes a move, labelled by \
         Stockfish at {} nodes, {threads} thread(s), into {}",
        args.games,
        args.bot_nodes,
        args.sf_nodes,
        args.data.display()
    );
    let numbers: Vec<usize> = (0..args.games).collect();
    let mut progress = Progress::new(numbers.len());
    let games = play::run_pool(
        &numbers,
        threads,
        || Engine::start(&args.engine, Strength::Skill(20), timeout),
        |engine, &number| positions_of_game(engine, number, args),
        |_, found: &Vec<Labelled>| progress.game_done(&format!("{} positions", found.len())),
    )?;
    let mut file = fs::File::create(&args.data)
        .map_err(|error| format!("could not create {}: {error}", args.data.display()))?;
    let mut seen = std::collections::HashSet::new();
    for position in games.iter().flatten() {
        if seen.insert(position.fen.as_str()) {
            writeln!(file, "{};{}", position.fen, position.value)?;
        }
    }
    println!("{} distinct positions", seen.len());
    Ok(())
}

/// One game of `bot:hard` against itself from a random opening, and its sampled quiet
/// positions with Stockfish's values.
fn positions_of_game(
    engine: &mut Engine,
    number: usize,
    args: &Args,
) -> Result<Vec<Labelled>, Error> {
    let settings = GameSettings::default();
    let mut rng = StdRng::seed_from_u64(play::derive_seed(args.seed, &[7, number as u64]));
    let plies = rng.random_range(2..=args.opening_plies.max(2));
    let opening = play::random_opening("chess", &settings, plies, &mut rng)?;
    let mut game = play::game_after("chess", &settings, &opening)?;
    let limits = Limits {
        max_depth: 64,
        max_nodes: args.bot_nodes.max(1),
        deadline: None,
    };
    let mut memories = [Memory::default(), Memory::default()];
    let mut found = Vec::new();
    let mut ply = 0;
    while let Some(seat) = game.turn() {
        ply += 1;
        if ply % args.sample_every.max(1) == 0 {
            let fen = game.position();
            if quiet(&fen)?
                && let Some(value) = engine.evaluate(&fen, Think::Nodes(args.sf_nodes))?
            {
                found.push(Labelled { fen, value });
            }
        }
        let mv = game
            .bot_move(
                BotLevel::Hard,
                &limits,
                &mut memories[seat.index()],
                &mut rng,
            )
            .ok_or("the bot found no move in an unfinished game")?;
        game.play(&mv)?;
    }
    Ok(found)
}

/// Whether the position `fen` is quiet: the side to move is not in check and has no
/// capture or promotion that does not lose material.
fn quiet(fen: &str) -> Result<bool, Error> {
    let game = Chess::from_position(&(), fen)?;
    Ok(!game.in_check()
        && game
            .legal_moves()
            .iter()
            .all(|mv| !game.is_noisy(mv) || game.loses_exchange(mv)))
}

/// Reads labelled positions.
fn read(path: &Path) -> Result<Vec<Labelled>, Error> {
    let file = fs::File::open(path)
        .map_err(|error| format!("could not open {}: {error}", path.display()))?;
    let mut positions = Vec::new();
    for (number, line) in BufReader::new(file).lines().enumerate() {
        let line = line?;
        let parsed = line
            .rsplit_once(';')
            .and_then(|(fen, value)| Some((fen, value.trim().parse::<i32>().ok()?)));
        let Some((fen, value)) = parsed else {
            return Err(format!(
                "{}:{}: expected `FEN;centipawns`",
                path.display(),
                number + 1
            )
            .into());
        };
        positions.push(Labelled {
            fen: fen.to_owned(),
            value,
        });
    }
    Ok(positions)
}

/// The expected score of a value in centipawns.
fn expected(value: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-value / SCALE))
}

/// A labelled position's features.
fn sample(position: &Labelled) -> Result<Sample, Error> {
    let game = Chess::from_position(&(), &position.fen)?;
    let chess = game.chess_position();
    let mut counts = Counts::default();
    let phase = features(chess, &mut counts);
    let white = game.turn() == Some(parlor_rules::games::Seat::First);
    let sign = if white { 1.0 } else { -1.0 };
    let label = f64::from(position.value.clamp(-MAX_LABEL, MAX_LABEL));
    counts.counts.retain(|&(_, count)| count != 0);
    Ok(Sample {
        counts: counts.counts,
        fixed: [f64::from(counts.fixed[0]), f64::from(counts.fixed[1])],
        mg_share: f64::from(phase.clamp(0, FULL_PHASE)) / f64::from(FULL_PHASE),
        tempo: sign * f64::from(TEMPO),
        target: expected(sign * label),
    })
}

/// The evaluation of `sample` under `weights`, from White's side.
fn value(sample: &Sample, weights: &[[f64; 2]]) -> f64 {
    let (mut mg, mut eg) = (sample.fixed[0], sample.fixed[1]);
    for &(term, count) in &sample.counts {
        mg += weights[term][0] * f64::from(count);
        eg += weights[term][1] * f64::from(count);
    }
    mg * sample.mg_share + eg * (1.0 - sample.mg_share) + sample.tempo
}

/// The mean squared difference of expected scores.
fn error(samples: &[Sample], weights: &[[f64; 2]]) -> f64 {
    let total: f64 = samples
        .iter()
        .map(|sample| (expected(value(sample, weights)) - sample.target).powi(2))
        .sum();
    total / samples.len().max(1) as f64
}

/// Gradient descent (Adam) on every weight from `start`.
fn fit(samples: &[Sample], start: &[[f64; 2]], args: &Args) -> Vec<[f64; 2]> {
    const BETA1: f64 = 0.9;
    const BETA2: f64 = 0.999;
    let mut weights = start.to_vec();
    let mut first = vec![[0.0; 2]; weights.len()];
    let mut second = vec![[0.0; 2]; weights.len()];
    let slope = std::f64::consts::LN_10 / SCALE;
    let n = samples.len().max(1) as f64;
    for step in 1..=args.steps {
        let mut gradient = vec![[0.0; 2]; weights.len()];
        for sample in samples {
            let predicted = expected(value(sample, &weights));
            let common =
                2.0 * (predicted - sample.target) * predicted * (1.0 - predicted) * slope / n;
            for &(term, count) in &sample.counts {
                gradient[term][0] += common * f64::from(count) * sample.mg_share;
                gradient[term][1] += common * f64::from(count) * (1.0 - sample.mg_share);
            }
        }
        for (index, weight) in weights.iter_mut().enumerate() {
            for phase in 0..2 {
                let g = gradient[index][phase]
                    + 2.0 * args.pull * (weight[phase] - start[index][phase]);
                first[index][phase] = BETA1 * first[index][phase] + (1.0 - BETA1) * g;
                second[index][phase] = BETA2 * second[index][phase] + (1.0 - BETA2) * g * g;
                let m = first[index][phase] / (1.0 - BETA1.powi(step as i32));
                let v = second[index][phase] / (1.0 - BETA2.powi(step as i32));
                weight[phase] -= args.rate * m / (v.sqrt() + 1e-12);
            }
        }
        if step % 500 == 0 || step == args.steps {
            eprintln!("step {step}: error {:.6}", error(samples, &weights));
        }
    }
    weights
}

/// Prints the fitted weights of every term but the squares, beside the present ones.
fn report(weights: &[[f64; 2]]) {
    for (index, &(first, name)) in SECTIONS.iter().enumerate() {
        if name.contains("by square") {
            continue;
        }
        let end = SECTIONS.get(index + 1).map_or(COUNT, |&(next, _)| next);
        let show = |range: &[Weight]| {
            range
                .iter()
                .map(|[mg, eg]| format!("[{mg}, {eg}]"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let fitted: Vec<Weight> = weights[first..end]
            .iter()
            .map(|&[mg, eg]| [mg as i32, eg as i32])
            .collect();
        println!(
            "{name}: {} -> {}",
            show(&WEIGHTS[first..end]),
            show(&fitted)
        );
    }
}

/// The weights as the evaluation's `weights.rs`.
fn rust_source(weights: &[[f64; 2]]) -> String {
    let mut out = String::from(
        "//! The chess evaluation's weights: one `[middlegame, endgame]` pair in centipawns per\n\
         //! term, in the order of `terms.rs`. Fitted by `parlor-bots tune` (docs/BOTS.md),\n\
         //! which writes this file.\n\n\
         use super::terms::{COUNT, Weight};\n\n\
         /// Every term's weight.\n\
         #[rustfmt::skip]\n\
         pub const WEIGHTS: [Weight; COUNT] = [\n",
    );
    for (index, &(first, name)) in SECTIONS.iter().enumerate() {
        let end = SECTIONS.get(index + 1).map_or(COUNT, |&(next, _)| next);
        out.push_str(&format!("    // {name}\n"));
        for row in weights[first..end].chunks(8) {
            let cells: Vec<String> = row
                .iter()
                .map(|&[mg, eg]| format!("[{}, {}],", mg as i32, eg as i32))
                .collect();
            out.push_str(&format!("    {}\n", cells.join(" ")));
        }
    }
    out.push_str("];\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fitted_model_is_the_evaluation_itself() {
        let weights: Vec<[f64; 2]> = WEIGHTS
            .iter()
            .map(|&[mg, eg]| [f64::from(mg), f64::from(eg)])
            .collect();
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 5 4",
            "6k1/5ppp/8/7Q/4N3/8/5PPP/6K1 b - - 0 1",
            "8/5pk1/6p1/3R4/7P/6P1/r4PK1/8 w - - 0 40",
        ] {
            let game = Chess::from_position(&(), fen).unwrap();
            let labelled = Labelled {
                fen: fen.to_owned(),
                value: 0,
            };
            let white = value(&sample(&labelled).unwrap(), &weights);
            let to_move = if game.turn() == Some(parlor_rules::games::Seat::First) {
                white
            } else {
                -white
            };
            let evaluation = f64::from(game.evaluate());
            assert!(
                (to_move - evaluation).abs() <= 1.0,
                "{fen}: the fit sees {to_move}, the evaluation {evaluation}"
            );
        }
    }

    #[test]
    fn a_quiet_position_has_no_winning_capture_and_no_check() {
        assert!(quiet("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").unwrap());
        // White's pawn takes a free knight.
        assert!(!quiet("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1").unwrap());
        // A rook that takes a defended pawn loses the exchange: still quiet.
        assert!(quiet("4k3/2p5/3p4/8/8/8/8/3RK3 w - - 0 1").unwrap());
        assert!(!quiet("4k3/8/8/8/8/8/8/4K2r w - - 0 1").unwrap());
    }
}
