//! A node's rooms serving clients connected to other nodes: each such client is a
//! member here, with a connection number of this node and a subscriber whose frames go
//! back to its gateway, in order.

use std::time::{Duration, Instant};
use tracing::warn;

use serde_json::Value;

use super::courier::{Courier, Handed, MemberId};
use super::wire::{Asker, Envelope};
use super::{ANSWER_WITHIN, Relay};
use crate::lobby::NewRoom;
use crate::protocol::{ClientError, ErrorCode};
use crate::room::{
    Caller, ConnId, Creator, OutboxReader, RoomHandle, Subscriber, new_conn_id, outbox,
};
use parlor_room::PlayerInfo;
use parlor_room::{NodeId, RoomId, RoomOptions, SeatSpec};
use parlor_rules::GameKind;

/// How much sooner than its gateway a relayed request gives up on its room: the hop
/// between the nodes, with room to spare.
const ANSWER_HOP: Duration = Duration::from_secs(1);

/// Another node's client in this node's rooms.
pub(super) struct Member {
    /// Its subscriber here (its connection number is this node's).
    sub: Subscriber,
    /// The rooms it joined or watched here.
    rooms: Vec<RoomId>,
}

impl Relay {
    /// Does what another node's client asks of one of this node's rooms, and answers.
    pub(super) async fn serve(&self, envelope: Envelope) {
        let (asker, outcome) = match envelope {
            Envelope::Create {
                asker,
                room,
                player,
                game,
                seats,
                options,
                reference,
            } => {
                let asked = (game, seats, options);
                let created = self.open_for(&asker, &room, player, asked, reference).await;
                self.answer(&asker, created.map(|()| Some(room))).await;
                return;
            }
            Envelope::Ask { asker, room, asked } => {
                let arrived = Instant::now();
                // Its gateway waits ANSWER_WITHIN from sending it; a second less from
                // here leaves room for the hop between the nodes.
                let answer_by = Some(arrived + ANSWER_WITHIN - ANSWER_HOP);
                let outcome = match self.local_room(&room) {
                    Ok(handle) => {
                        let entering = asked.command.enters();
                        let caller = if entering {
                            let sub = self.member(&asker, Some(&room));
                            Caller {
                                conn: sub.conn,
                                sub: Some(sub),
                                answer_by,
                            }
                        } else {
                            Caller {
                                conn: self.member_conn(&asker),
                                sub: None,
                                answer_by,
                            }
                        };
                        let outcome = handle.ask(asked, caller, arrived).await;
                        if entering && outcome.is_err() {
                            self.not_in(&asker, Some(&room));
                        }
                        outcome
                    }
                    Err(error) => Err(error),
                };
                (asker, outcome)
            }
            Envelope::Disconnect { node, conn } => {
                self.forget_member(&node, conn, None).await;
                return;
            }
            Envelope::Answer { .. }
            | Envelope::Frame { .. }
            | Envelope::Frames { .. }
            | Envelope::Kick { .. }
            | Envelope::Moved { .. }
            | Envelope::Heartbeat
            | Envelope::Look { .. }
            | Envelope::Seen { .. } => return,
        };
        self.answer(&asker, outcome.map(|()| None)).await;
    }

