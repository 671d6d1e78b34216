//! Tests of the leases, and what the fleet's other tests share: a fleet on the test
//! Redis under a key prefix of its own, lease lengths, and waiting for a lease to lapse.

use std::time::{Duration, Instant};

use super::*;
use parlor_testkit::test_services::{self, TestService};

/// A lease no test outlives: where a test is not about leases lapsing, none lapses
/// however slow the machine is.
pub(crate) const LONG_LEASE_MS: u64 = 600_000;

/// A lease a test can watch lapse in moments, and yet long enough that one renewed
/// every moment as the test goes on outlives a stall of seconds.
pub(crate) const SHORT_LEASE_MS: u64 = 3_000;

/// How long a test waits for a lease to lapse before it fails.
const LAPSE_PATIENCE: Duration = Duration::from_secs(60);

/// `N` nodes of a fleet of their own (a key prefix of the test's own, so that tests
/// run side by side) in the test Redis, with leases of `lease_ms`; or `None` (the
/// skip said and counted) when `PARLOR_TEST_REDIS_URL` is unset outside CI.
pub(crate) async fn fleet<const N: usize>(test: &str, lease_ms: u64) -> Option<[Cluster; N]> {
    let url = test_services::url(test, TestService::Redis)?;
    let config = ClusterConfig {
        redis_url: Some(url.clone()),
        key_prefix: format!("parlor-test-{:016x}", rand::random::<u64>()),
        lease_ms,
        owns_rooms: true,
    };
    let mut nodes = Vec::with_capacity(N);
    for _ in 0..N {
        nodes.push(Cluster::connect(&config, &url).await.expect("connect"));
    }
    Some(
        nodes
            .try_into()
            .unwrap_or_else(|_| unreachable!("{N} nodes made")),
    )
}

/// Calls `renew` (which renews the leases a test keeps, and fails the test if one
/// was lost) again and again, a moment apart, until `lapsed` says the lease the test
/// left alone has lapsed; returns what `lapsed` found. Fails the test if that takes
/// far longer than a lease.
pub(crate) async fn renew_until_lapsed<T>(
    mut renew: impl AsyncFnMut(),
    mut lapsed: impl AsyncFnMut() -> Option<T>,
) -> T {
    let since = Instant::now();
    loop {
        renew().await;
        if let Some(found) = lapsed().await {
            return found;
        }
        assert!(
            since.elapsed() < LAPSE_PATIENCE,
            "no lease lapsed in {LAPSE_PATIENCE:?}"
        );
        // A pause between polls of Redis, which cannot tell us when a key expires.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn one_node_holds_a_room_and_each_new_holder_gets_a_higher_token() {
    let test = "one_node_holds_a_room_and_each_new_holder_gets_a_higher_token";
    let Some([a, b]) = fleet(test, LONG_LEASE_MS).await else {
        return;
    };
    let (r1, r2) = (RoomId::from("r1"), RoomId::from("r2"));
    let first = a.claim(&r1).await.expect("claim").expect("free");
    assert_eq!(b.claim(&r1).await.expect("claim"), None, "a holds it");
    assert_eq!(
        a.owners(&[r1.clone(), r2]).await.expect("owners"),
        [Some(a.node().clone()), None]
    );
    // b cannot renew or release what a holds.
    let lost = b.renew(std::slice::from_ref(&r1)).await.expect("renew");
    assert_eq!(lost, std::slice::from_ref(&r1));
    b.release(&r1).await.expect("release");
    assert_eq!(b.claim(&r1).await.expect("claim"), None, "still a's");

    a.release(&r1).await.expect("release");
    let second = b.claim(&r1).await.expect("claim").expect("released");
    assert!(second > first, "{second:?} > {first:?}");
    let lost = a.renew(std::slice::from_ref(&r1)).await.expect("renew");
    assert_eq!(lost, [r1]);
}

#[tokio::test]
async fn a_lease_renewed_lives_on_and_one_not_renewed_lapses() {
    let test = "a_lease_renewed_lives_on_and_one_not_renewed_lapses";
    let Some([a, b]) = fleet(test, SHORT_LEASE_MS).await else {
        return;
    };
    let rooms = [RoomId::from("kept"), RoomId::from("left")];
    let kept = a.claim(&rooms[0]).await.expect("claim").expect("free");
    a.claim(&rooms[1]).await.expect("claim").expect("free");
    // a renews one of its two leases, and not the other, until the other lapses.
    let taken = renew_until_lapsed(
        async || {
            let lost = a.renew(&rooms[..1]).await.expect("renew");
            assert!(lost.is_empty(), "{lost:?}");
        },
        async || b.claim(&rooms[1]).await.expect("claim"),
    )
    .await;
    assert_eq!(taken, Fence(2), "the second holder of \"left\"");
    // Claimed at the same moment, the renewed one is still held.
    assert_eq!(b.claim(&rooms[0]).await.expect("claim"), None);
    assert_eq!(kept, Fence(1));
    assert_eq!(a.renew(&rooms).await.expect("renew"), [rooms[1].clone()]);
}

#[tokio::test]
async fn a_lease_that_lapsed_with_nobody_taking_it_is_taken_back_at_the_next_renewal() {
    let test = "a_lease_that_lapsed_with_nobody_taking_it_is_taken_back_at_the_next_renewal";
    let Some([a, b]) = fleet(test, SHORT_LEASE_MS).await else {
        return;
    };
    let room = RoomId::from("kept");
    let fence = a.claim(&room).await.expect("claim").expect("free");
    // a cannot renew (as if Redis were out of reach) until the lease lapses.
    renew_until_lapsed(
        async || {},
        async || {
            let owners = a.owners(std::slice::from_ref(&room)).await.expect("owners");
            owners[0].is_none().then_some(())
        },
    )
    .await;
    let lost = a.renew(std::slice::from_ref(&room)).await.expect("renew");
    assert!(lost.is_empty(), "{lost:?}");
    assert_eq!(
        a.owners(std::slice::from_ref(&room)).await.expect("owners"),
        [Some(a.node().clone())]
    );
    assert_eq!(
        b.claim(&room).await.expect("claim"),
        None,
        "a holds it again"
    );
    // Taken back under a's token: the next holder's is the very next one.
    a.release(&room).await.expect("release");
    let next = b.claim(&room).await.expect("claim").expect("free");
    assert_eq!(next, Fence(fence.0 + 1));
}

#[tokio::test]
async fn a_renewal_of_more_rooms_than_one_step_renews_each_and_names_each_lost() {
    let test = "a_renewal_of_more_rooms_than_one_step_renews_each_and_names_each_lost";
    let Some([a, b]) = fleet(test, LONG_LEASE_MS).await else {
        return;
    };
    let rooms: Vec<RoomId> = (0..RENEWED_AT_ONCE * 2 + 3)
        .map(|i| RoomId::from(format!("r{i}")))
        .collect();
    // b holds one room in the first step and one in the last; nobody holds the rest,
    // which a's renewal takes.
    let others = [rooms[5].clone(), rooms[RENEWED_AT_ONCE * 2 + 1].clone()];
    for room in &others {
        b.claim(room).await.expect("claim").expect("free");
    }
    assert_eq!(a.renew(&rooms).await.expect("renew"), others);
    let owners = a.owners(&rooms).await.expect("owners");
    for (room, owner) in rooms.iter().zip(owners) {
        let expected = if others.contains(room) {
            b.node()
        } else {
            a.node()
        };
        assert_eq!(owner.as_ref(), Some(expected), "{room}");
    }
}
