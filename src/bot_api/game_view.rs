//! A room's game as a Lichess game stream shows it: `gameFull` first, then a
//! `gameState` whenever the moves, a draw offer or the status changed, with Lichess's
//! units (ms in clocks), names (`variant`, `speed`, `status`) and colours (`white` is
//! seat 0, `black` seat 1). Pure: frames in, lines out.

use serde::Serialize;

use super::frames::{SeatFrame, StateFrame};
use parlor_room::{PlayerId, RoomId, TimeControl};
use parlor_rules::GameKind;
use parlor_rules::games::{EndReason, Seat};
use serde_json::json;

/// What Lichess sends as the time left without a clock (`i32::MAX` ms).
const NO_CLOCK_MS: u64 = 2_147_483_647;

/// The chess start position, which Lichess calls `startpos`.
const CHESS_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A game's variant as Lichess names one.
#[derive(Clone, Serialize)]
pub(super) struct Variant {
    key: &'static str,
    name: &'static str,
    short: &'static str,
}

/// Lichess's name for `game`: chess is `standard`; the others go by their own ids.
pub(super) fn variant(game: GameKind) -> Variant {
    let (key, name, short) = match game {
        GameKind::Chess => ("standard", "Standard", "Std"),
        GameKind::Checkers => ("checkers", "Checkers", "Chk"),
        GameKind::TicTacToe => ("tictactoe", "Tic-tac-toe", "TTT"),
        GameKind::FoxGeese => ("fox_geese", "Fox & Geese", "F&G"),
    };
    Variant { key, name, short }
}

/// Lichess's speed of a time control (estimated time = start + 40 increments, in
/// seconds; `correspondence` without a clock).
pub(super) fn speed(time_control: TimeControl) -> &'static str {
    let estimate_ms = match time_control {
        TimeControl::None => return "correspondence",
        TimeControl::PerMove { per_move_ms } => 40 * per_move_ms,
        TimeControl::Fischer {
            base_ms,
            increment_ms,
        } => base_ms + 40 * increment_ms,
    };
    match estimate_ms / 1000 {
        0..30 => "ultraBullet",
        30..180 => "bullet",
        180..480 => "blitz",
        480..1500 => "rapid",
        _ => "classical",
    }
}

/// The clock as `gameFull` shows it: start and increment, ms; none without a clock.
#[derive(Serialize)]
struct Clock {
    initial: u64,
    increment: u64,
}

/// The state of a game as Lichess streams it.
#[derive(Clone, Serialize, PartialEq)]
pub(super) struct GameState {
    #[serde(rename = "type")]
    kind: &'static str,
    /// Every move of the game, space-separated, in the game's notation (UCI in chess).
    moves: String,
    wtime: u64,
    btime: u64,
    winc: u64,
    binc: u64,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    winner: Option<&'static str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    wdraw: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    bdraw: bool,
}

/// A player as `gameFull` names one.
#[derive(Serialize)]
struct Player {
    id: String,
    name: String,
    title: Option<&'static str>,
    rating: Option<i64>,
}

/// The first line of a game stream.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GameFull<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    id: &'a RoomId,
    variant: Variant,
    #[serde(skip_serializing_if = "Option::is_none")]
    clock: Option<Clock>,
    speed: &'static str,
    perf: Perf,
    rated: bool,
    created_at: i64,
    white: Player,
    black: Player,
    initial_fen: String,
    state: GameState,
}

/// The rating category of a game, by name.
#[derive(Serialize)]
struct Perf {
    name: &'static str,
}

/// A game stream's view of its game: the moves so far (the room sends the whole list
/// once, in the snapshot after `joined`, then one move per `state`), and what was last
/// sent, so that only changes are sent again.
#[derive(Default)]
pub(super) struct GameTracker {
    moves: Vec<String>,
    last: Option<GameState>,
    /// Whether the bot was last told its opponent is gone.
    opponent_gone: bool,
}

impl GameTracker {
    /// How many moves the stream has shown.
    pub(super) fn moves_shown(&self) -> u32 {
        u32::try_from(self.moves.len()).unwrap_or(u32::MAX)
    }

