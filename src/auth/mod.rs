//! Signing in through a site's own accounts (`[auth]`): checks the JSON Web Tokens the
//! site signs against the key the configuration names, and says which account a token
//! speaks for. Off unless a key source is configured. No cryptography of our own: the
//! `jsonwebtoken` crate verifies, with the algorithm fixed by the key, never the token.

mod keys;

use std::sync::Arc;
use std::time::Duration;

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode, decode_header};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::config::AuthConfig;
use crate::protocol::{ClientError, ErrorCode};
use crate::store::SiteIdentity;
use keys::{Key, KeySet, Keys};

/// The site's sign-in, as `[auth]` configures it.
pub(crate) struct SignIn {
    keys: Keys,
    /// What every token must satisfy besides its signature (algorithms set per key).
    validation: Validation,
    /// The claim that holds the display name.
    name_claim: String,
    /// Whether players without a token may play.
    pub(crate) guests: bool,
    /// Whether only signed-in players may watch.
    pub(crate) spectators_need_sign_in: bool,
}

/// Who a valid token speaks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SiteUser {
    /// The account.
    pub(crate) identity: SiteIdentity,
    /// The name the token gives, if it names one.
    pub(crate) name: Option<String>,
}

/// Why a token was refused. A player sees the protocol's sentence for each; the reason
/// inside `Invalid` is for the server's log, and never holds the token.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TokenRefusal {
    /// Its `exp` has passed (beyond the leeway).
    #[error("the token has expired")]
    Expired,
    /// Its `nbf` is still to come (beyond the leeway).
    #[error("the token is not valid yet")]
    NotYetValid,
    /// It is not a token this site signed for Parlor.
    #[error("{0}")]
    Invalid(String),
}

impl TokenRefusal {
    /// The error a client is sent for this refusal.
    pub(crate) fn to_client_error(&self) -> ClientError {
        match self {
            TokenRefusal::Expired => ClientError::new(
                ErrorCode::TokenExpired,
                "Your sign-in has expired. Sign in again on the site (or reload its page), then connect again.",
            ),
            TokenRefusal::NotYetValid => ClientError::new(
                ErrorCode::TokenNotYetValid,
                "Your sign-in token is not valid yet. Check that this device's clock is right, then try again.",
            ),
            TokenRefusal::Invalid(reason) => ClientError::new(
                ErrorCode::TokenInvalid,
                format!(
                    "This server does not accept that sign-in token ({reason}). Sign in again on the site."
                ),
            ),
        }
    }
}

/// The error for a site token sent to a server whose sign-in is off.
pub(crate) fn sign_in_off() -> ClientError {
    ClientError::new(
        ErrorCode::TokenInvalid,
        "This server does not sign players in with a site's tokens: say hello with a name (and your token) instead.",
    )
}

/// Why `[auth]` could not be set up at start.
#[derive(Debug, thiserror::Error)]
pub enum AuthSetupError {
    /// More than one key source was set.
    #[error(
        "[auth] names {0} key sources; set exactly one of jwt_hs256_secret, jwt_hs256_secret_file, jwt_public_key_file, jwks_file and jwks_url"
    )]
    SeveralSources(usize),
    /// A key file could not be read.
    #[error("could not read {key} ({path}): {source}")]
    Read {
        /// The setting that names the file.
        key: &'static str,
        /// The file.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// The HS256 secret is too short to be a secret.
    #[error(
        "[auth] jwt_hs256_secret must be at least 32 bytes long (a random secret; it signs every token)"
    )]
    ShortSecret,
    /// The PEM file holds no key this server verifies with.
    #[error(
        "auth.jwt_public_key_file ({path}) holds no RSA, P-256 or Ed25519 public key in PEM form"
    )]
    BadPublicKey {
        /// The file.
        path: String,
    },
    /// The key set could not be read or fetched, or holds no usable key.
    #[error("the site's key set at {from} is not usable: {reason}")]
    BadKeySet {
        /// The file or URL.
        from: String,
        /// What was wrong.
        reason: String,
    },
}

/// The least length of an HS256 secret, in bytes (RFC 7518 §3.2: the hash's size).
const MIN_SECRET_BYTES: usize = 32;

/// The claims read from a token: the registered ones Parlor uses, and the rest for the
/// name.
#[derive(Deserialize)]
struct Claims {
    #[serde(default)]
    iss: Option<String>,
    #[serde(default)]
    sub: Option<String>,
    #[serde(flatten)]
    rest: Map<String, Value>,
}

