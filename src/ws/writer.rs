//! The outbound half of a session: every frame written, one at a time, within
//! `server.write_timeout_secs`. A write that makes no progress for that long means the
//! client has stopped reading: its socket is reset and the session ends, so a stuck
//! client holds neither the session's task nor the memory queued for it.
//!
//! Writing in the session's own task, rather than handing frames to a task of their
//! own, keeps a frame's path to the socket one hop shorter and an idle connection a few
//! kilobytes smaller; the price is that the session notices a kick or the server's
//! shutdown only once a stalled write gives up, at most one write timeout later.
//!
//! After each thing it hands actix-ws, and when it is dropped (which ends actix-ws's
//! body), it tells the connection's [`Gate`], by which the response body knows to look
//! at actix-ws's body again.

use std::rc::Rc;
use std::time::Duration;

use actix_web::web::Bytes;
use actix_ws::{CloseReason, Session};
use bytestring::ByteString;
use tokio::time::timeout;

use super::outbox::Gate;
use super::socket::SocketHandle;

/// What the writer sends.
pub(crate) enum Outbound {
    /// A text frame.
    Text(ByteString),
    /// A ping.
    Ping,
    /// The answer to a client's ping.
    Pong(Bytes),
}

/// Why a frame was not written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WriteError {
    /// The connection is gone (the client closed it, or actix did).
    Closed,
    /// The client took nothing for a whole write timeout; its socket has been reset.
    Stalled,
}

/// A session's writer.
pub(crate) struct Writer {
    session: Session,
    gate: Rc<Gate>,
    socket: Option<SocketHandle>,
    write_timeout: Duration,
    stalled: bool,
}

impl Writer {
    /// A writer on `session`, telling `gate` after each write, resetting `socket`
    /// when a write stalls.
    pub(crate) fn new(
        session: Session,
        gate: Rc<Gate>,
        socket: Option<SocketHandle>,
        write_timeout: Duration,
    ) -> Writer {
        Writer {
            session,
            gate,
            socket,
            write_timeout,
            stalled: false,
        }
    }

    /// Writes one frame within the write timeout.
    pub(crate) async fn send(&mut self, frame: Outbound) -> Result<(), WriteError> {
        let write_timeout = self.write_timeout;
        let written = match frame {
            Outbound::Text(text) => timeout(write_timeout, self.session.text(text)).await,
            Outbound::Ping => timeout(write_timeout, self.session.ping(b"")).await,
            Outbound::Pong(bytes) => timeout(write_timeout, self.session.pong(&bytes)).await,
        };
        self.gate.posted();
        match written {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_closed)) => Err(WriteError::Closed),
            Err(_elapsed) => {
                self.stall();
                Err(WriteError::Stalled)
            }
        }
    }

    /// Writes several text frames in order, stopping at the first that fails.
    pub(crate) async fn send_all(
        &mut self,
        frames: impl IntoIterator<Item = ByteString>,
    ) -> Result<(), WriteError> {
        for frame in frames {
            self.send(Outbound::Text(frame)).await?;
        }
        Ok(())
    }

    /// Sends a close frame within the write timeout; whether the client can still be
    /// reached (the frame was taken, and no earlier write stalled).
    pub(crate) async fn close(mut self, reason: Option<CloseReason>) -> bool {
        if self.stalled {
            return false;
        }
        let closed = timeout(self.write_timeout, self.session.clone().close(reason)).await;
        self.gate.posted();
        match closed {
            Ok(Ok(())) => true,
            Ok(Err(_closed)) => false,
            Err(_elapsed) => {
                self.stall();
                false
            }
        }
    }

    /// Whether a write stalled: the client stopped reading.
    pub(crate) fn stalled(&self) -> bool {
        self.stalled
    }

    /// The client has read nothing for a whole write timeout: reset its socket.
    fn stall(&mut self) {
        if let Some(socket) = &self.socket {
            socket.reset();
        }
        self.stalled = true;
    }
}

impl Drop for Writer {
    /// The session's sender goes with the writer, which ends actix-ws's body: the
    /// response body must look at it once more.
    fn drop(&mut self) {
        self.gate.posted();
    }
}
