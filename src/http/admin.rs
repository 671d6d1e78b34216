//! The operator's controls under `/api/admin`: the token that opens them, who is
//! connected to this node, closing a room, and banning and unbanning players. Every
//! action is logged with who asked and why, and counted in `parlor_admin_actions_total`.

use std::time::{Instant, SystemTime};

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use schemars::{JsonSchema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tracing::info;

use super::openapi::named;
use super::secret::SecretDigest;
use super::{ApiError, bearer_token};
use crate::AppState;
use crate::bans;
use crate::config::AdminConfig;
use crate::fleet::RoomLink;
use crate::live::AddressView;
use crate::protocol::{ClientError, ErrorCode};
use crate::room::unix_ms;
use crate::room::{Subscriber, new_conn_id};
use crate::store::{Ban, StoreError};
use parlor_room::{PlayerId, PlayerInfo, RoomCommand, RoomId};

/// The least length of the operator's token: it opens every control.
const MIN_TOKEN_CHARS: usize = 32;

/// The longest reason an operator may give for a ban.
const MAX_REASON_CHARS: usize = 500;

/// The longest name an operator may sign an action with.
const MAX_OPERATOR_CHARS: usize = 64;

/// The operator's token, kept as its SHA-256 digest, which requests' tokens are compared
/// with in constant time.
pub(crate) struct OperatorToken {
    digest: SecretDigest,
}

/// Why `[admin]` could not be set up at start.
#[derive(Debug, thiserror::Error)]
pub enum AdminSetupError {
    /// Both `token` and `token_file` are set.
    #[error("[admin] sets both token and token_file; set one")]
    TwoSources,
    /// The token file could not be read.
    #[error("could not read admin.token_file ({path}): {source}")]
    Read {
        /// The file.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// The token is too short to keep strangers out.
    #[error(
        "[admin] token must be at least {MIN_TOKEN_CHARS} characters (a random secret; it opens every operator control)"
    )]
    Short,
    /// The metrics token is too short to keep strangers out.
    #[error(
        "[admin] metrics_token must be at least {0} characters (a random secret your metrics scraper shows)"
    )]
    ShortMetricsToken(usize),
}

impl OperatorToken {
    /// The token `config` sets, or `None` when it sets none (the controls are off).
    pub(crate) fn from_config(
        config: &AdminConfig,
    ) -> Result<Option<OperatorToken>, AdminSetupError> {
        let token = match (config.token.trim(), config.token_file.trim()) {
            ("", "") => return Ok(None),
            (token, "") => token.to_owned(),
            ("", path) => std::fs::read_to_string(path)
                .map_err(|source| AdminSetupError::Read {
                    path: path.to_owned(),
                    source,
                })?
                .trim()
                .to_owned(),
            _ => return Err(AdminSetupError::TwoSources),
        };
        if token.chars().count() < MIN_TOKEN_CHARS {
            return Err(AdminSetupError::Short);
        }
        Ok(Some(OperatorToken {
            digest: SecretDigest::of(&token),
        }))
    }

    fn admits(&self, token: &str) -> bool {
        self.digest.admits(token)
    }
}

/// The schemas of the operator's answers, for the API's description.
pub(super) fn answer_schemas(generator: &mut SchemaGenerator) -> Vec<(String, Value)> {
    vec![
        named::<Connections>(generator),
        named::<Bans>(generator),
        named::<Banned>(generator),
        named::<Lifted>(generator),
        named::<Closed>(generator),
    ]
}

/// The schemas of the operator's request bodies, for the API's description.
pub(super) fn request_schemas(generator: &mut SchemaGenerator) -> Vec<(String, Value)> {
    vec![
        named::<BanRequest>(generator),
        named::<CloseRequest>(generator),
    ]
}

/// Registers the operator's routes.
pub(super) fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/api/admin/connections", web::get().to(connections))
        .route("/api/admin/bans", web::get().to(list_bans))
        .route("/api/admin/players/{id}/ban", web::post().to(ban))
        .route("/api/admin/players/{id}/ban", web::delete().to(unban))
        .route("/api/admin/rooms/{id}/close", web::post().to(close_room));
}

