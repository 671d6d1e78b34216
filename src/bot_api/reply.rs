//! How the Bot API answers: every answer is JSON, as `lichess-bot` and `berserk` read
//! every answer's body, success (`{"ok":true}`) or failure (`{"error":"<sentence>"}`,
//! with a 4xx status for anything the client can mend and never a 429 on the move, chat
//! or stream endpoints).

use actix_web::http::{StatusCode, header};
use actix_web::{HttpResponse, ResponseError};
use serde_json::json;

use crate::fleet::ClusterError;
use crate::http::ApiError;
use crate::protocol::{ClientError, ErrorCode};
use crate::store::StoreError;

/// Why a Bot API request was not done.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BotApiError {
    /// As the rest of Parlor's HTTP API says it (a bad token, a ban, the database away).
    #[error("{0}")]
    Http(#[from] ApiError),
    /// The request cannot be done as asked; the sentence says why.
    #[error("{0}")]
    BadRequest(String),
    /// Nothing has that id or name.
    #[error("{0}")]
    NotFound(String),
    /// The caller has made as many requests of this kind as a minute allows.
    #[error("{0}")]
    TooManyRequests(String),
    /// The room refused the request, as it refuses a WebSocket client's (PROTOCOL.md
    /// §11): the same code and sentence.
    #[error("{}", .0.message)]
    Refused(ClientError),
    /// The fleet's Redis, which keeps the challenges, did not answer.
    #[error("the challenges are out of reach for a moment ({0}); try again shortly")]
    Fleet(#[from] ClusterError),
}

impl From<StoreError> for BotApiError {
    fn from(error: StoreError) -> BotApiError {
        BotApiError::Http(ApiError::from(error))
    }
}

impl ResponseError for BotApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            BotApiError::Http(error) => error.status_code(),
            BotApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            BotApiError::NotFound(_) => StatusCode::NOT_FOUND,
            BotApiError::TooManyRequests(_) => StatusCode::TOO_MANY_REQUESTS,
            BotApiError::Fleet(_) => StatusCode::SERVICE_UNAVAILABLE,
            BotApiError::Refused(error) => match error.code {
                ErrorCode::UnknownRoom => StatusCode::NOT_FOUND,
                ErrorCode::StorageUnavailable
                | ErrorCode::RoomUnreachable
                | ErrorCode::ServerFull => StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::Banned => StatusCode::FORBIDDEN,
                _ => StatusCode::BAD_REQUEST,
            },
        }
    }

    fn error_response(&self) -> HttpResponse {
        let mut body = json!({ "error": self.to_string() });
        if let BotApiError::Refused(error) = self {
            body["code"] = json!(error.code.as_str());
        }
        let mut response = HttpResponse::build(self.status_code());
        if let BotApiError::TooManyRequests(_) = self {
            // The budget refills within a minute.
            response.insert_header((header::RETRY_AFTER, "60"));
        }
        response.json(body)
    }
}

impl From<ClientError> for BotApiError {
    fn from(error: ClientError) -> BotApiError {
        BotApiError::Refused(error)
    }
}

/// The answer to a request done: `{"ok":true}`.
pub(crate) fn ok() -> HttpResponse {
    HttpResponse::Ok().json(json!({ "ok": true }))
}
