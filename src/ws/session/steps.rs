//! The session's vocabulary: what it waits for ([`Event`]), what it does about it
//! ([`Step`]), whether it goes on ([`Flow`]) and how it ends ([`End`]).

use actix_ws::{CloseCode, CloseReason};
use bytestring::ByteString;

use super::Received;
use crate::bot_api::events::BotEvent;
use crate::lobby::LobbyEvent;
use crate::protocol::Envelope;
use crate::ws::room_request::Answered;
use crate::ws::writer::{Outbound, WriteError};

/// How a session ends.
pub(super) enum End {
    /// With a close frame (the client's echoed, or the server's own).
    Close {
        reason: Option<CloseReason>,
        why: &'static str,
    },
    /// With nothing more to write: the client or its socket is gone.
    Gone(&'static str),
    /// With the client no longer reading: a write stalled and its socket was reset.
    Stalled(&'static str),
}

impl End {
    /// The end with a close frame of `code` and `description`; `why` is logged.
    pub(super) fn close(code: CloseCode, description: Option<String>, why: &'static str) -> End {
        End::Close {
            reason: Some(CloseReason { code, description }),
            why,
        }
    }

    /// The end for a frame that could not be written.
    pub(super) fn unwritten(error: WriteError) -> End {
        match error {
            WriteError::Stalled => End::Stalled("stopped reading: a write stalled"),
            WriteError::Closed => End::Gone("write failed"),
        }
    }
}

/// A message that waits for the connection's requests in flight to be answered first,
/// and when it was received. Boxed wherever it goes: it is rare, and is several times
/// the size of everything else a session waits for or does.
pub(super) struct Held(pub(super) Envelope, pub(super) std::time::Instant);

/// What a session waits for: whichever comes first.
pub(super) enum Event {
    /// The server is shutting down.
    Shutdown,
    /// A room the connection is in moved to another node of the fleet.
    RoomMoved,
    /// A room found the connection too slow to keep up, or the operator banned its
    /// player (the operator's list of connections then holds what to tell it).
    Kicked,
    /// A frame from the client (`None`: the client has gone).
    Received(Received),
    /// A message held until the connection's requests in flight were answered.
    Held(Box<Held>),
    /// A room answered one of the connection's requests.
    Answered(Answered),
    /// News of the rooms the connection follows in the lobby.
    Lobby(LobbyEvent),
    /// News of its player's challenges (`None`: it was dropped for not keeping up).
    Challenges(Option<BotEvent>),
    /// One of the session's deadlines passed (a ping is due, the hello is overdue, the
    /// connection may have been silent too long, or the rooms that moved are to be
    /// asked again).
    Due,
}

/// What the session does about an event, once the event has changed its state: the
/// writes and the hand-over to the rooms, the only parts that wait.
pub(super) enum Step {
    /// Nothing more: wait for the next event.
    Wait,
    /// Write a frame, then go on (`None`) or end the session as the `End` says.
    Write(Outbound, Option<End>),
    /// Write several text frames.
    WriteAll(Vec<ByteString>),
    /// Hand a text message to [`dispatch`](super::dispatch) and write its replies, or
    /// send the request it makes of a room.
    Dispatch(ByteString),
    /// Answer a message held until the requests in flight were answered.
    Answer(Box<Held>),
    /// Take in a room's answer and write the replies it calls for.
    Settle(Answered),
    /// Write these notices, then ask the rooms that moved to take the connection back.
    Reenter(Vec<ByteString>),
    /// End the session.
    End(End),
}

/// Whether a session goes on after a step.
pub(super) enum Flow {
    Continue,
    End(End),
}
