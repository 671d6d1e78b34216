//! What a player reads when a room refuses them: each refusal of the room's rules, each
//! refused seat and each refused option, given its error code and its sentence here,
//! once, for every way into a room.

use parlor_room::Refusal;
use parlor_room::options::OptionError;
use parlor_room::seats::SeatSpecError;
use parlor_rules::games::MoveError;

use super::{ClientError, ErrorCode};

impl From<Refusal> for ClientError {
    fn from(refusal: Refusal) -> ClientError {
        let (code, sentence): (ErrorCode, String) = match refusal {
            Refusal::NotAPlayer => (
                ErrorCode::NotAPlayer,
                "You do not hold a seat in this room on this connection. Join a seat first."
                    .into(),
            ),
            Refusal::MoveAfterEnd => (
                ErrorCode::GameFinished,
                "This game is over; no more moves can be played.".into(),
            ),
            Refusal::RequestAfterEnd => {
                (ErrorCode::GameFinished, "This game is already over.".into())
            }
            Refusal::BotFinishingMove => (
                ErrorCode::NotYourTurn,
                "A bot is finishing this move for you; you play again from your next turn."
                    .into(),
            ),
            Refusal::MoveBeforeStart => (
                ErrorCode::NotYourTurn,
                "The game has not started yet: wait until both seats are filled.".into(),
            ),
            Refusal::NotYourTurn => (
                ErrorCode::NotYourTurn,
                "It is not your turn; wait for your opponent's move.".into(),
            ),
            Refusal::StaleMove { after, played } => (
                ErrorCode::StaleMove,
                format!(
                    "This move was chosen after {after} moves, but the game has {played}, so it was not played. Choose again from the latest state."
                ),
            ),
            Refusal::Move(error @ MoveError::Unparseable { .. }) => {
                (ErrorCode::BadMove, format!("{error}."))
            }
            Refusal::Move(error @ MoveError::Illegal { .. }) => (
                ErrorCode::IllegalMove,
                format!("{error}. The legal moves are listed in the latest state."),
            ),
            Refusal::Move(MoveError::GameOver) => {
                (ErrorCode::GameFinished, "This game is over.".into())
            }
            Refusal::OutOfTime => (
                ErrorCode::OutOfTime,
                "Your time ran out before this move arrived, so it was not played; the game ends on time."
                    .into(),
            ),
            Refusal::RequestBeforeStart => (
                ErrorCode::GameNotStarted,
                "The game has not started yet. Use leave to give up your seat.".into(),
            ),
            Refusal::NoDrawOffer => (
                ErrorCode::NoDrawOffer,
                "Your opponent has not offered a draw (or the offer lapsed when you moved)."
                    .into(),
            ),
            Refusal::OpponentPresent => (
                ErrorCode::OpponentPresent,
                "Your opponent is here (connected, or a bot plays for them), so there is nothing to claim; play on."
                    .into(),
            ),
            Refusal::TooEarlyToClaim { left_ms } => (
                ErrorCode::TooEarlyToClaim,
                format!(
                    "Your opponent may still come back: you can claim the game in {} s (their seat's claim_left_ms counts it down).",
                    left_ms.div_ceil(1000)
                ),
            ),
            Refusal::NoOpenSeat => (
                ErrorCode::SeatTaken,
                "No seat is open for a bot: the game has already started.".into(),
            ),
            Refusal::RematchBeforeEnd => (
                ErrorCode::GameNotFinished,
                "A rematch can be asked for once this game is over.".into(),
            ),
            Refusal::AlreadySeated { other } => (
                ErrorCode::AlreadySeated,
                format!(
                    "You already hold seat {} in this room; one player cannot take both seats.",
                    other.index()
                ),
            ),
            Refusal::SeatTaken { seat } => (
                ErrorCode::SeatTaken,
                format!(
                    "Seat {} is taken. Join the other seat if it is open, or watch.",
                    seat.index()
                ),
            ),
            Refusal::RoomFull { limit } => (
                ErrorCode::RoomFull,
                format!(
                    "This room already has {limit} spectators, as many as it takes. Try again later or watch another room."
                ),
            ),
            Refusal::ChatOff => (
                ErrorCode::BadChat,
                "Chat is turned off on this server.".into(),
            ),
            Refusal::NotInRoom => (
                ErrorCode::NotInRoom,
                "You neither play nor watch this room from this connection. Join or watch it first."
                    .into(),
            ),
            Refusal::ChatBeforeStart => (
                ErrorCode::GameNotStarted,
                "Chat opens once the game has started.".into(),
            ),
            Refusal::EmptyChat => (
                ErrorCode::BadChat,
                "Say something: the chat line is empty.".into(),
            ),
            Refusal::ChatTooLong { max_chars, chars } => (
                ErrorCode::BadChat,
                format!(
                    "A chat line is at most {max_chars} characters; this one has {chars}. Say it in shorter lines."
                ),
            ),
            Refusal::ChatNotOneLine => (
                ErrorCode::BadChat,
                "A chat line is one line of text, without control characters, line breaks or direction overrides."
                    .into(),
            ),
        };
        ClientError::new(code, sentence)
    }
}

impl From<SeatSpecError> for ClientError {
    fn from(error: SeatSpecError) -> ClientError {
        let sentence = match error {
            SeatSpecError::NotASeat(text) => format!(
                "\"{text}\" is not a seat; use \"open\", \"me\" or \"bot:<level>\" with level random, easy, medium or hard."
            ),
            SeatSpecError::NotTwo(count) => {
                format!("\"seats\" must list exactly two seats, not {count}.")
            }
            SeatSpecError::BothMe => {
                "You can take only one seat; make the other \"open\" or a bot.".to_owned()
            }
        };
        ClientError::new(ErrorCode::BadSeat, sentence)
    }
}

impl From<OptionError> for ClientError {
    fn from(error: OptionError) -> ClientError {
        let sentence = match error {
            OptionError::BotFillNotBool => {
                "Option \"bot_fill\" must be true or false.".to_owned()
            }
            OptionError::PrivateNotBool => "Option \"private\" must be true or false.".to_owned(),
            OptionError::TakeoverNotText => {
                "Option \"takeover\" must be a string: none, random, easy, medium or hard."
                    .to_owned()
            }
            OptionError::Takeover(why) => format!("Option \"takeover\": {why}."),
            OptionError::TimeControlUnread(why) => format!(
                "Option \"time_control\" is not a time control ({why}); use {{\"kind\":\"none\"}}, {{\"kind\":\"per_move\",\"per_move_ms\":N}} or {{\"kind\":\"fischer\",\"base_ms\":N,\"increment_ms\":N}}."
            ),
            OptionError::TimeControlRange(why) => format!("Option \"time_control\": {why}."),
            OptionError::StartNotText => "Option \"start\" must be a position written as a string in the game's own form (a FEN for chess, a PDN FEN for checkers, side:Ffox:Ggeese for Fox & Geese).".to_owned(),
            OptionError::Unknown(key) => format!(
                "There is no room option \"{key}\". Known options: {}.",
                parlor_room::RoomOptions::KNOWN.join(", ")
            ),
        };
        ClientError::new(ErrorCode::BadOption, sentence)
    }
}
