//! `[admin]`: the operator's controls over HTTP (`/api/admin/…`): who is connected,
//! closing a room, banning a player. Off while no token is set. Documented in
//! `config.toml` and docs/OPERATIONS.md ("Operator controls").

use serde::{Deserialize, Serialize};

/// `[admin]`: the token that opens the operator's endpoints.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AdminConfig {
    /// The bearer token an operator's requests carry (empty: the controls are off).
    pub token: String,
    /// A file holding that token, for tokens kept out of the configuration (empty: none).
    pub token_file: String,
}
