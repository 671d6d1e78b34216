//! The session loop: one task per socket, in mini-redis's shape (the next event, the
//! step it calls for, carried out, until one ends the session). It reads frames, holds
//! the connection to its message budget and `hello` deadline, hands each message to
//! [`dispatch`](super::dispatch), and writes what it sends itself (replies, lobby
//! updates, pings) through its [`Writer`], whose every write is bounded in time. The
//! rooms' frames do not pass through it: its [`outbox`](super::outbox) writes them.

use foldhash::HashSet;
use std::net::IpAddr;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use actix_ws::{AggregatedMessage, AggregatedMessageStream, CloseCode, Session};
use bytestring::ByteString;
use tokio::sync::mpsc;
use tokio::time::{Instant, Sleep, sleep_until};
use tracing::info;

mod deadlines;
mod reading;
mod steps;

use super::challenges;
use super::connection::Connection;
use super::dispatch::Answer;
use super::in_flight::InFlight;
use super::meanwhile::Meanwhile;
use super::notices::{moved_notice, shutdown_notice};
use super::outbox::Gate;
use super::reroute::Moving;
use super::room_links::RoomLinks;
use super::room_request::{Answered, Settled};
use super::socket::SocketHandle;
use super::writer::{Outbound, WriteError, Writer};
use crate::AppState;
use crate::bot_api::events::BotEvent;
use crate::config::ServerConfig;
use crate::limits::{Budget, ConnectionPermit};
use crate::lobby::{LobbyEvent, next_lobby_event};
use crate::protocol::{Envelope, Rejected, ServerMsg, encode};
use crate::room::{Alert, Outbox, Subscriber, new_conn_id};
pub(crate) use deadlines::Deadlines;
use deadlines::Due;
use steps::{End, Event, Flow, Held, Step};

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
    /// Where rooms queue frames for the connection; the response body writes them.
    pub(crate) outbox: Outbox,
    /// Holds the outbox back while a request that opens a room is answered.
    pub(crate) gate: Rc<Gate>,
    /// The client's address (the peer's, or the one a trusted proxy named).
    pub(crate) address: IpAddr,
    /// This connection's place in its address's count.
    pub(crate) permit: ConnectionPermit,
}

/// A running session: the connection, its socket's two halves, its outbox's gate and
/// its budgets and deadlines.
struct Running {
    connection: Connection,
    stream: AggregatedMessageStream,
    writer: Writer,
    socket: Option<SocketHandle>,
    permit: ConnectionPermit,
    gate: Rc<Gate>,
    messages: Budget,
    close_after_refusals: u32,
    /// Refusals in a row for going over the message budget.
    refusals: u32,
    /// How long the client may be silent: `server.client_timeout_secs`, or
    /// `server.heartbeat_timeout_secs` once it keeps a heartbeat. (The other settings
    /// are read from the configuration as needed, not kept per connection.)
    timeout: Duration,
    last_heard: Instant,
    deadlines: Deadlines,
    /// A frame read while a message was being handled, handled next.
    deferred: Option<Received>,
    /// The connection's requests waiting on rooms.
    in_flight: InFlight,
    /// A message that waits for the requests in flight to be answered first: one that
    /// changes who the connection speaks for or opens a room. Nothing more is read
    /// meanwhile. Boxed: it is rare, and every idle connection would keep room for it.
    held: Option<Box<Held>>,
}

/// What reading the client's stream gives (`None`: the client has gone).
pub(super) type Received = Option<Result<AggregatedMessage, actix_ws::ProtocolError>>;

/// Runs a connection until it closes, then tells its rooms and lets go of its socket:
/// the next event, the step it calls for, carried out, until one ends the session.
///
/// `opened` comes boxed: an `async fn` keeps its arguments beside the locals it moves
/// them into, so every idle connection's future would otherwise hold them twice.
pub(crate) async fn run(opened: Box<Opened>) {
    let mut running = Running::open(opened);
    // Besides the client and the rooms, every turn of the loop waits on this one timer,
    // set to the earliest of the session's deadlines. It is made once, not once per
    // frame (making and dropping it registered and struck off a timer each time), and
    // pinned in the session's own future rather than boxed, which would give every idle
    // connection one more allocation. (The server's shutdown, a kick and rooms moved
    // come as the connection's alerts, one word to check.)
    let due = sleep_until(running.last_heard);
    tokio::pin!(due);
    let end = loop {
        let event = running.next_event(&mut due).await;
        // Each step that waits is boxed: its future (a write within its timeout, a
        // message handled, a room's answer settled) lives only while the step runs, and
        // would otherwise make every idle connection's future as large as the largest of
        // them. That costs one short-lived allocation per step, which the allocator
        // serves from its per-thread free lists.
        let written = match running.handle(event) {
            Step::Wait => Ok(None),
            Step::End(end) => Ok(Some(end)),
            Step::Write(outbound, then) => {
                Box::pin(running.writer.send(outbound)).await.map(|()| then)
            }
            Step::WriteAll(frames) => Box::pin(running.writer.send_all(frames))
                .await
                .map(|()| None),
            Step::Dispatch(text) => Box::pin(running.dispatch(text, &mut due)).await,
            Step::Answer(held) => {
                let Held(envelope, received) = *held;
                Box::pin(running.answer(Ok(envelope), received, &mut due)).await
            }
            Step::Settle(answered) => Box::pin(running.settle(answered)).await,
            Step::Reenter(notices) => Box::pin(running.reenter(notices)).await,
        };
        if let Flow::End(end) = flow(written) {
            break end;
        }
    };
    // Boxed: closing holds the whole session and waits on the rooms and the socket, and
    // every connection's future would otherwise keep room for it while idle.
    Box::pin(running.close(end)).await;
}

