//! Rooms across a fleet: a client reaches any room from any node. The node it is
//! connected to (its gateway) passes its room messages to the room's owner through
//! Redis, and the owner answers each and sends the room's frames back the same way,
//! lila-ws style.
//!
//! Every node listens on its own inbox channel. What one node sends another arrives in
//! the order it was sent, so a client sees its room's frames in `seq` order, as on one
//! node. When a room's owner changes (its node died or stopped), or the node's messages
//! were lost with its connection to Redis, the gateway tells the sessions of that
//! room's clients, which put them back into the room wherever it is now, on the same
//! connection.
//!
//! The parts: `wire` (the messages), `owner` (a node's rooms serving other nodes'
//! clients), `gateway` (a node's clients in other nodes' rooms), `listing` (the
//! fleet-wide lobby).

mod awaited;
mod courier;
mod gateway;
mod opening;
mod owner;
mod waiting;
mod wire;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytestring::ByteString;
use dashmap::DashMap;
use futures_util::StreamExt;
use prometheus::Histogram;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use self::owner::Member;
use self::wire::Envelope;
use super::adoption::Taking;
use super::cluster::Cluster;
use super::elsewhere::RemoteListings;
use super::listing;
use crate::config::MAX_STORE_WAIT_MS;
use crate::lobby::Lobby;
use crate::protocol::ClientError;
use crate::room::{ConnId, StateUnread, Subscriber};
use parlor_room::{NodeId, RoomId};

pub(crate) use self::gateway::RoomLink;
pub(crate) use self::opening::Opening;

/// How long a gateway waits for a room's owner to answer before it tells the client
/// the room cannot be reached. It outlasts the store's own deadline, so that an owner
/// that is alive gives its own answer (`storage_unavailable` when its database stalls),
/// never `room_unreachable`: a room may wait on the store twice in one answer (the
/// room's lock for another write, then its own write), each at most
/// [`MAX_STORE_WAIT_MS`], and 2 s more cover the hops between nodes.
const ANSWER_WITHIN: Duration = Duration::from_millis(2 * MAX_STORE_WAIT_MS + 2000);

/// How soon the inbox is listened to again after the connection to Redis broke.
pub(crate) const LISTEN_AGAIN_AFTER: Duration = Duration::from_millis(500);

/// This node's part in passing room messages between nodes. Cloning it is cheap.
#[derive(Clone)]
pub(crate) struct Relay {
    inner: Arc<Inner>,
}

struct Inner {
    cluster: Cluster,
    lobby: Lobby,
    /// Gateway: requests sent to owners, waiting for their answers (for a `Create`, the
    /// room opened).
    waiting: DashMap<u64, oneshot::Sender<Result<Option<RoomId>, ClientError>>>,
    /// Gateway: the other nodes that hold rooms, as their news of their rooms says.
    owning_nodes: Arc<DashMap<NodeId, ()>>,
    /// The task telling the fleet about this node's rooms, until it has said the node
    /// stopped.
    telling: Mutex<Option<JoinHandle<()>>>,
    /// Gateway: looks at rooms' states sent to owners, waiting for their answers.
    looking: DashMap<u64, oneshot::Sender<Option<String>>>,
    next_reply: AtomicU64,
    /// Gateway: this node's client connections, by connection.
    clients: DashMap<ConnId, Client>,
    /// Gateway: the rooms this node's clients are in on other nodes, with their owner.
    remote_rooms: DashMap<RoomId, RemoteRoomEntry>,
    /// Owner: other nodes' clients in this node's rooms, by (gateway, connection).
    members: DashMap<(NodeId, ConnId), Member>,
    /// Owner: the couriers of frames to the gateways of those clients that read them in
    /// batches, while a member holds one.
    couriers: DashMap<NodeId, mpsc::WeakSender<courier::Handed>>,
    /// Owner: the rooms whose leases this node has taken and that are not live yet.
    taking: Taking,
    /// Gateway: how long each request relayed to another node took to be answered.
    round_trips: Histogram,
    /// Gateway: whether the node hears its inbox now; while it does not, no answer from
    /// another node can arrive, so no request is relayed.
    listening: AtomicBool,
}