/// Lets the request through if it carries the operator's token: 403 while the controls
/// are off or for another token, 401 without one.
fn operator(state: &AppState, request: &HttpRequest) -> Result<(), ApiError> {
    let Some(token) = state.operator.as_ref() else {
        return Err(ApiError::AdminForbidden(
            "the operator controls are off on this server: set [admin] token to turn them on"
                .to_owned(),
        ));
    };
    let offered = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(bearer_token)
        .ok_or_else(|| {
            ApiError::Unauthorized(
                "the operator controls need `Authorization: Bearer <[admin] token>`".to_owned(),
            )
        })?;
    if !token.admits(offered) {
        info!(peer = ?request.peer_addr(), "an operator request with a wrong token was refused");
        return Err(ApiError::AdminForbidden(
            "that is not this server's operator token".to_owned(),
        ));
    }
    Ok(())
}

/// This node's open connections.
#[derive(Serialize, JsonSchema)]
struct Connections {
    /// How many are open.
    connections: usize,
    /// By client address.
    addresses: Vec<AddressView>,
}

/// This node's open connections, by client address, with the players and rooms each
/// address's connections are in.
#[utoipa::path(get, path = "/api/admin/connections", tag = "admin",
    security(("operator" = [])),
    responses(
        (status = 200, description = "This node's connections", body = ref("#/components/schemas/Connections")),
        (status = 401, description = "No operator's token", body = ref("#/components/schemas/Error")),
        (status = 403, description = "Another token, or the controls are off", body = ref("#/components/schemas/Error")),
    ))]
pub(super) async fn connections(
    state: web::Data<AppState>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    operator(&state, &request)?;
    state
        .metrics
        .admin_actions
        .with_label_values(&["connections"])
        .inc();
    let addresses = state.live.by_address();
    let connections = addresses.iter().map(|address| address.connections).sum();
    Ok(HttpResponse::Ok().json(Connections {
        connections,
        addresses,
    }))
}

/// A ban as the operator's routes show it.
#[derive(Serialize, JsonSchema)]
#[schemars(rename = "Ban")]
struct BanView {
    /// The player banned.
    player_id: PlayerId,
    /// Why, as the operator said it.
    reason: String,
    /// Who banned them.
    banned_by: String,
    /// When, RFC 3339 (UTC).
    banned_at: String,
    /// When, ms since 1970.
    banned_at_ms: i64,
    /// When it ends, RFC 3339 (UTC); null for good.
    expires_at: Option<String>,
    /// When it ends, ms since 1970; null for good.
    expires_at_ms: Option<i64>,
}

/// The bans in force.
#[derive(Serialize, JsonSchema)]
struct Bans {
    /// Newest first.
    bans: Vec<BanView>,
}

/// A ban made.
#[derive(Serialize, JsonSchema)]
struct Banned {
    /// The ban.
    ban: BanView,
    /// How many of the player's connections this node closed at once (every other node
    /// closes its own).
    connections_closed: usize,
}

/// A ban lifted.
#[derive(Serialize, JsonSchema)]
struct Lifted {
    /// Always true.
    lifted: bool,
    /// The player.
    player_id: PlayerId,
}

/// A room closed.
#[derive(Serialize, JsonSchema)]
struct Closed {
    /// Always true.
    closed: bool,
    /// The room.
    room: RoomId,
}

impl From<&Ban> for BanView {
    fn from(ban: &Ban) -> BanView {
        BanView {
            player_id: ban.player_id.clone(),
            reason: ban.reason.clone(),
            banned_by: ban.banned_by.clone(),
            banned_at: bans::rfc3339(ban.banned_at_ms),
            banned_at_ms: ban.banned_at_ms,
            expires_at: ban.expires_at_ms.map(bans::rfc3339),
            expires_at_ms: ban.expires_at_ms,
        }
    }
}

