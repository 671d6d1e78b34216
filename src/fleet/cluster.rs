//! A node's part in a fleet: its holds on rooms (leases) in Redis, each with a fencing
//! token the store checks, renewed while the node lives and given up when it stops.
//!
//! A room's lease is the key `<prefix>:room:<id>:owner`, holding the owner's node id and
//! expiring after `cluster.lease_ms` unless renewed. Whoever sets it (only if absent)
//! also increments `<prefix>:room:<id>:fence` and writes under the new value, which the
//! store keeps with the room's game: a node that lost a room, even one that does not
//! know it yet, can never write for it again. Each step that reads and then writes runs
//! as one Lua script, so Redis performs it atomically; nothing here is a consensus of
//! our own. What each node lists for the fleet's lobby is kept in `listing`.

mod bans;
mod bot_api;
mod limits;
mod listing;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::io::tcp::{TcpSettings, socket2};
use redis::{AsyncCommands, Script};

use parlor_room::{NodeId, RoomId};

use crate::config::ClusterConfig;
use crate::store::{Fence, FleetIdentity};

pub(crate) use bot_api::KeptChallenge;
pub(crate) use listing::ListingWrite;

/// Sets the owner key if it is absent, and then takes the next fencing token.
const CLAIM: &str = r"
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('INCR', KEYS[2])
end
return 0
";

/// Extends each owner key this node still holds, and takes back each that lapsed with
/// nobody taking it (Redis was out of reach longer than a lease: the store's fence still
/// guards the game, so a node that took it over meanwhile stops this one's writes);
/// returns the (1-based) positions of those another node holds.
const RENEW: &str = r"
local lost = {}
for i, key in ipairs(KEYS) do
  local holder = redis.call('GET', key)
  if holder == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
  elseif holder == false then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
  else
    table.insert(lost, i)
  end
end
return lost
";

/// Deletes the owner key if this node still holds it.
const RELEASE: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
";

/// Raises the fencing counter to at least ARGV[1] (after Redis lost its data, the
/// counters would start again below the tokens the store keeps).
const RAISE: &str = r"
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1])
end
return 0
";

/// How many rooms a list of rooms waiting for a second player keeps: stale entries
/// (rooms that filled on their own node) are skipped as they are taken.
const WAITING_KEPT: isize = 1000;

/// How many leases one renewal renews at most. Redis runs a script alone, and the
/// fleet's frames wait behind it: a node holding thousands of rooms (finished ones stay
/// listed for `rooms.idle_secs`) renews them in steps of this many, each holding Redis
/// for about half a millisecond, where one script for 8,162 rooms held it for 34 ms.
const RENEWED_AT_ONCE: usize = 128;

/// How long one request to Redis may take before it fails, at most: a quarter of the
/// lease, so that one slow renewal cannot outlast it.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(2);

/// Why the fleet's coordination failed.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// `cluster.redis_url` is not a URL the Redis client accepts.
    #[error(
        "cluster.redis_url is not a Redis URL ({0}); write it as redis://host:port or rediss://host:port"
    )]
    BadUrl(String),
    /// Redis could not be reached at start-up.
    #[error(
        "could not connect to Redis at {place}: {source}; check cluster.redis_url and that Redis is running"
    )]
    Unreachable {
        /// The host and port tried.
        place: String,
        /// What the client reported.
        source: redis::RedisError,
    },
    /// A request to Redis failed.
    #[error("a request to Redis failed: {0}")]
    Redis(#[from] redis::RedisError),
    /// Redis did not answer a health check's `PING` in time.
    #[error(
        "Redis did not answer PING within {within_ms} ms; check that it runs and that the network to it is not cut"
    )]
    Unanswered {
        /// How long it was given, ms.
        within_ms: u64,
    },
}

/// This node's membership of the fleet: who it is, and its connection to Redis.
/// Cloning it is cheap and shares the connection.
#[derive(Clone)]
pub(crate) struct Cluster {
    node: NodeId,
    prefix: String,
    lease: Duration,
    owns_rooms: bool,
    client: redis::Client,
    redis: ConnectionManager,
    claim: Script,
    renew: Script,
    release: Script,
    raise: Script,
    /// The rooms this node has claimed and not given up or lost, to hand over when it
    /// stops (by then its rooms have left the lobby).
    held: Arc<Mutex<HashSet<RoomId>>>,
    /// The fleet this node belongs to, as the database's registry of servers knows it.
    fleet: FleetIdentity,
}

