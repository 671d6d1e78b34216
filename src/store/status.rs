//! A stored game's status (`playing`, `finished`, `interrupted`): the one place its
//! names are written, for the database column and for JSON alike.

use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};

/// Where a stored game stands. Its name (see [`GameStatus::as_str`]) is what the `status`
/// column holds and what JSON shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum GameStatus {
    /// Started and not yet over.
    Playing,
    /// Over, with an ending written.
    Finished,
    /// Was playing when the server stopped; it will not be resumed.
    Interrupted,
}

impl GameStatus {
    /// Every status, for decoding by name (keep it in step with the variants).
    pub(crate) const ALL: [GameStatus; 3] = [
        GameStatus::Playing,
        GameStatus::Finished,
        GameStatus::Interrupted,
    ];

    /// The status's name, as stored and as shown.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            GameStatus::Playing => "playing",
            GameStatus::Finished => "finished",
            GameStatus::Interrupted => "interrupted",
        }
    }
}

/// A `status` value that names no [`GameStatus`].
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown game status {0:?}")]
pub(crate) struct UnknownGameStatus(pub String);

impl FromStr for GameStatus {
    type Err = UnknownGameStatus;

    fn from_str(name: &str) -> Result<GameStatus, UnknownGameStatus> {
        GameStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == name)
            .ok_or_else(|| UnknownGameStatus(name.to_owned()))
    }
}

impl fmt::Display for GameStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for GameStatus {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_is_listed_and_decodes_from_its_own_name() {
        for status in GameStatus::ALL {
            assert_eq!(status.as_str().parse(), Ok(status));
        }
        let names: Vec<&str> = GameStatus::ALL.iter().map(|s| s.as_str()).collect();
        assert_eq!(names, ["playing", "finished", "interrupted"]);
    }

    #[test]
    fn json_and_display_show_the_stored_name() {
        for status in GameStatus::ALL {
            let json = serde_json::to_value(status).unwrap();
            assert_eq!(json, serde_json::Value::from(status.as_str()));
            assert_eq!(status.to_string(), status.as_str());
        }
    }

    #[test]
    fn an_unknown_name_is_an_error_naming_it() {
        for name in ["paused", "Playing", ""] {
            assert_eq!(
                name.parse::<GameStatus>(),
                Err(UnknownGameStatus(name.to_owned()))
            );
        }
    }
}
