//! Sending a room's frames to its audience without letting the audience cost the
//! players: frames encoded once and shared (a move in its two forms, each only if
//! someone takes it), a snapshot encoded once for a burst of newcomers, and
//! subscribers that cannot keep up dropped once, quietly, with the warnings summarised.

use std::cell::OnceCell;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use flume::TrySendError;
use serde::Serialize;
use std::time::Instant;
use tracing::warn;

use super::{ConnId, Frame, Subscriber};
use crate::metrics::Metrics;
use crate::protocol::StateMsg;
use crate::protocol::{Updates, encode};

/// A snapshot (state with history) is encoded once and given to every newcomer of the
/// same `seq` for at most this long, so the clocks it shows are never more stale.
pub(super) const SNAPSHOT_REUSE: Duration = Duration::from_millis(250);

/// Dropped connections are logged at most once per this interval, as a count.
const DROP_LOG_EVERY: Duration = Duration::from_secs(5);

/// One broadcast, as the room sent it: the same frame for everyone, or a move that left
/// the game on, whose `moved` event goes to those who asked for moves as events and whose
/// `state` to the rest (each encoded only if someone took it).
#[derive(Clone, Debug)]
pub(super) enum Broadcast {
    /// A `state` or `game_over`, the same for everyone.
    Same(Frame),
    /// A `state` nobody but the connection it was announced to was there to hear,
    /// encoded only if a connection coming back from before it is sent it (§8.1).
    Unheard(Deferred),
    /// A move's two forms.
    Move {
        /// The `moved` event, if it was encoded.
        moved: Option<Frame>,
        /// The `state` of the same `seq`, if it was encoded.
        state: Option<Frame>,
    },
}

impl Broadcast {
    /// The frame a connection that hears of moves as `updates` says gets, if there is one.
    pub(super) fn for_updates(&self, updates: Updates) -> Option<&Frame> {
        match (self, updates) {
            (Broadcast::Same(frame), _) => Some(frame),
            (Broadcast::Unheard(deferred), _) => Some(deferred.frame()),
            (Broadcast::Move { moved, .. }, Updates::Moves) => moved.as_ref(),
            (Broadcast::Move { state, .. }, Updates::States) => state.as_ref(),
        }
    }
}

/// A `state` encoded the first time it is sent, if ever.
#[derive(Clone, Debug)]
pub(super) struct Deferred {
    msg: Box<StateMsg>,
    frame: OnceCell<Frame>,
}

impl Deferred {
    /// `msg`, not encoded yet.
    pub(super) fn new(msg: Box<StateMsg>) -> Deferred {
        Deferred {
            msg,
            frame: OnceCell::new(),
        }
    }

    /// The message's frame, encoded now if this is the first time.
    fn frame(&self) -> &Frame {
        self.frame.get_or_init(|| frame(&*self.msg))
    }
}

/// Queues a broadcast to each subscriber but `except`, in the form it asked for;
/// returns the connections whose queue was full. Those are kicked (their connection
/// closes; they may reconnect for a fresh snapshot) and counted, and the caller must
/// forget them without announcing it at once: announcing is another broadcast, which
/// could overflow more queues.
pub(super) fn fan_out<'a>(
    subscribers: impl Iterator<Item = &'a Subscriber>,
    broadcast: &Broadcast,
    except: Option<ConnId>,
    metrics: &Metrics,
) -> Vec<ConnId> {
    let mut dropped = Vec::new();
    let mut reached = 0;
    for sub in subscribers {
        if Some(sub.conn) == except {
            continue;
        }
        let Some(frame) = broadcast.for_updates(sub.updates) else {
            continue;
        };
        if send_to(sub, frame, metrics) {
            reached += 1;
        } else {
            dropped.push(sub.conn);
        }
    }
    metrics.broadcast_fanout.observe(reached as f64);
    dropped
}

