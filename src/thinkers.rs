//! The bounded pool of threads where bots think, away from the async executor.
//!
//! Rooms hand a copy of their game to [`Thinkers::think`] and await the answer. A fixed
//! number of worker threads take requests from a bounded queue. A request that cannot
//! wait (the queue is full) or whose deadline has already passed when a worker reaches it
//! is answered with an `easy` move computed at once, so no room ever stalls behind bots.

use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Instant;

use prometheus::HistogramVec;
use tokio::sync::oneshot;
use tracing::{debug, warn};

use crate::bots::{BotLevel, Limits};
use crate::catalog::AnyGame;
use crate::config::BotPriority;

/// One bot's request to think.
struct Request {
    game: Box<dyn AnyGame>,
    level: BotLevel,
    limits: Limits,
    reply: oneshot::Sender<Option<String>>,
}

/// Why a request got a quick `easy` move instead of its level's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shortcut {
    QueueFull,
    Late,
}

/// A handle to the pool; cloning it shares the same threads and queue.
#[derive(Clone)]
pub struct Thinkers {
    queue: SyncSender<Request>,
}

impl Thinkers {
    /// Starts `threads` worker threads (at least one) behind a queue of `capacity`
    /// waiting requests, each scheduled at `priority` (niceness `nice` where that is
    /// the policy or its fallback; see `lower_priority`), timing each move into
    /// `think_seconds` (labels: game, level). The threads end when every handle has been
    /// dropped.
    pub fn start(
        threads: usize,
        capacity: usize,
        priority: BotPriority,
        nice: i32,
        think_seconds: HistogramVec,
    ) -> std::io::Result<Thinkers> {
        let (queue, requests) = sync_channel(capacity);
        let requests = Arc::new(Mutex::new(requests));
        for index in 0..threads.max(1) {
            let requests = requests.clone();
            let think_seconds = think_seconds.clone();
            thread::Builder::new()
                .name(format!("parlor-bot-{index}"))
                .spawn(move || {
                    lower_priority(priority, nice);
                    work(&requests, &think_seconds);
                })?;
        }
        Ok(Thinkers { queue })
    }

    /// A move for the side to move in `game` by a bot of `level` within `limits`; `None`
    /// only if the game is over (or the pool has stopped).
    pub async fn think(
        &self,
        game: Box<dyn AnyGame>,
        level: BotLevel,
        limits: Limits,
    ) -> Option<String> {
        let (reply, answer) = oneshot::channel();
        let request = Request {
            game,
            level,
            limits,
            reply,
        };
        match self.queue.try_send(request) {
            Ok(()) => answer.await.ok().flatten(),
            Err(TrySendError::Full(request)) => {
                // Answer at once, off the executor: an easy move takes microseconds to
                // milliseconds, and a full queue is exactly when waiting would stall rooms.
                let answer =
                    tokio::task::spawn_blocking(move || quick_move(&request, Shortcut::QueueFull));
                answer.await.ok().flatten()
            }
            Err(TrySendError::Disconnected(_)) => None,
        }
    }
}

/// Lowers the calling thread's scheduling priority, so that bots thinking on every core
/// never delay the threads that serve connections and rooms. Under
/// [`BotPriority::Idle`] the thread gets Linux's `SCHED_IDLE` policy: it runs only when
/// no normal thread wants the core (allowed without privileges). Under
/// [`BotPriority::Nice`], or should `SCHED_IDLE` be refused, it gets niceness `nice`:
/// the kernel gives a nice-10 thread about a tenth of a nice-0 thread's share of a busy
/// core. Linux only (elsewhere niceness belongs to the whole process); a failure is
/// logged and the thread runs on at normal priority.
fn lower_priority(priority: BotPriority, nice: i32) {
    #[cfg(target_os = "linux")]
    {
        if priority == BotPriority::Idle {
            let param = libc::sched_param { sched_priority: 0 };
            // SAFETY: `param` is a valid sched_param that outlives the call; on Linux,
            // pid 0 applies the policy to the calling thread only.
            let set = unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) } == 0;
            if set {
                return;
            }
            let error = std::io::Error::last_os_error();
            warn!(%error, nice, "could not give a bot thread SCHED_IDLE; using niceness instead");
        }
        if nice > 0 {
            // SAFETY: setpriority takes plain integers; on Linux, PRIO_PROCESS with who = 0
            // applies to the calling thread only.
            let failed = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, nice) } != 0;
            if failed {
                let error = std::io::Error::last_os_error();
                warn!(%error, nice, "could not lower a bot thread's priority");
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (priority, nice);
}

