//! The WebSocket endpoint, `GET /ws`: checks the upgrade (the page's origin, the
//! address's connection quota), guards the incoming frames, and starts the session task
//! that owns the socket from then on.
//!
//! ```text
//! upgrade ──▶ session (reads, budgets, dispatch; replies, each bounded in time) ──▶ socket
//!                 ▲ lobby updates                                                   ▲
//!           rooms ─┴──────────── frames, through the connection's outbox ───────────┘
//! ```

mod challenges;
mod connection;
mod dispatch;
mod frames;
mod in_flight;
mod meanwhile;
mod notices;
mod origin;
mod outbox;
mod reroute;
mod room_links;
mod room_request;
mod session;
mod socket;
mod writer;

use std::pin::Pin;
use std::rc::Rc;

use actix_web::dev::Payload;
use actix_web::error::PayloadError;
use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{FromRequest, HttpRequest, HttpResponse, web};
use futures_util::Stream;

use crate::AppState;
use crate::http::ApiError;
use crate::limits::client_address;
use crate::protocol::MAX_FRAME_BYTES;
use crate::room::outbox;

pub(crate) use origin::OriginPolicy;
pub(crate) use socket::ConnectionSocket;

use frames::FrameGuard;
use outbox::{Gate, OutboxBody};
use session::Opened;
use socket::SocketHandle;

/// `GET /ws`: refuses a page from a foreign origin (403) and an address with too many
/// connections open (429), else upgrades the request and starts the session task.
pub(crate) async fn upgrade(
    req: HttpRequest,
    body: web::Payload,
    state: web::Data<AppState>,
) -> actix_web::Result<HttpResponse> {
    let headers = req.headers();
    let origin = headers
        .get(header::ORIGIN)
        .map(|value| value.to_str().unwrap_or("(unreadable)"));
    let host = headers
        .get(header::HOST)
        .and_then(|value| value.to_str().ok());
    state
        .origins
        .check(origin, host)
        .map_err(ApiError::Forbidden)?;
    let address = client_address(&req, &state.config.server.trusted_proxies);
    let permit = state
        .limits
        .open_connection(address)
        .map_err(ApiError::TooManyRequests)?;
    let guarded: Pin<Box<dyn Stream<Item = Result<Bytes, PayloadError>>>> =
        Box::pin(FrameGuard::new(body, MAX_FRAME_BYTES));
    let body = web::Payload::from_request(&req, &mut Payload::Stream { payload: guarded }).await?;
    let (response, session, stream) = actix_ws::handle(&req, body)?;
    let stream = stream
        .max_frame_size(MAX_FRAME_BYTES)
        .aggregate_continuations()
        .max_continuation_size(MAX_FRAME_BYTES);
    // The rooms' frames are written by the response body itself: actix-ws's body is kept
    // inside it, as the inbound stream ends when that body is dropped.
    let (outbox, queued) = outbox();
    let gate = Rc::new(Gate::default());
    let response = response
        .map_body(|_, session_frames| OutboxBody::new(session_frames, queued, gate.clone()))
        .map_into_boxed_body();
    // actix-ws streams are not Send, so the session runs on this HTTP worker's runtime,
    // the one that also serves this connection (which SocketHandle relies on).
    actix_web::rt::spawn(session::run(Box::new(Opened {
        app: state.into_inner(),
        session,
        stream,
        socket: SocketHandle::of(&req),
        outbox,
        gate,
        address,
        permit,
    })));
    Ok(response)
}
