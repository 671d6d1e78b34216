//! Whether this node can serve new players (`GET /readyz`): its store answers a trivial
//! query, on a node of a fleet Redis answers `PING` (each within [`CHECK_BOUND`], both at
//! once), the server is not draining (its shutdown has not begun), and the node is not
//! fenced out of its fleet. Every check's outcome is kept in the metrics
//! (`parlor_store_up`, `parlor_store_ping_seconds`, `parlor_redis_up`, `parlor_ready`),
//! also every [`WATCH_EVERY`] while nobody asks.
//!
//! Fencing out is the database registry's to say ([`Readiness::set_fenced_out`]): a
//! server another one took the database over from is not ready, from that moment on.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::fleet::Cluster;
use crate::metrics::Metrics;
use crate::store::Store;

/// How long the store and Redis each get to answer a check.
pub(crate) const CHECK_BOUND: Duration = Duration::from_secs(1);

/// How often the checks run while nobody asks (their metrics stay current).
pub(crate) const WATCH_EVERY: Duration = Duration::from_secs(3);

/// What this node's readiness is judged on. Cloning it is cheap and shares the flags.
#[derive(Clone)]
pub(crate) struct Readiness {
    inner: Arc<Inner>,
}

struct Inner {
    store: Arc<dyn Store>,
    /// This node's fleet, on a node of one.
    cluster: Option<Cluster>,
    metrics: Arc<Metrics>,
    /// Cancelled when the server's shutdown begins: it is draining from then on.
    shutdown: CancellationToken,
    /// Set by the fleet when this node may no longer serve for it.
    fenced_out: AtomicBool,
}

/// How one service answered a check.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub(crate) struct ServiceCheck {
    /// Whether it answered in time.
    pub(crate) ok: bool,
    /// How long the check took, ms (up to the bound when it did not answer).
    pub(crate) ms: f64,
    /// Why it failed (when it did).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
}

/// This node's standing in its fleet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum FleetStanding {
    /// It serves for its fleet.
    Member,
    /// Its fleet no longer counts on it (another node took it over, or it is not
    /// registered): it must not take new players.
    FencedOut,
}

/// What a readiness check found.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub(crate) struct Checks {
    /// The store's answer to a trivial query.
    pub(crate) store: ServiceCheck,
    /// Redis's answer to `PING`; `null` on a single server.
    pub(crate) redis: Option<ServiceCheck>,
    /// Whether the server is shutting down (it takes no new players).
    pub(crate) draining: bool,
    /// This node's standing in its fleet; `null` on a single server.
    pub(crate) fleet: Option<FleetStanding>,
}

impl Checks {
    /// Whether these checks let the node take new players.
    pub(crate) fn ready(&self) -> bool {
        self.store.ok
            && self.redis.as_ref().is_none_or(|redis| redis.ok)
            && !self.draining
            && self.fleet != Some(FleetStanding::FencedOut)
    }
}

impl Readiness {
    /// The readiness of a server on `store` (and of `cluster`'s node, in a fleet),
    /// draining once `shutdown` is cancelled, its checks kept in `metrics`.
    pub(crate) fn new(
        store: Arc<dyn Store>,
        cluster: Option<Cluster>,
        metrics: Arc<Metrics>,
        shutdown: CancellationToken,
    ) -> Readiness {
        Readiness {
            inner: Arc::new(Inner {
                store,
                cluster,
                metrics,
                shutdown,
                fenced_out: AtomicBool::new(false),
            }),
        }
    }

    /// This node's id in its fleet; `None` on a single server.
    pub(crate) fn node(&self) -> Option<String> {
        let cluster = self.inner.cluster.as_ref()?;
        Some(cluster.node().to_string())
    }

    /// Marks this node fenced out of its fleet (`true`: taken over, or not registered),
    /// or a member again (`false`). Readiness fails at once while it is fenced out.
    pub(crate) fn set_fenced_out(&self, fenced_out: bool) {
        self.inner.fenced_out.store(fenced_out, Ordering::Relaxed);
    }

    /// Runs every check at once, each within [`CHECK_BOUND`], and records what they
    /// found in the metrics.
    pub(crate) async fn check(&self) -> Checks {
        let inner = &self.inner;
        let store = timed(inner.store.ping(CHECK_BOUND));
        let redis = async {
            match &inner.cluster {
                Some(cluster) => Some(timed(cluster.ping(CHECK_BOUND)).await),
                None => None,
            }
        };
        let (store, redis) = tokio::join!(store, redis);
        let checks = Checks {
            store,
            redis,
            draining: inner.shutdown.is_cancelled(),
            fleet: inner.cluster.as_ref().map(|_| {
                if inner.fenced_out.load(Ordering::Relaxed) {
                    FleetStanding::FencedOut
                } else {
                    FleetStanding::Member
                }
            }),
        };
        self.record(&checks);
        checks
    }

