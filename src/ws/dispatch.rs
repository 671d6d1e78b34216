//! What a session does with each message: checks who is asking, enforces the room and
//! player quotas, and forwards the rest to the lobby and the rooms. Knows no game rules.

use std::time::{Instant, SystemTime};

use bytestring::ByteString;
use serde_json::Value;
use tracing::{debug, info};

use super::challenges::ChallengeAsked;
use super::connection::Connection;
use super::room_request::RoomRequest;
use crate::auth;
use crate::bans;
use crate::fleet::{Opening, RoomLink};
use crate::lobby::NewRoom;
use crate::players::{self, Identity};
use crate::protocol::{
    self, Checked, ClientError, ClientMsg, Envelope, ErrorCode, PROTOCOL_VERSION, Rejected,
    RoomSettingsView, ServerMsg, Updates, encode,
};
use crate::room::{Creator, unix_ms};
use parlor_room::{PlayerInfo, Request, RoomCommand, RoomId, RoomOptions, SeatSpec, TimeControl};
use parlor_rules::GameKind;

impl Connection {
    /// The `rate_limited` reply to a message over the connection's budget, which is not
    /// acted on; it echoes the message's `ref` if it has one.
    pub(super) fn refuse(&self, text: &str) -> ByteString {
        let reference = match protocol::parse(text) {
            Ok(envelope) => envelope.reference,
            Err(rejected) => rejected.reference,
        };
        let metrics = &self.app.metrics;
        metrics.messages_in.inc();
        metrics
            .errors
            .with_label_values(&[ErrorCode::RateLimited.as_str()])
            .inc();
        metrics.messages_out.inc();
        encode(&ServerMsg::error(
            self.app.limits.message_refused(),
            reference,
        ))
    }

    /// Reads one text frame as a client message (counted as one in), or why it
    /// cannot be.
    pub(super) fn read(&self, text: &str) -> Result<Envelope, Rejected> {
        self.app.metrics.messages_in.inc();
        protocol::parse(text)
    }

    /// Handles one message, as [`Connection::read`] read it: returns the direct replies
    /// to write, in order, or the request it makes of one room, to send.
    pub(super) async fn answer(
        &mut self,
        read: Result<Envelope, Rejected>,
        received: Instant,
    ) -> Answer {
        let replies = match read {
            Ok(envelope) => {
                let reference = envelope.reference;
                match self
                    .dispatch(envelope.msg, reference.clone(), received)
                    .await
                {
                    Ok(Handled::Replies(replies)) => replies,
                    Ok(Handled::Room(request)) => return Answer::Room(request),
                    Err(error) => {
                        debug!(conn = self.conn, code = %error.code, "request refused");
                        vec![ServerMsg::error(error, reference)]
                    }
                }
            }
            Err(rejected) => vec![ServerMsg::error(rejected.error, rejected.reference)],
        };
        Answer::Replies(self.encode_replies(replies))
    }

