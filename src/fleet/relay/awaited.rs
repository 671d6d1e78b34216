//! An answer one node awaits from another: its entry in one of the relay's tables of
//! pending answers, removed however the wait ends (answered, timed out, or given up
//! because the asker went away).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use dashmap::DashMap;
use tokio::sync::oneshot;

/// Why no answer came.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Unanswered {
    /// Nobody heard the question: the node is gone (or Redis refused it).
    NotHeard,
    /// The node heard it but did not answer in time; it may yet have done it.
    Late,
}

/// An answer awaited under a number of its own in `table`.
pub(super) struct Awaited<'a, T> {
    table: &'a DashMap<u64, oneshot::Sender<T>>,
    reply: u64,
    answered: oneshot::Receiver<T>,
}

impl<'a, T> Awaited<'a, T> {
    /// Enters a new awaited answer in `table`, numbered from `numbers`.
    pub(super) fn new(table: &'a DashMap<u64, oneshot::Sender<T>>, numbers: &AtomicU64) -> Self {
        let reply = numbers.fetch_add(1, Ordering::Relaxed);
        let (answer, answered) = oneshot::channel();
        table.insert(reply, answer);
        Awaited {
            table,
            reply,
            answered,
        }
    }

    /// The number the answer comes back under.
    pub(super) fn reply(&self) -> u64 {
        self.reply
    }

    /// The answer, if it comes within `limit`.
    pub(super) async fn within(mut self, limit: Duration) -> Result<T, Unanswered> {
        match tokio::time::timeout(limit, &mut self.answered).await {
            Ok(Ok(answer)) => Ok(answer),
            _ => Err(Unanswered::Late),
        }
    }
}

impl<T> Drop for Awaited<'_, T> {
    fn drop(&mut self) {
        self.table.remove(&self.reply);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_answer_is_taken_once_and_every_wait_leaves_the_table_clean() {
        let table: DashMap<u64, oneshot::Sender<&str>> = DashMap::new();
        let numbers = AtomicU64::new(1);
        let awaited = Awaited::new(&table, &numbers);
        let (_, answer) = table.remove(&awaited.reply()).expect("entered");
        answer.send("done").expect("someone waits");
        assert_eq!(awaited.within(Duration::from_secs(1)).await, Ok("done"));

        let late = Awaited::new(&table, &numbers);
        assert_eq!(
            late.within(Duration::from_millis(10)).await,
            Err(Unanswered::Late)
        );
        let abandoned = Awaited::new(&table, &numbers);
        assert_eq!(table.len(), 1);
        drop(abandoned);
        assert!(table.is_empty(), "a wait given up leaves no entry");
    }
}
