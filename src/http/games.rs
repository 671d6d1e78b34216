//! Stored games over HTTP: `GET /api/games/{id}` (the record, with the players' chat
//! only for the game's own players) and its PGN and PDN exports.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use time::OffsetDateTime;
use tracing::warn;

use super::views::GameView;
use super::{ApiError, bearer};
use crate::AppState;
use crate::protocol::TimeControl;
use crate::store::{GameStatus, StoredGame};
use parlor_room::GameId;
use parlor_room::chat::ChatChannel;
use parlor_rules::GameKind;
use parlor_rules::catalog::{self, Replay};
use parlor_rules::games::Seat;
use parlor_rules::games::checkers::{PdnTags, pdn};
use parlor_rules::games::chess::{PgnTags, pgn};

/// A stored game, with every move and the positions they lead to.
///
/// The players' chat is theirs alone, as it was during the game: it is left out unless
/// the request names one of the game's players by their token (`Authorization: Bearer
/// <token>`, the token of their `welcome` or the site's sign-in token).
#[utoipa::path(get, path = "/api/games/{id}", tag = "games",
    params(("id" = String, Path, description = "The game's id")),
    security((), ("player" = [])),
    responses(
        (status = 200, description = "The stored game", body = ref("#/components/schemas/StoredGame")),
        (status = 401, description = "An `Authorization` header that is not `Bearer <token>`, or a token no player holds", body = ref("#/components/schemas/Error")),
        (status = 403, description = "The player the token names is banned", body = ref("#/components/schemas/Error")),
        (status = 404, description = "No stored game has that id", body = ref("#/components/schemas/Error")),
        (status = 503, description = "The database is unavailable", body = ref("#/components/schemas/Error")),
    ))]
pub(super) async fn game(
    state: web::Data<AppState>,
    id: web::Path<GameId>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let reader = bearer::reader(&state, &request).await?;
    let Some(game) = state.store.game(&id).await? else {
        return Err(ApiError::NotFound(format!(
            "there is no stored game \"{id}\""
        )));
    };
    let players_chat_shown = reader.is_some_and(|reader| {
        game.seats
            .iter()
            .any(|seat| seat.player_id.as_ref() == Some(&reader))
    });
    let start = game.options.get("start").and_then(|start| start.as_str());
    let replay = catalog::replay(
        game.game,
        &state.config.game_settings(),
        start,
        game.moves.iter().map(|mv| mv.notation.as_str()),
    )
    .unwrap_or_else(|error| {
        warn!(game_id = %game.game_id, %error, "a stored game cannot be replayed");
        Replay::default()
    });
    if replay.displays.len() < game.moves.len() {
        warn!(
            game_id = %game.game_id,
            replayed = replay.displays.len(),
            moves = game.moves.len(),
            "a stored game no longer replays to its end under the current rules"
        );
    }
    let view = GameView::new(
        game,
        replay.displays,
        replay.positions,
        |said| players_chat_shown || said.channel != ChatChannel::Players,
        players_chat_shown,
    );
    Ok(HttpResponse::Ok()
        .insert_header((header::VARY, "Authorization"))
        .json(view))
}

/// A finished chess game in PGN, moves in SAN, with the clock times.
#[utoipa::path(get, path = "/api/games/{id}.pgn", tag = "games",
    params(("id" = String, Path, description = "The game's id")),
    responses(
        (status = 200, description = "The game in PGN", content_type = "application/x-chess-pgn", body = String),
        (status = 404, description = "No stored chess game has that id", body = ref("#/components/schemas/Error")),
        (status = 409, description = "The game has not finished", body = ref("#/components/schemas/Error")),
        (status = 500, description = "The game could not be exported", body = ref("#/components/schemas/Error")),
        (status = 503, description = "The database is unavailable", body = ref("#/components/schemas/Error")),
    ))]
pub(super) async fn game_pgn(
    state: web::Data<AppState>,
    id: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let game = finished_game(&state, &id, Some(GameKind::Chess), "PGN").await?;
    pgn_of(&game)
}

/// The finished game `id` as its game's record: PGN for chess, PDN for checkers (what
/// the Bot API's `GET /game/export/{id}` serves). The other games have no such format.
pub(crate) async fn record_download(
    state: &AppState,
    id: &GameId,
) -> Result<HttpResponse, ApiError> {
    let game = finished_game(state, id, None, "its record").await?;
    match game.game {
        GameKind::Chess => pgn_of(&game),
        GameKind::Checkers => pdn_of(&game),
        other => Err(ApiError::NotFound(format!(
            "{other} games have no record format to export; GET /api/games/{id} gives game \"{id}\" as JSON"
        ))),
    }
}

