//! A PGN writer: the seven-tag roster, an optional start position and the moves in SAN.
//!
//! Pure text in, text out: the stored UCI moves are replayed with shakmaty to write them
//! in SAN, so a stored game that does not replay is reported rather than exported.

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Color, EnPassantMode, Position};

use crate::games::Outcome;
use crate::games::Seat;
use crate::games::export::{push_movetext, push_tag};

/// The seven-tag roster, written in this order. Values are free text except `date` and
/// `result`, whose forms PGN fixes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnTags {
    /// The name of the event or match (`"Parlor casual game"`).
    pub event: String,
    /// Where the game was played (a server name or URL).
    pub site: String,
    /// The start date as `YYYY.MM.DD`, with `?` for unknown digits (`"2025.??.??"`).
    pub date: String,
    /// The round within the event, `"-"` when there is none.
    pub round: String,
    /// The player of the White pieces.
    pub white: String,
    /// The player of the Black pieces.
    pub black: String,
    /// `"1-0"`, `"0-1"`, `"1/2-1/2"` or `"*"` (unfinished); see [`result_token`].
    pub result: String,
    /// The `TimeControl` tag's value (`"60+0"`, `"1/3"` for three seconds a move), written
    /// after the roster when given.
    pub time_control: Option<String>,
}

impl Default for PgnTags {
    /// PGN's placeholders for unknown values, and an unfinished result.
    fn default() -> Self {
        Self {
            event: "?".to_owned(),
            site: "?".to_owned(),
            date: "????.??.??".to_owned(),
            round: "?".to_owned(),
            white: "?".to_owned(),
            black: "?".to_owned(),
            result: "*".to_owned(),
            time_control: None,
        }
    }
}

/// Why a game could not be written as PGN.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PgnError {
    /// The start position is not a legal chess position in FEN.
    #[error("the start position is not a valid FEN: {0}")]
    InvalidFen(String),
    /// A stored move is not a legal UCI move where it was played.
    #[error("move {ply} (`{text}`) is not a legal UCI move in its position")]
    IllegalMove {
        /// The move's position in the list, counting from 1.
        ply: usize,
        /// The move as stored.
        text: String,
    },
    /// The result tag is not one of PGN's four result tokens.
    #[error("`{0}` is not a PGN result: use 1-0, 0-1, 1/2-1/2 or *")]
    InvalidResult(String),
    /// The date tag is not `YYYY.MM.DD` (with `?` for unknown digits).
    #[error("`{0}` is not a PGN date: use YYYY.MM.DD, with ? for unknown digits")]
    InvalidDate(String),
}

/// The PGN result token for a game's outcome: `"1-0"` when White (seat 0) won, `"0-1"`
/// when Black won, `"1/2-1/2"` for a draw and `"*"` while the game is unfinished.
pub fn result_token(outcome: Option<Outcome>) -> &'static str {
    match outcome {
        None => "*",
        Some(Outcome { winner: None, .. }) => "1/2-1/2",
        Some(Outcome {
            winner: Some(Seat::First),
            ..
        }) => "1-0",
        Some(Outcome {
            winner: Some(Seat::Second),
            ..
        }) => "0-1",
    }
}

/// Writes a game as PGN in export format: the seven-tag roster, then `SetUp "1"` and
/// `FEN` when the game began from `start_fen`, a blank line, and the movetext.
///
/// `moves` are the game's moves in UCI as stored; they are replayed from the start and
/// written in SAN with move numbers (`1. e4 e5 2. Nf3`, or `3... Nc6 4. Bb5` when Black
/// moves first), in lines shorter than 80 characters, ending with the result token and
/// a newline. Tag values escape `\` and `"`; control characters become spaces.
///
/// `clocks_ms` may give, for each move, the mover's remaining time just after it; each
/// known one is written after its move as a `{ [%clk H:MM:SS] }` comment.
pub fn pgn(
    tags: &PgnTags,
    start_fen: Option<&str>,
    moves: &[String],
    clocks_ms: &[Option<u64>],
) -> Result<String, PgnError> {
    if !matches!(tags.result.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
        return Err(PgnError::InvalidResult(tags.result.clone()));
    }
    if !is_pgn_date(&tags.date) {
        return Err(PgnError::InvalidDate(tags.date.clone()));
    }

    let mut pos = match start_fen {
        None => shakmaty::Chess::new(),
        Some(text) => Fen::from_ascii(text.as_bytes())
            .map_err(|err| PgnError::InvalidFen(err.to_string()))?
            .into_position(CastlingMode::Standard)
            .map_err(|err| PgnError::InvalidFen(err.to_string()))?,
    };

    let mut out = String::new();
    for (name, value) in [
        ("Event", &tags.event),
        ("Site", &tags.site),
        ("Date", &tags.date),
        ("Round", &tags.round),
        ("White", &tags.white),
        ("Black", &tags.black),
        ("Result", &tags.result),
    ] {
        push_tag(&mut out, name, value);
    }
    if let Some(control) = &tags.time_control {
        push_tag(&mut out, "TimeControl", control);
    }
    if start_fen.is_some() {
        push_tag(&mut out, "SetUp", "1");
        let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
        push_tag(&mut out, "FEN", &fen);
    }
    out.push('\n');

    let mut tokens = Vec::with_capacity(moves.len() * 3 / 2 + 2);
    for (index, text) in moves.iter().enumerate() {
        let illegal = || PgnError::IllegalMove {
            ply: index + 1,
            text: text.clone(),
        };
        let m = UciMove::from_ascii(text.as_bytes())
            .map_err(|_| illegal())?
            .to_move(&pos)
            .map_err(|_| illegal())?;
        let number = pos.fullmoves();
        match pos.turn() {
            Color::White => tokens.push(format!("{number}.")),
            Color::Black if index == 0 => tokens.push(format!("{number}...")),
            Color::Black => {}
        }
        tokens.push(SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string());
        if let Some(Some(ms)) = clocks_ms.get(index) {
            tokens.push(clock_comment(*ms));
        }
    }
    tokens.push(tags.result.clone());

    push_movetext(&mut out, tokens);
    Ok(out)
}