/// Queues a frame to one subscriber, counting it; `false` if it cannot take it: a
/// subscriber whose queue is full is kicked and counted as dropped (once), one whose
/// connection has already closed is simply gone.
pub(super) fn send_to(sub: &Subscriber, frame: &Frame, metrics: &Metrics) -> bool {
    match sub.outbox.try_send(Frame::clone(frame)) {
        Ok(()) => {
            metrics.messages_out.inc();
            true
        }
        Err(TrySendError::Full(_)) => {
            sub.alerts.kick();
            if sub.count_drop(metrics) {
                DROPS.note();
            }
            false
        }
        Err(TrySendError::Disconnected(_)) => false,
    }
}

/// Encodes a message once as a frame to queue; it is shared by every recipient.
pub(super) fn frame<T: Serialize>(msg: &T) -> Frame {
    Frame::new(encode(msg))
}

/// The last snapshot (state with history) encoded for newcomers, by `seq`.
#[derive(Debug, Default)]
pub(super) struct Snapshots {
    last: Option<(u64, Instant, Frame)>,
}

impl Snapshots {
    /// The snapshot of `seq` encoded less than [`SNAPSHOT_REUSE`] ago, or a new one from
    /// `encode`, kept for the next newcomers.
    pub(super) fn get(&mut self, seq: u64, now: Instant, encode: impl FnOnce() -> Frame) -> Frame {
        match &self.last {
            Some((at_seq, made, frame)) if *at_seq == seq && now < *made + SNAPSHOT_REUSE => {
                Frame::clone(frame)
            }
            _ => {
                let frame = encode();
                self.last = Some((seq, now, Frame::clone(&frame)));
                frame
            }
        }
    }

    /// Lets the kept snapshot go: the room has changed since it was made.
    pub(super) fn forget(&mut self) {
        self.last = None;
    }

    /// When the kept snapshot may no longer be given to newcomers, if one is kept.
    pub(super) fn expiry(&self) -> Option<Instant> {
        self.last
            .as_ref()
            .map(|(_, made, _)| *made + SNAPSHOT_REUSE)
    }

    /// Lets the kept snapshot go if it may no longer be given to newcomers at `now`.
    pub(super) fn forget_expired(&mut self, now: Instant) {
        if self.expiry().is_some_and(|expiry| expiry <= now) {
            self.last = None;
        }
    }
}

/// Every room's dropped connections, logged as a count at most once per
/// [`DROP_LOG_EVERY`] (the metric `parlor_slow_consumers_dropped_total` counts each).
static DROPS: DropLog = DropLog::new();

/// Counts dropped connections and says how many in one warning per interval.
#[derive(Debug)]
struct DropLog {
    unlogged: AtomicU64,
    last_logged: Mutex<Option<std::time::Instant>>,
}

impl DropLog {
    const fn new() -> Self {
        Self {
            unlogged: AtomicU64::new(0),
            last_logged: Mutex::new(None),
        }
    }

    /// Counts one drop; logs the count if the interval has passed since the last log.
    fn note(&self) {
        self.unlogged.fetch_add(1, Ordering::Relaxed);
        if let Some(count) = self.due(std::time::Instant::now()) {
            warn!(
                count,
                "dropped connections that could not keep up (their outbound queue was full); \
                 at most one such summary every 5 s"
            );
        }
    }

