//! The Bot API: HTTP and NDJSON, wire-compatible with Lichess's Bot API where the
//! `lichess-bot` program and the `berserk` client use it (docs/BOT_API.md), served at
//! the root of Parlor's own address. Another edge into the same players and rooms as the
//! WebSocket: each request is parsed here into Parlor's own types, answered from the
//! store and the rooms, and shaped as Lichess shapes it.

mod account;
mod ai_games;
mod body;
mod caller;
mod challenge_registry;
pub(crate) mod challenge_routes;
pub(crate) mod challenges;
mod event_stream;
pub(crate) mod events;
pub(crate) mod fleet_events;
mod frames;
mod game_actions;
mod game_stream;
mod game_view;
mod live_stream;
mod ndjson;
pub(crate) mod ongoing;
pub(crate) mod reply;
mod seats;
mod views;

pub(crate) use challenge_registry::Challenges;
pub(crate) use events::EventStreams;
pub(crate) use seats::BotSeats;

use actix_web::web;

/// Registers the Bot API's routes (before the web client's catch-all).
pub(crate) fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/api/token/test", web::post().to(account::test_tokens))
        .route("/api/account", web::get().to(account::account))
        .route("/api/bot/account/upgrade", web::post().to(account::upgrade))
        .route("/api/bot/account/games", web::post().to(account::set_games))
        .route("/api/users/status", web::get().to(account::statuses))
        .route("/api/user/{name}", web::get().to(account::public_account))
        .route("/api/account/playing", web::get().to(event_stream::playing))
        .route("/api/bot/online", web::get().to(account::online_bots))
        .route(
            "/api/stream/event",
            web::get().to(event_stream::event_stream),
        )
        .route(
            "/api/challenge/{id}/accept",
            web::post().to(challenge_routes::accept),
        )
        .route(
            "/api/challenge/{id}/decline",
            web::post().to(challenge_routes::decline),
        )
        .route(
            "/api/challenge/{id}/cancel",
            web::post().to(challenge_routes::cancel),
        )
        // Before `{name}`, which "ai" would match.
        .route("/api/challenge/ai", web::post().to(ai_games::create))
        .route(
            "/api/challenge/{name}",
            web::post().to(challenge_routes::create),
        )
        .route(
            "/api/bot/game/stream/{id}",
            web::get().to(game_stream::game_stream),
        )
        .route(
            "/api/bot/game/{id}/move/{move}",
            web::post().to(game_actions::play),
        )
        .route(
            "/api/bot/game/{id}/chat",
            web::post().to(game_actions::chat),
        )
        .route(
            "/api/bot/game/{id}/abort",
            web::post().to(game_actions::resign),
        )
        .route(
            "/api/bot/game/{id}/resign",
            web::post().to(game_actions::resign),
        )
        .route(
            "/api/bot/game/{id}/draw/{answer}",
            web::post().to(game_actions::answer_draw),
        )
        .route("/game/export/{id}", web::get().to(game_actions::export));
}