/// A `{ [%clk H:MM:SS] }` comment for a remaining time in ms (whole seconds, rounded down).
fn clock_comment(ms: u64) -> String {
    let seconds = ms / 1000;
    format!(
        "{{ [%clk {}:{:02}:{:02}] }}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// Whether `date` is `YYYY.MM.DD` with digits or `?`.
fn is_pgn_date(date: &str) -> bool {
    date.len() == 10
        && date.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'.',
            _ => b.is_ascii_digit() || b == b'?',
        })
}

#[cfg(test)]
pub(super) mod tests {
    use std::ops::ControlFlow;

    use shakmaty::san::SanPlus;

    use super::*;

    fn uci(moves: &[&str]) -> Vec<String> {
        moves.iter().map(|m| (*m).to_owned()).collect()
    }

    fn tags() -> PgnTags {
        PgnTags {
            event: "Parlor casual game".to_owned(),
            site: "parlor.example".to_owned(),
            date: "2025.06.01".to_owned(),
            round: "-".to_owned(),
            white: "alice".to_owned(),
            black: "bob".to_owned(),
            result: "1/2-1/2".to_owned(),
            time_control: None,
        }
    }

    /// Reads PGN back with shakmaty's SAN parser, replaying the movetext from the FEN
    /// tag (or the standard start); returns the final FEN.
    pub(crate) fn replay_movetext(text: &str) -> String {
        let mut reader = pgn_reader::Reader::new(text.as_bytes());
        reader.read_game(&mut Replay).unwrap().unwrap()
    }

    /// Replays a game with pgn-reader, a real PGN parser: from the `FEN` tag when there is
    /// one, playing each SAN move (comments such as `[%clk]` are skipped), to the final FEN.
    struct Replay;

    impl pgn_reader::Visitor for Replay {
        type Tags = Option<String>;
        type Movetext = shakmaty::Chess;
        type Output = String;

        fn begin_tags(&mut self) -> ControlFlow<String, Option<String>> {
            ControlFlow::Continue(None)
        }

        fn tag(
            &mut self,
            tags: &mut Option<String>,
            name: &[u8],
            value: pgn_reader::RawTag<'_>,
        ) -> ControlFlow<String> {
            if name == b"FEN" {
                *tags = Some(value.decode_utf8_lossy().into_owned());
            }
            ControlFlow::Continue(())
        }

        fn begin_movetext(&mut self, fen: Option<String>) -> ControlFlow<String, shakmaty::Chess> {
            ControlFlow::Continue(match fen {
                Some(fen) => Fen::from_ascii(fen.as_bytes())
                    .unwrap()
                    .into_position(CastlingMode::Standard)
                    .unwrap(),
                None => shakmaty::Chess::new(),
            })
        }

        fn san(&mut self, pos: &mut shakmaty::Chess, san: SanPlus) -> ControlFlow<String> {
            let m = san.san.to_move(pos).unwrap();
            pos.play_unchecked(m);
            ControlFlow::Continue(())
        }

        fn end_game(&mut self, pos: shakmaty::Chess) -> String {
            Fen::from_position(&pos, EnPassantMode::Legal).to_string()
        }
    }

