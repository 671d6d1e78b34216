//! `GET /api/stream/event`, a player's stream of events: on opening, each pending
//! challenge they are in (`challenge`) and each game they hold a seat in that goes on
//! here (`gameStart`: also after a restart, which resumes the games), then whatever
//! happens to their challenges; and `GET /api/account/playing`, those games as a list.

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};
use tokio::time::interval_at;

use super::caller;
use super::challenges::{self, Challenge, ChallengeStatus};
use super::game_view::{speed, variant};
use super::live_stream::LiveStream;
use super::ndjson::{self, KEEP_ALIVE};
use super::reply::BotApiError;
use crate::AppState;
use crate::protocol::RoomSummary;
use crate::room::new_conn_id;
use parlor_room::{PlayerId, RoomId, SeatKind, TimeControl};
use parlor_rules::GameKind;
use parlor_rules::games::Seat;
use tokio_util::sync::CancellationToken;

/// Opens the caller's event stream.
pub(super) async fn event_stream(
    state: web::Data<AppState>,
    request: HttpRequest,
) -> Result<HttpResponse, BotApiError> {
    let account = caller::account(&state, &request).await?;
    let player = account.player.player_id;
    let mut events = state.events.open(&player);
    let base = base_url(&request);
    let asked = pending(&state, &player).into_iter();
    let games = state.lobby.games_of(&player).into_iter();
    let first: Vec<String> = asked
        .map(|challenge| challenges::event("challenge", &challenge, &base))
        .chain(games.map(|room| Ongoing::in_room(&room, &player).game_start(&base)))
        .collect();
    let close = CancellationToken::new();
    let live = LiveStream::open(&state, &request, new_conn_id(), &player, None, close);
    let (response, lines) = ndjson::response();
    actix_web::rt::spawn(async move {
        for line in first {
            if !lines.send(&line).await {
                return;
            }
        }
        let mut keep_alive = interval_at(tokio::time::Instant::now() + KEEP_ALIVE, KEEP_ALIVE);
        loop {
            let sent = tokio::select! {
                event = events.recv() => match event {
                    Some(line) => lines.send(&line).await,
                    None => false,
                },
                _ = keep_alive.tick() => lines.keep_alive().await,
                () = lines.gone() => false,
                () = live.close.cancelled() => false,
            };
            if !sent {
                break;
            }
        }
    });
    Ok(response)
}

/// `GET /api/account/playing`: the caller's games going on here.
pub(super) async fn playing(
    state: web::Data<AppState>,
    request: HttpRequest,
) -> Result<HttpResponse, BotApiError> {
    let account = caller::budgeted(&state, &request).await?;
    let player = account.player.player_id;
    let base = base_url(&request);
    let games: Vec<Value> = state
        .lobby
        .games_of(&player)
        .iter()
        .map(|room| Ongoing::in_room(room, &player).view(&base))
        .collect();
    Ok(HttpResponse::Ok().json(json!({ "nowPlaying": games })))
}

/// `player`'s challenges waiting for an answer.
fn pending(state: &AppState, player: &PlayerId) -> Vec<Challenge> {
    let mut challenges = state.challenges.of(player);
    challenges.retain(|challenge| challenge.status == ChallengeStatus::Created);
    challenges
}

/// A game a player plays, as its `gameStart` and `nowPlaying` entry show it.
pub(super) struct Ongoing {
    room: RoomId,
    game: GameKind,
    time_control: TimeControl,
    /// The player's seat.
    seat: Seat,
    /// The opponent's id, name and rating.
    opponent: (Option<PlayerId>, Option<String>, Option<i64>),
    moves: usize,
    rated: bool,
}

impl Ongoing {
    /// `player`'s game in `room`, as the room last published it.
    fn in_room(room: &RoomSummary, player: &PlayerId) -> Ongoing {
        let seat = room
            .seats
            .iter()
            .find(|seat| seat.player_id.as_ref() == Some(player))
            .map_or(Seat::First, |seat| seat.seat);
        let opponent = room.seats.iter().find(|other| other.seat != seat);
        Ongoing {
            room: room.room.clone(),
            game: room.game,
            time_control: room.time_control,
            seat,
            opponent: (
                opponent.and_then(|seat| seat.player_id.clone()),
                opponent.and_then(|seat| seat.name.clone()),
                opponent.and_then(|seat| seat.rating),
            ),
            moves: room.moves,
            rated: room.seats.iter().all(|seat| seat.kind == SeatKind::Human),
        }
    }

    /// The game of `challenge`, just accepted, for the player of `seat`.
    pub(super) fn accepted(challenge: &Challenge, seat: Seat) -> Ongoing {
        let opponent = challenge.party(seat.other());
        Ongoing {
            room: challenge.id.clone(),
            game: challenge.game,
            time_control: challenge.time_control,
            seat,
            opponent: (
                Some(opponent.player.player_id.clone()),
                Some(opponent.player.name.clone()),
                opponent.rating,
            ),
            moves: 0,
            rated: challenge.rated,
        }
    }

    /// The game as Lichess summarises one.
    fn view(&self, base: &str) -> Value {
        let seconds_left = match self.time_control {
            TimeControl::None => None,
            TimeControl::PerMove { per_move_ms } => Some(per_move_ms / 1000),
            TimeControl::Fischer { base_ms, .. } => Some(base_ms / 1000),
        };
        // Turns alternate from seat 0 in a game from the usual start.
        let to_move = if self.moves.is_multiple_of(2) {
            Seat::First
        } else {
            Seat::Second
        };
        let speed = speed(self.time_control);
        let (id, username, rating) = &self.opponent;
        json!({
            "id": self.room,
            "gameId": self.room,
            "fullId": self.room,
            "url": format!("{base}/{}", self.room),
            "color": if self.seat == Seat::First { "white" } else { "black" },
            "fen": "startpos",
            "lastMove": "",
            "source": "friend",
            "status": {"id": 20, "name": "started"},
            "variant": variant(self.game),
            "speed": speed,
            "perf": speed,
            "rated": self.rated,
            "hasMoved": self.moves > 0,
            "opponent": {"id": id, "username": username, "rating": rating},
            "isMyTurn": to_move == self.seat,
            "secondsLeft": seconds_left,
            "compat": {"bot": self.game == GameKind::Chess, "board": true},
        })
    }

    /// The `gameStart` event of the game.
    pub(super) fn game_start(&self, base: &str) -> String {
        json!({"type": "gameStart", "game": self.view(base)}).to_string()
    }
}

/// The address the request came to, as the links Lichess sends are made from.
pub(super) fn base_url(request: &HttpRequest) -> String {
    let info = request.connection_info();
    format!("{}://{}", info.scheme(), info.host())
}
