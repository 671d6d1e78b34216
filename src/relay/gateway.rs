//! A node's clients in rooms held by other nodes: a room link that is either a room of
//! this node or one reached through its owner, and the frames owners send back.

use std::sync::Arc;

use bytestring::ByteString;
use serde_json::Value;
use tokio::sync::mpsc::error::TrySendError;
use tokio::time::Instant;

use super::awaited::{Awaited, Unanswered};
use super::wire::{Asker, Envelope};
use super::{ANSWER_WITHIN, Relay, RemoteRoomEntry};
use crate::protocol::{ClientError, ErrorCode, Updates};
use crate::room::{ConnId, PlayerInfo, Request, RoomHandle, Subscriber};
use parlor_rules::games::Seat;

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
    room: String,
    owner: String,
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
    /// Seats `player` in `seat` for the connection `sub` (see [`RoomHandle::join`]).
    pub(crate) async fn join(
        &self,
        player: PlayerInfo,
        seat: Seat,
        sub: Subscriber,
        reference: Option<Value>,
        since: Option<u64>,
    ) -> Result<(), ClientError> {
        match self {
            RoomLink::Local(handle) => handle.join(player, seat, sub, reference, since).await,
            RoomLink::Remote(remote) => {
                let seat = seat.index() as u8;
                let room = remote.room.clone();
                remote
                    .ask_for(sub.conn, |asker| Envelope::Join {
                        asker,
                        room,
                        player,
                        seat,
                        reference,
                        since,
                    })
                    .await
            }
        }
    }

    /// Has the connection `sub` watch the room (see [`RoomHandle::watch`]).
    pub(crate) async fn watch(
        &self,
        sub: Subscriber,
        reference: Option<Value>,
        since: Option<u64>,
    ) -> Result<(), ClientError> {
        match self {
            RoomLink::Local(handle) => handle.watch(sub, reference, since).await,
            RoomLink::Remote(remote) => {
                let room = remote.room.clone();
                remote
                    .ask_for(sub.conn, |asker| Envelope::Watch {
                        asker,
                        room,
                        reference,
                        since,
                    })
                    .await
            }
        }
    }

    /// Plays a move received at `received` (see [`RoomHandle::play`]). On another node
    /// the move's thinking time is counted from its arrival there.
    pub(crate) async fn play(
        &self,
        player_id: String,
        conn: ConnId,
        text: String,
        received: Instant,
    ) -> Result<(), ClientError> {
        match self {
            RoomLink::Local(handle) => handle.play(player_id, conn, text, received).await,
            RoomLink::Remote(remote) => {
                let room = remote.room.clone();
                remote
                    .ask(conn, |asker| Envelope::Move {
                        asker,
                        room,
                        player_id,
                        text,
                    })
                    .await
            }
        }
    }

    /// Passes a seated player's request (see [`RoomHandle::request`]).
    pub(crate) async fn request(
        &self,
        request: Request,
        player_id: String,
        conn: ConnId,
    ) -> Result<(), ClientError> {
        match self {
            RoomLink::Local(handle) => handle.request(request, player_id, conn).await,
            RoomLink::Remote(remote) => {
                let room = remote.room.clone();
                remote
                    .ask(conn, |asker| Envelope::Request {
                        asker,
                        room,
                        player_id,
                        request,
                    })
                    .await
            }
        }
    }

    /// Says something in the room's chat (see [`RoomHandle::chat`]).
    pub(crate) async fn chat(
        &self,
        player: PlayerInfo,
        conn: ConnId,
        text: String,
    ) -> Result<(), ClientError> {
        match self {
            RoomLink::Local(handle) => handle.chat(player, conn, text).await,
            RoomLink::Remote(remote) => {
                let room = remote.room.clone();
                remote
                    .ask(conn, |asker| Envelope::Chat {
                        asker,
                        room,
                        player,
                        text,
                    })
                    .await
            }
        }
    }

    /// Leaves the room (see [`RoomHandle::leave`]).
    pub(crate) async fn leave(&self, player_id: String, conn: ConnId) -> Result<(), ClientError> {
        match self {
            RoomLink::Local(handle) => handle.leave(player_id, conn).await,
            RoomLink::Remote(remote) => {
                let room = remote.room.clone();
                remote
                    .ask(conn, |asker| Envelope::Leave {
                        asker,
                        room,
                        player_id,
                    })
                    .await
            }
        }
    }

    /// Tells the room the connection has closed.
    pub(crate) async fn disconnect(&self, conn: ConnId) {
        match self {
            RoomLink::Local(handle) => handle.disconnect(conn).await,
            RoomLink::Remote(remote) => {
                let relay = &remote.relay;
                let node = relay.inner.cluster.node().to_owned();
                let _ = relay
                    .send(&remote.owner, &Envelope::Disconnect { node, conn })
                    .await;
            }
        }
    }
}