    /// Opens the room `room` that `asker`'s client asked for, seating it if a seat says
    /// `me` (it is then a member here, in that room), and waits until the room holds its
    /// lease in the fleet (and has seated the creator).
    async fn open_for(
        &self,
        asker: &Asker,
        room: &RoomId,
        player: PlayerInfo,
        (game, seats, options): (GameKind, [SeatSpec; 2], RoomOptions),
        reference: Option<Value>,
    ) -> Result<(), ClientError> {
        if !self.inner.cluster.owns_rooms() {
            return Err(ClientError::new(
                ErrorCode::RoomUnreachable,
                "The server asked to open the room holds no rooms. Try again.",
            ));
        }
        let seated = SeatSpec::mine(&seats).is_some();
        let creator = seated.then(|| Creator {
            player,
            sub: self.member(asker, Some(room)),
            reference,
        });
        let new_room = NewRoom {
            game,
            seats,
            options,
        };
        let created = self.open_here(Some(room.clone()), new_room, creator).await;
        let opened = match created {
            // The room announces itself once it has seated its creator.
            Ok(handle) => match handle.summaries().next().await {
                Some(_) => Ok(()),
                None => Err(ClientError::storage_unavailable()),
            },
            Err(error) => Err(error),
        };
        if opened.is_err() && seated {
            self.not_in(asker, Some(room));
        }
        opened
    }

    /// Sends `asker` the outcome of its request: done (with the room it opened, for a
    /// `Create`), or refused.
    async fn answer(&self, asker: &Asker, outcome: Result<Option<RoomId>, ClientError>) {
        let (room, refusal) = match outcome {
            Ok(room) => (room, None),
            Err(error) => (None, Some(error)),
        };
        let answer = Envelope::Answer {
            reply: asker.reply,
            refusal,
            room,
        };
        if let Err(error) = self.send(&asker.node, &answer).await {
            warn!(node = %asker.node, %error, "could not answer another node's client");
        }
    }

    /// One of this node's live rooms, or `unknown_room`.
    fn local_room(&self, room: &RoomId) -> Result<RoomHandle, ClientError> {
        self.inner.lobby.get(room)
    }

    /// This node's connection number for `asker`'s connection, or 0 (nobody) if it has
    /// never joined or watched a room here.
    fn member_conn(&self, asker: &Asker) -> ConnId {
        self.inner
            .members
            .get(&(asker.node.clone(), asker.conn))
            .map_or(0, |member| member.sub.conn)
    }

    /// The subscriber of `asker`'s connection here, made (with the task that passes its
    /// frames back) when it first joins, watches or opens a room; notes that it is in
    /// `room`, if given.
    fn member(&self, asker: &Asker, room: Option<&RoomId>) -> Subscriber {
        let key = (asker.node.clone(), asker.conn);
        let mut member = self.inner.members.entry(key).or_insert_with(|| {
            let (outbox, queued) = outbox();
            let mut sub = Subscriber::new(new_conn_id(), outbox);
            sub.updates = asker.updates;
            let route = if asker.batches {
                Route::Courier(self.courier(&asker.node))
            } else {
                Route::Direct
            };
            let (node, conn) = (asker.node.clone(), asker.conn);
            tokio::spawn(self.clone().forward(node, conn, sub.clone(), queued, route));
            Member {
                sub,
                rooms: Vec::new(),
            }
        });
        if let Some(room) = room
            && !member.rooms.iter().any(|known| known == room)
        {
            member.rooms.push(room.clone());
        }
        member.sub.clone()
    }

    /// Notes that `asker`'s connection did not get into `room` (or into a room it was
    /// opening) after all, forgetting the member if it is in no room here.
    fn not_in(&self, asker: &Asker, room: Option<&RoomId>) {
        self.out_of(&asker.node, asker.conn, room);
    }

    /// Notes that the gateway `node`'s client `conn` is no longer in `room` here (a room
    /// it was opening, for `None`), forgetting the member if it is in no room here.
    fn out_of(&self, node: &NodeId, conn: ConnId, room: Option<&RoomId>) {
        let key = (node.clone(), conn);
        if let Some(mut member) = self.inner.members.get_mut(&key) {
            member.rooms.retain(|known| Some(known) != room);
        }
        self.inner
            .members
            .remove_if(&key, |_, member| member.rooms.is_empty());
    }

