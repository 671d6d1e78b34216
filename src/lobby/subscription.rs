//! One connection's subscription to the lobby feed, coalesced: at most one batch every
//! `limits.lobby_flush_ms`, holding the latest `lobby_update` of each room that changed
//! since the last batch, so a burst of changes (one client creating rooms by the
//! thousand) costs each subscriber one frame per room per interval, not one per change.
//! A subscriber that fell so far behind that the feed dropped updates gets one fresh
//! snapshot instead, again at most once per interval.

use parlor_rules::GameKind;
use std::collections::HashMap;
use std::time::Duration;

use bytestring::ByteString;
use parlor_room::RoomId;
use tokio::sync::broadcast::Receiver;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::time::{Instant, sleep_until};

use super::LobbyUpdate;

/// A connection's subscription to the lobby feed.
///
/// What has been received but not yet handed out is kept here, not in the future
/// [`next`](Self::next) returns, because the session polls that future in a `select!`
/// and drops it whenever another event comes first: nothing may be lost then.
#[derive(Debug)]
pub(crate) struct LobbySubscription {
    updates: Receiver<LobbyUpdate>,
    /// Only rooms of this game, if set.
    game: Option<GameKind>,
    flush_every: Duration,
    /// The next batch may not leave before this.
    next_flush: Instant,
    /// Changes received for the next batch.
    pending: Batch,
    /// The feed dropped updates this subscriber had not read: it needs a snapshot.
    behind: bool,
}

/// What the lobby feed has for a subscriber.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum LobbyEvent {
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
    pub(crate) fn new(
        updates: Receiver<LobbyUpdate>,
        game: Option<GameKind>,
        flush_every: Duration,
    ) -> Self {
        Self {
            updates,
            game,
            flush_every,
            next_flush: Instant::now(),
            pending: Batch::default(),
            behind: false,
        }
    }

    /// The game the subscription is limited to.
    pub(crate) fn game(&self) -> Option<GameKind> {
        self.game
    }

    /// The next batch for this subscriber: waits for a change to one of its rooms, then
    /// until the flush interval since the last batch has passed, and merges everything
    /// that arrived meanwhile. Waits forever if the feed has closed, which happens only
    /// as the server stops. Cancel-safe: a dropped call loses nothing it received.
    pub(crate) async fn next(&mut self) -> LobbyEvent {
        while !self.behind && self.pending.is_empty() {
            match self.updates.recv().await {
                Ok(update) => self.keep(update),
                Err(RecvError::Lagged(_)) => self.fall_behind(),
                Err(RecvError::Closed) => std::future::pending::<()>().await,
            }
        }
        sleep_until(self.next_flush).await;
        while !self.behind {
            match self.updates.try_recv() {
                Ok(update) => self.keep(update),
                Err(TryRecvError::Lagged(_)) => self.fall_behind(),
                Err(TryRecvError::Empty | TryRecvError::Closed) => break,
            }
        }
        self.next_flush = Instant::now() + self.flush_every;
        if std::mem::take(&mut self.behind) {
            // Skip whatever is still queued: the snapshot the caller sends next covers it.
            self.updates = self.updates.resubscribe();
            return LobbyEvent::Behind;
        }
        LobbyEvent::Updates(std::mem::take(&mut self.pending).frames())
    }

    fn keep(&mut self, update: LobbyUpdate) {
        if self.game.is_none_or(|game| game == update.summary.game) {
            self.pending.add(update);
        }
    }

    /// Updates were dropped: the batch so far is moot, a snapshot replaces it.
    fn fall_behind(&mut self) {
        self.behind = true;
        self.pending = Batch::default();
    }
}

/// The next lobby event of a subscription; never resolves without one.
///
/// The wait is boxed: every session waits on this beside its other events, and most
/// connections never follow the lobby, so their futures should not keep room for it.
pub(crate) async fn next_lobby_event(subscription: Option<&mut LobbySubscription>) -> LobbyEvent {
    match subscription {
        Some(subscription) => Box::pin(subscription.next()).await,
        None => std::future::pending().await,
    }
}

/// Updates merged by room: the latest of each, in the order rooms first changed.
#[derive(Debug, Default)]
struct Batch {
    updates: Vec<LobbyUpdate>,
    /// Where each room's update is in `updates`.
    places: HashMap<RoomId, usize>,
}

impl Batch {
    fn is_empty(&self) -> bool {
        self.updates.is_empty()
    }

