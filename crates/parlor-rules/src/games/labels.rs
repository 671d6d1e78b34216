//! A game's cell labels: made the first time one of its boards is drawn, shared by every
//! board drawn after (a state is drawn at every move, and its labels never change), and,
//! for the wire, encoded as JSON once.

use std::fmt;
use std::ops::Deref;
use std::sync::OnceLock;

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
        self.0.get_or_init(|| CellLabels {
            names: make(),
            #[cfg(feature = "serde")]
            json: OnceLock::new(),
        })
    }
}

/// Each cell's name in the game's move notation, row by row, or `None` for a cell that
/// is not part of the board; the same in every position of a game. Reads as the slice of
/// names; written on the wire as their array.
pub struct CellLabels {
    names: Vec<Option<String>>,
    /// The names as JSON, encoded the first time they are written.
    #[cfg(feature = "serde")]
    json: OnceLock<Box<serde_json::value::RawValue>>,
}

impl Deref for CellLabels {
    type Target = [Option<String>];

    fn deref(&self) -> &[Option<String>] {
        &self.names
    }
}

impl PartialEq for CellLabels {
    fn eq(&self, other: &CellLabels) -> bool {
        self.names == other.names
    }
}

impl Eq for CellLabels {}

impl fmt::Debug for CellLabels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.names, f)
    }
}

/// Written from the JSON kept, which serde_json writes as it is (boards are only ever
/// written by serde_json); encoded the first time. Names are strings, which serde_json
/// always encodes; should that ever fail, the names are written one by one.
#[cfg(feature = "serde")]
impl serde::Serialize for CellLabels {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let Some(json) = self.json.get() {
            return json.serialize(serializer);
        }
        match serde_json::value::to_raw_value(&self.names) {
            Ok(json) => self.json.get_or_init(|| json).serialize(serializer),
            Err(_) => self.names.serialize(serializer),
        }
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for CellLabels {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        <Vec<Option<String>>>::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Vec<Option<String>>>::json_schema(generator)
    }

    fn inline_schema() -> bool {
        <Vec<Option<String>>>::inline_schema()
    }
}

#[cfg(all(test, feature = "serde"))]
mod tests {
    use super::*;

    static SOME: Labels = Labels::new();

    #[test]
    fn written_as_their_names_every_time() {
        let labels = SOME.get(|| vec![None, Some("a\"1".to_owned())]);
        let names = serde_json::to_string(&**labels).unwrap();
        assert_eq!(serde_json::to_string(labels).unwrap(), names);
        assert_eq!(serde_json::to_string(labels).unwrap(), names);
        assert_eq!(labels[1].as_deref(), Some("a\"1"));
    }
}
