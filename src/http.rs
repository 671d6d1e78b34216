//! HTTP routes: the bundled web client (also at `/game/{id}`, a stored game's replay),
//! liveness and readiness (in `health`), the metrics (in `scrape`), rooms, stored games
//! (in `games`), each game's rules (in `rules`), the leaderboard, the operator's
//! controls (in `admin`, its token compared as `secret` says), and the descriptions of
//! the protocol and of this API (in `protocol_schema` and `openapi`).

use actix_web::http::header::ContentType;
use actix_web::http::{StatusCode, header};
use actix_web::middleware::DefaultHeaders;
use actix_web::{HttpResponse, ResponseError, Route, guard, web};
use rust_embed::RustEmbed;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::AppState;
use crate::lobby::PageCursor;
use crate::metrics::MetricsError;
use crate::room::StateUnread;
use crate::store::StoreError;
use parlor_room::scoring::{Opponent, UnknownOpponent};
use parlor_room::{PlayerId, RoomId};
use parlor_rules::GameKind;

mod admin;
pub(crate) mod bearer;
pub(crate) mod games;
mod health;
mod openapi;
mod protocol_schema;
mod rules;
mod scrape;
mod secret;
mod views;

pub(crate) use admin::AdminSetupError;
pub(crate) use admin::OperatorToken;
pub(crate) use rules::RulesBook;
pub(crate) use scrape::MetricsToken;

use views::{PlayerGameView, RatingRowView, ScoreRowView};

/// The web client, built into the binary (read from `static/` on disk in debug builds).
#[derive(RustEmbed)]
#[folder = "static/"]
struct WebClient;

/// The longest list (leaderboard, a player's games) served at once.
const MAX_LIMIT: u32 = 100;

/// An HTTP error with a JSON body `{"error": {"code", "message"}}`.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ApiError {
    /// Nothing has this id.
    #[error("{0}")]
    NotFound(String),
    /// A query parameter is missing or invalid.
    #[error("{0}")]
    BadRequest(String),
    /// The resource exists but is not ready for this request (e.g. an unfinished game).
    #[error("{0}")]
    Conflict(String),
    /// The request names a player in a way that does not hold (a malformed
    /// `Authorization` header, or a token no player has).
    #[error("{0}")]
    Unauthorized(String),
    /// The page's origin may not open a WebSocket here.
    #[error("{0}")]
    Forbidden(String),
    /// The client has used up a quota (open connections from its address).
    #[error("{0}")]
    TooManyRequests(String),
    /// Stored data could not be turned into the requested form.
    #[error("the stored game could not be exported: {0}")]
    Export(String),
    /// The database could not be read.
    #[error("the database is unavailable; try again shortly")]
    Unavailable(StoreError),
    /// A stored record could not be read back (a damaged row, or one a newer version
    /// wrote); trying again will not help.
    #[error("a stored record could not be read: {0}")]
    Unreadable(StoreError),
    /// The metrics could not be encoded.
    #[error("{0}")]
    Metrics(#[from] MetricsError),
    /// The node of the fleet holding a room did not answer in time.
    #[error("{0}")]
    Unreachable(String),
    /// The room is too busy to say its state now.
    #[error("{0}")]
    RoomBusy(String),
    /// The player the request speaks for is banned.
    #[error("{0}")]
    Banned(String),
    /// The operator controls are off, or the request's token is not the operator's.
    #[error("{0}")]
    AdminForbidden(String),
    /// A room could not do what was asked now (its store write failed); nothing changed.
    #[error("{0}")]
    NotDone(String),
}

/// The body of every error answer.
#[derive(Serialize, JsonSchema)]
#[schemars(rename = "Error")]
struct ErrorBody<'a> {
    /// What went wrong.
    error: ErrorDetail<'a>,
}

