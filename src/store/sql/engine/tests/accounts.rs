//! Accounts: read by id and by name, and a player becoming a bot account, which only a
//! player without games may.

use super::*;
use crate::store::BotUpgrade;

#[tokio::test]
async fn only_a_player_without_games_becomes_a_bot_account() {
    let Some(db) = test_db().await else { return };
    let (store, _) = open_with_alice(&db).await;
    store
        .create_player(&player("p2", "Robo"), "hash-2", 20)
        .await
        .expect("create robo");

    let robo = PlayerId::from("p2");
    let account = store.account(&robo).await.expect("read").expect("robo");
    assert_eq!(account.player, player("p2", "Robo"));
    assert_eq!((account.created_at_ms, account.bot_since_ms), (20, None));
    assert!(account.ratings.is_empty());

    let upgrade = store.upgrade_to_bot(&robo, 30).await.expect("upgrade");
    assert_eq!(upgrade, BotUpgrade::Upgraded);
    let again = store.upgrade_to_bot(&robo, 40).await.expect("upgrade");
    assert_eq!(again, BotUpgrade::AlreadyBot);
    let account = store.account(&robo).await.expect("read").expect("robo");
    assert_eq!(
        account.bot_since_ms,
        Some(30),
        "the first upgrade's time stays"
    );
    assert_eq!(
        account.bot_games,
        [GameKind::Chess],
        "chess alone unless it says"
    );
    let games = [GameKind::Checkers, GameKind::Chess];
    assert!(store.set_bot_games(&robo, &games).await.expect("set"));
    let account = store.account(&robo).await.expect("read").expect("robo");
    assert_eq!(account.bot_games, games);
    let named = store.account_named("ROBO").await.expect("read");
    let robo_bot = PlayerRecord {
        bot_account: true,
        ..player("p2", "Robo")
    };
    assert_eq!(named.map(|account| account.player), Some(robo_bot));
    assert_eq!(store.account_named("nobody").await.expect("read"), None);

    // Alice has a game: she stays a person.
    store
        .create_game(&new_game("g1", "p1", "Alice", 1_000), Fence::SINGLE)
        .await
        .expect("game");
    // A game is found by its room (the room of g2 is another).
    store
        .create_game(&new_game("g2", "p1", "Alice", 2_000), Fence::SINGLE)
        .await
        .expect("game");
    let room_of_g1 = parlor_room::RoomId::from("room-g1");
    let found = store.latest_game_in_room(&room_of_g1).await.expect("read");
    assert_eq!(found, Some(parlor_room::GameId::from("g1")));
    let nowhere = parlor_room::RoomId::from("room-none");
    assert_eq!(
        store.latest_game_in_room(&nowhere).await.expect("read"),
        None
    );
    let alice = PlayerId::from("p1");
    let refused = store.upgrade_to_bot(&alice, 50).await.expect("asked");
    assert_eq!(refused, BotUpgrade::HasPlayed);
    let account = store.account(&alice).await.expect("read").expect("alice");
    assert_eq!(account.bot_since_ms, None);
    let set = store.set_bot_games(&alice, &games).await.expect("asked");
    assert!(!set, "a person has no bot games");

    let nobody = PlayerId::from("p9");
    let unknown = store.upgrade_to_bot(&nobody, 60).await.expect("asked");
    assert_eq!(unknown, BotUpgrade::UnknownPlayer);
    assert_eq!(store.account(&nobody).await.expect("read"), None);
    store.close().await;
}
