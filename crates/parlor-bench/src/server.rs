//! Starting and stopping the server under test: Parlor on a scratch database, one of
//! the two baselines, or Colyseus under Node.js, each as its own process.

use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clap::ValueEnum;
use serde::Serialize;

use crate::error::BenchError;

/// How long a server may take to say where it listens.
const START_PATIENCE: Duration = Duration::from_secs(30);

/// How long a server may take to stop after SIGTERM before it is killed.
const STOP_PATIENCE: Duration = Duration::from_secs(15);

/// Which server to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Target {
    /// Parlor itself (the `parlor` binary), on a scratch SQLite database.
    Parlor,
    /// `parlor-baseline-actix`: bare rooms on actix-web + actix-ws.
    Actix,
    /// `parlor-baseline-tungstenite`: bare rooms on tokio + tokio-tungstenite.
    Tungstenite,
    /// Colyseus 0.18 on Node.js (`colyseus/server.mjs` of this crate), serving the same
    /// rooms with the same frames as the baselines, through its own protocol.
    Colyseus,
}

impl Target {
    /// The program that serves this target.
    pub(crate) fn binary(self) -> &'static str {
        match self {
            Target::Parlor => "parlor",
            Target::Actix => "parlor-baseline-actix",
            Target::Tungstenite => "parlor-baseline-tungstenite",
            Target::Colyseus => "node",
        }
    }
}

/// Where the servers' programs are and where their files go.
#[derive(Clone, Debug)]
pub(crate) struct Places {
    /// The directory of Parlor's and the baselines' binaries.
    pub(crate) bin_dir: PathBuf,
    /// The directory each server's scratch directory (with Parlor's database) is made
    /// in.
    pub(crate) scratch: PathBuf,
    /// The Colyseus server's folder (its `server.mjs`, `package.json` and lock file).
    pub(crate) colyseus: PathBuf,
}

/// The file system a path is on, as the reports name it.
pub(crate) fn storage_of(path: &Path) -> &'static str {
    if crate::system::is_tmpfs(path) {
        "tmpfs"
    } else {
        "disk"
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Target::Parlor => "parlor",
            Target::Actix => "actix",
            Target::Tungstenite => "tungstenite",
            Target::Colyseus => "colyseus",
        })
    }
}

/// A server this run started; stopped (and its scratch directory removed) on drop at
/// the latest.
pub(crate) struct Server {
    child: Child,
    /// Its process id, for /proc.
    pub(crate) pid: u32,
    /// `ws://127.0.0.1:PORT/ws`.
    pub(crate) url: String,
    dir: PathBuf,
    launch: Launch,
}

/// How a server is started, kept to start it again.
struct Launch {
    target: Target,
    binary: PathBuf,
    /// Colyseus's folder, where its server runs.
    colyseus: PathBuf,
    pin: bool,
    connection_limits: bool,
    extra_env: Vec<(String, String)>,
}

impl Server {
    /// Starts `target` (its binary from `places.bin_dir`) on a free port, in a new scratch
    /// directory under `places.scratch` (Parlor's database goes there), pinned to core 0
    /// when `pin`. Parlor's limits per
    /// address and its server-wide caps are off (the whole load comes from one address);
    /// its per-connection limits stay on only with `connection_limits`. `extra_env` is
    /// added to its environment.
    pub(crate) fn start(
        target: Target,
        places: &Places,
        pin: bool,
        connection_limits: bool,
        extra_env: &[(&str, &str)],
    ) -> Result<Server, BenchError> {
        let binary = if target == Target::Colyseus {
            crate::colyseus::installed(&places.colyseus)?
        } else {
            places.bin_dir.join(target.binary())
        };
        if !binary.is_file() {
            return Err(BenchError::MissingBinary(binary));
        }
        let stamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = places.scratch.join(format!(
            "parlor-bench-{}-{target}-{stamp}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).map_err(|source| BenchError::File {
            path: dir.clone(),
            source,
        })?;
        let launch = Launch {
            target,
            binary,
            colyseus: places.colyseus.clone(),
            pin,
            connection_limits,
            extra_env: extra_env
                .iter()
                .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
                .collect(),
        };
        let (child, url) = launch.spawn(&dir)?;
        Ok(Server {
            pid: child.id(),
            child,
            url,
            dir,
            launch,
        })
    }

