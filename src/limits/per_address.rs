//! A per-minute quota per client address: counted in this node's memory on a single
//! server, and across the fleet (in Redis, `fleet::Cluster::take_from_quota`) on a node
//! of one. While Redis does not answer, a fleet's node counts alone, in memory, as a
//! single server would: a player's request is never refused, nor held up past the
//! cluster's response timeout, because Redis is away.

use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tracing::{info, warn};

use crate::fleet::Cluster;

use super::KeyedBudget;

/// The window of the per-minute quotas.
const MINUTE: Duration = Duration::from_secs(60);

/// How long, after Redis failed to answer a quota, a node counts alone without asking
/// it again: so that an outage holds up at most one request in this long, not each.
const ASK_AGAIN_AFTER: Duration = Duration::from_secs(1);

/// How long at least between two warnings of an outage, however often Redis comes and
/// goes.
const WARN_AT_MOST_EVERY: Duration = Duration::from_secs(60);

/// `count` requests a minute from each address, all of which may come at once.
pub(crate) struct AddressQuota {
    /// What the quota counts, as named in its Redis key (`rooms`, `players`).
    kind: &'static str,
    count: u32,
    /// This node's own count: the whole count on a single server, the fallback on a
    /// fleet's node (where it counts what this node let through).
    local: KeyedBudget,
    /// The fleet this node is part of, if any.
    fleet: Option<Cluster>,
}

/// Whether Redis is answering the quotas, shared by every quota of a node, so that an
/// outage is told once.
#[derive(Default)]
pub(crate) struct RedisOutage(Mutex<OutageState>);

#[derive(Default)]
struct OutageState {
    /// When Redis last failed to answer, while it has not answered since.
    failed_at: Option<Instant>,
    /// When an outage was last warned of.
    warned_at: Option<Instant>,
    /// Whether the outage going on was warned of (its end is then told too).
    warned: bool,
}

impl AddressQuota {
    /// `count` requests of `kind` a minute per address (0: no limit), counted across
    /// `fleet` if this node is part of one.
    pub(crate) fn per_minute(kind: &'static str, count: u32, fleet: Option<Cluster>) -> Self {
        AddressQuota {
            kind,
            count,
            local: KeyedBudget::per_minute(count),
            fleet: fleet.filter(|_| count > 0),
        }
    }

    /// Takes one request from `address`'s quota: `false` if it has none left right now.
    /// On a fleet's node, the fleet's count decides, or this node's own count while
    /// Redis does not answer (`outage` tells of it).
    pub(crate) async fn allow(&self, address: IpAddr, outage: &RedisOutage) -> bool {
        let Some(fleet) = self.fleet.as_ref().filter(|_| outage.should_ask()) else {
            return self.local.allow(address);
        };
        match fleet
            .take_from_quota(self.kind, address, self.count, MINUTE)
            .await
        {
            Ok(allowed) => {
                outage.answered();
                if allowed {
                    // This node's own count follows what it let through, ready to take
                    // over when Redis does not answer; its refusal is the fleet's to make.
                    let _ = self.local.allow(address);
                }
                allowed
            }
            Err(error) => {
                outage.failed(&error);
                self.local.allow(address)
            }
        }
    }

    /// Forgets the addresses whose quota in this node's memory has refilled.
    pub(crate) fn prune(&self) {
        self.local.prune();
    }
}

impl RedisOutage {
    /// Whether to ask Redis: not for a moment after it failed to answer.
    fn should_ask(&self) -> bool {
        self.0.lock().map_or(true, |state| {
            state
                .failed_at
                .is_none_or(|failed_at| failed_at.elapsed() >= ASK_AGAIN_AFTER)
        })
    }

    /// Redis answered: the outage, if there was one, is over.
    fn answered(&self) {
        let Ok(mut state) = self.0.lock() else {
            return;
        };
        if state.failed_at.take().is_some() && std::mem::take(&mut state.warned) {
            info!("Redis answers again: per-address limits are counted across the fleet again");
        }
    }

    /// Redis did not answer: warns of it once per outage (at most once a minute).
    fn failed(&self, error: &dyn std::error::Error) {
        let Ok(mut state) = self.0.lock() else {
            return;
        };
        let new_outage = state.failed_at.is_none();
        state.failed_at = Some(Instant::now());
        let quiet = state
            .warned_at
            .is_none_or(|warned_at| warned_at.elapsed() >= WARN_AT_MOST_EVERY);
        if new_outage && quiet {
            state.warned_at = Some(Instant::now());
            state.warned = true;
            warn!(
                %error,
                "per-address limits are counted by this node alone until Redis answers again (so an address may get up to the limit from each node)"
            );
        }
    }
}
