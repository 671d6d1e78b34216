//! Who a Bot API request speaks for: the account of the player whose bearer token it
//! carries (a guest's token or the site's sign-in token), which every endpoint but the
//! token test needs.

use actix_web::HttpRequest;

use super::reply::BotApiError;
use crate::AppState;
use crate::http::ApiError;
use crate::http::bearer;
use crate::store::AccountRecord;

/// The bot account the request's bearer token names: as [`account`], and `400` for a
/// person's (the `/api/bot/` endpoints are for bot accounts).
pub(super) async fn bot(
    state: &AppState,
    request: &HttpRequest,
) -> Result<AccountRecord, BotApiError> {
    a_bot(account(state, request).await?)
}

/// `account` if it is a bot account's; `400` for a person's.
pub(super) fn a_bot(account: AccountRecord) -> Result<AccountRecord, BotApiError> {
    if account.bot_since_ms.is_none() {
        return Err(BotApiError::BadRequest(
            "this is not a bot account: POST /api/bot/account/upgrade first (only a player without games can become one)"
                .to_owned(),
        ));
    }
    Ok(account)
}

/// The account the request's bearer token names, as [`account`], for a request that
/// takes one from its player's budget (`limits.bot_requests_per_minute`): `429` when
/// none is left. A game's moves, chat and streams never take from it.
pub(super) async fn budgeted(
    state: &AppState,
    request: &HttpRequest,
) -> Result<AccountRecord, BotApiError> {
    let account = account(state, request).await?;
    state
        .limits
        .bot_request(&account.player.player_id)
        .map_err(BotApiError::TooManyRequests)?;
    Ok(account)
}

/// The account the request's bearer token names; 401 without a token or for a token
/// no player holds, 403 for a banned player.
pub(super) async fn account(
    state: &AppState,
    request: &HttpRequest,
) -> Result<AccountRecord, BotApiError> {
    let player = bearer::reader(state, request).await?.ok_or_else(|| {
        ApiError::Unauthorized(
            "the Bot API needs `Authorization: Bearer <token>`: the token of your `welcome`, or the site's sign-in token"
                .to_owned(),
        )
    })?;
    let account = state.store.account(&player).await?;
    account.ok_or_else(|| {
        BotApiError::Http(ApiError::Unauthorized(
            "no player holds this token".to_owned(),
        ))
    })
}
