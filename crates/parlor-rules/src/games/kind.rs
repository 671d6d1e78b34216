//! Which game is played: one value per game this crate implements, named on the wire and
//! in storage by [`GameKind::as_str`] (`chess`). A kind is not a game's id: one stored
//! game is `g_…`, and its kind is one of these.

use strum::VariantArray;

/// A game this crate implements. Its name is derived from the variant (strum), and
/// serde writes and reads it through that name.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    strum::Display,
    strum::EnumString,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[strum(
    serialize_all = "snake_case",
    parse_err_ty = UnknownGame,
    parse_err_fn = UnknownGame::named
)]
#[cfg_attr(feature = "serde", derive(serde_with::DeserializeFromStr))]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(
        rename_all = "snake_case",
        description = "A game id: `tictactoe`, `checkers`, `chess` or `fox_geese` (PROTOCOL.md §12)."
    )
)]
pub enum GameKind {
    /// Tic-tac-toe (`tictactoe`).
    #[strum(serialize = "tictactoe")]
    #[cfg_attr(feature = "schema", schemars(rename = "tictactoe"))]
    TicTacToe,
    /// English checkers (`checkers`).
    Checkers,
    /// Chess (`chess`).
    Chess,
    /// Fox & Geese (`fox_geese`).
    FoxGeese,
}

#[cfg(feature = "serde")]
crate::serialize_by_name!(GameKind);

impl GameKind {
    /// Every game, in the order lists show them.
    pub const ALL: &[GameKind] = GameKind::VARIANTS;

    /// The game's name on the wire and in storage.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Every game's name, as a person reads a list of them (`tictactoe, checkers, …`).
    pub fn names() -> String {
        let names: Vec<&str> = GameKind::ALL.iter().map(|kind| kind.as_str()).collect();
        names.join(", ")
    }
}

/// A name that is no game this server plays.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("there is no game \"{0}\"")]
pub struct UnknownGame(pub String);

impl UnknownGame {
    /// The error for the name `name`.
    fn named(name: &str) -> UnknownGame {
        UnknownGame(name.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_reads_back_from_its_name() {
        for &kind in GameKind::ALL {
            assert_eq!(kind.as_str().parse::<GameKind>(), Ok(kind));
        }
        assert_eq!("go".parse::<GameKind>(), Err(UnknownGame("go".to_owned())));
        assert_eq!(GameKind::names(), "tictactoe, checkers, chess, fox_geese");
    }
}
