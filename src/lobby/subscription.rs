//! One connection's subscription to the lobby feed, coalesced: at most one batch every
//! `limits.lobby_flush_ms`, holding the latest `lobby_update` of each room that changed
//! since the last batch, so a burst of changes (one client creating rooms by the
//! thousand) costs each subscriber one frame per room per interval, not one per change.
//! A subscriber that fell so far behind that the feed dropped updates gets one fresh
//! snapshot instead, again at most once per interval.

use std::time::Duration;

use bytestring::ByteString;
use tokio::sync::broadcast::Receiver;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::time::{Instant, sleep_until};

use super::LobbyUpdate;

/// A connection's subscription to the lobby feed.
#[derive(Debug)]
pub struct LobbySubscription {
    updates: Receiver<LobbyUpdate>,
    /// Only rooms of this game, if set.
    game: Option<String>,
    flush_every: Duration,
    /// The next batch may not leave before this.
    next_flush: Instant,
}

/// What the lobby feed has for a subscriber.
#[derive(Debug, PartialEq, Eq)]
pub enum LobbyEvent {
    /// `lobby_update` frames to write as they are, in order: the latest for each room
    /// that changed.
    Updates(Vec<ByteString>),
    /// Updates were missed: the subscriber needs a fresh snapshot (taken after this
    /// event, so it includes everything the missed updates said).
    Behind,
}

impl LobbySubscription {
    /// A subscription to `updates` for rooms of `game` (all when `None`), flushed at
    /// most once per `flush_every`.
    pub fn new(
        updates: Receiver<LobbyUpdate>,
        game: Option<String>,
        flush_every: Duration,
    ) -> Self {
        Self {
            updates,
            game,
            flush_every,
            next_flush: Instant::now(),
        }
    }

    /// The game the subscription is limited to.
    pub fn game(&self) -> Option<&str> {
        self.game.as_deref()
    }

    /// The next batch for this subscriber: waits for a change to one of its rooms, then
    /// until the flush interval since the last batch has passed, and merges everything
    /// that arrived meanwhile. Waits forever if the feed has closed, which happens only
    /// as the server stops.
    pub async fn next(&mut self) -> LobbyEvent {
        let mut batch = Batch::default();
        loop {
            match self.updates.recv().await {
                Ok(update) => {
                    if self.wants(&update) {
                        batch.add(update);
                        break;
                    }
                }
                Err(RecvError::Lagged(_)) => return self.behind().await,
                Err(RecvError::Closed) => std::future::pending::<()>().await,
            }
        }
        sleep_until(self.next_flush).await;
        loop {
            match self.updates.try_recv() {
                Ok(update) => {
                    if self.wants(&update) {
                        batch.add(update);
                    }
                }
                Err(TryRecvError::Lagged(_)) => return self.behind().await,
                Err(TryRecvError::Empty | TryRecvError::Closed) => break,
            }
        }
        self.next_flush = Instant::now() + self.flush_every;
        LobbyEvent::Updates(batch.frames())
    }

    fn wants(&self, update: &LobbyUpdate) -> bool {
        self.game.as_deref().is_none_or(|game| game == update.game)
    }

    /// Skips every queued update (the snapshot the caller sends next covers them), at
    /// most once per flush interval.
    async fn behind(&mut self) -> LobbyEvent {
        sleep_until(self.next_flush).await;
        self.updates = self.updates.resubscribe();
        self.next_flush = Instant::now() + self.flush_every;
        LobbyEvent::Behind
    }
}

/// The next lobby event of a subscription; never resolves without one.
pub async fn next_lobby_event(subscription: Option<&mut LobbySubscription>) -> LobbyEvent {
    match subscription {
        Some(subscription) => subscription.next().await,
        None => std::future::pending().await,
    }
}

/// Updates merged by room: the latest of each, in the order rooms first changed.
#[derive(Debug, Default)]
struct Batch {
    updates: Vec<LobbyUpdate>,
}

impl Batch {
    fn add(&mut self, update: LobbyUpdate) {
        match self
            .updates
            .iter_mut()
            .find(|held| held.room == update.room)
        {
            Some(held) => *held = update,
            None => self.updates.push(update),
        }
    }

    fn frames(self) -> Vec<ByteString> {
        self.updates
            .into_iter()
            .map(|update| update.frame)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tokio::sync::broadcast;

    use super::*;

    fn update(room: &str, game: &'static str, frame: &str) -> LobbyUpdate {
        LobbyUpdate {
            room: Arc::from(room),
            game,
            frame: ByteString::from(frame.to_owned()),
        }
    }

    #[tokio::test]
    async fn changes_in_one_interval_leave_as_one_batch_with_the_latest_per_room() {
        let (feed, updates) = broadcast::channel(16);
        let flush = Duration::from_millis(250);
        let mut subscription = LobbySubscription::new(updates, Some("chess".into()), flush);
        feed.send(update("a", "chess", "a1")).unwrap();
        // The first change after a quiet spell leaves at once.
        assert_eq!(
            subscription.next().await,
            LobbyEvent::Updates(vec!["a1".into()])
        );
        let asked = Instant::now();
        for frame in ["a2", "b1", "a3", "b2"] {
            feed.send(update(&frame[..1], "chess", frame)).unwrap();
        }
        feed.send(update("c", "checkers", "c1")).unwrap();
        let batch = subscription.next().await;
        assert!(Instant::now() >= asked + flush, "waited for the interval");
        assert_eq!(batch, LobbyEvent::Updates(vec!["a3".into(), "b2".into()]));
    }

    #[tokio::test]
    async fn a_subscriber_that_fell_behind_gets_one_snapshot_per_interval() {
        let (feed, updates) = broadcast::channel(4);
        let flush = Duration::from_millis(250);
        let mut subscription = LobbySubscription::new(updates, None, flush);
        for index in 0..10 {
            feed.send(update(&format!("r{index}"), "chess", "x"))
                .unwrap();
        }
        assert_eq!(subscription.next().await, LobbyEvent::Behind);
        let first = Instant::now();
        // What was queued is covered by the snapshot; more lag waits for the interval.
        for index in 0..10 {
            feed.send(update(&format!("s{index}"), "chess", "y"))
                .unwrap();
        }
        assert_eq!(subscription.next().await, LobbyEvent::Behind);
        assert!(Instant::now() >= first + flush);
    }
}
