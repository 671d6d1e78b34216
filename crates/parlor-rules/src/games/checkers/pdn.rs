//! PDN export of English checkers games: the tag pairs and the numbered movetext.

use super::{Checkers, Settings};
use crate::games::export::{push_movetext, push_tag};
use crate::games::{Game, Seat};

/// The tag pairs of an exported game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdnTags {
    /// The event (`"Parlor game"`).
    pub event: String,
    /// Where it was played.
    pub site: String,
    /// The start date, `YYYY.MM.DD`.
    pub date: String,
    /// The round, `-` when there is none.
    pub round: String,
    /// The player of the Black pieces (seat 0).
    pub black: String,
    /// The player of the White pieces (seat 1).
    pub white: String,
    /// The winner (`None`: a draw).
    pub winner: Option<Seat>,
}

/// The `Result` tag's value, PDN-style with White's score first: `2-0` White won, `0-2`
/// Black won, `1-1` a draw.
fn result_token(winner: Option<Seat>) -> &'static str {
    match winner {
        Some(Seat::Second) => "2-0",
        Some(Seat::First) => "0-2",
        None => "1-1",
    }
}

/// Writes a finished game as PDN: the tags (with `GameType "21"`, English draughts, and
/// `FEN` when it began from `start`), then the moves as stored (PDN notation already),
/// numbered from Black's first move (`1. 11-15 23-19 2. ...`, or `1... 23-19` when White
/// moved first), ending with the result. `start` must be a valid PDN FEN when given.
pub fn pdn(tags: &PdnTags, start: Option<&str>, moves: &[String]) -> Option<String> {
    let first_mover = match start {
        Some(position) => Checkers::from_position(&Settings::default(), position)
            .ok()?
            .turn()
            .unwrap_or(Seat::First),
        None => Seat::First,
    };
    let result = result_token(tags.winner);
    let mut out = String::new();
    for (name, value) in [
        ("Event", tags.event.as_str()),
        ("Site", &tags.site),
        ("Date", &tags.date),
        ("Round", &tags.round),
        ("Black", &tags.black),
        ("White", &tags.white),
        ("Result", result),
        ("GameType", "21"),
    ] {
        push_tag(&mut out, name, value);
    }
    if let Some(position) = start {
        push_tag(&mut out, "FEN", position);
    }
    out.push('\n');
    let mut tokens = Vec::with_capacity(moves.len() * 3 / 2 + 1);
    // Ply 0 is the first mover's; number a move pair from Black's side.
    let offset = usize::from(first_mover == Seat::Second);
    for (ply, mv) in moves.iter().enumerate() {
        let index = ply + offset;
        if index % 2 == 0 {
            tokens.push(format!("{}.", index / 2 + 1));
        } else if ply == 0 {
            tokens.push(format!("{}...", index / 2 + 1));
        }
        tokens.push(mv.clone());
    }
    tokens.push(result.to_owned());
    push_movetext(&mut out, tokens);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(winner: Option<Seat>) -> PdnTags {
        PdnTags {
            event: "Parlor game".to_owned(),
            site: "Parlor".to_owned(),
            date: "2026.11.22".to_owned(),
            round: "-".to_owned(),
            black: "Ann \"A\"".to_owned(),
            white: "Bob".to_owned(),
            winner,
        }
    }

    #[test]
    fn a_game_from_the_start_numbers_from_black() {
        let moves = ["11-15", "23-19", "8-11"].map(str::to_owned);
        let text = pdn(&tags(Some(Seat::First)), None, &moves).unwrap();
        assert!(text.starts_with("[Event \"Parlor game\"]\n"), "{text}");
        assert!(
            text.contains(
                "[Black \"Ann \\\"A\\\"\"]\n[White \"Bob\"]\n[Result \"0-2\"]\n[GameType \"21\"]\n"
            ),
            "{text}"
        );
        assert!(text.ends_with("\n\n1. 11-15 23-19 2. 8-11 0-2\n"), "{text}");
    }

    #[test]
    fn a_game_from_a_position_with_white_to_move_starts_with_an_ellipsis() {
        let moves = ["32-27", "15x22x29"].map(str::to_owned);
        let text = pdn(&tags(None), Some("W:W18,25,32:B15"), &moves).unwrap();
        assert!(text.contains("[FEN \"W:W18,25,32:B15\"]\n"), "{text}");
        assert!(text.ends_with("\n\n1... 32-27 2. 15x22x29 1-1\n"), "{text}");
        assert!(pdn(&tags(None), Some("not a position"), &moves).is_none());
    }
}
