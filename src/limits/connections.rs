//! Open connections per client address: a count that a [`ConnectionPermit`] holds up for
//! as long as its connection lives, whichever way the connection ends.

use std::net::IpAddr;
use std::sync::Arc;

use dashmap::DashMap;

/// The open connections of every address that has one.
pub(crate) struct Connections {
    per_address: u32,
    open: Arc<DashMap<IpAddr, u32>>,
}

/// One open connection's place in its address's count; dropping it frees the place.
#[must_use = "the connection's place is freed when the permit drops"]
pub(crate) struct ConnectionPermit {
    address: IpAddr,
    open: Option<Arc<DashMap<IpAddr, u32>>>,
}

impl Connections {
    /// At most `per_address` connections at once from one address (0: no limit).
    pub(crate) fn new(per_address: u32) -> Connections {
        Connections {
            per_address,
            open: Arc::new(DashMap::new()),
        }
    }

    /// A place for one more connection from `address`, or `None` if it has
    /// `per_address` open already.
    pub(crate) fn open(&self, address: IpAddr) -> Option<ConnectionPermit> {
        if self.per_address == 0 {
            return Some(ConnectionPermit {
                address,
                open: None,
            });
        }
        let mut count = self.open.entry(address).or_insert(0);
        if *count >= self.per_address {
            return None;
        }
        *count += 1;
        Some(ConnectionPermit {
            address,
            open: Some(self.open.clone()),
        })
    }

    /// How many connections `address` has open (0 when limits are off).
    #[cfg(test)]
    pub(crate) fn count(&self, address: IpAddr) -> u32 {
        self.open.get(&address).map_or(0, |count| *count)
    }

    /// How many addresses have a connection open (0 when limits are off).
    #[cfg(test)]
    pub(crate) fn addresses(&self) -> usize {
        self.open.len()
    }
}

impl Drop for ConnectionPermit {
    fn drop(&mut self) {
        if let Some(open) = &self.open {
            if let Some(mut count) = open.get_mut(&self.address) {
                *count = count.saturating_sub(1);
            }
            open.remove_if(&self.address, |_, count| *count == 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_gets_its_limit_and_a_place_back_when_a_permit_drops() {
        let connections = Connections::new(2);
        let (a, b) = (IpAddr::from([10, 0, 0, 1]), IpAddr::from([10, 0, 0, 2]));
        let first = connections.open(a).unwrap();
        let _second = connections.open(a).unwrap();
        assert!(connections.open(a).is_none());
        assert!(
            connections.open(b).is_some(),
            "other addresses are not affected"
        );
        drop(first);
        assert_eq!(connections.count(a), 1);
        assert!(connections.open(a).is_some());
    }

    #[test]
    fn an_address_with_nothing_open_is_forgotten() {
        let connections = Connections::new(5);
        let permits: Vec<_> = (0..5)
            .map(|last| connections.open(IpAddr::from([10, 0, 0, last])).unwrap())
            .collect();
        assert_eq!(connections.addresses(), 5);
        drop(permits);
        assert_eq!(connections.addresses(), 0);
    }

    #[test]
    fn zero_means_no_limit_and_no_table() {
        let connections = Connections::new(0);
        let a = IpAddr::from([10, 0, 0, 1]);
        let permits: Vec<_> = (0..1000).map(|_| connections.open(a).unwrap()).collect();
        assert_eq!(permits.len(), 1000);
        assert_eq!(connections.addresses(), 0);
    }
}
