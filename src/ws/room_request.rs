//! A request for one room, sent on its own: checked at once, then handed to the room
//! (on this node or another) as a future that owns what it needs, so that it may wait
//! (on the room, or on the store behind it) while the connection's other rooms go on;
//! and what its answer changes in the connection once it comes.

use std::time::Instant;

use bytestring::ByteString;
use futures_util::future::LocalBoxFuture;
use serde_json::Value;
use tracing::debug;

use super::connection::Connection;
use crate::fleet::RoomLink;
use crate::protocol::{ClientError, ErrorCode, ServerMsg};
use parlor_room::{Asked, RoomCommand, RoomId};

/// A request for one room, checked and ready to send.
pub(super) struct RoomRequest {
    /// The room asked.
    pub(super) room: RoomId,
    /// What is asked, by whom.
    pub(super) asked: Asked,
    /// When its message arrived (a move's thinking time counts to then).
    pub(super) received: Instant,
    /// The session's own request to be put back into a room that moved, rather than a
    /// client's message (which is refused while the room moves).
    pub(super) reentry: bool,
}

/// What the connection does once a room answered.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Then {
    /// Nothing: the room's broadcast is the answer.
    Nothing,
    /// Counts the room among its rooms, watched or played in, if it entered it.
    Entered { watches: bool },
    /// Counts it no longer, if it left it; answers `left`.
    Left,
    /// Counts it among its rooms again, and no longer as moving, once it is back in.
    Returned,
}

/// A room's answer to a [`RoomRequest`].
pub(super) struct Answered {
    room: RoomId,
    reference: Option<Value>,
    then: Then,
    /// The room, where it was found.
    link: Option<RoomLink>,
    outcome: Result<(), ClientError>,
}

impl Answered {
    /// The room that answered.
    pub(super) fn room(&self) -> &RoomId {
        &self.room
    }

    /// Whether it answered the session's own request to be put back into it.
    pub(super) fn is_reentry(&self) -> bool {
        self.then == Then::Returned
    }
}

/// What an answer comes to for the session.
pub(super) enum Settled {
    /// These replies to write (none when the room's broadcast is the answer).
    Replies(Vec<ByteString>),
    /// A room that moved has not taken the connection back within the patience allowed:
    /// the connection is closed for its client to reconnect.
    GaveUp,
}

impl RoomRequest {
    /// A client's request: `command` asked of `room` by this connection's player.
    pub(super) fn new(
        connection: &Connection,
        room: RoomId,
        command: RoomCommand,
        reference: Option<Value>,
        received: Instant,
    ) -> Result<RoomRequest, ClientError> {
        let asked = connection.player_info()?.ask(command, reference);
        Ok(RoomRequest {
            room,
            asked,
            received,
            reentry: false,
        })
    }
}

impl Connection {
    /// Sends `request` to its room; the future owns all it needs and ends with the
    /// room's answer. The room is the one this connection knows by that id, or, for a
    /// room it is not in, the one found (here or, in a fleet, on another node). A
    /// client's request for a room that is moving is refused `room_unreachable`.
    pub(super) fn ask_room(&mut self, request: RoomRequest) -> LocalBoxFuture<'static, Answered> {
        let RoomRequest {
            room,
            asked,
            received,
            reentry,
        } = request;
        let reference = asked.reference.clone();
        let then = match &asked.command {
            _ if reentry => Then::Returned,
            RoomCommand::Leave => Then::Left,
            command if command.enters() => Then::Entered {
                watches: matches!(command, RoomCommand::Watch { .. }),
            },
            _ => Then::Nothing,
        };
        // A room that moved is looked for afresh, wherever it is now.
        let known = match (reentry, self.moving.contains_key(&room)) {
            (true, _) => Ok(None),
            (false, true) => Err(room_moving()),
            (false, false) => Ok(self.known_room(&room)),
        };
        let (app, subscriber) = (self.app.clone(), self.subscriber.clone());
        Box::pin(async move {
            let found = match known {
                Ok(Some(link)) => Ok(link),
                Ok(None) => RoomLink::find(&room, &app.lobby, app.relay.as_ref()).await,
                Err(error) => Err(error),
            };
            let (link, outcome) = match found {
                Ok(link) => {
                    let outcome = link.ask(asked, &subscriber, received).await;
                    (Some(link), outcome)
                }
                Err(error) => (None, Err(error)),
            };
            Answered {
                room,
                reference,
                then,
                link,
                outcome,
            }
        })
    }

    /// Takes in a room's answer: what it changes in the connection's rooms, and the
    /// replies it calls for.
    pub(super) fn settle(&mut self, answered: Answered) -> Settled {
        let Answered {
            room,
            reference,
            then,
            link,
            outcome,
        } = answered;
        let code = outcome.as_ref().err().map(|error| error.code);
        match then {
            Then::Nothing => {}
            // Kept also when the room's node did not answer in time (it may have
            // seated the connection), so that the room hears when the connection closes.
            Then::Entered { watches }
                if code.is_none() || code == Some(ErrorCode::RoomUnreachable) =>
            {
                if let Some(link) = link {
                    if watches {
                        self.watching.insert(room.clone());
                    } else {
                        self.watching.remove(&room);
                    }
                    self.moving.remove(&room);
                    self.rooms.insert(room.clone(), link);
                }
            }
            Then::Entered { .. } => {}
            // Gone (closed on another node meanwhile) is left as much as left.
            Then::Left if code.is_none() || code == Some(ErrorCode::UnknownRoom) => {
                self.forget_room(&room);
            }
            Then::Left => {}
            Then::Returned => {
                match (link, code) {
                    (Some(link), None) => {
                        self.rooms.insert(room.clone(), link);
                        self.moving.remove(&room);
                    }
                    _ if self.out_of_patience(&room) => return Settled::GaveUp,
                    _ => {}
                }
                return Settled::Replies(Vec::new());
            }
        }
        let replies = match outcome {
            Ok(()) if then == Then::Left => vec![ServerMsg::Left { room, reference }],
            Ok(()) => Vec::new(),
            Err(error) => {
                debug!(conn = self.conn, code = %error.code, "request refused");
                vec![ServerMsg::error(error, reference)]
            }
        };
        Settled::Replies(self.encode_replies(replies))
    }

    /// The room this connection knows by `room`, if it is in it. A room of this node
    /// that has closed since (its idle time ran out, or the operator closed it) is no
    /// longer one of its rooms.
    fn known_room(&mut self, room: &RoomId) -> Option<RoomLink> {
        match self.rooms.get(room) {
            Some(RoomLink::Local(handle)) if handle.is_closed() => {
                self.forget_room(room);
                None
            }
            known => known.cloned(),
        }
    }

    /// No longer counts `room` among this connection's rooms.
    pub(super) fn forget_room(&mut self, room: &RoomId) {
        self.rooms.remove(room);
        self.watching.remove(room);
        self.moving.remove(room);
    }
}

/// The refusal of a request for a room that is moving between servers.
fn room_moving() -> ClientError {
    ClientError::new(
        ErrorCode::RoomUnreachable,
        "This room is moving to another server; you are put back in it in a moment (a \"joined\" follows). Send this again then.",
    )
}