    /// The line `state` calls for, if any: `gameFull` for the first, then a
    /// `gameState` when something a bot acts on changed. `created_at_ms` is now.
    pub(super) fn line(
        &mut self,
        room: &RoomId,
        state: &StateFrame,
        created_at_ms: i64,
    ) -> Option<String> {
        match (&state.history, &state.last_move) {
            (Some(history), _) => self.moves.clone_from(history),
            (None, Some(last)) if state.moves as usize == self.moves.len() + 1 => {
                self.moves.push(last.text.clone())
            }
            // A new game in the room (a rematch) starts its list again.
            (None, _) if state.moves == 0 => self.moves.clear(),
            (None, _) => {}
        }
        let game_state = self.game_state(state);
        let line = if self.last.is_none() {
            let full = GameFull {
                kind: "gameFull",
                id: room,
                variant: variant(state.game),
                clock: clock(state.time_control),
                speed: speed(state.time_control),
                perf: Perf {
                    name: perf_name(state.game, state.time_control),
                },
                // Only games between two people (bot accounts are people here; the
                // house bots are not) are rated (PROTOCOL.md §13.4).
                rated: state.seats.iter().all(|seat| seat.kind == "human"),
                created_at: created_at_ms,
                white: player(&state.seats[0]),
                black: player(&state.seats[1]),
                initial_fen: self.initial_fen(state),
                state: game_state.clone(),
            };
            serde_json::to_string(&full).ok()
        } else if self.last.as_ref() != Some(&game_state) {
            serde_json::to_string(&game_state).ok()
        } else {
            None
        };
        self.last = Some(game_state);
        line
    }

    /// The `opponentGone` line `state` calls for, for the seated bot `bot`: when its
    /// opponent (a person) has gone away from the game in progress, with the seconds
    /// until the game may be claimed, and when they are back. (The server ends an
    /// abandoned game itself once the reconnect grace is over, §9.6.)
    pub(super) fn absence_line(&mut self, state: &StateFrame, bot: &PlayerId) -> Option<String> {
        let seated = state
            .seats
            .iter()
            .any(|seat| seat.player_id.as_ref() == Some(bot));
        let opponent = state
            .seats
            .iter()
            .find(|seat| seat.player_id.as_ref() != Some(bot))
            .filter(|_| seated)?;
        let claim_in = opponent
            .claim_left_ms
            .filter(|_| state.status == "playing" && !opponent.connected);
        let gone = claim_in.is_some();
        if gone == self.opponent_gone {
            return None;
        }
        self.opponent_gone = gone;
        let line = match claim_in {
            Some(ms) => {
                json!({"type": "opponentGone", "gone": true, "claimWinInSeconds": ms.div_ceil(1000)})
            }
            None => json!({"type": "opponentGone", "gone": false}),
        };
        Some(line.to_string())
    }

    /// The `gameFinish` event of the finished game `state` shows, for the seated bot
    /// `bot`: Lichess's game summary with the final status and the winner.
    pub(super) fn finish_event(
        &self,
        room: &RoomId,
        state: &StateFrame,
        bot: &PlayerId,
    ) -> Option<String> {
        let last = self.last.as_ref().filter(|last| last.status != "started")?;
        let seat = state
            .seats
            .iter()
            .position(|seat| seat.player_id.as_ref() == Some(bot))?;
        let opponent = &state.seats[1 - seat];
        let game = json!({
            "id": room,
            "gameId": room,
            "fullId": room,
            "color": if seat == 0 { "white" } else { "black" },
            "status": {"id": status_id(last.status), "name": last.status},
            "winner": last.winner,
            "variant": variant(state.game),
            "speed": speed(state.time_control),
            "rated": state.seats.iter().all(|seat| seat.kind == "human"),
            "opponent": {
                "id": opponent.player_id,
                "username": opponent.name,
                "rating": opponent.rating,
            },
        });
        Some(json!({"type": "gameFinish", "game": game}).to_string())
    }

    /// Whether the last state sent was a finished game's.
    pub(super) fn finished(&self) -> bool {
        self.last
            .as_ref()
            .is_some_and(|state| state.status != "started")
    }