/// What went wrong: a code a program can act on and a sentence a person can.
#[derive(Serialize, JsonSchema)]
struct ErrorDetail<'a> {
    /// The error's code, e.g. `not_found`, `bad_request`, `banned`.
    code: &'a str,
    /// What happened and what to do about it.
    message: String,
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        if error.is_unreadable_record() {
            ApiError::Unreadable(error)
        } else {
            ApiError::Unavailable(error)
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) | ApiError::Banned(_) | ApiError::AdminForbidden(_) => {
                StatusCode::FORBIDDEN
            }
            ApiError::TooManyRequests(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Export(_) | ApiError::Metrics(_) | ApiError::Unreadable(_) => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
            ApiError::Unavailable(_)
            | ApiError::Unreachable(_)
            | ApiError::RoomBusy(_)
            | ApiError::NotDone(_) => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    fn error_response(&self) -> HttpResponse {
        match self {
            ApiError::Unavailable(error) => {
                tracing::error!(%error, "an HTTP request could not read the database");
            }
            ApiError::Unreadable(error) => {
                tracing::error!(%error, "an HTTP request met a stored record it cannot read");
            }
            ApiError::Export(error) => {
                tracing::error!(%error, "a stored game could not be exported")
            }
            ApiError::Metrics(error) => tracing::error!(%error, "metrics could not be rendered"),
            _ => {}
        }
        let code = match self {
            ApiError::NotFound(_) => "not_found",
            ApiError::BadRequest(_) => "bad_request",
            ApiError::Conflict(_) => "not_finished",
            ApiError::Unauthorized(_) => "unauthorized",
            ApiError::Forbidden(_) => "origin_not_allowed",
            ApiError::TooManyRequests(_) => "rate_limited",
            ApiError::Export(_) => "export_failed",
            ApiError::Metrics(_) => "metrics_unavailable",
            ApiError::Unavailable(_) => "storage_unavailable",
            ApiError::Unreadable(_) => "stored_record_unreadable",
            ApiError::Unreachable(_) => "room_unreachable",
            ApiError::RoomBusy(_) => "room_busy",
            ApiError::Banned(_) => "banned",
            ApiError::AdminForbidden(_) => "forbidden",
            ApiError::NotDone(_) => "storage_unavailable",
        };
        let mut response = HttpResponse::build(self.status_code());
        if let ApiError::Unauthorized(_) = self {
            response.insert_header(("WWW-Authenticate", "Bearer"));
        }
        response.json(ErrorBody {
            error: ErrorDetail {
                code,
                message: self.to_string(),
            },
        })
    }
}

/// The page's Content-Security-Policy: everything from this origin only (the client is
/// plain ES modules and one stylesheet, with no inline script or style), no plugins, and
/// no framing by other sites (clickjacking).
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; \
     base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Headers on every response: the page's policy, no MIME sniffing, no referrer leaking
/// room links to other sites, and no framing (for browsers older than frame-ancestors).
pub(crate) fn security_headers() -> DefaultHeaders {
    DefaultHeaders::new()
        .add(("Content-Security-Policy", CONTENT_SECURITY_POLICY))
        .add(("X-Content-Type-Options", "nosniff"))
        .add(("Referrer-Policy", "no-referrer"))
        .add(("X-Frame-Options", "DENY"))
}

/// Registers every HTTP route on an actix `App` (`/ws`, the WebSocket, is registered
/// before them by [`crate::run`]); `/metrics` too unless the metrics have a listener of
/// their own (`server.metrics_bind`: the main one then answers it with 404). Every route
/// answers `HEAD` as it answers `GET` (actix sends the headers without the body), and a
/// malformed query string gets the same JSON error body as every other bad request.
pub(crate) fn routes(config: &mut web::ServiceConfig, with_metrics: bool) {
    let query_errors = web::QueryConfig::default().error_handler(|error, _| {
        ApiError::BadRequest(format!("the query string is not valid: {error}")).into()
    });
    config.app_data(query_errors);
    if with_metrics {
        metrics_route(config);
    }
    config
        .route("/healthz", get_or_head().to(health::health))
        .route("/readyz", get_or_head().to(health::ready))
        .route("/api/rooms", get_or_head().to(rooms))
        .route("/api/rooms/{id}", get_or_head().to(room))
        .route("/api/games/{id}.pgn", get_or_head().to(games::game_pgn))
        .route("/api/games/{id}.pdn", get_or_head().to(games::game_pdn))
        .route("/api/games/{id}", get_or_head().to(games::game))
        .route("/api/rules/{game}", get_or_head().to(rules::rules))
        .route("/api/leaderboard", get_or_head().to(leaderboard))
        .route("/api/players/{id}/games", get_or_head().to(player_games))
        .route(
            "/api/protocol.json",
            get_or_head().to(protocol_schema::protocol_schema),
        )
        .route("/api/openapi.json", get_or_head().to(openapi::openapi))
        .configure(admin::routes)
        .configure(crate::bot_api::routes)
        .route("/", get_or_head().to(index))
        // A stored game's own address: the page opens its replay (static/app.js).
        .route("/game/{id}", get_or_head().to(index))
        .route("/{file:.*}", get_or_head().to(asset));
}

