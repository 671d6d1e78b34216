//! A node's clients in rooms held by other nodes: a room link that is either a room of
//! this node or one reached through its owner, and the frames owners send back.

use flume::TrySendError;
use std::time::Instant;

use super::awaited::{Awaited, Unanswered};
use super::wire::{Asker, Envelope};
use super::{ANSWER_WITHIN, Relay, RemoteRoomEntry};
use crate::lobby::Lobby;
use crate::protocol::{ClientError, ErrorCode, Updates};
use crate::room::{Caller, ConnId, Frame, RoomHandle, Subscriber};
use parlor_room::{Asked, RoomCommand};
use parlor_room::{NodeId, RoomId};

/// A room as a session reaches it: on this node, or on the node that holds it.
#[derive(Clone)]
pub(crate) enum RoomLink {
    /// A room of this node.
    Local(RoomHandle),
    /// A room another node of the fleet holds.
    Remote(RemoteRoom),
}

/// A room another node holds, reached through it.
#[derive(Clone)]
pub(crate) struct RemoteRoom {
    relay: Relay,
    room: RoomId,
    owner: NodeId,
}

fn unreachable_room() -> ClientError {
    ClientError::new(
        ErrorCode::RoomUnreachable,
        "The server holding that room did not answer in time, so it is not known whether this was done. Join or watch the room again (with \"since\") to see where it stands.",
    )
}

fn unknown_room() -> ClientError {
    ClientError::new(
        ErrorCode::UnknownRoom,
        "No room has that id. List the rooms to find one.",
    )
}

impl RoomLink {
    /// The room `room`: one of `lobby`'s, or, in a fleet (`relay`), one another node
    /// holds; `unknown_room` if none does.
    pub(crate) async fn find(
        room: &RoomId,
        lobby: &Lobby,
        relay: Option<&Relay>,
    ) -> Result<RoomLink, ClientError> {
        match (lobby.get(room), relay) {
            (Ok(handle), _) => Ok(RoomLink::Local(handle)),
            (Err(_), Some(relay)) if room.could_be_live() => {
                Ok(RoomLink::Remote(relay.locate(room).await?))
            }
            (Err(error), _) => Err(error),
        }
    }

    /// Has the room answer `asked` from this node's connection `sub`, received at
    /// `received` (see [`RoomHandle::ask`]). On another node a move's thinking time is
    /// counted from its arrival there. A connection counts as in a room of another node
    /// from the moment it asks to enter, so that it hears if the room moves even when
    /// the answer is lost, and no longer once it has left.
    pub(crate) async fn ask(
        &self,
        asked: Asked,
        sub: &Subscriber,
        received: Instant,
    ) -> Result<(), ClientError> {
        match self {
            RoomLink::Local(handle) => {
                let caller = Caller::of(sub, &asked.command);
                handle.ask(asked, caller, received).await
            }
            RoomLink::Remote(remote) => {
                let (conn, entering) = (sub.conn, asked.command.enters());
                let leaving = asked.command == RoomCommand::Leave;
                if entering {
                    remote.enter(conn);
                }
                let room = remote.room.clone();
                let outcome = remote
                    .ask(conn, |asker| Envelope::Ask { asker, room, asked })
                    .await;
                let refused = outcome
                    .as_ref()
                    .is_err_and(|error| error.code != ErrorCode::RoomUnreachable);
                if (entering && refused) || (leaving && outcome.is_ok()) {
                    remote.leave(conn);
                }
                outcome
            }
        }
    }

    /// Tells the room the connection has closed.
    pub(crate) async fn disconnect(&self, conn: ConnId) {
        match self {
            RoomLink::Local(handle) => handle.disconnect(conn).await,
            RoomLink::Remote(remote) => {
                let relay = &remote.relay;
                let node = relay.inner.cluster.node().clone();
                let _ = relay
                    .send(&remote.owner, &Envelope::Disconnect { node, conn })
                    .await;
            }
        }
    }
}

impl RemoteRoom {
    /// The room `room`, held by the node `owner`, reached through `relay`.
    pub(super) fn new(relay: Relay, room: RoomId, owner: NodeId) -> RemoteRoom {
        RemoteRoom { relay, room, owner }
    }

    /// Counts this node's client `conn` as in the room: it hears if the room moves. The
    /// clients counted in it under an earlier owner are told it moved.
    pub(super) fn enter(&self, conn: ConnId) {
        let mut entry = self
            .relay
            .inner
            .remote_rooms
            .entry(self.room.clone())
            .or_insert_with(|| RemoteRoomEntry {
                owner: self.owner.clone(),
                clients: Vec::new(),
            });
        let mut left_behind = Vec::new();
        if entry.owner != self.owner {
            left_behind = std::mem::take(&mut entry.clients);
            entry.owner.clone_from(&self.owner);
        }
        if !entry.clients.contains(&conn) {
            entry.clients.push(conn);
        }
        drop(entry);
        left_behind.retain(|client| *client != conn);
        self.relay.tell_moved(&self.room, &left_behind);
    }

