//! An owner's frames for the clients of one gateway node, carried in batches: whatever
//! its rooms queued for that node's clients while the last message was being published
//! goes in the next one, and a frame several of them are sent (a room's broadcast)
//! crosses once. One courier task per gateway node, alive while a member of that node
//! is; the kicks and moves of its members go the same way, so that each client hears
//! them after every frame sent before. A member whose frames the gateway did not hear
//! is sent nothing more but its kick: its client, which missed a frame, is closed and
//! comes back for a fresh snapshot.

use std::collections::HashSet;
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

/// The frames' text one message carries at most (more go in the next).
const MESSAGE_BYTES: usize = 1 << 20;

/// Who hands something over: a client of the gateway, as its member here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct MemberId {
    /// The client's connection, as the gateway numbers it.
    pub(super) conn: ConnId,
    /// The member's connection number here (a client that comes back is a new member).
    pub(super) here: ConnId,
}

/// What a member hands its node's courier.
#[derive(Debug)]
pub(super) enum Handed {
    /// Frames for the client, in order.
    Frames(MemberId, Vec<Frame>),
    /// The client could not keep up, or missed a frame, and is dropped.
    Kick(MemberId),
    /// A room the client is in here stopped and is played on another node.
    Moved(MemberId, RoomId),
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
    /// The member that handed it over.
    fn member(&self) -> MemberId {
        match self {
            Handed::Frames(member, _) | Handed::Kick(member) | Handed::Moved(member, _) => *member,
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
    /// no member of that node holds the courier. A member whose frames or alerts the
    /// gateway did not hear (it is gone, or Redis failed) is kicked here, and nothing
    /// it hands over is sent but its kick; the next batch is tried afresh.
    async fn carry(self, node: NodeId, mut waiting: mpsc::Receiver<Handed>) {
        let mut handed = Vec::with_capacity(BATCH);
        let mut unheard = HashSet::new();
        while waiting.recv_many(&mut handed, BATCH).await > 0 {
            // The member that woke the courier ran first; the others its room's
            // broadcast woke too join this batch if they run before it goes.
            tokio::task::yield_now().await;
            while handed.len() < BATCH
                && let Ok(more) = waiting.try_recv()
            {
                handed.push(more);
            }
            withhold(&mut handed, &mut unheard);
            if let Err(lost) = self.pass(&node, &mut handed).await {
                for member in lost {
                    if unheard.insert(member.here) {
                        self.kick_member(&node, member);
                    }
                }
            }
        }
        self.inner
            .couriers
            .remove_if(&node, |_, courier| courier.upgrade().is_none());
    }

    /// Publishes `handed` to the gateway `node`, in order: the frames in as few
    /// messages as the kicks and moves between them (and [`MESSAGE_BYTES`]) allow. The
    /// members concerned by what went unheard, and by everything after it, if the
    /// gateway did not hear.
    async fn pass(&self, node: &NodeId, handed: &mut Vec<Handed>) -> Result<(), Vec<MemberId>> {
        let mut batch = Batch::default();
        let mut handed = handed.drain(..);
        while let Some(one) = handed.next() {
            let (member, control) = match one {
                Handed::Frames(member, frames) => {
                    batch.add(member, frames);
                    if batch.bytes >= MESSAGE_BYTES && !self.publish(node, &mut batch).await {
                        let mut lost = std::mem::take(&mut batch.members);
                        lost.extend(handed.map(|late| late.member()));
                        return Err(lost);
                    }
                    continue;
                }
                Handed::Kick(member) => (member, Envelope::Kick { conn: member.conn }),
                Handed::Moved(member, room) => (
                    member,
                    Envelope::Moved {
                        conn: member.conn,
                        room: Some(room),
                    },
                ),
            };
            // What was sent to the client before the kick or the move goes first.
            let heard = self.publish(node, &mut batch).await && self.heard(node, &control).await;
            if !heard {
                let mut lost = std::mem::take(&mut batch.members);
                lost.push(member);
                lost.extend(handed.map(|late| late.member()));
                return Err(lost);
            }
        }
        if self.publish(node, &mut batch).await {
            Ok(())
        } else {
            Err(batch.members)
        }
    }

    /// Publishes the frames gathered in `batch`, if any, and empties it; `false` if the
    /// gateway did not hear them (their members are then still in `batch.members`).
    async fn publish(&self, node: &NodeId, batch: &mut Batch) -> bool {
        if !batch.frames.is_empty() {
            let envelope = Envelope::Frames {
                node: self.inner.cluster.node().clone(),
                frames: std::mem::take(&mut batch.frames),
            };
            batch.last = None;
            batch.bytes = 0;
            if !self.heard(node, &envelope).await {
                return false;
            }
        }
        batch.members.clear();
        true
    }

    /// Sends `envelope` to the gateway `node`; whether it heard.
    pub(super) async fn heard(&self, node: &NodeId, envelope: &Envelope) -> bool {
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

/// Drops from `handed` what the members in `unheard` (numbered here) handed over, but
/// their kicks: a member that missed a frame is sent no later one, only its kick, its
/// last hand-over (which also takes it out of `unheard`).
fn withhold(handed: &mut Vec<Handed>, unheard: &mut HashSet<ConnId>) {
    handed.retain(|one| match one {
        Handed::Kick(member) => {
            unheard.remove(&member.here);
            true
        }
        Handed::Frames(member, _) | Handed::Moved(member, _) => !unheard.contains(&member.here),
    });
}

/// The frames gathered for the next message, and the members they are for.
#[derive(Default)]
struct Batch {
    frames: Vec<SharedFrame>,
    /// The frame last added, to add the next member it is for to the same entry.
    last: Option<Frame>,
    /// The frames' text, in bytes.
    bytes: usize,
    members: Vec<MemberId>,
}

impl Batch {
    /// Adds `frames` for `member`'s client, in order. A frame the last entry already
    /// carries for other clients (the same broadcast, handed over by another member
    /// just before) only adds the client to it.
    fn add(&mut self, member: MemberId, frames: Vec<Frame>) {
        let conn = member.conn;
        if self.members.last() != Some(&member) {
            self.members.push(member);
        }
        for frame in frames {
            match (&self.last, self.frames.last_mut()) {
                (Some(last), Some(entry))
                    if Arc::ptr_eq(last, &frame) && !entry.conns.contains(&conn) =>
                {
                    entry.conns.push(conn);
                }
                _ => {
                    self.bytes += frame.len();
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

    fn member(conn: ConnId) -> MemberId {
        MemberId {
            conn,
            here: conn + 100,
        }
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
            batch.add(member(conn), vec![state.clone()]);
        }
        assert_eq!(entries(&batch), vec![(vec![3, 5, 9], r#"{"seq":4}"#)]);
        assert_eq!(batch.members, vec![member(3), member(5), member(9)]);
        assert_eq!(batch.bytes, state.len());
    }

    #[test]
    fn a_member_that_missed_a_frame_is_sent_only_its_kick() {
        let (missed, fine) = (member(3), member(5));
        let state = frame(r#"{"seq":9}"#);
        let mut handed = vec![
            Handed::Frames(missed, vec![state.clone()]),
            Handed::Frames(fine, vec![state.clone()]),
            Handed::Moved(missed, RoomId::from("r")),
            Handed::Kick(missed),
        ];
        let mut unheard = HashSet::from([missed.here]);
        withhold(&mut handed, &mut unheard);
        let kept: Vec<String> = handed.iter().map(|one| format!("{one:?}")).collect();
        assert_eq!(handed.len(), 2, "{kept:?}");
        assert!(matches!(&handed[0], Handed::Frames(member, _) if *member == fine));
        assert!(matches!(&handed[1], Handed::Kick(member) if *member == missed));
        assert!(unheard.is_empty(), "its kick was its last hand-over");
    }

    #[test]
    fn each_client_keeps_its_order_and_equal_texts_of_different_frames_stay_apart() {
        let (first, second) = (frame(r#"{"seq":1}"#), frame(r#"{"seq":2}"#));
        let chat = frame(r#"{"type":"chat"}"#);
        let mut batch = Batch::default();
        batch.add(member(3), vec![first.clone(), second.clone()]);
        batch.add(member(5), vec![second.clone()]);
        // The same text, but another frame (another room's): not merged.
        batch.add(member(7), vec![frame(r#"{"seq":2}"#), chat.clone()]);
        batch.add(member(7), vec![chat.clone()]);
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
