//! Request bodies as both programs send them: a form (`lichess-bot`, and any body
//! without a JSON content type) or a JSON object (`berserk`, with `null` for a field left
//! out), read into one map of fields; and the lenient readings of a field Lichess
//! accepts (`true` or `"true"`, `60` or `"60"`).

use actix_web::HttpRequest;
use actix_web::http::header;
use serde_json::{Map, Value};

use super::reply::BotApiError;

/// The fields of a body; an empty body has none. `null` fields are left out.
pub(super) fn fields(
    request: &HttpRequest,
    body: &[u8],
) -> Result<Map<String, Value>, BotApiError> {
    if body.trim_ascii().is_empty() {
        return Ok(Map::new());
    }
    let json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/json"))
        || body.trim_ascii_start().starts_with(b"{");
    let mut fields = if json {
        serde_json::from_slice::<Map<String, Value>>(body).map_err(|error| {
            BotApiError::BadRequest(format!("the body is not a JSON object: {error}"))
        })?
    } else {
        let pairs: Vec<(String, String)> = serde_urlencoded::from_bytes(body)
            .map_err(|error| BotApiError::BadRequest(format!("the body is not a form: {error}")))?;
        pairs
            .into_iter()
            .map(|(key, value)| (key, Value::String(value)))
            .collect()
    };
    fields.retain(|_, value| !value.is_null());
    Ok(fields)
}

/// The text field `key`, if given.
pub(super) fn text<'a>(fields: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    fields.get(key).and_then(Value::as_str)
}

/// The yes-or-no field `key` (`true`, `"true"`, `1`…); `false` when left out.
pub(super) fn flag(fields: &Map<String, Value>, key: &str) -> Result<bool, BotApiError> {
    match fields.get(key) {
        None => Ok(false),
        Some(Value::Bool(flag)) => Ok(*flag),
        Some(Value::String(text)) if matches!(text.as_str(), "true" | "1" | "yes") => Ok(true),
        Some(Value::String(text)) if matches!(text.as_str(), "false" | "0" | "no") => Ok(false),
        Some(other) => Err(BotApiError::BadRequest(format!(
            "{key} is true or false, not {other}"
        ))),
    }
}

/// The whole number field `key` (`60` or `"60"`), if given.
pub(super) fn number(fields: &Map<String, Value>, key: &str) -> Result<Option<u64>, BotApiError> {
    let bad =
        |other: &Value| BotApiError::BadRequest(format!("{key} is a whole number, not {other}"));
    match fields.get(key) {
        None => Ok(None),
        Some(Value::Number(number)) => number.as_u64().map(Some).ok_or_else(|| bad(&fields[key])),
        Some(value @ Value::String(text)) => text.parse().map(Some).map_err(|_| bad(value)),
        Some(other) => Err(bad(other)),
    }
}
