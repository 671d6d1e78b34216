//! Who asks a room: the connection a command comes from, as the room's node numbers it,
//! and where the room's frames for it go.

use parlor_room::RoomCommand;

use super::{ConnId, Subscriber};

/// The connection a command comes from, as the room's node numbers it, and, for a
/// command that enters the room, where the room's frames for it go.
#[derive(Debug)]
pub(crate) struct Caller {
    /// The connection.
    pub(crate) conn: ConnId,
    /// Its outbound side, given only with a command that enters the room.
    pub(crate) sub: Option<Subscriber>,
}

impl Caller {
    /// The connection `sub` asking `command`: its subscriber goes with a command that
    /// enters the room, its number alone with any other.
    pub(crate) fn of(sub: &Subscriber, command: &RoomCommand) -> Caller {
        Caller {
            conn: sub.conn,
            sub: command.enters().then(|| sub.clone()),
        }
    }
}