/// Every ban in force, newest first.
#[utoipa::path(get, path = "/api/admin/bans", tag = "admin",
    security(("operator" = [])),
    responses(
        (status = 200, description = "The bans in force", body = ref("#/components/schemas/Bans")),
        (status = 401, description = "No operator's token", body = ref("#/components/schemas/Error")),
        (status = 403, description = "Another token, or the controls are off", body = ref("#/components/schemas/Error")),
        (status = 503, description = "The database is unavailable", body = ref("#/components/schemas/Error")),
    ))]
pub(super) async fn list_bans(
    state: web::Data<AppState>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    operator(&state, &request)?;
    state
        .metrics
        .admin_actions
        .with_label_values(&["list_bans"])
        .inc();
    let now = unix_ms(SystemTime::now());
    let bans: Vec<BanView> = state
        .store
        .bans(now)
        .await?
        .iter()
        .map(BanView::from)
        .collect();
    Ok(HttpResponse::Ok().json(serde_json::json!({ "bans": bans })))
}

/// The body of `POST /api/admin/players/{id}/ban`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct BanRequest {
    /// Why, shown to the player: 1 to 500 characters, no control characters.
    #[schemars(length(min = 1, max = MAX_REASON_CHARS))]
    reason: String,
    /// How long the ban lasts, in seconds (at most ten years); for good without it.
    #[serde(default)]
    #[schemars(range(min = 1, max = MAX_BAN_SECS))]
    expires_in_secs: Option<u64>,
    /// Who bans, for the log and the list of bans: 1 to 64 characters (`operator`).
    #[serde(default)]
    #[schemars(length(min = 1, max = MAX_OPERATOR_CHARS))]
    by: Option<String>,
}

/// The longest ban with an end: ten years (longer is `for good`, without one).
const MAX_BAN_SECS: u64 = 10 * 365 * 24 * 3600;

/// Bans a player, replacing any ban they had.
///
/// Refuses their next `hello` and their HTTP calls, and closes their open connections on
/// every node (each sent an `error` with code `banned`, then closed with 1008).
#[utoipa::path(post, path = "/api/admin/players/{id}/ban", tag = "admin",
    security(("operator" = [])),
    params(("id" = String, Path, description = "The player's id")),
    request_body(content = ref("#/components/schemas/BanRequest"), content_type = "application/json"),
    responses(
        (status = 200, description = "The ban", body = ref("#/components/schemas/Banned")),
        (status = 400, description = "A bad body", body = ref("#/components/schemas/Error")),
        (status = 401, description = "No operator's token", body = ref("#/components/schemas/Error")),
        (status = 403, description = "Another token, or the controls are off", body = ref("#/components/schemas/Error")),
        (status = 404, description = "No player has that id", body = ref("#/components/schemas/Error")),
        (status = 503, description = "The database is unavailable", body = ref("#/components/schemas/Error")),
    ))]
pub(super) async fn ban(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<PlayerId>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    operator(&state, &request)?;
    let asked: BanRequest = json_body(
        &body,
        r#"{"reason": "…", "expires_in_secs": 86400, "by": "your name"}"#,
    )?;
    let reason = checked_text(&asked.reason, "reason", MAX_REASON_CHARS)?;
    let by = operator_name(asked.by.as_deref())?;
    let expires_in = match asked.expires_in_secs {
        Some(0) => {
            return Err(ApiError::BadRequest(
                "expires_in_secs must be at least 1; leave it out for a ban for good".to_owned(),
            ));
        }
        Some(secs) if secs > MAX_BAN_SECS => {
            return Err(ApiError::BadRequest(format!(
                "expires_in_secs may be at most {MAX_BAN_SECS} (ten years); leave it out for a ban for good"
            )));
        }
        other => other,
    };
    let now = unix_ms(SystemTime::now());
    let ban = Ban {
        player_id: id.into_inner(),
        reason,
        banned_by: by,
        banned_at_ms: now,
        expires_at_ms: expires_in.map(|secs| now.saturating_add_unsigned(secs * 1000)),
    };
    state
        .store
        .ban_player(&ban)
        .await
        .map_err(|error| match error {
            StoreError::UnknownPlayer => {
                ApiError::NotFound(format!("there is no player \"{}\"", ban.player_id))
            }
            other => ApiError::from(other),
        })?;
    state
        .metrics
        .admin_actions
        .with_label_values(&["ban"])
        .inc();
    info!(
        player = %ban.player_id,
        by = %ban.banned_by,
        reason = %ban.reason,
        expires_at_ms = ?ban.expires_at_ms,
        peer = ?request.peer_addr(),
        "operator banned a player"
    );
    let closed =
        bans::close_connections(&ban, &state.live, state.fleet_bans.as_ref(), &state.metrics).await;
    Ok(HttpResponse::Ok().json(Banned {
        ban: BanView::from(&ban),
        connections_closed: closed,
    }))
}

