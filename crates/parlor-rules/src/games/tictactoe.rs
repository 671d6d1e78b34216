//! Tic-tac-toe: 3x3, X (seat 0) moves first, three in a row wins, a full board draws.
//!
//! A move is the cell index `"0"`..`"8"`, row-major from the top-left. The position is
//! nine characters of `X`, `O` or `.` in cell order.

use super::{BoardView, EndReason, Game, GameKind, Labels, MoveError, Outcome, Seat};

/// The eight lines of three cells that win (cells numbered 0 to 8, row by row).
pub const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

const NOTATION: &str = "a cell index from \"0\" to \"8\", row by row from the top-left";

/// A tic-tac-toe position: each cell empty or holding the mark of a seat.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TicTacToe {
    cells: [Option<Seat>; 9],
}

/// A tic-tac-toe move: the index of the cell to mark, 0..=8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cell(u8);

impl Cell {
    /// The cell's index, 0..=8.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

impl std::fmt::Display for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // A cell is one digit: written as a char, not through integer formatting (a
        // room writes every legal move at every move).
        match char::from_digit(u32::from(self.0), 10) {
            Some(digit) => std::fmt::Write::write_char(f, digit),
            None => write!(f, "{}", self.0),
        }
    }
}

impl TicTacToe {
    fn marks(&self) -> usize {
        self.cells.iter().flatten().count()
    }

    fn line_winner(&self) -> Option<Seat> {
        LINES.iter().find_map(|[a, b, c]| match self.cells[*a] {
            Some(seat) if self.cells[*b] == Some(seat) && self.cells[*c] == Some(seat) => {
                Some(seat)
            }
            _ => None,
        })
    }

    fn mark(seat: Seat) -> char {
        match seat {
            Seat::First => 'X',
            Seat::Second => 'O',
        }
    }
}

impl Game for TicTacToe {
    type Move = Cell;
    type Settings = ();

    const KIND: GameKind = GameKind::TicTacToe;

    fn new(_settings: &()) -> Self {
        Self::default()
    }

    fn turn(&self) -> Option<Seat> {
        if self.outcome().is_some() {
            None
        } else if self.marks().is_multiple_of(2) {
            Some(Seat::First)
        } else {
            Some(Seat::Second)
        }
    }

    fn legal_moves(&self) -> Vec<Cell> {
        if self.outcome().is_some() {
            return Vec::new();
        }
        (0u8..9)
            .filter(|&i| self.cells[usize::from(i)].is_none())
            .map(Cell)
            .collect()
    }

    fn parse_move(&self, text: &str) -> Result<Cell, MoveError> {
        match text.as_bytes() {
            [digit @ b'0'..=b'8'] => Ok(Cell(digit - b'0')),
            _ => Err(MoveError::Unparseable {
                text: text.to_owned(),
                expected: NOTATION,
            }),
        }
    }

    fn play(&mut self, mv: &Cell) -> Result<(), MoveError> {
        let seat = self.turn().ok_or(MoveError::GameOver)?;
        let cell = &mut self.cells[mv.index()];
        if cell.is_some() {
            return Err(MoveError::Illegal {
                text: mv.to_string(),
                why: "that cell is already marked",
            });
        }
        *cell = Some(seat);
        Ok(())
    }

    fn outcome(&self) -> Option<Outcome> {
        if let Some(winner) = self.line_winner() {
            Some(Outcome {
                winner: Some(winner),
                reason: EndReason::ThreeInARow,
            })
        } else if self.marks() == 9 {
            Some(Outcome {
                winner: None,
                reason: EndReason::BoardFull,
            })
        } else {
            None
        }
    }

    fn position_hash(&self) -> u64 {
        // Base-3 digits of the cells: a perfect hash (3^9 < 2^15); the side to move
        // follows from the number of marks.
        self.cells.iter().fold(0, |acc, cell| {
            acc * 3
                + match cell {
                    None => 0,
                    Some(Seat::First) => 1,
                    Some(Seat::Second) => 2,
                }
        })
    }

    fn position(&self) -> String {
        self.cells
            .iter()
            .map(|cell| cell.map_or('.', Self::mark))
            .collect()
    }

    fn board(&self) -> BoardView {
        static LABELS: Labels = Labels::new();
        let labels = LABELS.get(|| (0..9).map(|i| Some(i.to_string())).collect());
        BoardView::grid(3, 3, Game::cells(self), labels)
    }

