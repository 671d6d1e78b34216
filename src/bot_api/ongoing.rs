//! A game a player plays, as the Bot API's `gameStart` and `nowPlaying` show it and the
//! WebSocket's `challenge_accepted` names it: made from the room's last publication, or
//! from the challenge just accepted.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::challenges::Challenge;
use super::game_view::{speed, variant};
use crate::protocol::RoomSummary;
use parlor_room::{PlayerId, RoomId, SeatKind, TimeControl};
use parlor_rules::GameKind;
use parlor_rules::bots::BotLevel;
use parlor_rules::games::Seat;

/// A game a player plays, as its `gameStart` and `nowPlaying` entry show it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Ongoing {
    /// The game's room (its id is the Bot API's game id).
    pub(crate) room: RoomId,
    game: GameKind,
    time_control: TimeControl,
    /// The player's seat.
    pub(crate) seat: Seat,
    /// The opponent's id, name and rating.
    opponent: (Option<PlayerId>, Option<String>, Option<i64>),
    moves: usize,
    rated: bool,
}

impl Ongoing {
    /// `player`'s game in `room`, as the room last published it.
    pub(super) fn in_room(room: &RoomSummary, player: &PlayerId) -> Ongoing {
        let seat = room
            .seats
            .iter()
            .find(|seat| seat.player_id.as_ref() == Some(player))
            .map_or(Seat::First, |seat| seat.seat);
        let opponent = room.seats.iter().find(|other| other.seat != seat);
        Ongoing {
            room: room.room.clone(),
            game: room.game,
            time_control: room.time_control,
            seat,
            opponent: (
                opponent.and_then(|seat| seat.player_id.clone()),
                opponent.and_then(|seat| seat.name.clone()),
                opponent.and_then(|seat| seat.rating),
            ),
            moves: room.moves,
            rated: room.seats.iter().all(|seat| seat.kind == SeatKind::Human),
        }
    }

    /// The game of `challenge`, just accepted, for the player of `seat`.
    pub(super) fn accepted(challenge: &Challenge, seat: Seat) -> Ongoing {
        let opponent = challenge.party(seat.other());
        Ongoing {
            room: challenge.id.clone(),
            game: challenge.game,
            time_control: challenge.time_control,
            seat,
            opponent: (
                Some(opponent.player.player_id.clone()),
                Some(opponent.player.name.clone()),
                opponent.rating,
            ),
            moves: 0,
            rated: challenge.rated,
        }
    }

    /// A game just opened against Parlor's own bot at `level`, for the player of `seat`:
    /// unrated, as every game against a house bot is.
    pub(super) fn against_house_bot(
        room: RoomId,
        game: GameKind,
        time_control: TimeControl,
        seat: Seat,
        level: BotLevel,
    ) -> Ongoing {
        Ongoing {
            room,
            game,
            time_control,
            seat,
            opponent: (None, Some(SeatKind::Bot(level).to_string()), None),
            moves: 0,
            rated: false,
        }
    }

    /// The game as Lichess summarises one.
    pub(super) fn view(&self, base: &str) -> Value {
        let seconds_left = match self.time_control {
            TimeControl::None => None,
            TimeControl::PerMove { per_move_ms } => Some(per_move_ms / 1000),
            TimeControl::Fischer { base_ms, .. } => Some(base_ms / 1000),
        };
        // Turns alternate from seat 0 in a game from the usual start.
        let to_move = if self.moves.is_multiple_of(2) {
            Seat::First
        } else {
            Seat::Second
        };
        let speed = speed(self.time_control);
        let (id, username, rating) = &self.opponent;
        json!({
            "id": self.room,
            "gameId": self.room,
            "fullId": self.room,
            "url": format!("{base}/{}", self.room),
            "color": if self.seat == Seat::First { "white" } else { "black" },
            "fen": "startpos",
            "lastMove": "",
            "source": "friend",
            "status": {"id": 20, "name": "started"},
            "variant": variant(self.game),
            "speed": speed,
            "perf": speed,
            "rated": self.rated,
            "hasMoved": self.moves > 0,
            "opponent": {"id": id, "username": username, "rating": rating},
            "isMyTurn": to_move == self.seat,
            "secondsLeft": seconds_left,
            "compat": {"bot": self.game == GameKind::Chess, "board": true},
        })
    }

    /// The `gameStart` event of the game.
    pub(super) fn game_start(&self, base: &str) -> String {
        json!({"type": "gameStart", "game": self.view(base)}).to_string()
    }
}
