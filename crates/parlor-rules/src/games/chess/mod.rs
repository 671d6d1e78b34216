//! Chess under the FIDE Laws, as an adapter over the [`shakmaty`] move generator.
//!
//! White is seat 0. Moves are written in UCI with castling as the king's move (`e2e4`,
//! `e1g1`, `e7e8q`); [`Game::parse_move`] also reads SAN (`Nf3`, `exd5`, `O-O`,
//! `e8=Q`). The position is a FEN.
//!
//! Checkmate, stalemate and insufficient material end the game as in the Laws. Unlike
//! over-the-board play, where a player must claim them, threefold repetition and the
//! fifty-move rule end the game automatically: online nobody is there to claim, and a
//! game between bots must be sure to end.
//!
//! [`pgn()`] writes a finished (or unfinished) game as PGN.

mod pgn;

pub use pgn::{PgnError, PgnTags, pgn, result_token};

use std::fmt;
use std::sync::OnceLock;

use shakmaty::fen::Fen;
use shakmaty::san::{San, SanError, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{
    Bitboard, CastlingMode, Color, EnPassantMode, File, Move, Position, Rank, Role, Square,
};

use super::{
    BoardView, EndReason, Game, GameKind, Labels, MoveError, Outcome, PositionError, Seat,
};

/// What [`Game::parse_move`] accepts, for [`MoveError::Unparseable`].
const NOTATION: &str = "UCI such as e2e4, e7e8q or e1g1 (castling), \
    or SAN such as Nf3, exd5, O-O, O-O-O or e8=Q";

/// The reason given for an illegal move when no more specific one applies.
const NOT_LEGAL: &str = "not a legal move in this position";

/// The half-moves without a capture or pawn move that draw the game (fifty by each side).
const FIFTY_MOVES: u32 = 100;

/// A chess game: the position plus what the draw rules need to remember.
#[derive(Clone, Debug)]
pub struct Chess {
    /// The position, with castling rights, en passant square and move counters.
    pos: shakmaty::Chess,
    /// The Zobrist hash of `pos`, counting en passant only when it is legal.
    hash: Zobrist64,
    /// Hashes of every position since the last irreversible move, oldest first, ending
    /// with `hash`. No earlier position can recur, so this is all threefold needs.
    history: Vec<Zobrist64>,
    /// The result, worked out once per position: by [`Game::legal_moves`] from the moves
    /// it generates anyway, or else on the first question that needs it. A search asks
    /// for the moves of nearly every position it reaches, so the moves are generated
    /// once per position, not once to judge the position and again to search it.
    outcome: OnceLock<Option<Outcome>>,
}

/// A legal chess move. `Display` writes UCI with castling as the king's two-square move
/// (`e2e4`, `e1g1`, `e7e8q`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChessMove(Move);

impl ChessMove {
    /// The underlying [`shakmaty`] move.
    pub fn to_shakmaty(self) -> Move {
        self.0
    }
}

impl fmt::Display for ChessMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.to_uci(CastlingMode::Standard))
    }
}

/// The seat playing `color`: White is seat 0.
fn seat_of(color: Color) -> Seat {
    match color {
        Color::White => Seat::First,
        Color::Black => Seat::Second,
    }
}

impl Chess {
    /// The underlying [`shakmaty`] position, for bots and tools.
    pub fn chess_position(&self) -> &shakmaty::Chess {
        &self.pos
    }

    /// `position` with the other side to move and no en passant square, for the bots'
    /// null-move search; `None` if that position is not legal (the side that would pass
    /// is in check).
    pub fn passed(position: &shakmaty::Chess) -> Option<Chess> {
        position.clone().swap_turn().ok().map(Chess::from_shakmaty)
    }

    /// Wraps a validated position, starting its repetition history there.
    fn from_shakmaty(pos: shakmaty::Chess) -> Self {
        let hash = pos.zobrist_hash(EnPassantMode::Legal);
        Self {
            pos,
            hash,
            history: vec![hash],
            outcome: OnceLock::new(),
        }
    }

