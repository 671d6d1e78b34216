//! The rooms' pulse: whether every runtime rooms run on still runs new work promptly,
//! for the health check. A bot search, a blocking call or a busy loop on a room's task
//! holds a thread; when every thread of a runtime is held, none of its rooms makes
//! progress, and a probe task spawned there does not run either.

use std::time::Duration;

use tokio::runtime::Handle as Runtime;
use tokio::sync::oneshot;
use tokio::time::Instant;

/// How long a probe task may take to start on the rooms' runtime before the rooms are
/// declared stalled: far above the microseconds it takes on a healthy server, and short
/// enough that a load balancer's health check sees a frozen server at once.
pub(crate) const PROBE_BOUND: Duration = Duration::from_secs(1);

/// A runtime rooms run on did not run a probe within the bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "a runtime the rooms run on did not run a probe task within {} ms: its threads are all busy or blocked, so its rooms are not being served",
    bound.as_millis()
)]
pub(crate) struct Stalled {
    /// The bound the probe missed.
    pub(crate) bound: Duration,
}

/// Spawns a task on `rooms` and waits at most `bound` (on the caller's runtime: if that
/// is `rooms` and it is blocked, the caller is not running either) for it to run;
/// returns how long it took to start.
pub(crate) async fn probe(rooms: &Runtime, bound: Duration) -> Result<Duration, Stalled> {
    let sent = Instant::now();
    let (ran, started) = oneshot::channel();
    rooms.spawn(async move {
        let _ = ran.send(Instant::now());
    });
    match tokio::time::timeout(bound, started).await {
        Ok(Ok(at)) => Ok(at.saturating_duration_since(sent)),
        // The task was dropped unrun (the runtime is shutting down) or did not run in time.
        Ok(Err(_)) | Err(_) => Err(Stalled { bound }),
    }
}

/// Probes every runtime in `hosts` at once (see [`probe`]; the caller's runtime may be
/// one of them, since it waits without holding its thread); returns the longest a
/// probe took to start, or the first that did not start within `bound`.
pub(crate) async fn probe_all(hosts: &[Runtime], bound: Duration) -> Result<Duration, Stalled> {
    let probes = hosts.iter().map(|runtime| probe(runtime, bound));
    let took = futures_util::future::join_all(probes).await;
    took.into_iter()
        .try_fold(Duration::ZERO, |longest, took| Ok(longest.max(took?)))
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use super::*;

    fn rooms_runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    }

    #[tokio::test]
    async fn a_runtime_that_runs_tasks_answers_the_probe() {
        let rooms = rooms_runtime();
        let took = probe(rooms.handle(), PROBE_BOUND).await.unwrap();
        assert!(took < PROBE_BOUND);
        rooms.shutdown_background();
    }

    #[tokio::test]
    async fn a_runtime_whose_workers_are_all_blocked_fails_the_probe() {
        let rooms = rooms_runtime();
        // Hold both workers the way a search on a room's task would, until told.
        let (release, released) = mpsc::channel::<()>();
        let released = std::sync::Arc::new(std::sync::Mutex::new(released));
        let (holding, held) = mpsc::channel();
        for _ in 0..2 {
            let released = released.clone();
            let holding = holding.clone();
            rooms.spawn(async move {
                holding.send(()).unwrap();
                let _ = released.lock().unwrap().recv();
            });
        }
        for _ in 0..2 {
            held.recv().unwrap();
        }
        let bound = Duration::from_millis(300);
        assert_eq!(probe(rooms.handle(), bound).await, Err(Stalled { bound }));
        drop(release);
        assert!(probe(rooms.handle(), PROBE_BOUND).await.is_ok());
        rooms.shutdown_background();
    }

    #[tokio::test]
    async fn one_frozen_runtime_among_several_fails_the_probe() {
        let free = rooms_runtime();
        let (release, released) = mpsc::channel::<()>();
        let (holding, held) = mpsc::channel();
        let frozen = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            holding.send(runtime.handle().clone()).unwrap();
            // Blocks its only thread, as a worker running a stuck room would.
            runtime.block_on(async { released.recv() })
        });
        let frozen_runtime = held.recv().unwrap();
        let hosts = [free.handle().clone(), frozen_runtime];
        let bound = Duration::from_millis(300);
        assert_eq!(probe_all(&hosts, bound).await, Err(Stalled { bound }));
        assert!(probe_all(&hosts[..1], PROBE_BOUND).await.is_ok());
        drop(release);
        let _ = frozen.join();
        free.shutdown_background();
    }
}
