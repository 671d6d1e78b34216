//! Players and the names they claim: created, resolved, taken case-insensitively and
//! by look-alikes, renamed, and old name keys upgraded.

use super::*;

#[tokio::test]
async fn create_and_resolve_players() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    store
        .create_player(&player("p1", "Alice"), "hash-1", 10)
        .await
        .expect("create alice");
    store
        .create_player(&player("p2", "Bob"), "hash-2", 20)
        .await
        .expect("create bob");

    assert_eq!(
        store.player_by_token("hash-1").await.expect("lookup"),
        Some(player("p1", "Alice"))
    );
    assert_eq!(
        store.player_by_token("hash-2").await.expect("lookup"),
        Some(player("p2", "Bob"))
    );
    assert_eq!(store.player_by_token("nope").await.expect("lookup"), None);
    store.close().await;
}

#[tokio::test]
async fn a_look_alike_of_a_name_is_taken() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    store
        .create_player(&player("p1", "Alice"), "hash-1", 10)
        .await
        .expect("create alice");
    for (id, look_alike) in [("p2", "\u{0410}lice"), ("p3", "A1ice"), ("p4", "ALICE")] {
        let err = store
            .create_player(&player(id, look_alike), id, 20)
            .await
            .expect_err(look_alike);
        assert!(
            matches!(err, StoreError::NameTaken),
            "{look_alike}: {err:?}"
        );
    }
    store
        .create_player(&player("p5", "Alicia"), "hash-5", 30)
        .await
        .expect("a different name is free");
    store.close().await;
}

#[tokio::test]
async fn name_keys_written_under_the_old_rule_are_upgraded_once() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    store
        .create_player(&player("p1", "b0b"), "hash-1", 10)
        .await
        .expect("create b0b");
    // As an older server left it: the key is the lowercase name, and no rule noted.
    for statement in [
        "UPDATE player_names SET name_key = 'b0b' WHERE player_id = 'p1'",
        "DELETE FROM store_meta",
    ] {
        sqlx::query(statement)
            .execute(&store.pool)
            .await
            .expect(statement);
    }
    store.close().await;

    let store = open(&db).await;
    let err = store
        .create_player(&player("p2", "bob"), "hash-2", 20)
        .await
        .expect_err("bob looks like b0b");
    assert!(matches!(err, StoreError::NameTaken), "{err:?}");
    assert_eq!(
        store.player_by_token("hash-1").await.expect("lookup"),
        Some(player("p1", "b0b")),
        "the old player keeps their name"
    );
    store.close().await;
}

#[tokio::test]
async fn a_name_is_taken_case_insensitively_and_nothing_is_written() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    store
        .create_player(&player("p1", "Alice"), "hash-1", 10)
        .await
        .expect("create alice");

    let err = store
        .create_player(&player("p2", "alice"), "hash-2", 20)
        .await
        .expect_err("alice is Alice's");
    assert!(matches!(err, StoreError::NameTaken), "{err:?}");
    let err = store
        .create_player(&player("p3", "ALICE"), "hash-3", 30)
        .await
        .expect_err("ALICE is Alice's");
    assert!(matches!(err, StoreError::NameTaken), "{err:?}");

    assert_eq!(store.player_by_token("hash-2").await.expect("lookup"), None);
    assert_eq!(count(&store, "SELECT COUNT(*) FROM players").await, 1);
    assert_eq!(count(&store, "SELECT COUNT(*) FROM player_names").await, 1);

    // The failed attempts left nothing behind: the same id and token work with a free name.
    store
        .create_player(&player("p2", "Alicia"), "hash-2", 40)
        .await
        .expect("create alicia");
    assert_eq!(
        store.player_by_token("hash-2").await.expect("lookup"),
        Some(player("p2", "Alicia"))
    );
    store.close().await;
}

#[tokio::test]
async fn rename_claims_new_names_and_keeps_old_ones() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    store
        .create_player(&player("p1", "Alice"), "hash-1", 10)
        .await
        .expect("create alice");
    store
        .create_player(&player("p2", "Carol"), "hash-2", 20)
        .await
        .expect("create carol");

    store
        .rename_player(&"p1".into(), "Bob")
        .await
        .expect("rename to Bob");
    assert_eq!(
        store.player_by_token("hash-1").await.expect("lookup"),
        Some(player("p1", "Bob"))
    );

    // Alice still owns her first name (and Bob now): Carol can have neither.
    for name in ["alice", "BOB"] {
        let err = store
            .rename_player(&"p2".into(), name)
            .await
            .expect_err("owned by p1");
        assert!(matches!(err, StoreError::NameTaken), "{err:?}");
    }
    assert_eq!(
        store.player_by_token("hash-2").await.expect("lookup"),
        Some(player("p2", "Carol"))
    );
    let err = store
        .create_player(&player("p3", "Bob"), "hash-3", 30)
        .await
        .expect_err("owned by p1");
    assert!(matches!(err, StoreError::NameTaken), "{err:?}");

    // Back to a name p1 owns, in another case: allowed, and shown as typed.
    store
        .rename_player(&"p1".into(), "ALICE")
        .await
        .expect("rename back");
    assert_eq!(
        store.player_by_token("hash-1").await.expect("lookup"),
        Some(player("p1", "ALICE"))
    );
    // Renaming to one's own current name is fine too.
    store
        .rename_player(&"p2".into(), "Carol")
        .await
        .expect("same name");
    assert_eq!(count(&store, "SELECT COUNT(*) FROM player_names").await, 3);
    store.close().await;
}
