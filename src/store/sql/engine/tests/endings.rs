//! Ratings and endings: a rated game moves both ratings, endings written together
//! equal endings written one by one, and endings of an unknown game fail together.

use super::*;
use crate::store::sql::log_connection::LogConnection;

#[tokio::test]
async fn a_rated_game_moves_both_ratings_and_a_bot_has_none() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    for (id, name) in [("p1", "Alice"), ("p2", "Bob")] {
        store
            .create_player(&player(id, name), &format!("hash-{id}"), 10)
            .await
            .expect("create player");
    }
    let keys = [human("p1"), human("p2")];
    let mut before_each = [None, None];
    for (game_id, at) in [("g1", 1_000), ("g2", 2_000)] {
        let shown = store
            .create_game(&between_people(game_id, ["p1", "p2"], at), Fence::SINGLE)
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
    let [alice, bob] = store
        .ratings(
            GameKind::TicTacToe,
            [Some(&human("p1")), Some(&human("p2"))],
        )
        .await
        .expect("read")
        .map(|rating| rating.expect("rated"));
    assert!(alice.rating > 1500.0 && bob.rating < 1500.0);
    assert_eq!(
        store
            .ratings(GameKind::TicTacToe, [None, Some(&human("p1"))])
            .await
            .expect("read"),
        [None, Some(alice)],
        "a seat without a person has no rating"
    );
    assert_eq!(
        store
            .ratings(GameKind::Chess, [Some(&human("p1")), Some(&human("p2"))])
            .await
            .expect("read"),
        [None, None],
        "per game"
    );
    // A game against a bot shows the person's rating and none for the bot.
    let shown = store
        .create_game(&new_game("g3", "p1", "Alice", 3_000), Fence::SINGLE)
        .await
        .expect("create game");
    assert_eq!(shown, [Some(alice), None]);

    let board = store
        .rating_leaderboard(GameKind::TicTacToe, 10)
        .await
        .expect("board");
    let listed: Vec<(&str, i64)> = board.iter().map(|e| (e.name.as_str(), e.games)).collect();
    assert_eq!(listed, [("Alice", 2), ("Bob", 2)]);
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
         || ',' || opponent FROM game_seats ORDER BY game_id, seat",
        "SELECT game || ',' || player_id || ',' || opponent || ',' || score || ',' || game_id || ',' \
         || achieved_at FROM leaderboard ORDER BY game, player_id, opponent",
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

/// How a test writes its endings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Each through the store, in a transaction of its own.
    OneByOne,
    /// All at once, on one of the store's pooled connections.
    Together,
    /// All at once, on a connection of the game log writer's own kind, where that
    /// differs (SQLite's writer thread, which writes them one row at a time).
    TogetherAsTheWriter,
}

#[tokio::test]
async fn endings_written_together_equal_endings_written_one_by_one() {
    let rated = |finish: GameFinish, keys: [&str; 2]| GameFinish {
        rated: Some(keys.map(human)),
        ..finish
    };
    // Carol is rated in four games (once in the second seat), Alice in three, Bob in
    // one; Alice's best score is reached twice (7 in g3, then again in g4), Bob's once.
    let finishes = vec![
        rated(win("g1", "p1", 5, 1_100), ["p1", "p3"]),
        rated(win("g2", "p2", 7, 1_200), ["p2", "p3"]),
        GameFinish {
            winner: None,
            reason: EndReason::DrawAgreed,
            ..rated(win("g3", "p1", 7, 1_300), ["p1", "p3"])
        },
        win("g4", "p1", 7, 1_400),
        GameFinish {
            winner: Some(Seat::Second),
            leaderboard: Vec::new(),
            ..rated(win("g5", "p1", 0, 1_500), ["p3", "p1"])
        },
    ];
    let mut stores = Vec::new();
    let mut returned = Vec::new();
    for mode in [Mode::OneByOne, Mode::Together, Mode::TogetherAsTheWriter] {
        let Some(db) = test_db().await else { return };
        let store = open(&db).await;
        let writer = match mode {
            Mode::TogetherAsTheWriter => match db.writer_connection().await {
                Some(writer) => Some(writer),
                // This engine's writer writes through the pool's connections: the
                // second round has covered it.
                None => continue,
            },
            Mode::OneByOne | Mode::Together => None,
        };
        for (id, name) in [("p1", "Alice"), ("p2", "Bob"), ("p3", "Carol")] {
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
        let all: Vec<(&GameFinish, Fence)> = finishes
            .iter()
            .map(|finish| (finish, Fence::SINGLE))
            .collect();
        let changes = if let Some(mut writer) = writer {
            writer.begin().await.expect("begin");
            let changes = write_finishes(&mut writer, &all)
                .await
                .expect("as the writer");
            writer.commit().await.expect("commit");
            changes
        } else if mode == Mode::Together {
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
    for (written, stored) in returned.iter().zip(&stores).skip(1) {
        assert_eq!(&returned[0], written, "the same rating changes");
        assert_eq!(stores[0].0, stored.0, "the same rows");
    }
    let text = &stores[1].0;
    assert!(
        text.contains("tictactoe,p1,bot:easy,7,g3,1300"),
        "the first best score stays: {text}"
    );
    assert!(text.contains("tictactoe,p3,"), "{text}");
    let rated_games = returned[1].iter().flatten().count();
    assert_eq!(rated_games, 4, "four rated games");
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
