//! The WebSocket session: one task per socket that reads frames into client messages,
//! answers malformed input itself, forwards the rest to rooms, and writes what rooms
//! queue for it. It knows no game rules.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use actix_web::{HttpRequest, HttpResponse, web};
use actix_ws::{AggregatedMessage, CloseCode, CloseReason, ProtocolError, Session};
use bytestring::ByteString;
use serde_json::{Map, Value};
use tokio::sync::mpsc;
use tokio::time::{Instant, interval, sleep_until};
use tokio_util::sync::CancellationToken;
use tracing::{debug, info};

use crate::AppState;
use crate::games::Seat;
use crate::lobby::{LobbyEvent, LobbySubscription, check_game, next_lobby_event};
use crate::players::{self, Identity};
use crate::protocol::{
    self, ClientError, ClientMsg, ErrorCode, MAX_FRAME_BYTES, PROTOCOL_VERSION, ServerMsg,
};
use crate::room::{
    ConnId, Creator, Frame, PlayerInfo, Request, RoomHandle, RoomOptions, Subscriber, unix_ms,
};

/// How many frames may wait for a slow client before it is disconnected.
const OUTBOX_FRAMES: usize = 256;

/// Hands out connection ids.
static NEXT_CONN: AtomicU64 = AtomicU64::new(1);

/// `GET /ws`: upgrades the request and starts the session task.
pub async fn upgrade(
    req: HttpRequest,
    body: web::Payload,
    state: web::Data<AppState>,
) -> actix_web::Result<HttpResponse> {
    let (response, session, stream) = actix_ws::handle(&req, body)?;
    let stream = stream
        .max_frame_size(MAX_FRAME_BYTES)
        .aggregate_continuations()
        .max_continuation_size(MAX_FRAME_BYTES);
    let peer = req
        .peer_addr()
        .map_or_else(|| "unknown".to_owned(), |addr| addr.to_string());
    // actix-ws streams are not Send, so the session runs on this HTTP worker's runtime.
    actix_web::rt::spawn(run(state.into_inner(), session, stream, peer));
    Ok(response)
}

/// One connection's state.
struct Connection {
    conn: ConnId,
    app: Arc<AppState>,
    identity: Option<Identity>,
    /// Rooms this connection plays or watches in, told when it closes.
    rooms: HashMap<String, RoomHandle>,
    subscriber: Subscriber,
    /// The lobby feed, while subscribed.
    lobby: Option<LobbySubscription>,
}

