//! `GET /healthz` (liveness: the rooms' runtimes answer, so a supervisor restarts a node
//! only for its own fault) and `GET /readyz` (readiness: whether a load balancer should
//! send this node new players, as [`crate::readiness`] judges it). Both name the node.

use actix_web::{HttpResponse, web};
use schemars::JsonSchema;
use serde::Serialize;
use tracing::warn;

use crate::AppState;
use crate::readiness::Checks;
use crate::room::probe::{PROBE_BOUND, probe_all};

/// What `GET /healthz` answers.
#[derive(Serialize, JsonSchema)]
pub(super) struct Health {
    /// `ok`, or `unavailable` when the rooms are stalled.
    status: &'static str,
    /// `ok`, or `stalled`.
    rooms: &'static str,
    /// How long the probe of every runtime rooms run on took, ms (when it answered).
    #[serde(skip_serializing_if = "Option::is_none")]
    probe_ms: Option<f64>,
    /// What is stalled (when something is).
    #[serde(skip_serializing_if = "Option::is_none")]
    problem: Option<String>,
    /// This node's id in its fleet; `null` on a single server.
    node: Option<String>,
    /// The server's version.
    version: &'static str,
}

/// Whether the server's rooms answer (liveness).
///
/// 200 while every runtime rooms run on runs a probe task within the bound; 503 when one
/// does not (its rooms are frozen), so that a supervisor restarts the process. It stays
/// 200 while the database or Redis is down, which a restart would not cure: `/readyz`
/// says that.
#[utoipa::path(get, path = "/healthz", tag = "operations", responses(
    (status = 200, description = "Every room runtime answered", body = ref("#/components/schemas/Health")),
    (status = 503, description = "A room runtime is stalled", body = ref("#/components/schemas/Health")),
))]
pub(super) async fn health(state: web::Data<AppState>) -> HttpResponse {
    let node = state.readiness.node();
    let version = env!("CARGO_PKG_VERSION");
    match probe_all(&state.lobby.hosts().all(), PROBE_BOUND).await {
        Ok(took) => HttpResponse::Ok().json(Health {
            status: "ok",
            rooms: "ok",
            probe_ms: Some(took.as_secs_f64() * 1000.0),
            problem: None,
            node,
            version,
        }),
        Err(stalled) => {
            warn!(%stalled, "health check failed");
            HttpResponse::ServiceUnavailable().json(Health {
                status: "unavailable",
                rooms: "stalled",
                probe_ms: None,
                problem: Some(stalled.to_string()),
                node,
                version,
            })
        }
    }
}

/// What `GET /readyz` answers.
#[derive(Serialize, JsonSchema)]
pub(super) struct Readiness {
    /// `ready`, or `not_ready` when a check failed.
    status: &'static str,
    /// This node's id in its fleet; `null` on a single server.
    node: Option<String>,
    /// What each check found.
    checks: Checks,
}

/// Whether this node can serve new players (readiness), for a load balancer.
///
/// 200 while the database answers a trivial query and, on a node of a fleet, Redis
/// answers `PING` (each within 1 s, both at once), the server is not shutting down, and
/// the node is not fenced out of its fleet; 503 otherwise, with what failed. Answers
/// within about a second whatever the database or Redis does.
#[utoipa::path(get, path = "/readyz", tag = "operations", responses(
    (status = 200, description = "This node can serve new players", body = ref("#/components/schemas/Readiness")),
    (status = 503, description = "A check failed: the store, Redis, a shutdown under way, or the node fenced out", body = ref("#/components/schemas/Readiness")),
))]
pub(super) async fn ready(state: web::Data<AppState>) -> HttpResponse {
    let checks = state.readiness.check().await;
    let ready = checks.ready();
    let body = Readiness {
        status: if ready { "ready" } else { "not_ready" },
        node: state.readiness.node(),
        checks,
    };
    if ready {
        HttpResponse::Ok().json(body)
    } else {
        HttpResponse::ServiceUnavailable().json(body)
    }
}