    /// The result of the current position, worked out once.
    fn result(&self) -> Option<Outcome> {
        *self
            .outcome
            .get_or_init(|| self.judge(self.pos.legal_moves().is_empty()))
    }

    /// The result of the current position, where `stuck` tells whether the side to move
    /// has no legal move. Checkmate and stalemate come first, so a mate that reaches the
    /// hundredth half-move wins.
    fn judge(&self, stuck: bool) -> Option<Outcome> {
        let draw = |reason| {
            Some(Outcome {
                winner: None,
                reason,
            })
        };
        if stuck {
            return if self.pos.is_check() {
                Some(Outcome {
                    winner: Some(seat_of(self.pos.turn().other())),
                    reason: EndReason::Checkmate,
                })
            } else {
                draw(EndReason::Stalemate)
            };
        }
        if self.pos.is_insufficient_material() {
            return draw(EndReason::InsufficientMaterial);
        }
        if self.history.iter().filter(|&&h| h == self.hash).count() >= 3 {
            return draw(EndReason::ThreefoldRepetition);
        }
        if self.pos.halfmoves() >= FIFTY_MOVES {
            return draw(EndReason::FiftyMoves);
        }
        None
    }

    /// Plays `m`, a legal move in the current position of a game that is not over,
    /// without checking either: for [`Game::play`] once it has, and for the bots, whose
    /// moves come straight from [`Game::legal_moves`].
    pub(crate) fn play_legal(&mut self, m: Move) {
        let irreversible = self.pos.is_irreversible(m);
        let incremental = self
            .pos
            .update_zobrist_hash(self.hash, m, EnPassantMode::Legal);
        self.pos.play_unchecked(m);
        self.hash = incremental.unwrap_or_else(|| self.pos.zobrist_hash(EnPassantMode::Legal));
        if irreversible {
            self.history.clear();
        }
        self.history.push(self.hash);
        self.outcome = OnceLock::new();
    }

