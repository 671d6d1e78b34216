//! A UCI engine (Stockfish) in a child process: its moves, and its evaluation of a
//! position.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::play::Error;

/// A UCI engine in a child process. Its output is read on a thread of its own, so that
/// every wait can time out.
pub(crate) struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    timeout: Duration,
    /// The name the engine gave in `id name`.
    pub(crate) name: String,
}

/// How strong the engine plays.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Strength {
    /// At this `Skill Level`.
    Skill(u8),
    /// Limited to this Elo.
    Elo(u32),
}

/// How long the engine thinks about a move.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Think {
    /// This many nodes.
    Nodes(u64),
    /// This many milliseconds.
    Movetime(u64),
}

impl Think {
    /// The `go` command that thinks this long.
    pub(crate) fn go(self) -> String {
        match self {
            Think::Nodes(nodes) => format!("go nodes {nodes}"),
            Think::Movetime(ms) => format!("go movetime {ms}"),
        }
    }
}

impl Engine {
    /// Starts `path`, completes the UCI handshake and sets one thread, a small hash and
    /// `strength`.
    pub(crate) fn start(
        path: &Path,
        strength: Strength,
        timeout: Duration,
    ) -> Result<Engine, Error> {
        let path = resolve(path);
        let mut child = Command::new(&path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| {
                format!(
                    "could not start `{}` ({error}); on Debian: apt-get install stockfish",
                    path.display()
                )
            })?;
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(stdin), Some(stdout)) => (stdin, stdout),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("the engine's pipes could not be opened".into());
            }
        };
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut engine = Engine {
            child,
            stdin,
            lines,
            timeout,
            name: String::new(),
        };
        engine.send("uci")?;
        let mut name = String::from("unknown engine");
        engine.wait_for(|line| {
            if let Some(id) = line.strip_prefix("id name ") {
                name = id.trim().to_owned();
            }
            line == "uciok"
        })?;
        engine.name = name;
        engine.send("setoption name Threads value 1")?;
        engine.send("setoption name Hash value 16")?;
        match strength {
            Strength::Skill(skill) => {
                engine.send(&format!("setoption name Skill Level value {skill}"))?;
            }
            Strength::Elo(elo) => {
                engine.send("setoption name UCI_LimitStrength value true")?;
                engine.send(&format!("setoption name UCI_Elo value {elo}"))?;
            }
        }
        engine.ready()?;
        Ok(engine)
    }

    fn send(&mut self, command: &str) -> Result<(), Error> {
        writeln!(self.stdin, "{command}")
            .and_then(|()| self.stdin.flush())
            .map_err(|error| format!("could not write to the engine: {error}").into())
    }

    /// Reads lines until `last` accepts one, which is returned.
    fn wait_for(&mut self, mut last: impl FnMut(&str) -> bool) -> Result<String, Error> {
        let deadline = Instant::now() + self.timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let line = line.trim().to_owned();
                    if last(&line) {
                        return Ok(line);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!(
                        "the engine did not answer within {} s",
                        self.timeout.as_secs()
                    )
                    .into());
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err("the engine exited unexpectedly".into());
                }
            }
        }
    }

    fn ready(&mut self) -> Result<(), Error> {
        self.send("isready")?;
        self.wait_for(|line| line == "readyok").map(drop)
    }

    /// Prepares for a new game.
    pub(crate) fn new_game(&mut self) -> Result<(), Error> {
        self.send("ucinewgame")?;
        self.ready()
    }

    /// The engine's move, in UCI, after `moves` from the position `fen`, thinking as
    /// `think` says.
    pub(crate) fn best_move(
        &mut self,
        fen: &str,
        moves: &[String],
        think: Think,
    ) -> Result<String, Error> {
        let mut position = format!("position fen {fen}");
        if !moves.is_empty() {
            position.push_str(" moves ");
            position.push_str(&moves.join(" "));
        }
        self.send(&position)?;
        self.send(&think.go())?;
        let line = self.wait_for(|line| line.starts_with("bestmove"))?;
        parse_bestmove(&line)
            .map(str::to_owned)
            .ok_or_else(|| format!("the engine gave no move: `{line}`").into())
    }

    /// The engine's value of the position `fen` for the side to move, in centipawns,
    /// after thinking as `think` says: the score of its last complete iteration; `None`
    /// if that score is a forced mate.
    pub(crate) fn evaluate(&mut self, fen: &str, think: Think) -> Result<Option<i32>, Error> {
        self.send(&format!("position fen {fen}"))?;
        self.send(&think.go())?;
        let mut score = None;
        self.wait_for(|line| {
            if let Some(seen) = parse_score(line) {
                score = Some(seen);
            }
            line.starts_with("bestmove")
        })?;
        score.ok_or_else(|| format!("the engine gave no score for `{fen}`").into())
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `name` itself, unless it is a bare name found on no directory of PATH but in
/// /usr/games, which Debian leaves off PATH for non-login shells.
fn resolve(name: &Path) -> PathBuf {
    let bare = name.components().count() == 1;
    let on_path = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(name).is_file()));
    let games = Path::new("/usr/games").join(name);
    if bare && !on_path && games.is_file() {
        games
    } else {
        name.to_path_buf()
    }
}

/// The move in a `bestmove` line (`bestmove e2e4 ponder e7e5`), if it names one
/// (`bestmove (none)` and `bestmove 0000` do not).
fn parse_bestmove(line: &str) -> Option<&str> {
    let mut words = line.split_whitespace();
    if words.next() != Some("bestmove") {
        return None;
    }
    words
        .next()
        .filter(|mv| *mv != "(none)" && *mv != "0000" && !mv.is_empty())
}

/// The score in an `info` line of a finished iteration: `Some(Some(cp))` for
/// centipawns, `Some(None)` for a forced mate; `None` for a line without a score or
/// with only a bound (`lowerbound`, `upperbound`).
fn parse_score(line: &str) -> Option<Option<i32>> {
    let mut words = line.split_whitespace();
    if words.next() != Some("info") || line.contains("bound") {
        return None;
    }
    words.by_ref().find(|word| *word == "score")?;
    match (words.next()?, words.next()?.parse::<i32>().ok()?) {
        ("cp", cp) => Some(Some(cp)),
        ("mate", _) => Some(None),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bestmove_lines_are_read_and_non_moves_refused() {
        assert_eq!(parse_bestmove("bestmove e2e4 ponder e7e5"), Some("e2e4"));
        assert_eq!(parse_bestmove("bestmove e7e8q"), Some("e7e8q"));
        assert_eq!(parse_bestmove("bestmove (none)"), None);
        assert_eq!(parse_bestmove("bestmove 0000"), None);
        assert_eq!(parse_bestmove("bestmove"), None);
        assert_eq!(parse_bestmove("info depth 1"), None);
    }

    #[test]
    fn scores_are_read_from_finished_iterations_only() {
        let line = "info depth 12 seldepth 17 multipv 1 score cp -31 nodes 20196 pv e7e5";
        assert_eq!(parse_score(line), Some(Some(-31)));
        assert_eq!(
            parse_score("info depth 9 score mate -3 nodes 900"),
            Some(None)
        );
        assert_eq!(
            parse_score("info depth 9 score cp 40 lowerbound nodes 9"),
            None
        );
        assert_eq!(parse_score("info string NNUE evaluation enabled"), None);
        assert_eq!(parse_score("bestmove e2e4"), None);
    }
}
