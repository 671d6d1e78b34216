//! Who opens the store: a single server or a node of a fleet (with the fleet's identity),
//! and whether the operator asked it to take the database over from whoever holds it.

use std::fmt;

/// The fleet a node belongs to, as the database's registry of servers records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FleetIdentity {
    /// The fleet's id: a random value kept in its Redis under its key prefix, the same
    /// for every node that coordinates through that Redis and prefix.
    pub(crate) id: String,
    /// Where the fleet coordinates, for the operator: Redis's address and the prefix.
    pub(crate) coordinator: String,
}

/// The server opening the store.
#[derive(Clone, Debug)]
pub(crate) struct Claimant {
    /// This server's node id (a fleet node's, or a fresh one for a single server).
    pub(crate) node: String,
    /// Its fleet; `None` for a single server, which holds the database alone.
    pub(crate) fleet: Option<FleetIdentity>,
    /// Whether the operator asked (`--take-over-database`) to take the database over
    /// from the servers holding it, rather than refuse to start beside them.
    pub(crate) take_over: bool,
}

impl Claimant {
    /// A single server with a fresh node id, not taking anything over: what the tests
    /// that open a store of their own are.
    #[cfg(test)]
    pub(crate) fn single() -> Claimant {
        Claimant {
            node: format!("{:016x}", rand::random::<u64>()),
            fleet: None,
            take_over: false,
        }
    }
}

impl fmt::Display for Claimant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.fleet {
            Some(fleet) => write!(
                f,
                "a node of the fleet coordinating through {}",
                fleet.coordinator
            ),
            None => write!(f, "a single server"),
        }
    }
}