    /// Why moving the piece on `from` to `to` (promoting to `promotion`) is not legal.
    /// Only explains: shakmaty has already decided that the move is illegal.
    fn why_illegal(&self, from: Square, to: Square, promotion: Option<Role>) -> &'static str {
        let board = self.pos.board();
        let turn = self.pos.turn();
        let Some(piece) = board.piece_at(from) else {
            return "there is no piece on that square";
        };
        if piece.color != turn {
            return "that piece is not yours";
        }
        let last_rank = turn.fold_wb(Rank::Eighth, Rank::First);
        let castling_attempt = piece.role == Role::King
            && from == turn.fold_wb(Square::E1, Square::E8)
            && to.rank() == from.rank()
            && (matches!(to.file(), File::C | File::G)
                || (matches!(to.file(), File::A | File::H)
                    && board.piece_at(to) == Some(Role::Rook.of(turn))));
        if castling_attempt {
            return "castling is not allowed in this position";
        }
        let reach = match piece.role {
            Role::Pawn => self.pawn_reach(from),
            _ => board.attacks_from(from) & !self.pos.us(),
        };
        if !reach.contains(to) {
            return match piece.role {
                Role::Pawn => "that pawn cannot move there",
                _ => "that piece cannot move there",
            };
        }
        match promotion {
            Some(_) if piece.role != Role::Pawn || to.rank() != last_rank => {
                return "only a pawn reaching the last rank can promote";
            }
            Some(Role::Pawn | Role::King) => {
                return "a pawn can only promote to a queen, rook, bishop or knight";
            }
            None if piece.role == Role::Pawn && to.rank() == last_rank => {
                return "a pawn reaching the last rank must promote: add q, r, b or n, as in e7e8q";
            }
            _ => {}
        }
        // The piece can get there; see whether doing so exposes the king.
        let mut after = board.clone();
        after.discard_piece_at(from);
        if piece.role == Role::Pawn && self.pos.maybe_ep_square() == Some(to) {
            after.discard_piece_at(Square::from_coords(to.file(), from.rank()));
        }
        after.set_piece_at(to, promotion.unwrap_or(piece.role).of(turn));
        let king = if piece.role == Role::King {
            Some(to)
        } else {
            after.king_of(turn)
        };
        match king {
            Some(king) if after.attacks_to(king, !turn, after.occupied()).any() => {
                "it would leave your king in check"
            }
            _ => NOT_LEGAL,
        }
    }

    /// The squares a pawn on `from` could move to were its king not to matter:
    /// captures (en passant included) and pushes.
    fn pawn_reach(&self, from: Square) -> Bitboard {
        let board = self.pos.board();
        let turn = self.pos.turn();
        let mut targets = self.pos.them();
        if let Some(ep) = self.pos.maybe_ep_square() {
            targets.add(ep);
        }
        let mut reach = shakmaty::attacks::pawn_attacks(turn, from) & targets;
        let step = turn.fold_wb(8, -8);
        if let Some(one) = from
            .offset(step)
            .filter(|sq| !board.occupied().contains(*sq))
        {
            reach.add(one);
            let start_rank = turn.fold_wb(Rank::Second, Rank::Seventh);
            if from.rank() == start_rank
                && let Some(two) = one
                    .offset(step)
                    .filter(|sq| !board.occupied().contains(*sq))
            {
                reach.add(two);
            }
        }
        reach
    }

    /// Resolves a move in UCI against the position.
    fn resolve_uci(&self, uci: UciMove, text: &str) -> Result<ChessMove, MoveError> {
        let UciMove::Normal {
            from,
            to,
            promotion,
        } = uci
        else {
            // Drops (`Q@f7`) and null moves (`0000`) do not exist in chess.
            return Err(unparseable(text));
        };
        uci.to_move(&self.pos)
            .map(ChessMove)
            .map_err(|_| MoveError::Illegal {
                text: text.to_owned(),
                why: self.why_illegal(from, to, promotion),
            })
    }

    /// Resolves a move in SAN against the position.
    fn resolve_san(&self, san: San, text: &str) -> Result<ChessMove, MoveError> {
        if matches!(san, San::Put { .. } | San::Null) {
            return Err(unparseable(text));
        }
        san.to_move(&self.pos)
            .map(ChessMove)
            .map_err(|err| MoveError::Illegal {
                text: text.to_owned(),
                why: match (err, san) {
                    (SanError::AmbiguousSan, _) => {
                        "more than one piece can make that move: add the file or rank it \
                         comes from, as in Nbd2"
                    }
                    (SanError::IllegalSan, San::Castle(_)) => {
                        "castling is not allowed in this position"
                    }
                    (SanError::IllegalSan, _) => NOT_LEGAL,
                },
            })
    }
}

/// The error for text that is neither UCI nor SAN.
fn unparseable(text: &str) -> MoveError {
    MoveError::Unparseable {
        text: text.to_owned(),
        expected: NOTATION,
    }
}

impl Game for Chess {
    type Move = ChessMove;
    type Settings = ();

    const KIND: GameKind = GameKind::Chess;

    fn new(_settings: &()) -> Self {
        Self::from_shakmaty(shakmaty::Chess::new())
    }

    /// Any legal position in FEN, validated by shakmaty with standard castling.
    /// Repetition counting starts afresh from this position.
    fn from_position(_settings: &(), position: &str) -> Result<Self, PositionError> {
        let fen = Fen::from_ascii(position.as_bytes())
            .map_err(|err| PositionError::Invalid(err.to_string()))?;
        let setup = fen.as_setup();
        if setup.pockets.is_some() || setup.remaining_checks.is_some() {
            return Err(PositionError::Invalid(
                "pockets and remaining checks belong to chess variants".to_owned(),
            ));
        }
        let pos: shakmaty::Chess = fen
            .into_position(CastlingMode::Standard)
            .map_err(|err| PositionError::Invalid(err.to_string()))?;
        Ok(Self::from_shakmaty(pos))
    }

    fn turn(&self) -> Option<Seat> {
        match self.result() {
            Some(_) => None,
            None => Some(seat_of(self.pos.turn())),
        }
    }

