//! A game's cell labels: made the first time one of its boards is drawn, shared by every
//! board drawn after (a state is drawn at every move, and its labels never change), and
//! encoded for the wire once.

use std::sync::OnceLock;

use crate::encoded::Encoded;

/// Each cell's name in the game's move notation, row by row, or `None` for a cell that
/// is not part of the board; the same in every position of a game.
pub type CellLabels = Encoded<Vec<Option<String>>>;

/// The labels of one game's cells, made on first use; a `static` of each game.
pub(crate) struct Labels(OnceLock<CellLabels>);

impl Labels {
    /// Labels not made yet.
    pub(crate) const fn new() -> Labels {
        Labels(OnceLock::new())
    }

    /// The labels, made by `make` the first time.
    pub(crate) fn get(
        &'static self,
        make: impl FnOnce() -> Vec<Option<String>>,
    ) -> &'static CellLabels {
        self.0.get_or_init(|| Encoded::new(make()))
    }
}
