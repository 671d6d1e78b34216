//! Who asks a room: the connection a command comes from, as the room's node numbers it,
//! and where the room's frames for it go.

use std::time::Instant;

use parlor_room::RoomCommand;

use super::{ConnId, Subscriber};
use crate::protocol::{ClientError, ErrorCode};

/// The connection a command comes from, as the room's node numbers it, and, for a
/// command that enters the room, where the room's frames for it go.
#[derive(Debug)]
pub(crate) struct Caller {
    /// The connection.
    pub(crate) conn: ConnId,
    /// Its outbound side, given only with a command that enters the room.
    pub(crate) sub: Option<Subscriber>,
    /// For a command relayed from another node: when its asker stops waiting for the
    /// answer (and tells its client it is not known whether it was done). A command the
    /// room comes to only after that is refused, never done: its client has moved on,
    /// and a move done then would be played in a position its player never saw.
    pub(crate) answer_by: Option<Instant>,
}

impl Caller {
    /// The connection `sub` of this node asking `command` (and waiting for the answer
    /// however long it takes): its subscriber goes with a command that enters the room,
    /// its number alone with any other.
    pub(crate) fn of(sub: &Subscriber, command: &RoomCommand) -> Caller {
        Caller {
            conn: sub.conn,
            sub: command.enters().then(|| sub.clone()),
            answer_by: None,
        }
    }
}

/// The answer to a command relayed from another node that the room came to only after
/// its asker stopped waiting (see [`Caller::answer_by`]): nothing was done.
pub(crate) fn too_late() -> ClientError {
    ClientError::new(
        ErrorCode::RoomUnreachable,
        "This request reached the room only after your server had stopped waiting for it, so nothing was done. Join or watch the room again (with \"since\") to see where it stands.",
    )
}