/// A client connection of this node, as the relay reaches it: its subscriber, whose
/// `moved` is told when a room it is in on another node has moved.
struct Client {
    sub: Subscriber,
}

/// A room on another node that clients of this node are in.
struct RemoteRoomEntry {
    owner: NodeId,
    clients: Vec<ConnId>,
}

impl Relay {
    /// The relay of the node `cluster` speaks for, whose rooms are `lobby`'s. Until
    /// `shutdown`, listens on the node's inbox, tells the fleet what happens to the
    /// node's listed rooms (at most once per `listing_flush`), and lists the other
    /// nodes' rooms in `lobby`. Each answered request's round trip goes in `round_trips`.
    pub(crate) fn start(
        cluster: Cluster,
        lobby: Lobby,
        elsewhere: RemoteListings,
        listing_flush: Duration,
        round_trips: Histogram,
        shutdown: CancellationToken,
    ) -> Relay {
        let telling = tokio::spawn(listing::tell_listings(
            cluster.clone(),
            lobby.clone(),
            listing_flush,
            shutdown.clone(),
        ));
        let owning_nodes = Arc::new(DashMap::new());
        tokio::spawn(listing::follow_listings(
            cluster.clone(),
            lobby.clone(),
            elsewhere,
            owning_nodes.clone(),
            shutdown.clone(),
        ));
        let relay = Relay {
            inner: Arc::new(Inner {
                cluster,
                lobby,
                waiting: DashMap::new(),
                looking: DashMap::new(),
                owning_nodes: owning_nodes.clone(),
                telling: Mutex::new(Some(telling)),
                next_reply: AtomicU64::new(1),
                clients: DashMap::new(),
                remote_rooms: DashMap::new(),
                members: DashMap::new(),
                couriers: DashMap::new(),
                taking: Taking::default(),
                round_trips,
                listening: AtomicBool::new(false),
            }),
        };
        tokio::spawn(relay.clone().listen(shutdown));
        relay
    }

    /// The rooms whose leases this node has taken and that are not live yet, shared with
    /// the keeper of its leases.
    pub(super) fn taking(&self) -> Taking {
        self.inner.taking.clone()
    }

    /// Waits (at most `patience`) until the fleet has been told that this node stopped,
    /// once the shutdown has begun.
    pub(crate) async fn stopped_telling(&self, patience: Duration) {
        let telling = self
            .inner
            .telling
            .lock()
            .ok()
            .and_then(|mut telling| telling.take());
        if let Some(telling) = telling
            && tokio::time::timeout(patience, telling).await.is_err()
        {
            warn!(
                "the fleet was not told in time that this node stopped; its rooms leave other nodes' listings after a lease"
            );
        }
    }

    /// Registers a client connection of this node, whose frames from other nodes go to
    /// `sub` (and whose `sub.moved` is told when a room it is in moved).
    pub(crate) fn register(&self, sub: Subscriber) {
        self.inner.clients.insert(sub.conn, Client { sub });
    }

    /// Forgets a closed client connection.
    pub(crate) fn unregister(&self, conn: ConnId) {
        self.inner.clients.remove(&conn);
        self.inner.remote_rooms.retain(|_, entry| {
            entry.clients.retain(|client| *client != conn);
            !entry.clients.is_empty()
        });
    }

