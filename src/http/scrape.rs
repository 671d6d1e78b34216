//! `GET /metrics`: every metric in Prometheus's text format, for the operator's scraper
//! only: behind `[admin] metrics_token` when it is set, and on a listener of its own
//! (`server.metrics_bind`) when that is set (the main listener then has no `/metrics`).

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use tracing::info;

use super::secret::SecretDigest;
use super::{AdminSetupError, ApiError, bearer_token};
use crate::AppState;
use crate::config::AdminConfig;

/// The least length of the metrics token.
const MIN_TOKEN_CHARS: usize = 32;

/// The token a scrape must show, kept as its digest.
pub(crate) struct MetricsToken(SecretDigest);

impl MetricsToken {
    /// The token `config` sets, or `None` when it sets none (scrapes need no token).
    pub(crate) fn from_config(
        config: &AdminConfig,
    ) -> Result<Option<MetricsToken>, AdminSetupError> {
        match config.metrics_token.trim() {
            "" => Ok(None),
            token if token.chars().count() < MIN_TOKEN_CHARS => {
                Err(AdminSetupError::ShortMetricsToken(MIN_TOKEN_CHARS))
            }
            token => Ok(Some(MetricsToken(SecretDigest::of(token)))),
        }
    }
}

/// Every metric, in Prometheus's text format (docs/OPERATIONS.md lists them).
///
/// With `[admin] metrics_token` set, only for a request with `Authorization: Bearer
/// <metrics_token>`. With `server.metrics_bind` set, served on that listener only: the
/// main one answers 404.
#[utoipa::path(get, path = "/metrics", tag = "operations",
    security((), ("metrics" = [])),
    responses(
        (status = 200, description = "The metrics", content_type = "text/plain", body = String),
        (status = 401, description = "`[admin] metrics_token` is set and the request does not show it", body = ref("#/components/schemas/Error")),
        (status = 404, description = "`server.metrics_bind` is set: the metrics are served on that listener only", body = ref("#/components/schemas/Error")),
        (status = 500, description = "The metrics could not be rendered", body = ref("#/components/schemas/Error")),
    ))]
pub(super) async fn metrics(
    state: web::Data<AppState>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    if let Some(token) = &state.metrics_token {
        let offered = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(bearer_token);
        if !offered.is_some_and(|offered| token.0.admits(offered)) {
            info!(peer = ?request.peer_addr(), "a scrape of /metrics without the metrics token was refused");
            return Err(ApiError::Unauthorized(
                "/metrics needs `Authorization: Bearer <[admin] metrics_token>`".to_owned(),
            ));
        }
    }
    let text = state.metrics.render()?;
    Ok(HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(text))
}
