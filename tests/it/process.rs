//! A real `parlor` server as a child process, for the tests where signals, the database
//! file or a whole process's life matter: started, signalled, killed, its log read and
//! its threads looked at.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::waiting::eventually;

/// A `parlor` server running as a child process, for tests where signals or the
/// database file matter. Killed when dropped, if still running.
pub(crate) struct ParlorProcess {
    child: std::process::Child,
    /// Where it listens, `127.0.0.1:port`, as its log announced.
    pub(crate) address: String,
    /// Every line it has logged so far.
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

/// One thread of a process, as Linux's /proc shows it.
#[derive(Clone, Debug)]
pub(crate) struct ThreadState {
    /// The thread's name (at most 15 bytes).
    pub(crate) name: String,
    /// Its scheduling state: `R` running, `S` sleeping…
    pub(crate) state: String,
    /// The kernel function it waits in, if it waits (`hrtimer_nanosleep`, `futex_…`).
    pub(crate) wchan: String,
}

impl ParlorProcess {
    /// Starts `parlor` on a free port, in `dir` with its database there, with `env`
    /// added to its environment; returns once its log says where it listens.
    pub(crate) fn start(dir: &Path, env: &[(&str, &str)]) -> ParlorProcess {
        ParlorProcess::start_with_args(dir, env, &[])
    }

    /// Like [`ParlorProcess::start`], with `args` added to its command line.
    pub(crate) fn start_with_args(
        dir: &Path,
        env: &[(&str, &str)],
        args: &[&str],
    ) -> ParlorProcess {
        let command = std::process::Command::new(env!("CARGO_BIN_EXE_parlor"));
        ParlorProcess::spawn(command, dir, env, 0, args)
    }

    /// Like [`ParlorProcess::start`], listening on `port`: a node started again where
    /// a proxy in front of it expects it.
    pub(crate) fn start_on_port(dir: &Path, env: &[(&str, &str)], port: u16) -> ParlorProcess {
        let command = std::process::Command::new(env!("CARGO_BIN_EXE_parlor"));
        ParlorProcess::spawn(command, dir, env, port, &[])
    }

    /// Like [`ParlorProcess::start_with_args`], inside the network namespace `namespace`
    /// (`ip netns exec`, which becomes `parlor` itself: the child is the server, and
    /// signals reach it).
    pub(crate) fn start_in_namespace(
        namespace: &str,
        dir: &Path,
        env: &[(&str, &str)],
        args: &[&str],
    ) -> ParlorProcess {
        let mut command = std::process::Command::new("ip");
        command
            .args(["netns", "exec", namespace])
            .arg(env!("CARGO_BIN_EXE_parlor"));
        let process = ParlorProcess::spawn(command, dir, env, 0, args);
        let running = std::fs::read_link(format!("/proc/{}/exe", process.pid())).unwrap();
        let binary = std::fs::canonicalize(env!("CARGO_BIN_EXE_parlor")).unwrap();
        assert_eq!(
            running, binary,
            "`ip netns exec` became parlor, which signals reach"
        );
        process
    }

    /// Runs `command` (which starts `parlor`) on `port` (0: a free one) with `args`, in
    /// `dir` with its database there and `env` added; returns once its log says where
    /// it listens.
    fn spawn(
        mut command: std::process::Command,
        dir: &Path,
        env: &[(&str, &str)],
        port: u16,
        args: &[&str],
    ) -> ParlorProcess {
        use std::io::{BufRead, BufReader};
        use std::process::Stdio;
        let mut child = command
            .arg("--port")
            .arg(port.to_string())
            .args(args)
            .current_dir(dir)
            .env("PARLOR_STORE__PATH", dir.join("parlor.db"))
            .env("RUST_LOG", "info")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (address, found) = std::sync::mpsc::channel();
        let pid = child.id();
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let lines = log.clone();
        std::thread::spawn(move || {
            let mut address = Some(address);
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                eprintln!("parlor[{pid}]: {line}");
                if let Some((_, rest)) = line.split_once("listening on http://")
                    && let Some(address) = address.take()
                {
                    let _ = address.send(rest.trim().to_owned());
                }
                lines.lock().unwrap().push(line);
            }
        });
        let address = found.recv_timeout(Duration::from_secs(60)).unwrap();
        ParlorProcess {
            child,
            address,
            log,
        }
    }

    /// The process's id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Every line the process has logged so far.
    pub(crate) fn log_lines(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    /// Waits for the process to log a line containing `text`; returns it. Fails the test
    /// after `patience`.
    pub(crate) async fn logged(&self, text: &str, patience: Duration) -> String {
        eventually(&format!("a log line with {text:?}"), patience, async || {
            self.log_lines()
                .into_iter()
                .find(|line| line.contains(text))
                .ok_or_else(|| format!("{} lines, none with it", self.log_lines().len()))
        })
        .await
    }

    /// Sends the process `signal` (`libc::SIGTERM`, `libc::SIGKILL`…).
    pub(crate) fn signal(&self, signal: i32) {
        let pid = i32::try_from(self.child.id()).unwrap();
        // SAFETY: kill(2) takes plain integers; `pid` is our own child.
        #[allow(unsafe_code)]
        let sent = unsafe { libc::kill(pid, signal) };
        assert_eq!(sent, 0, "could not signal parlor");
    }

    /// Waits up to `limit` for the process to exit; its exit status, or `None` if it is
    /// still running.
    pub(crate) fn exited_within(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let since = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            if since.elapsed() > limit {
                return None;
            }
            // A pause between looks at the child, which cannot be waited on with a limit.
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The process's threads, from Linux's /proc; empty once it has gone.
    pub(crate) fn threads(&self) -> Vec<ThreadState> {
        let tasks = format!("/proc/{}/task", self.child.id());
        let Ok(entries) = std::fs::read_dir(&tasks) else {
            return Vec::new();
        };
        let read = |path: std::path::PathBuf| {
            std::fs::read_to_string(path)
                .unwrap_or_default()
                .trim()
                .to_owned()
        };
        let mut threads: Vec<ThreadState> = entries
            .filter_map(Result::ok)
            .map(|task| {
                let dir = task.path();
                let stat = read(dir.join("stat"));
                // The state follows the parenthesised name, which may hold spaces.
                let state = stat
                    .rsplit_once(") ")
                    .and_then(|(_, rest)| rest.split(' ').next())
                    .unwrap_or("?")
                    .to_owned();
                ThreadState {
                    name: read(dir.join("comm")),
                    state,
                    wchan: read(dir.join("wchan")),
                }
            })
            .collect();
        threads.sort_by(|a, b| a.name.cmp(&b.name));
        threads
    }

    /// Each of the process's threads as `name state wchan`, one per line: what a process
    /// that will not exit is waiting on.
    pub(crate) fn threads_report(&self) -> String {
        let threads = self.threads();
        if threads.is_empty() {
            return "(no threads: the process has gone)".to_owned();
        }
        threads
            .iter()
            .map(|thread| format!("{} {} {}", thread.name, thread.state, thread.wchan))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Kills the process with SIGKILL and reaps it.
    pub(crate) fn kill(mut self) {
        self.signal(libc::SIGKILL);
        let _ = self.child.wait();
    }
}

impl Drop for ParlorProcess {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