    /// Listens on this node's inbox and handles what arrives, listening again whenever
    /// the connection to Redis breaks, until `shutdown`.
    async fn listen(self, shutdown: CancellationToken) {
        loop {
            let listening = tokio::select! {
                listening = self.inner.cluster.listen() => listening,
                () = shutdown.cancelled() => return,
            };
            match listening {
                Ok(mut messages) => {
                    info!(node = %self.inner.cluster.node(), "listening for the fleet");
                    self.inner.listening.store(true, Ordering::Release);
                    // The node writes to itself every third of a lease: hearing nothing
                    // for a whole lease means the subscription is dead, even if the
                    // connection under it has not said so.
                    let lease = self.inner.cluster.lease();
                    let mut beat = tokio::time::interval(lease / 3);
                    let mut last_heard = tokio::time::Instant::now();
                    loop {
                        let message = tokio::select! {
                            message = messages.next() => message,
                            _ = beat.tick() => {
                                if last_heard.elapsed() > lease {
                                    break;
                                }
                                let node = self.inner.cluster.node().clone();
                                let _ = self.send(&node, &Envelope::Heartbeat).await;
                                continue;
                            }
                            () = shutdown.cancelled() => return,
                        };
                        let Some(message) = message else { break };
                        last_heard = tokio::time::Instant::now();
                        self.on_message(&message).await;
                    }
                    // Whatever was sent meanwhile is lost: every client in a room on
                    // another node is put back into it once the node hears again.
                    self.inner.listening.store(false, Ordering::Release);
                    warn!(
                        "lost the fleet's messages (Redis); clients in other nodes' rooms are put back once they can be reached"
                    );
                    self.move_everyone();
                }
                Err(error) => warn!(%error, "could not listen for the fleet; trying again"),
            }
            tokio::select! {
                () = tokio::time::sleep(LISTEN_AGAIN_AFTER) => {}
                () = shutdown.cancelled() => return,
            }
        }
    }

    /// Handles one message from another node.
    async fn on_message(&self, message: &str) {
        let envelope: Envelope = match serde_json::from_str(message) {
            Ok(envelope) => envelope,
            Err(error) => {
                warn!(%error, "a message from the fleet could not be read; it is ignored");
                return;
            }
        };
        match envelope {
            Envelope::Answer {
                reply,
                refusal,
                room,
            } => {
                if let Some((_, waiting)) = self.inner.waiting.remove(&reply) {
                    let _ = waiting.send(refusal.map_or(Ok(room), Err));
                }
            }
            Envelope::Frame { node, conn, text } => {
                self.deliver(&node, conn, Arc::new(ByteString::from(text)))
                    .await;
            }
            Envelope::Frames { node, frames } => {
                // The owner is told once of each connection that has closed.
                let mut closed = Vec::new();
                for shared in frames {
                    let frame = Arc::new(ByteString::from(shared.text));
                    for conn in shared.conns {
                        if !closed.contains(&conn)
                            && !self.deliver(&node, conn, frame.clone()).await
                        {
                            closed.push(conn);
                        }
                    }
                }
            }
            Envelope::Kick { conn } => {
                if let Some(client) = self.inner.clients.get(&conn) {
                    client.sub.alerts.kick();
                }
            }
            Envelope::Moved { conn, room } => self.client_moved(conn, room.as_ref()),
            Envelope::Heartbeat => {}
            // Answered apart, so that many looks never hold up what arrives behind.
            Envelope::Look { node, reply, room } => {
                let handle = self.inner.lobby.get(&room).ok();
                let relay = self.clone();
                tokio::spawn(async move {
                    let state = match handle {
                        Some(handle) => match handle.state_json().await {
                            Ok(state) => Some(state.to_string()),
                            Err(StateUnread::Closed) => None,
                            // Unanswered: the asking node says the room did not answer.
                            Err(StateUnread::Busy) => return,
                        },
                        None => None,
                    };
                    let _ = relay.send(&node, &Envelope::Seen { reply, state }).await;
                });
            }
            Envelope::Seen { reply, state } => {
                if let Some((_, looking)) = self.inner.looking.remove(&reply) {
                    let _ = looking.send(state);
                }
            }
            // A disconnect is quick; any other request waits for its room (and the
            // database), so it runs apart and never holds up what arrives behind it.
            // A client has one request in flight per room at a time, so its order
            // in each room holds.
            disconnect @ Envelope::Disconnect { .. } => self.serve(disconnect).await,
            request => {
                tokio::spawn({
                    let relay = self.clone();
                    async move { relay.serve(request).await }
                });
            }
        }
    }

