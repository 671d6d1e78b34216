//! What a room sends to the people in it and shows to readers outside its task: the
//! greeting and snapshot (or the missed frames) for a newcomer, the broadcast of each
//! frame, and the room's listing and state published for the lobby and the HTTP API.

use bytestring::ByteString;
use serde_json::Value;
use std::time::Instant;

use super::{Published, Room};
use crate::protocol::{ChatChannel, Role, ServerMsg};
use crate::room::fanout::{Broadcast, SNAPSHOT_REUSE, fan_out, frame, send_to};
use crate::room::{ConnId, Frame};
use parlor_rules::games::Seat;

/// The last `state` a room encoded (without history), published again and made into
/// snapshots without encoding it again.
#[derive(Debug)]
pub(super) struct LastState {
    /// Its `seq`.
    seq: u64,
    /// When it was encoded: the clocks and grace times it shows are as of then.
    at: Instant,
    /// The encoded `state`.
    frame: Frame,
}

impl LastState {
    /// The `state` of `seq`, encoded just now as `frame`.
    pub(super) fn new(seq: u64, frame: Frame) -> LastState {
        LastState {
            seq,
            at: Instant::now(),
            frame,
        }
    }
}

impl Room {
    /// Sends a newcomer `joined` and a snapshot of the current state with its history,
    /// encoded once for a burst of newcomers, then the lines said so far in its chat.
    pub(super) fn greet(&mut self, conn: ConnId, seat: Option<Seat>, reference: Option<Value>) {
        let Some(sub) = self.audience.get(&conn) else {
            return;
        };
        let joined = ServerMsg::Joined {
            room: self.state.id().to_owned(),
            seat,
            role: if seat.is_some() {
                Role::Player
            } else {
                Role::Spectator
            },
            reference,
        };
        let metrics = &self.context.metrics;
        let state = &self.state;
        let since = self.caught_up.remove(&conn);
        let missed = since.and_then(|since| self.recent.since(since, state.seq(), sub.updates));
        send_to(sub, &frame(&joined), metrics);
        match missed {
            Some(missed) => {
                for frame in &missed {
                    send_to(sub, frame, metrics);
                }
            }
            None => {
                let now = Instant::now();
                let last_state = &self.last_state;
                let snapshot = self.snapshots.get(state.seq(), now, || {
                    // The state just broadcast at this `seq`, with the history added, is
                    // the snapshot without encoding the rest again.
                    last_state
                        .as_ref()
                        .filter(|last| last.seq == state.seq() && now < last.at + SNAPSHOT_REUSE)
                        .and_then(|last| state.snapshot_from(&last.frame))
                        .map(|text| Frame::new(ByteString::from(text)))
                        .unwrap_or_else(|| frame(&state.state_msg(true, now)))
                });
                send_to(sub, &snapshot, metrics);
            }
        }
        // What was said so far in this game, in the newcomer's own chat.
        let channel = if seat.is_some() {
            ChatChannel::Players
        } else {
            ChatChannel::Spectators
        };
        let lines = state.chat_lines(channel);
        if !lines.is_empty() {
            let history = ServerMsg::Chat {
                room: state.id().to_owned(),
                channel,
                lines: lines.to_vec(),
            };
            send_to(sub, &frame(&history), metrics);
        }
    }

    /// Notes the last `seq` a connection about to be greeted says it saw.
    pub(super) fn catching_up(&mut self, conn: ConnId, since: Option<u64>) {
        if let Some(since) = since {
            self.caught_up.insert(conn, since);
        }
    }

    /// Queues the broadcast of `seq` to everyone in the room but `except`, each in the
    /// form it asked for, and keeps it for those who come back. Those that cannot take
    /// it are dropped quietly: the machine announces the change in the audience at its
    /// pace, so drops can never set off a storm of broadcasts. `true` if anyone was
    /// dropped.
    pub(super) fn broadcast(&mut self, seq: u64, sent: Broadcast, except: Option<ConnId>) -> bool {
        // The machine releases every connection it lets go of before announcing, so the
        // audience is exactly the room's connections.
        let dropped = fan_out(self.audience.values(), &sent, except, &self.context.metrics);
        self.recent.push(seq, sent);
        // Every broadcast raises `seq`: a kept snapshot is out of date from now on.
        self.snapshots.forget();
        let any = !dropped.is_empty();
        for conn in dropped {
            self.audience.remove(&conn);
            self.state.dropped(conn, Instant::now());
        }
        any
    }

    /// Publishes the room's listing and state for readers outside its task. Its lobby
    /// watcher is woken only when either has changed and someone follows listings:
    /// otherwise the new value is stored silently, for `/api/rooms` and for the
    /// snapshot a new lobby subscriber reads after subscribing.
    pub(super) fn publish(&self) {
        let Some(publisher) = &self.publisher else {
            return;
        };
        let next = self.publication();
        publisher.send_if_modified(|current| {
            let changed = current.seq != next.seq || current.summary != next.summary;
            if changed {
                *current = next;
            }
            changed && self.announced && self.context.listing_followers.any()
        });
    }

    /// The room's listing and, when the state last broadcast is still current (every
    /// change raises `seq`), that state: a change is encoded at most once, and only if
    /// someone is sent it.
    pub(in crate::room) fn publication(&self) -> Published {
        let seq = self.state.seq();
        let state = match &self.last_state {
            Some(last) if last.seq == seq => Some(ByteString::clone(&last.frame)),
            _ => None,
        };
        Published {
            summary: self.state.summary(),
            state,
            seq,
            fence: self.fence,
        }
    }

    /// The room's current `state`, encoded: the one last broadcast if still current,
    /// otherwise encoded now, kept, and published (without waking anyone) so that the
    /// next readers find it without asking.
    pub(super) fn current_state(&mut self) -> ByteString {
        let seq = self.state.seq();
        if let Some(last) = &self.last_state
            && last.seq == seq
        {
            return ByteString::clone(&last.frame);
        }
        let state = frame(&self.state.state_msg(false, Instant::now()));
        self.last_state = Some(LastState::new(seq, Frame::clone(&state)));
        let text = ByteString::clone(&state);
        if let Some(publisher) = &self.publisher {
            publisher.send_if_modified(|current| {
                if current.seq == seq {
                    current.state = Some(ByteString::clone(&text));
                }
                false
            });
        }
        text
    }
}