    /// Kills the server with SIGKILL (no shutdown at all, as a crash or the OOM killer
    /// would) and waits for it to be gone; its directory and database stay.
    pub(crate) fn kill_hard(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts the same binary again on the same directory and database (after
    /// [`Server::kill_hard`]), on a new free port.
    pub(crate) fn restart(&mut self) -> Result<(), BenchError> {
        let (child, url) = self.launch.spawn(&self.dir)?;
        self.pid = child.id();
        self.child = child;
        self.url = url;
        Ok(())
    }

    /// Everything the server has logged in its directory, across restarts.
    pub(crate) fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default()
    }

    /// Asks the server to stop (SIGTERM: Parlor shuts down gracefully), kills it if it
    /// has not within 15 s, and removes the scratch directory.
    pub(crate) fn stop(mut self) {
        self.terminate();
    }

    #[allow(unsafe_code)] // kill(2) on our own child; see the SAFETY comment.
    fn terminate(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            if let Ok(pid) = libc::pid_t::try_from(self.pid) {
                // SAFETY: kill only sends a signal to the child we started.
                unsafe {
                    libc::kill(pid, libc::SIGTERM);
                }
            }
            let asked = Instant::now();
            while asked.elapsed() < STOP_PATIENCE {
                if let Ok(Some(_)) = self.child.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            if let Ok(None) = self.child.try_wait() {
                let _ = self.child.kill();
                let _ = self.child.wait();
            }
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.terminate();
    }
}

impl Launch {
    /// Starts the binary in `dir` (appending to its `server.log`) and waits until it
    /// says where it listens; returns the process and its WebSocket URL.
    fn spawn(&self, dir: &Path) -> Result<(Child, String), BenchError> {
        let Launch {
            target,
            binary,
            colyseus,
            pin,
            connection_limits,
            extra_env,
        } = self;
        let (target, pin, connection_limits) = (*target, *pin, *connection_limits);
        let log_path = dir.join("server.log");
        let logged_before = std::fs::metadata(&log_path).map_or(0, |m| m.len());
        let log = File::options()
            .create(true)
            .append(true)
            .open(&log_path)
            .map_err(|source| BenchError::File {
                path: log_path.clone(),
                source,
            })?;
        let log_err = log.try_clone().map_err(|source| BenchError::File {
            path: log_path.clone(),
            source,
        })?;
        let mut command = if pin {
            let mut command = Command::new("taskset");
            command.args(["-c", "0"]).arg(binary);
            command
        } else {
            Command::new(binary)
        };
        if target == Target::Colyseus {
            command.arg(colyseus.join("server.mjs"));
        }
        command
            .args(["--port", "0"])
            // No config.toml here: Parlor runs on its defaults plus what follows.
            .current_dir(dir)
            .env("PARLOR_STORE__PATH", dir.join("parlor.db"))
            // Setting up 10k connections takes longer than the default 30 s in which a
            // game's first move must come; the measured traffic is the same either way.
            .env("PARLOR_ROOMS__FIRST_MOVE_SECS", "3600")
            .envs(limits_off(connection_limits).map(|key| (key, "0")))
            .envs(extra_env.iter().map(|(key, value)| (key, value)))
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log_err);
        let mut child = command.spawn().map_err(|source| BenchError::Spawn {
            what: binary.display().to_string(),
            source,
        })?;
        let started = Instant::now();
        while started.elapsed() < START_PATIENCE {
            let text = std::fs::read(&log_path).unwrap_or_default();
            let fresh = text
                .get(usize::try_from(logged_before).unwrap_or(0)..)
                .unwrap_or_default();
            if let Some(address) = listening_address(&String::from_utf8_lossy(fresh)) {
                return Ok((child, format!("ws://{address}/ws")));
            }
            if let Ok(Some(_)) = child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let text = std::fs::read_to_string(&log_path).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(10).collect();
        Err(BenchError::ServerStart {
            what: target.binary().to_owned(),
            secs: START_PATIENCE.as_secs(),
            log: log_path,
            tail: tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
        })
    }
}

/// The environment variables that turn Parlor's limits off: those per address and the
/// server-wide caps always, those per connection unless `connection_limits`.
fn limits_off(connection_limits: bool) -> impl Iterator<Item = &'static str> {
    let always = [
        "PARLOR_LIMITS__CONNECTIONS_PER_IP",
        "PARLOR_LIMITS__ROOMS_PER_MINUTE_PER_IP",
        "PARLOR_LIMITS__PLAYERS_PER_MINUTE_PER_IP",
        "PARLOR_LIMITS__MAX_ROOMS",
        "PARLOR_LIMITS__SPECTATORS_PER_ROOM",
        "PARLOR_LIMITS__BOT_GAMES_AT_ONCE",
        "PARLOR_LIMITS__BOT_REQUESTS_PER_MINUTE",
    ];
    let per_connection = [
        "PARLOR_LIMITS__MESSAGES_PER_SEC",
        "PARLOR_LIMITS__CLOSE_AFTER_REFUSALS",
        "PARLOR_LIMITS__ROOMS_PER_MINUTE_PER_CONNECTION",
        "PARLOR_LIMITS__CHAT_LINES_PER_MINUTE",
    ];
    let per_connection = per_connection
        .into_iter()
        .filter(move |_| !connection_limits);
    always.into_iter().chain(per_connection)
}

/// The `ADDR` of the first `listening on http://ADDR` line.
fn listening_address(log: &str) -> Option<&str> {
    let rest = log.split_once("listening on http://")?.1;
    let end = rest.find(|c: char| c.is_whitespace())?;
    Some(&rest[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_limit_that_can_be_turned_off_is() {
        let unlimited = serde_json::to_value(parlor::config::LimitsConfig::unlimited()).unwrap();
        let off: Vec<&str> = limits_off(false).collect();
        for (key, value) in unlimited.as_object().unwrap() {
            // A burst means nothing once its rate is off.
            if key == "messages_burst" || key == "chat_burst" {
                continue;
            }
            let variable = format!("PARLOR_LIMITS__{}", key.to_uppercase());
            assert_eq!(value == 0, off.contains(&variable.as_str()), "{variable}");
        }
    }

    #[test]
    fn under_abuse_only_the_per_connection_limits_stay_on() {
        let off: Vec<&str> = limits_off(true).collect();
        assert!(off.contains(&"PARLOR_LIMITS__CONNECTIONS_PER_IP"));
        assert!(!off.contains(&"PARLOR_LIMITS__MESSAGES_PER_SEC"));
        assert!(!off.contains(&"PARLOR_LIMITS__ROOMS_PER_MINUTE_PER_CONNECTION"));
    }
}
