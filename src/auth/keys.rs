//! The keys a site's tokens are checked with: one key named by the configuration, or a
//! JSON Web Key Set read from a file or fetched from the site, and fetched again (at most
//! once per `jwks_refetch_secs`) when a token names a key the set does not hold, and
//! every `jwks_refresh_secs` in any case. Each key carries the
//! one algorithm it verifies; a token's own `alg` never chooses it.

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, JwkSet, KeyAlgorithm};
use jsonwebtoken::{Algorithm, DecodingKey};
use tokio::sync::{Mutex, RwLock};
use tokio::time::Instant;
use tracing::{info, warn};

use super::AuthSetupError;

/// How long one fetch of the key set may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// Fetches `set` again every `every`, so that a key the site withdraws stops being
/// trusted, until the set is dropped (the server has stopped).
pub(super) async fn refresh_every(set: Weak<KeySet>, every: Duration) {
    loop {
        tokio::time::sleep(every).await;
        let Some(set) = set.upgrade() else { return };
        set.refresh().await;
    }
}

/// A key and the one algorithm it verifies.
#[derive(Clone)]
pub(super) struct Key {
    pub(super) key: DecodingKey,
    pub(super) algorithm: Algorithm,
}

/// Where the keys come from.
pub(super) enum Keys {
    /// One key: an HS256 secret or a PEM public key.
    Fixed(Key),
    /// A key set, by key id (shared with the task that fetches it again, if any).
    Set(Arc<KeySet>),
}

/// A JSON Web Key Set, by `kid` (a key without one is filed under the empty id).
pub(super) struct KeySet {
    keys: RwLock<HashMap<String, Key>>,
    /// Where to fetch it again; `None` for a set read from a file.
    url: Option<String>,
    /// The least time between two fetches.
    refetch_every: Duration,
    client: reqwest::Client,
    /// When it was last fetched.
    fetched: Mutex<Instant>,
}

/// Why a token's key could not be found.
#[derive(Debug, thiserror::Error)]
pub(super) enum UnknownKey {
    /// The token names no key id and the set holds no key without one.
    #[error("the token names no key (`kid`) and the site's key set has no key without one")]
    Unnamed,
    /// The set does not hold the key the token names, even fetched again.
    #[error("the token names a key (`kid`) that the site's key set does not hold")]
    NotInSet,
}

impl Keys {
    /// The key for a token whose header names `kid`.
    pub(super) async fn key_for(&self, kid: Option<&str>) -> Result<Key, UnknownKey> {
        match self {
            Keys::Fixed(key) => Ok(key.clone()),
            Keys::Set(set) => set.key_for(kid).await,
        }
    }
}

impl KeySet {
    /// The set in the file at `path`.
    pub(super) fn from_file(path: &str) -> Result<KeySet, AuthSetupError> {
        let text = std::fs::read_to_string(path).map_err(|source| AuthSetupError::Read {
            key: "auth.jwks_file",
            path: path.to_owned(),
            source,
        })?;
        let keys = parse_set(&text).map_err(|reason| AuthSetupError::BadKeySet {
            from: path.to_owned(),
            reason,
        })?;
        Ok(KeySet::holding(keys, None, Duration::ZERO))
    }

    /// The set served at `url`, fetched now, and again for an unknown key at most once
    /// per `refetch_every`.
    pub(super) async fn from_url(
        url: &str,
        refetch_every: Duration,
    ) -> Result<KeySet, AuthSetupError> {
        let set = KeySet::holding(HashMap::new(), Some(url.to_owned()), refetch_every);
        let keys = set
            .fetch()
            .await
            .map_err(|reason| AuthSetupError::BadKeySet {
                from: url.to_owned(),
                reason,
            })?;
        info!(url, keys = keys.len(), "fetched the site's key set");
        *set.keys.write().await = keys;
        Ok(set)
    }

    fn holding(keys: HashMap<String, Key>, url: Option<String>, refetch_every: Duration) -> KeySet {
        KeySet {
            keys: RwLock::new(keys),
            url,
            refetch_every,
            client: reqwest::Client::new(),
            fetched: Mutex::new(Instant::now()),
        }
    }

    async fn key_for(&self, kid: Option<&str>) -> Result<Key, UnknownKey> {
        let id = kid.unwrap_or_default();
        if let Some(key) = self.keys.read().await.get(id) {
            return Ok(key.clone());
        }
        if self.url.is_some()
            && self.refetched().await
            && let Some(key) = self.keys.read().await.get(id)
        {
            return Ok(key.clone());
        }
        Err(if kid.is_none() {
            UnknownKey::Unnamed
        } else {
            UnknownKey::NotInSet
        })
    }

