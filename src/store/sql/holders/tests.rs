//! The registry of servers against the machine's PostgreSQL (a schema per test): who may
//! open a database beside whom, a dead server's row, and a take-over.

use std::time::Duration;

use crate::store::sql::BatchStats;
use crate::store::sql::postgres::{SqlStore, TestDb};
use crate::store::{Claimant, FleetIdentity, Store, StoreError};

/// How long a test waits for a displaced server to find out before it fails.
const EVICTION_PATIENCE: Duration = Duration::from_secs(30);

/// A node of the fleet `fleet`, with a fresh node id.
fn node_of(fleet: &str) -> Claimant {
    Claimant {
        fleet: Some(FleetIdentity {
            id: fleet.to_owned(),
            coordinator: format!("Redis test under the key prefix \"{fleet}\""),
        }),
        ..Claimant::single()
    }
}

async fn open(db: &TestDb, claimant: &Claimant) -> Result<SqlStore, StoreError> {
    db.try_open_as(BatchStats::unreported(), claimant).await
}

#[tokio::test]
async fn a_fleets_nodes_share_a_database_that_no_stranger_may_open() {
    let Some(db) = TestDb::new().await else {
        return;
    };
    let first = open(&db, &node_of("a")).await.expect("the first node");
    let second = open(&db, &node_of("a"))
        .await
        .expect("a node of the same fleet");
    for stranger in [node_of("b"), Claimant::single()] {
        match open(&db, &stranger).await {
            Err(StoreError::HeldByOthers { holders, .. }) => {
                assert_eq!(holders.matches("a node of the fleet coordinating through Redis test under the key prefix \"a\"").count(), 2, "{holders}");
                let message = StoreError::HeldByOthers {
                    place: "p".to_owned(),
                    claimant: stranger.to_string(),
                    holders,
                }
                .to_string();
                assert!(message.contains("--take-over-database"), "{message}");
            }
            other => panic!("expected HeldByOthers, got {:?}", other.map(|_| ())),
        }
    }
    first.close().await;
    second.close().await;
    let alone = open(&db, &Claimant::single())
        .await
        .expect("a single server once the fleet stopped");
    match open(&db, &node_of("a")).await {
        Err(StoreError::HeldByOthers { holders, .. }) => {
            assert!(holders.starts_with("a single server"), "{holders}");
        }
        other => panic!("expected HeldByOthers, got {:?}", other.map(|_| ())),
    }
    alone.close().await;
}

#[tokio::test]
async fn a_server_that_died_holds_nothing() {
    let Some(db) = TestDb::new().await else {
        return;
    };
    let crashed = open(&db, &node_of("a")).await.expect("a node");
    // It dies without a word: its session closes, its row stays.
    drop(crashed);
    let raw = db.raw_pool().await;
    let since = tokio::time::Instant::now();
    let alone = loop {
        match open(&db, &Claimant::single()).await {
            Ok(store) => break store,
            // PostgreSQL has not seen the session close yet.
            Err(StoreError::HeldByOthers { holders, .. }) => {
                assert!(since.elapsed() < EVICTION_PATIENCE, "still held: {holders}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(error) => panic!("{error}"),
        }
    };
    let rows: Vec<String> = sqlx::query_scalar("SELECT node_id FROM servers")
        .fetch_all(&raw)
        .await
        .expect("read the registry");
    assert_eq!(rows.len(), 1, "the dead node's row was deleted: {rows:?}");
    alone.close().await;
}

#[tokio::test]
async fn a_take_over_displaces_the_holders_and_waits_for_them_to_let_go() {
    let Some(db) = TestDb::new().await else {
        return;
    };
    let nodes = [
        open(&db, &node_of("a")).await.expect("a node"),
        open(&db, &node_of("a")).await.expect("another node"),
    ];
    for node in &nodes {
        assert!(!node.evicted().is_cancelled());
    }
    let taking = Claimant {
        take_over: true,
        ..node_of("b")
    };
    let new_fleet = open(&db, &taking).await.expect("taken over");
    for node in &nodes {
        tokio::time::timeout(EVICTION_PATIENCE, node.evicted().cancelled())
            .await
            .expect("every displaced node was told");
    }
    assert!(!new_fleet.evicted().is_cancelled());
    let another = open(&db, &node_of("b"))
        .await
        .expect("the new fleet's next node");
    for store in [another, new_fleet] {
        store.close().await;
    }
    for node in nodes {
        node.close().await;
    }
}