impl Running {
    /// The session of a connection just upgraded. It takes the box, not what is in it:
    /// a box moved out of in the session's own future would be freed only when the
    /// session ends, keeping ~300 bytes per connection for nothing.
    fn open(opened: Box<Opened>) -> Running {
        let Opened {
            app,
            session,
            stream,
            socket,
            outbox,
            gate,
            address,
            permit,
        } = *opened;
        let conn = new_conn_id();
        let server = &app.config.server;
        let write_timeout = Duration::from_secs(server.write_timeout_secs);
        let budgets = app.limits.connection_budgets();
        let (timeout, hello_within) = (
            Duration::from_secs(server.client_timeout_secs),
            Duration::from_secs(server.hello_timeout_secs),
        );
        let opened = Instant::now();
        let deadlines = Deadlines::new(
            opened,
            Duration::from_secs(server.ping_interval_secs),
            hello_within,
            timeout,
        );
        let connection = Connection {
            conn,
            app: app.clone(),
            identity: None,
            rooms: RoomLinks::default(),
            watching: HashSet::default(),
            moving: Moving::default(),
            subscriber: Subscriber::new(conn, outbox),
            lobby: None,
            bot_events: None,
            challenges_sent: Vec::new(),
            address,
            room_budget: budgets.rooms,
            chat_budget: budgets.chat,
            on_heartbeat: false,
            described: (false, 0),
        };
        if let Some(relay) = &app.relay {
            relay.register(connection.subscriber.clone());
        }
        let alerts = &connection.subscriber.alerts;
        app.live.open(conn, address, alerts.clone());
        // Opened after the server told its connections it is shutting down.
        if app.shutdown.is_cancelled() {
            alerts.shut_down();
        }
        app.metrics.connections_open.inc();
        info!(conn, %address, "connection opened");
        Running {
            writer: Writer::new(session, gate.clone(), socket.clone(), write_timeout),
            close_after_refusals: app.limits.close_after_refusals(),
            timeout,
            messages: budgets.messages,
            refusals: 0,
            last_heard: opened,
            deadlines,
            connection,
            stream,
            socket,
            permit,
            gate,
            deferred: None,
            in_flight: InFlight::default(),
            held: None,
        }
    }

    /// Waits for the next thing the session must act on.
    async fn next_event(&mut self, due: &mut Pin<&mut Sleep>) -> Event {
        let following_lobby = self.connection.lobby.is_some();
        let following_challenges = self.connection.bot_events.is_some();
        let moving = !self.connection.moving.is_empty();
        let waiting = !self.in_flight.is_idle();
        let reading = self.held.is_none() && !self.in_flight.is_full();
        if let Some(frame) = self.deferred.take() {
            return Event::Received(frame);
        }
        if !waiting && let Some(held) = self.held.take() {
            return Event::Held(held);
        }
        let next = self.deadlines.next(self.awaiting_hello(), moving);
        if due.deadline() != next {
            due.as_mut().reset(next);
        }
        // In this order, not at random: a room's answer is taken in before the next
        // frame from the client, which may already answer what that room sent it (a
        // room that took the connection back after a move sends `joined` and then
        // answers; the client's next request for it must find it no longer moving).
        // Nothing here can keep the client's frames waiting long: a connection has at
        // most a few requests out, and the lobby and challenge news come paced.
        tokio::select! {
            biased;
            alert = self.connection.subscriber.alerts.next() => match alert {
                Alert::Shutdown => Event::Shutdown,
                Alert::Kicked => Event::Kicked,
                Alert::Moved => Event::RoomMoved,
            },
            answered = self.in_flight.next(), if waiting => Event::Answered(answered),
            event = next_lobby_event(self.connection.lobby.as_deref_mut()), if following_lobby => {
                Event::Lobby(event)
            }
            event = next_bot_event(self.connection.bot_events.as_mut()), if following_challenges => {
                Event::Challenges(event)
            }
            frame = self.stream.recv(), if reading => Event::Received(frame),
            () = due.as_mut() => Event::Due,
        }
    }

