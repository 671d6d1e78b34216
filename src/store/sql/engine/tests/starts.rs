//! Writes whose answer was lost, read or made again: a game's start recorded again
//! (it may have been stored) is one game, recorded as the second write says, while any
//! other game under that id is refused; a held move settled as stored comes with the
//! rating changes stored with it.

use super::*;
use crate::store::{RatingShift, Settled};

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
    let refused = store.create_game(&again, Fence(2)).await;
    assert!(
        matches!(refused, Err(StoreError::GameIdTaken { .. })),
        "a game with a move is not started again: {refused:?}"
    );
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

#[tokio::test]
async fn a_settled_winning_move_comes_with_the_rating_changes_stored_with_it() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    for (id, name) in [("p1", "Alice"), ("p2", "Bob")] {
        store
            .create_player(&player(id, name), &format!("hash-{id}"), 10)
            .await
            .expect("create player");
    }
    store
        .create_game(&between_people("g1", ["p1", "p2"], 1_000), Fence::SINGLE)
        .await
        .expect("create game");
    let first = mv("g1", 1, "b2", 1_100);
    store
        .append_move(&first, None, Fence::SINGLE)
        .await
        .expect("first move");
    assert_eq!(
        store.settle_move(&first).await.expect("settled"),
        Settled::Stored(None),
        "a move that ended nothing comes with no ratings"
    );
    let winning = mv("g1", 2, "a1", 1_200);
    let finish = GameFinish {
        rated: Some([human("p1"), human("p2")]),
        ..win("g1", "p1", 600, 1_200)
    };
    let changes = store
        .append_move(&winning, Some(&finish), Fence::SINGLE)
        .await
        .expect("winning move")
        .expect("rated");
    assert_eq!(
        store.settle_move(&winning).await.expect("settled"),
        Settled::Stored(Some(changes.map(RatingShift::from))),
        "as the ending's write returned them"
    );
    let never = mv("g1", 3, "c3", 1_300);
    assert_eq!(
        store.settle_move(&never).await.expect("settled"),
        Settled::NotStored
    );
}
