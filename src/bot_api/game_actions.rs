//! What a bot does in its game: `POST /api/bot/game/{id}/move/{move}`, `/chat`,
//! `/abort`, `/resign` and `/draw/{yes|no}`, each asked of the room on the connection of
//! the bot's game stream (or, without one, of the request's own), and refused as a
//! WebSocket client's request would be (the same error code), with a `4xx` for anything
//! the bot can mend.

use std::time::Instant;

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;

use super::body;
use super::caller;
use super::game_stream::{let_go, room_id, take_seat};
use super::reply::{BotApiError, ok};
use super::seats::BotSeat;
use crate::AppState;
use crate::protocol::ErrorCode;
use crate::room::OutboxReader;
use parlor_room::{PlayerInfo, Request, RoomCommand};

/// The query of a move: `offeringDraw=true` offers a draw with it (or accepts the
/// opponent's).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct MoveQuery {
    #[serde(default)]
    offering_draw: Option<String>,
}

/// `POST /api/bot/game/{id}/move/{move}`: plays `move` (the game's notation: UCI in
/// chess) for the bot, chosen in the position its stream showed last.
pub(super) async fn play(
    state: web::Data<AppState>,
    request: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, BotApiError> {
    let query = web::Query::<MoveQuery>::from_query(request.query_string())
        .map_err(|error| BotApiError::BadRequest(error.to_string()))?;
    let (id, text) = path.into_inner();
    let acting = Acting::of(&state, &request, &id).await?;
    let after = acting.seat.moves_shown();
    let moved = ask(
        &acting.seat,
        &acting.player,
        RoomCommand::Move { text, after },
    )
    .await;
    if moved.is_ok() && query.offering_draw.as_deref().is_some_and(truthy) {
        // The move stands whatever becomes of the offer.
        let _ = draw(&acting.seat, &acting.player, true).await;
    }
    acting.finish(&state).await;
    moved.map(|()| ok())
}

/// `POST /api/bot/game/{id}/chat`: says `text` in the bot's chat of the game (its
/// players' chat: a seat's chat is the players'). The body is a form (`lichess-bot`) or
/// JSON (`berserk`).
pub(super) async fn chat(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, BotApiError> {
    let fields = body::fields(&request, &body)?;
    let text = body::text(&fields, "text")
        .ok_or_else(|| {
            BotApiError::BadRequest("say something: the body needs a `text` field".to_owned())
        })?
        .to_owned();
    let acting = Acting::of(&state, &request, &id).await?;
    acting.ask(&state, RoomCommand::Chat { text }).await?;
    Ok(ok())
}

/// `POST /api/bot/game/{id}/abort` and `/resign`: the bot gives the game up (before
/// any move it is aborted, PROTOCOL.md §6.6).
pub(super) async fn resign(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, BotApiError> {
    let acting = Acting::of(&state, &request, &id).await?;
    acting
        .ask(&state, RoomCommand::Request(Request::Resign))
        .await?;
    Ok(ok())
}

/// `POST /api/bot/game/{id}/draw/{yes|no}`: offers or accepts a draw, or declines the
/// opponent's offer.
pub(super) async fn answer_draw(
    state: web::Data<AppState>,
    request: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, BotApiError> {
    let (id, answer) = path.into_inner();
    let yes = match answer.as_str() {
        "yes" | "true" | "1" => true,
        "no" | "false" | "0" => false,
        other => {
            return Err(BotApiError::BadRequest(format!(
                "answer a draw with yes or no, not {other}"
            )));
        }
    };
    let acting = Acting::of(&state, &request, &id).await?;
    let answered = draw(&acting.seat, &acting.player, yes).await;
    acting.finish(&state).await;
    answered.map(|()| ok())
}

/// Accepts the opponent's draw offer (offering one if there is none), or declines it.
async fn draw(seat: &BotSeat, player: &PlayerInfo, yes: bool) -> Result<(), BotApiError> {
    if !yes {
        return ask(seat, player, RoomCommand::Request(Request::DeclineDraw)).await;
    }
    match ask(seat, player, RoomCommand::Request(Request::AcceptDraw)).await {
        Err(BotApiError::Refused(error)) if error.code == ErrorCode::NoDrawOffer => {
            ask(seat, player, RoomCommand::Request(Request::OfferDraw)).await
        }
        answered => answered,
    }
}

/// A bot acting in a game: on the connection of its open game stream, or, without one
/// (a chat line after the game's end, say), on one of the request's own that takes the
/// bot's seat for the request and lets it go after.
struct Acting {
    player: PlayerInfo,
    seat: BotSeat,
    /// The frames of the request's own connection, while it has one.
    own: Option<OutboxReader>,
}

impl Acting {
    /// The calling bot, in game `id`.
    async fn of(state: &AppState, request: &HttpRequest, id: &str) -> Result<Acting, BotApiError> {
        let account = caller::bot(state, request).await?;
        let room = room_id(id)?;
        let player = account.player_info();
        if let Some(seat) = state.bot_seats.get(&player.player_id, &room) {
            return Ok(Acting {
                player,
                seat,
                own: None,
            });
        }
        let (seat, frames) = take_seat(state, &player, &room).await?;
        Ok(Acting {
            player,
            seat,
            own: Some(frames),
        })
    }

    /// Asks the room `command`, then [`Acting::finish`]es.
    async fn ask(self, state: &AppState, command: RoomCommand) -> Result<(), BotApiError> {
        let outcome = ask(&self.seat, &self.player, command).await;
        self.finish(state).await;
        outcome
    }

    /// Lets the request's own connection go, if it has one.
    async fn finish(self, state: &AppState) {
        if self.own.is_some() {
            let_go(state, &self.seat).await;
        }
    }
}

/// Asks the room `command` on the seat's connection.
async fn ask(seat: &BotSeat, player: &PlayerInfo, command: RoomCommand) -> Result<(), BotApiError> {
    let asked = player.clone().ask(command, None);
    seat.link
        .ask(asked, &seat.subscriber, Instant::now())
        .await
        .map_err(BotApiError::from)
}

/// `GET /game/export/{id}`: the finished game `id` (its room's latest game) in PGN for
/// chess, as `lichess-bot` saves it, or PDN for checkers; `404` for a room that has had
/// no game, or a game with no record format.
pub(super) async fn export(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, BotApiError> {
    let room = room_id(&id)?;
    let game = state
        .store
        .latest_game_in_room(&room)
        .await?
        .ok_or_else(|| BotApiError::NotFound(format!("no game has been played in {id}")))?;
    Ok(crate::http::games::record_download(&state, &game).await?)
}

/// Whether a query flag says yes, as Lichess reads one.
fn truthy(flag: &str) -> bool {
    matches!(flag, "true" | "yes" | "1")
}