    /// The server's settings.
    fn server(&self) -> &ServerConfig {
        &self.connection.app.config.server
    }

    /// Whether the connection has yet to say hello, within a deadline.
    fn awaiting_hello(&self) -> bool {
        self.connection.identity.is_none() && self.server().hello_timeout_secs != 0
    }

    /// What `event` calls for.
    fn handle(&mut self, event: Event) -> Step {
        match event {
            Event::Shutdown => {
                let (notice, code, reason) = shutdown_notice(&self.connection.app.config.server);
                let end = End::close(code, Some(reason.into()), "server shutdown");
                Step::Write(Outbound::Text(encode(&notice)), Some(end))
            }
            Event::RoomMoved => {
                let moved = self.connection.subscriber.alerts.take_moved();
                let notices = self.connection.rooms_moved(moved);
                if self.connection.moving.is_empty() {
                    return Step::Wait;
                }
                Step::Reenter(notices)
            }
            Event::Kicked => match self.connection.app.live.closing_error(self.connection.conn) {
                Some(why) => {
                    let code = why.code.as_str();
                    let end = End::close(CloseCode::Policy, Some(code.into()), code);
                    let notice = ServerMsg::error(why, None);
                    Step::Write(Outbound::Text(encode(&notice)), Some(end))
                }
                None => Step::End(End::close(
                    CloseCode::Again,
                    Some("too slow to keep up; reconnect".into()),
                    "too slow to keep up",
                )),
            },
            Event::Received(frame) => self.received(frame),
            Event::Held(held) => Step::Answer(held),
            Event::Answered(answered) => Step::Settle(answered),
            Event::Lobby(LobbyEvent::Updates(frames)) => Step::WriteAll(frames),
            Event::Challenges(Some(event)) => match challenges::told(&event) {
                Some(message) => {
                    self.connection.app.metrics.messages_out.inc();
                    Step::WriteAll(vec![encode(&message)])
                }
                None => Step::Wait,
            },
            // Dropped for not keeping up: it hears no more.
            Event::Challenges(None) => {
                self.connection.bot_events = None;
                Step::Wait
            }
            Event::Lobby(LobbyEvent::Behind) => {
                Step::WriteAll(vec![encode(&self.connection.lobby_snapshot(None))])
            }
            Event::Due => self.due(),
        }
    }

    /// What the deadline that passed calls for (the most urgent, if several did).
    fn due(&mut self) -> Step {
        let now = Instant::now();
        let moving = !self.connection.moving.is_empty();
        match self.deadlines.take_due(now, self.awaiting_hello(), moving) {
            Some(Due::HelloOverdue) => {
                let reason = format!(
                    "say hello within {} seconds of connecting",
                    self.server().hello_timeout_secs
                );
                Step::End(End::close(
                    CloseCode::Policy,
                    Some(reason),
                    "no hello in time",
                ))
            }
            Some(Due::Silence) => {
                let quiet_until = self.last_heard + self.timeout;
                if quiet_until > now {
                    self.deadlines.silence = quiet_until;
                    return Step::Wait;
                }
                let reason = if self.connection.on_heartbeat {
                    "no ping for too long"
                } else {
                    "no messages or pongs for too long"
                };
                Step::End(End::close(
                    CloseCode::Normal,
                    Some(reason.into()),
                    "timed out",
                ))
            }
            Some(Due::Reenter) => Step::Reenter(Vec::new()),
            Some(Due::Ping) => Step::Write(Outbound::Ping, None),
            None => Step::Wait,
        }
    }

    /// Hands a text message to [`dispatch`](super::dispatch), unless it must wait for
    /// the requests in flight to be answered first (it is then held, and nothing more
    /// is read meanwhile).
    async fn dispatch(
        &mut self,
        text: ByteString,
        due: &mut Pin<&mut Sleep>,
    ) -> Result<Option<End>, WriteError> {
        let received = std::time::Instant::now();
        match self.connection.read(&text) {
            Ok(envelope)
                if envelope.msg.waits_for_earlier_requests() && !self.in_flight.is_idle() =>
            {
                self.held = Some(Box::new(Held(envelope, received)));
                Ok(None)
            }
            read => self.answer(read, received, due).await,
        }
    }