impl Cluster {
    /// Connects to the Redis at `config.redis_url` as a new node (with a fresh random id).
    pub(crate) async fn connect(
        config: &ClusterConfig,
        url: &str,
    ) -> Result<Cluster, ClusterError> {
        let bad_url = |error: redis::RedisError| {
            ClusterError::BadUrl(error.detail().unwrap_or("unreadable").to_owned())
        };
        let info = redis::IntoConnectionInfo::into_connection_info(url).map_err(bad_url)?;
        let client = redis::Client::open(info.set_tcp_settings(tcp_settings())).map_err(bad_url)?;
        let place = client.get_connection_info().addr().to_string();
        let lease = Duration::from_millis(config.lease_ms);
        let timeout = RESPONSE_TIMEOUT.min(lease / 4);
        let manager = ConnectionManagerConfig::new()
            .set_response_timeout(Some(timeout))
            .set_connection_timeout(Some(timeout));
        let mut redis = client
            .get_connection_manager_with_config(manager)
            .await
            .map_err(|source| ClusterError::Unreachable {
                place: place.clone(),
                source,
            })?;
        let fleet = FleetIdentity {
            id: fleet_id(&mut redis, &config.key_prefix).await?,
            coordinator: format!(
                "Redis {place} under the key prefix \"{}\"",
                config.key_prefix
            ),
        };
        Ok(Cluster {
            node: NodeId::from(format!("{:016x}", rand::random::<u64>())),
            prefix: config.key_prefix.clone(),
            lease,
            owns_rooms: config.owns_rooms,
            client,
            redis,
            claim: Script::new(CLAIM),
            renew: Script::new(RENEW),
            release: Script::new(RELEASE),
            raise: Script::new(RAISE),
            held: Arc::default(),
            fleet,
        })
    }

    /// The fleet this node belongs to.
    pub(crate) fn fleet(&self) -> &FleetIdentity {
        &self.fleet
    }

    /// Writes the fleet's id back to Redis, where a Redis that lost its data (restarted
    /// without persistence) would otherwise let the next node to start mint another one
    /// and be refused by the database as a stranger to this fleet.
    pub(crate) async fn keep_fleet_id(&self) -> Result<(), ClusterError> {
        let mut redis = self.redis.clone();
        let () = redis
            .set(fleet_key(&self.prefix), self.fleet.id.as_str())
            .await?;
        Ok(())
    }

    /// This node's id in the fleet.
    pub(crate) fn node(&self) -> &NodeId {
        &self.node
    }

    /// How long a lease lasts without renewal.
    pub(crate) fn lease(&self) -> Duration {
        self.lease
    }

    /// Whether this node holds rooms (`cluster.owns_rooms`).
    pub(crate) fn owns_rooms(&self) -> bool {
        self.owns_rooms
    }

    /// Asks Redis `PING`: `Ok` if it answered within `within` (a health check).
    pub(crate) async fn ping(&self, within: Duration) -> Result<(), ClusterError> {
        let mut redis = self.redis.clone();
        let ping = redis::cmd("PING");
        let asked = ping.query_async::<String>(&mut redis);
        match tokio::time::timeout(within, asked).await {
            Ok(answered) => answered.map(drop).map_err(ClusterError::from),
            Err(_) => Err(ClusterError::Unanswered {
                within_ms: u64::try_from(within.as_millis()).unwrap_or(u64::MAX),
            }),
        }
    }

    fn owner_key(&self, room: &RoomId) -> String {
        format!("{}:room:{room}:owner", self.prefix)
    }

    fn fence_key(&self, room: &RoomId) -> String {
        format!("{}:room:{room}:fence", self.prefix)
    }

    fn lease_ms(&self) -> u64 {
        u64::try_from(self.lease.as_millis()).unwrap_or(u64::MAX)
    }

