//! A worker thread's doorstep: answers that another thread has for many tasks of one
//! single-threaded runtime, left there together with one wake of that thread.
//!
//! Waking a task of a single-threaded tokio runtime from another thread queues it and
//! wakes the runtime's driver: one `write` to its event descriptor per task woken, and
//! on a busy core a context switch to that thread and back. The game log's writer
//! answers a dozen rooms per batch, so its answers cost more system calls than its
//! commit did. Left at the rooms' worker's doorstep instead, a batch's answers wake
//! that thread once: a task of the worker's own runtime takes them in and hands each
//! over there, where waking a room costs no system call.

use std::cell::RefCell;
use std::mem;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::runtime::{Handle, RuntimeFlavor};
use tokio::sync::Notify;

/// One answer to hand over: a closure that sends it, run on the doorstep's thread.
pub(crate) type Delivery = Box<dyn FnOnce() + Send>;

/// Where answers for the tasks of one worker thread are left.
#[derive(Default)]
pub(crate) struct Doorstep {
    /// What was left and not yet taken in, and whether the doorstep's task is gone.
    left: Mutex<Left>,
    /// Wakes the doorstep's task.
    knock: Notify,
}

/// A doorstep's waiting answers.
#[derive(Default)]
struct Left {
    deliveries: Vec<Delivery>,
    /// Set when the doorstep's task ended (its runtime shut down): what is left from
    /// then on is handed over at once by whoever leaves it.
    closed: bool,
}

thread_local! {
    /// The calling thread's doorstep, once opened.
    static HERE: RefCell<Option<Arc<Doorstep>>> = const { RefCell::new(None) };
}

impl Doorstep {
    /// Opens a doorstep for the calling thread, served by a task of the single-threaded
    /// runtime it runs in (an HTTP worker's). Opening twice is harmless; outside such a
    /// runtime it does nothing, and answers for the thread's tasks are handed to each
    /// directly.
    pub(crate) fn open_here() {
        let Ok(runtime) = Handle::try_current() else {
            return;
        };
        if runtime.runtime_flavor() != RuntimeFlavor::CurrentThread {
            return;
        }
        HERE.with(|here| {
            let mut here = here.borrow_mut();
            if here.as_ref().is_some_and(|door| !door.lock().closed) {
                return;
            }
            let door = Arc::new(Doorstep::default());
            runtime.spawn(Arc::clone(&door).serve());
            *here = Some(door);
        });
    }

    /// The calling thread's doorstep, if it has an open one.
    pub(crate) fn here() -> Option<Arc<Doorstep>> {
        HERE.with(|here| {
            here.borrow()
                .as_ref()
                .filter(|door| !door.lock().closed)
                .cloned()
        })
    }

    /// The waiting answers, even if a thread panicked while holding them (every change
    /// to them leaves them whole).
    fn lock(&self) -> MutexGuard<'_, Left> {
        self.left.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Leaves `deliveries` with one knock; if the doorstep's task is gone, hands them
    /// over here and now.
    fn leave(&self, mut deliveries: Vec<Delivery>) {
        {
            let mut left = self.lock();
            if !left.closed {
                left.deliveries.append(&mut deliveries);
            }
        }
        if deliveries.is_empty() {
            self.knock.notify_one();
        } else {
            deliveries.into_iter().for_each(|deliver| deliver());
        }
    }

    /// The doorstep's task: takes in what was left at each knock and hands it over,
    /// until its runtime drops it. The doorstep closes when the task is dropped, even
    /// one its runtime never got to run.
    fn serve(self: Arc<Self>) -> impl Future<Output = ()> + Send + 'static {
        let closing = Closing(Arc::clone(&self));
        async move {
            let _closing = closing;
            let mut taken = Vec::new();
            loop {
                self.knock.notified().await;
                mem::swap(&mut taken, &mut self.lock().deliveries);
                taken.drain(..).for_each(|deliver| deliver());
            }
        }
    }
}

/// Closes a doorstep when its task is dropped, handing over what was left meanwhile.
struct Closing(Arc<Doorstep>);

