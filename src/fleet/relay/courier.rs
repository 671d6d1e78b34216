//! An owner's frames for the clients of one gateway node, carried in batches: whatever
//! its rooms queued for that node's clients while the last message was being published
//! goes in the next one, and a frame several of them are sent (a room's broadcast)
//! crosses once. One courier task per gateway node, alive while a member of that node
//! is; the kicks and moves of its members go the same way, so that each client hears
//! them after every frame sent before.

use std::sync::Arc;

use dashmap::mapref::entry::Entry;
use tokio::sync::mpsc;
use tracing::{debug, warn};

use super::Relay;
use super::wire::{Envelope, SharedFrame};
use crate::room::{ConnId, Frame};
use parlor_room::{NodeId, RoomId};

/// How many members' hand-overs one message takes at most.
const BATCH: usize = 256;

/// How many hand-overs may wait for the courier; members wait (and their rooms' queues
/// for them fill) when it is full, as when a client does not read.
const WAITING: usize = 1024;

/// What a member hands its node's courier.
#[derive(Debug)]
pub(super) enum Handed {
    /// Frames for the gateway's client `conn`, in order.
    Frames(ConnId, Vec<Frame>),
    /// The client could not keep up and is dropped.
    Kick(ConnId),
    /// A room the client is in here stopped and is played on another node.
    Moved(ConnId, RoomId),
}

/// The way to one gateway node's courier; cloning it shares the courier.
#[derive(Clone)]
pub(super) struct Courier {
    handed: mpsc::Sender<Handed>,
}

impl Courier {
    /// Hands `handed` to the courier; `false` if it has stopped, and the member should
    /// be forgotten.
    pub(super) async fn hand(&self, handed: Handed) -> bool {
        self.handed.send(handed).await.is_ok()
    }
}

impl Handed {
    /// The gateway's client it concerns.
    fn conn(&self) -> ConnId {
        match self {
            Handed::Frames(conn, _) | Handed::Kick(conn) | Handed::Moved(conn, _) => *conn,
        }
    }
}

impl Relay {
    /// The courier to the gateway `node`, started if none is running.
    pub(super) fn courier(&self, node: &NodeId) -> Courier {
        let running = match self.inner.couriers.entry(node.clone()) {
            Entry::Occupied(mut entry) => match entry.get().upgrade() {
                Some(handed) if !handed.is_closed() => return Courier { handed },
                _ => {
                    let (handed, waiting) = mpsc::channel(WAITING);
                    entry.insert(handed.downgrade());
                    (handed, waiting)
                }
            },
            Entry::Vacant(entry) => {
                let (handed, waiting) = mpsc::channel(WAITING);
                entry.insert(handed.downgrade());
                (handed, waiting)
            }
        };
        let (handed, waiting) = running;
        tokio::spawn(self.clone().carry(node.clone(), waiting));
        Courier { handed }
    }

    /// Publishes what the members hand over to the gateway `node`, in batches, until
    /// no member of that node holds the courier. The members whose frames or alerts
    /// the gateway did not hear (it is gone, or Redis failed) are forgotten here, as
    /// each would have been had it published them itself; the next batch is tried
    /// afresh.
    async fn carry(self, node: NodeId, mut waiting: mpsc::Receiver<Handed>) {
        let mut handed = Vec::with_capacity(BATCH);
        while waiting.recv_many(&mut handed, BATCH).await > 0 {
            // The member that woke the courier ran first; the others its room's
            // broadcast woke too join this batch if they run before it goes.
            tokio::task::yield_now().await;
            while handed.len() < BATCH
                && let Ok(more) = waiting.try_recv()
            {
                handed.push(more);
            }
            if let Err(unheard) = self.pass(&node, &mut handed).await {
                for conn in unheard {
                    self.forget_member(&node, conn).await;
                }
            }
        }
        self.inner
            .couriers
            .remove_if(&node, |_, courier| courier.upgrade().is_none());
    }

