//! Rooms as actors: each room's rules are `parlor_room`'s pure state machine, run by
//! one task (`actor`) that owns its connections, timers and store writes and is reached
//! only through a cheap cloneable [`RoomHandle`]; also what every room shares.

mod actor;
mod caller;
mod fanout;
mod handle;
mod hosts;
pub(crate) mod probe;
mod recent;
mod resume;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use bytestring::ByteString;
use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::metrics::Metrics;
use crate::protocol::Updates;
use crate::store::Store;
use crate::thinkers::Thinkers;
use parlor_room::{Now, RoomSettings};

pub(crate) use crate::alerts::{Alert, Alerts};
pub(crate) use caller::Caller;
pub(crate) use handle::{Creator, RoomHandle, StateUnread};
pub(crate) use hosts::RoomHosts;
pub(crate) use parlor_room::ConnId;
pub(crate) use resume::{ResumeError, resume};

/// How many frames may wait for a slow client before it is disconnected.
pub(crate) const OUTBOX_FRAMES: usize = 256;

/// Where the rooms queue a connection's frames: bounded to [`OUTBOX_FRAMES`], a room
/// that finds it full drops the connection.
pub(crate) type Outbox = flume::Sender<Frame>;

/// The reading end of an [`Outbox`]: whatever writes the connection's frames out.
pub(crate) type OutboxReader = flume::Receiver<Frame>;

/// A new connection's outbox. flume's queue allocates its buffer on the first frame,
/// so an idle connection keeps about 270 bytes for it (its shared state, the reader's
/// registration and the emptied queue), where tokio's channel allocates 32 slots and
/// its padded shared state up front, about 770.
pub(crate) fn outbox() -> (Outbox, OutboxReader) {
    flume::bounded(OUTBOX_FRAMES)
}

/// The next connection number: unique in this process, whether the connection is a
/// socket here or a client of another node of a fleet in one of this node's rooms.
pub(crate) fn new_conn_id() -> ConnId {
    static NEXT_CONN: AtomicU64 = AtomicU64::new(1);
    NEXT_CONN.fetch_add(1, Ordering::Relaxed)
}

/// An encoded frame as queued to subscribers: one allocation shared by every
/// recipient, and a single pointer in each queue.
pub(crate) type Frame = Arc<ByteString>;

/// A connection's outbound side, as a room sees it: a bounded queue of encoded frames,
/// and the alerts by which a room drops a subscriber that cannot keep up or tells it
/// the room moved.
#[derive(Clone, Debug)]
pub(crate) struct Subscriber {
    /// The connection.
    pub(crate) conn: ConnId,
    /// Frames to write, shared between subscribers.
    pub(crate) outbox: Outbox,
    /// Kicked when this connection must be closed (its queue overflowed, or the
    /// operator closed it); told when a room it is in has moved to another node of a
    /// fleet (its task puts it back into the room there).
    pub(crate) alerts: Alerts,
    /// Set once the connection has been counted as dropped for not reading.
    pub(crate) dropped: Arc<AtomicBool>,
    /// How the connection hears of moves: full states, or `moved` events.
    pub(crate) updates: Updates,
}

impl Subscriber {
    /// A subscriber for connection `conn`, whose frames go to `outbox`.
    pub(crate) fn new(conn: ConnId, outbox: Outbox) -> Subscriber {
        Subscriber {
            conn,
            outbox,
            alerts: Alerts::default(),
            dropped: Arc::default(),
            updates: Updates::default(),
        }
    }

    /// Counts the connection in `parlor_slow_consumers_dropped_total` as dropped for
    /// not reading, once, whoever finds it first: a room whose queue for it is full, or
    /// its session when a write stalls. Whether this call counted it.
    pub(crate) fn count_drop(&self, metrics: &Metrics) -> bool {
        let first = !self.dropped.swap(true, Ordering::Relaxed);
        if first {
            metrics.slow_consumers_dropped.inc();
        }
        first
    }
}

/// What every room shares: storage, configuration, and the server's shutdown signal.
pub(crate) struct RoomContext {
    /// Where games and moves are recorded.
    pub(crate) store: Arc<dyn Store>,
    /// The server's configuration.
    pub(crate) config: Arc<Config>,
    /// What the rooms' rules read of it.
    pub(crate) settings: Arc<RoomSettings>,
    /// Where bots think.
    pub(crate) thinkers: Thinkers,
    /// Cancelled when the server shuts down.
    pub(crate) shutdown: CancellationToken,
    /// Where rooms count moves, broadcasts and their own number.
    pub(crate) metrics: Arc<crate::metrics::Metrics>,
    /// Who follows room listings; a room wakes its listing watcher only while anyone does.
    pub(crate) listing_followers: Arc<dyn ListingFollowers>,
    /// Woken when a room stops because the store refused its write under its token
    /// (another server holds its game now): in a fleet, the keeper of the leases then
    /// gives that room's lease up at once rather than at its next round.
    pub(crate) fenced_out: Arc<tokio::sync::Notify>,
}

/// How a room learns, without knowing the lobby, whether anyone follows room listings:
/// the lobby implements it, so rooms never depend on the lobby.
pub(crate) trait ListingFollowers: Send + Sync {
    /// Whether anyone follows room listings right now.
    fn any(&self) -> bool;
}

/// The time as a room's machine takes it, read now.
pub(crate) fn now() -> Now {
    Now {
        at: Instant::now(),
        unix_ms: unix_ms(SystemTime::now()),
    }
}

/// The wall clock in Unix milliseconds, for stored timestamps.
pub(crate) fn unix_ms(time: SystemTime) -> i64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