    fn legal_moves(&self) -> Vec<ChessMove> {
        let moves = self.pos.legal_moves();
        let outcome = *self.outcome.get_or_init(|| self.judge(moves.is_empty()));
        if outcome.is_some() {
            return Vec::new();
        }
        moves.iter().copied().map(ChessMove).collect()
    }

    /// Reads UCI (`e2e4`, `e7e8q`, `e1g1`, or `e1h1` for castling) or SAN (`Nf3`,
    /// `exd5`, `O-O`, `e8=Q`, with or without `+`/`#`). Text in either notation that
    /// names no legal move is [`MoveError::Illegal`], since moves only exist relative
    /// to a position.
    fn parse_move(&self, text: &str) -> Result<ChessMove, MoveError> {
        let bytes = text.as_bytes();
        if let Ok(uci) = UciMove::from_ascii(bytes) {
            if self.result().is_some() {
                return Err(MoveError::GameOver);
            }
            return self.resolve_uci(uci, text);
        }
        // Castling is sometimes typed with zeros.
        let letters;
        let bytes = if bytes.starts_with(b"0-0") {
            letters = text.replace('0', "O");
            letters.as_bytes()
        } else {
            bytes
        };
        match SanPlus::from_ascii(bytes) {
            Ok(_) if self.result().is_some() => Err(MoveError::GameOver),
            Ok(san_plus) => self.resolve_san(san_plus.san, text),
            Err(_) => Err(unparseable(text)),
        }
    }

    fn play(&mut self, mv: &ChessMove) -> Result<(), MoveError> {
        if self.result().is_some() {
            return Err(MoveError::GameOver);
        }
        let m = mv.0;
        if !self.pos.is_legal(m) {
            let (from, to, promotion) = match m.to_uci(CastlingMode::Standard) {
                UciMove::Normal {
                    from,
                    to,
                    promotion,
                } => (from, to, promotion),
                UciMove::Put { .. } | UciMove::Null => {
                    return Err(MoveError::Illegal {
                        text: mv.to_string(),
                        why: NOT_LEGAL,
                    });
                }
            };
            return Err(MoveError::Illegal {
                text: mv.to_string(),
                why: self.why_illegal(from, to, promotion),
            });
        }
        self.play_legal(m);
        Ok(())
    }

    fn describe(&self, mv: &ChessMove) -> String {
        SanPlus::from_move(self.pos.clone(), mv.0).to_string()
    }

    fn outcome(&self) -> Option<Outcome> {
        self.result()
    }

    fn can_win(&self, seat: Seat) -> bool {
        let color = match seat {
            Seat::First => Color::White,
            Seat::Second => Color::Black,
        };
        !self.pos.has_insufficient_material(color)
    }

    fn position_hash(&self) -> u64 {
        self.hash.0
    }

    fn position(&self) -> String {
        Fen::from_position(&self.pos, EnPassantMode::Legal).to_string()
    }

    /// Eight rows from rank 8 down to rank 1 (White at the bottom), files a to h; pieces
    /// as FEN letters (`"K"` White king, `"q"` Black queen) and every cell labelled with
    /// its square name.
    fn board(&self) -> BoardView {
        static LABELS: Labels = Labels::new();
        let labels = LABELS.get(|| diagram().map(|sq| Some(sq.to_string())).collect());
        BoardView::grid(8, 8, Game::cells(self), labels)
    }

    fn cells(&self) -> Vec<Option<char>> {
        let board = self.pos.board();
        diagram()
            .map(|sq| board.piece_at(sq).map(|piece| piece.char()))
            .collect()
    }
}

/// Every square of the diagram, row by row from a8 (rank 8 at the top).
fn diagram() -> impl Iterator<Item = Square> {
    Rank::ALL.into_iter().rev().flat_map(|rank| {
        File::ALL
            .into_iter()
            .map(move |file| Square::from_coords(file, rank))
    })
}

#[cfg(test)]
mod tests;
