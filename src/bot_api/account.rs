//! Accounts: testing tokens, the caller's own account, becoming a bot account, who is
//! online, and another player's public account.

use std::collections::BTreeMap;
use std::time::SystemTime;

use actix_web::{HttpRequest, HttpResponse, web};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::body;
use super::caller;
use super::reply::{BotApiError, ok};
use super::views::AccountView;
use crate::AppState;
use crate::http::bearer;
use crate::protocol::{ClientError, ErrorCode};
use crate::room::unix_ms;
use crate::store::BotUpgrade;
use parlor_room::PlayerId;
use parlor_rules::GameKind;

/// What a token may do here: everything the Bot API offers, which is what `lichess-bot`
/// checks for (`bot:play`).
const SCOPES: &str = "bot:play,board:play,challenge:read,challenge:write";

/// The most tokens, or ids, one request may ask about (Lichess's limit).
const MOST_AT_ONCE: usize = 100;

/// `POST /api/token/test`: for each token of the body (comma-separated, as text), the
/// player holding it and what it may do, or `null`.
pub(super) async fn test_tokens(
    state: web::Data<AppState>,
    body: String,
) -> Result<HttpResponse, BotApiError> {
    let tokens: Vec<&str> = body
        .split(',')
        .map(str::trim)
        .filter(|token| !token.is_empty())
        .collect();
    if tokens.len() > MOST_AT_ONCE {
        return Err(BotApiError::BadRequest(format!(
            "at most {MOST_AT_ONCE} tokens may be tested at once"
        )));
    }
    let mut tested = BTreeMap::new();
    for token in tokens {
        // A sign-in token the site refuses is as unknown as a token nobody holds.
        let holder = bearer::holder(&state, token).await.ok().flatten();
        let about = holder.map_or(
            Value::Null,
            |player| json!({ "userId": player.as_str(), "scopes": SCOPES, "expires": null }),
        );
        tested.insert(token.to_owned(), about);
    }
    Ok(HttpResponse::Ok().json(tested))
}

/// `GET /api/account`: the caller's own account.
pub(super) async fn account(
    state: web::Data<AppState>,
    request: HttpRequest,
) -> Result<HttpResponse, BotApiError> {
    let account = caller::budgeted(&state, &request).await?;
    Ok(HttpResponse::Ok().json(AccountView::of(&account)))
}

/// `POST /api/bot/account/upgrade`: the caller becomes a bot account, for good; only a
/// player without games may (a person's games and ratings stay a person's). Its open
/// WebSocket connections on this node are closed (`bot_account`), so none of them goes
/// on taking seats as a person; one opened again may watch and chat.
pub(super) async fn upgrade(
    state: web::Data<AppState>,
    request: HttpRequest,
) -> Result<HttpResponse, BotApiError> {
    let account = caller::budgeted(&state, &request).await?;
    let now = unix_ms(SystemTime::now());
    let player = &account.player.player_id;
    match state.store.upgrade_to_bot(player, now).await? {
        BotUpgrade::Upgraded => {
            let why = ClientError::new(
                ErrorCode::BotAccount,
                "This player has just become a bot account: it plays through the Bot API from now on. Connect again to watch games and chat.",
            );
            state.live.close_player(player, &why);
            Ok(ok())
        }
        BotUpgrade::AlreadyBot => Ok(ok()),
        BotUpgrade::HasPlayed => Err(BotApiError::BadRequest(
            "this player has played games as a person, so it cannot become a bot account; say hello with a new name for the bot and upgrade that player"
                .to_owned(),
        )),
        BotUpgrade::UnknownPlayer => Err(BotApiError::NotFound(
            "no player holds this token any more".to_owned(),
        )),
    }
}