    /// Takes `room` for this node if no node holds it: its new fencing token, or `None`
    /// if another node holds it.
    pub(crate) async fn claim(&self, room: &RoomId) -> Result<Option<Fence>, ClusterError> {
        let mut redis = self.redis.clone();
        let token: i64 = self
            .claim
            .key(self.owner_key(room))
            .key(self.fence_key(room))
            .arg(self.node.as_str())
            .arg(self.lease_ms())
            .invoke_async(&mut redis)
            .await?;
        if token > 0 {
            self.note(|held| held.insert(room.clone()));
        }
        Ok((token > 0).then_some(Fence(token)))
    }

    /// Renews this node's leases on `rooms` (taking back those that lapsed while no node
    /// took them); returns those another node holds now.
    pub(crate) async fn renew(&self, rooms: &[RoomId]) -> Result<Vec<RoomId>, ClusterError> {
        if rooms.is_empty() {
            return Ok(Vec::new());
        }
        let mut redis = self.redis.clone();
        let mut lost = Vec::new();
        for step in rooms.chunks(RENEWED_AT_ONCE) {
            let mut invocation = self.renew.prepare_invoke();
            for room in step {
                invocation.key(self.owner_key(room));
            }
            invocation.arg(self.node.as_str()).arg(self.lease_ms());
            let positions: Vec<usize> = invocation.invoke_async(&mut redis).await?;
            lost.extend(
                positions
                    .into_iter()
                    .filter_map(|position| step.get(position.checked_sub(1)?).cloned()),
            );
        }
        self.note(|held| {
            for room in &lost {
                held.remove(room);
            }
        });
        Ok(lost)
    }

    /// Gives up this node's lease on `room`, so another node may take it at once.
    pub(crate) async fn release(&self, room: &RoomId) -> Result<(), ClusterError> {
        let mut redis = self.redis.clone();
        let _: i64 = self
            .release
            .key(self.owner_key(room))
            .arg(self.node.as_str())
            .invoke_async(&mut redis)
            .await?;
        self.note(|held| held.remove(room));
        Ok(())
    }

