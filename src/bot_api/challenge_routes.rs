//! `POST /api/challenge/{name}` and a challenge's `accept`, `decline` and `cancel`: each
//! told to both players' event streams. Accepting opens the game's room under the
//! challenge's id, private and without bot fill, with a seat held for each player
//! (`RoomCommand::Reserve`), so the game starts at once and each side has the first-move
//! time to come and move.

use std::time::Instant;

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Map, Value};

use super::body;
use super::caller;
use super::challenges::{Challenge, ChallengeStatus, Colour, Party, decline_reason};
use super::event_stream::base_url;
use super::events::{BotEvent, ChallengeNews};
use super::game_stream::room_id;
use super::ongoing::Ongoing;
use super::reply::{BotApiError, ok};
use crate::AppState;
use crate::fleet::ClusterError;
use crate::lobby::NewRoom;
use crate::protocol::{ClientError, ErrorCode};
use crate::room::{Caller, RoomHandle, new_conn_id};
use crate::store::{AccountRecord, Fence};
use parlor_room::{PlayerInfo, RoomCommand, RoomId, RoomOptions, SeatSpec, TimeControl};
use parlor_rules::GameKind;
use parlor_rules::games::Seat;

/// `POST /api/challenge/{name}`: challenges the player called `name`. The body (form or
/// JSON) may say `variant` (`standard`, or another game's id), `clock.limit` and
/// `clock.increment` (seconds), `color` (`white`, `black`, `random`) and `rated`.
pub(super) async fn create(
    state: web::Data<AppState>,
    request: HttpRequest,
    name: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, BotApiError> {
    let challenger = caller::budgeted(&state, &request).await?;
    let fields = body::fields(&request, &body)?;
    let (game, time_control) = game_and_clock(&fields)?;
    let colour = match body::text(&fields, "color") {
        None => Colour::Random,
        Some(name) => Colour::named(name).ok_or_else(|| {
            BotApiError::BadRequest(format!("color is white, black or random, not {name}"))
        })?,
    };
    let rated = body::flag(&fields, "rated")?;
    let asked = Asked {
        game,
        time_control,
        colour,
        rated,
    };
    let challenge = make(&state, &challenger, &name, asked).await?;
    Ok(HttpResponse::Ok().json(challenge.view(&base_url(&request))))
}

/// What a challenge asks for.
pub(crate) struct Asked {
    /// The game.
    pub(crate) game: GameKind,
    /// The clock.
    pub(crate) time_control: TimeControl,
    /// The challenger's colour.
    pub(crate) colour: Colour,
    /// Whether the game is to be rated.
    pub(crate) rated: bool,
}

/// `challenger` challenges the player called `name` to what `asked` says, and both are
/// told (a bot account that does not take it has it declined for it by the server, and
/// only the challenger is told). Shared by `POST /api/challenge/{name}` and the
/// WebSocket's `challenge`.
pub(crate) async fn make(
    state: &AppState,
    challenger: &AccountRecord,
    name: &str,
    asked: Asked,
) -> Result<Challenge, BotApiError> {
    let Asked {
        game,
        time_control,
        colour,
        rated,
    } = asked;
    state
        .lobby
        .check_start(game, &RoomOptions::clocked(time_control))?;
    let dest = state
        .store
        .account_named(name)
        .await?
        .ok_or_else(|| BotApiError::NotFound(format!("no player is called {name}")))?;
    if dest.player.player_id == challenger.player.player_id {
        return Err(BotApiError::BadRequest(
            "a player cannot challenge themselves".to_owned(),
        ));
    }
    let challenger_seat = match colour {
        Colour::White => Seat::First,
        Colour::Black => Seat::Second,
        Colour::Random if rand::random::<bool>() => Seat::First,
        Colour::Random => Seat::Second,
    };
    // A bot account is never offered a game it does not play, nor one more than it may
    // play at once: the server declines for it.
    let refusal = refusal_for_bot(state, &dest, game);
    let status = match refusal {
        None => ChallengeStatus::Created,
        Some(reason) => ChallengeStatus::Declined(reason.to_owned()),
    };
    let challenge = Challenge {
        id: state.lobby.fresh_id(),
        challenger: party(challenger, game),
        dest: party(&dest, game),
        game,
        time_control,
        rated,
        colour,
        challenger_seat,
        status,
    };
    if refusal.is_none() {
        state.challenges.add(&challenge).await?;
        tell_both(state, &challenge, ChallengeNews::Made);
    } else {
        let declined = BotEvent::Challenge(ChallengeNews::Declined, Box::new(challenge.clone()));
        state
            .events
            .send(&challenge.challenger.player.player_id, &declined);
    }
    Ok(challenge)
}

/// `POST /api/challenge/{id}/accept`: the challenged player accepts; the game's room
/// opens under the challenge's id, and both players are told `gameStart`.
pub(super) async fn accept(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, BotApiError> {
    let account = caller::budgeted(&state, &request).await?;
    let challenge = pending(&state, &id, |challenge| &challenge.dest, &account).await?;
    if refusal_for_bot(&state, &account, challenge.game) == Some("tooMany") {
        return Err(playing_too_many(&state));
    }
    let mut options = RoomOptions::clocked(challenge.time_control);
    options.private = true;
    options.bot_fill = Some(false);
    let new_room = NewRoom {
        game: challenge.game,
        seats: [SeatSpec::Open, SeatSpec::Open],
        options,
    };
    let players = Seat::BOTH.map(|seat| (seat, challenge.party(seat).player.clone()));
    open_room(&state, &challenge.id, new_room, players).await?;
    let challenge = state
        .challenges
        .settle(&challenge.id, ChallengeStatus::Accepted)
        .await?
        .ok_or_else(answered_meanwhile)?;
    // From now on the game is found in its room, as any game is.
    state.challenges.forget(&challenge).await?;
    for seat in Seat::BOTH {
        let player = &challenge.party(seat).player.player_id;
        let start = BotEvent::GameStart(Box::new(Ongoing::accepted(&challenge, seat)));
        state.events.send(player, &start);
    }
    Ok(ok())
}

/// `POST /api/challenge/{id}/decline`: the challenged player declines, saying why
/// (`reason`, one of Lichess's keys; `generic` otherwise).
pub(super) async fn decline(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, BotApiError> {
    let account = caller::budgeted(&state, &request).await?;
    let fields = body::fields(&request, &body)?;
    let reason = body::text(&fields, "reason")
        .and_then(decline_reason)
        .unwrap_or("generic");
    let challenge = pending(&state, &id, |challenge| &challenge.dest, &account).await?;
    let declined = ChallengeStatus::Declined(reason.to_owned());
    let challenge = answer(&state, &challenge, declined).await?;
    tell_both(&state, &challenge, ChallengeNews::Declined);
    state.challenges.forget(&challenge).await?;
    Ok(ok())
}

/// `POST /api/challenge/{id}/cancel`: the challenger takes the challenge back.
pub(super) async fn cancel(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, BotApiError> {
    let account = caller::budgeted(&state, &request).await?;
    cancel_for(&state, &account, &id).await?;
    Ok(ok())
}

/// `challenger` takes challenge `id` back; both players are told. Shared by `POST
/// /api/challenge/{id}/cancel` and the WebSocket's `cancel_challenge`.
pub(crate) async fn cancel_for(
    state: &AppState,
    challenger: &AccountRecord,
    id: &str,
) -> Result<(), BotApiError> {
    let challenge = pending(state, id, |challenge| &challenge.challenger, challenger).await?;
    let challenge = answer(state, &challenge, ChallengeStatus::Canceled).await?;
    tell_both(state, &challenge, ChallengeNews::Canceled);
    state.challenges.forget(&challenge).await?;
    Ok(())
}

/// Takes back challenge `id` if it still waits for its answer, telling both players:
/// what happens to a person's challenges when the connection that made them closes (a
/// bot should not start a game nobody is there to play).
pub(crate) async fn withdraw(state: &AppState, id: &RoomId) -> Result<(), ClusterError> {
    if let Some(challenge) = state
        .challenges
        .settle(id, ChallengeStatus::Canceled)
        .await?
    {
        tell_both(state, &challenge, ChallengeNews::Canceled);
        state.challenges.forget(&challenge).await?;
    }
    Ok(())
}

/// The game and clock a challenge's fields ask for: chess unless `variant` names
/// another game; a clock of `clock.limit` and `clock.increment` seconds, or none (also
/// for `days`: Parlor has no correspondence clock).
pub(super) fn game_and_clock(
    fields: &Map<String, Value>,
) -> Result<(GameKind, TimeControl), BotApiError> {
    let game = match body::text(fields, "variant") {
        None | Some("standard") => GameKind::Chess,
        Some(other) => other.parse().map_err(|_| {
            BotApiError::BadRequest(format!(
                "Parlor plays the variants standard (chess), {}; not {other}",
                ["tictactoe", "checkers", "fox_geese"].join(", ")
            ))
        })?,
    };
    let limit = body::number(fields, "clock.limit")?;
    let increment = body::number(fields, "clock.increment")?;
    let time_control = match (limit, increment) {
        (None, None) => TimeControl::None,
        (limit, increment) => TimeControl::Fischer {
            base_ms: limit.unwrap_or(0).saturating_mul(1000),
            increment_ms: increment.unwrap_or(0).saturating_mul(1000),
        },
    };
    Ok((game, time_control))
}

/// Why the server declines a challenge in `game` for `dest`, if it is a bot account:
/// a game it does not take (`variant`), or one more game than it may play at once
/// (`tooMany`).
fn refusal_for_bot(state: &AppState, dest: &AccountRecord, game: GameKind) -> Option<&'static str> {
    dest.bot_since_ms?;
    if !dest.bot_games.contains(&game) {
        return Some("variant");
    }
    plays_too_many(state, dest).then_some("tooMany")
}

/// Whether `account`, a bot account, plays as many games at once as it may
/// (`limits.bot_games_at_once`; 0 sets no limit).
pub(super) fn plays_too_many(state: &AppState, account: &AccountRecord) -> bool {
    let most = state.config.limits.bot_games_at_once as usize;
    let playing = state.lobby.games_of(&account.player.player_id).len();
    account.bot_since_ms.is_some() && most != 0 && playing >= most
}

/// The refusal of one more game to a bot account that [`plays_too_many`].
pub(super) fn playing_too_many(state: &AppState) -> BotApiError {
    BotApiError::BadRequest(format!(
        "this bot plays {} games at once already, as many as it may here (limits.bot_games_at_once)",
        state.config.limits.bot_games_at_once
    ))
}

/// A player as a challenge of `game` shows them.
fn party(account: &AccountRecord, game: GameKind) -> Party {
    let rating = account.ratings.iter().find(|rating| rating.game == game);
    Party {
        player: account.player_info(),
        rating: rating.map(|rating| rating.rating.round() as i64),
    }
}

/// The challenge `id`, still waiting for an answer, if `who` of it is the caller.
async fn pending(
    state: &AppState,
    id: &str,
    who: impl Fn(&Challenge) -> &Party,
    caller: &AccountRecord,
) -> Result<Challenge, BotApiError> {
    let challenge = state
        .challenges
        .get(&room_id(id)?)
        .await?
        .ok_or_else(|| BotApiError::NotFound(format!("no challenge has the id {id}")))?;
    if who(&challenge).player.player_id != caller.player.player_id {
        return Err(BotApiError::BadRequest(
            "this challenge is not yours to answer".to_owned(),
        ));
    }
    if challenge.status != ChallengeStatus::Created {
        return Err(BotApiError::BadRequest(
            "this challenge has been answered already".to_owned(),
        ));
    }
    Ok(challenge)
}

/// Sets a pending challenge's answer.
async fn answer(
    state: &AppState,
    challenge: &Challenge,
    status: ChallengeStatus,
) -> Result<Challenge, BotApiError> {
    state
        .challenges
        .settle(&challenge.id, status)
        .await?
        .ok_or_else(answered_meanwhile)
}

/// Opens `new_room` under `id` on this node, with a seat held for each of `players`: a
/// game the Bot API starts (an accepted challenge, a game against a house bot).
pub(super) async fn open_room(
    state: &AppState,
    id: &RoomId,
    new_room: NewRoom,
    players: impl IntoIterator<Item = (Seat, PlayerInfo)>,
) -> Result<(), BotApiError> {
    let id = id.clone();
    let room: RoomHandle = match &state.relay {
        Some(_) if !state.config.cluster.owns_rooms => {
            return Err(ClientError::new(
                ErrorCode::RoomUnreachable,
                "This server holds no rooms; send the Bot API's requests to one that does.",
            )
            .into());
        }
        Some(relay) => relay.open_here(Some(id), new_room, None).await?,
        None => state.lobby.create_as(&id, Fence::SINGLE, new_room, None)?,
    };
    for (seat, player) in players {
        let asked = player.ask(RoomCommand::Reserve { seat }, None);
        let caller = Caller {
            conn: new_conn_id(),
            sub: None,
            answer_by: None,
        };
        room.ask(asked, caller, Instant::now()).await?;
    }
    Ok(())
}

/// Tells both players of `challenge` its `news`.
fn tell_both(state: &AppState, challenge: &Challenge, news: ChallengeNews) {
    let event = BotEvent::Challenge(news, Box::new(challenge.clone()));
    for party in [&challenge.challenger, &challenge.dest] {
        state.events.send(&party.player.player_id, &event);
    }
}

/// The refusal of an answer to a challenge answered by another request meanwhile.
fn answered_meanwhile() -> BotApiError {
    BotApiError::BadRequest("this challenge was answered meanwhile".to_owned())
}
