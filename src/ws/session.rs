//! The session loop: one task per socket that reads frames, holds the connection to its
//! message budget and `hello` deadline, hands each message to [`dispatch`](super::dispatch),
//! and writes everything outbound (replies, room frames, lobby updates, pings) through
//! its [`Writer`], whose every write is bounded in time.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use actix_ws::{AggregatedMessage, AggregatedMessageStream, CloseCode, CloseReason, Session};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::{Instant, interval, sleep_until};
use tracing::{debug, info};

use super::frames::Breach;
use super::socket::SocketHandle;
use super::writer::{Outbound, WriteError, Writer};
use crate::AppState;
use crate::config::ServerConfig;
use crate::fleet::RoomLink;
use crate::limits::{Budget, ConnectionPermit};
use crate::lobby::{LobbyEvent, LobbySubscription, next_lobby_event};
use crate::players::Identity;
use crate::protocol::{ClientError, ErrorCode, MAX_FRAME_BYTES, ServerMsg, ShutdownReason, encode};
use crate::room::{ConnId, Frame, OUTBOX_FRAMES, Subscriber, new_conn_id};
use parlor_room::RoomId;

/// An upgraded connection, ready for its session.
pub(crate) struct Opened {
    /// What every session shares.
    pub(crate) app: Arc<AppState>,
    /// The outbound half.
    pub(crate) session: Session,
    /// The inbound half.
    pub(crate) stream: AggregatedMessageStream,
    /// The socket, to reset it if the client stops reading.
    pub(crate) socket: Option<SocketHandle>,
    /// The client's address (the peer's, or the one a trusted proxy named).
    pub(crate) address: IpAddr,
    /// This connection's place in its address's count.
    pub(crate) permit: ConnectionPermit,
}

/// One connection's state.
pub(super) struct Connection {
    pub(super) conn: ConnId,
    pub(super) app: Arc<AppState>,
    pub(super) identity: Option<Identity>,
    /// Rooms this connection plays or watches in, told when it closes.
    pub(super) rooms: HashMap<RoomId, RoomLink>,
    pub(super) subscriber: Subscriber,
    /// The lobby feed, while subscribed.
    pub(super) lobby: Option<LobbySubscription>,
    /// The client's address, which quotas count against.
    pub(super) address: IpAddr,
    /// Rooms this connection may still create this minute.
    pub(super) room_budget: Budget,
    /// Chat lines this connection may still send (`limits.chat_lines_per_minute`).
    pub(super) chat_budget: Budget,
    /// The client has sent a `ping` message: it keeps a heartbeat, so a shorter silence
    /// (`server.heartbeat_timeout_secs`) means it is gone.
    pub(super) on_heartbeat: bool,
}

/// How a session ends.
enum End {
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
    fn close(code: CloseCode, description: Option<String>, why: &'static str) -> End {
        End::Close {
            reason: Some(CloseReason { code, description }),
            why,
        }
    }

    /// The end for a frame that could not be written.
    fn unwritten(error: WriteError) -> End {
        match error {
            WriteError::Stalled => End::Stalled("stopped reading: a write stalled"),
            WriteError::Closed => End::Gone("write failed"),
        }
    }
}

/// Writes `$frame` (or, with `all`, several text frames), or ends the session loop if
/// it cannot.
macro_rules! write_or_end {
    ($writer:expr, $frame:expr) => {
        if let Err(error) = $writer.send($frame).await {
            break End::unwritten(error);
        }
    };
    (all $writer:expr, $frames:expr) => {
        if let Err(error) = $writer.send_all($frames).await {
            break End::unwritten(error);
        }
    };
}