async fn run(
    app: Arc<AppState>,
    mut session: Session,
    mut stream: actix_ws::AggregatedMessageStream,
    peer: String,
) {
    let conn = NEXT_CONN.fetch_add(1, Ordering::Relaxed);
    let (outbox, mut queued) = mpsc::channel::<Frame>(OUTBOX_FRAMES);
    let kick = CancellationToken::new();
    let shutdown = app.shutdown.clone();
    let ping_every = Duration::from_secs(app.config.server.ping_interval_secs);
    let timeout = Duration::from_secs(app.config.server.client_timeout_secs);
    let mut connection = Connection {
        conn,
        app,
        identity: None,
        rooms: HashMap::new(),
        subscriber: Subscriber {
            conn,
            outbox,
            kick: kick.clone(),
        },
        lobby: None,
    };
    let metrics = connection.app.metrics.clone();
    metrics.connections_open.inc();
    info!(conn, %peer, "connection opened");
    let mut ping = interval(ping_every);
    let mut last_heard = Instant::now();
    let why = loop {
        tokio::select! {
            () = shutdown.cancelled() => {
                let notice = ServerMsg::Shutdown {
                    message: "The server is shutting down. Games in progress end here and are kept as interrupted; reconnect in a moment to play again.".to_owned(),
                };
                let _ = session.text(encode(&notice)).await;
                let _ = session.close(Some(CloseReason { code: CloseCode::Away, description: Some("server shutting down".into()) })).await;
                break "server shutdown";
            }
            () = kick.cancelled() => {
                let _ = session.close(Some(CloseReason { code: CloseCode::Again, description: Some("too slow to keep up; reconnect".into()) })).await;
                break "too slow to keep up";
            }
            frame = stream.recv() => {
                last_heard = Instant::now();
                match frame {
                    None => break "closed by peer",
                    Some(Err(error)) if is_oversized(&error) => {
                        let _ = session.close(Some(CloseReason { code: CloseCode::Size, description: Some(format!("frames are limited to {MAX_FRAME_BYTES} bytes")) })).await;
                        break "frame too large";
                    }
                    Some(Err(error)) => {
                        debug!(conn, %error, "websocket protocol error");
                        let _ = session.close(Some(CloseReason { code: CloseCode::Protocol, description: None })).await;
                        break "protocol error";
                    }
                    Some(Ok(AggregatedMessage::Text(text))) => {
                        let received = Instant::now();
                        // Boxed: handling a request holds far more state than waiting
                        // for one, and an idle connection should not carry it.
                        let replies = Box::pin(connection.on_text(&text, received)).await;
                        let mut written = true;
                        for reply in replies {
                            written = written && session.text(reply).await.is_ok();
                        }
                        if !written {
                            break "write failed";
                        }
                    }
                    Some(Ok(AggregatedMessage::Binary(_))) => {
                        let reply = ServerMsg::error(ClientError::new(ErrorCode::BadMessage, "Send messages as JSON text frames, not binary frames."), None);
                        if session.text(encode(&reply)).await.is_err() {
                            break "write failed";
                        }
                    }
                    Some(Ok(AggregatedMessage::Ping(bytes))) => {
                        if session.pong(&bytes).await.is_err() {
                            break "write failed";
                        }
                    }
                    Some(Ok(AggregatedMessage::Pong(_))) => {}
                    Some(Ok(AggregatedMessage::Close(reason))) => {
                        let _ = session.close(reason).await;
                        break "closed by peer";
                    }
                }
            }
            event = next_lobby_event(connection.lobby.as_mut()), if connection.lobby.is_some() => {
                let frames = match event {
                    LobbyEvent::Updates(frames) => frames,
                    LobbyEvent::Behind => vec![encode(&connection.lobby_snapshot(None))],
                };
                let mut written = Ok(());
                for frame in frames {
                    written = session.text(frame).await;
                    if written.is_err() {
                        break;
                    }
                }
                if written.is_err() {
                    break "write failed";
                }
            }
            Some(frame) = queued.recv() => {
                if session.text(Frame::unwrap_or_clone(frame)).await.is_err() {
                    break "write failed";
                }
            }
            () = sleep_until(last_heard + timeout) => {
                let _ = session.close(Some(CloseReason { code: CloseCode::Normal, description: Some("no messages or pongs for too long".into()) })).await;
                break "timed out";
            }
            _ = ping.tick() => {
                if session.ping(b"").await.is_err() {
                    break "write failed";
                }
            }
        }
    };
    for room in connection.rooms.values() {
        room.disconnect(conn).await;
    }
    metrics.connections_open.dec();
    info!(conn, reason = why, "connection closed");
}

/// Whether a read failed because a message exceeded [`MAX_FRAME_BYTES`], as one frame
/// or as fragments (actix-ws reports the latter as an I/O error with this text).
fn is_oversized(error: &ProtocolError) -> bool {
    match error {
        ProtocolError::Overflow => true,
        ProtocolError::Io(io) => io.to_string().contains("maximum continuation size"),
        _ => false,
    }
}

fn encode(msg: &ServerMsg) -> ByteString {
    // ServerMsg holds only strings, numbers and JSON values, which always encode.
    ByteString::from(serde_json::to_string(msg).unwrap_or_default())
}