/// A worker: takes requests one at a time until every handle is gone.
fn work(requests: &Mutex<Receiver<Request>>, think_seconds: &HistogramVec) {
    loop {
        // Hold the lock only to take the next request, never while thinking.
        let next = match requests.lock() {
            Ok(receiver) => receiver.recv(),
            Err(_) => return,
        };
        let Ok(request) = next else { return };
        let started = Instant::now();
        let late = request
            .limits
            .deadline
            .is_some_and(|deadline| started >= deadline);
        let mv = if late {
            quick_move(&request, Shortcut::Late)
        } else {
            request
                .game
                .bot_move(request.level, &request.limits, &mut rand::rng())
        };
        think_seconds
            .with_label_values(&[request.game.game_id(), request.level.as_str()])
            .observe(started.elapsed().as_secs_f64());
        // The room may have moved on (its game ended); then nobody needs the answer.
        let _ = request.reply.send(mv);
    }
}

/// The `easy` move that stands in when a request cannot be served at its own level.
fn quick_move(request: &Request, why: Shortcut) -> Option<String> {
    match why {
        Shortcut::QueueFull => {
            warn!(level = %request.level, "bot queue full; answering with an easy move")
        }
        Shortcut::Late => {
            debug!(level = %request.level, "bot request reached too late; answering with an easy move")
        }
    }
    request
        .game
        .bot_move(BotLevel::Easy, &request.limits, &mut rand::rng())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::bots::Strength;
    use crate::catalog::new_game;
    use crate::config::Config;

    fn think_seconds() -> HistogramVec {
        crate::metrics::Metrics::new().unwrap().bot_think_seconds
    }

    fn chess() -> Box<dyn AnyGame> {
        new_game("chess", &Config::default(), None).unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn answers_every_request_with_a_legal_move_even_when_swamped() {
        // One thread, room for one waiting request: most of these overflow.
        let thinkers = Thinkers::start(1, 1, BotPriority::Idle, 10, think_seconds()).unwrap();
        let limits = Strength::MEDIUM.limits(Instant::now() + Duration::from_secs(5));
        let asks = (0..8).map(|_| {
            let thinkers = thinkers.clone();
            tokio::spawn(async move { thinkers.think(chess(), BotLevel::Medium, limits).await })
        });
        for ask in asks {
            let mv = ask.await.unwrap().unwrap();
            assert!(chess().legal_moves().contains(&mv), "{mv}");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_request_past_its_deadline_still_gets_a_legal_move() {
        let thinkers = Thinkers::start(2, 8, BotPriority::Nice, 0, think_seconds()).unwrap();
        let limits = Strength::HARD.limits(Instant::now() - Duration::from_secs(5));
        let mv = thinkers
            .think(chess(), BotLevel::Hard, limits)
            .await
            .unwrap();
        assert!(chess().legal_moves().contains(&mv));
    }

    /// The `(niceness, scheduling policy)` of every thread of this process whose name
    /// starts with `prefix`.
    #[cfg(target_os = "linux")]
    fn priorities_of_threads(prefix: &str) -> Vec<(i64, i64)> {
        let mut found = Vec::new();
        for task in std::fs::read_dir("/proc/self/task").unwrap() {
            let dir = task.unwrap().path();
            let name = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
            if !name.starts_with(prefix) {
                continue;
            }
            let stat = std::fs::read_to_string(dir.join("stat")).unwrap_or_default();
            // Fields after the parenthesised name, counted from state (field 3): nice is
            // field 19, the scheduling policy field 41.
            let fields: Vec<&str> = stat.rsplit(") ").next().unwrap().split(' ').collect();
            found.push((fields[16].parse().unwrap(), fields[38].parse().unwrap()));
        }
        found
    }

    /// Waits up to 5 s for a thread named `prefix…` at `(niceness, policy)`.
    #[cfg(target_os = "linux")]
    fn wait_for_thread_at(prefix: &str, wanted: (i64, i64)) {
        let deadline = Instant::now() + Duration::from_secs(5);
        while !priorities_of_threads(prefix).contains(&wanted) {
            assert!(
                Instant::now() < deadline,
                "no {prefix} thread at (nice, policy) {wanted:?}: {:?}",
                priorities_of_threads(prefix)
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn bot_threads_run_at_nice_when_asked() {
        let _thinkers = Thinkers::start(1, 1, BotPriority::Nice, 7, think_seconds()).unwrap();
        wait_for_thread_at("parlor-bot-", (7, i64::from(libc::SCHED_OTHER)));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn bot_threads_run_at_sched_idle_by_default() {
        let priority = crate::config::BotsConfig::default().priority;
        let _thinkers = Thinkers::start(1, 1, priority, 7, think_seconds()).unwrap();
        wait_for_thread_at("parlor-bot-", (0, i64::from(libc::SCHED_IDLE)));
    }
}