/// Runs a connection until it closes, then tells its rooms and lets go of its socket.
///
/// `opened` comes boxed: an `async fn` keeps its arguments beside the locals it moves
/// them into, so every idle connection's future would otherwise hold them twice.
pub(crate) async fn run(opened: Box<Opened>) {
    let Opened {
        app,
        session,
        mut stream,
        socket,
        address,
        permit,
    } = *opened;
    let conn = new_conn_id();
    let (outbox, mut queued) = mpsc::channel::<Frame>(OUTBOX_FRAMES);
    let shutdown = app.shutdown.clone();
    let server = &app.config.server;
    let ping_every = Duration::from_secs(server.ping_interval_secs);
    let mut timeout = Duration::from_secs(server.client_timeout_secs);
    let heartbeat_timeout = Duration::from_secs(server.heartbeat_timeout_secs);
    let hello_within = Duration::from_secs(server.hello_timeout_secs);
    let write_timeout = Duration::from_secs(server.write_timeout_secs);
    let mut writer = Writer::new(session, socket.clone(), write_timeout);
    let budgets = app.limits.connection_budgets();
    let close_after_refusals = app.limits.close_after_refusals();
    let mut connection = Connection {
        conn,
        app: app.clone(),
        identity: None,
        rooms: HashMap::new(),
        subscriber: Subscriber::new(conn, outbox),
        lobby: None,
        address,
        room_budget: budgets.rooms,
        chat_budget: budgets.chat,
        on_heartbeat: false,
    };
    let kick = connection.subscriber.kick.clone();
    let moved = connection.subscriber.moved.clone();
    if let Some(relay) = &app.relay {
        relay.register(connection.subscriber.clone());
    }
    let metrics = app.metrics.clone();
    metrics.connections_open.inc();
    info!(conn, %address, "connection opened");
    let mut ping = interval(ping_every);
    let mut last_heard = Instant::now();
    let hello_by = last_heard + hello_within;
    let mut refusals = 0u32;
    // The futures every turn of the loop waits on are made once, not once per frame:
    // making and dropping them registered and struck off a waiter or a timer each time.
    let shutting_down = shutdown.cancelled();
    let room_moved = moved.cancelled();
    let kicked = kick.cancelled();
    let hello_due = sleep_until(hello_by);
    // Set for when the connection would have been silent too long if nothing came
    // since it was last set; moved on when it fires early (rather than at every frame).
    let silence = sleep_until(last_heard + timeout);
    tokio::pin!(shutting_down, room_moved, kicked, hello_due, silence);
    let end = loop {
        tokio::select! {
            () = &mut shutting_down => {
                let (notice, code, reason) = shutdown_notice(server);
                write_or_end!(writer, Outbound::Text(encode(&notice)));
                break End::close(code, Some(reason.into()), "server shutdown");
            }
            () = &mut room_moved => {
                let (notice, code, reason) = moved_notice(server);
                write_or_end!(writer, Outbound::Text(encode(&notice)));
                break End::close(code, Some(reason.into()), "a room moved to another node");
            }
            () = &mut kicked => {
                break End::close(CloseCode::Again, Some("too slow to keep up; reconnect".into()), "too slow to keep up");
            }
            () = &mut hello_due, if connection.identity.is_none() && !hello_within.is_zero() => {
                let reason = format!("say hello within {} seconds of connecting", hello_within.as_secs());
                break End::close(CloseCode::Policy, Some(reason), "no hello in time");
            }
            frame = stream.recv() => {
                // On a heartbeat only messages show the client is there: a WebSocket
                // pong may come from a browser whose page is frozen.
                let from_the_client = !connection.on_heartbeat
                    || matches!(frame, Some(Ok(AggregatedMessage::Text(_) | AggregatedMessage::Binary(_))));
                if from_the_client {
                    last_heard = Instant::now();
                }
                match frame {
                    None => break End::Gone("closed by peer"),
                    Some(Err(error)) => {
                        let breach = Breach::of(&error);
                        debug!(conn, %error, ?breach, "websocket protocol error");
                        let (description, why) = match breach {
                            Breach::TooLarge => (Some(format!("frames are limited to {MAX_FRAME_BYTES} bytes")), "frame too large"),
                            Breach::NotUtf8 => (Some("text frames must be UTF-8".to_owned()), "text not UTF-8"),
                            Breach::Protocol => (None, "protocol error"),
                        };
                        break End::close(breach.close_code(), description, why);
                    }
                    // The guard takes the frame's token from the budget: every text or
                    // binary frame is counted once, here; pings and pongs never are.
                    Some(Ok(message @ (AggregatedMessage::Text(_) | AggregatedMessage::Binary(_)))) if !budgets.messages.allow() => {
                        refusals += 1;
                        let text = match &message {
                            AggregatedMessage::Text(text) => text.as_ref(),
                            _ => "",
                        };
                        write_or_end!(writer, Outbound::Text(connection.refuse(text)));
                        if close_after_refusals != 0 && refusals >= close_after_refusals {
                            break End::close(CloseCode::Policy, Some("too many messages; slow down".into()), "over its message budget");
                        }
                    }
                    Some(Ok(AggregatedMessage::Text(text))) => {
                        refusals = 0;
                        let received = std::time::Instant::now();
                        // Boxed: handling a request holds far more state than waiting
                        // for one, and an idle connection should not carry it.
                        let replies = Box::pin(connection.on_text(&text, received)).await;
                        if connection.on_heartbeat && timeout > heartbeat_timeout {
                            timeout = heartbeat_timeout;
                            silence.as_mut().reset(last_heard + timeout);
                        }
                        write_or_end!(all writer, replies);
                    }
                    Some(Ok(AggregatedMessage::Binary(_))) => {
                        refusals = 0;
                        let reply = ServerMsg::error(ClientError::new(ErrorCode::BadMessage, "Send messages as JSON text frames, not binary frames."), None);
                        write_or_end!(writer, Outbound::Text(encode(&reply)));
                    }
                    Some(Ok(AggregatedMessage::Ping(bytes))) => write_or_end!(writer, Outbound::Pong(bytes)),
                    Some(Ok(AggregatedMessage::Pong(_))) => {}
                    Some(Ok(AggregatedMessage::Close(reason))) => {
                        break End::Close { reason, why: "closed by peer" };
                    }
                }
            }
            event = next_lobby_event(connection.lobby.as_mut()), if connection.lobby.is_some() => {
                let frames = match event {
                    LobbyEvent::Updates(frames) => frames,
                    LobbyEvent::Behind => vec![encode(&connection.lobby_snapshot(None))],
                };
                write_or_end!(all writer, frames);
            }
            Some(frame) = queued.recv() => {
                write_or_end!(writer, Outbound::Text(Frame::unwrap_or_clone(frame)));
            }
            () = &mut silence => {
                let quiet_until = last_heard + timeout;
                if quiet_until > Instant::now() {
                    silence.as_mut().reset(quiet_until);
                    continue;
                }
                let reason = if connection.on_heartbeat { "no ping for too long" } else { "no messages or pongs for too long" };
                break End::close(CloseCode::Normal, Some(reason.into()), "timed out");
            }
            _ = ping.tick() => write_or_end!(writer, Outbound::Ping),
        }
    };
    for room in connection.rooms.values() {
        room.disconnect(conn).await;
    }
    if let Some(relay) = &app.relay {
        relay.unregister(conn);
    }
    // A client that stopped reading is found by a room whose queue for it filled (the
    // room counts it as it kicks) or by a stalled write (counted here): once either way.
    if writer.stalled() {
        connection.subscriber.count_drop(&metrics);
    }
    let (why, flushed) = match end {
        End::Close { reason, why } => (why, writer.close(reason).await),
        End::Gone(why) => (why, !writer.stalled()),
        End::Stalled(why) => (why, false),
    };
    // Without the stream, actix closes the connection once it has sent what it holds;
    // a client that does not take it within the write timeout is reset.
    drop(stream);
    if let Some(socket) = socket {
        let closed = flushed
            && tokio::time::timeout(write_timeout, socket.closed())
                .await
                .is_ok();
        if !closed {
            socket.reset();
        }
    }
    drop(permit);
    metrics.connections_open.dec();
    info!(conn, reason = why, "connection closed");
}