    #[test]
    fn a_short_game_round_trips_through_san() {
        let moves = uci(&[
            "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5c6", "d7c6", "e1g1", "f7f6", "d2d4",
            "e5d4", "f3d4", "c6c5", "d4b3", "d8d1", "f1d1",
        ]);
        let text = pgn(&tags(), None, &moves, &[]).unwrap();
        assert!(text.starts_with(
            "[Event \"Parlor casual game\"]\n[Site \"parlor.example\"]\n\
             [Date \"2025.06.01\"]\n[Round \"-\"]\n[White \"alice\"]\n[Black \"bob\"]\n\
             [Result \"1/2-1/2\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O f6"
        ));
        assert!(text.ends_with("Qxd1 9. Rxd1 1/2-1/2\n"));
        assert!(!text.contains("SetUp"));
        for line in text.lines() {
            assert!(line.len() < 80, "{line:?}");
        }
        assert!(text.lines().count() > 9, "movetext wraps:\n{text}");

        let mut pos = shakmaty::Chess::new();
        for m in &moves {
            let m = UciMove::from_ascii(m.as_bytes())
                .unwrap()
                .to_move(&pos)
                .unwrap();
            pos.play_unchecked(m);
        }
        assert_eq!(
            replay_movetext(&text),
            Fen::from_position(&pos, EnPassantMode::Legal).to_string()
        );
    }

    #[test]
    fn a_game_from_a_fen_writes_setup_and_continues_black_numbering() {
        let start = "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 3";
        let text = pgn(
            &PgnTags::default(),
            Some(start),
            &uci(&["e8g8", "e1c1", "f8f1"]),
            &[],
        )
        .unwrap();
        assert_eq!(
            text,
            "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n\
             [White \"?\"]\n[Black \"?\"]\n[Result \"*\"]\n[SetUp \"1\"]\n\
             [FEN \"r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 3\"]\n\n\
             3... O-O 4. O-O-O Rf1 *\n"
        );
        assert_eq!(replay_movetext(&text), "r5k1/8/8/8/8/8/8/2KR1r1R w - - 3 5");
    }

    #[test]
    fn checks_and_mates_carry_their_suffixes() {
        let text = pgn(
            &PgnTags {
                result: "0-1".to_owned(),
                ..PgnTags::default()
            },
            None,
            &uci(&["f2f3", "e7e5", "g2g4", "d8h4"]),
            &[],
        )
        .unwrap();
        assert!(text.ends_with("\n\n1. f3 e5 2. g4 Qh4# 0-1\n"), "{text}");
    }

    #[test]
    fn tag_values_are_escaped() {
        let text = pgn(
            &PgnTags {
                white: "Bob \"The Hammer\" \\o/".to_owned(),
                black: "line\nbreak".to_owned(),
                ..PgnTags::default()
            },
            None,
            &[],
            &[],
        )
        .unwrap();
        assert!(text.contains("[White \"Bob \\\"The Hammer\\\" \\\\o/\"]\n"));
        assert!(text.contains("[Black \"line break\"]\n"));
        assert!(text.ends_with("[Result \"*\"]\n\n*\n"));
    }

    #[test]
    fn bad_input_is_reported() {
        let tags = PgnTags::default();
        assert!(matches!(
            pgn(&tags, Some("not a fen"), &[], &[]),
            Err(PgnError::InvalidFen(_))
        ));
        assert!(matches!(
            pgn(&tags, Some("8/8/8/8/8/8/8/8 w - - 0 1"), &[], &[]),
            Err(PgnError::InvalidFen(_))
        ));
        assert_eq!(
            pgn(&tags, None, &uci(&["e2e4", "e2e4"]), &[]),
            Err(PgnError::IllegalMove {
                ply: 2,
                text: "e2e4".to_owned()
            })
        );
        assert_eq!(
            pgn(&tags, None, &uci(&["Nf3"]), &[]),
            Err(PgnError::IllegalMove {
                ply: 1,
                text: "Nf3".to_owned()
            })
        );
        for result in ["", "1-1", "draw", "½-½"] {
            let bad = PgnTags {
                result: result.to_owned(),
                ..PgnTags::default()
            };
            assert_eq!(
                pgn(&bad, None, &[], &[]),
                Err(PgnError::InvalidResult(result.to_owned()))
            );
        }
        for date in ["2025-06-01", "2025.6.1", "", "2025.06.01 "] {
            let bad = PgnTags {
                date: date.to_owned(),
                ..PgnTags::default()
            };
            assert_eq!(
                pgn(&bad, None, &[], &[]),
                Err(PgnError::InvalidDate(date.to_owned()))
            );
        }
    }

    #[test]
    fn result_tokens_follow_the_winner() {
        use crate::games::EndReason;
        let won = |seat| {
            Some(Outcome {
                winner: Some(seat),
                reason: EndReason::Checkmate,
            })
        };
        assert_eq!(result_token(None), "*");
        assert_eq!(result_token(won(Seat::First)), "1-0");
        assert_eq!(result_token(won(Seat::Second)), "0-1");
        assert_eq!(
            result_token(Some(Outcome {
                winner: None,
                reason: EndReason::Stalemate
            })),
            "1/2-1/2"
        );
    }
}
