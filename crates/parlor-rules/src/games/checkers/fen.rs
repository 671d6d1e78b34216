//! PDN FEN: the side to move, then each colour's squares, `K` marking a king:
//! `B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12`.

use super::board::{Board, Piece};
use super::notation::parse_square;
use crate::games::Seat;

/// The most pieces a side can have: play only ever removes pieces.
const MAX_PIECES: u32 = 12;

/// The colour letter of a seat in FEN.
fn letter(seat: Seat) -> char {
    match seat {
        Seat::First => 'B',
        Seat::Second => 'W',
    }
}

/// The colour name of a seat, for messages.
fn colour(seat: Seat) -> &'static str {
    match seat {
        Seat::First => "Black",
        Seat::Second => "White",
    }
}

/// The canonical FEN: side to move, White's then Black's squares ascending.
pub(super) fn format(board: &Board, to_move: Seat) -> String {
    format!(
        "{}:W{}:B{}",
        letter(to_move),
        pieces(board, Seat::Second),
        pieces(board, Seat::First)
    )
}

/// One colour's squares, comma-separated and ascending, `K` before a king.
fn pieces(board: &Board, seat: Seat) -> String {
    let entries: Vec<String> = (0..32u8)
        .filter_map(|square| {
            let piece = board.piece_at(square).filter(|piece| piece.seat == seat)?;
            Some(format!(
                "{}{}",
                if piece.king { "K" } else { "" },
                square + 1
            ))
        })
        .collect();
    entries.join(",")
}

/// Reads FEN, tolerating either order of the colour sections, ranges like `1-12`,
/// spaces and a trailing period. The error says what is wrong.
pub(super) fn parse(text: &str) -> Result<(Board, Seat), String> {
    let text = text.trim();
    let text = text.strip_suffix('.').unwrap_or(text);
    let mut fields = text.split(':').map(str::trim);
    let to_move = match fields.next() {
        Some("B") => Seat::First,
        Some("W") => Seat::Second,
        _ => {
            return Err(
                "no side to move: the text must start with `B` or `W` and a colon, as in \
                 `B:W21,22:B1,2`"
                    .to_owned(),
            );
        }
    };
    let mut board = Board::EMPTY;
    let mut seen = [false; 2];
    for field in fields {
        let (seat, list) = section(field)?;
        if std::mem::replace(&mut seen[seat.index()], true) {
            return Err(format!("{} has two piece sections", colour(seat)));
        }
        add_pieces(&mut board, seat, list)?;
    }
    if let Some(seat) = Seat::BOTH.into_iter().find(|seat| !seen[seat.index()]) {
        return Err(format!(
            "no section for {}'s pieces (`{}` followed by its squares, possibly none)",
            colour(seat),
            letter(seat)
        ));
    }
    check_reachable(&board)?;
    Ok((board, to_move))
}

/// Splits a section into its colour and its list of squares.
fn section(field: &str) -> Result<(Seat, &str), String> {
    let seat = match field.chars().next() {
        Some('B') => Seat::First,
        Some('W') => Seat::Second,
        _ => {
            return Err(format!(
                "`{field}` is not a piece section: it must start with `W` or `B`"
            ));
        }
    };
    Ok((seat, field[1..].trim()))
}

/// Puts the pieces of a comma-separated list (`K` prefixes and ranges allowed).
fn add_pieces(board: &mut Board, seat: Seat, list: &str) -> Result<(), String> {
    if list.is_empty() {
        return Ok(());
    }
    for entry in list.split(',').map(str::trim) {
        let (king, squares) = match entry.strip_prefix('K') {
            Some(rest) => (true, rest.trim()),
            None => (false, entry),
        };
        let (first, last) = match squares.split_once('-') {
            Some((first, last)) => (square(first.trim())?, square(last.trim())?),
            None => (square(squares)?, square(squares)?),
        };
        if first > last {
            return Err(format!("the range `{entry}` runs backwards"));
        }
        for index in first..=last {
            if board.piece_at(index).is_some() {
                return Err(format!("square {} is listed twice", index + 1));
            }
            board.put(index, Piece { seat, king });
        }
    }
    Ok(())
}

/// A square number as an index, or an error naming the bad text.
fn square(text: &str) -> Result<u8, String> {
    parse_square(text).ok_or_else(|| {
        if text.is_empty() {
            "an empty entry in a list of squares".to_owned()
        } else {
            format!("`{text}` is not a square: squares are numbered 1 to 32")
        }
    })
}

/// Refuses piece sets no game can reach, which the rules would mishandle.
fn check_reachable(board: &Board) -> Result<(), String> {
    for seat in Seat::BOTH {
        if board.count(seat) > MAX_PIECES {
            return Err(format!(
                "{} has {} pieces; a side has at most {MAX_PIECES}",
                colour(seat),
                board.count(seat)
            ));
        }
        if board.has_uncrowned_man_on_far_row(seat) {
            return Err(format!(
                "a {} man stands on the row where it would have been crowned; mark it `K`",
                colour(seat)
            ));
        }
    }
    Ok(())
}