    /// The rooms this node holds, as far as it knows.
    pub(crate) fn held(&self) -> Vec<RoomId> {
        self.held
            .lock()
            .map(|held| held.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Updates the set of rooms this node holds.
    fn note<T>(&self, change: impl FnOnce(&mut HashSet<RoomId>) -> T) {
        if let Ok(mut held) = self.held.lock() {
            change(&mut held);
        }
    }

    /// Raises `room`'s fencing counter to at least `fence`, so that its next claim takes
    /// a token above it.
    pub(crate) async fn raise_fence(
        &self,
        room: &RoomId,
        fence: Fence,
    ) -> Result<(), ClusterError> {
        let mut redis = self.redis.clone();
        let _: i64 = self
            .raise
            .key(self.fence_key(room))
            .arg(fence.0)
            .invoke_async(&mut redis)
            .await?;
        Ok(())
    }

    /// The key of the fleet's list of rooms waiting, through `quick_join`, for a second
    /// player of the kind `wanted` names (a game and a time control).
    fn waiting_key(&self, wanted: &str) -> String {
        format!("{}:waiting:{wanted}", self.prefix)
    }

    /// Adds `room` to the rooms waiting for a player of the kind `wanted`, oldest first
    /// (at most [`WAITING_KEPT`] are kept).
    pub(crate) async fn offer_waiting(
        &self,
        wanted: &str,
        room: &RoomId,
    ) -> Result<(), ClusterError> {
        let key = self.waiting_key(wanted);
        let mut redis = self.redis.clone();
        let () = redis::pipe()
            .rpush(&key, room.as_str())
            .ignore()
            .ltrim(&key, -WAITING_KEPT, -1)
            .ignore()
            .query_async(&mut redis)
            .await?;
        Ok(())
    }

    /// Takes the oldest room waiting for a player of the kind `wanted`, if any: no other
    /// node can take the same one.
    pub(crate) async fn take_waiting(&self, wanted: &str) -> Result<Option<RoomId>, ClusterError> {
        let mut redis = self.redis.clone();
        let room: Option<String> = redis.lpop(self.waiting_key(wanted), None).await?;
        Ok(room.map(RoomId::from))
    }

    /// The channel the node `node` hears the fleet's messages for it on.
    fn inbox(&self, node: &NodeId) -> String {
        format!("{}:node:{node}", self.prefix)
    }

    /// Sends `message` to the node `node`; how many subscribers heard it (0 when that
    /// node is gone).
    pub(crate) async fn send(&self, node: &NodeId, message: &str) -> Result<u64, ClusterError> {
        let mut redis = self.redis.clone();
        let heard: u64 = redis.publish(self.inbox(node), message).await?;
        Ok(heard)
    }

    /// Listens on this node's inbox: every message sent to this node from the moment
    /// this returns, in the order each sender sent them, until the connection to Redis
    /// breaks (the stream then ends).
    pub(crate) async fn listen(
        &self,
    ) -> Result<impl futures_util::Stream<Item = String> + Send + use<>, ClusterError> {
        self.follow_channel(self.inbox(&self.node)).await
    }

    /// Publishes `text` on `channel`, to every node following it (this one included).
    async fn publish_on(&self, channel: String, text: &str) -> Result<(), ClusterError> {
        let mut redis = self.redis.clone();
        let _heard: u64 = redis.publish(channel, text).await?;
        Ok(())
    }

    /// Follows `channel`: every text published on it from the moment this returns, until
    /// the connection to Redis breaks (the stream then ends). Each channel's follower
    /// (inbox, listings, bans, the Bot API's events) is this one.
    async fn follow_channel(
        &self,
        channel: String,
    ) -> Result<impl futures_util::Stream<Item = String> + Send + use<>, ClusterError> {
        let mut pubsub = self.client.get_async_pubsub().await?;
        pubsub.subscribe(channel).await?;
        Ok(futures_util::StreamExt::filter_map(
            pubsub.into_on_message(),
            |message| futures_util::future::ready(message.get_payload::<String>().ok()),
        ))
    }

    /// The node holding each of `rooms`, if any.
    pub(crate) async fn owners(
        &self,
        rooms: &[RoomId],
    ) -> Result<Vec<Option<NodeId>>, ClusterError> {
        if rooms.is_empty() {
            return Ok(Vec::new());
        }
        let keys: Vec<String> = rooms.iter().map(|room| self.owner_key(room)).collect();
        let mut redis = self.redis.clone();
        let owners: Vec<Option<String>> = redis.mget(keys).await?;
        Ok(owners
            .into_iter()
            .map(|owner| owner.map(NodeId::from))
            .collect())
    }
}

/// How the node's connections to Redis behave on the wire: no Nagle delay, keep-alive
/// probes after 10 s of silence (every 5 s, 2 unanswered and the connection is dropped),
/// and on Linux no sent byte left unacknowledged for more than 10 s, so that a
/// black-holed Redis breaks the connection (and the client makes a new one) instead of
/// leaving it open for the kernel's two hours.
fn tcp_settings() -> TcpSettings {
    let keepalive = socket2::TcpKeepalive::new()
        .with_time(Duration::from_secs(10))
        .with_interval(Duration::from_secs(5))
        .with_retries(2);
    let settings = TcpSettings::default()
        .set_nodelay(true)
        .set_keepalive(keepalive);
    #[cfg(target_os = "linux")]
    let settings = settings.set_user_timeout(Duration::from_secs(10));
    settings
}

/// The key holding the id of the fleet whose keys start with `prefix`.
fn fleet_key(prefix: &str) -> String {
    format!("{prefix}:fleet")
}

/// The id of the fleet whose keys start with `prefix` in this Redis: the one its nodes
/// keep there, or a new one if this is its first node.
async fn fleet_id(redis: &mut ConnectionManager, prefix: &str) -> Result<String, ClusterError> {
    let key = fleet_key(prefix);
    let fresh = format!("{:016x}", rand::random::<u64>());
    let (_, id): (bool, String) = redis::pipe()
        .set_nx(&key, fresh)
        .get(&key)
        .query_async(redis)
        .await?;
    Ok(id)
}

#[cfg(test)]
pub(crate) mod tests;
