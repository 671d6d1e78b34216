//! The bounded pool of threads where bots think, away from the async executor: their
//! moves and their judgements of draw offers.
//!
//! Rooms hand a copy of their game to [`Thinkers::think`] or [`Thinkers::judge_draw`]
//! from a task of their own and get the answer back as a command, so a room never waits
//! on a bot. A fixed number of worker threads take requests from a bounded queue. Every
//! request has a time budget as well as a node budget. A move request that cannot wait
//! (the queue is full) or whose deadline has already passed when a worker reaches it is
//! answered with an `easy` move under a short deadline, off the executor; a draw offer
//! that finds the queue full is declined at once.

use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use prometheus::HistogramVec;
use tokio::sync::oneshot;
use tracing::{debug, warn};

use crate::config::BotPriority;
use crate::thread_priority;
use parlor_room::machine::DrawAnswer;
use parlor_rules::bots::{BotLevel, Deadline, Limits, Memory};
use parlor_rules::catalog::{AnyGame, draw_judgement};
use parlor_rules::games::Seat;

/// The longest an `easy` move standing in for a late or queued-out request may take.
const QUICK_MOVE_TIME: Duration = Duration::from_millis(50);

/// The label a draw judgement is timed under in the think-time histogram.
const JUDGE_LABEL: &str = "draw";

/// One piece of bot work: it runs on a worker thread with that thread's search memory,
/// or at once off the executor with none when it cannot be queued; the shortcut says
/// why it must answer quickly, if it must.
type Work = Box<dyn FnOnce(Option<Shortcut>, &mut Memory) + Send>;

/// One bot's request to think.
struct Request {
    /// The game and the level (or [`JUDGE_LABEL`]), for the think-time histogram.
    labels: [&'static str; 2],
    deadline: Option<Deadline>,
    work: Work,
}

/// Why a request got a quick answer instead of its full one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shortcut {
    QueueFull,
    Late,
}

/// A handle to the pool; cloning it shares the same threads and queue.
#[derive(Clone)]
pub(crate) struct Thinkers {
    queue: SyncSender<Request>,
}

