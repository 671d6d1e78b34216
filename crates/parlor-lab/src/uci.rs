//! `uci`: one of Parlor's chess bots as a UCI engine on standard input and output, so
//! that any UCI tool (the `stockfish` command of this benchmark, `lichess-bot`, a GUI)
//! can play it. Used to pit one build's bots against another's.
//!
//! It understands `uci`, `isready`, `ucinewgame`, `position (startpos | fen F) [moves …]`,
//! `go` with `movetime`, `nodes` or a clock (`wtime`/`btime`/`winc`/`binc`: a thirtieth
//! of the time left plus the increment), `stop` (ignored: every search answers within
//! its limit) and `quit`; other commands, `setoption` among them, are ignored.

use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::StdRng;

use parlor_rules::bots::{BotLevel, Deadline, Memory};
use parlor_rules::catalog::{self, AnyGame};
use parlor_rules::games::Seat;
use parlor_rules::{GameKind, GameSettings};

use crate::play::{BudgetArgs, Error};

/// Options of `uci`.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct Args {
    /// The level that plays
    #[arg(long, default_value = "hard")]
    pub(crate) level: BotLevel,
    /// Think time per move when `go` names none, in ms
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    pub(crate) ms_per_move: u64,
    /// The seed of the bot's choices among equal moves
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    #[command(flatten)]
    pub(crate) budget: BudgetArgs,
}

/// What one `go` asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Go {
    movetime: Option<u64>,
    nodes: Option<u64>,
    time_left: [Option<u64>; 2],
    increment: [Option<u64>; 2],
}

impl Go {
    /// Reads the words after `go`.
    fn parse(words: &[&str]) -> Go {
        let mut go = Go::default();
        for pair in words.windows(2) {
            let value = pair[1].parse::<i64>().ok().map(|v| v.max(0) as u64);
            match pair[0] {
                "movetime" => go.movetime = value,
                "nodes" => go.nodes = value,
                "wtime" => go.time_left[0] = value,
                "btime" => go.time_left[1] = value,
                "winc" => go.increment[0] = value,
                "binc" => go.increment[1] = value,
                _ => {}
            }
        }
        go
    }

    /// The think time for the side `white_to_move` says, or `default_ms`.
    fn think_ms(&self, white_to_move: bool, default_ms: u64) -> u64 {
        let side = usize::from(!white_to_move);
        match (self.movetime, self.time_left[side]) {
            (Some(ms), _) => ms,
            (None, Some(left)) => left / 30 + self.increment[side].unwrap_or(0) * 9 / 10,
            (None, None) => default_ms,
        }
        .max(1)
    }
}

/// Runs `uci` until `quit` or the end of input.
pub(crate) fn run(args: &Args) -> Result<(), Error> {
    let settings = GameSettings::default();
    let budget = args.budget.budget();
    let mut rng = StdRng::seed_from_u64(args.seed);
    let mut game = catalog::new_game(GameKind::Chess, &settings, None)?;
    let mut memory = Memory::default();
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    for line in stdin.lock().lines() {
        let line = line?;
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first().copied() {
            Some("uci") => {
                writeln!(out, "id name Parlor bot:{}", args.level)?;
                writeln!(out, "id author Parlor")?;
                writeln!(out, "uciok")?;
            }
            Some("isready") => writeln!(out, "readyok")?,
            Some("ucinewgame") => memory = Memory::default(),
            Some("position") => match position(&words[1..], &settings) {
                Ok(next) => game = next,
                Err(error) => writeln!(out, "info string position refused: {error}")?,
            },
            Some("go") => {
                let go = Go::parse(&words[1..]);
                let white = game.turn() == Some(Seat::First);
                let mut limits = budget.limits(args.level);
                let ms = go.think_ms(white, args.ms_per_move);
                limits.deadline = Some(Deadline::after(Duration::from_millis(ms), Instant::now));
                if let Some(nodes) = go.nodes {
                    limits.max_nodes = nodes.max(1);
                    limits.deadline = None;
                }
                match game.bot_move(args.level, &limits, &mut memory, &mut rng) {
                    Some(mv) => writeln!(out, "bestmove {mv}")?,
                    None => writeln!(out, "bestmove (none)")?,
                }
            }
            Some("quit") => break,
            _ => {}
        }
        out.flush()?;
    }
    Ok(())
}

/// The game `position` describes: `startpos` or `fen F…`, then optionally `moves …`.
fn position(words: &[&str], settings: &GameSettings) -> Result<Box<dyn AnyGame>, Error> {
    let moves_at = words.iter().position(|w| *w == "moves");
    let (setup, moves) = match moves_at {
        Some(at) => (&words[..at], &words[at + 1..]),
        None => (words, &[][..]),
    };
    let mut game = match setup {
        ["startpos"] => catalog::new_game(GameKind::Chess, settings, None)?,
        ["fen", fen @ ..] if !fen.is_empty() => {
            catalog::new_game(GameKind::Chess, settings, Some(&fen.join(" ")))?
        }
        _ => return Err("expected `startpos` or `fen <FEN>`".into()),
    };
    for mv in moves {
        game.play(mv)?;
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_reads_movetime_nodes_and_clocks() {
        let go = Go::parse(&["movetime", "250"]);
        assert_eq!(go.think_ms(true, 1000), 250);
        let go = Go::parse(&["nodes", "5000"]);
        assert_eq!(go.nodes, Some(5000));
        assert_eq!(go.think_ms(false, 700), 700);
        let go = Go::parse(&["wtime", "60000", "btime", "30000", "winc", "1000"]);
        assert_eq!(go.think_ms(true, 1), 2000 + 900);
        assert_eq!(go.think_ms(false, 1), 1000);
    }

    #[test]
    fn positions_are_read_from_the_start_or_a_fen() {
        let settings = GameSettings::default();
        let game = position(&["startpos", "moves", "e2e4", "e7e5"], &settings).unwrap();
        assert!(game.position().starts_with("rnbqkbnr/pppp1ppp/8/4p3/4P3/"));
        let fen = ["fen", "4k3/8/8/8/8/8/8/4K2R", "w", "K", "-", "0", "1"];
        let game = position(&fen, &settings).unwrap();
        assert!(game.position().starts_with("4k3/8/8/8/8/8/8/4K2R w K"));
        assert!(position(&["nonsense"], &settings).is_err());
        assert!(position(&["startpos", "moves", "e2e5"], &settings).is_err());
    }
}
