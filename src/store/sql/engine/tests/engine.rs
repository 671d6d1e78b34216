//! The engine itself: migrations run again on reopen, and concurrent writers all
//! commit.

use super::*;

#[tokio::test]
async fn migrations_are_idempotent_on_reopen() {
    let Some(db) = test_db().await else { return };
    for round in 0..3 {
        let store = open(&db).await;
        assert_eq!(
            count(
                &store,
                "SELECT COUNT(*) FROM _sqlx_migrations WHERE success"
            )
            .await,
            i64::try_from(MIGRATOR.iter().count()).expect("few migrations"),
        );
        if round == 0 {
            store
                .create_player(&player("p1", "Alice"), "hash-1", 10)
                .await
                .expect("create alice");
        }
        assert_eq!(count(&store, "SELECT COUNT(*) FROM players").await, 1);
        store.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writers_all_commit() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    let mut tasks = Vec::new();
    for i in 0..24 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            store
                .create_player(
                    &player(&format!("p{i}"), &format!("Player{i}")),
                    &format!("h{i}"),
                    i,
                )
                .await
        }));
    }
    // Everyone races for the same name: exactly one wins.
    for i in 0..8 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            store
                .create_player(&player(&format!("q{i}"), "Same"), &format!("k{i}"), i)
                .await
        }));
    }
    let mut taken = 0;
    for task in tasks {
        match task.await.expect("join") {
            Ok(()) => {}
            Err(StoreError::NameTaken) => taken += 1,
            Err(err) => panic!("unexpected error: {err:?}"),
        }
    }
    assert_eq!(taken, 7);
    assert_eq!(count(&store, "SELECT COUNT(*) FROM players").await, 25);
    store.close().await;
}

#[tokio::test]
async fn scores_kept_before_opponents_were_recorded_are_filed_under_their_opponent() {
    let Some(db) = test_db().await else { return };
    // The schema as migrations 0001 to 0009 left it, with games a server wrote then.
    let older = tempfile::tempdir().expect("tempdir");
    for migration in MIGRATOR.iter().filter(|m| m.version < 10) {
        let name = format!(
            "{:04}_{}.sql",
            migration.version,
            migration.description.replace(' ', "_")
        );
        std::fs::write(older.path().join(name), migration.sql.as_bytes()).expect("copy");
    }
    let pool = db.raw_pool().await;
    sqlx::migrate::Migrator::new(older.path())
        .await
        .expect("the older migrations")
        .run(&pool)
        .await
        .expect("the older schema");
    // (game id, game, seat 0's player, seat 1's kind, seat 1's player, seat 1 stood in)
    let games = [
        ("g1", "tictactoe", "p1", "bot:easy", None, 0),
        ("g2", "chess", "p1", "human", Some("p2"), 0),
        ("g3", "checkers", "p2", "human", Some("p1"), 1),
        ("g4", "tictactoe", "p2", "bot:hard", None, 0),
    ];
    let statements = [
        "INSERT INTO players (player_id, token_hash, name, created_at) VALUES \
         ('p1', 'h1', 'Alice', 1), ('p2', 'h2', 'Bob', 1)",
        "INSERT INTO ratings (game, player_key, rating, deviation, volatility, games, updated_at) \
         VALUES ('tictactoe', 'bot:easy', 1249, 300, 0.06, 2, 5), \
         ('tictactoe', 'p1', 1662, 290, 0.06, 2, 5)",
        "INSERT INTO leaderboard (game, player_id, score, game_id, achieved_at) VALUES \
         ('tictactoe', 'p1', 14345, 'g1', 10), ('chess', 'p1', 130, 'g2', 20), \
         ('checkers', 'p2', 150, 'g3', 30)",
    ];
    for (game_id, game, first, kind, second, stood_in) in games {
        let status = if game_id == "g4" {
            "playing"
        } else {
            "finished"
        };
        sqlx::query(
            "INSERT INTO games (game_id, game, room_id, status, options, started_at) \
             VALUES ($1, $2, 'r', $3, '{}', 1)",
        )
        .bind(game_id)
        .bind(game)
        .bind(status)
        .execute(&pool)
        .await
        .expect("a game");
        sqlx::query(
            "INSERT INTO game_seats (game_id, seat, kind, player_id, name, stood_in) \
             VALUES ($1, 0, 'human', $2, 'x', 0), ($1, 1, $3, $4, 'y', $5)",
        )
        .bind(game_id)
        .bind(first)
        .bind(kind)
        .bind(second)
        .bind(stood_in)
        .execute(&pool)
        .await
        .expect("its seats");
    }
    for statement in statements {
        sqlx::query(statement)
            .execute(&pool)
            .await
            .expect("older rows");
    }
    pool.close().await;

    let store = open(&db).await;
    let board = async |game, opponent| {
        store
            .leaderboard(game, Some(opponent), 10)
            .await
            .expect("board")
            .iter()
            .map(|e| (e.player_id.to_string(), e.score))
            .collect::<Vec<_>>()
    };
    let easy = Opponent::Bot(BotLevel::Easy);
    assert_eq!(
        board(GameKind::TicTacToe, easy).await,
        [("p1".to_owned(), 14345)]
    );
    assert!(
        board(GameKind::TicTacToe, Opponent::Person)
            .await
            .is_empty()
    );
    assert_eq!(
        board(GameKind::Chess, Opponent::Person).await,
        [("p1".to_owned(), 130)]
    );
    assert_eq!(
        board(GameKind::Checkers, Opponent::Bot(BotLevel::Random)).await,
        [("p2".to_owned(), 150)],
        "a stand-in's level was not kept: the weakest is assumed"
    );
    let seats = |game: StoredGame| game.seats.iter().map(|s| s.opponent).collect::<Vec<_>>();
    let g1 = store.game(&"g1".into()).await.expect("read").expect("g1");
    assert_eq!(seats(g1), [Some(easy), Some(Opponent::Person)]);
    let g4 = store.game(&"g4".into()).await.expect("read").expect("g4");
    assert_eq!(
        seats(g4),
        [None, None],
        "an unfinished game has no opponent yet"
    );
    assert_eq!(
        count(
            &store,
            "SELECT COUNT(*) FROM ratings WHERE player_key LIKE 'bot:%'"
        )
        .await,
        0,
        "bots are rated no more"
    );
    assert_eq!(count(&store, "SELECT COUNT(*) FROM ratings").await, 1);
    store.close().await;
}
