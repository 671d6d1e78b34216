//! HTTP routes: the bundled web client, health, rooms, stored games and the leaderboard.

use actix_web::http::StatusCode;
use actix_web::http::header::ContentType;
use actix_web::{HttpResponse, ResponseError, web};
use rust_embed::RustEmbed;
use serde::{Deserialize, Serialize};

use crate::AppState;
use crate::catalog::GAME_IDS;
use crate::protocol::RoomSummary;
use crate::store::{LeaderboardEntry, StoreError};

/// The web client, built into the binary (read from `static/` on disk in debug builds).
#[derive(RustEmbed)]
#[folder = "static/"]
struct WebClient;

/// The largest leaderboard page served.
const MAX_LEADERBOARD: u32 = 100;

/// An HTTP error with a JSON body `{"error": {"code", "message"}}`.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// Nothing has this id.
    #[error("{0}")]
    NotFound(String),
    /// A query parameter is missing or invalid.
    #[error("{0}")]
    BadRequest(String),
    /// The database could not be read.
    #[error("the database is unavailable; try again shortly")]
    Unavailable(#[from] StoreError),
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: ErrorDetail<'a>,
}

#[derive(Serialize)]
struct ErrorDetail<'a> {
    code: &'a str,
    message: String,
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let ApiError::Unavailable(error) = self {
            tracing::error!(%error, "an HTTP request could not read the database");
        }
        let code = match self {
            ApiError::NotFound(_) => "not_found",
            ApiError::BadRequest(_) => "bad_request",
            ApiError::Unavailable(_) => "storage_unavailable",
        };
        HttpResponse::build(self.status_code()).json(ErrorBody {
            error: ErrorDetail {
                code,
                message: self.to_string(),
            },
        })
    }
}

/// Registers every route on an actix `App`.
pub fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/ws", web::get().to(crate::ws::upgrade))
        .route("/healthz", web::get().to(health))
        .route("/api/rooms", web::get().to(rooms))
        .route("/api/rooms/{id}", web::get().to(room))
        .route("/api/games/{id}", web::get().to(game))
        .route("/api/leaderboard", web::get().to(leaderboard))
        .route("/", web::get().to(index))
        .route("/{file:.*}", web::get().to(asset));
}

async fn health() -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({ "status": "ok" }))
}

#[derive(Serialize)]
struct RoomList {
    rooms: Vec<RoomSummary>,
}

async fn rooms(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(RoomList {
        rooms: state.lobby.list(),
    })
}

async fn room(state: web::Data<AppState>, id: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let handle = state
        .lobby
        .get(&id)
        .map_err(|_| ApiError::NotFound(format!("there is no live room \"{id}\"")))?;
    Ok(HttpResponse::Ok()
        .content_type(ContentType::json())
        .body(handle.state_json().into_bytes()))
}

async fn game(state: web::Data<AppState>, id: web::Path<String>) -> Result<HttpResponse, ApiError> {
    match state.store.game(&id).await? {
        Some(game) => Ok(HttpResponse::Ok().json(game)),
        None => Err(ApiError::NotFound(format!(
            "there is no stored game \"{id}\""
        ))),
    }
}

#[derive(Deserialize)]
struct LeaderboardQuery {
    game: Option<String>,
    limit: Option<String>,
}

#[derive(Serialize)]
struct Leaderboard {
    game: String,
    entries: Vec<LeaderboardEntry>,
}

async fn leaderboard(
    state: web::Data<AppState>,
    query: web::Query<LeaderboardQuery>,
) -> Result<HttpResponse, ApiError> {
    let game = query.game.clone().unwrap_or_else(|| "tictactoe".to_owned());
    if !GAME_IDS.contains(&game.as_str()) {
        return Err(ApiError::BadRequest(format!(
            "unknown game \"{game}\"; use one of {}",
            GAME_IDS.join(", ")
        )));
    }
    let limit = match &query.limit {
        None => 10,
        Some(text) => text
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=MAX_LEADERBOARD).contains(n))
            .ok_or_else(|| {
                ApiError::BadRequest(format!(
                    "limit must be a whole number from 1 to {MAX_LEADERBOARD}"
                ))
            })?,
    };
    let entries = state.store.leaderboard(&game, limit).await?;
    Ok(HttpResponse::Ok().json(Leaderboard { game, entries }))
}

async fn index() -> Result<HttpResponse, ApiError> {
    serve("index.html")
}

async fn asset(file: web::Path<String>) -> Result<HttpResponse, ApiError> {
    serve(&file)
}

fn serve(path: &str) -> Result<HttpResponse, ApiError> {
    let file = WebClient::get(path)
        .ok_or_else(|| ApiError::NotFound(format!("there is no page \"/{path}\"")))?;
    Ok(HttpResponse::Ok()
        .content_type(file.metadata.mimetype())
        .insert_header(("Cache-Control", "no-cache"))
        .body(file.data.into_owned()))
}
