//! Who a request speaks for, by its `Authorization: Bearer <token>`: a guest's token
//! (the token of their `welcome`) or, where `[auth]` is on, the site's sign-in token;
//! a banned player is refused. Shared by the game records and the Bot API.

use actix_web::HttpRequest;
use actix_web::http::header;
use std::time::SystemTime;

use super::{ApiError, bearer_token};
use crate::AppState;
use crate::bans;
use crate::players;
use crate::room::unix_ms;
use parlor_room::PlayerId;

/// The player a request names by its bearer token; `None` without the header. A
/// malformed header or a token no player holds is refused rather than read as
/// anonymous, so a client sees its mistake.
pub(crate) async fn reader(
    state: &AppState,
    request: &HttpRequest,
) -> Result<Option<PlayerId>, ApiError> {
    let Some(value) = request.headers().get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let token = bearer_token(value).ok_or_else(|| {
        ApiError::Unauthorized(
            "the Authorization header must read `Bearer <token>`, with the token of your `welcome`"
                .to_owned(),
        )
    })?;
    let player = holder(state, token).await?.ok_or_else(|| {
        ApiError::Unauthorized(
            "no player holds this token: send the token of your `welcome` (or the site's sign-in token)"
                .to_owned(),
        )
    })?;
    admitted(state, player).await.map(Some)
}

/// The player who holds `token` (a guest's token, or the site's sign-in token of an
/// account that has played here), if any; a sign-in token the site's keys refuse is an
/// error that says why.
pub(crate) async fn holder(state: &AppState, token: &str) -> Result<Option<PlayerId>, ApiError> {
    if let Some(sign_in) = state.sign_in.as_deref().filter(|_| looks_like_jwt(token)) {
        let user = sign_in
            .verify(token)
            .await
            .map_err(|refusal| ApiError::Unauthorized(refusal.to_client_error().message))?;
        let player = state.store.player_by_identity(&user.identity).await?;
        return Ok(player.map(|player| player.player_id));
    }
    let player = players::player_by_token(state.store.as_ref(), token).await?;
    Ok(player.map(|player| player.player_id))
}

/// `player`, unless they are banned (403 `banned`).
pub(crate) async fn admitted(state: &AppState, player: PlayerId) -> Result<PlayerId, ApiError> {
    let now = unix_ms(SystemTime::now());
    bans::check(state.store.as_ref(), &player, now)
        .await
        .map_err(|refused| match refused {
            bans::Refused::Banned(sentence) => {
                state
                    .metrics
                    .bans_enforced
                    .with_label_values(&["http"])
                    .inc();
                ApiError::Banned(sentence)
            }
            bans::Refused::Store(error) => ApiError::from(error),
        })?;
    Ok(player)
}

/// Whether a bearer token is a JSON Web Token (three dot-separated parts) rather than a
/// guest's token (hex digits).
fn looks_like_jwt(token: &str) -> bool {
    token.split('.').count() == 3
}