    fn game_state(&self, state: &StateFrame) -> GameState {
        let increment = match state.time_control {
            TimeControl::Fischer { increment_ms, .. } => increment_ms,
            TimeControl::None | TimeControl::PerMove { .. } => 0,
        };
        let [wtime, btime] = state
            .clocks
            .as_ref()
            .map_or([NO_CLOCK_MS; 2], |clocks| clocks.remaining_ms);
        let finished = state.status == "finished";
        let result = state.result.as_ref().filter(|_| finished);
        GameState {
            kind: "gameState",
            moves: self.moves.join(" "),
            wtime,
            btime,
            winc: increment,
            binc: increment,
            status: result.map_or("started", |result| status(result.reason)),
            winner: result.and_then(|result| result.winner).map(colour),
            wdraw: !finished && state.draw_offer == Some(Seat::First),
            bdraw: !finished && state.draw_offer == Some(Seat::Second),
        }
    }

    /// The position the game started from: the position itself when no move has been
    /// played yet (unless it is chess's start, `startpos`), else `startpos`.
    fn initial_fen(&self, state: &StateFrame) -> String {
        let chess_start = state.game == GameKind::Chess && state.position == CHESS_START;
        if self.moves.is_empty() && !chess_start {
            state.position.clone()
        } else {
            "startpos".to_owned()
        }
    }
}

fn clock(time_control: TimeControl) -> Option<Clock> {
    match time_control {
        TimeControl::Fischer {
            base_ms,
            increment_ms,
        } => Some(Clock {
            initial: base_ms,
            increment: increment_ms,
        }),
        TimeControl::PerMove { per_move_ms } => Some(Clock {
            initial: per_move_ms,
            increment: 0,
        }),
        TimeControl::None => None,
    }
}

/// The rating category's name: chess's speed, or the game's own name.
fn perf_name(game: GameKind, time_control: TimeControl) -> &'static str {
    match (game, speed(time_control)) {
        (GameKind::Chess, "ultraBullet") => "UltraBullet",
        (GameKind::Chess, "bullet") => "Bullet",
        (GameKind::Chess, "blitz") => "Blitz",
        (GameKind::Chess, "rapid") => "Rapid",
        (GameKind::Chess, "classical") => "Classical",
        (GameKind::Chess, _) => "Correspondence",
        (game, _) => variant(game).name,
    }
}

fn player(seat: &SeatFrame) -> Player {
    let bot = seat.kind.starts_with("bot:");
    Player {
        id: seat
            .player_id
            .as_ref()
            .map_or_else(|| seat.kind.clone(), ToString::to_string),
        name: seat.name.clone().unwrap_or_default(),
        title: bot.then_some("BOT"),
        rating: seat.rating,
    }
}

fn colour(seat: Seat) -> &'static str {
    match seat {
        Seat::First => "white",
        Seat::Second => "black",
    }
}

/// Lichess's number for a status name.
fn status_id(status: &str) -> u32 {
    match status {
        "aborted" => 25,
        "mate" => 30,
        "resign" => 31,
        "stalemate" => 32,
        "timeout" => 33,
        "draw" => 34,
        "outoftime" => 35,
        "variantEnd" => 60,
        _ => 20,
    }
}

/// Lichess's status name for a game that ended for `reason`.
pub(super) fn status(reason: EndReason) -> &'static str {
    match reason {
        EndReason::Checkmate => "mate",
        EndReason::Stalemate => "stalemate",
        EndReason::Resigned => "resign",
        EndReason::Abandoned => "timeout",
        EndReason::Timeout | EndReason::TimeoutVsInsufficientMaterial => "outoftime",
        EndReason::Aborted => "aborted",
        EndReason::InsufficientMaterial
        | EndReason::ThreefoldRepetition
        | EndReason::FiftyMoves
        | EndReason::FortyMoves
        | EndReason::QuietMoves
        | EndReason::BoardFull
        | EndReason::DrawAgreed
        | EndReason::DrawClaimed => "draw",
        EndReason::ThreeInARow
        | EndReason::NoMoves
        | EndReason::FoxTrapped
        | EndReason::GeeseStuck
        | EndReason::GeeseBelowThreshold => "variantEnd",
    }
}
