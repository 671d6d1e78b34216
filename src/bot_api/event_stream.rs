//! `GET /api/stream/event`, a player's stream of events: on opening, each pending
//! challenge they are in (`challenge`) and each game of an accepted challenge whose room
//! is still open (`gameStart`), then whatever happens to their challenges; and `GET
//! /api/account/playing`, those games as a list.

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};
use tokio::time::interval_at;

use super::caller;
use super::challenges::{self, Challenge, ChallengeStatus};
use super::game_view::{speed, variant};
use super::ndjson::{self, KEEP_ALIVE};
use super::reply::BotApiError;
use crate::AppState;
use parlor_room::{PlayerId, TimeControl};
use parlor_rules::games::Seat;

/// Opens the caller's event stream.
pub(super) async fn event_stream(
    state: web::Data<AppState>,
    request: HttpRequest,
) -> Result<HttpResponse, BotApiError> {
    let account = caller::account(&state, &request).await?;
    let player = account.player.player_id;
    let mut events = state.events.open(&player);
    let base = base_url(&request);
    let mut first = Vec::new();
    for challenge in current(&state, &player) {
        first.push(match challenge.status {
            ChallengeStatus::Created => challenges::event("challenge", &challenge, &base),
            _ => game_start(&challenge, &player, &base),
        });
    }
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
            };
            if !sent {
                break;
            }
        }
    });
    Ok(response)
}

/// `GET /api/account/playing`: the caller's games of accepted challenges whose rooms
/// are open.
pub(super) async fn playing(
    state: web::Data<AppState>,
    request: HttpRequest,
) -> Result<HttpResponse, BotApiError> {
    let account = caller::account(&state, &request).await?;
    let player = account.player.player_id;
    let base = base_url(&request);
    let games: Vec<Value> = current(&state, &player)
        .iter()
        .filter(|challenge| challenge.status == ChallengeStatus::Accepted)
        .map(|challenge| game(challenge, &player, &base))
        .collect();
    Ok(HttpResponse::Ok().json(json!({ "nowPlaying": games })))
}

/// `player`'s pending challenges and their accepted ones whose rooms are open here; an
/// accepted challenge whose room has closed is forgotten.
fn current(state: &AppState, player: &PlayerId) -> Vec<Challenge> {
    let mut current = Vec::new();
    for challenge in state.challenges.of(player) {
        let open = state.lobby.get(&challenge.id).is_ok();
        match challenge.status {
            ChallengeStatus::Created => current.push(challenge),
            ChallengeStatus::Accepted if open => current.push(challenge),
            _ => state.challenges.forget(&challenge.id),
        }
    }
    current
}

/// The `gameStart` event of an accepted challenge's game, for `player`.
pub(super) fn game_start(challenge: &Challenge, player: &PlayerId, base: &str) -> String {
    let game = game(challenge, player, base);
    json!({"type": "gameStart", "game": game}).to_string()
}

/// An accepted challenge's game as `player` sees it (Lichess's game summary).
fn game(challenge: &Challenge, player: &PlayerId, base: &str) -> Value {
    let seat = challenge.seat_of(player).unwrap_or(Seat::First);
    let opponent = challenge.party(seat.other());
    let seconds_left = match challenge.time_control {
        TimeControl::None => None,
        TimeControl::PerMove { per_move_ms } => Some(per_move_ms / 1000),
        TimeControl::Fischer { base_ms, .. } => Some(base_ms / 1000),
    };
    let speed = speed(challenge.time_control);
    json!({
        "id": challenge.id,
        "gameId": challenge.id,
        "fullId": challenge.id,
        "url": format!("{base}/{}", challenge.id),
        "color": if seat == Seat::First { "white" } else { "black" },
        "fen": "startpos",
        "lastMove": "",
        "source": "friend",
        "status": {"id": 20, "name": "started"},
        "variant": variant(challenge.game),
        "speed": speed,
        "perf": speed,
        "rated": challenge.rated,
        "hasMoved": false,
        "opponent": {
            "id": opponent.player.player_id,
            "username": opponent.player.name,
            "rating": opponent.rating,
        },
        "isMyTurn": seat == Seat::First,
        "secondsLeft": seconds_left,
        "compat": {"bot": challenge.game == parlor_rules::GameKind::Chess, "board": true},
    })
}

/// The address the request came to, as the links Lichess sends are made from.
pub(super) fn base_url(request: &HttpRequest) -> String {
    let info = request.connection_info();
    format!("{}://{}", info.scheme(), info.host())
}
