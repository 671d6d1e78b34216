//! Putting a connection back into its rooms that moved between the nodes of a fleet,
//! on the same socket: the client is told `room_moving`, and the session asks each such
//! room, wherever it is now, to take the connection back (its player's seat, or
//! watching, as it was), again every [`ASK_AGAIN_EVERY`] until it does. A room not
//! found again within [`PATIENCE`] ends the connection as a restart would (1012), for
//! the client to reconnect and rejoin by itself.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use bytestring::ByteString;

use super::connection::Connection;
use crate::fleet::RoomLink;
use crate::protocol::{ServerMsg, encode};
use parlor_room::{RoomCommand, RoomId};

/// How soon a room that moved is looked for again after it was not found.
pub(super) const ASK_AGAIN_EVERY: Duration = Duration::from_millis(250);

/// How long a connection waits for a room that moved to take it back before it is
/// closed for its client to reconnect: far longer than a fleet needs to adopt a dead
/// node's rooms.
const PATIENCE: Duration = Duration::from_secs(30);

/// What the client is told when a room it is in moves.
const MOVING: &str = "This room is moving to another server of this site. Stay connected: you are put back in it in a moment (a \"joined\" and the room's \"state\" follow); until then its requests are refused with room_unreachable.";

/// The rooms of a connection that moved and have not taken it back yet, with when it
/// heard that they moved.
pub(super) type Moving = HashMap<RoomId, Instant>;

/// What one attempt to put the connection back into its moving rooms came to.
pub(super) enum Reentry {
    /// Back in every room it could be put back in; the others are asked again later.
    Tried,
    /// A room has not taken the connection back within [`PATIENCE`]: the connection is
    /// closed for its client to reconnect.
    GaveUp,
}

impl Connection {
    /// Notes which of `rooms`, told moved, this connection is in, and returns what its
    /// client is told of each that was not moving already (`room_moving`).
    pub(super) fn rooms_moved(&mut self, rooms: Vec<RoomId>) -> Vec<ByteString> {
        let mut notices = Vec::new();
        for room in rooms {
            if !self.rooms.contains_key(&room) || self.moving.contains_key(&room) {
                continue;
            }
            self.moving.insert(room.clone(), Instant::now());
            let message = MOVING.to_owned();
            notices.push(encode(&ServerMsg::RoomMoving { room, message }));
        }
        self.app.metrics.messages_out.inc_by(notices.len() as u64);
        notices
    }

    /// Asks each moving room, wherever it is now, once, to take the connection back. The
    /// room answers as it answers a `join` or a `watch`: `joined`, then its `state`.
    pub(super) async fn reenter(&mut self) -> Reentry {
        let Ok(player) = self.player_info() else {
            self.moving.clear();
            return Reentry::Tried;
        };
        let rooms: Vec<RoomId> = self.moving.keys().cloned().collect();
        let mut gave_up = false;
        for room in rooms {
            let command = if self.watching.contains(&room) {
                RoomCommand::Watch { since: None }
            } else {
                RoomCommand::Return { since: None }
            };
            let asked = player.clone().ask(command, None);
            let found = RoomLink::find(&room, &self.app.lobby, self.app.relay.as_ref()).await;
            let entered = match found {
                Ok(link) => link
                    .ask(asked, &self.subscriber, Instant::now())
                    .await
                    .map(|()| link),
                Err(error) => Err(error),
            };
            match entered {
                Ok(link) => {
                    self.rooms.insert(room.clone(), link);
                    self.moving.remove(&room);
                }
                Err(_) => {
                    let since = self.moving.get(&room).copied();
                    gave_up |= since.is_some_and(|since| since.elapsed() >= PATIENCE);
                }
            }
        }
        if gave_up {
            Reentry::GaveUp
        } else {
            Reentry::Tried
        }
    }
}