impl Connection {
    /// Handles one text frame; returns the direct replies to write, in order.
    async fn on_text(&mut self, text: &str, received: Instant) -> Vec<ByteString> {
        self.app.metrics.messages_in.inc();
        let replies = match protocol::parse(text) {
            Ok(envelope) => {
                let reference = envelope.reference;
                match self
                    .dispatch(envelope.msg, reference.clone(), received)
                    .await
                {
                    Ok(replies) => replies,
                    Err(error) => {
                        debug!(conn = self.conn, code = %error.code, "request refused");
                        vec![ServerMsg::error(error, reference)]
                    }
                }
            }
            Err(rejected) => vec![ServerMsg::error(rejected.error, rejected.reference)],
        };
        let metrics = &self.app.metrics;
        for reply in &replies {
            if let ServerMsg::Error { code, .. } = reply {
                metrics.errors.with_label_values(&[code.as_str()]).inc();
            }
        }
        metrics.messages_out.inc_by(replies.len() as u64);
        replies.iter().map(encode).collect()
    }

    fn player(&self) -> Result<&Identity, ClientError> {
        self.identity.as_ref().ok_or_else(|| {
            ClientError::new(
                ErrorCode::HelloRequired,
                "Say hello first: send {\"type\":\"hello\",\"name\":\"your name\"}.",
            )
        })
    }

    fn player_info(&self) -> Result<PlayerInfo, ClientError> {
        let identity = self.player()?;
        Ok(PlayerInfo {
            player_id: identity.player_id.clone(),
            name: identity.name.clone(),
        })
    }

    async fn dispatch(
        &mut self,
        msg: ClientMsg,
        reference: Option<Value>,
        received: Instant,
    ) -> Result<Vec<ServerMsg>, ClientError> {
        // Every message but hello needs an identity, checked before anything else.
        match msg {
            ClientMsg::Hello { name, token } => {
                self.hello(&name, token.as_deref(), reference).await
            }
            ClientMsg::CreateRoom {
                game,
                seats,
                options,
            } => {
                let creator = Creator {
                    player: self.player_info()?,
                    sub: self.subscriber.clone(),
                    reference: reference.clone(),
                };
                let room = self
                    .app
                    .lobby
                    .create(&game, &seats, options, Some(creator))?;
                if seats.iter().any(|s| s == "me") {
                    self.rooms.insert(room.id().to_owned(), room.clone());
                }
                Ok(vec![ServerMsg::RoomCreated {
                    room: room.id().to_owned(),
                    reference,
                }])
            }
            ClientMsg::Join { room, seat } => {
                let player = self.player_info()?;
                let handle = self.app.lobby.get(&room)?;
                let seat = Seat::from_index(seat)
                    .ok_or_else(|| ClientError::new(ErrorCode::BadSeat, "A seat is 0 or 1."))?;
                handle
                    .join(player, seat, self.subscriber.clone(), reference)
                    .await?;
                self.rooms.insert(room, handle);
                Ok(Vec::new())
            }
            ClientMsg::Watch { room } => {
                self.player()?;
                let handle = self.app.lobby.get(&room)?;
                handle.watch(self.subscriber.clone(), reference).await?;
                self.rooms.insert(room, handle);
                Ok(Vec::new())
            }
            ClientMsg::Move { room, text } => {
                let player = self.player_info()?;
                let handle = self.app.lobby.get(&room)?;
                handle
                    .play(player.player_id, self.conn, text, received)
                    .await?;
                Ok(Vec::new())
            }
            ClientMsg::Resign { room } => self.request(&room, Request::Resign).await,
            ClientMsg::OfferDraw { room } => self.request(&room, Request::OfferDraw).await,
            ClientMsg::AcceptDraw { room } => self.request(&room, Request::AcceptDraw).await,
            ClientMsg::DeclineDraw { room } => self.request(&room, Request::DeclineDraw).await,
            ClientMsg::Rematch { room } => self.request(&room, Request::Rematch).await,
            ClientMsg::Leave { room } => {
                let player = self.player_info()?;
                let handle = self.app.lobby.get(&room)?;
                handle.leave(player.player_id, self.conn).await?;
                self.rooms.remove(&room);
                Ok(vec![ServerMsg::Left { room, reference }])
            }
            ClientMsg::SubscribeLobby { game } => {
                self.player()?;
                if let Some(game) = &game {
                    check_game(game)?;
                }
                // Subscribe before listing, so no change after the snapshot is missed.
                self.lobby = Some(self.app.lobby.subscribe(game));
                Ok(vec![self.lobby_snapshot(reference)])
            }
            ClientMsg::UnsubscribeLobby {} => {
                self.player()?;
                self.lobby = None;
                Ok(vec![ServerMsg::LobbyUnsubscribed { reference }])
            }
            ClientMsg::QuickJoin { game, time_control } => {
                self.quick_join(game, time_control, reference).await
            }
            ClientMsg::ListRooms {} => {
                self.player()?;
                Ok(vec![ServerMsg::Rooms {
                    rooms: self.app.lobby.list(),
                    reference,
                }])
            }
        }
    }

