//! Where rooms run. A room created by a client runs on the HTTP worker thread that
//! serves that client's connection, so that the creator's moves reach the room, and the
//! room's answers reach the creator, without waking another thread. Every other room
//! (resumed at start, adopted from a dead node of a fleet, created for a client of
//! another node) runs on the shared multi-threaded runtime, as it would with no worker
//! to hand.
//!
//! A worker's runtime drives its rooms only while the worker runs: shutdown must close
//! the rooms before it stops the workers (see `crate::run`).

use std::cell::RefCell;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::thread::{self, ThreadId};

use tokio::runtime::Handle as Runtime;

/// The runtimes rooms run on: the shared one and every enlisted worker's. Cloning it is
/// cheap and shares the list.
#[derive(Clone, Debug)]
pub(crate) struct RoomHosts {
    shared: Runtime,
    workers: Arc<Mutex<Vec<Worker>>>,
}

/// An enlisted worker thread and its runtime.
#[derive(Debug)]
struct Worker {
    thread: ThreadId,
    runtime: Runtime,
}

thread_local! {
    /// The enlistments of this thread, struck off their lists when the thread ends.
    static ENLISTMENTS: RefCell<Vec<Enlistment>> = const { RefCell::new(Vec::new()) };
}

/// One thread's place on one list of workers; dropped when the thread ends.
struct Enlistment {
    workers: Weak<Mutex<Vec<Worker>>>,
    thread: ThreadId,
}

impl Drop for Enlistment {
    fn drop(&mut self) {
        if let Some(workers) = self.workers.upgrade() {
            lock(&workers).retain(|worker| worker.thread != self.thread);
        }
    }
}

/// The list, even if a thread panicked while holding it (every change to it is a single
/// push or retain, which leaves it whole).
fn lock(workers: &Mutex<Vec<Worker>>) -> MutexGuard<'_, Vec<Worker>> {
    workers.lock().unwrap_or_else(PoisonError::into_inner)
}

impl RoomHosts {
    /// Hosts whose rooms run on `shared` until workers enlist.
    pub(crate) fn new(shared: Runtime) -> Self {
        Self {
            shared,
            workers: Arc::default(),
        }
    }

    /// Makes the calling thread a host for the rooms its clients create, on the runtime
    /// it runs in (a single-threaded one, driven for as long as the thread lives).
    /// Enlisting twice is harmless; the thread is struck off when it ends. Does
    /// nothing outside a runtime.
    pub(crate) fn enlist_this_thread(&self) {
        let Ok(runtime) = Runtime::try_current() else {
            return;
        };
        let thread = thread::current().id();
        {
            let mut workers = lock(&self.workers);
            if workers.iter().any(|worker| worker.thread == thread) {
                return;
            }
            workers.push(Worker { thread, runtime });
        }
        tracing::debug!(
            thread = thread::current().name().unwrap_or("unnamed"),
            "this worker thread hosts the rooms its clients create"
        );
        ENLISTMENTS.with(|enlistments| {
            enlistments.borrow_mut().push(Enlistment {
                workers: Arc::downgrade(&self.workers),
                thread,
            });
        });
    }

    /// The runtime for a room created now, on this thread: this worker's if it has
    /// enlisted, the shared one otherwise.
    pub(crate) fn here(&self) -> Runtime {
        let thread = thread::current().id();
        lock(&self.workers)
            .iter()
            .find(|worker| worker.thread == thread)
            .map_or_else(|| self.shared.clone(), |worker| worker.runtime.clone())
    }

    /// The shared runtime, for rooms no client created here.
    pub(crate) fn shared(&self) -> &Runtime {
        &self.shared
    }

    /// Every runtime that may host rooms, the shared one first, for the health check.
    pub(crate) fn all(&self) -> Vec<Runtime> {
        let workers = lock(&self.workers);
        let mut all = Vec::with_capacity(workers.len() + 1);
        all.push(self.shared.clone());
        all.extend(workers.iter().map(|worker| worker.runtime.clone()));
        all
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use super::*;

    /// A thread running a single-threaded runtime, as an HTTP worker does, that enlists
    /// in `hosts` (twice) and runs until told to stop; with the runtime it says rooms
    /// created on it run on.
    fn worker(hosts: RoomHosts) -> (mpsc::Sender<()>, thread::JoinHandle<()>, Runtime) {
        let (stop, stopped) = mpsc::channel::<()>();
        let (ready, enlisted) = mpsc::channel();
        let thread = thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async {
                hosts.enlist_this_thread();
                hosts.enlist_this_thread();
                ready.send(hosts.here()).unwrap();
                tokio::task::spawn_blocking(move || stopped.recv())
                    .await
                    .unwrap()
                    .unwrap();
            });
        });
        let here = enlisted.recv().unwrap();
        (stop, thread, here)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn rooms_created_off_a_worker_run_on_the_shared_runtime() {
        let hosts = RoomHosts::new(Runtime::current());
        let off = thread::spawn(move || hosts.here()).join().unwrap();
        assert!(matches!(
            off.runtime_flavor(),
            tokio::runtime::RuntimeFlavor::MultiThread
        ));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_worker_hosts_its_rooms_until_its_thread_ends() {
        let hosts = RoomHosts::new(Runtime::current());
        let (stop, thread, here) = worker(hosts.clone());
        assert_eq!(
            hosts.all().len(),
            2,
            "enlisted once, beside the shared runtime"
        );
        let ran_on = here.spawn(async { thread::current().id() }).await.unwrap();
        assert_eq!(
            ran_on,
            thread.thread().id(),
            "a worker's rooms run on its thread"
        );
        stop.send(()).unwrap();
        thread.join().unwrap();
        assert_eq!(hosts.all().len(), 1, "struck off when its thread ended");
    }
}
