//! The games a room can host, behind one object-safe, text-in/text-out interface, so
//! rooms, sessions and storage need no generics.

use rand::RngCore;

use crate::bots::{self, BotLevel, DrawView, Evaluate, Limits, Memory};
use crate::games::checkers::Checkers;
use crate::games::chess::Chess;
use crate::games::fox_geese::FoxGeese;
use crate::games::tictactoe::TicTacToe;
use crate::games::{BoardView, Game, GameKind, MoveError, Outcome, PositionError, Seat};

/// The search a bot runs before answering a draw offer: a few thousand positions, enough
/// to find short forced wins and to solve tic-tac-toe once a move has been played. It
/// runs on the bot pool, never on a room's task, and stops at [`DRAW_JUDGEMENT_TIME`]
/// whatever the position costs per node.
pub const DRAW_JUDGEMENT: Limits = Limits {
    max_depth: 9,
    max_nodes: 5_000,
    deadline: None,
};

/// The longest a draw judgement may think, however slow the position's move generation.
pub const DRAW_JUDGEMENT_TIME: std::time::Duration = std::time::Duration::from_millis(250);

/// The draw judgement's limits for a search starting now on `clock` (the caller's):
/// [`DRAW_JUDGEMENT`] with its deadline.
pub fn draw_judgement(clock: fn() -> std::time::Instant) -> Limits {
    Limits {
        deadline: Some(crate::bots::Deadline::after(DRAW_JUDGEMENT_TIME, clock)),
        ..DRAW_JUDGEMENT
    }
}

/// The rule settings of every game that has any, as the server's configuration gives
/// them (`[checkers]`, `[fox_geese]`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields, default))]
pub struct GameSettings {
    /// English checkers' settings.
    pub checkers: crate::games::checkers::Settings,
    /// Fox & Geese's settings.
    pub fox_geese: crate::games::fox_geese::Settings,
}

/// A game in progress, seen through text: moves go in and come out in the game's notation.
pub trait AnyGame: Send + Sync {
    /// Which game this is.
    fn kind(&self) -> GameKind;
    /// The seat to move, or `None` once the game is over.
    fn turn(&self) -> Option<Seat>;
    /// The legal moves of the side to move, in notation.
    fn legal_moves(&self) -> Vec<String>;
    /// Parses and plays a move; returns it as recorded. Unchanged on error.
    fn play(&mut self, text: &str) -> Result<PlayedMove, MoveError>;
    /// The result once the rules have ended the game.
    fn outcome(&self) -> Option<Outcome>;
    /// Whether `seat` could still win (see [`Game::can_win`]).
    fn can_win(&self, seat: Seat) -> bool;
    /// How a bot in `seat` offered a draw sees the position, by a short search within
    /// `limits` (normally [`draw_judgement`]): drawn only if the search proves it, or if
    /// few pieces are left and it is level (see [`bots::judge_draw`]). Run on the bot
    /// pool.
    fn draw_view(&self, seat: Seat, limits: &Limits) -> DrawView;
    /// The position in the game's standard text form.
    fn position(&self) -> String;
    /// The structured board for clients.
    fn board(&self) -> BoardView;
    /// The board's cells alone, as one-letter piece codes (see [`Game::cells`]).
    fn cells(&self) -> Vec<Option<char>>;
    /// A bot's move at `level` within `limits` for the side to move, in notation, starting
    /// from what earlier searches left in `memory`; `None` once over.
    fn bot_move(
        &self,
        level: BotLevel,
        limits: &Limits,
        memory: &mut Memory,
        rng: &mut dyn RngCore,
    ) -> Option<String>;
    /// An independent copy, e.g. for a bot to think on another thread.
    fn clone_box(&self) -> Box<dyn AnyGame>;
}

impl<G: Evaluate> AnyGame for G {
    fn kind(&self) -> GameKind {
        G::KIND
    }

    fn turn(&self) -> Option<Seat> {
        Game::turn(self)
    }

    fn legal_moves(&self) -> Vec<String> {
        Game::legal_moves(self)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn play(&mut self, text: &str) -> Result<PlayedMove, MoveError> {
        let mv = self.parse_move(text)?;
        let display = self.describe(&mv);
        Game::play(self, &mv)?;
        Ok(PlayedMove {
            notation: mv.to_string(),
            display,
        })
    }

    fn outcome(&self) -> Option<Outcome> {
        Game::outcome(self)
    }

    fn can_win(&self, seat: Seat) -> bool {
        Game::can_win(self, seat)
    }

    fn draw_view(&self, seat: Seat, limits: &Limits) -> DrawView {
        bots::judge_draw(self, seat, limits)
    }

    fn position(&self) -> String {
        Game::position(self)
    }

    fn board(&self) -> BoardView {
        Game::board(self)
    }

    fn cells(&self) -> Vec<Option<char>> {
        Game::cells(self)
    }

    fn bot_move(
        &self,
        level: BotLevel,
        limits: &Limits,
        memory: &mut Memory,
        rng: &mut dyn RngCore,
    ) -> Option<String> {
        bots::choose_move(self, level, limits, memory, rng).map(|mv| mv.to_string())
    }

    fn clone_box(&self) -> Box<dyn AnyGame> {
        Box::new(self.clone())
    }
}

/// A move that has been played, in the two forms a room records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    /// The move in canonical notation, as clients send it and the store keeps it.
    pub notation: String,
    /// The move as players write it (SAN in chess; see [`Game::describe`]).
    pub display: String,
}

