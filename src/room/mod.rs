//! Rooms: each room's rules are a pure state machine (`state`) run by one task
//! (`actor`) that owns its connections and timers and is reached only through a cheap
//! cloneable [`RoomHandle`]; also what every room shares and the room options.

mod actor;
mod clock;
mod command;
mod fanout;
mod handle;
mod hosts;
pub(crate) mod probe;
mod recent;
mod resume;
mod seats;
mod state;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use bytestring::ByteString;
use serde_json::{Map, Value};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::cluster::Cluster;
use crate::config::{Config, Takeover};
use crate::metrics::Metrics;
use crate::protocol::{ClientError, ErrorCode, TimeControl, Updates};
use crate::store::Store;
use crate::thinkers::Thinkers;
use parlor_room::PlayerId;

pub(crate) use command::{Asked, Caller, Request, RoomCommand};
pub(crate) use handle::{Creator, RoomHandle, StateUnread};
pub(crate) use hosts::RoomHosts;
pub(crate) use resume::{ResumeError, resume};
pub(crate) use seats::SeatSpec;
pub(crate) use state::Now;

/// Identifies one WebSocket connection for as long as the process runs.
pub(crate) type ConnId = u64;

/// How many frames may wait for a slow client before it is disconnected.
pub(crate) const OUTBOX_FRAMES: usize = 256;

/// The next connection number: unique in this process, whether the connection is a
/// socket here or a client of another node of a fleet in one of this node's rooms.
pub(crate) fn new_conn_id() -> ConnId {
    static NEXT_CONN: AtomicU64 = AtomicU64::new(1);
    NEXT_CONN.fetch_add(1, Ordering::Relaxed)
}

/// An encoded frame as queued to subscribers: one allocation shared by every
/// recipient, and a single pointer in each queue. A tokio channel allocates its first
/// 32 slots when it is made, so with a 32-byte `ByteString` per slot every idle
/// connection would carry 1 KiB of empty queue; with a pointer it is 256 bytes.
pub(crate) type Frame = Arc<ByteString>;

/// A connection's outbound side, as a room sees it: a bounded queue of encoded frames
/// and a token the room cancels to drop a subscriber that cannot keep up.
#[derive(Clone, Debug)]
pub(crate) struct Subscriber {
    /// The connection.
    pub(crate) conn: ConnId,
    /// Frames to write, shared between subscribers.
    pub(crate) outbox: mpsc::Sender<Frame>,
    /// Cancelled when this connection must be closed because its queue overflowed.
    pub(crate) kick: CancellationToken,
    /// Cancelled when this connection must be closed because a room it is in has moved
    /// to another node of a fleet: the client reconnects and rejoins, as after a restart.
    pub(crate) moved: CancellationToken,
    /// Set once the connection has been counted as dropped for not reading.
    pub(crate) dropped: Arc<AtomicBool>,
    /// How the connection hears of moves: full states, or `moved` events.
    pub(crate) updates: Updates,
}

impl Subscriber {
    /// A subscriber for connection `conn`, whose frames go to `outbox`.
    pub(crate) fn new(conn: ConnId, outbox: mpsc::Sender<Frame>) -> Subscriber {
        Subscriber {
            conn,
            outbox,
            kick: CancellationToken::new(),
            moved: CancellationToken::new(),
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

/// A human player as a room knows them.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct PlayerInfo {
    /// The player's public id.
    pub(crate) player_id: PlayerId,
    /// The player's name.
    pub(crate) name: String,
}

/// What every room shares: storage, configuration, and the server's shutdown signal.
pub(crate) struct RoomContext {
    /// Where games and moves are recorded.
    pub(crate) store: Arc<dyn Store>,
    /// The server's configuration.
    pub(crate) config: Arc<Config>,
    /// Where bots think.
    pub(crate) thinkers: Thinkers,
    /// Cancelled when the server shuts down.
    pub(crate) shutdown: CancellationToken,
    /// Where rooms count moves, broadcasts and their own number.
    pub(crate) metrics: Arc<crate::metrics::Metrics>,
    /// Who follows room listings; a room wakes its listing watcher only while anyone does.
    pub(crate) listing_followers: Arc<dyn ListingFollowers>,
    /// The fleet this server is a node of, if any: a new room takes its lease there.
    pub(crate) cluster: Option<Cluster>,
}

/// How a room learns, without knowing the lobby, whether anyone follows room listings:
/// the lobby implements it, so rooms never depend on the lobby.
pub(crate) trait ListingFollowers: Send + Sync {
    /// Whether anyone follows room listings right now.
    fn any(&self) -> bool;
}

/// Room options given at `create_room`. Unknown keys are refused, so every option a
/// client sends is one the server honours.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RoomOptions {
    /// Start from this position (the game's standard text form) instead of the usual
    /// start; such games are never scored.
    pub(crate) start: Option<String>,
    /// What happens to an absent player's seat after the reconnect grace; `None` means
    /// the server's `rooms.takeover`.
    pub(crate) takeover: Option<Takeover>,
    /// The time control (none by default).
    pub(crate) time_control: TimeControl,
    /// Left out of every listing (`list_rooms`, the lobby, `GET /api/rooms`) and of
    /// `quick_join`; reachable only by its id.
    pub(crate) private: bool,
    raw: Map<String, Value>,
}

impl RoomOptions {
    /// Every option name this server knows.
    pub(crate) const KNOWN: &[&str] = &["private", "start", "takeover", "time_control"];