    /// Fetches the set again now, whenever it was last fetched; keeps the keys held if
    /// it cannot.
    async fn refresh(&self) {
        let mut fetched = self.fetched.lock().await;
        *fetched = Instant::now();
        match self.fetch().await {
            Ok(keys) => {
                info!(keys = keys.len(), "refreshed the site's key set");
                *self.keys.write().await = keys;
            }
            Err(reason) => {
                warn!(%reason, "could not refresh the site's key set; keeping the keys held");
            }
        }
    }

    /// Fetches the set again unless the last fetch is more recent than `refetch_every`;
    /// whether it did.
    async fn refetched(&self) -> bool {
        let mut fetched = self.fetched.lock().await;
        if fetched.elapsed() < self.refetch_every {
            return false;
        }
        *fetched = Instant::now();
        match self.fetch().await {
            Ok(keys) => {
                info!(keys = keys.len(), "fetched the site's key set again");
                *self.keys.write().await = keys;
                true
            }
            Err(reason) => {
                warn!(%reason, "could not fetch the site's key set again; keeping the keys held");
                false
            }
        }
    }

    async fn fetch(&self) -> Result<HashMap<String, Key>, String> {
        let url = self.url.as_deref().unwrap_or_default();
        let response = self
            .client
            .get(url)
            .timeout(FETCH_TIMEOUT)
            .send()
            .await
            .map_err(|e| format!("could not fetch it: {e}"))?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("the server answered {status}"));
        }
        let text = response
            .text()
            .await
            .map_err(|e| format!("could not read it: {e}"))?;
        parse_set(&text)
    }
}

/// The signing keys of a JWK set, by key id. Keys for encryption or of a kind that
/// cannot verify a signature (a shared secret has no place in a published set) are left
/// out; a set without one usable key is refused.
fn parse_set(text: &str) -> Result<HashMap<String, Key>, String> {
    let set: JwkSet =
        serde_json::from_str(text).map_err(|e| format!("it is not a JSON Web Key Set: {e}"))?;
    let mut keys = HashMap::new();
    for jwk in &set.keys {
        let Some(algorithm) = algorithm_of(jwk) else {
            continue;
        };
        let key = DecodingKey::from_jwk(jwk).map_err(|e| {
            let kid = jwk.common.key_id.as_deref().unwrap_or("(none)");
            format!("key {kid} is not usable: {e}")
        })?;
        let id = jwk.common.key_id.clone().unwrap_or_default();
        keys.insert(id, Key { key, algorithm });
    }
    if keys.is_empty() {
        return Err("it holds no RSA, P-256 or Ed25519 signing key".to_owned());
    }
    Ok(keys)
}

/// The algorithm a published key verifies: the one its `alg` names, else the usual one
/// for its kind of key; `None` for keys that verify no signature here.
fn algorithm_of(jwk: &jsonwebtoken::jwk::Jwk) -> Option<Algorithm> {
    if let Some(named) = jwk.common.key_algorithm {
        return match named {
            KeyAlgorithm::RS256 => Some(Algorithm::RS256),
            KeyAlgorithm::RS384 => Some(Algorithm::RS384),
            KeyAlgorithm::RS512 => Some(Algorithm::RS512),
            KeyAlgorithm::PS256 => Some(Algorithm::PS256),
            KeyAlgorithm::PS384 => Some(Algorithm::PS384),
            KeyAlgorithm::PS512 => Some(Algorithm::PS512),
            KeyAlgorithm::ES256 => Some(Algorithm::ES256),
            KeyAlgorithm::ES384 => Some(Algorithm::ES384),
            KeyAlgorithm::EdDSA => Some(Algorithm::EdDSA),
            _ => None,
        };
    }
    match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => Some(Algorithm::RS256),
        AlgorithmParameters::EllipticCurve(ec) => match ec.curve {
            EllipticCurve::P256 => Some(Algorithm::ES256),
            EllipticCurve::P384 => Some(Algorithm::ES384),
            _ => None,
        },
        AlgorithmParameters::OctetKeyPair(okp) if okp.curve == EllipticCurve::Ed25519 => {
            Some(Algorithm::EdDSA)
        }
        _ => None,
    }
}

/// The key in the PEM file at `path`: RSA (RS256), P-256 (ES256) or Ed25519 (EdDSA).
pub(super) fn pem_key(path: &str) -> Result<Key, AuthSetupError> {
    let pem = std::fs::read(path).map_err(|source| AuthSetupError::Read {
        key: "auth.jwt_public_key_file",
        path: path.to_owned(),
        source,
    })?;
    let found = [
        (DecodingKey::from_rsa_pem(&pem), Algorithm::RS256),
        (DecodingKey::from_ec_pem(&pem), Algorithm::ES256),
        (DecodingKey::from_ed_pem(&pem), Algorithm::EdDSA),
    ]
    .into_iter()
    .find_map(|(key, algorithm)| key.ok().map(|key| Key { key, algorithm }));
    found.ok_or_else(|| AuthSetupError::BadPublicKey {
        path: path.to_owned(),
    })
}
