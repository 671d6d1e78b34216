//! What a restarting server asks of the store: the unfinished games, their draw offers,
//! its incarnation number, and interrupting the games it cannot or will not resume.

use super::*;
use crate::store::DrawOfferRecord;

#[tokio::test]
async fn interrupt_unfinished_marks_only_playing_games() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    store
        .create_player(&player("p1", "Alice"), "hash-1", 10)
        .await
        .expect("create alice");
    for (id, at) in [("g1", 1_000), ("g2", 2_000), ("g3", 3_000)] {
        store
            .create_game(&new_game(id, "p1", "Alice", at), Fence::SINGLE)
            .await
            .expect("create game");
    }
    store
        .finish_game(&win("g2", "p1", 5, 2_500), Fence::SINGLE)
        .await
        .expect("finish");
    store
        .append_move(&mv("g1", 1, "4", 1_100), None, Fence::SINGLE)
        .await
        .expect("move");

    assert_eq!(store.interrupt_unfinished().await.expect("interrupt"), 2);
    assert_eq!(
        count(&store, "SELECT moves FROM games WHERE game_id = 'g1'").await,
        1,
        "an interrupted game keeps its move count"
    );
    let status = |g: Option<StoredGame>| g.expect("exists").status;
    assert_eq!(
        status(store.game(&"g1".into()).await.expect("load")),
        GameStatus::Interrupted
    );
    assert_eq!(
        status(store.game(&"g2".into()).await.expect("load")),
        GameStatus::Finished
    );
    assert_eq!(
        status(store.game(&"g3".into()).await.expect("load")),
        GameStatus::Interrupted
    );
    assert_eq!(store.interrupt_unfinished().await.expect("again"), 0);
    store.close().await;
}

#[tokio::test]
async fn unfinished_games_are_listed_oldest_first_with_what_resuming_needs() {
    let Some(db) = test_db().await else { return };
    let (store, _) = open_with_alice(&db).await;
    for (id, at) in [("g2", 2_000), ("g1", 1_000), ("g3", 3_000)] {
        store
            .create_game(&new_game(id, "p1", "Alice", at), Fence::SINGLE)
            .await
            .expect("create game");
    }
    store
        .finish_game(&win("g2", "p1", 5, 2_500), Fence::SINGLE)
        .await
        .expect("finish");
    let unfinished = store.unfinished_games().await.expect("unfinished");
    let ids: Vec<(&str, &str)> = unfinished
        .iter()
        .map(|game| (game.game_id.as_str(), game.room_id.as_str()))
        .collect();
    assert_eq!(ids, [("g1", "room-g1"), ("g3", "room-g3")]);

    let offer = DrawOfferRecord {
        seat: Seat::Second,
        ply: 3,
    };
    store
        .record_draw_offer(&"g1".into(), Some(offer), Fence::SINGLE)
        .await
        .expect("record the offer");
    let read = store
        .game(&"g1".into())
        .await
        .expect("read")
        .expect("stored");
    assert_eq!(read.draw_offer, Some(offer));
    store
        .record_draw_offer(&"g1".into(), None, Fence::SINGLE)
        .await
        .expect("withdraw the offer");
    let read = store
        .game(&"g1".into())
        .await
        .expect("read")
        .expect("stored");
    assert_eq!(read.draw_offer, None);

    store
        .record_stand_in(&"g1".into(), Seat::First, Fence::SINGLE)
        .await
        .expect("record a stand-in");
    let read = store
        .game(&"g1".into())
        .await
        .expect("read")
        .expect("stored");
    assert!(read.seats[0].stood_in && !read.seats[1].stood_in);
    assert_eq!(
        read.rules,
        Some(serde_json::json!({"checkers": {"quiet_moves": 40}})),
        "the rules are kept as the game started"
    );

    store
        .interrupt_game(&"g1".into(), Fence(9))
        .await
        .expect("not its token");
    assert_eq!(store.unfinished_games().await.expect("unfinished").len(), 2);
    store
        .interrupt_game(&"g1".into(), Fence::SINGLE)
        .await
        .expect("interrupt one");
    let unfinished = store.unfinished_games().await.expect("unfinished");
    assert_eq!(unfinished.len(), 1);
    assert_eq!(unfinished[0].game_id, "g3");
    store.close().await;
}

#[tokio::test]
async fn each_start_takes_a_higher_incarnation_that_outlives_the_process() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    assert_eq!(store.next_incarnation().await.expect("first"), 1);
    assert_eq!(store.next_incarnation().await.expect("second"), 2);
    store.close().await;
    let store = open(&db).await;
    assert_eq!(store.next_incarnation().await.expect("after reopening"), 3);
    store.close().await;
}
