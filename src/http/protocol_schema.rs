//! `GET /api/protocol.json`: the WebSocket protocol's JSON Schema (draft 2020-12), as
//! [`crate::protocol::schema_text`] generates it once from the protocol's types.

use actix_web::HttpResponse;

use crate::protocol::schema_text;

/// The media type of a JSON Schema document.
const SCHEMA_JSON: &str = "application/schema+json";

/// The WebSocket protocol as one JSON Schema (draft 2020-12): every client message and
/// every server frame.
#[utoipa::path(get, path = "/api/protocol.json", tag = "documents", responses(
    (status = 200, description = "The protocol's JSON Schema", content_type = "application/schema+json", body = Object),
))]
pub(super) async fn protocol_schema() -> HttpResponse {
    HttpResponse::Ok()
        .content_type(SCHEMA_JSON)
        .body(schema_text())
}
