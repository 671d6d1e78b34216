//! Operators' bans as every edge enforces them: the sentence a banned player reads, the
//! check that refuses them at `hello` and over HTTP, and closing their open connections
//! on this node and, in a fleet, on every other.

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use tracing::{info, warn};

use crate::fleet::FleetBans;
use crate::live::LiveConnections;
use crate::metrics::Metrics;
use crate::protocol::{ClientError, ErrorCode};
use crate::store::{Ban, Store, StoreError};
use parlor_room::PlayerId;

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
            Refused::Banned(sentence) => ClientError::new(ErrorCode::Banned, sentence.clone()),
            Refused::Store(error) => {
                warn!(%error, "could not read a player's ban");
                ClientError::storage_unavailable()
            }
        }
    }
}

/// Refuses `player` if a ban on them is in force at `now_ms`, counting the refusal at
/// `edge` (`hello`, `http`) in `parlor_bans_enforced_total`.
pub(crate) async fn check(
    store: &dyn Store,
    metrics: &Metrics,
    player: &PlayerId,
    now_ms: i64,
    edge: &'static str,
) -> Result<(), Refused> {
    match store.ban_of(player, now_ms).await? {
        None => Ok(()),
        Some(ban) => {
            info!(%player, edge, "a banned player was refused");
            metrics.bans_enforced.with_label_values(&[edge]).inc();
            Err(Refused::Banned(sentence(&ban)))
        }
    }
}

/// Closes the open connections of the player `ban` names: this node's at once, and in
/// a fleet every other node's through the fleet's ban news (should Redis not take it,
/// the other nodes close theirs when they next follow the news, which they do as soon
/// as Redis is back). Returns how many connections this node closed.
pub(crate) async fn close_connections(
    ban: &Ban,
    live: &LiveConnections,
    fleet: Option<&FleetBans>,
    metrics: &Metrics,
) -> usize {
    let message = sentence(ban);
    let closed = live.close_banned(&ban.player_id, &message);
    metrics
        .bans_enforced
        .with_label_values(&["connection"])
        .inc_by(closed as u64);
    if let Some(fleet) = fleet
        && let Err(error) = fleet.tell(&ban.player_id, &message).await
    {
        warn!(%error, player = %ban.player_id, "could not tell the fleet of a ban; the other nodes close the player's connections when they next follow the fleet's bans");
    }
    closed
}