/// One position of a replayed game.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ReplayedPosition {
    /// How many moves led to it (0 for the start).
    pub ply: usize,
    /// The position in the game's standard text form.
    pub position: String,
    /// The board for drawing, as in `state.board`.
    pub board: BoardView,
}

/// A stored game's moves played again from its start, for replaying it without rules.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Replay {
    /// The start and the position after each move that replayed.
    pub positions: Vec<ReplayedPosition>,
    /// Each move that replayed, as players write it.
    pub displays: Vec<String>,
}

/// Plays `moves` (canonical notation) from `start` (the standard start if `None`) under
/// the configured rules. Stops at the first move that no longer replays (a stored game
/// from before a change of rule settings), so the result may be shorter than `moves`.
pub fn replay<'a>(
    kind: GameKind,
    settings: &GameSettings,
    start: Option<&str>,
    moves: impl IntoIterator<Item = &'a str>,
) -> Result<Replay, PositionError> {
    let mut game = new_game(kind, settings, start)?;
    let snapshot = |game: &dyn AnyGame, ply| ReplayedPosition {
        ply,
        position: game.position(),
        board: game.board(),
    };
    let mut positions = vec![snapshot(game.as_ref(), 0)];
    let mut displays = Vec::new();
    for text in moves {
        let Ok(played) = game.play(text) else {
            break;
        };
        displays.push(played.display);
        positions.push(snapshot(game.as_ref(), displays.len()));
    }
    Ok(Replay {
        positions,
        displays,
    })
}

/// A new game under the configured rules, at its standard start or at `start` (the
/// game's standard position text).
pub fn new_game(
    kind: GameKind,
    settings: &GameSettings,
    start: Option<&str>,
) -> Result<Box<dyn AnyGame>, PositionError> {
    match kind {
        GameKind::TicTacToe => build::<TicTacToe>(&(), start),
        GameKind::Checkers => build::<Checkers>(&settings.checkers, start),
        GameKind::Chess => build::<Chess>(&(), start),
        GameKind::FoxGeese => build::<FoxGeese>(&settings.fox_geese, start),
    }
}

