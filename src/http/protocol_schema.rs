//! `GET /api/protocol.json`: the WebSocket protocol's JSON Schema (draft 2020-12), as
//! [`crate::protocol::schema_text`] generates it once from the protocol's types.

use actix_web::HttpResponse;

use crate::protocol::schema_text;

/// The media type of a JSON Schema document.
const SCHEMA_JSON: &str = "application/schema+json";

/// `GET /api/protocol.json`: every client message and every server frame, as one schema.
pub(super) async fn protocol_schema() -> HttpResponse {
    HttpResponse::Ok()
        .content_type(SCHEMA_JSON)
        .body(schema_text())
}