    /// Takes this node's client `conn` out of the room (and the room out of those this
    /// node's clients are in, once none is).
    pub(super) fn leave(&self, conn: ConnId) {
        let rooms = &self.relay.inner.remote_rooms;
        if let Some(mut entry) = rooms.get_mut(&self.room) {
            entry.clients.retain(|client| *client != conn);
        }
        rooms.remove_if(&self.room, |_, entry| entry.clients.is_empty());
    }

    /// Sends the owner `envelope` on behalf of `conn` and waits for its answer.
    async fn ask(
        &self,
        conn: ConnId,
        envelope: impl FnOnce(Asker) -> Envelope,
    ) -> Result<(), ClientError> {
        match self.relay.ask_node(&self.owner, conn, envelope).await {
            Ok(outcome) => outcome.map(|_| ()),
            Err(_) => Err(unreachable_room()),
        }
    }
}

impl Relay {
    /// Sends the node `node` `envelope` on behalf of `conn` and waits for its answer:
    /// done (with the room it opened, for a `Create`), or refused.
    pub(super) async fn ask_node(
        &self,
        node: &NodeId,
        conn: ConnId,
        envelope: impl FnOnce(Asker) -> Envelope,
    ) -> Result<Result<Option<RoomId>, ClientError>, Unanswered> {
        let inner = &self.inner;
        let asked = std::time::Instant::now();
        let awaited = Awaited::new(&inner.waiting, &inner.next_reply);
        let updates = inner
            .clients
            .get(&conn)
            .map_or_else(Updates::default, |client| client.sub.updates);
        let asker = Asker {
            node: inner.cluster.node().clone(),
            conn,
            reply: awaited.reply(),
            updates,
            batches: true,
        };
        match self.send(node, &envelope(asker)).await {
            Ok(0) => Err(Unanswered::NotHeard),
            Ok(_) => {
                let answer = awaited.within(ANSWER_WITHIN).await;
                inner.round_trips.observe(asked.elapsed().as_secs_f64());
                answer
            }
            // Redis may have delivered it before failing to say so.
            Err(_) => Err(Unanswered::Late),
        }
    }

    /// The room `room` on the node of the fleet that holds it, if another node does.
    pub(crate) async fn locate(&self, room: &RoomId) -> Result<RemoteRoom, ClientError> {
        if !self.listening() {
            return Err(unreachable_room());
        }
        let owners = self
            .inner
            .cluster
            .owners(std::slice::from_ref(room))
            .await
            .map_err(|_| unreachable_room())?;
        match owners.into_iter().next().flatten() {
            Some(owner) if owner != *self.inner.cluster.node() => Ok(RemoteRoom {
                relay: self.clone(),
                room: room.clone(),
                owner,
            }),
            _ => Err(unknown_room()),
        }
    }

    /// The current `state` message of `room` on the node of the fleet that holds it
    /// (`GET /api/rooms/{id}`); `None` if no node holds it.
    pub(crate) async fn room_state(&self, room: &RoomId) -> Result<Option<String>, ClientError> {
        let owner = match self.locate(room).await {
            Ok(remote) => remote.owner,
            Err(error) if error.code == ErrorCode::UnknownRoom => return Ok(None),
            Err(error) => return Err(error),
        };
        let inner = &self.inner;
        let asked = std::time::Instant::now();
        let awaited = Awaited::new(&inner.looking, &inner.next_reply);
        let look = Envelope::Look {
            node: inner.cluster.node().clone(),
            reply: awaited.reply(),
            room: room.clone(),
        };
        match self.send(&owner, &look).await {
            Ok(heard) if heard > 0 => {
                let seen = awaited.within(ANSWER_WITHIN).await;
                inner.round_trips.observe(asked.elapsed().as_secs_f64());
                seen.map_err(|_| unreachable_room())
            }
            _ => Err(unreachable_room()),
        }
    }

    /// Queues a frame from a room of the node `owner` for this node's client `conn`; a
    /// client that cannot keep up is dropped, as in a room of this node, and the owner
    /// of a frame for a connection that has closed is told so. `false` for a closed
    /// connection.
    pub(super) async fn deliver(&self, owner: &NodeId, conn: ConnId, frame: Frame) -> bool {
        let Some(client) = self.inner.clients.get(&conn) else {
            // The connection has closed: the owner forgets it too.
            let node = self.inner.cluster.node().clone();
            let _ = self.send(owner, &Envelope::Disconnect { node, conn }).await;
            return false;
        };
        if let Err(TrySendError::Full(_)) = client.sub.outbox.try_send(frame) {
            client.sub.alerts.kick();
        }
        true
    }
}