/// The query of `DELETE /api/admin/players/{id}/ban`.
#[derive(Deserialize)]
pub(super) struct UnbanQuery {
    /// Who lifts the ban, for the log.
    by: Option<String>,
}

/// Lifts a player's ban.
#[utoipa::path(delete, path = "/api/admin/players/{id}/ban", tag = "admin",
    security(("operator" = [])),
    params(
        ("id" = String, Path, description = "The player's id"),
        ("by" = Option<String>, Query, description = "Who lifts it, for the log (`operator`)"),
    ),
    responses(
        (status = 200, description = "The ban is lifted", body = ref("#/components/schemas/Lifted")),
        (status = 400, description = "A bad `by`", body = ref("#/components/schemas/Error")),
        (status = 401, description = "No operator's token", body = ref("#/components/schemas/Error")),
        (status = 403, description = "Another token, or the controls are off", body = ref("#/components/schemas/Error")),
        (status = 404, description = "The player is not banned", body = ref("#/components/schemas/Error")),
        (status = 503, description = "The database is unavailable", body = ref("#/components/schemas/Error")),
    ))]
pub(super) async fn unban(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<PlayerId>,
    query: web::Query<UnbanQuery>,
) -> Result<HttpResponse, ApiError> {
    operator(&state, &request)?;
    let by = operator_name(query.by.as_deref())?;
    if !state.store.lift_ban(&id).await? {
        return Err(ApiError::NotFound(format!("player \"{id}\" is not banned")));
    }
    state
        .metrics
        .admin_actions
        .with_label_values(&["unban"])
        .inc();
    info!(player = %id, %by, peer = ?request.peer_addr(), "operator lifted a ban");
    Ok(HttpResponse::Ok().json(Lifted {
        lifted: true,
        player_id: id.into_inner(),
    }))
}

/// The body of `POST /api/admin/rooms/{id}/close`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CloseRequest {
    /// Why, told to everyone in the room: 1 to 500 characters, no control characters.
    #[schemars(length(min = 1, max = MAX_REASON_CHARS))]
    reason: String,
    /// Who closes it, for the log: 1 to 64 characters (`operator`).
    #[serde(default)]
    #[schemars(length(min = 1, max = MAX_OPERATOR_CHARS))]
    by: Option<String>,
}

/// Closes a live room on whichever node holds it.
///
/// A game in progress ends `aborted` (unrated); everyone in the room is sent `game_over`
/// and then `room_closed` with the reason; the room is gone.
#[utoipa::path(post, path = "/api/admin/rooms/{id}/close", tag = "admin",
    security(("operator" = [])),
    params(("id" = String, Path, description = "The room's id")),
    request_body(content = ref("#/components/schemas/CloseRequest"), content_type = "application/json"),
    responses(
        (status = 200, description = "The room is closed", body = ref("#/components/schemas/Closed")),
        (status = 400, description = "A bad body", body = ref("#/components/schemas/Error")),
        (status = 401, description = "No operator's token", body = ref("#/components/schemas/Error")),
        (status = 403, description = "Another token, or the controls are off", body = ref("#/components/schemas/Error")),
        (status = 404, description = "No node holds a live room with that id", body = ref("#/components/schemas/Error")),
        (status = 503, description = "The room could not record the ending, or its node did not answer", body = ref("#/components/schemas/Error")),
    ))]
