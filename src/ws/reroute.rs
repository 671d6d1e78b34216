//! Putting a connection back into its rooms that moved between the nodes of a fleet,
//! on the same socket: the client is told `room_moving`, and the session asks each such
//! room, wherever it is now, to take the connection back (its player's seat, or
//! watching, as it was), again every [`ASK_AGAIN_EVERY`] until it does. A room not
//! found again within [`PATIENCE`] (the fleet's, shared with the Bot API's streams) ends the connection as a restart would (1012), for
//! the client to reconnect and rejoin by itself.

use foldhash::HashMap;
use std::time::Instant;

use bytestring::ByteString;

use super::connection::Connection;
use super::in_flight::InFlight;
use super::room_request::RoomRequest;
use crate::protocol::{ServerMsg, encode};
use parlor_room::{RoomCommand, RoomId};

pub(super) use crate::fleet::{REENTER_EVERY as ASK_AGAIN_EVERY, REENTER_PATIENCE as PATIENCE};

/// What the client is told when a room it is in moves.
const MOVING: &str = "This room is moving to another server of this site. Stay connected: you are put back in it in a moment (a \"joined\" and the room's \"state\" follow); until then its requests are refused with room_unreachable.";

/// The rooms of a connection that moved and have not taken it back yet, with when it
/// heard that they moved.
pub(super) type Moving = HashMap<RoomId, Instant>;

impl Connection {
    /// Notes which of `rooms`, told moved, this connection is in, and returns what its
    /// client is told of each that was not moving already (`room_moving`).
    pub(super) fn rooms_moved(&mut self, rooms: Vec<RoomId>) -> Vec<ByteString> {
        let mut notices = Vec::new();
        for room in rooms {
            if !self.rooms.contains(&room) || self.moving.contains_key(&room) {
                continue;
            }
            self.moving.insert(room.clone(), Instant::now());
            let message = MOVING.to_owned();
            notices.push(encode(&ServerMsg::RoomMoving { room, message }));
        }
        self.app.metrics.messages_out.inc_by(notices.len() as u64);
        notices
    }

    /// A request to each moving room that is not being asked already, wherever it is
    /// now, to take the connection back (not waiting for a request of the client's
    /// still out to where the room was): its player's seat, or watching, as it was. The
    /// room answers as it answers a `join` or a `watch`: `joined`, then its `state`.
    pub(super) fn reentries(&mut self, in_flight: &InFlight) -> Vec<RoomRequest> {
        let Ok(player) = self.player_info() else {
            self.moving.clear();
            return Vec::new();
        };
        let now = Instant::now();
        let asking = self
            .moving
            .keys()
            .filter(|room| !in_flight.is_returning(room));
        asking
            .map(|room| {
                let command = if self.watching.contains(room) {
                    RoomCommand::Watch { since: None }
                } else {
                    RoomCommand::Return { since: None }
                };
                RoomRequest {
                    room: room.clone(),
                    asked: player.clone().ask(command, None),
                    received: now,
                    reentry: true,
                }
            })
            .collect()
    }

    /// Whether `room` has moved longer ago than the connection waits for it.
    pub(super) fn out_of_patience(&self, room: &RoomId) -> bool {
        self.moving
            .get(room)
            .is_some_and(|since| since.elapsed() >= PATIENCE)
    }
}
