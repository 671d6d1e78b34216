//! What a frame read from the client calls for: the client counted as heard, the
//! frame held to the protocol (size, UTF-8) and to the connection's message budget, and
//! each kind of frame turned into the session's next step.

use actix_ws::{AggregatedMessage, CloseCode};
use tokio::time::Instant;
use tracing::debug;

use super::steps::{End, Step};
use super::{Received, Running};
use crate::protocol::{ClientError, ErrorCode, MAX_FRAME_BYTES, ServerMsg, encode};
use crate::ws::frames::Breach;
use crate::ws::writer::Outbound;

impl Running {
    /// What a frame from the client calls for.
    pub(super) fn received(&mut self, frame: Received) -> Step {
        // On a heartbeat only messages show the client is there: a WebSocket pong may
        // come from a browser whose page is frozen.
        let from_the_client = !self.connection.on_heartbeat
            || matches!(
                frame,
                Some(Ok(AggregatedMessage::Text(_) | AggregatedMessage::Binary(_)))
            );
        if from_the_client {
            self.last_heard = Instant::now();
        }
        let message = match frame {
            None => return Step::End(End::Gone("closed by peer")),
            Some(Err(error)) => {
                let breach = Breach::of(&error);
                debug!(conn = self.connection.conn, %error, ?breach, "websocket protocol error");
                let (description, why) = match breach {
                    Breach::TooLarge => (
                        Some(format!("frames are limited to {MAX_FRAME_BYTES} bytes")),
                        "frame too large",
                    ),
                    Breach::NotUtf8 => (
                        Some("text frames must be UTF-8".to_owned()),
                        "text not UTF-8",
                    ),
                    Breach::Protocol => (None, "protocol error"),
                };
                return Step::End(End::close(breach.close_code(), description, why));
            }
            Some(Ok(message)) => message,
        };
        match message {
            // Every text or binary frame is counted once, here, against the budget;
            // pings and pongs never are.
            AggregatedMessage::Text(_) | AggregatedMessage::Binary(_) if !self.messages.allow() => {
                self.refusals += 1;
                let text = match &message {
                    AggregatedMessage::Text(text) => text.as_ref(),
                    _ => "",
                };
                let refusal = self.connection.refuse(text);
                let end = (self.close_after_refusals != 0
                    && self.refusals >= self.close_after_refusals)
                    .then(|| {
                        End::close(
                            CloseCode::Policy,
                            Some("too many messages; slow down".into()),
                            "over its message budget",
                        )
                    });
                Step::Write(Outbound::Text(refusal), end)
            }
            AggregatedMessage::Text(text) => {
                self.refusals = 0;
                Step::Dispatch(text)
            }
            AggregatedMessage::Binary(_) => {
                self.refusals = 0;
                let reply = ServerMsg::error(
                    ClientError::new(
                        ErrorCode::BadMessage,
                        "Send messages as JSON text frames, not binary frames.",
                    ),
                    None,
                );
                Step::Write(Outbound::Text(encode(&reply)), None)
            }
            AggregatedMessage::Ping(bytes) => Step::Write(Outbound::Pong(bytes), None),
            AggregatedMessage::Pong(_) => Step::Wait,
            AggregatedMessage::Close(reason) => Step::End(End::Close {
                reason,
                why: "closed by peer",
            }),
        }
    }
}
