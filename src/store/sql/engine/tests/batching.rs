//! Group commit: moves and game starts queued together share one transaction, a
//! bad one fails alone, and a batch with endings commits them together.

use super::*;

#[tokio::test]
async fn moves_queued_together_commit_in_one_batch_and_a_bad_one_fails_alone() {
    let Some(db) = test_db().await else { return };
    let (store, stats) = open_with_alice(&db).await;
    let games: Vec<String> = (0..40).map(|n| format!("g{n}")).collect();
    for game in &games {
        store
            .create_game(&new_game(game, "p1", "Alice", 0), Fence::SINGLE)
            .await
            .expect("game");
    }
    // The games' starts went through the writer too.
    let (batches, commits) = (
        stats.moves.get_sample_count(),
        stats.commit_seconds.get_sample_count(),
    );
    // The first move of 40 games, plus a second "first move" of g0 that the primary
    // key refuses, all queued before the writer forms a batch.
    let mut moves: Vec<MoveRecord> = games.iter().map(|g| mv(g, 1, "4", 10)).collect();
    moves.push(mv("g0", 1, "0", 11));
    let results = queued_together(
        &store,
        futures_util::future::join_all(
            moves
                .iter()
                .map(|m| store.append_move(m, None, Fence::SINGLE)),
        ),
    )
    .await;
    assert!(results[..40].iter().all(Result::is_ok), "{results:?}");
    assert!(
        matches!(
            results[40],
            Err(StoreError::Database(_) | StoreError::Sqlite(_))
        ),
        "{results:?}"
    );
    assert_eq!(stats.moves.get_sample_count(), batches + 1, "one batch");
    assert_eq!(stats.moves.get_sample_sum(), 41.0);
    assert_eq!(
        stats.commit_seconds.get_sample_count(),
        commits,
        "refused as a whole"
    );
    assert_eq!(count(&store, "SELECT COUNT(*) FROM moves").await, 40);
    assert_eq!(
        count(
            &store,
            "SELECT COUNT(*) FROM moves WHERE game_id = 'g0' AND notation = '4'"
        )
        .await,
        1
    );
    store.close().await;
    let after = store
        .append_move(&mv("g1", 2, "0", 12), None, Fence::SINGLE)
        .await;
    assert!(matches!(after, Err(StoreError::Closed)), "{after:?}");
}

#[tokio::test]
async fn games_started_together_share_a_batch_and_a_duplicate_fails_alone() {
    let Some(db) = test_db().await else { return };
    let (store, stats) = open_with_alice(&db).await;
    let commits = stats.commit_seconds.get_sample_count();
    // Queued before the writer forms a batch: g1, g2, and another room's game as g1
    // (the same start again would be recorded as the same game: `starts`).
    let mut games = ["g1", "g2", "g1"].map(|id| new_game(id, "p1", "Alice", 0));
    games[2].room_id = "room-elsewhere".into();
    let results = queued_together(
        &store,
        futures_util::future::join_all(games.iter().map(|g| store.create_game(g, Fence::SINGLE))),
    )
    .await;
    assert!(results[0].is_ok() && results[1].is_ok(), "{results:?}");
    assert!(
        matches!(&results[2], Err(StoreError::GameIdTaken { game_id }) if game_id.as_str() == "g1"),
        "{results:?}"
    );
    assert_eq!(
        stats.commit_seconds.get_sample_count(),
        commits,
        "refused as a whole, then written one by one"
    );
    assert_eq!(count(&store, "SELECT COUNT(*) FROM games").await, 2);
    assert_eq!(count(&store, "SELECT COUNT(*) FROM game_seats").await, 4);
    let g2 = store
        .game(&"g2".into())
        .await
        .expect("read")
        .expect("stored");
    assert_eq!(g2.seats.len(), 2);

    let (g3, g4) = (
        new_game("g3", "p1", "Alice", 5),
        new_game("g4", "p1", "Alice", 6),
    );
    let (three, four) = queued_together(&store, async {
        tokio::join!(
            store.create_game(&g3, Fence::SINGLE),
            store.create_game(&g4, Fence::SINGLE)
        )
    })
    .await;
    three.expect("g3");
    four.expect("g4");
    assert_eq!(
        stats.commit_seconds.get_sample_count(),
        commits + 1,
        "two starts, one commit"
    );
    store.close().await;
}

#[tokio::test]
async fn a_game_started_as_the_last_one_ends_shows_the_ratings_that_ending_left() {
    let Some(db) = test_db().await else { return };
    let (store, stats) = open_with_alice(&db).await;
    let people = ["p1", "p2"];
    store
        .create_game(&between_people("g1", people, 0), Fence::SINGLE)
        .await
        .expect("g1");
    let ending = GameFinish {
        rated: Some(people.map(human)),
        ..win("g1", "p1", 600, 500)
    };
    let (last, next) = (mv("g1", 1, "4", 400), between_people("g2", people, 600));
    let commits = stats.commit_seconds.get_sample_count();
    let (ended, shown) = queued_together(&store, async {
        tokio::join!(
            store.append_move(&last, Some(&ending), Fence::SINGLE),
            store.create_game(&next, Fence::SINGLE)
        )
    })
    .await;
    let changes = ended.expect("the last move").expect("rated");
    assert_eq!(
        stats.commit_seconds.get_sample_count(),
        commits + 1,
        "one batch"
    );
    assert_eq!(
        shown.expect("g2"),
        changes.map(|change| Some(change.after)),
        "the new game shows the ratings as the ending left them"
    );
    store.close().await;
}