fn build<G: Evaluate>(
    settings: &G::Settings,
    start: Option<&str>,
) -> Result<Box<dyn AnyGame>, PositionError> {
    Ok(Box::new(match start {
        Some(position) => G::from_position(settings, position)?,
        None => G::new(settings),
    }))
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use proptest::prelude::*;

    use super::*;
    use crate::bots::Strength;
    use crate::games::laws::TestRng;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Rooms created from random reachable positions: random play from the start,
        /// the position written out and read back as `options.start` would be. Every
        /// such position is accepted and replays the same moves (the server's
        /// `state_size` tests bound what such a position costs on the wire).
        #[test]
        fn rooms_from_reachable_positions_replay_the_same_moves(
            game_index in 0..GameKind::ALL.len(),
            seed in any::<u64>(),
            plies in 0usize..200,
        ) {
            let id = GameKind::ALL[game_index];
            let settings = GameSettings::default();
            let mut game = new_game(id, &settings, None).unwrap();
            let mut rng = TestRng::new(seed);
            for _ in 0..plies {
                let moves = game.legal_moves();
                if moves.is_empty() {
                    break;
                }
                game.play(&moves[rng.below(moves.len())]).unwrap();
            }
            let position = game.position();
            let room = new_game(id, &settings, Some(&position));
            if matches!(room, Err(PositionError::Unsupported)) {
                // Tic-tac-toe always starts from its standard position.
                return Ok(());
            }
            prop_assert!(room.is_ok(), "{} refused its own position {}: {:?}", id, position, room.err());
            let room = room.unwrap();
            prop_assert_eq!(room.position(), position.clone());
            if game.turn().is_some() {
                prop_assert_eq!(room.legal_moves(), game.legal_moves());
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The cells a room compares before and after each move are the board's, at
        /// every ply of random games of every kind.
        #[test]
        fn cells_are_the_boards_cells_at_every_ply(
            game_index in 0..GameKind::ALL.len(),
            seed in any::<u64>(),
        ) {
            let mut game = new_game(GameKind::ALL[game_index], &GameSettings::default(), None).unwrap();
            let mut rng = TestRng::new(seed);
            loop {
                let BoardView::Grid { rows, cols, cells, .. } = game.board();
                let codes = game.cells();
                prop_assert_eq!(codes.len(), usize::from(rows) * usize::from(cols));
                prop_assert_eq!(codes, cells);
                let moves = game.legal_moves();
                if moves.is_empty() || rng.below(200) == 0 {
                    break;
                }
                game.play(&moves[rng.below(moves.len())]).unwrap();
            }
        }
    }

    #[test]
    fn every_listed_game_can_be_created() {
        for &kind in GameKind::ALL {
            let game = new_game(kind, &GameSettings::default(), None).unwrap();
            assert_eq!(game.kind(), kind);
            assert_eq!(game.turn(), Some(Seat::First));
        }
    }

    #[test]
    fn a_replay_gives_every_position_and_the_moves_as_players_write_them() {
        let chess = replay(
            GameKind::Chess,
            &GameSettings::default(),
            None,
            ["e2e4", "e7e5", "g1f3"],
        )
        .unwrap();
        assert_eq!(chess.displays, ["e4", "e5", "Nf3"]);
        let plies: Vec<usize> = chess.positions.iter().map(|p| p.ply).collect();
        assert_eq!(plies, [0, 1, 2, 3]);
        assert_eq!(
            chess.positions[3].position,
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
        );

        // A move that no longer replays ends the replay there.
        let cut = replay(
            GameKind::TicTacToe,
            &GameSettings::default(),
            None,
            ["4", "4", "0"],
        )
        .unwrap();
        assert_eq!(cut.displays, ["4"]);
        assert_eq!(cut.positions.len(), 2);
    }

    #[test]
    fn a_forced_win_is_no_draw_though_the_static_evaluation_sees_none() {
        // O holds 0, 2 and 4 and threatens both 6 and 8; X, to move, cannot stop both.
        let mut game = new_game(GameKind::TicTacToe, &GameSettings::default(), None).unwrap();
        for cell in ["1", "0", "5", "2", "7", "4"] {
            game.play(cell).unwrap();
        }
        let limits = draw_judgement(Instant::now);
        assert!(matches!(game.draw_view(Seat::Second, &limits), DrawView::Open(v) if v > 0));
        assert!(matches!(game.draw_view(Seat::First, &limits), DrawView::Open(v) if v < 0));
        let mut even = new_game(GameKind::TicTacToe, &GameSettings::default(), None).unwrap();
        even.play("4").unwrap();
        assert_eq!(even.draw_view(Seat::Second, &limits), DrawView::Proven);
    }

    #[test]
    fn every_bot_level_plays_legal_moves_in_every_game() {
        let settings = GameSettings::default();
        for &id in GameKind::ALL {
            for &level in BotLevel::ALL {
                // Hard's full budget is slow in a debug build on the big games; its search
                // is the same code as medium's, which runs here on every game.
                if level == BotLevel::Hard && id != GameKind::TicTacToe {
                    continue;
                }
                let mut game = new_game(id, &settings, None).unwrap();
                let mut rng = rand::rng();
                for _ in 0..12 {
                    if game.turn().is_none() {
                        break;
                    }
                    let mv = game
                        .bot_move(
                            level,
                            &bots::limits_for(
                                level,
                                Strength::MEDIUM,
                                Strength::HARD,
                                Instant::now,
                            ),
                            &mut Memory::default(),
                            &mut rng,
                        )
                        .unwrap();
                    assert!(game.legal_moves().contains(&mv), "{id} {level}: {mv}");
                    game.play(&mv).unwrap();
                }
            }
        }
    }

    #[test]
    fn tictactoe_bots_play_to_the_end() {
        let settings = GameSettings::default();
        for &level in BotLevel::ALL {
            let mut game = new_game(GameKind::TicTacToe, &settings, None).unwrap();
            let mut rng = rand::rng();
            while game.turn().is_some() {
                let mv = game
                    .bot_move(
                        level,
                        &bots::limits_for(level, Strength::MEDIUM, Strength::HARD, Instant::now),
                        &mut Memory::default(),
                        &mut rng,
                    )
                    .unwrap();
                game.play(&mv).unwrap();
            }
            assert!(game.outcome().is_some());
            assert!(
                game.bot_move(
                    level,
                    &bots::limits_for(level, Strength::MEDIUM, Strength::HARD, Instant::now),
                    &mut Memory::default(),
                    &mut rng
                )
                .is_none()
            );
        }
    }
}