    fn add(&mut self, update: LobbyUpdate) {
        match self.places.get(&update.summary.room) {
            Some(&place) => self.updates[place] = update,
            None => {
                self.places
                    .insert(update.summary.room.clone(), self.updates.len());
                self.updates.push(update);
            }
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

    use futures_util::FutureExt;
    use tokio::sync::broadcast;

    use super::*;
    use crate::protocol::{RoomSummary, Status, TimeControl};

    fn update(room: &str, game: GameKind, frame: &str) -> LobbyUpdate {
        LobbyUpdate {
            frame: ByteString::from(frame.to_owned()),
            summary: Arc::new(RoomSummary {
                room: room.into(),
                game,
                status: Status::Waiting,
                seats: Vec::new().into(),
                spectators: 0,
                moves: 0,
                time_control: TimeControl::default(),
                created_at_ms: 0,
            }),
        }
    }

    #[tokio::test]
    async fn changes_in_one_interval_leave_as_one_batch_with_the_latest_per_room() {
        let (feed, updates) = broadcast::channel(16);
        let flush = Duration::from_millis(250);
        let mut subscription = LobbySubscription::new(updates, Some(GameKind::Chess), flush);
        feed.send(update("a", GameKind::Chess, "a1")).unwrap();
        // The first change after a quiet spell leaves at once.
        assert_eq!(
            subscription.next().await,
            LobbyEvent::Updates(vec!["a1".into()])
        );
        let asked = Instant::now();
        for frame in ["a2", "b1", "a3", "b2"] {
            feed.send(update(&frame[..1], GameKind::Chess, frame))
                .unwrap();
        }
        feed.send(update("c", GameKind::Checkers, "c1")).unwrap();
        let batch = subscription.next().await;
        assert!(Instant::now() >= asked + flush, "waited for the interval");
        assert_eq!(batch, LobbyEvent::Updates(vec!["a3".into(), "b2".into()]));
    }

    /// A subscription to a feed holding `capacity` updates, with a 200 ms interval, that
    /// has just sent its first batch: the next one waits for the interval.
    async fn just_flushed(capacity: usize) -> (broadcast::Sender<LobbyUpdate>, LobbySubscription) {
        let (feed, updates) = broadcast::channel(capacity);
        let mut subscription = LobbySubscription::new(updates, None, Duration::from_millis(200));
        feed.send(update("a", GameKind::Chess, "a1")).unwrap();
        assert_eq!(
            subscription.next().await,
            LobbyEvent::Updates(vec!["a1".into()])
        );
        (feed, subscription)
    }

    /// Moves the end of `subscription`'s interval: far ahead, so that a call is surely
    /// still waiting for it when the test drops it, however slow the machine; or to now.
    fn interval_ends_in(subscription: &mut LobbySubscription, from_now: Duration) {
        subscription.next_flush = Instant::now() + from_now;
    }

    #[tokio::test]
    async fn a_batch_survives_its_call_being_dropped() {
        let (feed, mut subscription) = just_flushed(16).await;
        // The next change waits for the interval; the session's select! drops the call
        // meanwhile, as it does whenever another event comes first.
        interval_ends_in(&mut subscription, Duration::from_secs(3_600));
        feed.send(update("b", GameKind::Chess, "b1")).unwrap();
        let dropped = subscription.next().now_or_never();
        assert_eq!(dropped, None, "still waiting for the interval");
        feed.send(update("c", GameKind::Chess, "c1")).unwrap();
        interval_ends_in(&mut subscription, Duration::ZERO);
        assert_eq!(
            subscription.next().await,
            LobbyEvent::Updates(vec!["b1".into(), "c1".into()])
        );
    }

    #[tokio::test]
    async fn falling_behind_survives_the_call_being_dropped() {
        let (feed, mut subscription) = just_flushed(4).await;
        interval_ends_in(&mut subscription, Duration::from_secs(3_600));
        for index in 0..10 {
            feed.send(update(&format!("r{index}"), GameKind::Chess, "x"))
                .unwrap();
        }
        let dropped = subscription.next().now_or_never();
        assert_eq!(dropped, None, "still waiting for the interval");
        interval_ends_in(&mut subscription, Duration::ZERO);
        assert_eq!(subscription.next().await, LobbyEvent::Behind);
    }

    #[tokio::test]
    async fn a_subscriber_that_fell_behind_gets_one_snapshot_per_interval() {
        let (feed, updates) = broadcast::channel(4);
        let flush = Duration::from_millis(250);
        let mut subscription = LobbySubscription::new(updates, None, flush);
        for index in 0..10 {
            feed.send(update(&format!("r{index}"), GameKind::Chess, "x"))
                .unwrap();
        }
        assert_eq!(subscription.next().await, LobbyEvent::Behind);
        let first = Instant::now();
        // What was queued is covered by the snapshot; more lag waits for the interval.
        for index in 0..10 {
            feed.send(update(&format!("s{index}"), GameKind::Chess, "y"))
                .unwrap();
        }
        assert_eq!(subscription.next().await, LobbyEvent::Behind);
        assert!(Instant::now() >= first + flush);
    }
}
