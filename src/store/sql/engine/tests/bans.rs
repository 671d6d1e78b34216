//! Operators' bans: written for known players only, replaced, read while in force, and
//! lifted.

use super::*;
use crate::store::Ban;

fn ban(player: &str, reason: &str, at: i64, until: Option<i64>) -> Ban {
    Ban {
        player_id: player.into(),
        reason: reason.to_owned(),
        banned_by: "ops".to_owned(),
        banned_at_ms: at,
        expires_at_ms: until,
    }
}

#[tokio::test]
async fn a_ban_holds_until_it_expires_or_is_lifted() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    store
        .create_player(&player("p1", "Ann"), "hash-1", 1)
        .await
        .expect("create ann");
    store
        .create_player(&player("p2", "Bea"), "hash-2", 1)
        .await
        .expect("create bea");

    let err = store
        .ban_player(&ban("p9", "spam", 10, None))
        .await
        .expect_err("no such player");
    assert!(matches!(err, StoreError::UnknownPlayer), "{err:?}");
    assert_eq!(store.bans(10).await.expect("bans"), Vec::new());

    store
        .ban_player(&ban("p1", "spam", 10, None))
        .await
        .expect("ban ann");
    store
        .ban_player(&ban("p2", "abuse", 20, Some(1_000)))
        .await
        .expect("ban bea");
    assert_eq!(
        store.ban_of(&"p1".into(), 50).await.expect("read"),
        Some(ban("p1", "spam", 10, None))
    );
    assert_eq!(
        store.bans(50).await.expect("bans"),
        vec![
            ban("p2", "abuse", 20, Some(1_000)),
            ban("p1", "spam", 10, None)
        ],
        "newest first"
    );
    // Bea's ban runs out at 1,000 ms.
    assert_eq!(store.ban_of(&"p2".into(), 1_000).await.expect("read"), None);
    assert_eq!(
        store.bans(1_000).await.expect("bans"),
        vec![ban("p1", "spam", 10, None)]
    );

    // A new ban replaces the old one.
    store
        .ban_player(&ban("p1", "spam again", 60, Some(5_000)))
        .await
        .expect("ban ann again");
    assert_eq!(
        store.ban_of(&"p1".into(), 70).await.expect("read"),
        Some(ban("p1", "spam again", 60, Some(5_000)))
    );

    assert!(store.lift_ban(&"p1".into()).await.expect("lift"));
    assert!(!store.lift_ban(&"p1".into()).await.expect("lift again"));
    assert_eq!(store.ban_of(&"p1".into(), 70).await.expect("read"), None);
}