/// `POST /api/bot/account/games`: the games the calling bot takes challenges in (`games`,
/// game ids comma-separated, or a JSON list of them): a challenge in another game is
/// declined for it (reason `variant`) and never reaches it.
pub(super) async fn set_games(
    state: web::Data<AppState>,
    request: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, BotApiError> {
    let account = caller::a_bot(caller::budgeted(&state, &request).await?)?;
    let fields = body::fields(&request, &body)?;
    let names: Vec<String> = match fields.get("games") {
        Some(Value::String(names)) => names
            .split(',')
            .map(|name| name.trim().to_owned())
            .collect(),
        Some(Value::Array(names)) => names
            .iter()
            .map(|name| name.as_str().unwrap_or_default().to_owned())
            .collect(),
        _ => Vec::new(),
    };
    let games = names
        .iter()
        .map(|name| {
            name.parse::<GameKind>().map_err(|_| {
                BotApiError::BadRequest(format!(
                    "{name:?} is not a game; games are {}",
                    GameKind::names()
                ))
            })
        })
        .collect::<Result<Vec<GameKind>, BotApiError>>()?;
    if games.is_empty() {
        return Err(BotApiError::BadRequest(
            "name at least one game: games=chess,checkers".to_owned(),
        ));
    }
    state
        .store
        .set_bot_games(&account.player.player_id, &games)
        .await?;
    Ok(ok())
}

/// The query of `GET /api/bot/online`.
#[derive(Deserialize)]
pub(super) struct OnlineQuery {
    /// How many bots at most (default 50, at most 300).
    nb: Option<usize>,
}

/// `GET /api/bot/online?nb=`: the bot accounts with an event stream open here, as NDJSON
/// (a finite list, as `lichess-bot`'s matchmaking reads it).
pub(super) async fn online_bots(
    state: web::Data<AppState>,
    request: HttpRequest,
) -> Result<HttpResponse, BotApiError> {
    let query = web::Query::<OnlineQuery>::from_query(request.query_string())
        .map_err(|_| BotApiError::BadRequest("nb is a whole number".to_owned()))?;
    let most = query.nb.unwrap_or(50).min(300);
    let mut lines = String::new();
    for player in state.events.players().into_iter().take(most) {
        let Some(account) = state.store.account(&player).await? else {
            continue;
        };
        if account.bot_since_ms.is_some() {
            // An account's view is plain data: it always serialises.
            let view = serde_json::to_string(&AccountView::of(&account)).unwrap_or_default();
            lines.push_str(&view);
            lines.push('\n');
        }
    }
    Ok(HttpResponse::Ok()
        .content_type("application/x-ndjson")
        .body(lines))
}

/// The query of `GET /api/users/status`.
#[derive(Deserialize)]
pub(super) struct StatusQuery {
    /// Player ids, comma-separated.
    ids: String,
}

/// One player's status.
#[derive(Serialize)]
struct Status {
    id: String,
    name: String,
    online: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'static str>,
}

/// `GET /api/users/status?ids=`: whether each player named is online (has a WebSocket
/// or an event stream open to this server); players nobody has are left out.
pub(super) async fn statuses(
    state: web::Data<AppState>,
    request: HttpRequest,
) -> Result<HttpResponse, BotApiError> {
    let query = web::Query::<StatusQuery>::from_query(request.query_string())
        .map_err(|_| BotApiError::BadRequest("name the players: ?ids=<id>,<id>".to_owned()))?;
    let ids: Vec<&str> = query
        .ids
        .split(',')
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .collect();
    if ids.len() > MOST_AT_ONCE {
        return Err(BotApiError::BadRequest(format!(
            "at most {MOST_AT_ONCE} ids may be asked about at once"
        )));
    }
    let online = state.live.players();
    let mut statuses = Vec::new();
    for id in ids {
        let player = PlayerId::from(id.to_owned());
        if let Some(account) = state.store.account(&player).await? {
            statuses.push(Status {
                online: online.binary_search(&player).is_ok() || state.events.is_open(&player),
                id: player.to_string(),
                name: account.player.name,
                title: account.bot_since_ms.map(|_| "BOT"),
            });
        }
    }
    Ok(HttpResponse::Ok().json(statuses))
}

/// Another player's account, as the caller sees it.
#[derive(Serialize)]
struct PublicAccount {
    #[serde(flatten)]
    account: AccountView,
    /// Whether this player blocks the caller: never, as Parlor has no blocking.
    blocking: bool,
}

/// `GET /api/user/{name}`: another player's public account, found by name.
pub(super) async fn public_account(
    state: web::Data<AppState>,
    name: web::Path<String>,
) -> Result<HttpResponse, BotApiError> {
    let account = state
        .store
        .account_named(&name)
        .await?
        .ok_or_else(|| BotApiError::NotFound(format!("no player is called {name}")))?;
    Ok(HttpResponse::Ok().json(PublicAccount {
        account: AccountView::of(&account),
        blocking: false,
    }))
}