/// Registers `GET /metrics` alone: on the main listener (see [`routes`]), or on the
/// metrics' own.
pub(crate) fn metrics_route(config: &mut web::ServiceConfig) {
    config.route("/metrics", get_or_head().to(scrape::metrics));
}

/// The token of an `Authorization: Bearer <token>` header's value (the scheme in any
/// case); `None` when the value is not that, or the token is empty.
fn bearer_token(value: &header::HeaderValue) -> Option<&str> {
    value
        .to_str()
        .ok()
        .and_then(|value| value.trim().split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
        .filter(|token| !token.is_empty())
}

/// A route for `GET` and `HEAD`.
fn get_or_head() -> Route {
    web::route().guard(guard::Any(guard::Get()).or(guard::Head()))
}

#[derive(Deserialize)]
struct RoomsQuery {
    limit: Option<String>,
    after: Option<String>,
}

/// One page of the listed rooms, newest first.
///
/// At most `limits.rooms_page_size` rooms (also the default), with the cursor of the next
/// page in `next`. Private rooms are never listed.
#[utoipa::path(get, path = "/api/rooms", tag = "rooms",
    params(
        ("limit" = Option<u32>, Query, minimum = 1, description = "How many rooms, 1 to `limits.rooms_page_size`"),
        ("after" = Option<String>, Query, description = "The `next` of the previous page"),
    ),
    responses(
        (status = 200, description = "A page of rooms", body = ref("#/components/schemas/RoomsPage")),
        (status = 400, description = "A bad `limit` or `after`", body = ref("#/components/schemas/Error")),
    ))]
async fn rooms(
    state: web::Data<AppState>,
    query: web::Query<RoomsQuery>,
) -> Result<HttpResponse, ApiError> {
    let page_size = state.config.limits.rooms_page_size;
    let limit = parse_limit_up_to(query.limit.as_deref(), page_size, page_size)?;
    let after = query
        .after
        .as_deref()
        .map(str::parse::<PageCursor>)
        .transpose()
        .map_err(|bad| ApiError::BadRequest(bad.to_string()))?;
    Ok(HttpResponse::Ok().json(state.lobby.page(after.as_ref(), limit as usize)))
}

/// A live room's current `state`, as its players see it (on whichever node holds it).
#[utoipa::path(get, path = "/api/rooms/{id}", tag = "rooms",
    params(("id" = String, Path, description = "The room's id")),
    responses(
        (status = 200, description = "The room's state", body = ref("#/components/schemas/StateMessage")),
        (status = 404, description = "No live room has that id", body = ref("#/components/schemas/Error")),
        (status = 503, description = "The room is busy, or its node did not answer", body = ref("#/components/schemas/Error")),
    ))]
