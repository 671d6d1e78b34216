//! Site accounts bound to players: a signed-in player made with their account, a guest
//! linked to one, and each binding made once.

use super::*;
use crate::store::SiteIdentity;

fn account(subject: &str) -> SiteIdentity {
    SiteIdentity {
        issuer: "https://games.example".to_owned(),
        subject: subject.to_owned(),
    }
}

#[tokio::test]
async fn an_account_is_bound_to_one_player_once() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    assert_eq!(
        store
            .player_by_identity(&account("42"))
            .await
            .expect("lookup"),
        None
    );
    store
        .create_signed_in_player(&player("p1", "Ann"), "hash-1", &account("42"), 10)
        .await
        .expect("create ann");
    assert_eq!(
        store
            .player_by_identity(&account("42"))
            .await
            .expect("lookup"),
        Some(player("p1", "Ann"))
    );
    // The same subject at another issuer is another account.
    let elsewhere = SiteIdentity {
        issuer: "https://other.example".to_owned(),
        subject: "42".to_owned(),
    };
    assert_eq!(
        store.player_by_identity(&elsewhere).await.expect("lookup"),
        None
    );

    // A second player for the account is refused, and writes nothing: its name stays free.
    let err = store
        .create_signed_in_player(&player("p2", "Bea"), "hash-2", &account("42"), 20)
        .await
        .expect_err("the account has a player");
    assert!(matches!(err, StoreError::AlreadyLinked), "{err:?}");
    store
        .create_player(&player("p3", "Bea"), "hash-3", 30)
        .await
        .expect("Bea is still free");

    // A guest is linked to a new account once; neither side can be linked again.
    store
        .link_identity(&PlayerId::from("p3"), &account("7"), "hash-unheld", 40)
        .await
        .expect("link bea");
    assert_eq!(
        store
            .player_by_identity(&account("7"))
            .await
            .expect("lookup"),
        Some(player("p3", "Bea"))
    );
    // The guest's token no longer speaks for her.
    assert_eq!(store.player_by_token("hash-3").await.expect("lookup"), None);
    for (guest, subject) in [("p3", "8"), ("p1", "7")] {
        let err = store
            .link_identity(&PlayerId::from(guest), &account(subject), "hash-other", 50)
            .await
            .expect_err("linked once");
        assert!(matches!(err, StoreError::AlreadyLinked), "{err:?}");
    }
    store.close().await;
}