    /// Publishes `handed` to the gateway `node`, in order: the frames in as few
    /// messages as the kicks and moves between them allow. The members concerned by
    /// what went unheard, and by everything after it, if the gateway did not hear.
    async fn pass(&self, node: &NodeId, handed: &mut Vec<Handed>) -> Result<(), Vec<ConnId>> {
        let mut batch = Batch::default();
        let mut handed = handed.drain(..);
        while let Some(one) = handed.next() {
            let (conn, control) = match one {
                Handed::Frames(conn, frames) => {
                    batch.add(conn, frames);
                    continue;
                }
                Handed::Kick(conn) => (conn, Envelope::Kick { conn }),
                Handed::Moved(conn, room) => (
                    conn,
                    Envelope::Moved {
                        conn,
                        room: Some(room),
                    },
                ),
            };
            // What was sent to the client before the kick or the move goes first.
            let heard = self.publish(node, &mut batch).await && self.heard(node, &control).await;
            if !heard {
                let mut unheard = std::mem::take(&mut batch.conns);
                unheard.push(conn);
                unheard.extend(handed.map(|late| late.conn()));
                return Err(unheard);
            }
        }
        if self.publish(node, &mut batch).await {
            Ok(())
        } else {
            Err(batch.conns)
        }
    }

    /// Publishes the frames gathered in `batch`, if any, and empties it; `false` if the
    /// gateway did not hear them (their members are then still in `batch.conns`).
    async fn publish(&self, node: &NodeId, batch: &mut Batch) -> bool {
        if !batch.frames.is_empty() {
            let envelope = Envelope::Frames {
                node: self.inner.cluster.node().clone(),
                frames: std::mem::take(&mut batch.frames),
            };
            batch.last = None;
            if !self.heard(node, &envelope).await {
                return false;
            }
        }
        batch.conns.clear();
        true
    }

    /// Sends `envelope` to the gateway `node`; whether it heard.
    async fn heard(&self, node: &NodeId, envelope: &Envelope) -> bool {
        match self.send(node, envelope).await {
            Ok(heard) if heard > 0 => true,
            Ok(_) => {
                debug!(%node, "a gateway is gone");
                false
            }
            Err(error) => {
                warn!(%node, %error, "could not pass frames to another node");
                false
            }
        }
    }
}

/// The frames gathered for the next message, and the members they are for.
#[derive(Default)]
struct Batch {
    frames: Vec<SharedFrame>,
    /// The frame last added, to add the next member it is for to the same entry.
    last: Option<Frame>,
    conns: Vec<ConnId>,
}

impl Batch {
    /// Adds `frames` for `conn`, in order. A frame the last entry already carries for
    /// other clients (the same broadcast, handed over by another member just before)
    /// only adds `conn` to it.
    fn add(&mut self, conn: ConnId, frames: Vec<Frame>) {
        self.conns.push(conn);
        for frame in frames {
            match (&self.last, self.frames.last_mut()) {
                (Some(last), Some(entry))
                    if Arc::ptr_eq(last, &frame) && !entry.conns.contains(&conn) =>
                {
                    entry.conns.push(conn);
                }
                _ => {
                    self.frames.push(SharedFrame {
                        conns: vec![conn],
                        text: frame.to_string(),
                    });
                    self.last = Some(frame);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytestring::ByteString;

    fn frame(text: &str) -> Frame {
        Arc::new(ByteString::from(text.to_owned()))
    }

    fn entries(batch: &Batch) -> Vec<(Vec<ConnId>, &str)> {
        batch
            .frames
            .iter()
            .map(|shared| (shared.conns.clone(), shared.text.as_str()))
            .collect()
    }

    #[test]
    fn a_broadcast_handed_over_by_its_members_one_after_another_crosses_once() {
        let state = frame(r#"{"seq":4}"#);
        let mut batch = Batch::default();
        for conn in [3, 5, 9] {
            batch.add(conn, vec![state.clone()]);
        }
        assert_eq!(entries(&batch), vec![(vec![3, 5, 9], r#"{"seq":4}"#)]);
        assert_eq!(batch.conns, vec![3, 5, 9]);
    }

    #[test]
    fn each_client_keeps_its_order_and_equal_texts_of_different_frames_stay_apart() {
        let (first, second) = (frame(r#"{"seq":1}"#), frame(r#"{"seq":2}"#));
        let chat = frame(r#"{"type":"chat"}"#);
        let mut batch = Batch::default();
        batch.add(3, vec![first.clone(), second.clone()]);
        batch.add(5, vec![second.clone()]);
        // The same text, but another frame (another room's): not merged.
        batch.add(7, vec![frame(r#"{"seq":2}"#), chat.clone()]);
        batch.add(7, vec![chat.clone()]);
        assert_eq!(
            entries(&batch),
            vec![
                (vec![3], r#"{"seq":1}"#),
                (vec![3, 5], r#"{"seq":2}"#),
                (vec![7], r#"{"seq":2}"#),
                (vec![7], r#"{"type":"chat"}"#),
                (vec![7], r#"{"type":"chat"}"#),
            ]
        );
    }
}
