//! Player identity: names, tokens, and the `hello` handshake, as a guest or signed in
//! with a site's token (whose account is bound to one player for good).
//!
//! A token is 256 random bits, shown to its player once per `welcome` and stored only as
//! a SHA-256 hash, so neither logs nor a copy of the database reveal it. A name belongs to
//! the first player that used it, compared case-insensitively.

use parlor_room::PlayerId;
use rand::RngCore;
use sha2::{Digest, Sha256};
use unicode_security::GeneralSecurityProfile;
use unicode_security::general_security_profile::IdentifierType;

use crate::auth::SiteUser;
use crate::bans;
use crate::protocol::{ClientError, ErrorCode};
use crate::store::{PlayerRecord, Store, StoreError};

/// The longest name allowed, in characters, after trimming.
pub(crate) const MAX_NAME_CHARS: usize = 24;

/// Who a connection speaks for, once `hello` succeeded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Identity {
    /// The player's public id.
    pub(crate) player_id: PlayerId,
    /// The player's name.
    pub(crate) name: String,
    /// The player's secret token (only ever sent back to this player); none for a
    /// player signed in with the site's token.
    pub(crate) token: Option<String>,
    /// Whether the player signed in with the site's token.
    pub(crate) signed_in: bool,
    /// Whether the player is a bot account: it may watch and chat here, but plays only
    /// through the Bot API.
    pub(crate) bot_account: bool,
}

/// `bytes` random bytes as lowercase hex.
pub(crate) fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::rng().fill_bytes(&mut buf);
    to_hex(&buf)
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn hash_token(token: &str) -> String {
    to_hex(&Sha256::digest(token.as_bytes()))
}

/// The player a token belongs to, if any (the token as the player holds it; the store
/// keeps only its hash).
pub(crate) async fn player_by_token(
    store: &dyn Store,
    token: &str,
) -> Result<Option<PlayerRecord>, StoreError> {
    store.player_by_token(&hash_token(token)).await
}