async fn room(state: web::Data<AppState>, id: web::Path<RoomId>) -> Result<HttpResponse, ApiError> {
    let not_found = || ApiError::NotFound(format!("there is no live room \"{id}\""));
    let body = match (state.lobby.get(&id), &state.relay) {
        (Ok(handle), _) => match handle.state_json().await {
            Ok(state) => state.into_bytes(),
            Err(StateUnread::Closed) => return Err(not_found()),
            Err(busy @ StateUnread::Busy) => return Err(ApiError::RoomBusy(busy.to_string())),
        },
        // In a fleet, the node that holds the room answers through this one.
        (Err(_), Some(relay)) if id.could_be_live() => match relay.room_state(&id).await {
            Ok(Some(text)) => text.into(),
            Ok(None) => return Err(not_found()),
            Err(error) => return Err(ApiError::Unreachable(error.message)),
        },
        (Err(_), _) => return Err(not_found()),
    };
    Ok(HttpResponse::Ok()
        .content_type(ContentType::json())
        .body(body))
}

#[derive(Deserialize)]
struct LimitQuery {
    limit: Option<String>,
}

/// A player's games.
#[derive(Serialize, JsonSchema)]
struct PlayerGames {
    /// The player.
    player_id: PlayerId,
    /// Their games, newest first.
    games: Vec<PlayerGameView>,
}

/// A player's games, newest first.
#[utoipa::path(get, path = "/api/players/{id}/games", tag = "games",
    params(
        ("id" = String, Path, description = "The player's id"),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "How many games, 1 to 100 (20)"),
    ),
    responses(
        (status = 200, description = "The player's games", body = ref("#/components/schemas/PlayerGames")),
        (status = 400, description = "A bad `limit`", body = ref("#/components/schemas/Error")),
        (status = 404, description = "No player has that id", body = ref("#/components/schemas/Error")),
        (status = 503, description = "The database is unavailable", body = ref("#/components/schemas/Error")),
    ))]
async fn player_games(
    state: web::Data<AppState>,
    id: web::Path<PlayerId>,
    query: web::Query<LimitQuery>,
) -> Result<HttpResponse, ApiError> {
    let limit = parse_limit(query.limit.as_deref(), 20)?;
    match state.store.player_games(&id, limit).await? {
        Some(games) => Ok(HttpResponse::Ok().json(PlayerGames {
            player_id: id.into_inner(),
            games: games.into_iter().map(PlayerGameView::from).collect(),
        })),
        None => Err(ApiError::NotFound(format!("there is no player \"{id}\""))),
    }
}

/// A `limit` query parameter: `default` when absent, else 1 to [`MAX_LIMIT`].
fn parse_limit(text: Option<&str>, default: u32) -> Result<u32, ApiError> {
    parse_limit_up_to(text, default, MAX_LIMIT)
}

/// A `limit` parameter from 1 to `max`, `default` when absent.
fn parse_limit_up_to(text: Option<&str>, default: u32, max: u32) -> Result<u32, ApiError> {
    match text {
        None => Ok(default),
        Some(text) => text
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=max).contains(n))
            .ok_or_else(|| {
                ApiError::BadRequest(format!("limit must be a whole number from 1 to {max}"))
            }),
    }
}

#[derive(Deserialize)]
struct LeaderboardQuery {
    game: Option<String>,
    limit: Option<String>,
    by: Option<String>,
    opponent: Option<String>,
}

/// A leaderboard page: best scores, or highest ratings.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
enum Entries {
    /// By score.
    Score(Vec<ScoreRowView>),
    /// By rating.
    Rating(Vec<RatingRowView>),
}

/// A game's leaderboard.
#[derive(Serialize, JsonSchema)]
struct Leaderboard {
    /// The game.
    game: GameKind,
    /// `score` or `rating`.
    by: &'static str,
    /// The opponent the scores were earned against, as asked for; `null` for the scores
    /// against every opponent (each entry names its own) and for ratings (only games
    /// between two people are rated).
    opponent: Option<Opponent>,
    /// The rows, best first.
    entries: Entries,
}