/// A finished chess game in PGN, as a download.
fn pgn_of(game: &StoredGame) -> Result<HttpResponse, ApiError> {
    let name = |seat: Seat| seat_name(game, seat);
    let tags = PgnTags {
        event: "Parlor game".to_owned(),
        site: "Parlor".to_owned(),
        date: pgn_date(game.started_at_ms),
        round: "-".to_owned(),
        white: name(Seat::First),
        black: name(Seat::Second),
        result: match game.winner {
            Some(Seat::First) => "1-0",
            Some(Seat::Second) => "0-1",
            None => "1/2-1/2",
        }
        .to_owned(),
        time_control: Some(pgn_time_control(game.options.get("time_control"))),
    };
    let start = game.options.get("start").and_then(|start| start.as_str());
    let clocks: Vec<Option<u64>> = game
        .moves
        .iter()
        .map(|mv| {
            let after = mv.clocks_ms?[mv.seat.index()];
            u64::try_from(after).ok()
        })
        .collect();
    let moves: Vec<String> = game.moves.iter().map(|mv| mv.notation.clone()).collect();
    let text =
        pgn(&tags, start, &moves, &clocks).map_err(|error| ApiError::Export(error.to_string()))?;
    Ok(download(
        text,
        "application/x-chess-pgn",
        &game.game_id,
        "pgn",
    ))
}

/// A finished checkers game in PDN.
#[utoipa::path(get, path = "/api/games/{id}.pdn", tag = "games",
    params(("id" = String, Path, description = "The game's id")),
    responses(
        (status = 200, description = "The game in PDN", content_type = "application/x-checkers-pdn", body = String),
        (status = 404, description = "No stored checkers game has that id", body = ref("#/components/schemas/Error")),
        (status = 409, description = "The game has not finished", body = ref("#/components/schemas/Error")),
        (status = 500, description = "The game could not be exported", body = ref("#/components/schemas/Error")),
        (status = 503, description = "The database is unavailable", body = ref("#/components/schemas/Error")),
    ))]
pub(super) async fn game_pdn(
    state: web::Data<AppState>,
    id: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let game = finished_game(&state, &id, Some(GameKind::Checkers), "PDN").await?;
    pdn_of(&game)
}

/// A finished checkers game in PDN, as a download.
fn pdn_of(game: &StoredGame) -> Result<HttpResponse, ApiError> {
    let tags = PdnTags {
        event: "Parlor game".to_owned(),
        site: "Parlor".to_owned(),
        date: pgn_date(game.started_at_ms),
        round: "-".to_owned(),
        black: seat_name(game, Seat::First),
        white: seat_name(game, Seat::Second),
        winner: game.winner,
    };
    let start = game.options.get("start").and_then(|start| start.as_str());
    let moves: Vec<String> = game.moves.iter().map(|mv| mv.notation.clone()).collect();
    let text = pdn(&tags, start, &moves).ok_or_else(|| {
        ApiError::Export("the stored start position is not a valid PDN FEN".to_owned())
    })?;
    Ok(download(
        text,
        "application/x-checkers-pdn",
        &game.game_id,
        "pdn",
    ))
}

/// A stored game of `kind` (of any game when `None`) that has finished, for exporting as
/// `format`: 404 if there is none, 409 while it is unfinished.
async fn finished_game(
    state: &AppState,
    id: &GameId,
    kind: Option<GameKind>,
    format: &str,
) -> Result<StoredGame, ApiError> {
    let game = state
        .store
        .game(id)
        .await?
        .filter(|game| kind.is_none_or(|kind| game.game == kind))
        .ok_or_else(|| {
            let kind = kind.map_or_else(String::new, |kind| format!("{kind} "));
            ApiError::NotFound(format!("there is no stored {kind}game \"{id}\""))
        })?;
    if game.status != GameStatus::Finished {
        return Err(ApiError::Conflict(format!(
            "game \"{id}\" is {}; {format} is available once it has finished",
            game.status
        )));
    }
    Ok(game)
}

/// The name stored for a seat, `?` if missing.
fn seat_name(game: &StoredGame, seat: Seat) -> String {
    game.seats
        .get(seat.index())
        .map_or_else(|| "?".to_owned(), |s| s.name.clone())
}

/// A text file offered as a download named after the game.
fn download(text: String, content_type: &str, game_id: &GameId, extension: &str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(format!("{content_type}; charset=utf-8"))
        .insert_header((
            "Content-Disposition",
            format!("attachment; filename=\"{game_id}.{extension}\""),
        ))
        .body(text)
}

/// The PGN `TimeControl` value for a stored `options.time_control`: `base+increment` in
/// seconds for Fischer clocks, `1/seconds` (one move per period) per move, `-` for none.
fn pgn_time_control(stored: Option<&serde_json::Value>) -> String {
    let control = stored
        .and_then(|value| serde_json::from_value::<TimeControl>(value.clone()).ok())
        .unwrap_or_default();
    let seconds = |ms: u64| {
        if ms.is_multiple_of(1000) {
            (ms / 1000).to_string()
        } else {
            format!("{:.3}", ms as f64 / 1000.0)
        }
    };
    match control {
        TimeControl::None => "-".to_owned(),
        TimeControl::PerMove { per_move_ms } => format!("1/{}", seconds(per_move_ms)),
        TimeControl::Fischer {
            base_ms,
            increment_ms,
        } => format!("{}+{}", seconds(base_ms), seconds(increment_ms)),
    }
}

/// A Unix-ms instant as a PGN date, `YYYY.MM.DD` in UTC (`????.??.??` if out of range).
fn pgn_date(unix_ms: i64) -> String {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(unix_ms) * 1_000_000).map_or_else(
        |_| "????.??.??".to_owned(),
        |at| {
            format!(
                "{:04}.{:02}.{:02}",
                at.year(),
                u8::from(at.month()),
                at.day()
            )
        },
    )
}