pub(super) async fn close_room(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<RoomId>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    operator(&state, &request)?;
    let asked: CloseRequest = json_body(&body, r#"{"reason": "…", "by": "your name"}"#)?;
    let reason = checked_text(&asked.reason, "reason", MAX_REASON_CHARS)?;
    let by = operator_name(asked.by.as_deref())?;
    let room = id.into_inner();
    let refused = |error: ClientError| match error.code {
        ErrorCode::UnknownRoom => ApiError::NotFound(format!("there is no live room \"{room}\"")),
        ErrorCode::RoomUnreachable => ApiError::Unreachable(error.message),
        _ => ApiError::NotDone(error.message),
    };
    let link = RoomLink::find(&room, &state.lobby, state.relay.as_ref())
        .await
        .map_err(refused)?;
    let operator = PlayerInfo {
        player_id: PlayerId::from("operator"),
        name: by.clone(),
        bot_account: false,
    };
    // The operator asks from no connection: nothing the room sends comes back here.
    let (outbox, _unread) = flume::bounded(1);
    let asker = Subscriber::new(new_conn_id(), outbox);
    let command = RoomCommand::Close {
        reason: reason.clone(),
    };
    link.ask(operator.ask(command, None), &asker, Instant::now())
        .await
        .map_err(refused)?;
    state
        .metrics
        .admin_actions
        .with_label_values(&["close_room"])
        .inc();
    info!(%room, %by, %reason, peer = ?request.peer_addr(), "operator closed a room");
    Ok(HttpResponse::Ok().json(Closed { closed: true, room }))
}

/// A request's JSON body, or 400 showing its `shape` (only `reason` is ever required).
fn json_body<T: DeserializeOwned>(body: &[u8], shape: &str) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|error| {
        ApiError::BadRequest(format!(
            "the body must be JSON: {shape} (only reason is required): {error}"
        ))
    })
}

/// `text` trimmed, if it is 1 to `max` characters without control characters.
fn checked_text(text: &str, field: &str, max: usize) -> Result<String, ApiError> {
    let text = text.trim();
    if text.is_empty() || text.chars().count() > max || text.chars().any(char::is_control) {
        return Err(ApiError::BadRequest(format!(
            "{field} must be 1 to {max} characters, without control characters"
        )));
    }
    Ok(text.to_owned())
}

/// Who signs an action: `by` as given, or "operator".
fn operator_name(by: Option<&str>) -> Result<String, ApiError> {
    match by {
        None => Ok("operator".to_owned()),
        Some(by) => checked_text(by, "by", MAX_OPERATOR_CHARS),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(token: &str, token_file: &str) -> AdminConfig {
        AdminConfig {
            token: token.to_owned(),
            token_file: token_file.to_owned(),
            metrics_token: String::new(),
        }
    }

    #[test]
    fn the_token_is_off_empty_refused_short_or_twice_and_read_from_a_file() {
        assert!(
            OperatorToken::from_config(&config("", ""))
                .unwrap()
                .is_none()
        );
        assert!(matches!(
            OperatorToken::from_config(&config("too-short", "")),
            Err(AdminSetupError::Short)
        ));
        let long = "x".repeat(MIN_TOKEN_CHARS);
        assert!(matches!(
            OperatorToken::from_config(&config(&long, "/some/file")),
            Err(AdminSetupError::TwoSources)
        ));
        let token = OperatorToken::from_config(&config(&long, ""))
            .unwrap()
            .unwrap();
        assert!(token.admits(&long));
        assert!(!token.admits(&"y".repeat(MIN_TOKEN_CHARS)));

        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("admin-token");
        std::fs::write(&file, format!("{long}\n")).unwrap();
        let path = file.to_string_lossy();
        let token = OperatorToken::from_config(&config("", &path))
            .unwrap()
            .unwrap();
        assert!(
            token.admits(&long),
            "the trailing newline is not part of it"
        );
        assert!(matches!(
            OperatorToken::from_config(&config("", "/no/such/file")),
            Err(AdminSetupError::Read { .. })
        ));
    }
}
