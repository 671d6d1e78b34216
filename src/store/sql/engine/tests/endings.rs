//! Ratings and endings: a rated game moves both ratings, endings written together
//! equal endings written one by one, and endings of an unknown game fail together.

use super::*;

#[tokio::test]
async fn a_rated_game_moves_both_ratings_and_lists_only_humans() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    store
        .create_player(&player("p1", "Alice"), "hash-1", 10)
        .await
        .expect("create alice");
    let keys = [human("p1"), easy()];
    let mut before_each = [None, None];
    for (game_id, at) in [("g1", 1_000), ("g2", 2_000)] {
        let shown = store
            .create_game(&new_game(game_id, "p1", "Alice", at), Fence::SINGLE)
            .await
            .expect("create game");
        assert_eq!(
            shown, before_each,
            "a game starts showing the ratings its seats have"
        );
        let finish = GameFinish {
            rated: Some(keys.clone()),
            ..win(game_id, "p1", 600, at + 500)
        };
        let changes = store
            .finish_game(&finish, Fence::SINGLE)
            .await
            .expect("finish")
            .expect("rated");
        assert!(
            changes[0].after.rating > changes[0].before.rating,
            "the winner gains"
        );
        assert!(
            changes[1].after.rating < changes[1].before.rating,
            "the loser drops"
        );
        before_each = changes.map(|change| Some(change.after));
    }
    let [alice, bot] = store
        .ratings(GameKind::TicTacToe, [&human("p1"), &easy()])
        .await
        .expect("read")
        .map(|rating| rating.expect("rated"));
    assert!(alice.rating > 1500.0 && bot.rating < 1500.0);
    assert_eq!(
        store
            .ratings(GameKind::TicTacToe, [&easy(), &easy()])
            .await
            .expect("read"),
        [Some(bot), Some(bot)],
        "one player in both seats"
    );
    assert_eq!(
        store
            .ratings(GameKind::Chess, [&human("p1"), &easy()])
            .await
            .expect("read"),
        [None, None],
        "per game"
    );
    let board = store
        .rating_leaderboard(GameKind::TicTacToe, 10)
        .await
        .expect("board");
    assert_eq!(board.len(), 1, "bots are rated but not listed");
    assert_eq!((board[0].name.as_str(), board[0].games), ("Alice", 2));
    assert!((board[0].rating - alice.rating).abs() < 1e-9);
    let second = store
        .game(&"g2".into())
        .await
        .expect("read")
        .expect("stored");
    let alice_seat = &second.seats[0];
    assert!(
        alice_seat.rating_before.expect("recorded") > 1500,
        "the second game starts from the first's result"
    );
    assert_eq!(alice_seat.rating_after, Some(alice.rating.round() as i64));
    store.close().await;
}

/// Every stored row an ending writes, as text, in a fixed order.
async fn endings_as_text(store: &SqlStore) -> String {
    let mut text = String::new();
    for sql in [
        "SELECT game_id || ',' || status || ',' || finished_at || ',' || COALESCE(CAST(winner AS TEXT), '-') \
         || ',' || reason || ',' || duration_ms || ',' || moves FROM games ORDER BY game_id",
        "SELECT game_id || ',' || seat || ',' || thinking_ms || ',' || COALESCE(CAST(score AS TEXT), '-') \
         || ',' || COALESCE(CAST(rating_before AS TEXT), '-') || ',' || COALESCE(CAST(rating_after AS TEXT), '-') \
         FROM game_seats ORDER BY game_id, seat",
        "SELECT game || ',' || player_id || ',' || score || ',' || game_id || ',' || achieved_at \
         FROM leaderboard ORDER BY game, player_id",
        "SELECT game || ',' || player_key || ',' || rating || ',' || deviation || ',' \
         || volatility || ',' || games || ',' || updated_at FROM ratings ORDER BY game, player_key",
    ] {
        let rows: Vec<String> = sqlx::query_scalar(sql)
            .fetch_all(&store.pool)
            .await
            .expect("read back");
        text.push_str(&rows.join("\n"));
        text.push_str("\n--\n");
    }
    text
}