impl Connection {
    /// A `lobby` snapshot for this connection's subscription.
    pub(super) fn lobby_snapshot(&self, reference: Option<Value>) -> ServerMsg {
        let game = self.lobby.as_ref().and_then(LobbySubscription::game);
        ServerMsg::Lobby {
            rooms: self.app.lobby.list_game(game),
            game,
            reference,
        }
    }
}

/// What a client is told as the server shuts down: the `shutdown` message, then the
/// close code and reason. A restart (the default) closes with 1012, "service restart";
/// a stop that ends the games with 1001, "going away".
fn shutdown_notice(server: &ServerConfig) -> (ServerMsg, CloseCode, &'static str) {
    let retry_after_ms = server.reconnect_after_ms;
    if server.end_games_on_shutdown {
        let notice = ServerMsg::Shutdown {
            reason: ShutdownReason::Stopping,
            message: "The server is stopping. Games in progress end here and are kept as interrupted; reconnect in a moment to play again.".to_owned(),
            retry_after_ms,
        };
        (notice, CloseCode::Away, "server shutting down")
    } else {
        let notice = ServerMsg::Shutdown {
            reason: ShutdownReason::Restarting,
            message: "The server is restarting. Your game is kept: reconnect in a moment, say hello with your token and join your seat again; the clocks stand still until the server is back.".to_owned(),
            retry_after_ms,
        };
        (notice, CloseCode::Restart, "server restarting")
    }
}

/// What a client in a room that moved to another node of the fleet is sent before its
/// connection is closed: reconnect (to any node) and rejoin, as after a restart.
fn moved_notice(server: &ServerConfig) -> (ServerMsg, CloseCode, &'static str) {
    let notice = ServerMsg::Shutdown {
        reason: ShutdownReason::Restarting,
        message: "A room you are in has moved to another server of this site. Your game is kept: reconnect in a moment, say hello with your token and join your seat again.".to_owned(),
        retry_after_ms: server.reconnect_after_ms,
    };
    (notice, CloseCode::Restart, "room moved")
}