    /// `replies`, counted and encoded for writing.
    pub(super) fn encode_replies(&self, replies: Vec<ServerMsg>) -> Vec<ByteString> {
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

    /// Whether this connection's player may `activity` here: after `hello_required`,
    /// `bot_account` for a bot account asking to play, `sign_in_required` for a guest
    /// where `[auth]` keeps it to signed-in players.
    fn may(&self, activity: Activity) -> Result<(), ClientError> {
        let player = self.player()?;
        if activity == Activity::Play && player.bot_account {
            return Err(ClientError::new(
                ErrorCode::BotAccount,
                "This is a bot account: it plays through the Bot API (Parlor's docs/BOT_API.md), never as a person here. It may still watch games and chat; to play in person, say hello with another name.",
            ));
        }
        let signed_in = player.signed_in;
        let Some(sign_in) = &self.app.sign_in else {
            return Ok(());
        };
        let needed = match activity {
            Activity::Play => !sign_in.guests,
            Activity::Watch => sign_in.spectators_need_sign_in,
        };
        if needed && !signed_in {
            let what = match activity {
                Activity::Play => "play",
                Activity::Watch => "watch games",
            };
            return Err(ClientError::new(
                ErrorCode::SignInRequired,
                format!(
                    "Only players signed in with this site's accounts may {what} here. Sign in on the site, then connect again."
                ),
            ));
        }
        Ok(())
    }

    /// Who this connection speaks for, as rooms know players; `hello_required` before hello.
    pub(super) fn player_info(&self) -> Result<PlayerInfo, ClientError> {
        let identity = self.player()?;
        Ok(PlayerInfo {
            player_id: identity.player_id.clone(),
            name: identity.name.clone(),
            bot_account: identity.bot_account,
        })
    }

    async fn dispatch(
        &mut self,
        msg: ClientMsg,
        reference: Option<Value>,
        received: Instant,
    ) -> Result<Handled, ClientError> {
        let room_request = |connection: &Connection, room, command| {
            RoomRequest::new(connection, room, command, reference.clone(), received)
                .map(Handled::Room)
        };
        // Every message but hello needs an identity, checked before anything else.
        let handled = match msg {
            ClientMsg::Hello {
                name,
                token,
                jwt,
                updates,
            } => {
                let credentials = Credentials {
                    name: name.as_deref(),
                    token: token.as_deref(),
                    jwt: jwt.as_deref(),
                };
                let said = self
                    .hello(credentials, updates.unwrap_or_default(), reference)
                    .await;
                if let Err(error) = &said
                    && error.code == ErrorCode::Banned
                {
                    let enforced = &self.app.metrics.bans_enforced;
                    enforced.with_label_values(&["hello"]).inc();
                }
                Handled::Replies(said?)
            }
            ClientMsg::CreateRoom {
                game,
                seats,
                options,
            } => {
                self.may(Activity::Play)?;
                let room = self
                    .open_room(game, seats, options, reference.clone())
                    .await?;
                Handled::Replies(vec![ServerMsg::RoomCreated { room, reference }])
            }
            ClientMsg::Join { room, seat, since } => {
                self.may(Activity::Play)?;
                let command = RoomCommand::Join {
                    seat: seat.get()?,
                    since,
                };
                room_request(self, room, command)?
            }
            ClientMsg::Watch { room, since } => {
                self.may(Activity::Watch)?;
                room_request(self, room, RoomCommand::Watch { since })?
            }
            ClientMsg::Move { room, text, after } => {
                room_request(self, room, RoomCommand::Move { text, after })?
            }
            ClientMsg::Resign { room } => {
                room_request(self, room, RoomCommand::Request(Request::Resign))?
            }
            ClientMsg::OfferDraw { room } => {
                room_request(self, room, RoomCommand::Request(Request::OfferDraw))?
            }
            ClientMsg::AcceptDraw { room } => {
                room_request(self, room, RoomCommand::Request(Request::AcceptDraw))?
            }
            ClientMsg::DeclineDraw { room } => {
                room_request(self, room, RoomCommand::Request(Request::DeclineDraw))?
            }
            ClientMsg::Rematch { room } => {
                room_request(self, room, RoomCommand::Request(Request::Rematch))?
            }
            ClientMsg::FillWithBot { room, level } => {
                let request = Request::FillWithBot { level };
                room_request(self, room, RoomCommand::Request(request))?
            }
            ClientMsg::ClaimVictory { room } => {
                room_request(self, room, RoomCommand::Request(Request::ClaimVictory))?
            }
            ClientMsg::ClaimDraw { room } => {
                room_request(self, room, RoomCommand::Request(Request::ClaimDraw))?
            }
            ClientMsg::Chat { room, text } => {
                self.player()?;
                self.app.limits.chat_line(&self.chat_budget)?;
                room_request(self, room, RoomCommand::Chat { text })?
            }
            ClientMsg::Leave { room } => room_request(self, room, RoomCommand::Leave)?,
            ClientMsg::SubscribeLobby { game } => {
                self.player()?;
                let game = game.map(Checked::get).transpose()?;
                // Subscribe before listing, so no change after the snapshot is missed.
                self.lobby = Some(Box::new(self.app.lobby.subscribe(game)));
                Handled::Replies(vec![self.lobby_snapshot(reference)])
            }
            ClientMsg::UnsubscribeLobby {} => {
                self.player()?;
                self.lobby = None;
                Handled::Replies(vec![ServerMsg::LobbyUnsubscribed { reference }])
            }
            ClientMsg::QuickJoin { game, time_control } => {
                self.may(Activity::Play)?;
                Handled::Replies(self.quick_join(game, time_control, reference).await?)
            }
            // Needs no hello: a heartbeat may start as soon as the socket opens.
            ClientMsg::Ping {} => {
                self.on_heartbeat = true;
                Handled::Replies(vec![ServerMsg::Pong { reference }])
            }
            ClientMsg::Challenge {
                name,
                game,
                time_control,
                seat,
                rated,
            } => {
                self.may(Activity::Play)?;
                let asked = ChallengeAsked {
                    name,
                    game,
                    time_control,
                    seat,
                    rated,
                };
                Handled::Replies(self.challenge(asked, reference).await?)
            }
            ClientMsg::CancelChallenge { challenge } => {
                Handled::Replies(self.cancel_challenge(challenge, reference).await?)
            }
            ClientMsg::ListRooms {} => {
                self.player()?;
                Handled::Replies(vec![ServerMsg::Rooms {
                    rooms: self.app.lobby.list(),
                    reference,
                }])
            }
        };
        Ok(handled)
    }

    /// Seats the player opposite the person who has waited longest for this game and
    /// time control (on this node, then, in a fleet, on any node), or creates a room for
    /// them to wait in (offered to the whole fleet). A room whose seat is
    /// taken (or which closes) in the meantime is skipped for the next.
    async fn quick_join(
        &mut self,
        game: Checked<GameKind>,
        time_control: Checked<TimeControl>,
        reference: Option<Value>,
    ) -> Result<Vec<ServerMsg>, ClientError> {
        let player = self.player_info()?;
        let kind = game.get()?;
        let wanted = time_control.get()?;
        let candidates = self.app.lobby.waiting_for(kind, wanted, &player.player_id);
        for (handle, seat) in candidates {
            let room = handle.id().clone();
            let link = RoomLink::Local(handle);
            let asked = player
                .clone()
                .ask(RoomCommand::Join { seat, since: None }, reference.clone());
            match link.ask(asked, &self.subscriber, Instant::now()).await {
                Ok(()) => {
                    self.rooms.insert(room, link);
                    return Ok(Vec::new());
                }
                Err(error) if error.code.means_seat_gone() => {}
                Err(error) => return Err(error),
            }
        }
        // In a fleet, someone may be waiting on another node.
        if let Some(relay) = &self.app.relay
            && let Some((room, link)) = relay
                .join_waiting((kind, wanted), &player, &self.subscriber, reference.clone())
                .await?
        {
            self.rooms.insert(room, link);
            return Ok(Vec::new());
        }
        let seats = [SeatSpec::Me, SeatSpec::Open];
        let options = RoomOptions::clocked(wanted);
        let room = self
            .open_room(kind.into(), seats.into(), options.into(), reference.clone())
            .await?;
        if let Some(relay) = &self.app.relay {
            relay.offer_waiting((kind, wanted), &room).await;
        }
        Ok(vec![ServerMsg::RoomCreated { room, reference }])
    }

    /// Opens a room for this connection's player, seated in it if a seat says `me`: on
    /// this node, or, on a node of a fleet that holds no rooms, on one that does.
    /// Returns its id.
    async fn open_room(
        &mut self,
        game: Checked<GameKind>,
        seats: Checked<[SeatSpec; 2]>,
        options: Checked<RoomOptions>,
        reference: Option<Value>,
    ) -> Result<RoomId, ClientError> {
        let player = self.player_info()?;
        self.app
            .limits
            .create_room(&self.room_budget, self.address)
            .await?;
        let (game, seats, options) = (game.get()?, seats.get()?, options.get()?);
        let seated = SeatSpec::mine(&seats).is_some();
        if let Some(relay) = self.app.relay.clone()
            && !self.app.config.cluster.owns_rooms
        {
            // Checked here too, so that a bad request is refused as on any node.
            self.app.lobby.check_start(game, &options)?;
            let new_room = NewRoom {
                game,
                seats,
                options,
            };
            let Opening {
                room,
                link,
                outcome,
            } = relay
                .open_elsewhere((player, new_room), &self.subscriber, reference)
                .await?;
            // Kept also when the answer came too late: the room may be open, and the
            // client in it, and must hear when the connection closes.
            if seated {
                self.rooms.insert(room.clone(), link);
            }
            outcome?;
            return Ok(room);
        }
        let creator = Creator {
            player,
            sub: self.subscriber.clone(),
            reference,
        };
        let new_room = NewRoom {
            game,
            seats,
            options,
        };
        // In a fleet the room's lease is taken first; a single server needs none.
        let room = match &self.app.relay {
            Some(relay) => relay.open_here(None, new_room, Some(creator)).await?,
            None => self.app.lobby.create(new_room, Some(creator))?,
        };
        if seated {
            self.rooms
                .insert(room.id().to_owned(), RoomLink::Local(room.clone()));
        }
        Ok(room.id().clone())
    }

    async fn hello(
        &mut self,
        credentials: Credentials<'_>,
        updates: Updates,
        reference: Option<Value>,
    ) -> Result<Vec<ServerMsg>, ClientError> {
        if self.identity.is_some() {
            return Err(ClientError::new(
                ErrorCode::AlreadyIdentified,
                "This connection has already said hello. Open a new connection to play as someone else.",
            ));
        }
        // Lazy, as every future: the quota is asked only if a new player is made.
        let admit_new = self.app.limits.new_player(self.address);
        let now = unix_ms(SystemTime::now());
        let store = self.app.store.as_ref();
        let identity = match (credentials.jwt, &self.app.sign_in) {
            (Some(jwt), Some(sign_in)) => {
                let user = sign_in.verify(jwt).await.map_err(|refusal| {
                    info!(conn = self.conn, %refusal, "sign-in token refused");
                    refusal.to_client_error()
                })?;
                players::sign_in(
                    store,
                    &user,
                    credentials.name,
                    credentials.token,
                    now,
                    admit_new,
                )
                .await?
            }
            (Some(_), None) => return Err(auth::sign_in_off()),
            (None, _) => {
                let name = credentials.name.ok_or_else(|| {
                    ClientError::new(
                        ErrorCode::BadMessage,
                        "hello needs a `name` (or, where the site signs its users in, a `jwt`).",
                    )
                })?;
                players::hello(store, name, credentials.token, now, admit_new).await?
            }
        };
        // Known to the operator's list before the last look at the bans, so that a ban
        // made from now on finds this connection, and one made before is seen here.
        self.app
            .live
            .describe(self.conn, Some(&identity.player_id), self.rooms.ids());
        if let Err(error) = bans::refuse_banned(store, &identity.player_id, now).await {
            self.app.live.describe(self.conn, None, self.rooms.ids());
            return Err(error);
        }
        info!(conn = self.conn, player_id = %identity.player_id, "player identified");
        let welcome = ServerMsg::Welcome {
            player_id: identity.player_id.clone(),
            name: identity.name.clone(),
            token: identity.token.clone(),
            signed_in: identity.signed_in,
            protocol: PROTOCOL_VERSION,
            room_settings: Some(RoomSettingsView::from(&self.app.config.room_settings())),
            reference,
        };
        self.identity = Some(identity);
        // Every room this connection enters gets this subscriber, so they all hear of
        // moves as it asked; so do rooms on other nodes, which ask the relay.
        self.subscriber.updates = updates;
        if let Some(relay) = &self.app.relay {
            relay.register(self.subscriber.clone());
        }
        Ok(vec![welcome])
    }
}

/// What the session does with a message.
pub(super) enum Answer {
    /// Writes these replies, in order.
    Replies(Vec<ByteString>),
    /// Sends this request to its room, whose answer comes later.
    Room(RoomRequest),
}

/// What handling a message came to, before its replies are encoded.
enum Handled {
    Replies(Vec<ServerMsg>),
    Room(RoomRequest),
}

/// What a `hello` offers to say who it speaks for.
struct Credentials<'a> {
    /// The name asked for.
    name: Option<&'a str>,
    /// A guest's token.
    token: Option<&'a str>,
    /// A site's sign-in token.
    jwt: Option<&'a str>,
}

/// What a guest may be kept from where `[auth]` says so, and a bot account from always.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Activity {
    /// Taking a seat: creating a room, joining, quick join, challenging.
    Play,
    /// Watching a room.
    Watch,
}
