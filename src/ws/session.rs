//! The session loop: one task per socket, in mini-redis's shape (the next event, what it
//! does, until one ends the session). It reads frames, holds the connection to its
//! message budget and `hello` deadline, hands each message to
//! [`dispatch`](super::dispatch), and writes everything outbound (replies, room frames,
//! lobby updates, pings) through its [`Writer`], whose every write is bounded in time.

use std::collections::HashMap;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use actix_ws::{AggregatedMessage, AggregatedMessageStream, CloseCode, CloseReason, Session};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::{Instant, Interval, Sleep, interval, sleep_until};
use tokio_util::sync::WaitForCancellationFutureOwned;
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

/// What a session waits for: whichever comes first.
enum Event {
    /// The server is shutting down.
    Shutdown,
    /// A room the connection is in moved to another node of the fleet.
    RoomMoved,
    /// A room found the connection too slow to keep up.
    Kicked,
    /// The connection did not say hello in time.
    HelloOverdue,
    /// A frame from the client (`None`: the client has gone).
    Received(Option<Result<AggregatedMessage, actix_ws::ProtocolError>>),
    /// News of the rooms the connection follows in the lobby.
    Lobby(LobbyEvent),
    /// A frame a room queued for the connection.
    Queued(Frame),
    /// The connection may have been silent too long.
    Silence,
    /// Time to ping the client.
    PingDue,
}

/// Whether a session goes on after an event.
enum Flow {
    Continue,
    End(End),
}

/// A running session: the connection, its socket's two halves, its outbox, and what it
/// waits on. The waits that every turn of the loop takes part in are made once, not once
/// per frame: making and dropping them registered and struck off a waiter or a timer
/// each time.
struct Running {
    connection: Connection,
    stream: AggregatedMessageStream,
    writer: Writer,
    socket: Option<SocketHandle>,
    permit: ConnectionPermit,
    queued: mpsc::Receiver<Frame>,
    messages: Budget,
    close_after_refusals: u32,
    /// Refusals in a row for going over the message budget.
    refusals: u32,
    timeout: Duration,
    heartbeat_timeout: Duration,
    hello_within: Duration,
    write_timeout: Duration,
    last_heard: Instant,
    ping: Interval,
    shutting_down: Pin<Box<WaitForCancellationFutureOwned>>,
    room_moved: Pin<Box<WaitForCancellationFutureOwned>>,
    kicked: Pin<Box<WaitForCancellationFutureOwned>>,
    hello_due: Pin<Box<Sleep>>,
    /// Set for when the connection would have been silent too long if nothing came
    /// since it was last set; moved on when it fires early (rather than at every frame).
    silence: Pin<Box<Sleep>>,
}

/// Runs a connection until it closes, then tells its rooms and lets go of its socket:
/// the next event, what it does, until one ends the session.
///
/// `opened` comes boxed: an `async fn` keeps its arguments beside the locals it moves
/// them into, so every idle connection's future would otherwise hold them twice.
pub(crate) async fn run(opened: Box<Opened>) {
    let mut running = Running::open(*opened);
    let end = loop {
        let event = running.next_event().await;
        if let Flow::End(end) = running.handle(event).await {
            break end;
        }
    };
    running.close(end).await;
}

