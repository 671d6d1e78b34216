//! Which game is played: one value per game this crate implements, named on the wire and
//! in storage by [`GameKind::as_str`] (`chess`). A kind is not a game's id: one stored
//! game is `g_…`, and its kind is one of these.

/// A game this crate implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GameKind {
    /// Tic-tac-toe (`tictactoe`).
    TicTacToe,
    /// English checkers (`checkers`).
    Checkers,
    /// Chess (`chess`).
    Chess,
    /// Fox & Geese (`fox_geese`).
    FoxGeese,
}

impl GameKind {
    /// Every game, in the order lists show them.
    pub const ALL: [GameKind; 4] = [
        GameKind::TicTacToe,
        GameKind::Checkers,
        GameKind::Chess,
        GameKind::FoxGeese,
    ];

    /// The game's name on the wire and in storage.
    pub fn as_str(self) -> &'static str {
        match self {
            GameKind::TicTacToe => "tictactoe",
            GameKind::Checkers => "checkers",
            GameKind::Chess => "chess",
            GameKind::FoxGeese => "fox_geese",
        }
    }

    /// Every game's name, as a person reads a list of them (`tictactoe, checkers, …`).
    pub fn names() -> String {
        GameKind::ALL.map(GameKind::as_str).join(", ")
    }
}

crate::wire_name::wire_name!(GameKind, UnknownGame);

/// A name that is no game this server plays.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("there is no game \"{0}\"")]
pub struct UnknownGame(pub String);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_reads_back_from_its_name() {
        for kind in GameKind::ALL {
            assert_eq!(kind.as_str().parse::<GameKind>(), Ok(kind));
        }
        assert_eq!("go".parse::<GameKind>(), Err(UnknownGame("go".to_owned())));
        assert_eq!(GameKind::names(), "tictactoe, checkers, chess, fox_geese");
    }
}