#[tokio::test]
async fn endings_written_together_equal_endings_written_one_by_one() {
    let rated = |finish: GameFinish, human: &str| GameFinish {
        rated: Some([self::human(human), easy()]),
        ..finish
    };
    // The bot is rated in four games (once in both seats), Alice in two; Alice's
    // best score is reached twice (7 in g3, then again in g4), Bob's once.
    let finishes = vec![
        rated(win("g1", "p1", 5, 1_100), "p1"),
        rated(win("g2", "p2", 7, 1_200), "p2"),
        GameFinish {
            winner: None,
            reason: EndReason::DrawAgreed,
            ..rated(win("g3", "p1", 7, 1_300), "p1")
        },
        win("g4", "p1", 7, 1_400),
        GameFinish {
            winner: Some(Seat::Second),
            rated: Some([easy(), easy()]),
            leaderboard: Vec::new(),
            ..win("g5", "p1", 0, 1_500)
        },
    ];
    let mut stores = Vec::new();
    let mut returned = Vec::new();
    for together in [false, true] {
        let Some(db) = test_db().await else { return };
        let store = open(&db).await;
        for (id, name) in [("p1", "Alice"), ("p2", "Bob")] {
            store
                .create_player(&player(id, name), &format!("hash-{id}"), 10)
                .await
                .expect("create player");
        }
        for (n, finish) in finishes.iter().enumerate() {
            let owner = finish
                .leaderboard
                .first()
                .map_or("p1", |c| c.player_id.as_str());
            let game = new_game(finish.game_id.as_str(), owner, "Someone", n as i64);
            store
                .create_game(&game, Fence::SINGLE)
                .await
                .expect("create game");
        }
        let changes = if together {
            let all: Vec<(&GameFinish, Fence)> = finishes
                .iter()
                .map(|finish| (finish, Fence::SINGLE))
                .collect();
            let mut tx = store.pool.begin().await.expect("begin");
            let changes = write_finishes(&mut *tx, &all).await.expect("together");
            tx.commit().await.expect("commit");
            changes
        } else {
            let mut changes = Vec::new();
            for finish in &finishes {
                changes.push(
                    store
                        .finish_game(finish, Fence::SINGLE)
                        .await
                        .expect("alone"),
                );
            }
            changes
        };
        returned.push(changes);
        stores.push((endings_as_text(&store).await, db));
        store.close().await;
    }
    assert_eq!(returned[0], returned[1], "the same rating changes");
    assert_eq!(stores[0].0, stores[1].0, "the same rows");
    let text = &stores[1].0;
    assert!(
        text.contains("tictactoe,p1,7,g3,1300"),
        "the first best score stays: {text}"
    );
    assert!(text.contains("tictactoe,bot:easy,"), "{text}");
    let bot_games = returned[1].iter().flatten().count();
    assert_eq!(bot_games, 4, "four rated games");
}

#[tokio::test]
async fn endings_of_an_unknown_game_fail_together() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    store
        .create_game(&new_game("g1", "p1", "Alice", 1), Fence::SINGLE)
        .await
        .expect("create game");
    let (known, unknown) = (win("g1", "p1", 5, 10), win("nope", "p1", 9, 20));
    let mut tx = store.pool.begin().await.expect("begin");
    let result = write_finishes(
        &mut *tx,
        &[(&known, Fence::SINGLE), (&unknown, Fence::SINGLE)],
    )
    .await;
    assert!(
        matches!(result, Err(StoreError::Database(sqlx::Error::RowNotFound))),
        "{result:?}"
    );
    drop(tx);
    assert_eq!(
        count(
            &store,
            "SELECT COUNT(*) FROM games WHERE status = 'finished'"
        )
        .await,
        0
    );
    store.close().await;
}
