//! Keeping up with the client while one of its requests waits on a room (or on the
//! store behind it): pings answered and sent, and any other frame read kept for the
//! session's next turn.

use std::pin::Pin;

use actix_ws::{AggregatedMessage, AggregatedMessageStream};
use tokio::time::{Instant, Sleep};

use super::session::{Deadlines, Received};
use super::writer::{Outbound, WriteError, Writer};

/// The parts of a session that keep up with the client while a request waits (on a
/// room, or on the store behind it): the session still answers the client's WebSocket
/// pings and sends its own, so a client is never dropped for a slow answer; any other
/// frame read meanwhile is kept, in order, for the next turn. (The rooms' frames go on
/// meanwhile through the connection's outbox.)
pub(super) struct Meanwhile<'s> {
    pub(super) stream: &'s mut AggregatedMessageStream,
    /// The session's timer: meanwhile, set for the next ping only (the loop sets it for
    /// the other deadlines again once the request is answered).
    pub(super) due: Pin<&'s mut Sleep>,
    pub(super) deadlines: &'s mut Deadlines,
    pub(super) writer: &'s mut Writer,
    pub(super) deferred: &'s mut Option<Received>,
}

impl Meanwhile<'_> {
    /// Waits for `work`, keeping up with the client; its outcome, whether a write made
    /// meanwhile failed, and whether the client answered a ping.
    pub(super) async fn wait_for<T>(
        mut self,
        mut work: Pin<Box<impl Future<Output = T>>>,
    ) -> (T, Result<(), WriteError>, bool) {
        let mut meanwhile = Ok(());
        let mut heard = false;
        let outcome = loop {
            let writable = meanwhile.is_ok();
            tokio::select! {
                biased;
                outcome = &mut work => break outcome,
                () = self.due.as_mut(), if writable => {
                    if self.deadlines.take_ping(Instant::now()) {
                        meanwhile = self.writer.send(Outbound::Ping).await;
                    }
                    self.due.as_mut().reset(self.deadlines.ping());
                }
                frame = self.stream.recv(), if writable && self.deferred.is_none() => match frame {
                    Some(Ok(AggregatedMessage::Ping(bytes))) => {
                        heard = true;
                        meanwhile = self.writer.send(Outbound::Pong(bytes)).await;
                    }
                    Some(Ok(AggregatedMessage::Pong(_))) => heard = true,
                    other => *self.deferred = Some(other),
                },
            }
        };
        (outcome, meanwhile, heard)
    }
}