    /// Sends `envelope` to `node`; how many listeners heard it.
    async fn send(&self, node: &NodeId, envelope: &Envelope) -> Result<u64, RelayError> {
        let text = serde_json::to_string(envelope).map_err(RelayError::Encode)?;
        Ok(self.inner.cluster.send(node, &text).await?)
    }

    /// Whether this node hears its inbox now (answers from other nodes can arrive).
    pub(super) fn listening(&self) -> bool {
        self.inner.listening.load(Ordering::Acquire)
    }

    /// Tells every client connection of this node that is in a room on another node
    /// that its room moved.
    fn move_everyone(&self) {
        let rooms: Vec<RoomId> = self
            .inner
            .remote_rooms
            .iter()
            .map(|entry| entry.key().clone())
            .collect();
        for room in rooms {
            self.room_moved(&room);
        }
    }

    /// Checks the owners of the rooms this node's clients are in on other nodes, and
    /// tells the clients of every room whose owner changed that it moved.
    async fn check_owners(&self) {
        let rooms: Vec<(RoomId, NodeId)> = self
            .inner
            .remote_rooms
            .iter()
            .map(|entry| (entry.key().clone(), entry.owner.clone()))
            .collect();
        if rooms.is_empty() {
            return;
        }
        let ids: Vec<RoomId> = rooms.iter().map(|(room, _)| room.clone()).collect();
        match self.inner.cluster.owners(&ids).await {
            Ok(owners) => {
                for ((room, was), now) in rooms.iter().zip(owners) {
                    if now.as_ref() != Some(was) {
                        info!(%room, "a room moved to another node; its clients here follow it");
                        self.room_moved(room);
                    }
                }
            }
            Err(error) => {
                warn!(%error, "could not check who holds the rooms of this node's clients")
            }
        }
    }

    /// Every `every`, until `shutdown`, tells this node's clients in rooms whose owner
    /// changed that they moved (see [`Relay::check_owners`]).
    pub(crate) async fn watch_owners(self, every: Duration, shutdown: CancellationToken) {
        loop {
            tokio::select! {
                () = tokio::time::sleep(every) => self.check_owners().await,
                () = shutdown.cancelled() => return,
            }
        }
    }

    /// Tells this node's clients in `room` (on another node) that it moved.
    fn room_moved(&self, room: &RoomId) {
        if let Some((_, entry)) = self.inner.remote_rooms.remove(room) {
            self.tell_moved(room, &entry.clients);
        }
    }

    /// Tells this node's clients `conns` that `room` moved.
    fn tell_moved(&self, room: &RoomId, conns: &[ConnId]) {
        for conn in conns {
            if let Some(client) = self.inner.clients.get(conn) {
                client.sub.alerts.tell_moved(room);
            }
        }
    }

    /// The owner of `room` says it stopped there, for this node's client `conn` (every
    /// room the client is in on that node, from an owner of an earlier version that
    /// names none): tells the client, and no longer counts it as in the room.
    fn client_moved(&self, conn: ConnId, room: Option<&RoomId>) {
        let rooms: Vec<RoomId> = match room {
            Some(room) => vec![room.clone()],
            None => self
                .inner
                .remote_rooms
                .iter()
                .filter(|entry| entry.clients.contains(&conn))
                .map(|entry| entry.key().clone())
                .collect(),
        };
        for room in rooms {
            if let Some(mut entry) = self.inner.remote_rooms.get_mut(&room) {
                entry.clients.retain(|client| *client != conn);
            }
            self.inner
                .remote_rooms
                .remove_if(&room, |_, entry| entry.clients.is_empty());
            self.tell_moved(&room, &[conn]);
        }
    }
}

/// Why a message could not be passed to another node.
#[derive(Debug, thiserror::Error)]
enum RelayError {
    /// The message could not be encoded.
    #[error("could not encode a message for the fleet: {0}")]
    Encode(serde_json::Error),
    /// Redis could not take it.
    #[error(transparent)]
    Cluster(#[from] super::cluster::ClusterError),
}