/// A game's leaderboard, by best score (against one opponent, or each) or by rating.
#[utoipa::path(get, path = "/api/leaderboard", tag = "games",
    params(
        ("game" = Option<String>, Query, description = "The game (`tictactoe`)"),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "How many rows, 1 to 100 (10)"),
        ("by" = Option<String>, Query, description = "`score` (the default) or `rating`"),
        ("opponent" = Option<String>, Query, description = "With `by=score`: only the scores earned against `person`, `bot:random`, `bot:easy`, `bot:medium` or `bot:hard`. Without it, each player's best against each opponent, every entry naming its opponent. Not allowed with `by=rating`"),
    ),
    responses(
        (status = 200, description = "The leaderboard", body = ref("#/components/schemas/Leaderboard")),
        (status = 400, description = "An unknown game or opponent, a bad `limit` or `by`, or `opponent` with `by=rating`", body = ref("#/components/schemas/Error")),
        (status = 503, description = "The database is unavailable", body = ref("#/components/schemas/Error")),
    ))]
async fn leaderboard(
    state: web::Data<AppState>,
    query: web::Query<LeaderboardQuery>,
) -> Result<HttpResponse, ApiError> {
    let name = query
        .game
        .as_deref()
        .unwrap_or(GameKind::TicTacToe.as_str());
    let game: GameKind = name.parse().map_err(|_| {
        ApiError::BadRequest(format!(
            "unknown game \"{name}\"; use one of {}",
            GameKind::names()
        ))
    })?;
    let limit = parse_limit(query.limit.as_deref(), 10)?;
    let opponent: Option<Opponent> = query
        .opponent
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(|unknown: UnknownOpponent| ApiError::BadRequest(unknown.to_string()))?;
    let (by, entries) = match query.by.as_deref() {
        None | Some("score") => (
            "score",
            Entries::Score(views(state.store.leaderboard(game, opponent, limit).await?)),
        ),
        Some("rating") if opponent.is_some() => {
            return Err(ApiError::BadRequest(
                "opponent goes with by=score only: only games between two people are rated"
                    .to_owned(),
            ));
        }
        Some("rating") => (
            "rating",
            Entries::Rating(views(state.store.rating_leaderboard(game, limit).await?)),
        ),
        Some(other) => {
            return Err(ApiError::BadRequest(format!(
                "by must be score or rating, not \"{other}\""
            )));
        }
    };
    Ok(HttpResponse::Ok().json(Leaderboard {
        game,
        by,
        opponent,
        entries,
    }))
}

/// The views of `rows`, in order.
fn views<T, V: From<T>>(rows: Vec<T>) -> Vec<V> {
    rows.into_iter().map(V::from).collect()
}

async fn index() -> Result<HttpResponse, ApiError> {
    serve("index.html")
}

async fn asset(file: web::Path<String>) -> Result<HttpResponse, ApiError> {
    serve(&file)
}

/// The web client's file that pages of other origins may import (PROTOCOL.md §19).
const SHARED_MODULE: &str = "parlor-client.js";

fn serve(path: &str) -> Result<HttpResponse, ApiError> {
    let file = WebClient::get(path)
        .ok_or_else(|| ApiError::NotFound(format!("there is no page \"/{path}\"")))?;
    let mut response = HttpResponse::Ok();
    response
        .content_type(file.metadata.mimetype())
        .insert_header(("Cache-Control", "no-cache"));
    if path == SHARED_MODULE {
        // A module script is fetched with CORS: this lets a site's own page import it.
        // Whether that page may then open a socket is server.allowed_origins' call.
        response.insert_header(("Access-Control-Allow-Origin", "*"));
    }
    Ok(response.body(file.data.into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreadable_record_is_a_server_fault_and_an_outage_is_worth_retrying() {
        let unreadable = ApiError::from(StoreError::Database(sqlx::Error::ColumnDecode {
            index: "reason".to_owned(),
            source: "`fell_asleep` is not an end reason".into(),
        }));
        assert_eq!(unreadable.status_code(), StatusCode::INTERNAL_SERVER_ERROR);
        assert!(
            unreadable.to_string().contains("fell_asleep"),
            "{unreadable}"
        );
        let outage = ApiError::from(StoreError::Closed);
        assert_eq!(outage.status_code(), StatusCode::SERVICE_UNAVAILABLE);
    }
}
