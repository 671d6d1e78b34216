//! Per-address quotas counted across the fleet: the key `<prefix>:limit:<kind>:<address>`
//! is one token bucket shared by every node, kept as the generic cell rate algorithm
//! (GCRA, the algorithm the in-memory buckets of `governor` use) keeps it: the moment at
//! which the bucket will be full again. A bucket of `count` per `window` lets `count`
//! requests through at once, then one every `window / count`; its key expires when it is
//! full again, so an address that went quiet costs Redis nothing. Each take runs as one
//! Lua script on Redis's own clock, so nodes whose clocks differ still share one bucket.

use std::net::IpAddr;
use std::sync::LazyLock;
use std::time::Duration;

use redis::Script;

use super::{Cluster, ClusterError, RESPONSE_TIMEOUT};

/// Takes one request from the bucket `KEYS[1]` if it has one: 1 if it had, 0 if not.
/// `ARGV[1]` is the time one request's place takes to come back (µs), `ARGV[2]` the
/// window in which the whole bucket comes back (µs). The key holds the moment (µs, on
/// Redis's clock) at which the bucket is full again, and expires then.
const TAKE: &str = r"
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local full_at = tonumber(redis.call('GET', KEYS[1]) or '0')
if full_at < now then
  full_at = now
end
local next_full_at = full_at + tonumber(ARGV[1])
if next_full_at - now > tonumber(ARGV[2]) then
  return 0
end
local expire_ms = math.ceil((next_full_at - now) / 1000)
redis.call('SET', KEYS[1], string.format('%.0f', next_full_at), 'PX', expire_ms)
return 1
";

/// The script, hashed once.
static TAKE_SCRIPT: LazyLock<Script> = LazyLock::new(|| Script::new(TAKE));

impl Cluster {
    /// The key of `address`'s bucket for quotas of `kind` (`rooms`, `players`).
    fn limit_key(&self, kind: &str, address: IpAddr) -> String {
        format!("{}:limit:{kind}:{address}", self.prefix)
    }

    /// The longest a request to Redis may take here: the connection's own response
    /// timeout, which also bounds the wait for a connection being made again.
    pub(crate) fn response_timeout(&self) -> Duration {
        RESPONSE_TIMEOUT.min(self.lease / 4)
    }

    /// Takes one request from `address`'s fleet-wide bucket of `count` requests of
    /// `kind` per `window` (all of which may come at once): `true` if it had one left.
    /// `count` must not be 0. Fails (within [`Cluster::response_timeout`]) when Redis
    /// does not answer.
    pub(crate) async fn take_from_quota(
        &self,
        kind: &str,
        address: IpAddr,
        count: u32,
        window: Duration,
    ) -> Result<bool, ClusterError> {
        let window_us = u64::try_from(window.as_micros()).unwrap_or(u64::MAX);
        let each_us = (window_us / u64::from(count.max(1))).max(1);
        let mut redis = self.redis.clone();
        let mut invocation = TAKE_SCRIPT.key(self.limit_key(kind, address));
        invocation.arg(each_us).arg(window_us);
        // The connection's own timeout bounds each request, but not the wait for a
        // connection being made again after Redis went away: this bounds both.
        let taken = tokio::time::timeout(
            self.response_timeout(),
            invocation.invoke_async::<i64>(&mut redis),
        )
        .await
        .map_err(|_| {
            redis::RedisError::from(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("Redis did not answer within {:?}", self.response_timeout()),
            ))
        })??;
        Ok(taken == 1)
    }
}

#[cfg(test)]
mod tests {
    use redis::AsyncCommands;

    use super::*;
    use crate::fleet::cluster::tests::{LONG_LEASE_MS, fleet};

    #[tokio::test]
    async fn every_node_takes_from_one_bucket_per_address_which_refills_and_expires() {
        let test = "every_node_takes_from_one_bucket_per_address_which_refills_and_expires";
        let Some([a, b]) = fleet(test, LONG_LEASE_MS).await else {
            return;
        };
        let (one, other) = (IpAddr::from([10, 0, 0, 1]), IpAddr::from([10, 0, 0, 2]));
        // Five per ten minutes (one place back every two minutes, so that no stall of
        // the test gives one back), taken alternately through both nodes: the sixth is
        // refused on either, and other kinds and addresses have buckets of their own.
        let long = Duration::from_secs(600);
        for taken in 0..5 {
            let node = if taken % 2 == 0 { &a } else { &b };
            assert!(node.take_from_quota("players", one, 5, long).await.unwrap());
        }
        assert!(!a.take_from_quota("players", one, 5, long).await.unwrap());
        assert!(!b.take_from_quota("players", one, 5, long).await.unwrap());
        assert!(b.take_from_quota("players", other, 5, long).await.unwrap());
        assert!(a.take_from_quota("rooms", one, 5, long).await.unwrap());
        // The key lapses when the bucket would be full again: within the window.
        let mut redis = a.redis.clone();
        let left: i64 = redis.pttl(a.limit_key("players", one)).await.unwrap();
        assert!(left > 0 && left <= 600_000, "{left} ms");

        // Three per 300 ms: all three at once, then one place back every 100 ms.
        let short = Duration::from_millis(300);
        let refilled = IpAddr::from([10, 0, 0, 3]);
        let take_all = async || {
            let since = std::time::Instant::now();
            let mut taken = 0;
            while a
                .take_from_quota("rooms", refilled, 3, short)
                .await
                .unwrap()
            {
                taken += 1;
            }
            // Each 100 ms the takes lasted may have given one place back.
            let given_back = since.elapsed().as_millis() / 100 + 1;
            (taken, given_back)
        };
        let (first, given_back) = take_all().await;
        assert!(
            first >= 3 && first <= 3 + given_back,
            "{first}, {given_back}"
        );
        // Not a wait for anything: time passing is what refills a bucket; a longer
        // stall only refills it more, up to its size.
        tokio::time::sleep(Duration::from_millis(250)).await;
        let (again, given_back) = take_all().await;
        assert!(
            again >= 2 && again <= 3 + given_back,
            "{again}, {given_back}"
        );
        // Once full again the key is gone.
        crate::fleet::cluster::tests::renew_until_lapsed(
            async || {},
            async || {
                let exists: bool = redis.exists(a.limit_key("rooms", refilled)).await.unwrap();
                (!exists).then_some(())
            },
        )
        .await;
    }
}