#[tokio::test]
async fn a_batch_the_database_takes_is_one_commit_with_its_endings() {
    let Some(db) = test_db().await else { return };
    let (store, stats) = open_with_alice(&db).await;
    for game in ["g1", "g2"] {
        store
            .create_game(&new_game(game, "p1", "Alice", 0), Fence::SINGLE)
            .await
            .expect("game");
    }
    let commits = stats.commit_seconds.get_sample_count();
    let (a, b) = (mv("g1", 1, "4", 10), mv("g2", 1, "0", 11));
    let mut finish = win("g2", "p1", 700, 20);
    finish.moves = 1;
    let (first, second) = queued_together(&store, async {
        tokio::join!(
            store.append_move(&a, None, Fence::SINGLE),
            store.append_move(&b, Some(&finish), Fence::SINGLE)
        )
    })
    .await;
    assert_eq!(first.expect("g1's move"), None);
    second.expect("g2's move and ending");
    assert_eq!(
        stats.commit_seconds.get_sample_count(),
        commits + 1,
        "one commit"
    );
    let g2 = store
        .game(&"g2".into())
        .await
        .expect("read")
        .expect("stored");
    assert_eq!((g2.status, g2.moves.len()), (GameStatus::Finished, 1));
    assert_eq!(
        store
            .game(&"g1".into())
            .await
            .expect("read")
            .expect("stored")
            .moves
            .len(),
        1
    );
    store.close().await;
}

#[tokio::test]
async fn a_full_batch_of_rated_endings_commits_as_one() {
    // As many games as a batch holds, started together and each ended by one move, all
    // rated between two people of their own: the batch's largest statements (on
    // PostgreSQL, its endings' seats and its ratings: 2,048 rows of 7 values each) are
    // sent whole.
    const GAMES: usize = super::super::batch::MAX_BATCH;
    let Some(db) = test_db().await else { return };
    let (store, stats) = open_with_alice(&db).await;
    let people: Vec<[String; 2]> = (0..GAMES)
        .map(|n| [format!("a{n}"), format!("b{n}")])
        .collect();
    let games: Vec<NewGame> = people
        .iter()
        .enumerate()
        .map(|(n, [a, b])| between_people(&format!("g{n}"), [a, b], 0))
        .collect();
    let started = all_queued_together(
        &store,
        games
            .iter()
            .map(|game| store.create_game(game, Fence::SINGLE)),
    )
    .await;
    assert!(started.iter().all(Result::is_ok), "{started:?}");
    let endings: Vec<GameFinish> = people
        .iter()
        .enumerate()
        .map(|(n, [a, b])| GameFinish {
            rated: Some([human(a), human(b)]),
            moves: 1,
            ..win(&format!("g{n}"), "p1", 600, 500)
        })
        .collect();
    let moves: Vec<MoveRecord> = (0..GAMES)
        .map(|n| mv(&format!("g{n}"), 1, "4", 400))
        .collect();
    let (batches, commits) = (
        stats.moves.get_sample_count(),
        stats.commit_seconds.get_sample_count(),
    );
    let ended = all_queued_together(
        &store,
        moves
            .iter()
            .zip(&endings)
            .map(|(mv, ending)| store.append_move(mv, Some(ending), Fence::SINGLE)),
    )
    .await;
    let unrated = ended.iter().find(|result| !matches!(result, Ok(Some(_))));
    assert!(unrated.is_none(), "every ending rated: {unrated:?}");
    assert_eq!(stats.moves.get_sample_count(), batches + 1, "one batch");
    assert_eq!(stats.commit_seconds.get_sample_count(), commits + 1);
    let finished = "SELECT COUNT(*) FROM games WHERE status = 'finished'";
    assert_eq!(count(&store, finished).await, GAMES as i64);
    let ratings = count(&store, "SELECT COUNT(*) FROM ratings").await;
    assert_eq!(ratings, 2 * GAMES as i64);
    store.close().await;
}

/// Like `queued_together`, for any number of calls: each is polled once while the
/// store's write lock is held, then all are awaited. `join_all` polls a long list a
/// part at a time, and tokio's budget makes a task's sends wait after a hundred or so,
/// either of which lets the writer form a batch of the first ones: so each call is
/// polled here, outside the budget.
async fn all_queued_together<F: Future>(
    store: &SqlStore,
    calls: impl Iterator<Item = F>,
) -> Vec<F::Output> {
    let held = store.writes.lock().await;
    let mut calls: Vec<_> = calls
        .map(|call| Box::pin(tokio::task::unconstrained(call)))
        .collect();
    for call in &mut calls {
        assert!(
            futures_util::poll!(call.as_mut()).is_pending(),
            "a write cannot finish while the writer waits for the lock"
        );
    }
    drop(held);
    futures_util::future::join_all(calls).await
}
