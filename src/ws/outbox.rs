//! A connection's outbox: the frames its rooms queue for it, written into the socket's
//! response body by actix's dispatcher itself, without waking the session.
//!
//! ```text
//! session (replies, pings, close) ──▶ actix-ws's body ─┐
//!                                                     ├─▶ OutboxBody ──▶ dispatcher ──▶ socket
//! rooms (joined, state, moved…) ──▶ outbox (bounded) ─┘
//! ```
//!
//! The body writes what the session sent first, then what the rooms queued: a direct
//! reply may overtake room messages produced earlier but not written yet (PROTOCOL.md
//! §2.5, point 4). While the session answers a request that opens a room it holds the
//! outbox's [`Gate`], so that answer comes before the room's first frame (point 3).
//!
//! actix-ws's body is polled only when the session may have handed it something since
//! a poll found it empty (the gate keeps count): a poll of its empty channel cost a
//! cache miss per connection on every chunk of room frames, 7 % of the worker's time
//! at 10,000 connections (BENCHMARKS.md).
//!
//! A client that stops reading stops the dispatcher polling the body; its outbox then
//! fills and the room that finds it full kicks the connection (PROTOCOL.md §2.6).

use std::cell::Cell;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use actix_http::ws::{OpCode, Parser};
use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::web::{Bytes, BytesMut};
use flume::TryRecvError;
use flume::r#async::RecvStream;
use futures_util::StreamExt;

use crate::room::{Frame, OutboxReader};

/// How many bytes of queued frames one poll of the body encodes at most, so that one
/// busy connection hands its dispatcher chunks of a bounded size.
const MOST_BYTES_PER_CHUNK: usize = 16 * 1024;

/// What the session and the response body share: whether the rooms' frames may be
/// written (held while the session answers a request whose reply must come before its
/// room's first frame), and whether actix-ws's body may have anything to write.
#[derive(Default)]
pub(crate) struct Gate {
    held: Cell<bool>,
    /// The body, when it found frames waiting behind the held gate.
    waiting: Cell<Option<Waker>>,
    /// Set when a poll of actix-ws's body found nothing, which left it registered with
    /// the body's waker; cleared by [`Gate::posted`].
    session_idle: Cell<bool>,
}

impl Gate {
    /// Holds the rooms' frames back until the guard is dropped.
    pub(crate) fn hold(self: &Rc<Gate>) -> GateHeld {
        self.held.set(true);
        GateHeld(Rc::clone(self))
    }

    /// Says the session has handed actix-ws's body something (a frame, a close) or
    /// dropped its sender, which ends that body: the response body looks at it again.
    pub(crate) fn posted(&self) {
        self.session_idle.set(false);
    }
}

/// Holds a [`Gate`] while it lives.
pub(crate) struct GateHeld(Rc<Gate>);

impl Drop for GateHeld {
    fn drop(&mut self) {
        self.0.held.set(false);
        if let Some(body) = self.0.waiting.take() {
            body.wake();
        }
    }
}

/// The response body of an upgraded connection: actix-ws's body (the session's frames),
/// then the frames queued in the outbox, each encoded as a WebSocket text frame.
pub(crate) struct OutboxBody {
    session_frames: BoxBody,
    /// Where the frames are taken from while there are any.
    queued: OutboxReader,
    /// Waits for the next frame once there are none: its registration with the queue
    /// is kept from one wait to the next, where taking every frame through it would
    /// make a new one after each.
    next: RecvStream<'static, Frame>,
    /// The waker `next` was left registered with when the last look found the queue
    /// empty; `None` once a look ended otherwise.
    registered: Option<Waker>,
    gate: Rc<Gate>,
}

impl OutboxBody {
    /// The body writing `session_frames` (actix-ws's own body), then what `queued`
    /// brings, while `gate` is not held.
    pub(crate) fn new(session_frames: BoxBody, queued: OutboxReader, gate: Rc<Gate>) -> OutboxBody {
        OutboxBody {
            session_frames,
            next: queued.clone().into_stream(),
            queued,
            registered: None,
            gate,
        }
    }
}

impl MessageBody for OutboxBody {
    type Error = <BoxBody as MessageBody>::Error;

    fn size(&self) -> BodySize {
        BodySize::Stream
    }

    fn poll_next(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        let this = self.get_mut();
        // The session's frames first; when actix-ws's body ends (a close frame written,
        // or the session gone), the connection's output ends with it. A poll that finds
        // nothing leaves it registered with this waker (the dispatcher's, the same for
        // the connection's life): what the session hands it later wakes the dispatcher,
        // and the session says so through the gate.
        if !this.gate.session_idle.get() {
            match Pin::new(&mut this.session_frames).poll_next(cx) {
                Poll::Ready(written) => return Poll::Ready(written),
                Poll::Pending => this.gate.session_idle.set(true),
            }
        }
        if this.gate.held.get() {
            this.gate.waiting.set(Some(cx.waker().clone()));
            return Poll::Pending;
        }
        // The dispatcher polls again at once after every chunk, and on every wake-up of
        // its own: while nothing was queued since `next` was left registered with this
        // same waker (a frame queued would be in the queue, which only this body takes
        // from), that registration still stands and there is nothing to look for.
        if this
            .registered
            .as_ref()
            .is_some_and(|waker| waker.will_wake(cx.waker()))
            && this.queued.is_empty()
        {
            return Poll::Pending;
        }
        this.registered = None;
        let mut chunk = BytesMut::new();
        while chunk.len() < MOST_BYTES_PER_CHUNK {
            let frame = match this.queued.try_recv() {
                Ok(frame) => frame,
                Err(TryRecvError::Empty) => match this.next.poll_next_unpin(cx) {
                    Poll::Ready(Some(frame)) => frame,
                    Poll::Pending => {
                        this.registered = Some(cx.waker().clone());
                        break;
                    }
                    Poll::Ready(None) => break,
                },
                // Every sender gone: the session is closing, and actix-ws's body ends next.
                Err(TryRecvError::Disconnected) => break,
            };
            Parser::write_message(&mut chunk, frame.as_bytes(), OpCode::Text, true, false);
        }
        if chunk.is_empty() {
            Poll::Pending
        } else {
            Poll::Ready(Some(Ok(chunk.freeze())))
        }
    }
}
