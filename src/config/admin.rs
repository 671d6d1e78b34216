//! `[admin]`: the operator's controls over HTTP (`/api/admin/…`): who is connected,
//! closing a room, banning a player, off while no token is set; and the token that
//! guards `GET /metrics`. Documented in `config.toml` and docs/OPERATIONS.md
//! ("Operator controls", "Metrics").

use serde::{Deserialize, Serialize};

/// `[admin]`: the token that opens the operator's endpoints, and the one a metrics
/// scraper shows.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AdminConfig {
    /// The bearer token an operator's requests carry (empty: the controls are off).
    pub token: String,
    /// A file holding that token, for tokens kept out of the configuration (empty: none).
    pub token_file: String,
    /// The bearer token `GET /metrics` asks for (empty: none asked for).
    pub metrics_token: String,
}
