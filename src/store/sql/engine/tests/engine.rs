//! The engine itself: migrations run again on reopen, concurrent writers all commit,
//! and a health check's ping answers beside the writes (opening an older database:
//! `upgrade`).

use super::*;

#[tokio::test]
async fn migrations_are_idempotent_on_reopen() {
    let Some(db) = test_db().await else { return };
    for round in 0..3 {
        let store = open(&db).await;
        assert_eq!(
            count(
                &store,
                "SELECT COUNT(*) FROM _sqlx_migrations WHERE success"
            )
            .await,
            i64::try_from(MIGRATOR.iter().count()).expect("few migrations"),
        );
        if round == 0 {
            store
                .create_player(&player("p1", "Alice"), "hash-1", 10)
                .await
                .expect("create alice");
        }
        assert_eq!(count(&store, "SELECT COUNT(*) FROM players").await, 1);
        store.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writers_all_commit() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    let mut tasks = Vec::new();
    for i in 0..24 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            store
                .create_player(
                    &player(&format!("p{i}"), &format!("Player{i}")),
                    &format!("h{i}"),
                    i,
                )
                .await
        }));
    }
    // Everyone races for the same name: exactly one wins.
    for i in 0..8 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            store
                .create_player(&player(&format!("q{i}"), "Same"), &format!("k{i}"), i)
                .await
        }));
    }
    let mut taken = 0;
    for task in tasks {
        match task.await.expect("join") {
            Ok(()) => {}
            Err(StoreError::NameTaken) => taken += 1,
            Err(err) => panic!("unexpected error: {err:?}"),
        }
    }
    assert_eq!(taken, 7);
    assert_eq!(count(&store, "SELECT COUNT(*) FROM players").await, 25);
    store.close().await;
}

#[tokio::test]
async fn a_ping_answers_while_a_write_is_held_and_fails_once_closed() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    let within = std::time::Duration::from_secs(30);
    {
        // A write holding this process's write lock (as one stalled on the database
        // would) does not hold the ping up.
        let _writing = store.writes.lock().await;
        store.ping(within).await.expect("the database answers");
    }
    store.close().await;
    let error = store.ping(within).await.expect_err("the store is closed");
    assert!(error.is_connection_lost(), "{error:?}");
}
