//! A game's start recorded again (its first write's answer was lost, so it may have been
//! stored): the same game of the same room under the same token is one game, recorded
//! as the second write says; any other game under that id is refused.

use super::*;

#[tokio::test]
async fn the_same_start_recorded_again_is_one_game_as_last_recorded() {
    let Some(db) = test_db().await else { return };
    let (store, _) = open_with_alice(&db).await;
    let first = new_game("g1", "p1", "Alice", 1_000);
    store.create_game(&first, Fence(2)).await.expect("first");
    let mut again = first.clone();
    again.started_at_ms = 2_000;
    again.seats[1].name = "Easy bot, again".to_owned();
    let ratings = store.create_game(&again, Fence(2)).await.expect("again");
    assert_eq!(
        ratings,
        [None, None],
        "the seats' ratings, as a first start gives"
    );

    let stored = store.game(&"g1".into()).await.unwrap().expect("stored");
    assert_eq!(stored.status, GameStatus::Playing);
    assert_eq!(stored.started_at_ms, 2_000, "as the second record says");
    assert_eq!(stored.seats.len(), 2);
    assert_eq!(stored.seats[1].name, "Easy bot, again");
    store
        .append_move(&mv("g1", 1, "b2", 2_100), None, Fence(2))
        .await
        .expect("the game goes on");
    assert_eq!(store.unfinished_games().await.unwrap().len(), 1);
}

#[tokio::test]
async fn another_game_under_a_stored_id_is_refused() {
    let Some(db) = test_db().await else { return };
    let (store, _) = open_with_alice(&db).await;
    let first = new_game("g1", "p1", "Alice", 1_000);
    store.create_game(&first, Fence(2)).await.expect("first");

    let mut other_room = first.clone();
    other_room.room_id = "room-elsewhere".into();
    let mut other_token = first.clone();
    other_token.started_at_ms = 3_000;
    for (game, fence) in [(&other_room, Fence(2)), (&other_token, Fence(3))] {
        let refused = store.create_game(game, fence).await;
        assert!(
            matches!(&refused, Err(StoreError::GameIdTaken { game_id }) if game_id.as_str() == "g1"),
            "{refused:?}"
        );
    }
    store
        .finish_game(&win("g1", "p1", 10, 1_500), Fence(2))
        .await
        .expect("finished");
    let refused = store.create_game(&first, Fence(2)).await;
    assert!(
        matches!(refused, Err(StoreError::GameIdTaken { .. })),
        "a finished game is not started again: {refused:?}"
    );
    let stored = store.game(&"g1".into()).await.unwrap().expect("stored");
    assert_eq!(stored.room_id.as_str(), "room-g1");
    assert_eq!(stored.started_at_ms, 1_000, "left as it was");
    assert_eq!(stored.status, GameStatus::Finished);
}