    fn cells(&self) -> Vec<Option<char>> {
        self.cells.iter().map(|cell| cell.map(Self::mark)).collect()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use proptest::prelude::*;

    use super::*;
    use crate::games::{laws, perft};

    fn play_all(moves: &[&str]) -> TicTacToe {
        let mut game = TicTacToe::new(&());
        for text in moves {
            let mv = game.parse_move(text).unwrap();
            game.play(&mv).unwrap();
        }
        game
    }

    /// The game after the moves `indices` pick (see [`laws::play_indices`]), and who made them.
    fn play_indices(indices: &[usize]) -> (TicTacToe, Vec<Seat>) {
        let mut game = TicTacToe::new(&());
        let movers = laws::play_indices(&mut game, indices);
        (game, movers)
    }

    fn count_games(game: &TicTacToe, positions: &mut HashSet<TicTacToe>) -> u64 {
        positions.insert(game.clone());
        if game.outcome().is_some() {
            return 1;
        }
        game.legal_moves()
            .iter()
            .map(|mv| {
                let mut next = game.clone();
                next.play(mv).unwrap();
                count_games(&next, positions)
            })
            .sum()
    }

    #[test]
    fn there_are_255168_games_and_5478_positions() {
        let mut positions = HashSet::new();
        assert_eq!(count_games(&TicTacToe::new(&()), &mut positions), 255_168);
        assert_eq!(positions.len(), 5_478);
    }

    #[test]
    fn perft_matches_the_published_sequence_counts() {
        let start = TicTacToe::new(&());
        let expected = [
            1, 9, 72, 504, 3_024, 15_120, 54_720, 148_176, 200_448, 127_872,
        ];
        for (depth, count) in expected.into_iter().enumerate() {
            assert_eq!(perft(&start, depth as u32), count, "depth {depth}");
        }
    }

    #[test]
    fn a_row_a_column_and_a_diagonal_win() {
        for (moves, winner) in [
            (&["0", "3", "1", "4", "2"][..], Seat::First),
            (&["0", "1", "3", "4", "8", "7"][..], Seat::Second),
            (&["0", "1", "4", "2", "8"][..], Seat::First),
        ] {
            let game = play_all(moves);
            assert_eq!(
                game.outcome(),
                Some(Outcome {
                    winner: Some(winner),
                    reason: EndReason::ThreeInARow
                })
            );
            assert_eq!(game.turn(), None);
            assert!(game.legal_moves().is_empty());
        }
    }

    #[test]
    fn a_full_board_without_a_line_is_a_draw() {
        let game = play_all(&["0", "1", "2", "4", "3", "5", "7", "6", "8"]);
        assert_eq!(
            game.outcome(),
            Some(Outcome {
                winner: None,
                reason: EndReason::BoardFull
            })
        );
        assert_eq!(game.position(), "XOXXOOOXX");
    }

    #[test]
    fn notation_and_views_match_the_protocol() {
        let game = play_all(&["4", "0"]);
        assert_eq!(game.position(), "O...X....");
        let BoardView::Grid {
            rows,
            cols,
            cells,
            labels,
        } = game.board();
        assert_eq!(labels[8].as_deref(), Some("8"));
        assert_eq!((rows, cols), (3, 3));
        assert_eq!(cells[0], Some('O'));
        assert_eq!(cells[4], Some('X'));
        assert_eq!(cells[1], None);
        for bad in ["9", "-1", "", "04", " 4", "a", "4.0"] {
            assert!(matches!(
                game.parse_move(bad),
                Err(MoveError::Unparseable { .. })
            ));
        }
    }

    #[test]
    fn marking_a_taken_cell_or_playing_after_the_end_changes_nothing() {
        let mut game = play_all(&["4"]);
        let before = game.clone();
        assert!(matches!(
            game.play(&Cell(4)),
            Err(MoveError::Illegal { .. })
        ));
        assert_eq!(game, before);

        let mut over = play_all(&["0", "3", "1", "4", "2"]);
        let before = over.clone();
        assert_eq!(over.play(&Cell(8)), Err(MoveError::GameOver));
        assert_eq!(over, before);
    }

    proptest! {
        #[test]
        fn never_finished_before_move_5(indices in prop::collection::vec(any::<usize>(), 0..5)) {
            let (game, _) = play_indices(&indices);
            prop_assert!(game.outcome().is_none());
        }

        #[test]
        fn always_finished_by_move_9(indices in prop::collection::vec(any::<usize>(), 9)) {
            let (game, movers) = play_indices(&indices);
            prop_assert!(game.outcome().is_some());
            prop_assert!(movers.len() >= 5 && movers.len() <= 9);
        }

        #[test]
        fn seats_alternate_starting_with_seat_0(indices in prop::collection::vec(any::<usize>(), 0..10)) {
            let (_, movers) = play_indices(&indices);
            laws::seats_alternate(&movers)?;
        }

        #[test]
        fn every_listed_move_plays_and_unlisted_ones_change_nothing(
            indices in prop::collection::vec(any::<usize>(), 0..10),
        ) {
            let (game, _) = play_indices(&indices);
            laws::listed_moves_play(&game)?;
            laws::unlisted_moves_change_nothing(&game, (0u8..9).map(Cell))?;
            laws::finished_means_no_moves(&game, &Cell(0))?;
        }
    }
}