    /// Keeps the metrics of the checks current: runs them at once, then every `every`
    /// until the shutdown.
    pub(crate) async fn watch(self, every: Duration) {
        let shutdown = self.inner.shutdown.clone();
        loop {
            self.check().await;
            tokio::select! {
                () = tokio::time::sleep(every) => {}
                () = shutdown.cancelled() => return,
            }
        }
    }

    fn record(&self, checks: &Checks) {
        let metrics = &self.inner.metrics;
        metrics.store_up.set(i64::from(checks.store.ok));
        if checks.store.ok {
            metrics.store_ping_seconds.observe(checks.store.ms / 1000.0);
        }
        if let Some(redis) = &checks.redis {
            metrics.redis_up.set(i64::from(redis.ok));
        }
        metrics.ready.set(i64::from(checks.ready()));
    }
}

/// `asked`'s outcome as a check: whether it succeeded, how long it took, and why not.
async fn timed<E: std::fmt::Display>(asked: impl Future<Output = Result<(), E>>) -> ServiceCheck {
    let since = Instant::now();
    let answered = asked.await;
    let ms = since.elapsed().as_secs_f64() * 1000.0;
    match answered {
        Ok(()) => ServiceCheck {
            ok: true,
            ms,
            error: None,
        },
        Err(error) => ServiceCheck {
            ok: false,
            ms,
            error: Some(error.to_string()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{BatchStats, open};

    async fn sqlite_readiness(
        dir: &std::path::Path,
    ) -> (Readiness, Arc<Metrics>, CancellationToken) {
        let config = crate::config::StoreConfig {
            path: dir.join("parlor.db"),
            ..crate::config::StoreConfig::default()
        };
        let store = open(
            &config,
            BatchStats::unreported(),
            &crate::store::Claimant::single(),
        )
        .await
        .expect("open the store");
        let metrics = Arc::new(Metrics::new().expect("metrics"));
        let shutdown = CancellationToken::new();
        let readiness = Readiness::new(store, None, metrics.clone(), shutdown.clone());
        (readiness, metrics, shutdown)
    }

    #[tokio::test]
    async fn a_single_server_is_ready_until_it_drains_and_says_so_in_its_metrics() {
        let dir = tempfile::tempdir().expect("a folder");
        let (readiness, metrics, shutdown) = sqlite_readiness(dir.path()).await;
        assert_eq!(readiness.node(), None);
        let checks = readiness.check().await;
        assert!(checks.ready(), "{checks:?}");
        assert!(
            checks.store.ok && checks.store.error.is_none(),
            "{checks:?}"
        );
        assert!(
            checks.redis.is_none() && checks.fleet.is_none(),
            "{checks:?}"
        );
        assert_eq!((metrics.ready.get(), metrics.store_up.get()), (1, 1));
        assert_eq!(metrics.store_ping_seconds.get_sample_count(), 1);

        shutdown.cancel();
        let checks = readiness.check().await;
        assert!(checks.draining && !checks.ready(), "{checks:?}");
        assert_eq!(metrics.ready.get(), 0);
    }

    #[tokio::test]
    async fn a_closed_store_fails_the_check_with_its_reason() {
        let dir = tempfile::tempdir().expect("a folder");
        let (readiness, metrics, _shutdown) = sqlite_readiness(dir.path()).await;
        readiness.inner.store.close().await;
        let checks = readiness.check().await;
        assert!(!checks.ready() && !checks.store.ok, "{checks:?}");
        assert!(checks.store.error.is_some(), "{checks:?}");
        assert_eq!((metrics.ready.get(), metrics.store_up.get()), (0, 0));
    }

    #[tokio::test]
    async fn a_node_fenced_out_of_its_fleet_is_not_ready_until_it_is_a_member_again() {
        let test = "a_node_fenced_out_of_its_fleet_is_not_ready_until_it_is_a_member_again";
        let Some([cluster]) = crate::fleet::cluster_tests::fleet::<1>(
            test,
            crate::fleet::cluster_tests::LONG_LEASE_MS,
        )
        .await
        else {
            return;
        };
        let dir = tempfile::tempdir().expect("a folder");
        let (single, metrics, shutdown) = sqlite_readiness(dir.path()).await;
        metrics.register_fleet().expect("fleet metrics");
        let readiness = Readiness::new(
            single.inner.store.clone(),
            Some(cluster.clone()),
            metrics.clone(),
            shutdown,
        );
        assert_eq!(readiness.node(), Some(cluster.node().to_string()));
        let checks = readiness.check().await;
        assert!(checks.ready(), "{checks:?}");
        assert_eq!(checks.fleet, Some(FleetStanding::Member));
        assert!(
            checks.redis.as_ref().is_some_and(|redis| redis.ok),
            "{checks:?}"
        );
        assert_eq!(metrics.redis_up.get(), 1);

        readiness.set_fenced_out(true);
        let checks = readiness.check().await;
        assert_eq!(checks.fleet, Some(FleetStanding::FencedOut));
        assert!(!checks.ready(), "{checks:?}");
        readiness.set_fenced_out(false);
        assert!(readiness.check().await.ready());
    }
}
