//! A stored game's status (`playing`, `finished`, `interrupted`): its names derived once,
//! for the database column and for JSON alike.

/// Where a stored game stands. Its name (see [`GameStatus::as_str`]) is what the `status`
/// column holds and what JSON shows.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    strum::Display,
    strum::EnumString,
    strum::IntoStaticStr,
    strum::VariantArray,
    serde_with::DeserializeFromStr,
    schemars::JsonSchema,
)]
#[schemars(rename_all = "snake_case")]
#[strum(
    serialize_all = "snake_case",
    parse_err_ty = UnknownGameStatus,
    parse_err_fn = UnknownGameStatus::named
)]
pub(crate) enum GameStatus {
    /// Started and not yet over.
    Playing,
    /// Over, with an ending written.
    Finished,
    /// Was playing when the server stopped; it will not be resumed.
    Interrupted,
}

parlor_rules::serialize_by_name!(GameStatus);

impl GameStatus {
    /// The status's name, as stored and as shown.
    pub(crate) fn as_str(self) -> &'static str {
        self.into()
    }
}

/// A `status` value that names no [`GameStatus`].
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown game status {0:?}")]
pub(crate) struct UnknownGameStatus(pub String);

impl UnknownGameStatus {
    /// The error for the name `name`.
    fn named(name: &str) -> UnknownGameStatus {
        UnknownGameStatus(name.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use strum::VariantArray;

    use super::*;

    #[test]
    fn every_status_is_listed_and_decodes_from_its_own_name() {
        for &status in GameStatus::VARIANTS {
            assert_eq!(status.as_str().parse(), Ok(status));
        }
        let names: Vec<&str> = GameStatus::VARIANTS.iter().map(|s| s.as_str()).collect();
        assert_eq!(names, ["playing", "finished", "interrupted"]);
    }

    #[test]
    fn json_and_display_show_the_stored_name() {
        for &status in GameStatus::VARIANTS {
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