    /// Checks every option; an unknown or mistyped one is refused with `bad_option`.
    pub(crate) fn parse(raw: Option<Map<String, Value>>) -> Result<Self, ClientError> {
        let raw = raw.unwrap_or_default();
        let mut options = RoomOptions::default();
        for (key, value) in &raw {
            match (key.as_str(), value) {
                ("start", Value::String(position)) => options.start = Some(position.clone()),
                ("private", Value::Bool(private)) => options.private = *private,
                ("private", _) => {
                    return Err(ClientError::new(
                        ErrorCode::BadOption,
                        "Option \"private\" must be true or false.",
                    ));
                }
                ("takeover", Value::String(text)) => {
                    let takeover = text.parse().map_err(|why: String| {
                        ClientError::new(
                            ErrorCode::BadOption,
                            format!("Option \"takeover\": {why}."),
                        )
                    })?;
                    options.takeover = Some(takeover);
                }
                ("time_control", value) => {
                    let control: TimeControl = serde_json::from_value(value.clone()).map_err(|why| {
                        ClientError::new(
                            ErrorCode::BadOption,
                            format!("Option \"time_control\" is not a time control ({why}); use {{\"kind\":\"none\"}}, {{\"kind\":\"per_move\",\"per_move_ms\":N}} or {{\"kind\":\"fischer\",\"base_ms\":N,\"increment_ms\":N}}."),
                        )
                    })?;
                    control.validate().map_err(|why| {
                        ClientError::new(
                            ErrorCode::BadOption,
                            format!("Option \"time_control\": {why}."),
                        )
                    })?;
                    options.time_control = control;
                }
                ("takeover", _) => {
                    return Err(ClientError::new(
                        ErrorCode::BadOption,
                        "Option \"takeover\" must be a string: none, random, easy, medium or hard.",
                    ));
                }
                ("start", _) => {
                    return Err(ClientError::new(
                        ErrorCode::BadOption,
                        "Option \"start\" must be a position written as a string in the game's own form (a FEN for chess, a PDN FEN for checkers, side:Ffox:Ggeese for Fox & Geese).",
                    ));
                }
                _ => {
                    return Err(ClientError::new(
                        ErrorCode::BadOption,
                        format!(
                            "There is no room option \"{key}\". Known options: {}.",
                            Self::KNOWN.join(", ")
                        ),
                    ));
                }
            }
        }
        options.raw = raw;
        Ok(options)
    }

    /// Whether games in this room count for scores: not when they start from a given position.
    pub(crate) fn scored(&self) -> bool {
        self.start.is_none()
    }

    /// The options as a JSON object, as stored with each game.
    pub(crate) fn to_json(&self) -> String {
        Value::Object(self.raw.clone()).to_string()
    }
}

/// The time as a room's machine takes it, read now.
pub(crate) fn now() -> Now {
    Now {
        at: tokio::time::Instant::now(),
        unix_ms: unix_ms(SystemTime::now()),
    }
}

/// The wall clock in Unix milliseconds, for stored timestamps.
pub(crate) fn unix_ms(time: SystemTime) -> i64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
