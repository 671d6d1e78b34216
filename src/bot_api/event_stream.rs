//! `GET /api/stream/event`, a player's stream of events: on opening, each pending
//! challenge they are in (`challenge`) and each game they hold a seat in that goes on
//! here (`gameStart`: also after a restart, which resumes the games), then whatever
//! happens to their challenges; and `GET /api/account/playing`, those games as a list.

use std::collections::HashSet;

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};
use tokio::time::interval_at;

use super::caller;
use super::challenges::{self, Challenge, ChallengeStatus};
use super::events::Told;
use super::live_stream::LiveStream;
use super::ndjson::{self, KEEP_ALIVE};
use super::ongoing::Ongoing;
use super::reply::BotApiError;
use crate::AppState;
use crate::room::{Alerts, new_conn_id};
use parlor_room::PlayerId;

/// Opens the caller's event stream.
pub(super) async fn event_stream(
    state: web::Data<AppState>,
    request: HttpRequest,
) -> Result<HttpResponse, BotApiError> {
    let account = caller::account(&state, &request).await?;
    let player = account.player.player_id;
    let mut events = state.events.open(&player);
    let base = base_url(&request);
    let asked = pending(&state, &player).await?;
    let games = state.lobby.games_of(&player);
    // Subscribed before these were read: what they tell may also come live, sent once.
    let mut told: HashSet<Told> = asked
        .iter()
        .map(|challenge| Told::Challenge(challenge.id.clone()))
        .chain(games.iter().map(|room| Told::Game(room.room.clone())))
        .collect();
    let first: Vec<String> = asked
        .iter()
        .map(|challenge| challenges::event("challenge", challenge, &base))
        .chain(
            games
                .iter()
                .map(|room| Ongoing::in_room(room, &player).game_start(&base)),
        )
        .collect();
    let close = Alerts::default();
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
                    Some(event) if event.told_on_opening().is_some_and(|it| told.remove(&it)) => true,
                    Some(event) => lines.send(&event.line(&base)).await,
                    None => false,
                },
                _ = keep_alive.tick() => lines.keep_alive().await,
                () = lines.gone() => false,
                () = live.close.kicked() => false,
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
async fn pending(state: &AppState, player: &PlayerId) -> Result<Vec<Challenge>, BotApiError> {
    let mut challenges = state.challenges.of(player).await?;
    challenges.retain(|challenge| challenge.status == ChallengeStatus::Created);
    Ok(challenges)
}

/// The address the request came to, as the links Lichess sends are made from.
pub(super) fn base_url(request: &HttpRequest) -> String {
    let info = request.connection_info();
    format!("{}://{}", info.scheme(), info.host())
}