impl RemoteRoom {
    /// The room `room`, held by the node `owner`, reached through `relay`.
    pub(super) fn new(relay: Relay, room: String, owner: String) -> RemoteRoom {
        RemoteRoom { relay, room, owner }
    }

    /// Counts this node's client `conn` as in the room: it hears if the room moves.
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
        if entry.clients.is_empty() {
            entry.owner.clone_from(&self.owner);
        }
        if !entry.clients.contains(&conn) {
            entry.clients.push(conn);
        }
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

    /// Asks the owner for what `envelope` says (a join or a watch) on behalf of `conn`
    /// and waits for its answer. `conn` counts as in the room from the start, so that
    /// it hears if the room moves even when the answer is lost; a refusal takes it out.
    async fn ask_for(
        &self,
        conn: ConnId,
        envelope: impl FnOnce(Asker) -> Envelope,
    ) -> Result<(), ClientError> {
        self.enter(conn);
        let outcome = self.ask(conn, envelope).await;
        if let Err(error) = &outcome
            && error.code != ErrorCode::RoomUnreachable
        {
            self.leave(conn);
        }
        outcome
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
        node: &str,
        conn: ConnId,
        envelope: impl FnOnce(Asker) -> Envelope,
    ) -> Result<Result<Option<String>, ClientError>, Unanswered> {
        let inner = &self.inner;
        let awaited = Awaited::new(&inner.waiting, &inner.next_reply);
        let updates = inner
            .clients
            .get(&conn)
            .map_or_else(Updates::default, |client| client.sub.updates);
        let asker = Asker {
            node: inner.cluster.node().to_owned(),
            conn,
            reply: awaited.reply(),
            updates,
        };
        match self.send(node, &envelope(asker)).await {
            Ok(0) => Err(Unanswered::NotHeard),
            Ok(_) => awaited.within(ANSWER_WITHIN).await,
            // Redis may have delivered it before failing to say so.
            Err(_) => Err(Unanswered::Late),
        }
    }

    /// The room `room` on the node of the fleet that holds it, if another node does.
    pub(crate) async fn locate(&self, room: &str) -> Result<RemoteRoom, ClientError> {
        let owners = self
            .inner
            .cluster
            .owners(&[room.to_owned()])
            .await
            .map_err(|_| unreachable_room())?;
        match owners.into_iter().next().flatten() {
            Some(owner) if owner != self.inner.cluster.node() => Ok(RemoteRoom {
                relay: self.clone(),
                room: room.to_owned(),
                owner,
            }),
            _ => Err(unknown_room()),
        }
    }

    /// The current `state` message of `room` on the node of the fleet that holds it
    /// (`GET /api/rooms/{id}`); `None` if no node holds it.
    pub(crate) async fn room_state(&self, room: &str) -> Result<Option<String>, ClientError> {
        let owner = match self.locate(room).await {
            Ok(remote) => remote.owner,
            Err(error) if error.code == ErrorCode::UnknownRoom => return Ok(None),
            Err(error) => return Err(error),
        };
        let inner = &self.inner;
        let awaited = Awaited::new(&inner.looking, &inner.next_reply);
        let look = Envelope::Look {
            node: inner.cluster.node().to_owned(),
            reply: awaited.reply(),
            room: room.to_owned(),
        };
        match self.send(&owner, &look).await {
            Ok(heard) if heard > 0 => awaited
                .within(ANSWER_WITHIN)
                .await
                .map_err(|_| unreachable_room()),
            _ => Err(unreachable_room()),
        }
    }

    /// Queues a frame from a room of the node `owner` for this node's client `conn`; a
    /// client that cannot keep up is dropped, as in a room of this node, and the owner
    /// of a frame for a connection that has closed is told so.
    pub(super) async fn deliver(&self, owner: &str, conn: ConnId, text: String) {
        let Some(client) = self.inner.clients.get(&conn) else {
            // The connection has closed: the owner forgets it too.
            let node = self.inner.cluster.node().to_owned();
            let _ = self.send(owner, &Envelope::Disconnect { node, conn }).await;
            return;
        };
        let frame = Arc::new(ByteString::from(text));
        if let Err(TrySendError::Full(_)) = client.sub.outbox.try_send(frame) {
            client.sub.kick.cancel();
        }
    }
}