impl Running {
    /// The session of a connection just upgraded.
    fn open(opened: Opened) -> Running {
        let Opened {
            app,
            session,
            stream,
            socket,
            address,
            permit,
        } = opened;
        let conn = new_conn_id();
        let (outbox, queued) = mpsc::channel::<Frame>(OUTBOX_FRAMES);
        let server = &app.config.server;
        let hello_within = Duration::from_secs(server.hello_timeout_secs);
        let timeout = Duration::from_secs(server.client_timeout_secs);
        let write_timeout = Duration::from_secs(server.write_timeout_secs);
        let budgets = app.limits.connection_budgets();
        let connection = Connection {
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
        if let Some(relay) = &app.relay {
            relay.register(connection.subscriber.clone());
        }
        app.metrics.connections_open.inc();
        info!(conn, %address, "connection opened");
        let last_heard = Instant::now();
        let subscriber = &connection.subscriber;
        Running {
            shutting_down: Box::pin(app.shutdown.clone().cancelled_owned()),
            room_moved: Box::pin(subscriber.moved.clone().cancelled_owned()),
            kicked: Box::pin(subscriber.kick.clone().cancelled_owned()),
            hello_due: Box::pin(sleep_until(last_heard + hello_within)),
            silence: Box::pin(sleep_until(last_heard + timeout)),
            ping: interval(Duration::from_secs(server.ping_interval_secs)),
            writer: Writer::new(session, socket.clone(), write_timeout),
            close_after_refusals: app.limits.close_after_refusals(),
            heartbeat_timeout: Duration::from_secs(server.heartbeat_timeout_secs),
            messages: budgets.messages,
            refusals: 0,
            connection,
            stream,
            socket,
            permit,
            queued,
            timeout,
            hello_within,
            write_timeout,
            last_heard,
        }
    }

    /// Waits for the next thing the session must act on.
    async fn next_event(&mut self) -> Event {
        let awaiting_hello = self.connection.identity.is_none() && !self.hello_within.is_zero();
        let following_lobby = self.connection.lobby.is_some();
        tokio::select! {
            () = &mut self.shutting_down => Event::Shutdown,
            () = &mut self.room_moved => Event::RoomMoved,
            () = &mut self.kicked => Event::Kicked,
            () = &mut self.hello_due, if awaiting_hello => Event::HelloOverdue,
            frame = self.stream.recv() => Event::Received(frame),
            event = next_lobby_event(self.connection.lobby.as_mut()), if following_lobby => {
                Event::Lobby(event)
            }
            Some(frame) = self.queued.recv() => Event::Queued(frame),
            () = &mut self.silence => Event::Silence,
            _ = self.ping.tick() => Event::PingDue,
        }
    }

    /// Does what `event` calls for.
    async fn handle(&mut self, event: Event) -> Flow {
        match event {
            Event::Shutdown => {
                let (notice, code, reason) = shutdown_notice(&self.connection.app.config.server);
                self.write_then_close(notice, code, reason, "server shutdown")
                    .await
            }
            Event::RoomMoved => {
                let (notice, code, reason) = moved_notice(&self.connection.app.config.server);
                self.write_then_close(notice, code, reason, "a room moved to another node")
                    .await
            }
            Event::Kicked => Flow::End(End::close(
                CloseCode::Again,
                Some("too slow to keep up; reconnect".into()),
                "too slow to keep up",
            )),
            Event::HelloOverdue => {
                let reason = format!(
                    "say hello within {} seconds of connecting",
                    self.hello_within.as_secs()
                );
                Flow::End(End::close(
                    CloseCode::Policy,
                    Some(reason),
                    "no hello in time",
                ))
            }
            Event::Received(frame) => self.received(frame).await,
            Event::Lobby(event) => {
                let frames = match event {
                    LobbyEvent::Updates(frames) => frames,
                    LobbyEvent::Behind => vec![encode(&self.connection.lobby_snapshot(None))],
                };
                self.write_all(frames).await
            }
            Event::Queued(frame) => {
                self.write(Outbound::Text(Frame::unwrap_or_clone(frame)))
                    .await
            }
            Event::Silence => {
                let quiet_until = self.last_heard + self.timeout;
                if quiet_until > Instant::now() {
                    self.silence.as_mut().reset(quiet_until);
                    return Flow::Continue;
                }
                let reason = if self.connection.on_heartbeat {
                    "no ping for too long"
                } else {
                    "no messages or pongs for too long"
                };
                Flow::End(End::close(
                    CloseCode::Normal,
                    Some(reason.into()),
                    "timed out",
                ))
            }
            Event::PingDue => self.write(Outbound::Ping).await,
        }
    }

    /// Handles a frame from the client.
    async fn received(
        &mut self,
        frame: Option<Result<AggregatedMessage, actix_ws::ProtocolError>>,
    ) -> Flow {
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
            None => return Flow::End(End::Gone("closed by peer")),
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
                return Flow::End(End::close(breach.close_code(), description, why));
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
                if let Flow::End(end) = self.write(Outbound::Text(refusal)).await {
                    return Flow::End(end);
                }
                if self.close_after_refusals != 0 && self.refusals >= self.close_after_refusals {
                    return Flow::End(End::close(
                        CloseCode::Policy,
                        Some("too many messages; slow down".into()),
                        "over its message budget",
                    ));
                }
                Flow::Continue
            }
            AggregatedMessage::Text(text) => {
                self.refusals = 0;
                let received = std::time::Instant::now();
                // Boxed: handling a request holds far more state than waiting for one,
                // and an idle connection should not carry it.
                let replies = Box::pin(self.connection.on_text(&text, received)).await;
                if self.connection.on_heartbeat && self.timeout > self.heartbeat_timeout {
                    self.timeout = self.heartbeat_timeout;
                    self.silence.as_mut().reset(self.last_heard + self.timeout);
                }
                self.write_all(replies).await
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
                self.write(Outbound::Text(encode(&reply))).await
            }
            AggregatedMessage::Ping(bytes) => self.write(Outbound::Pong(bytes)).await,
            AggregatedMessage::Pong(_) => Flow::Continue,
            AggregatedMessage::Close(reason) => Flow::End(End::Close {
                reason,
                why: "closed by peer",
            }),
        }
    }

    /// Writes `outbound`, or ends the session if it cannot.
    async fn write(&mut self, outbound: Outbound) -> Flow {
        match self.writer.send(outbound).await {
            Ok(()) => Flow::Continue,
            Err(error) => Flow::End(End::unwritten(error)),
        }
    }

    /// Writes several text frames, or ends the session if it cannot.
    async fn write_all(&mut self, frames: Vec<bytestring::ByteString>) -> Flow {
        match self.writer.send_all(frames).await {
            Ok(()) => Flow::Continue,
            Err(error) => Flow::End(End::unwritten(error)),
        }
    }

    /// Writes `notice`, then ends the session with the close `code` and `reason`.
    async fn write_then_close(
        &mut self,
        notice: ServerMsg,
        code: CloseCode,
        reason: &'static str,
        why: &'static str,
    ) -> Flow {
        match self.write(Outbound::Text(encode(&notice))).await {
            Flow::Continue => Flow::End(End::close(code, Some(reason.into()), why)),
            ended => ended,
        }
    }

    /// Ends the session as `end` says: tells the rooms the connection was in, closes or
    /// resets the socket, and lets go of its place in its address's count.
    async fn close(self, end: End) {
        let Running {
            connection,
            stream,
            writer,
            socket,
            permit,
            write_timeout,
            ..
        } = self;
        let (conn, app) = (connection.conn, &connection.app);
        for room in connection.rooms.values() {
            room.disconnect(conn).await;
        }
        if let Some(relay) = &app.relay {
            relay.unregister(conn);
        }
        // A client that stopped reading is found by a room whose queue for it filled
        // (the room counts it as it kicks) or by a stalled write (counted here): once
        // either way.
        if writer.stalled() {
            connection.subscriber.count_drop(&app.metrics);
        }
        let (why, flushed) = match end {
            End::Close { reason, why } => (why, writer.close(reason).await),
            End::Gone(why) => (why, !writer.stalled()),
            End::Stalled(why) => (why, false),
        };
        // Without the stream, actix closes the connection once it has sent what it
        // holds; a client that does not take it within the write timeout is reset.
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
        app.metrics.connections_open.dec();
        info!(conn, reason = why, "connection closed");
    }
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