    /// A `lobby` snapshot for this connection's subscription.
    fn lobby_snapshot(&self, reference: Option<Value>) -> ServerMsg {
        let game = self
            .lobby
            .as_ref()
            .and_then(|sub| sub.game().map(str::to_owned));
        ServerMsg::Lobby {
            rooms: self.app.lobby.list_game(game.as_deref()),
            game,
            reference,
        }
    }

    /// Seats the player opposite the person who has waited longest for this game and
    /// time control, or creates a room for them to wait in. A room whose seat is
    /// taken (or which closes) in the meantime is skipped for the next.
    async fn quick_join(
        &mut self,
        game: String,
        time_control: Option<Value>,
        reference: Option<Value>,
    ) -> Result<Vec<ServerMsg>, ClientError> {
        let player = self.player_info()?;
        check_game(&game)?;
        let mut options = Map::new();
        if let Some(time_control) = time_control {
            options.insert("time_control".to_owned(), time_control);
        }
        let wanted = RoomOptions::parse(Some(options.clone()))?.time_control;
        let candidates = self.app.lobby.waiting_for(&game, wanted, &player.player_id);
        for (handle, seat) in candidates {
            let joined = handle
                .join(
                    player.clone(),
                    seat,
                    self.subscriber.clone(),
                    reference.clone(),
                )
                .await;
            match joined {
                Ok(()) => {
                    self.rooms.insert(handle.id().to_owned(), handle);
                    return Ok(Vec::new());
                }
                Err(error)
                    if matches!(
                        error.code,
                        ErrorCode::SeatTaken | ErrorCode::AlreadySeated | ErrorCode::UnknownRoom
                    ) => {}
                Err(error) => return Err(error),
            }
        }
        let creator = Creator {
            player,
            sub: self.subscriber.clone(),
            reference: reference.clone(),
        };
        let seats = ["me".to_owned(), "open".to_owned()];
        let room = self
            .app
            .lobby
            .create(&game, &seats, Some(options), Some(creator))?;
        self.rooms.insert(room.id().to_owned(), room.clone());
        Ok(vec![ServerMsg::RoomCreated {
            room: room.id().to_owned(),
            reference,
        }])
    }

    /// Passes a seated player's request to a room; the room's broadcast is the answer.
    async fn request(&self, room: &str, request: Request) -> Result<Vec<ServerMsg>, ClientError> {
        let player = self.player_info()?;
        let handle = self.app.lobby.get(room)?;
        handle.request(request, player.player_id, self.conn).await?;
        Ok(Vec::new())
    }

    async fn hello(
        &mut self,
        name: &str,
        token: Option<&str>,
        reference: Option<Value>,
    ) -> Result<Vec<ServerMsg>, ClientError> {
        if self.identity.is_some() {
            return Err(ClientError::new(
                ErrorCode::AlreadyIdentified,
                "This connection has already said hello. Open a new connection to play as someone else.",
            ));
        }
        let identity = players::hello(
            self.app.store.as_ref(),
            name,
            token,
            unix_ms(SystemTime::now()),
        )
        .await?;
        info!(conn = self.conn, player_id = %identity.player_id, "player identified");
        let welcome = ServerMsg::Welcome {
            player_id: identity.player_id.clone(),
            name: identity.name.clone(),
            token: identity.token.clone(),
            protocol: PROTOCOL_VERSION,
            reference,
        };
        self.identity = Some(identity);
        Ok(vec![welcome])
    }
}
