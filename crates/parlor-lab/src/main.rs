//! `parlor-bots`: measures how strong Parlor's bots are.
//!
//! * `round-robin`: the levels against each other in every game, with confidence
//!   intervals on the stronger level's score;
//! * `ladder`: players in a row, each against the next, and each one's Elo from the
//!   chain (levels too far apart to compare directly, with rungs between them);
//! * `stockfish`: `bot:hard` at chess against Stockfish over UCI;
//! * `speed`: the search's nodes per second on fixed positions;
//! * `uci`: a bot level as a UCI engine, for other tools (and other builds) to play;
//! * `lengths`: how long games last when a level plays itself (the measure behind each
//!   game's `scoring.par`);
//! * `tune`: fits the chess evaluation's weights to positions labelled by Stockfish.
//!
//! See `docs/BOTS.md` for what was measured and how.

mod engine;
mod ladder;
mod lengths;
mod play;
mod player;
mod round_robin;
mod speed;
mod stats;
mod stockfish;
mod tune;
mod uci;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Measures the strength and speed of Parlor's bots.
#[derive(Parser, Debug)]
#[command(name = "parlor-bots", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Every pair of neighbouring levels plays N games in each game, colours alternating
    RoundRobin(round_robin::Args),
    /// Players in a row, each against the next, and every player's Elo from the chain
    Ladder(ladder::Args),
    /// A bot level against Stockfish at chess, over UCI
    Stockfish(stockfish::Args),
    /// Nodes per second of the search on a few fixed positions per game, one thread
    Speed(speed::Args),
    /// How long games last when one level plays itself, and the par each game suggests
    Lengths(lengths::Args),
    /// A bot level at chess as a UCI engine on standard input and output
    Uci(uci::Args),
    /// Fits the chess evaluation's weights to positions labelled by Stockfish
    Tune(tune::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::RoundRobin(args) => round_robin::run(args),
        Command::Ladder(args) => ladder::run(args),
        Command::Stockfish(args) => stockfish::run(args),
        Command::Speed(args) => speed::run(args),
        Command::Lengths(args) => lengths::run(args),
        Command::Uci(args) => uci::run(args),
        Command::Tune(args) => tune::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("parlor-bots: {error}");
            ExitCode::FAILURE
        }
    }
}
