//! The TCP socket under a WebSocket, for the one thing actix cannot do for us: drop a
//! client that stopped reading. actix's HTTP/1 dispatcher waits for ever to flush what it
//! holds for such a client, even after the session has ended, so the session reaches
//! under it and shuts the socket down (with a reset, freeing the queued bytes at once).
//!
//! Safety rests on one fact: actix serves a connection and runs the session task on the
//! same single-threaded worker, and drops [`ConnectionSocket`] (kept in the
//! connection's extensions) in the same step as it closes the socket. A
//! [`SocketHandle`] (not `Send`, so it stays on that thread) checks that it has not
//! been dropped before touching the descriptor, so it never touches a number the
//! kernel has handed to another connection.

use std::marker::PhantomData;
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};
use std::rc::Rc;
use std::time::Duration;

use actix_web::HttpRequest;
use actix_web::dev::Extensions;
use socket2::SockRef;
use tokio_util::sync::{CancellationToken, DropGuard};
use tracing::debug;

/// Kept in each accepted connection's extensions by `on_connect`.
pub(crate) struct ConnectionSocket {
    fd: RawFd,
    closed: CancellationToken,
    _closes_on_drop: DropGuard,
}

impl ConnectionSocket {
    /// Registers `stream` in its connection's extensions.
    pub(crate) fn register(stream: &actix_web::rt::net::TcpStream, extensions: &mut Extensions) {
        let closed = CancellationToken::new();
        extensions.insert(ConnectionSocket {
            fd: stream.as_raw_fd(),
            _closes_on_drop: closed.clone().drop_guard(),
            closed,
        });
    }
}

/// A session's hold on its connection's socket.
#[derive(Clone)]
pub(crate) struct SocketHandle {
    fd: RawFd,
    closed: CancellationToken,
    /// Not `Send`: see the module documentation.
    _this_thread: PhantomData<Rc<()>>,
}

impl SocketHandle {
    /// The socket the request came on, if `on_connect` registered it (it does for TCP).
    pub(crate) fn of(req: &HttpRequest) -> Option<SocketHandle> {
        req.conn_data::<ConnectionSocket>()
            .map(|socket| SocketHandle {
                fd: socket.fd,
                closed: socket.closed.clone(),
                _this_thread: PhantomData,
            })
    }

    /// Resolves once actix has closed the connection.
    pub(crate) async fn closed(&self) {
        self.closed.cancelled().await;
    }

    /// Shuts the connection down with a reset, if actix has not closed it yet: what is
    /// queued for the client is discarded, and actix sees the socket fail and lets go.
    #[allow(unsafe_code)] // Borrowing the raw fd; see the SAFETY comment.
    pub(crate) fn reset(&self) {
        if self.closed.is_cancelled() {
            return;
        }
        // SAFETY: the connection is still open (checked just above, on the thread that
        // would close it), so `fd` is still this connection's socket.
        let fd = unsafe { BorrowedFd::borrow_raw(self.fd) };
        let socket = SockRef::from(&fd);
        if let Err(error) = socket.set_linger(Some(Duration::ZERO)) {
            debug!(%error, "could not set SO_LINGER on a stalled socket");
        }
        if let Err(error) = socket.shutdown(std::net::Shutdown::Both) {
            debug!(%error, "could not shut down a stalled socket");
        }
    }
}
