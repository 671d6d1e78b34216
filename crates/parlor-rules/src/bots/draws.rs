//! How a bot offered a draw judges the position: drawn only when its search proves that
//! neither side can win, or when so little is left on the board that neither side can
//! make progress and the evaluation is level. Anything else is still to be played for,
//! so the bot plays on (docs/BOTS.md, "Draw offers").

use super::search::analyse;
use super::{Evaluate, Limits};
use crate::games::Seat;

/// How far from level (in the evaluation's units: centipawns in chess, a man is 100 in
/// checkers) a position with few pieces left may be and still count as a dead draw.
pub const DEAD_DRAW_MARGIN: i32 = 50;

/// What a bot offered a draw makes of the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawView {
    /// The search followed every line to the end of the game: with best play by both
    /// sides, neither wins (tic-tac-toe, a forced draw within the search's horizon).
    Proven,
    /// Too few pieces left for either side to make progress (see
    /// [`Evaluate::few_pieces_left`]), and the search's value within
    /// [`DEAD_DRAW_MARGIN`] of level.
    Dead,
    /// Anything else: the game may still be won by one side; the value for the bot
    /// (positive is good for it).
    Open(i32),
}

impl DrawView {
    /// Whether a bot seeing the position so agrees to a draw.
    pub fn is_drawn(self) -> bool {
        matches!(self, DrawView::Proven | DrawView::Dead)
    }
}

/// How a bot in `seat` sees `game` when offered a draw, by a search within `limits`.
/// A finished game is [`DrawView::Open`] at 0: nothing is left to agree on.
pub fn judge_draw<G: Evaluate>(game: &G, seat: Seat, limits: &Limits) -> DrawView {
    let Some(to_move) = game.turn() else {
        return DrawView::Open(0);
    };
    let analysis = analyse(game, limits);
    let value = if to_move == seat {
        analysis.value
    } else {
        -analysis.value
    };
    if analysis.solved && value == 0 {
        DrawView::Proven
    } else if !analysis.solved
        && analysis.depth > 0
        && game.few_pieces_left()
        && value.abs() <= DEAD_DRAW_MARGIN
    {
        // Depth 0: the side to move had a single move and nothing was searched, so the
        // value says nothing about who stands better.
        DrawView::Dead
    } else {
        DrawView::Open(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Game;
    use crate::games::checkers::{Checkers, Settings};
    use crate::games::chess::Chess;
    use crate::games::tictactoe::TicTacToe;

    /// The draw judgement's own limits, without its deadline, so that a slow machine
    /// cannot cut a search short.
    const LIMITS: Limits = crate::catalog::DRAW_JUDGEMENT;

    fn chess(fen: &str) -> Chess {
        Chess::from_position(&(), fen).unwrap()
    }

    fn checkers(position: &str) -> Checkers {
        Checkers::from_position(&Settings::default(), position).unwrap()
    }

    fn tictactoe(moves: &[&str]) -> TicTacToe {
        let mut game = TicTacToe::new(&());
        for text in moves {
            let mv = game.parse_move(text).unwrap();
            game.play(&mv).unwrap();
        }
        game
    }

    #[test]
    fn the_opening_of_chess_is_not_a_draw_however_level() {
        let start = Chess::new(&());
        for seat in Seat::BOTH {
            assert!(!judge_draw(&start, seat, &LIMITS).is_drawn());
        }
    }

    #[test]
    fn a_solved_tic_tac_toe_draw_is_proven_and_a_forced_win_is_not() {
        // From the start, the whole game is more positions than a judgement may visit:
        // not proven, so not drawn. One move in, it is solved.
        let start = TicTacToe::new(&());
        assert_eq!(judge_draw(&start, Seat::Second, &LIMITS), DrawView::Open(0));
        let centre = tictactoe(&["4"]);
        assert_eq!(judge_draw(&centre, Seat::Second, &LIMITS), DrawView::Proven);
        // X in the centre, O in a corner, X opposite: best play draws.
        let level = tictactoe(&["4", "0", "8"]);
        assert_eq!(judge_draw(&level, Seat::Second, &LIMITS), DrawView::Proven);
        assert_eq!(judge_draw(&level, Seat::First, &LIMITS), DrawView::Proven);
        // O holds 0, 2 and 4 and threatens both 6 and 8: a win for O, a loss for X.
        let forced = tictactoe(&["1", "0", "5", "2", "7", "4"]);
        assert!(matches!(judge_draw(&forced, Seat::Second, &LIMITS), DrawView::Open(v) if v > 0));
        assert!(matches!(judge_draw(&forced, Seat::First, &LIMITS), DrawView::Open(v) if v < 0));
    }

    #[test]
    fn a_bare_level_chess_ending_is_dead_and_an_extra_rook_is_not() {
        let rooks = chess("8/6k1/4r3/8/8/3R4/1K6/8 w - - 0 1");
        assert_eq!(judge_draw(&rooks, Seat::Second, &LIMITS), DrawView::Dead);
        let rook_more = chess("8/6k1/8/8/8/3R4/1K6/8 w - - 0 1");
        assert!(!judge_draw(&rook_more, Seat::First, &LIMITS).is_drawn());
        assert!(!judge_draw(&rook_more, Seat::Second, &LIMITS).is_drawn());
        let pawns = chess("4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 1");
        assert!(
            !judge_draw(&pawns, Seat::Second, &LIMITS).is_drawn(),
            "pawns may still queen"
        );
    }

    #[test]
    fn a_single_forced_reply_is_not_taken_for_a_level_position() {
        // Black, in check from the queen, has one move (Kg8): a queen against a rook,
        // few pieces but far from level, whichever side the bot is.
        let forced = chess("7k/8/7Q/8/8/2K5/8/r7 b - - 0 1");
        assert_eq!(forced.legal_moves().len(), 1);
        for seat in Seat::BOTH {
            assert!(!judge_draw(&forced, seat, &LIMITS).is_drawn());
        }
    }

    #[test]
    fn a_king_each_in_checkers_is_dead_and_two_against_one_is_not() {
        let level = checkers("B:WK27:BK5");
        assert!(judge_draw(&level, Seat::First, &LIMITS).is_drawn());
        let ahead = checkers("B:WK27,K28:BK5");
        assert!(!judge_draw(&ahead, Seat::First, &LIMITS).is_drawn());
        assert!(!judge_draw(&ahead, Seat::Second, &LIMITS).is_drawn());
    }
}