    /// Takes in a room's answer, sends the client's next request for that room, and
    /// writes the replies the answer calls for.
    async fn settle(&mut self, answered: Answered) -> Result<Option<End>, WriteError> {
        let (room, reentry) = (answered.room().clone(), answered.is_reentry());
        let settled = self.connection.settle(answered);
        self.in_flight
            .answered(&room, reentry, &mut self.connection);
        self.connection.describe_to_operator();
        match settled {
            Settled::Replies(replies) => self.writer.send_all(replies).await.map(|()| None),
            Settled::GaveUp => {
                let (notice, code, reason) = moved_notice(&self.connection.app.config.server);
                let end = End::close(code, Some(reason.into()), "a room moved and was not found");
                self.writer
                    .send(Outbound::Text(encode(&notice)))
                    .await
                    .map(|()| Some(end))
            }
        }
    }

    /// Asks the rooms that moved to take the connection back (asked again later, while
    /// any has not), and writes `notices`.
    async fn reenter(&mut self, notices: Vec<ByteString>) -> Result<Option<End>, WriteError> {
        for request in self.connection.reentries(&self.in_flight) {
            self.in_flight.push(request, &mut self.connection);
        }
        self.deadlines.asked_rooms_again(Instant::now());
        self.writer.send_all(notices).await.map(|()| None)
    }

    /// Answers a message read from the client: writes its replies, or sends the
    /// request it makes of a room. The rooms' frames go on meanwhile, but for a request
    /// whose answer must come before its room's first frame (PROTOCOL.md §2.5): the
    /// outbox is held until that answer is written.
    async fn answer(
        &mut self,
        read: Result<Envelope, Rejected>,
        received: std::time::Instant,
        due: &mut Pin<&mut Sleep>,
    ) -> Result<Option<End>, WriteError> {
        let _outbox_held = read
            .as_ref()
            .is_ok_and(|envelope| envelope.msg.opens_a_room())
            .then(|| self.gate.hold());
        let (connection, meanwhile) = self.split(due.as_mut());
        // Boxed: handling a request holds far more state than waiting for one, and an
        // idle connection should not carry it.
        let handling = Box::pin(connection.answer(read, received));
        let (answer, meanwhile, heard) = meanwhile.wait_for(handling).await;
        self.heard_meanwhile(heard);
        meanwhile?;
        let heartbeat_timeout = Duration::from_secs(self.server().heartbeat_timeout_secs);
        if self.connection.on_heartbeat && self.timeout > heartbeat_timeout {
            self.timeout = heartbeat_timeout;
            self.deadlines.silence = self.last_heard + self.timeout;
        }
        match answer {
            Answer::Replies(replies) => {
                self.connection.describe_to_operator();
                self.writer.send_all(replies).await.map(|()| None)
            }
            Answer::Room(request) => {
                self.in_flight.push(request, &mut self.connection);
                Ok(None)
            }
        }
    }

    /// The connection, and what keeps up with the client while it waits on its rooms.
    fn split<'s>(&'s mut self, due: Pin<&'s mut Sleep>) -> (&'s mut Connection, Meanwhile<'s>) {
        let meanwhile = Meanwhile {
            stream: &mut self.stream,
            due,
            deadlines: &mut self.deadlines,
            writer: &mut self.writer,
            deferred: &mut self.deferred,
        };
        (&mut self.connection, meanwhile)
    }

    /// Notes that the client answered a ping while the connection waited; as
    /// `received` counts them, on a heartbeat only messages show the client is there.
    fn heard_meanwhile(&mut self, heard: bool) {
        if heard && !self.connection.on_heartbeat {
            self.last_heard = Instant::now();
        }
    }

    /// Ends the session as `end` says: tells the rooms the connection was in, closes or
    /// resets the socket, and lets go of its place in its address's count.
    async fn close(self, end: End) {
        let Running {
            mut connection,
            in_flight,
            stream,
            writer,
            socket,
            permit,
            ..
        } = self;
        let write_timeout = Duration::from_secs(connection.app.config.server.write_timeout_secs);
        // A room entered meanwhile is then among the rooms told.
        in_flight.finish(&mut connection).await;
        let (conn, app) = (connection.conn, &connection.app);
        for room in connection.rooms.links() {
            room.disconnect(conn).await;
        }
        if let Some(relay) = &app.relay {
            relay.unregister(conn);
        }
        app.live.close(conn);
        connection.withdraw_challenges().await;
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

/// Whether the session goes on after a step: it ends if a write failed, or if the step
/// ends it (once its frames are written).
fn flow(written: Result<Option<End>, WriteError>) -> Flow {
    match written {
        Ok(None) => Flow::Continue,
        Ok(Some(end)) => Flow::End(end),
        Err(error) => Flow::End(End::unwritten(error)),
    }
}

/// The next news of a connection's challenges, once it listens (`None` when its
/// listener was dropped); never, while it does not.
async fn next_bot_event(events: Option<&mut mpsc::Receiver<BotEvent>>) -> Option<BotEvent> {
    match events {
        Some(events) => events.recv().await,
        None => std::future::pending().await,
    }
}
