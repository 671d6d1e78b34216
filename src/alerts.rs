//! What a connection's task must hear out of turn, from whichever thread finds out: the
//! server is shutting down; the connection is to be closed (a room found it too slow to
//! keep up, or the operator banned its player); rooms it is in moved to another node of
//! a fleet (or stopped here because another node holds them now), which its task puts
//! it back into wherever they are.
//!
//! One atomic word and one waker stand for all three, so the task that waits on them
//! checks a word rather than polling three waits at every turn, and an idle connection
//! keeps one small allocation for them.

use std::future::poll_fn;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use futures_util::task::AtomicWaker;

use parlor_room::RoomId;

const SHUTDOWN: u8 = 1;
const KICKED: u8 = 2;
const MOVED: u8 = 4;

/// One connection's alerts. Cloning it is cheap and shares them; one task waits on them
/// (the connection's own), any may raise them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Alerts(Arc<Inner>);

#[derive(Debug, Default)]
struct Inner {
    raised: AtomicU8,
    moved: Mutex<Vec<RoomId>>,
    waiter: AtomicWaker,
}

/// An alert, as its waiter hears it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Alert {
    /// The server is shutting down (heard until the waiter stops waiting).
    Shutdown,
    /// The connection must be closed (heard until the waiter stops waiting).
    Kicked,
    /// Rooms were told moved since the last [`Alerts::take_moved`] (heard once per
    /// telling).
    Moved,
}

impl Alerts {
    /// Closes the connection: a room found its queue full, or the operator closed it.
    pub(crate) fn kick(&self) {
        self.raise(KICKED);
    }

    /// Whether the connection has been told to close.
    #[cfg(test)]
    pub(crate) fn is_kicked(&self) -> bool {
        self.0.raised.load(Ordering::Acquire) & KICKED != 0
    }

    /// Tells the connection that the server is shutting down.
    pub(crate) fn shut_down(&self) {
        self.raise(SHUTDOWN);
    }

    /// Tells the connection that `room` has moved.
    pub(crate) fn tell_moved(&self, room: &RoomId) {
        if let Ok(mut rooms) = self.0.moved.lock()
            && !rooms.contains(room)
        {
            rooms.push(room.clone());
        }
        self.raise(MOVED);
    }

    /// The rooms told moved since the last call, in the order they were first told.
    pub(crate) fn take_moved(&self) -> Vec<RoomId> {
        self.0
            .moved
            .lock()
            .map(|mut rooms| std::mem::take(&mut *rooms))
            .unwrap_or_default()
    }

    /// The next alert: at once if one is raised (even before anyone waited), else when
    /// one is. Shutdown comes before a kick, and both before rooms moved.
    pub(crate) async fn next(&self) -> Alert {
        poll_fn(|cx| self.poll_next(cx, SHUTDOWN | KICKED | MOVED)).await
    }

    /// Ends once the connection has been told to close, ignoring a shutdown (for a
    /// stream the server's shutdown ends otherwise).
    pub(crate) async fn kicked(&self) {
        poll_fn(|cx| self.poll_next(cx, KICKED)).await;
    }

    /// Ends when rooms have been told moved since the last time it ended.
    pub(crate) async fn moved(&self) {
        poll_fn(|cx| self.poll_next(cx, MOVED)).await;
    }

    /// Polls for the next of the `wanted` alerts, registering `cx` to hear of one.
    fn poll_next(&self, cx: &mut Context<'_>, wanted: u8) -> Poll<Alert> {
        if let Some(alert) = self.take_raised(wanted) {
            return Poll::Ready(alert);
        }
        self.0.waiter.register(cx.waker());
        // Raised between the first look and the registration: its wake may have missed.
        match self.take_raised(wanted) {
            Some(alert) => Poll::Ready(alert),
            None => Poll::Pending,
        }
    }

    fn raise(&self, alert: u8) {
        self.0.raised.fetch_or(alert, Ordering::AcqRel);
        self.0.waiter.wake();
    }

    /// The alert of `wanted` to hear now, if any; rooms moved is heard once per telling.
    fn take_raised(&self, wanted: u8) -> Option<Alert> {
        let raised = self.0.raised.load(Ordering::Acquire) & wanted;
        if raised & SHUTDOWN != 0 {
            Some(Alert::Shutdown)
        } else if raised & KICKED != 0 {
            Some(Alert::Kicked)
        } else if raised & MOVED != 0 {
            self.0.raised.fetch_and(!MOVED, Ordering::AcqRel);
            Some(Alert::Moved)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_room_told_before_anyone_waits_is_heard_once() {
        let alerts = Alerts::default();
        let (a, b) = (RoomId::from("a"), RoomId::from("b"));
        alerts.tell_moved(&a);
        alerts.tell_moved(&b);
        alerts.tell_moved(&a);
        assert_eq!(alerts.clone().next().await, Alert::Moved);
        assert_eq!(alerts.take_moved(), [a, b]);
        assert!(alerts.take_moved().is_empty());
        let mut cx = Context::from_waker(std::task::Waker::noop());
        assert_eq!(alerts.poll_next(&mut cx, MOVED | KICKED), Poll::Pending);
        alerts.shut_down();
        assert_eq!(alerts.poll_next(&mut cx, MOVED | KICKED), Poll::Pending);
    }

    #[tokio::test]
    async fn a_kick_raised_from_another_task_wakes_the_waiter_and_stays() {
        let alerts = Alerts::default();
        let raiser = alerts.clone();
        let waiting = tokio::spawn(async move { alerts.next().await });
        tokio::task::yield_now().await;
        raiser.tell_moved(&RoomId::from("a"));
        raiser.kick();
        let heard = waiting.await.ok();
        assert!(matches!(heard, Some(Alert::Kicked | Alert::Moved)));
        assert!(raiser.is_kicked());
        assert_eq!(raiser.next().await, Alert::Kicked);
        raiser.shut_down();
        assert_eq!(raiser.next().await, Alert::Shutdown);
    }
}