impl SignIn {
    /// The sign-in `config` describes, or `None` when it names no key source (sign-in
    /// off). A key set at a URL is fetched now.
    pub(crate) async fn from_config(config: &AuthConfig) -> Result<Option<SignIn>, AuthSetupError> {
        let sources = [
            &config.jwt_hs256_secret,
            &config.jwt_hs256_secret_file,
            &config.jwt_public_key_file,
            &config.jwks_file,
            &config.jwks_url,
        ]
        .iter()
        .filter(|source| !source.trim().is_empty())
        .count();
        if sources > 1 {
            return Err(AuthSetupError::SeveralSources(sources));
        }
        let keys = if !config.jwt_hs256_secret.trim().is_empty() {
            Keys::Fixed(hs256(config.jwt_hs256_secret.as_bytes())?)
        } else if !config.jwt_hs256_secret_file.trim().is_empty() {
            let path = config.jwt_hs256_secret_file.trim();
            let secret = std::fs::read(path).map_err(|source| AuthSetupError::Read {
                key: "auth.jwt_hs256_secret_file",
                path: path.to_owned(),
                source,
            })?;
            Keys::Fixed(hs256(secret.trim_ascii_end())?)
        } else if !config.jwt_public_key_file.trim().is_empty() {
            Keys::Fixed(keys::pem_key(config.jwt_public_key_file.trim())?)
        } else if !config.jwks_file.trim().is_empty() {
            Keys::Set(Arc::new(KeySet::from_file(config.jwks_file.trim())?))
        } else if !config.jwks_url.trim().is_empty() {
            let refetch_every = Duration::from_secs(config.jwks_refetch_secs);
            let set = Arc::new(KeySet::from_url(config.jwks_url.trim(), refetch_every).await?);
            if config.jwks_refresh_secs > 0 {
                let every = Duration::from_secs(config.jwks_refresh_secs);
                tokio::spawn(keys::refresh_every(Arc::downgrade(&set), every));
            }
            Keys::Set(set)
        } else {
            return Ok(None);
        };
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = config.leeway_secs;
        validation.validate_nbf = true;
        let mut required = vec!["exp", "sub"];
        if !config.issuer.is_empty() {
            validation.set_issuer(&[config.issuer.as_str()]);
            required.push("iss");
        }
        if !config.audience.is_empty() {
            validation.set_audience(&[config.audience.as_str()]);
            required.push("aud");
        }
        validation.set_required_spec_claims(&required);
        Ok(Some(SignIn {
            keys,
            validation,
            name_claim: config.name_claim.clone(),
            guests: config.guests,
            spectators_need_sign_in: config.spectators_need_sign_in,
        }))
    }

    /// The account `token` speaks for, once its signature, times, issuer and audience
    /// check out.
    pub(crate) async fn verify(&self, token: &str) -> Result<SiteUser, TokenRefusal> {
        let header = decode_header(token).map_err(|e| {
            TokenRefusal::Invalid(format!(
                "not a signed JSON Web Token: {}",
                header_problem(&e)
            ))
        })?;
        let Key { key, algorithm } = self
            .keys
            .key_for(header.kid.as_deref())
            .await
            .map_err(|e| TokenRefusal::Invalid(e.to_string()))?;
        if header.alg != algorithm {
            return Err(TokenRefusal::Invalid(format!(
                "signed with {:?}, but the site's key verifies {algorithm:?}",
                header.alg
            )));
        }
        let claims = self.decode(token, &key, algorithm)?;
        let subject = claims
            .sub
            .filter(|sub| !sub.is_empty())
            .ok_or_else(|| TokenRefusal::Invalid("the token names no subject (`sub`)".into()))?;
        let name = claims
            .rest
            .get(&self.name_claim)
            .and_then(Value::as_str)
            .map(str::to_owned);
        Ok(SiteUser {
            identity: SiteIdentity {
                issuer: claims.iss.unwrap_or_default(),
                subject,
            },
            name,
        })
    }

    fn decode(
        &self,
        token: &str,
        key: &DecodingKey,
        algorithm: Algorithm,
    ) -> Result<Claims, TokenRefusal> {
        let mut validation = self.validation.clone();
        validation.algorithms = vec![algorithm];
        decode::<Claims>(token, key, &validation)
            .map(|data| data.claims)
            .map_err(|e| match e.kind() {
                ErrorKind::ExpiredSignature => TokenRefusal::Expired,
                ErrorKind::ImmatureSignature => TokenRefusal::NotYetValid,
                ErrorKind::InvalidSignature => TokenRefusal::Invalid("bad signature".into()),
                ErrorKind::InvalidIssuer => TokenRefusal::Invalid("another issuer (`iss`)".into()),
                ErrorKind::InvalidAudience => {
                    TokenRefusal::Invalid("another audience (`aud`)".into())
                }
                ErrorKind::MissingRequiredClaim(claim) => {
                    TokenRefusal::Invalid(format!("the token has no `{claim}` claim"))
                }
                other => TokenRefusal::Invalid(format!("unreadable token: {other:?}")),
            })
    }
}

/// The HS256 key of a shared `secret`.
fn hs256(secret: &[u8]) -> Result<Key, AuthSetupError> {
    if secret.len() < MIN_SECRET_BYTES {
        return Err(AuthSetupError::ShortSecret);
    }
    Ok(Key {
        key: DecodingKey::from_secret(secret),
        algorithm: Algorithm::HS256,
    })
}

/// What is wrong with a token's header, in words that never quote the token.
fn header_problem(error: &jsonwebtoken::errors::Error) -> &'static str {
    match error.kind() {
        ErrorKind::InvalidToken => "not three base64url parts",
        ErrorKind::Base64(_) => "bad base64url",
        ErrorKind::Json(_) => {
            "a header that is not JSON or names an algorithm not taken here (such as none)"
        }
        ErrorKind::Utf8(_) => "a header that is not UTF-8",
        _ => "an unreadable header",
    }
}
