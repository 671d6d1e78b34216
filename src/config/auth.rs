//! `[auth]`: signing in through a site's own accounts with JSON Web Tokens. Off unless
//! one key source is set; guests play exactly as without it. Every key is documented in
//! `config.toml` and docs/OPERATIONS.md ("Sign-in with your site's accounts").

use serde::{Deserialize, Serialize};

/// `[auth]`: where the keys that sign the site's tokens come from, what the tokens must
/// say, and who may play without one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AuthConfig {
    /// A shared secret for HS256 tokens (empty: none).
    pub jwt_hs256_secret: String,
    /// A file holding that secret, for secrets kept out of the configuration (empty: none).
    pub jwt_hs256_secret_file: String,
    /// A PEM public key (RSA for RS256, P-256 for ES256, Ed25519 for EdDSA) (empty: none).
    pub jwt_public_key_file: String,
    /// A file holding a JSON Web Key Set (empty: none).
    pub jwks_file: String,
    /// A URL serving a JSON Web Key Set: fetched at start, and again when a token names a
    /// key it does not hold, at most once per `jwks_refetch_secs` (empty: none).
    pub jwks_url: String,
    /// The least time between two fetches of `jwks_url` for tokens naming unknown keys,
    /// in seconds, so a stream of made-up key ids cannot hammer the site.
    pub jwks_refetch_secs: u64,
    /// How often `jwks_url` is fetched again regardless, in seconds, so that a key the
    /// site withdraws stops being trusted (0: only for unknown keys).
    pub jwks_refresh_secs: u64,
    /// The `iss` every token must carry (empty: any issuer).
    pub issuer: String,
    /// The `aud` every token must carry (empty: tokens with an `aud` are refused, as
    /// they were meant for a named audience).
    pub audience: String,
    /// Seconds of clock difference allowed when checking `exp` and `nbf`.
    pub leeway_secs: u64,
    /// The claim that holds the player's display name.
    pub name_claim: String,
    /// Whether players without a token may play (`false`: only signed-in players).
    pub guests: bool,
    /// Whether only signed-in players may watch rooms (`false`: anyone may watch).
    pub spectators_need_sign_in: bool,
}

impl Default for AuthConfig {
    fn default() -> AuthConfig {
        AuthConfig {
            jwt_hs256_secret: String::new(),
            jwt_hs256_secret_file: String::new(),
            jwt_public_key_file: String::new(),
            jwks_file: String::new(),
            jwks_url: String::new(),
            jwks_refetch_secs: 60,
            jwks_refresh_secs: 300,
            issuer: String::new(),
            audience: String::new(),
            leeway_secs: 30,
            name_claim: "name".to_owned(),
            guests: true,
            spectators_need_sign_in: false,
        }
    }
}
