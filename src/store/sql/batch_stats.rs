//! What the group commit reports to `/metrics`: moves per transaction and commit times,
//! the same for every engine.

use prometheus::Histogram;

/// How the batches went, for `/metrics`. The histograms are shared, so the server can
/// register these same ones in its registry.
#[derive(Clone)]
pub(crate) struct BatchStats {
    /// Moves per transaction.
    pub(crate) moves: Histogram,
    /// Seconds from a batch's first statement to its commit's return.
    pub(crate) commit_seconds: Histogram,
}

impl BatchStats {
    /// Histograms that nobody reports (for stores opened outside a server, in tests).
    #[cfg(test)]
    pub(crate) fn unreported() -> BatchStats {
        let histogram = |name: &str| {
            Histogram::with_opts(prometheus::HistogramOpts::new(name, name))
                .unwrap_or_else(|_| unreachable!("a literal name and help are valid"))
        };
        BatchStats {
            moves: histogram("batch_moves"),
            commit_seconds: histogram("batch_commit_seconds"),
        }
    }
}
