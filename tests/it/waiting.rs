//! Waiting for what nothing announces to the test: a condition asked about again and
//! again until it holds (a metric, a stored row, a listing, a node that has taken a
//! room over). What comes on a socket is waited for by reading the socket instead.
//!
//! The deadline only keeps a test whose condition never comes from running for ever: it
//! is far longer than the condition takes on a loaded machine, and nothing is asserted
//! about how long the wait took.

use std::time::{Duration, Instant};

/// The pause between two looks at the condition.
const POLL_EVERY: Duration = Duration::from_millis(25);

/// The pause between two requests a client sends again over its socket (the server
/// holds each connection to a message budget).
pub(crate) const ASK_AGAIN_EVERY: Duration = Duration::from_millis(200);

/// Asks `check` until it gives a value, a moment apart, and returns it. `check` says
/// what it sees instead (`Err`) while the condition does not hold; the test fails with
/// the last of those, naming `what`, if `patience` passes first.
pub(crate) async fn eventually<T>(
    what: &str,
    patience: Duration,
    check: impl AsyncFnMut() -> Result<T, String>,
) -> T {
    eventually_every(what, patience, POLL_EVERY, check).await
}

/// [`eventually`], asking `every` so often.
pub(crate) async fn eventually_every<T>(
    what: &str,
    patience: Duration,
    every: Duration,
    mut check: impl AsyncFnMut() -> Result<T, String>,
) -> T {
    let deadline = Instant::now() + patience;
    loop {
        match check().await {
            Ok(found) => return found,
            Err(seen) => assert!(
                Instant::now() < deadline,
                "{what}: still not so after {patience:?}; last seen: {seen}"
            ),
        }
        tokio::time::sleep(every).await;
    }
}