    /// Passes the frames this node's rooms queue for another node's client `conn` to its
    /// gateway `node`, in order, with the client's kick and its rooms' moves, by
    /// `route`. Once kicked (the client cannot keep up, or the gateway did not hear one
    /// of its frames), or once the route fails, the member is forgotten here.
    async fn forward(
        self,
        node: NodeId,
        conn: ConnId,
        sub: Subscriber,
        queued: OutboxReader,
        route: Route,
    ) {
        let member = MemberId {
            conn,
            here: sub.conn,
        };
        let alerts = sub.alerts.clone();
        drop(sub);
        'passing: loop {
            let handed = tokio::select! {
                // Frames first: whatever the room sent before it stopped goes out.
                biased;
                first = queued.recv_async() => {
                    let Ok(first) = first else {
                        return;
                    };
                    let frames = std::iter::once(first).chain(queued.drain()).collect();
                    Handed::Frames(member, frames)
                }
                () = alerts.kicked() => {
                    route.pass(&self, &node, Handed::Kick(member)).await;
                    break;
                }
                () = alerts.moved() => {
                    // The member stays in this node's other rooms.
                    for room in alerts.take_moved() {
                        self.out_of(&node, conn, Some(&room));
                        if !route.pass(&self, &node, Handed::Moved(member, room)).await {
                            break 'passing;
                        }
                    }
                    continue;
                }
            };
            if !route.pass(&self, &node, handed).await {
                break;
            }
        }
        self.forget_member(&node, conn, Some(member.here)).await;
    }

    /// Kicks `member`, if it is still the gateway `node`'s client's member here: its
    /// task hands the kick over to the courier and ends.
    pub(super) fn kick_member(&self, node: &NodeId, member: MemberId) {
        if let Some(known) = self.inner.members.get(&(node.clone(), member.conn))
            && known.sub.conn == member.here
        {
            known.sub.alerts.kick();
        }
    }

    /// Takes another node's client out of every room it is in here: whatever its
    /// member, or only the member numbered `here` here (not one the client came back
    /// as since).
    async fn forget_member(&self, node: &NodeId, conn: ConnId, here: Option<ConnId>) {
        let key = (node.clone(), conn);
        let removed = self.inner.members.remove_if(&key, |_, member| {
            here.is_none_or(|here| member.sub.conn == here)
        });
        let Some((_, member)) = removed else {
            return;
        };
        for room in &member.rooms {
            if let Ok(handle) = self.local_room(room) {
                handle.disconnect(member.sub.conn).await;
            }
        }
    }
}

/// How a member's frames and alerts reach its gateway.
enum Route {
    /// Through the courier of its gateway's node, in batches ([`super::courier`]).
    Courier(Courier),
    /// One message each: the gateway predates [`Envelope::Frames`].
    Direct,
}

impl Route {
    /// Passes `handed` on to the gateway `node`; `false` if the member should stop:
    /// the courier has stopped, or (directly) a frame went unheard or a move failed.
    async fn pass(&self, relay: &Relay, node: &NodeId, handed: Handed) -> bool {
        match self {
            Route::Courier(courier) => courier.hand(handed).await,
            Route::Direct => relay.pass_directly(node, handed).await,
        }
    }
}

impl Relay {
    /// Sends what a member of the gateway `node` handed over as one message per frame,
    /// kick or move.
    async fn pass_directly(&self, node: &NodeId, handed: Handed) -> bool {
        match handed {
            Handed::Frames(member, frames) => {
                for frame in frames {
                    let envelope = Envelope::Frame {
                        node: self.inner.cluster.node().clone(),
                        conn: member.conn,
                        text: frame.to_string(),
                    };
                    if !self.heard(node, &envelope).await {
                        return false;
                    }
                }
                true
            }
            Handed::Kick(member) => {
                let _ = self.send(node, &Envelope::Kick { conn: member.conn }).await;
                true
            }
            Handed::Moved(member, room) => {
                let envelope = Envelope::Moved {
                    conn: member.conn,
                    room: Some(room),
                };
                self.send(node, &envelope).await.is_ok()
            }
        }
    }
}