    /// The count to log now, if it is time to log one (and resets it).
    fn due(&self, now: std::time::Instant) -> Option<u64> {
        let mut last = self.last_logged.lock().ok()?;
        if last.is_some_and(|at| now < at + DROP_LOG_EVERY) {
            return None;
        }
        *last = Some(now);
        Some(self.unlogged.swap(0, Ordering::Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subscriber(conn: ConnId, room_for: usize) -> (Subscriber, flume::Receiver<Frame>) {
        let (outbox, inbox) = flume::bounded(room_for);
        (Subscriber::new(conn, outbox), inbox)
    }

    #[test]
    fn a_full_queue_is_kicked_and_counted_once_and_the_others_still_served() {
        let metrics = Metrics::new().unwrap();
        let (full, _inbox) = subscriber(1, 1);
        let (roomy, roomy_inbox) = subscriber(2, 8);
        let frame = frame(&"x");
        let same = Broadcast::Same(Frame::clone(&frame));
        let subs = [full.clone(), roomy.clone()];
        assert!(fan_out(subs.iter(), &same, None, &metrics).is_empty());
        assert_eq!(fan_out(subs.iter(), &same, None, &metrics), vec![1]);
        assert_eq!(fan_out(subs.iter(), &same, None, &metrics), vec![1]);
        assert!(full.alerts.is_kicked());
        assert_eq!(metrics.slow_consumers_dropped.get(), 1);
        assert_eq!(roomy_inbox.try_recv().unwrap(), frame);
    }

    #[test]
    fn a_move_reaches_each_subscriber_in_the_form_it_asked_for() {
        let metrics = Metrics::new().unwrap();
        let (mut eventful, eventful_inbox) = subscriber(1, 8);
        eventful.updates = Updates::Moves;
        let (stately, stately_inbox) = subscriber(2, 8);
        let moved = frame(&"moved");
        let state = frame(&"state");
        let both = Broadcast::Move {
            moved: Some(Frame::clone(&moved)),
            state: Some(Frame::clone(&state)),
        };
        let subs = [eventful, stately];
        assert!(fan_out(subs.iter(), &both, None, &metrics).is_empty());
        assert_eq!(eventful_inbox.try_recv().unwrap(), moved);
        assert_eq!(stately_inbox.try_recv().unwrap(), state);
        let events_only = Broadcast::Move {
            moved: Some(Frame::clone(&moved)),
            state: None,
        };
        assert_eq!(events_only.for_updates(Updates::States), None);
        assert_eq!(events_only.for_updates(Updates::Moves), Some(&moved));
    }

    #[test]
    fn drops_are_logged_as_one_count_per_interval() {
        let log = DropLog::new();
        let start = std::time::Instant::now();
        for _ in 0..3 {
            log.unlogged.fetch_add(1, Ordering::Relaxed);
        }
        assert_eq!(log.due(start), Some(3));
        log.unlogged.fetch_add(1, Ordering::Relaxed);
        assert_eq!(log.due(start + Duration::from_secs(1)), None);
        log.unlogged.fetch_add(1, Ordering::Relaxed);
        assert_eq!(log.due(start + DROP_LOG_EVERY), Some(2));
    }

    #[test]
    fn newcomers_of_one_seq_share_a_snapshot_while_it_is_fresh() {
        let now = Instant::now();
        let mut snapshots = Snapshots::default();
        let first = snapshots.get(3, now, || frame(&"a"));
        let again = snapshots.get(3, now + Duration::from_millis(10), || frame(&"b"));
        assert!(Frame::ptr_eq(&first, &again));
        let stale = snapshots.get(3, now + SNAPSHOT_REUSE, || frame(&"c"));
        assert_eq!(stale.as_ref(), "\"c\"");
        let next = snapshots.get(4, now + SNAPSHOT_REUSE, || frame(&"d"));
        assert_eq!(next.as_ref(), "\"d\"");
    }

    #[test]
    fn a_forgotten_snapshot_is_made_anew() {
        let now = Instant::now();
        let mut snapshots = Snapshots::default();
        snapshots.get(3, now, || frame(&"a"));
        snapshots.forget();
        let after = snapshots.get(3, now, || frame(&"b"));
        assert_eq!(after.as_ref(), "\"b\"");
    }

    #[test]
    fn a_snapshot_is_kept_until_newcomers_may_no_longer_share_it() {
        let now = Instant::now();
        let mut snapshots = Snapshots::default();
        assert_eq!(snapshots.expiry(), None);
        snapshots.get(3, now, || frame(&"a"));
        assert_eq!(snapshots.expiry(), Some(now + SNAPSHOT_REUSE));
        snapshots.forget_expired(now + SNAPSHOT_REUSE - Duration::from_millis(1));
        assert_eq!(snapshots.expiry(), Some(now + SNAPSHOT_REUSE));
        snapshots.forget_expired(now + SNAPSHOT_REUSE);
        assert_eq!(snapshots.expiry(), None);
    }
}