impl Thinkers {
    /// Starts `threads` worker threads (at least one) behind a queue of `capacity`
    /// waiting requests, each scheduled at `priority` (niceness `nice` where that is
    /// the policy or its fallback; see `lower_priority`), timing each request into
    /// `think_seconds` (labels: game, level or `draw`). The threads end when every
    /// handle has been dropped.
    pub(crate) fn start(
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
    pub(crate) async fn think(
        &self,
        game: Box<dyn AnyGame>,
        level: BotLevel,
        limits: Limits,
    ) -> Option<String> {
        let (reply, answer) = oneshot::channel();
        let labels = [game.kind().as_str(), level.as_str()];
        let work: Work = Box::new(move |shortcut, memory| {
            let mv = match shortcut {
                None => game.bot_move(level, &limits, memory, &mut rand::rng()),
                Some(why) => quick_move(game.as_ref(), level, &limits, why),
            };
            // The room may have moved on (its game ended); then nobody needs the answer.
            let _ = reply.send(mv);
        });
        let request = Request {
            labels,
            deadline: limits.deadline,
            work,
        };
        match self.queue.try_send(request) {
            Ok(()) => answer.await.ok().flatten(),
            Err(TrySendError::Full(request)) => {
                // Answer at once, off the executor and under a short deadline: a full
                // queue is exactly when waiting would stall rooms.
                let quick = tokio::task::spawn_blocking(move || {
                    (request.work)(Some(Shortcut::QueueFull), &mut Memory::default());
                });
                let _ = quick.await;
                answer.await.ok().flatten()
            }
            Err(TrySendError::Disconnected(_)) => None,
        }
    }

    /// How a bot in `seat` that has been offered a draw sees `game` (drawn or not), by the
    /// draw judgement's search (node and time budget, see [`draw_judgement`]); [`DrawAnswer::Busy`]
    /// at once if every thread is busy and the queue is full (or the pool has stopped).
    pub(crate) async fn judge_draw(&self, game: Box<dyn AnyGame>, seat: Seat) -> DrawAnswer {
        let (reply, answer) = oneshot::channel();
        let labels = [game.kind().as_str(), JUDGE_LABEL];
        let work: Work = Box::new(move |_shortcut, _memory| {
            // A judgement has its own short deadline from when it starts, so a late one
            // is still made, and still bounded.
            let view = game.draw_view(seat, &draw_judgement(Instant::now));
            let _ = reply.send(view);
        });
        let request = Request {
            labels,
            deadline: None,
            work,
        };
        match self.queue.try_send(request) {
            Ok(()) => answer.await.map_or(DrawAnswer::Busy, DrawAnswer::Judged),
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                debug!("bot queue full; a draw offer is declined without judging");
                DrawAnswer::Busy
            }
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
    if priority == BotPriority::Idle {
        match thread_priority::idle_policy() {
            Ok(()) => return,
            Err(error) => {
                warn!(%error, nice, "could not give a bot thread SCHED_IDLE; using niceness instead");
            }
        }
    }
    if nice > 0
        && let Err(error) = thread_priority::niceness(nice)
    {
        warn!(%error, nice, "could not lower a bot thread's priority");
    }
}

/// A worker: takes requests one at a time until every handle is gone. Its search memory
/// carries from one request to the next, so a bot whose moves it keeps serving picks up
/// where its last search left off (and any other bot's positions are simply not there).
fn work(requests: &Mutex<Receiver<Request>>, think_seconds: &HistogramVec) {
    let mut memory = Memory::default();
    loop {
        // Hold the lock only to take the next request, never while thinking.
        let next = match requests.lock() {
            Ok(receiver) => receiver.recv(),
            Err(_) => return,
        };
        let Ok(request) = next else { return };
        let started = Instant::now();
        let late = request.deadline.is_some_and(|deadline| deadline.passed());
        (request.work)(late.then_some(Shortcut::Late), &mut memory);
        think_seconds
            .with_label_values(&request.labels)
            .observe(started.elapsed().as_secs_f64());
    }
}

/// The `easy` move that stands in when a request cannot be served at its own level: it
/// thinks for at most [`QUICK_MOVE_TIME`], so even a late request gets a considered
/// move, and never for long.
fn quick_move(
    game: &dyn AnyGame,
    level: BotLevel,
    limits: &Limits,
    why: Shortcut,
) -> Option<String> {
    match why {
        Shortcut::QueueFull => {
            warn!(%level, "bot queue full; answering with an easy move")
        }
        Shortcut::Late => {
            debug!(%level, "bot request reached too late; answering with an easy move")
        }
    }
    let limits = Limits {
        deadline: Some(Deadline::after(QUICK_MOVE_TIME, Instant::now)),
        ..*limits
    };
    game.bot_move(
        BotLevel::Easy,
        &limits,
        &mut Memory::default(),
        &mut rand::rng(),
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    #[cfg(target_os = "linux")]
    use crate::thread_priority::probe;
    use parlor_rules::bots::{DrawView, Strength};
    use parlor_rules::catalog::new_game;
    use parlor_rules::{GameKind, GameSettings};

    fn think_seconds() -> HistogramVec {
        crate::metrics::Metrics::new().unwrap().bot_think_seconds
    }

    fn chess() -> Box<dyn AnyGame> {
        new_game(GameKind::Chess, &GameSettings::default(), None).unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn answers_every_request_with_a_legal_move_even_when_swamped() {
        // One thread, room for one waiting request: most of these overflow.
        let thinkers = Thinkers::start(1, 1, BotPriority::Idle, 10, think_seconds()).unwrap();
        let limits = Strength::MEDIUM.limits(Instant::now);
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
        let limits = Limits {
            deadline: Some(Deadline::at(
                Instant::now() - Duration::from_secs(5),
                Instant::now,
            )),
            ..Strength::HARD.limits(Instant::now)
        };
        let mv = thinkers
            .think(chess(), BotLevel::Hard, limits)
            .await
            .unwrap();
        assert!(chess().legal_moves().contains(&mv));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_draw_offer_is_judged_on_a_bot_thread_or_declined_when_all_are_busy() {
        let queen_ahead = |settings: &GameSettings| {
            let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1";
            new_game(GameKind::Chess, settings, Some(start)).unwrap()
        };
        let config = GameSettings::default();
        let thinkers = Thinkers::start(1, 1, BotPriority::Nice, 0, think_seconds()).unwrap();
        let answer = thinkers
            .judge_draw(queen_ahead(&config), Seat::Second)
            .await;
        assert!(
            matches!(answer, DrawAnswer::Judged(DrawView::Open(value)) if value > 500),
            "{answer:?}"
        );

        // The only thread busy and the queue's one place taken: no room for a judgement.
        // The thread holds its request, and says it has it, until the test lets go.
        let (release, released) = std::sync::mpsc::channel::<()>();
        let released = Arc::new(Mutex::new(released));
        let (taken, on_the_thread) = std::sync::mpsc::channel();
        let held = || {
            let (released, taken) = (released.clone(), taken.clone());
            let work: Work = Box::new(move |_shortcut, _memory| {
                let _ = taken.send(());
                let _ = released.lock().unwrap().recv();
            });
            Request {
                labels: ["chess", "hard"],
                deadline: None,
                work,
            }
        };
        thinkers.queue.try_send(held()).unwrap();
        on_the_thread.recv().unwrap();
        thinkers.queue.try_send(held()).unwrap();
        let answer = thinkers
            .judge_draw(queen_ahead(&config), Seat::Second)
            .await;
        assert_eq!(answer, DrawAnswer::Busy);
        // Let go, the thread takes the waiting request (which ends at once) and the queue
        // has room again: the next offer is judged.
        drop(release);
        on_the_thread.recv().unwrap();
        let answer = thinkers
            .judge_draw(queen_ahead(&config), Seat::Second)
            .await;
        assert!(matches!(answer, DrawAnswer::Judged(_)), "{answer:?}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn bot_threads_run_at_nice_when_asked() {
        let _thinkers = Thinkers::start(1, 1, BotPriority::Nice, 7, think_seconds()).unwrap();
        probe::wait_for_thread_at("parlor-bot-", (7, i64::from(libc::SCHED_OTHER)));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn bot_threads_run_at_sched_idle_by_default() {
        let priority = crate::config::BotsConfig::default().priority;
        let _thinkers = Thinkers::start(1, 1, priority, 7, think_seconds()).unwrap();
        probe::wait_for_thread_at("parlor-bot-", (0, i64::from(libc::SCHED_IDLE)));
    }
}
