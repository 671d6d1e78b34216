//! `GET /api/bot/game/stream/{id}`: a bot's game as Lichess streams one. The stream is a
//! connection of its own to the room: it takes the bot's seat (as a reconnecting player
//! does), turns the room's frames into `gameFull`, `gameState` and `chatLine` lines,
//! and ends after the game's final state, when another connection takes the seat, or
//! when the room closes; the bot's moves and requests are asked on its connection. A
//! room that moves to another node of a fleet is followed there, as a WebSocket is.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Instant, SystemTime};

use actix_web::{HttpRequest, HttpResponse, web};
use tokio::time::{Sleep, interval_at};

use super::caller;
use super::events::BotEvent;
use super::frames::{self, RoomFrame};
use super::game_view::GameTracker;
use super::live_stream::LiveStream;
use super::ndjson::{self, KEEP_ALIVE, Lines};
use super::reply::BotApiError;
use super::seats::BotSeat;
use crate::AppState;
use crate::fleet::{REENTER_EVERY, REENTER_PATIENCE, RoomLink};
use crate::room::{OutboxReader, Subscriber, new_conn_id, outbox, unix_ms};
use parlor_room::{PlayerInfo, RoomCommand, RoomId};
use serde_json::json;

/// Opens the stream of game `id` for the calling bot, which must hold a seat in it.
pub(super) async fn game_stream(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, BotApiError> {
    let account = caller::bot(&state, &request).await?;
    let room = room_id(&id)?;
    let player = account.player_info();
    let (seat, frames) = take_seat(&state, &player, &room).await?;
    let bot = &player.player_id;
    state
        .bot_seats
        .hold(bot.clone(), room.clone(), seat.clone());
    let conn = seat.subscriber.conn;
    let close = seat.subscriber.alerts.clone();
    let live = LiveStream::open(&state, &request, conn, bot, Some(&room), close);
    let (response, lines) = ndjson::response();
    let streaming = Streaming {
        state: state.clone(),
        player,
        room,
        seat,
        live,
        moving_since: None,
    };
    actix_web::rt::spawn(streaming.run(frames, lines));
    Ok(response)
}

/// Takes `player`'s seat in `room` (or watches, without one) on a connection of its
/// own, whose frames come out of the receiver; let it go with [`let_go`].
pub(super) async fn take_seat(
    state: &AppState,
    player: &PlayerInfo,
    room: &RoomId,
) -> Result<(BotSeat, OutboxReader), BotApiError> {
    let link = RoomLink::find(room, &state.lobby, state.relay.as_ref()).await?;
    let conn = new_conn_id();
    let (outbox, frames) = outbox();
    let subscriber = Subscriber::new(conn, outbox);
    if let Some(relay) = &state.relay {
        relay.register(subscriber.clone());
    }
    let asked = player
        .clone()
        .ask(RoomCommand::Return { since: None }, None);
    let seat = BotSeat {
        subscriber,
        link,
        moves_shown: Arc::new(AtomicU32::new(u32::MAX)),
    };
    let entered = seat.link.ask(asked, &seat.subscriber, Instant::now()).await;
    if let Err(error) = entered {
        if let Some(relay) = &state.relay {
            relay.unregister(conn);
        }
        return Err(error.into());
    }
    Ok((seat, frames))
}

/// Lets a seat taken with [`take_seat`] go: the room counts the player away, as one
/// whose connection closed.
pub(super) async fn let_go(state: &AppState, seat: &BotSeat) {
    let conn = seat.subscriber.conn;
    seat.link.disconnect(conn).await;
    if let Some(relay) = &state.relay {
        relay.unregister(conn);
    }
}

/// A game id as a room's id; `404` for one no room could have.
pub(super) fn room_id(id: &str) -> Result<RoomId, BotApiError> {
    let room = RoomId::from(id);
    if room.could_be_live() {
        Ok(room)
    } else {
        Err(BotApiError::NotFound(format!("no game has the id {id}")))
    }
}

/// A running game stream.
struct Streaming {
    state: web::Data<AppState>,
    /// The bot, as its seat holds it.
    player: PlayerInfo,
    room: RoomId,
    seat: BotSeat,
    live: LiveStream,
    /// Since when the room has been moving to another node of the fleet, while it has
    /// not taken the stream back yet.
    moving_since: Option<Instant>,
}

impl Streaming {
    /// Turns the room's frames into lines until the stream ends, then gives the seat up
    /// (the room counts the bot away, as a player whose connection closed). A room that
    /// moves to another node of a fleet (its node died, or handed it on) is followed
    /// there: the stream takes the seat back wherever the room is now and goes on.
    async fn run(mut self, frames: OutboxReader, lines: Lines) {
        let mut tracker = GameTracker::default();
        let mut keep_alive = interval_at(tokio::time::Instant::now() + KEEP_ALIVE, KEEP_ALIVE);
        let alerts = self.seat.subscriber.alerts.clone();
        let ask_again = tokio::time::sleep(REENTER_EVERY);
        tokio::pin!(ask_again);
        loop {
            let sent = tokio::select! {
                frame = frames.recv_async() => match frame {
                    Ok(frame) => match self.lines_of(&frame, &mut tracker) {
                        Some(out) => send_all(&lines, out).await,
                        None => false,
                    },
                    Err(_disconnected) => false,
                },
                _ = keep_alive.tick() => lines.keep_alive().await,
                () = lines.gone() => false,
                // Banned, or dropped by the room for not keeping up.
                () = self.live.close.kicked() => false,
                () = alerts.moved() => {
                    alerts.take_moved();
                    self.moving_since.get_or_insert_with(Instant::now);
                    self.follow_the_room(ask_again.as_mut()).await
                }
                () = &mut ask_again, if self.moving_since.is_some() => {
                    self.follow_the_room(ask_again.as_mut()).await
                }
            };
            if !sent || tracker.finished() {
                break;
            }
        }
        self.close().await;
    }

    /// Asks the room that moved, wherever it is now, to take the bot's seat back on the
    /// stream's connection; if it is not found yet, asks again after [`REENTER_EVERY`]
    /// (`ask_again`). `false` once it has not been found for [`REENTER_PATIENCE`]: the
    /// stream ends, for the bot to open it again.
    async fn follow_the_room(&mut self, ask_again: Pin<&mut Sleep>) -> bool {
        let Some(since) = self.moving_since else {
            return true;
        };
        let state = &self.state;
        let found = RoomLink::find(&self.room, &state.lobby, state.relay.as_ref()).await;
        if let Ok(link) = found {
            let asked = self
                .player
                .clone()
                .ask(RoomCommand::Return { since: None }, None);
            if link
                .ask(asked, &self.seat.subscriber, Instant::now())
                .await
                .is_ok()
            {
                self.seat.link = link;
                self.moving_since = None;
                let (bot, room) = (self.player.player_id.clone(), self.room.clone());
                state.bot_seats.hold(bot, room, self.seat.clone());
                return true;
            }
        }
        if since.elapsed() >= REENTER_PATIENCE {
            return false;
        }
        ask_again.reset(tokio::time::Instant::now() + REENTER_EVERY);
        true
    }

    /// The lines `frame` calls for; `None` when the stream ends with it.
    fn lines_of(&self, frame: &str, tracker: &mut GameTracker) -> Option<Vec<String>> {
        match frames::read(frame) {
            Some(RoomFrame::State(state)) => {
                let now = unix_ms(SystemTime::now());
                let line = tracker.line(&self.room, &state, now);
                let shown = tracker.moves_shown();
                self.seat.moves_shown.store(shown, Ordering::Release);
                let bot = &self.player.player_id;
                if let Some(finish) = tracker.finish_event(&self.room, &state, bot) {
                    let finish = BotEvent::GameFinish(finish);
                    self.state.events.send(bot, &finish);
                }
                let absence = tracker.absence_line(&state, bot);
                Some(line.into_iter().chain(absence).collect())
            }
            Some(RoomFrame::Chat(chat)) => {
                let room = if chat.channel == "spectators" {
                    "spectator"
                } else {
                    "player"
                };
                let lines = chat.lines.into_iter().map(|line| {
                    json!({
                        "type": "chatLine",
                        "room": room,
                        "username": line.name,
                        "text": line.text,
                    })
                    .to_string()
                });
                Some(lines.collect())
            }
            Some(RoomFrame::Replaced {} | RoomFrame::RoomClosed {}) => None,
            Some(RoomFrame::GameOver {} | RoomFrame::Other) | None => Some(Vec::new()),
        }
    }

    async fn close(self) {
        let conn = self.seat.subscriber.conn;
        let bot = &self.player.player_id;
        self.state.bot_seats.release(bot, &self.room, conn);
        let_go(&self.state, &self.seat).await;
    }
}

/// Sends `out` in order; `false` once the client has gone.
async fn send_all(lines: &Lines, out: Vec<String>) -> bool {
    for line in out {
        if !lines.send(&line).await {
            return false;
        }
    }
    true
}
