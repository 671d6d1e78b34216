//! Token buckets over `governor`: one per connection ([`Budget`]) or one per key, a
//! client address or a player ([`KeyedBudget`]), each off when its configured count is 0.

use std::hash::Hash;
use std::net::IpAddr;
use std::num::NonZeroU32;

use governor::{DefaultDirectRateLimiter, DefaultKeyedRateLimiter, Quota, RateLimiter};

/// A token bucket for one connection, or no limit at all.
pub(crate) struct Budget(Option<DefaultDirectRateLimiter>);

impl Budget {
    /// `per_sec` requests a second sustained, after a burst of `burst` (at least
    /// `per_sec`); off when `per_sec` is 0.
    pub(crate) fn per_second(per_sec: u32, burst: u32) -> Budget {
        let Some(rate) = NonZeroU32::new(per_sec) else {
            return Budget(None);
        };
        let burst = NonZeroU32::new(burst.max(per_sec)).unwrap_or(rate);
        Budget(Some(RateLimiter::direct(
            Quota::per_second(rate).allow_burst(burst),
        )))
    }

    /// `count` requests a minute, all of which may come at once; off when 0.
    pub(crate) fn per_minute(count: u32) -> Budget {
        Budget(NonZeroU32::new(count).map(|count| RateLimiter::direct(Quota::per_minute(count))))
    }

    /// `count` requests a minute sustained, at most `burst` (at least 1) of them at once;
    /// off when `count` is 0.
    pub(crate) fn per_minute_in_bursts(count: u32, burst: u32) -> Budget {
        let Some(rate) = NonZeroU32::new(count) else {
            return Budget(None);
        };
        let burst = NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN);
        Budget(Some(RateLimiter::direct(
            Quota::per_minute(rate).allow_burst(burst),
        )))
    }

    /// Takes one request from the budget: `false` if there is none left right now.
    pub(crate) fn allow(&self) -> bool {
        self.0
            .as_ref()
            .is_none_or(|limiter| limiter.check().is_ok())
    }
}

/// A token bucket per key (a client address unless said), or no limit at all.
pub(crate) struct KeyedBudget<K: Clone + Hash + Eq = IpAddr>(Option<DefaultKeyedRateLimiter<K>>);

impl<K: Clone + Hash + Eq> KeyedBudget<K> {
    /// `count` requests a minute for each key, all of which may come at once; off when 0.
    pub(crate) fn per_minute(count: u32) -> KeyedBudget<K> {
        KeyedBudget::with_quota(NonZeroU32::new(count).map(Quota::per_minute))
    }

    fn with_quota(quota: Option<Quota>) -> KeyedBudget<K> {
        KeyedBudget(quota.map(RateLimiter::keyed))
    }

    /// Takes one request from `key`'s budget: `false` if it has none left right now.
    pub(crate) fn allow(&self, key: K) -> bool {
        self.0
            .as_ref()
            .is_none_or(|limiter| limiter.check_key(&key).is_ok())
    }

    /// Forgets every key whose budget has refilled, so the table holds only the keys
    /// active within about the last minute, however many have come and gone.
    pub(crate) fn prune(&self) {
        if let Some(limiter) = &self.0 {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
    }

    /// How many addresses the table holds.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |limiter| limiter.len())
    }

    /// Whether the table holds no address.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_budget_allows_its_burst_then_refuses() {
        let budget = Budget::per_second(1, 3);
        assert!((0..3).all(|_| budget.allow()));
        assert!(!budget.allow());
        let minute = Budget::per_minute(2);
        assert!(minute.allow() && minute.allow());
        assert!(!minute.allow());
    }

    #[test]
    fn zero_turns_a_budget_off() {
        let budget = Budget::per_second(0, 0);
        assert!((0..10_000).all(|_| budget.allow()));
        let keyed = KeyedBudget::per_minute(0);
        assert!((0..10_000).all(|_| keyed.allow(IpAddr::from([10, 0, 0, 1]))));
        assert!(keyed.is_empty());
    }

    #[test]
    fn each_address_has_its_own_budget() {
        let keyed = KeyedBudget::per_minute(1);
        let (a, b) = (IpAddr::from([10, 0, 0, 1]), IpAddr::from([10, 0, 0, 2]));
        assert!(keyed.allow(a));
        assert!(!keyed.allow(a));
        assert!(keyed.allow(b));
    }

    #[test]
    fn pruning_forgets_addresses_whose_budget_refilled() {
        let quota =
            Quota::with_period(Duration::from_millis(1)).map(|q| q.allow_burst(NonZeroU32::MIN));
        let keyed = KeyedBudget::with_quota(quota);
        for last in 0..100u8 {
            assert!(keyed.allow(IpAddr::from([10, 0, 1, last])));
        }
        assert_eq!(keyed.len(), 100);
        // Not a wait for anything: time passing is what refills a budget, and each of
        // these refills in 1 ms; a longer stall only refills them more surely.
        std::thread::sleep(Duration::from_millis(20));
        keyed.prune();
        assert!(keyed.is_empty(), "{} addresses kept", keyed.len());
    }
}
