//! Operators' bans as every edge enforces them: the sentence a banned player reads, the
//! check that refuses them at `hello` and over HTTP, and closing their open connections
//! on this node and, in a fleet, on every other.

use std::time::Duration;

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use tracing::{info, warn};

use crate::fleet::FleetBans;
use crate::live::LiveConnections;
use crate::metrics::Metrics;
use crate::protocol::{ClientError, ErrorCode};
use crate::store::{Ban, Store, StoreError};
use parlor_room::PlayerId;

/// The error a banned player's connections are closed with, saying `sentence`.
pub(crate) fn banned(sentence: &str) -> ClientError {
    ClientError::new(ErrorCode::Banned, sentence)
}

/// What a banned player is told: that they are banned, until when, and why.
pub(crate) fn sentence(ban: &Ban) -> String {
    let until = match ban.expires_at_ms.map(rfc3339) {
        Some(at) => format!(" until {at}"),
        None => String::new(),
    };
    format!(
        "You are banned from this server{until}: {}. Contact the site's operators if you think this is a mistake.",
        ban.reason.trim_end_matches('.')
    )
}

/// A time in ms since the Unix epoch as RFC 3339 (UTC), e.g. `2026-12-01T10:00:00Z`.
pub(crate) fn rfc3339(ms: i64) -> String {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|at| at.format(&Rfc3339).ok())
        .unwrap_or_else(|| format!("{ms} ms after 1970"))
}

/// Why a player may not go on.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Refused {
    /// They are banned; the sentence says why and until when.
    #[error("{0}")]
    Banned(String),
    /// The store could not say.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Refused {
    /// The `error` a WebSocket client is sent.
    pub(crate) fn to_client_error(&self) -> ClientError {
        match self {
            Refused::Banned(sentence) => banned(sentence),
            Refused::Store(error) => {
                warn!(%error, "could not read a player's ban");
                ClientError::storage_unavailable()
            }
        }
    }
}

/// Refuses `player` if a ban on them is in force at `now_ms`.
pub(crate) async fn check(
    store: &dyn Store,
    player: &PlayerId,
    now_ms: i64,
) -> Result<(), Refused> {
    match store.ban_of(player, now_ms).await? {
        None => Ok(()),
        Some(ban) => {
            info!(%player, "a banned player was refused");
            Err(Refused::Banned(sentence(&ban)))
        }
    }
}

/// [`check`], as the error a WebSocket client is sent.
pub(crate) async fn refuse_banned(
    store: &dyn Store,
    player: &PlayerId,
    now_ms: i64,
) -> Result<(), ClientError> {
    check(store, player, now_ms)
        .await
        .map_err(|refused| refused.to_client_error())
}

/// How often, and how many times, telling the fleet of a ban is tried again when Redis
/// does not take it.
const TELL_AGAIN_EVERY: Duration = Duration::from_secs(1);
const TELL_ATTEMPTS: u32 = 120;

/// Closes the open connections of the player `ban` names: this node's at once, and in
/// a fleet every other node's through the fleet's ban news, told again every second for
/// two minutes while Redis does not take it (a node that was not listening reads the
/// bans from the store when it follows the news again). Returns how many connections
/// this node closed.
pub(crate) async fn close_connections(
    ban: &Ban,
    live: &LiveConnections,
    fleet: Option<&FleetBans>,
    metrics: &Metrics,
) -> usize {
    let message = sentence(ban);
    let closed = live.close_player(&ban.player_id, &banned(&message));
    metrics
        .bans_enforced
        .with_label_values(&["connection"])
        .inc_by(closed as u64);
    if let Some(fleet) = fleet {
        tokio::spawn(tell_fleet(fleet.clone(), ban.player_id.clone(), message));
    }
    closed
}

/// Tells the fleet that `player` is banned, trying again while Redis does not take it.
async fn tell_fleet(fleet: FleetBans, player: PlayerId, message: String) {
    for attempt in 1..=TELL_ATTEMPTS {
        match fleet.tell(&player, &message).await {
            Ok(()) => return,
            Err(error) if attempt == 1 => {
                warn!(%error, %player, "could not tell the fleet of a ban; trying again every second");
            }
            Err(_) => {}
        }
        tokio::time::sleep(TELL_AGAIN_EVERY).await;
    }
    warn!(%player, "gave up telling the fleet of a ban; each node closes the player's connections when it next follows the fleet's bans, and refuses their next hello meanwhile");
}