/// Checks and trims a requested name.
pub(crate) fn clean_name(name: &str) -> Result<String, ClientError> {
    let name = name.trim();
    let chars = name.chars().count();
    if chars == 0 || chars > MAX_NAME_CHARS {
        return Err(ClientError::new(
            ErrorCode::BadName,
            format!(
                "A name must be 1 to {MAX_NAME_CHARS} characters long (spaces at either end are ignored)."
            ),
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(ClientError::new(
            ErrorCode::BadName,
            "A name cannot contain control characters such as newlines or tabs.",
        ));
    }
    if name.chars().any(is_invisible) {
        return Err(ClientError::new(
            ErrorCode::BadName,
            "A name cannot contain invisible characters (zero-width spaces or joiners, \
             direction overrides such as U+202E, and the like): use only characters people can see.",
        ));
    }
    Ok(name.to_owned())
}

/// Whether `c` changes how a name looks or reads without showing itself: Unicode's
/// default-ignorable characters, which include the zero-width space and joiners and every
/// bidirectional override or isolate (a `U+202E` turns `Ann\u{202E}rekcah` into what reads
/// as `Annhacker`).
fn is_invisible(c: char) -> bool {
    c.identifier_type() == Some(IdentifierType::Default_Ignorable)
}

fn store_error(error: StoreError, name: &str) -> ClientError {
    match error {
        StoreError::NameTaken => ClientError::new(
            ErrorCode::NameTaken,
            format!(
                "The name \"{name}\" belongs to another player. Choose another name, or send the token you were given with it."
            ),
        ),
        other => {
            tracing::error!(error = %other, "could not read or save a player");
            ClientError::storage_unavailable()
        }
    }
}

/// Performs `hello`: resumes the player a known token belongs to (renaming them if they
/// ask for a different, free name), or registers a new player with a fresh token once
/// `admit_new` allows it (the per-address quota, awaited only then: a returning player
/// never asks it).
pub(crate) async fn hello(
    store: &dyn Store,
    name: &str,
    token: Option<&str>,
    now_ms: i64,
    admit_new: impl Future<Output = Result<(), ClientError>>,
) -> Result<Identity, ClientError> {
    let name = clean_name(name)?;
    if let Some(token) = token {
        let known = player_by_token(store, token)
            .await
            .map_err(|e| store_error(e, &name))?;
        if let Some(player) = known {
            // Refused before anything is written: a banned player renames nothing.
            bans::refuse_banned(store, &player.player_id, now_ms).await?;
            if player.name != name {
                store
                    .rename_player(&player.player_id, &name)
                    .await
                    .map_err(|e| store_error(e, &name))?;
            }
            return Ok(Identity {
                player_id: player.player_id,
                name,
                token: Some(token.to_owned()),
                signed_in: false,
                bot_account: player.bot_account,
            });
        }
    }
    admit_new.await?;
    let token = random_hex(32);
    let player = PlayerRecord {
        player_id: PlayerId::from(format!("p_{}", random_hex(8))),
        name: name.clone(),
        bot_account: false,
    };
    store
        .create_player(&player, &hash_token(&token), now_ms)
        .await
        .map_err(|e| store_error(e, &name))?;
    Ok(Identity {
        player_id: player.player_id,
        name,
        token: Some(token),
        signed_in: false,
        bot_account: false,
    })
}

/// Performs `hello` with a site's token, for `user`: the player their account is bound
/// to; the first time, the guest `guest_token` speaks for, linked to the account for
/// good (their games and ratings kept), or else a new player once `admit_new` (awaited
/// only then) allows it.
/// The name is the token's (or, if it names none, `asked_name`), checked like a chosen
/// one; a player whose site name changed is renamed.
pub(crate) async fn sign_in(
    store: &dyn Store,
    user: &SiteUser,
    asked_name: Option<&str>,
    guest_token: Option<&str>,
    now_ms: i64,
    admit_new: impl Future<Output = Result<(), ClientError>>,
) -> Result<Identity, ClientError> {
    let name = user
        .name
        .as_deref()
        .or(asked_name)
        .map(clean_name)
        .transpose()?;
    let shown = name.as_deref().unwrap_or_default();
    let guest = match guest_token {
        Some(token) => player_by_token(store, token)
            .await
            .map_err(|e| signed_in_error(e, shown))?,
        None => None,
    };
    let bound = store
        .player_by_identity(&user.identity)
        .await
        .map_err(|e| signed_in_error(e, shown))?;
    // A banned player is refused before anything is written (a link, a rename).
    if let Some(known) = bound.as_ref().or(guest.as_ref()) {
        bans::refuse_banned(store, &known.player_id, now_ms).await?;
    }
    let (player, name) = match (bound, guest) {
        (Some(bound), Some(guest)) if guest.player_id != bound.player_id => {
            return Err(signed_in_error(StoreError::AlreadyLinked, shown));
        }
        (Some(bound), _) => (bound, name),
        (None, Some(guest)) => {
            // The guest's token is retired: from now on the site signs this player in.
            let unshown = hash_token(&random_hex(32));
            store
                .link_identity(&guest.player_id, &user.identity, &unshown, now_ms)
                .await
                .map_err(|e| signed_in_error(e, shown))?;
            tracing::info!(player_id = %guest.player_id, "guest linked to a site account");
            (guest, name)
        }
        (None, None) => {
            let name = name.ok_or_else(|| {
                ClientError::new(
                    ErrorCode::BadName,
                    "Your sign-in token carries no name: send one in `name` with the token.",
                )
            })?;
            admit_new.await?;
            let player = PlayerRecord {
                player_id: PlayerId::from(format!("p_{}", random_hex(8))),
                name,
                bot_account: false,
            };
            // A token nobody holds: this player signs in with the site's tokens only.
            let unshown = hash_token(&random_hex(32));
            store
                .create_signed_in_player(&player, &unshown, &user.identity, now_ms)
                .await
                .map_err(|e| signed_in_error(e, &player.name))?;
            // Made with the name: nothing to rename.
            (player, None)
        }
    };
    let name = match name {
        Some(name) if name != player.name => {
            store
                .rename_player(&player.player_id, &name)
                .await
                .map_err(|e| signed_in_error(e, &name))?;
            name
        }
        _ => player.name,
    };
    Ok(Identity {
        player_id: player.player_id,
        name,
        token: None,
        signed_in: true,
        bot_account: player.bot_account,
    })
}

/// The error a signed-in `hello` gets for a store error.
fn signed_in_error(error: StoreError, name: &str) -> ClientError {
    match error {
        StoreError::NameTaken => ClientError::new(
            ErrorCode::NameTaken,
            format!(
                "The name \"{name}\" belongs to another player on this server. Change your name on the site you signed in with, then connect again."
            ),
        ),
        StoreError::AlreadyLinked => ClientError::new(
            ErrorCode::AlreadyLinked,
            "This guest and this site account cannot be linked: the account already has its own player here, or the guest is linked to another account. Sign in without the guest's token.",
        ),
        other => store_error(other, name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_trimmed_and_checked() {
        assert_eq!(clean_name("  Ann ").unwrap(), "Ann");
        assert_eq!(clean_name(&"é".repeat(24)).unwrap().chars().count(), 24);
        for good in [
            "Zoë",
            "Łukasz",
            "Ōtani 大谷",
            "Jean-Luc",
            "O'Brien",
            "Анна",
            "علي",
        ] {
            assert_eq!(clean_name(good).unwrap(), good);
        }
        for bad in ["", "   ", &"x".repeat(25), "a\nb", "tab\there"]
            .into_iter()
            .map(str::to_owned)
            .chain(
                // Direction overrides and isolates, zero-width characters, soft hyphen.
                [
                    '\u{202E}', '\u{202D}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
                    '\u{200E}', '\u{200F}', '\u{061C}', '\u{200B}', '\u{200C}', '\u{200D}',
                    '\u{2060}', '\u{FEFF}', '\u{00AD}',
                ]
                .map(|c| format!("Ann{c}rekcah")),
            )
        {
            let bad = bad.as_str();
            assert_eq!(
                clean_name(bad).unwrap_err().code,
                ErrorCode::BadName,
                "{bad:?}"
            );
        }
    }

    #[test]
    fn tokens_are_long_random_and_hashed() {
        let a = random_hex(32);
        assert_eq!(a.len(), 64);
        assert_ne!(a, random_hex(32));
        assert_eq!(hash_token(&a).len(), 64);
        assert_ne!(hash_token(&a), a);
    }
}
