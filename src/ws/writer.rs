//! The outbound half of a session: its own task writes what the session queues, each
//! write bounded in time, so a client that stops reading stalls only this task. A write
//! that makes no progress for `server.write_timeout_secs` resets the socket and ends it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use actix_web::web::Bytes;
use actix_ws::{CloseReason, Session};
use bytestring::ByteString;
use tokio::sync::mpsc::{self, error::TrySendError};
use tokio::task::JoinHandle;
use tokio::time::timeout;
use tokio_util::sync::CancellationToken;

use super::socket::SocketHandle;

/// Frames a session may queue ahead of its socket; a client this far behind is dropped.
const QUEUE_FRAMES: usize = 256;

/// Frames the writer takes from its queue at a time: a broadcast burst costs one wake-up.
const BATCH: usize = 32;

/// What the writer sends, in order.
pub enum Outbound {
    /// A text frame.
    Text(ByteString),
    /// A ping.
    Ping,
    /// The answer to a client's ping.
    Pong(Bytes),
    /// A close frame; nothing is written after it.
    Close(Option<CloseReason>),
}

/// The session's side of its writer.
pub struct Writer {
    queue: mpsc::Sender<Outbound>,
    failed: CancellationToken,
    /// Set when a write took nothing for a whole write timeout.
    stalled: Arc<AtomicBool>,
    task: JoinHandle<()>,
}

/// Why a frame was not queued.
#[derive(Debug, PartialEq, Eq)]
pub enum Full {
    /// The client is [`QUEUE_FRAMES`] frames behind.
    Behind,
    /// The writer has ended (the socket failed or stalled).
    Ended,
}

impl Writer {
    /// Starts the writer on this worker's runtime.
    pub fn start(
        session: Session,
        socket: Option<SocketHandle>,
        write_timeout: Duration,
    ) -> Writer {
        let (queue, queued) = mpsc::channel(QUEUE_FRAMES);
        let failed = CancellationToken::new();
        let stalled = Arc::new(AtomicBool::new(false));
        let task = actix_web::rt::spawn(write(
            session,
            queued,
            Stall {
                socket,
                write_timeout,
                stalled: stalled.clone(),
            },
            failed.clone(),
        ));
        Writer {
            queue,
            failed,
            stalled,
            task,
        }
    }

    /// Queues a frame without waiting.
    pub fn send(&self, frame: Outbound) -> Result<(), Full> {
        self.queue.try_send(frame).map_err(|error| match error {
            TrySendError::Full(_) => Full::Behind,
            TrySendError::Closed(_) => Full::Ended,
        })
    }

    /// Whether the writer ended because the client took nothing for a whole write
    /// timeout (it stopped reading), rather than because the socket failed.
    pub fn stalled(&self) -> bool {
        self.stalled.load(Ordering::Relaxed)
    }

    /// Resolves when a write failed or stalled (the writer has ended).
    pub async fn failed(&self) {
        self.failed.cancelled().await;
    }

    /// Lets the writer finish what is queued, then waits for it, at most `patience`;
    /// `false` if it had not finished by then (it is stopped).
    pub async fn finish(self, patience: Duration) -> bool {
        drop(self.queue);
        let abort = self.task.abort_handle();
        let finished = timeout(patience, self.task).await.is_ok();
        if !finished {
            abort.abort();
        }
        finished && !self.failed.is_cancelled()
    }
}

/// What the writer does about a client that takes nothing for a whole write timeout.
struct Stall {
    socket: Option<SocketHandle>,
    write_timeout: Duration,
    stalled: Arc<AtomicBool>,
}

async fn write(
    mut session: Session,
    mut queued: mpsc::Receiver<Outbound>,
    stall: Stall,
    failed: CancellationToken,
) {
    let mut batch = Vec::with_capacity(BATCH);
    while queued.recv_many(&mut batch, BATCH).await > 0 {
        for frame in batch.drain(..) {
            if !write_one(&mut session, frame, &stall, &failed).await {
                return;
            }
        }
    }
}

/// Writes one frame within the write timeout; `false` once nothing more may be written
/// (after a close frame, or when the socket failed or stalled).
async fn write_one(
    session: &mut Session,
    frame: Outbound,
    stall: &Stall,
    failed: &CancellationToken,
) -> bool {
    let write_timeout = stall.write_timeout;
    let written = match frame {
        Outbound::Text(text) => timeout(write_timeout, session.text(text)).await,
        Outbound::Ping => timeout(write_timeout, session.ping(b"")).await,
        Outbound::Pong(bytes) => timeout(write_timeout, session.pong(&bytes)).await,
        Outbound::Close(reason) => {
            let closed = timeout(write_timeout, session.clone().close(reason)).await;
            if closed.is_err() {
                stalled(stall, failed);
            }
            return false;
        }
    };
    match written {
        Ok(Ok(())) => true,
        Ok(Err(_closed)) => {
            failed.cancel();
            false
        }
        Err(_elapsed) => {
            stalled(stall, failed);
            false
        }
    }
}

/// The client has read nothing for a whole write timeout: reset its socket.
fn stalled(stall: &Stall, failed: &CancellationToken) {
    if let Some(socket) = &stall.socket {
        socket.reset();
    }
    stall.stalled.store(true, Ordering::Relaxed);
    failed.cancel();
}
