//! Ownership tokens: a write under a token other than the game's is refused as
//! `Fenced` and changes nothing, while the writes beside it in the same batch commit.

use super::*;
use crate::store::DrawOfferRecord;

/// Hands `game_id` to a new owner, as a node taking its room over does.
async fn take_over(store: &SqlStore, game_id: &str, fence: i64) {
    store
        .take_over(&game_id.into(), Fence(fence))
        .await
        .expect("take over");
}

#[tokio::test]
async fn a_move_under_a_stale_token_is_refused_and_its_batch_neighbours_commit() {
    let Some(db) = test_db().await else { return };
    let (store, stats) = open_with_alice(&db).await;
    for game in ["g1", "g2"] {
        store
            .create_game(&new_game(game, "p1", "Alice", 0), Fence(3))
            .await
            .expect("game");
    }
    take_over(&store, "g2", 4).await;
    let batches = stats.moves.get_sample_count();
    // Queued before the writer forms a batch: one batch.
    let (one, two, three) = (
        mv("g1", 1, "4", 10),
        mv("g2", 1, "0", 11),
        mv("g1", 2, "0", 12),
    );
    let (first, stale, second) = queued_together(&store, async {
        tokio::join!(
            store.append_move(&one, None, Fence(3)),
            store.append_move(&two, None, Fence(3)),
            store.append_move(&three, None, Fence(3)),
        )
    })
    .await;
    first.expect("g1's first move");
    second.expect("g1's second move");
    assert!(
        matches!(&stale, Err(StoreError::Fenced { game_id }) if game_id == "g2"),
        "{stale:?}"
    );
    assert_eq!(stats.moves.get_sample_count(), batches + 1, "one batch");
    assert_eq!(
        count(&store, "SELECT COUNT(*) FROM moves WHERE game_id = 'g1'").await,
        2
    );
    assert_eq!(
        count(&store, "SELECT COUNT(*) FROM moves WHERE game_id = 'g2'").await,
        0
    );

    // The new owner writes under its own token.
    store
        .append_move(&two, None, Fence(4))
        .await
        .expect("the new owner's move");
    store.close().await;
}

#[tokio::test]
async fn an_ending_or_a_move_that_ends_the_game_under_a_stale_token_changes_nothing() {
    let Some(db) = test_db().await else { return };
    let (store, _) = open_with_alice(&db).await;
    store
        .create_game(&new_game("g1", "p1", "Alice", 0), Fence(1))
        .await
        .expect("game");
    take_over(&store, "g1", 2).await;
    let mut finish = win("g1", "p1", 9, 20);
    finish.moves = 1;
    let by_move = store
        .append_move(&mv("g1", 1, "4", 10), Some(&finish), Fence(1))
        .await;
    assert!(
        matches!(by_move, Err(StoreError::Fenced { .. })),
        "{by_move:?}"
    );
    let alone = store.finish_game(&finish, Fence(1)).await;
    assert!(alone.is_err(), "{alone:?}");
    let game = store
        .game(&"g1".into())
        .await
        .expect("read")
        .expect("stored");
    assert_eq!((game.status, game.moves.len()), (GameStatus::Playing, 0));
    assert!(
        store
            .leaderboard(GameKind::TicTacToe, None, 10)
            .await
            .expect("board")
            .is_empty()
    );

    let offer = Some(DrawOfferRecord {
        seat: Seat::First,
        ply: 0,
    });
    let stale = store.record_draw_offer(&"g1".into(), offer, Fence(1)).await;
    assert!(matches!(stale, Err(StoreError::Fenced { .. })), "{stale:?}");
    let stale = store
        .record_stand_in(&"g1".into(), Seat::First, Fence(1))
        .await;
    assert!(matches!(stale, Err(StoreError::Fenced { .. })), "{stale:?}");
    let game = store
        .game(&"g1".into())
        .await
        .expect("read")
        .expect("stored");
    assert_eq!(game.draw_offer, None);
    assert!(game.seats.iter().all(|seat| !seat.stood_in));

    // Under the current token all of it goes through, once.
    store
        .record_draw_offer(&"g1".into(), offer, Fence(2))
        .await
        .expect("offer");
    store
        .append_move(&mv("g1", 1, "4", 10), Some(&finish), Fence(2))
        .await
        .expect("the owner's winning move");
    let again = store.finish_game(&finish, Fence(2)).await;
    assert!(again.is_err(), "a game ends once: {again:?}");
    let game = store
        .game(&"g1".into())
        .await
        .expect("read")
        .expect("stored");
    assert_eq!((game.status, game.moves.len()), (GameStatus::Finished, 1));
    store.close().await;
}

#[tokio::test]
async fn a_take_over_needs_a_higher_token_and_a_game_in_play() {
    let Some(db) = test_db().await else { return };
    let (store, _) = open_with_alice(&db).await;
    for game in ["g1", "g2"] {
        store
            .create_game(&new_game(game, "p1", "Alice", 0), Fence(5))
            .await
            .expect("game");
    }
    for stale in [Fence(5), Fence(4)] {
        let refused = store.take_over(&"g1".into(), stale).await;
        assert!(
            matches!(refused, Err(StoreError::Fenced { .. })),
            "{refused:?}"
        );
    }
    store
        .take_over(&"g1".into(), Fence(6))
        .await
        .expect("higher");
    store
        .finish_game(&win("g2", "p1", 1, 9), Fence(5))
        .await
        .expect("finish g2");
    let over = store.take_over(&"g2".into(), Fence(9)).await;
    assert!(matches!(over, Err(StoreError::Fenced { .. })), "{over:?}");
    let unknown = store.take_over(&"nope".into(), Fence(9)).await;
    assert!(
        matches!(unknown, Err(StoreError::Fenced { .. })),
        "{unknown:?}"
    );
    store.close().await;
}