impl Drop for Closing {
    fn drop(&mut self) {
        let left = {
            let mut left = self.0.lock();
            left.closed = true;
            mem::take(&mut left.deliveries)
        };
        left.into_iter().for_each(|deliver| deliver());
    }
}

/// Answers gathered for tasks on many threads: each thread's are left at its doorstep
/// with one knock when the rounds are dropped; an answer for a task whose thread has no
/// doorstep is handed over at once.
#[derive(Default)]
pub(crate) struct Rounds {
    doors: Vec<(Arc<Doorstep>, Vec<Delivery>)>,
}

impl Rounds {
    /// Adds `deliver`, for a task on the thread whose doorstep is `door`.
    pub(crate) fn add(
        &mut self,
        door: Option<&Arc<Doorstep>>,
        deliver: impl FnOnce() + Send + 'static,
    ) {
        let Some(door) = door else {
            deliver();
            return;
        };
        match self.doors.iter_mut().find(|(at, _)| Arc::ptr_eq(at, door)) {
            Some((_, deliveries)) => deliveries.push(Box::new(deliver)),
            None => self.doors.push((Arc::clone(door), vec![Box::new(deliver)])),
        }
    }
}

impl Drop for Rounds {
    fn drop(&mut self) {
        for (door, deliveries) in self.doors.drain(..) {
            door.leave(deliveries);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::thread;

    use tokio::sync::oneshot;

    use super::*;

    /// A thread running a single-threaded runtime with its doorstep open, as an HTTP
    /// worker does; it runs `work` there and sends back what it returns.
    fn worker<T: Send + 'static>(
        work: impl AsyncFnOnce(Arc<Doorstep>) -> T + Send + 'static,
    ) -> thread::JoinHandle<T> {
        thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async {
                Doorstep::open_here();
                Doorstep::open_here();
                work(Doorstep::here().expect("opened on a single-threaded runtime")).await
            })
        })
    }

    #[test]
    fn answers_left_together_reach_their_tasks_on_the_doorsteps_thread() {
        let (door_sent, door) = mpsc::channel();
        let (answers_sent, answers) = mpsc::channel();
        let worker = worker(async move |door: Arc<Doorstep>| {
            let (senders, receivers): (Vec<_>, Vec<_>) = (0..3)
                .map(|_| oneshot::channel::<(usize, thread::ThreadId)>())
                .unzip();
            door_sent.send(door).unwrap();
            answers_sent.send(senders).unwrap();
            let mut got = Vec::new();
            for receiver in receivers {
                got.push(receiver.await.unwrap());
            }
            (got, thread::current().id())
        });
        let door = door.recv().unwrap();
        let senders = answers.recv().unwrap();
        let mut rounds = Rounds::default();
        for (index, sender) in senders.into_iter().enumerate() {
            rounds.add(Some(&door), move || {
                sender.send((index, thread::current().id())).unwrap();
            });
        }
        drop(rounds);
        let (got, worker_thread) = worker.join().unwrap();
        assert_eq!(
            got.iter().map(|(index, _)| *index).collect::<Vec<_>>(),
            [0, 1, 2],
            "every answer arrived, in order"
        );
        assert!(
            got.iter().all(|(_, thread)| *thread == worker_thread),
            "each was handed over on the worker's thread"
        );
    }

    #[test]
    fn without_a_doorstep_an_answer_is_handed_over_at_once() {
        assert!(Doorstep::here().is_none(), "a plain thread has none");
        let (sender, receiver) = mpsc::channel();
        let mut rounds = Rounds::default();
        rounds.add(None, move || sender.send(7).unwrap());
        assert_eq!(receiver.try_recv(), Ok(7), "before the rounds end");
    }

    #[test]
    fn a_doorstep_whose_runtime_ended_hands_answers_over_at_once() {
        let door = worker(async |door: Arc<Doorstep>| door).join().unwrap();
        let (sender, receiver) = mpsc::channel();
        let mut rounds = Rounds::default();
        rounds.add(Some(&door), move || {
            sender.send(thread::current().id()).unwrap()
        });
        drop(rounds);
        assert_eq!(
            receiver.try_recv(),
            Ok(thread::current().id()),
            "handed over by whoever left it"
        );
    }
}
