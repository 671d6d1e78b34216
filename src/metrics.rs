//! The server's Prometheus metrics, served at `GET /metrics`.
//!
//! One [`Metrics`] per server, with its own registry (no global state), so that several
//! servers in one process (the integration tests) each count only their own traffic.
//! Every metric is named `parlor_*`; docs/OPERATIONS.md lists them with example queries
//! and what to alert on. The fleet's own (Redis, leases, adoptions, the relay) are
//! registered only on a node of a fleet ([`Metrics::register_fleet`]), so that a single
//! server shows no `parlor_redis_up 0` to alert on.

use prometheus::{
    Encoder, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge,
    IntGaugeVec, Opts, Registry, TextEncoder,
};

/// Latency buckets in seconds, from 50 µs to 10 s: moves are committed and broadcast in
/// well under a millisecond on a quiet server, and bots think for up to seconds.
const LATENCY_BUCKETS: &[f64] = &[
    0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
    1.0, 2.5, 5.0, 10.0,
];

/// Counting buckets for how many things one event touched (subscribers of a broadcast,
/// moves in a store batch).
const COUNT_BUCKETS: &[f64] = &[1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0];

use crate::store::StoreError;

/// A metric that could not be registered: two metrics with one name. A programming
/// error, reported at start-up rather than hidden.
#[derive(Debug, thiserror::Error)]
#[error("could not set up the metrics: {0}")]
pub struct MetricsError(#[from] prometheus::Error);

/// Every metric the server keeps.
pub(crate) struct Metrics {
    registry: Registry,
    /// WebSocket connections open now.
    pub(crate) connections_open: IntGauge,
    /// Live rooms, by game and status (`waiting`, `playing`, `finished`).
    pub(crate) rooms: IntGaugeVec,
    /// Moves accepted, by game.
    pub(crate) moves_accepted: IntCounterVec,
    /// Requests refused with an `error`, by error code (illegal moves included).
    pub(crate) errors: IntCounterVec,
    /// Text frames received from clients.
    pub(crate) messages_in: IntCounter,
    /// Frames queued to clients (each subscriber's copy counts once).
    pub(crate) messages_out: IntCounter,
    /// How many subscribers one broadcast reached.
    pub(crate) broadcast_fanout: Histogram,
    /// Subscribers dropped because their outbound queue was full.
    pub(crate) slow_consumers_dropped: IntCounter,
    /// Moves written per store transaction.
    pub(crate) store_batch_moves: Histogram,
    /// How long a store transaction of moves took to commit, seconds.
    pub(crate) store_commit_seconds: Histogram,
    /// From a move's arrival at its room to its broadcast (validation and the durable
    /// write included), seconds.
    pub(crate) move_to_broadcast_seconds: Histogram,
    /// How long a bot thought about one move, seconds, by game and level.
    pub(crate) bot_think_seconds: HistogramVec,
    /// Operators' actions (`/api/admin/…`), by action.
    pub(crate) admin_actions: IntCounterVec,
    /// Bans enforced, by where: a `hello` or an HTTP call refused, or a connection closed.
    pub(crate) bans_enforced: IntCounterVec,
    /// 1 while the store answered its last check (`/readyz`, or the periodic one), else 0.
    pub(crate) store_up: IntGauge,
    /// How long the store took to answer a check's trivial query, seconds.
    pub(crate) store_ping_seconds: Histogram,
    /// A room's writes the store refused because another node holds the game now.
    pub(crate) store_fenced_writes: IntCounter,
    /// 1 while this node's last readiness check found it ready, else 0.
    pub(crate) ready: IntGauge,
    /// The fleet's: 1 while Redis answered its last check, else 0.
    pub(crate) redis_up: IntGauge,
    /// The fleet's: the rooms whose leases this node holds, as of its last renewal.
    pub(crate) fleet_leases_held: IntGauge,
    /// The fleet's: games this node adopted (their node had died or stopped).
    pub(crate) fleet_adoptions: IntCounter,
    /// The fleet's: rooms whose lease this node found another node holding.
    pub(crate) fleet_leases_lost: IntCounter,
    /// The fleet's: from a request relayed to a room's node to its answer, seconds.
    pub(crate) fleet_relay_seconds: Histogram,
}

impl Metrics {
    /// A fresh set of metrics, all zero, in a registry of their own (with the process's
    /// CPU and memory, on Linux).
    pub(crate) fn new() -> Result<Metrics, MetricsError> {
        let registry = Registry::new();
        let metrics = Metrics {
            connections_open: IntGauge::new(
                "parlor_connections_open",
                "WebSocket connections open now",
            )?,
            rooms: IntGaugeVec::new(
                Opts::new("parlor_rooms", "Live rooms by game and status"),
                &["game", "status"],
            )?,
            moves_accepted: IntCounterVec::new(
                Opts::new("parlor_moves_accepted_total", "Moves accepted, by game"),
                &["game"],
            )?,
            errors: IntCounterVec::new(
                Opts::new(
                    "parlor_errors_total",
                    "Requests refused with an error message, by error code",
                ),
                &["code"],
            )?,
            messages_in: IntCounter::new(
                "parlor_messages_in_total",
                "Text frames received from clients",
            )?,
            messages_out: IntCounter::new(
                "parlor_messages_out_total",
                "Frames queued to clients, one per subscriber",
            )?,
            broadcast_fanout: Histogram::with_opts(
                HistogramOpts::new(
                    "parlor_broadcast_fanout",
                    "Subscribers reached by one broadcast",
                )
                .buckets(COUNT_BUCKETS.to_vec()),
            )?,
            slow_consumers_dropped: IntCounter::new(
                "parlor_slow_consumers_dropped_total",
                "Connections dropped for not reading: a room's queue for them, or their own, was full, or a write stalled",
            )?,
            store_batch_moves: Histogram::with_opts(
                HistogramOpts::new(
                    "parlor_store_batch_moves",
                    "Moves written per store transaction",
                )
                .buckets(COUNT_BUCKETS.to_vec()),
            )?,
            store_commit_seconds: Histogram::with_opts(
                HistogramOpts::new(
                    "parlor_store_commit_seconds",
                    "Time to write and commit one store transaction of moves",
                )
                .buckets(LATENCY_BUCKETS.to_vec()),
            )?,
            move_to_broadcast_seconds: Histogram::with_opts(
                HistogramOpts::new(
                    "parlor_move_to_broadcast_seconds",
                    "From a move's arrival at its room to its broadcast",
                )
                .buckets(LATENCY_BUCKETS.to_vec()),
            )?,
            bot_think_seconds: HistogramVec::new(
                HistogramOpts::new(
                    "parlor_bot_think_seconds",
                    "Time a bot spent choosing one move",
                )
                .buckets(LATENCY_BUCKETS.to_vec()),
                &["game", "level"],
            )?,
            admin_actions: IntCounterVec::new(
                Opts::new(
                    "parlor_admin_actions_total",
                    "Operators' actions through /api/admin, by action",
                ),
                &["action"],
            )?,
            bans_enforced: IntCounterVec::new(
                Opts::new(
                    "parlor_bans_enforced_total",
                    "Bans enforced: a hello or an HTTP call refused, or a connection closed",
                ),
                &["at"],
            )?,
            store_up: IntGauge::new(
                "parlor_store_up",
                "1 while the database answered its last check, else 0",
            )?,
            store_ping_seconds: Histogram::with_opts(
                HistogramOpts::new(
                    "parlor_store_ping_seconds",
                    "Time the database took to answer a health check's trivial query",
                )
                .buckets(LATENCY_BUCKETS.to_vec()),
            )?,
            store_fenced_writes: IntCounter::new(
                "parlor_store_fenced_writes_total",
                "Room writes the database refused because another node holds the game now",
            )?,
            ready: IntGauge::new(
                "parlor_ready",
                "1 while this node's last readiness check found it ready for new players, else 0",
            )?,
            redis_up: IntGauge::new(
                "parlor_redis_up",
                "1 while the fleet's Redis answered its last check, else 0",
            )?,
            fleet_leases_held: IntGauge::new(
                "parlor_fleet_leases_held",
                "Rooms whose leases this node holds, as of its last renewal",
            )?,
            fleet_adoptions: IntCounter::new(
                "parlor_fleet_adoptions_total",
                "Games this node adopted from a node that died or stopped",
            )?,
            fleet_leases_lost: IntCounter::new(
                "parlor_fleet_leases_lost_total",
                "Rooms whose lease this node found held by another node",
            )?,
            fleet_relay_seconds: Histogram::with_opts(
                HistogramOpts::new(
                    "parlor_fleet_relay_seconds",
                    "From a request relayed to a room's node to its answer",
                )
                .buckets(LATENCY_BUCKETS.to_vec()),
            )?,
            registry,
        };
        metrics.register()?;
        Ok(metrics)
    }

    fn register(&self) -> Result<(), prometheus::Error> {
        let registry = &self.registry;
        registry.register(Box::new(self.connections_open.clone()))?;
        registry.register(Box::new(self.rooms.clone()))?;
        registry.register(Box::new(self.moves_accepted.clone()))?;
        registry.register(Box::new(self.errors.clone()))?;
        registry.register(Box::new(self.messages_in.clone()))?;
        registry.register(Box::new(self.messages_out.clone()))?;
        registry.register(Box::new(self.broadcast_fanout.clone()))?;
        registry.register(Box::new(self.slow_consumers_dropped.clone()))?;
        registry.register(Box::new(self.store_batch_moves.clone()))?;
        registry.register(Box::new(self.store_commit_seconds.clone()))?;
        registry.register(Box::new(self.move_to_broadcast_seconds.clone()))?;
        registry.register(Box::new(self.bot_think_seconds.clone()))?;
        registry.register(Box::new(self.admin_actions.clone()))?;
        registry.register(Box::new(self.bans_enforced.clone()))?;
        registry.register(Box::new(self.store_up.clone()))?;
        registry.register(Box::new(self.store_ping_seconds.clone()))?;
        registry.register(Box::new(self.store_fenced_writes.clone()))?;
        registry.register(Box::new(self.ready.clone()))?;
        #[cfg(target_os = "linux")]
        registry.register(Box::new(
            prometheus::process_collector::ProcessCollector::for_self(),
        ))?;
        Ok(())
    }

    /// Counts a room's write that the store refused with `error`, if it refused it
    /// because another node holds the game now (`parlor_store_fenced_writes_total`).
    pub(crate) fn count_refused_write(&self, error: &StoreError) {
        if matches!(error, StoreError::Fenced { .. }) {
            self.store_fenced_writes.inc();
        }
    }

    /// Adds the fleet's metrics (Redis, leases, adoptions, the relay) to what is
    /// reported: called once, on a node of a fleet.
    pub(crate) fn register_fleet(&self) -> Result<(), MetricsError> {
        let registry = &self.registry;
        registry.register(Box::new(self.redis_up.clone()))?;
        registry.register(Box::new(self.fleet_leases_held.clone()))?;
        registry.register(Box::new(self.fleet_adoptions.clone()))?;
        registry.register(Box::new(self.fleet_leases_lost.clone()))?;
        registry.register(Box::new(self.fleet_relay_seconds.clone()))?;
        Ok(())
    }

    /// Every metric in Prometheus's text format, for `GET /metrics`.
    pub(crate) fn render(&self) -> Result<String, MetricsError> {
        let mut text = Vec::new();
        TextEncoder::new().encode(&self.registry.gather(), &mut text)?;
        Ok(String::from_utf8_lossy(&text).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_show_up_in_the_text_format() {
        let metrics = Metrics::new().unwrap();
        metrics.moves_accepted.with_label_values(&["chess"]).inc();
        metrics
            .rooms
            .with_label_values(&["chess", "playing"])
            .set(3);
        metrics.move_to_broadcast_seconds.observe(0.0004);
        let text = metrics.render().unwrap();
        assert!(
            text.contains("parlor_moves_accepted_total{game=\"chess\"} 1"),
            "{text}"
        );
        assert!(
            text.contains("parlor_rooms{game=\"chess\",status=\"playing\"} 3"),
            "{text}"
        );
        assert!(
            text.contains("parlor_move_to_broadcast_seconds_bucket{le=\"0.0005\"} 1"),
            "{text}"
        );
        // Two servers in one process keep separate counts.
        let other = Metrics::new().unwrap();
        assert!(!other.render().unwrap().contains("game=\"chess\""));
    }

    #[test]
    fn only_a_write_refused_for_another_nodes_game_counts_as_fenced() {
        let metrics = Metrics::new().unwrap();
        let fenced = StoreError::Fenced {
            game_id: parlor_room::GameId::from("g_1"),
        };
        metrics.count_refused_write(&fenced);
        metrics.count_refused_write(&StoreError::Closed);
        metrics.count_refused_write(&fenced);
        assert_eq!(metrics.store_fenced_writes.get(), 2);
    }

    #[test]
    fn the_fleets_metrics_show_only_on_a_node_of_a_fleet() {
        let metrics = Metrics::new().unwrap();
        metrics.store_up.set(1);
        let single = metrics.render().unwrap();
        assert!(single.contains("parlor_store_up 1"), "{single}");
        assert!(single.contains("parlor_ready 0"), "{single}");
        assert!(!single.contains("parlor_redis_up"), "{single}");
        metrics.register_fleet().unwrap();
        metrics.fleet_leases_held.set(4);
        let node = metrics.render().unwrap();
        assert!(node.contains("parlor_redis_up 0"), "{node}");
        assert!(node.contains("parlor_fleet_leases_held 4"), "{node}");
        assert!(node.contains("parlor_fleet_adoptions_total 0"), "{node}");
        assert!(
            node.contains("parlor_fleet_relay_seconds_count 0"),
            "{node}"
        );
    }
}
