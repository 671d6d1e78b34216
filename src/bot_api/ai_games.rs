//! `POST /api/challenge/ai`: a game against Parlor's own bots, started at once, as
//! Lichess's "challenge the AI". This is how a bot account plays the house bots: it
//! never takes a seat as a person on the WebSocket.

use std::time::SystemTime;

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Map, Value, json};

use super::body;
use super::caller;
use super::challenge_routes::{game_and_clock, open_room, playing_too_many, plays_too_many};
use super::challenges::Colour;
use super::event_stream::base_url;
use super::events::BotEvent;
use super::game_view::{speed, variant};
use super::ongoing::Ongoing;
use super::reply::BotApiError;
use crate::AppState;
use crate::lobby::NewRoom;
use crate::room::unix_ms;
use parlor_room::{RoomOptions, SeatSpec};
use parlor_rules::bots::BotLevel;
use parlor_rules::games::Seat;

/// `POST /api/challenge/ai`: opens a game between the caller and Parlor's bot at
/// `level` (Lichess's 1 to 8, or a level's name), in `variant` with `clock.limit` and
/// `clock.increment` seconds, the caller playing `color`. The game starts at once
/// (`gameStart` on the caller's event stream) and is never rated.
pub(super) async fn create(
    state: web::Data<AppState>,
    request: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, BotApiError> {
    let account = caller::budgeted(&state, &request).await?;
    let fields = body::fields(&request, &body)?;
    let level = level(&fields)?;
    let (game, time_control) = game_and_clock(&fields)?;
    if body::text(&fields, "fen").is_some() {
        return Err(BotApiError::BadRequest(
            "Parlor starts every game against its bots from the game's usual start; leave fen out"
                .to_owned(),
        ));
    }
    let seat = match body::text(&fields, "color").map(|name| (name, Colour::named(name))) {
        None | Some((_, Some(Colour::Random))) if rand::random::<bool>() => Seat::First,
        None | Some((_, Some(Colour::Random))) => Seat::Second,
        Some((_, Some(Colour::White))) => Seat::First,
        Some((_, Some(Colour::Black))) => Seat::Second,
        Some((name, None)) => {
            return Err(BotApiError::BadRequest(format!(
                "color is white, black or random, not {name}"
            )));
        }
    };
    if plays_too_many(&state, &account) {
        return Err(playing_too_many(&state));
    }
    let mut options = RoomOptions::clocked(time_control);
    options.private = true;
    options.bot_fill = Some(false);
    let mut seats = [SeatSpec::Open, SeatSpec::Open];
    seats[seat.other().index()] = SeatSpec::Bot(level);
    state.lobby.check_start(game, &options)?;
    let id = state.lobby.fresh_id();
    let new_room = NewRoom {
        game,
        seats,
        options,
    };
    open_room(&state, &id, new_room, [(seat, account.player_info())]).await?;
    let ongoing = Ongoing::against_house_bot(id.clone(), game, time_control, seat, level);
    let start = BotEvent::GameStart(Box::new(ongoing));
    state.events.send(&account.player.player_id, &start);
    let speed = speed(time_control);
    Ok(HttpResponse::Ok().json(json!({
        "id": id,
        "fullId": id,
        "url": format!("{}/{id}", base_url(&request)),
        "variant": variant(game),
        "speed": speed,
        "perf": speed,
        "rated": false,
        "fen": "startpos",
        "turns": 0,
        "source": "ai",
        "status": {"id": 20, "name": "started"},
        "createdAt": unix_ms(SystemTime::now()),
        "player": if seat == Seat::First { "white" } else { "black" },
        "opponent": format!("bot:{level}"),
    })))
}

/// The house bot's level that `level` asks for: Lichess's 1 to 8 (1 `random`, 2 `easy`,
/// 3 and 4 `medium`, 5 to 8 `hard`; 8 when absent, as Lichess's clients send) or the
/// level's own name.
fn level(fields: &Map<String, Value>) -> Result<BotLevel, BotApiError> {
    let refused = |given: &str| {
        BotApiError::BadRequest(format!(
            "level is 1 to 8 (as Lichess's) or one of random, easy, medium, hard; not {given}"
        ))
    };
    let text = match fields.get("level") {
        None => return Ok(BotLevel::Hard),
        Some(Value::Number(number)) => number.to_string(),
        Some(Value::String(text)) => text.trim().to_owned(),
        Some(other) => return Err(refused(&other.to_string())),
    };
    match text.parse::<u8>() {
        Ok(1) => Ok(BotLevel::Random),
        Ok(2) => Ok(BotLevel::Easy),
        Ok(3..=4) => Ok(BotLevel::Medium),
        Ok(5..=8) => Ok(BotLevel::Hard),
        Ok(_) => Err(refused(&text)),
        Err(_) => text.parse().map_err(|_| refused(&text)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_level(level: Value) -> Map<String, Value> {
        Map::from_iter([("level".to_owned(), level)])
    }

    #[test]
    fn levels_are_lichess_numbers_or_names() {
        assert_eq!(level(&Map::new()).ok(), Some(BotLevel::Hard));
        assert_eq!(level(&with_level(json!(1))).ok(), Some(BotLevel::Random));
        assert_eq!(level(&with_level(json!("2"))).ok(), Some(BotLevel::Easy));
        assert_eq!(level(&with_level(json!(4))).ok(), Some(BotLevel::Medium));
        assert_eq!(level(&with_level(json!(8))).ok(), Some(BotLevel::Hard));
        assert_eq!(
            level(&with_level(json!("medium"))).ok(),
            Some(BotLevel::Medium)
        );
        assert!(level(&with_level(json!(0))).is_err());
        assert!(level(&with_level(json!(9))).is_err());
        assert!(level(&with_level(json!("genius"))).is_err());
        assert!(level(&with_level(json!(true))).is_err());
    }
}
