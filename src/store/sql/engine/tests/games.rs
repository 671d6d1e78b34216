//! A game's records: moves and a finish read back as written, failures rolled back,
//! the leaderboard's best scores, and everything kept across a reopen.

use super::*;

#[tokio::test]
async fn a_game_with_moves_and_a_finish_round_trips() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    store
        .create_player(&player("p1", "Alice"), "hash-1", 10)
        .await
        .expect("create alice");
    store
        .create_game(&new_game("g1", "p1", "Alice", 1_000), Fence::SINGLE)
        .await
        .expect("create game");

    let playing = store
        .game(&"g1".into())
        .await
        .expect("load")
        .expect("exists");
    assert_eq!(playing.status, GameStatus::Playing);
    assert_eq!(playing.finished_at_ms, None);
    assert_eq!(playing.winner, None);
    assert!(playing.moves.is_empty());
    assert_eq!(playing.seats.len(), 2);
    assert_eq!(playing.seats[0].thinking_ms, None);

    // Appended out of ply order on purpose: game() orders them.
    let moves = [
        mv("g1", 1, "b2", 1_100),
        mv("g1", 2, "a1", 1_200),
        mv("g1", 3, "a3", 1_300),
        mv("g1", 4, "c1", 1_400),
    ];
    for i in [0, 2, 1, 3] {
        store
            .append_move(&moves[i], None, Fence::SINGLE)
            .await
            .expect("append");
    }
    let last = mv("g1", 5, "c3", 1_500);
    let mut finish = win("g1", "p1", 42, 1_600);
    finish.moves = 5;
    store
        .append_move(&last, Some(&finish), Fence::SINGLE)
        .await
        .expect("append the winning move");

    let game = store
        .game(&"g1".into())
        .await
        .expect("load")
        .expect("exists");
    let expected = StoredGame {
        game_id: "g1".into(),
        game: GameKind::TicTacToe,
        room_id: "room-g1".into(),
        status: GameStatus::Finished,
        options: serde_json::json!({"bot": "easy"}),
        started_at_ms: 1_000,
        finished_at_ms: Some(1_600),
        winner: Some(Seat::First),
        reason: Some(EndReason::ThreeInARow),
        duration_ms: Some(1_000),
        seats: vec![
            StoredSeat {
                seat: Seat::First,
                kind: SeatKind::Human,
                player_id: Some("p1".into()),
                name: "Alice".to_owned(),
                thinking_ms: Some(700),
                score: Some(42),
                opponent: Some(Opponent::Bot(BotLevel::Easy)),
                rating_before: None,
                rating_after: None,
                stood_in: false,
            },
            StoredSeat {
                seat: Seat::Second,
                kind: SeatKind::Bot(BotLevel::Easy),
                player_id: None,
                name: "Easy bot".to_owned(),
                thinking_ms: Some(300),
                score: None,
                opponent: Some(Opponent::Person),
                rating_before: None,
                rating_after: None,
                stood_in: false,
            },
        ],
        moves: moves
            .iter()
            .chain([&last])
            .map(|m| StoredMove {
                ply: m.ply,
                seat: m.seat,
                notation: m.notation.clone(),
                played_at_ms: m.played_at_ms,
                think_ms: m.think_ms,
                clocks_ms: m.clocks_ms,
            })
            .collect(),
        chat: Vec::new(),
        draw_offer: None,
        rules: Some(serde_json::json!({"checkers": {"quiet_moves": 40}})),
    };
    assert_eq!(game, expected);
    assert_eq!(
        count(&store, "SELECT moves FROM games WHERE game_id = 'g1'").await,
        5
    );
    let options: String = sqlx::query_scalar("SELECT options FROM games WHERE game_id = 'g1'")
        .fetch_one(&store.pool)
        .await
        .expect("options");
    assert_eq!(options, r#"{"bot":"easy"}"#);

    let board = store
        .leaderboard(GameKind::TicTacToe, None, 10)
        .await
        .expect("board");
    assert_eq!(board.len(), 1);
    assert_eq!(board[0].score, 42);
    assert_eq!(board[0].game_id, "g1");

    assert_eq!(store.game(&"nope".into()).await.expect("load"), None);
    store.close().await;
}

#[tokio::test]
async fn finish_without_a_move_and_failures_roll_back() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    store
        .create_player(&player("p1", "Alice"), "hash-1", 10)
        .await
        .expect("create alice");
    store
        .create_game(&new_game("g1", "p1", "Alice", 1_000), Fence::SINGLE)
        .await
        .expect("create game");
    store
        .append_move(&mv("g1", 1, "b2", 1_100), None, Fence::SINGLE)
        .await
        .expect("append");

    // A resignation: a draw-like ending with no winner and no leaderboard entry.
    let resign = GameFinish {
        winner: None,
        reason: EndReason::Resigned,
        moves: 1,
        leaderboard: Vec::new(),
        ..win("g1", "p1", 0, 2_000)
    };
    store
        .finish_game(&resign, Fence::SINGLE)
        .await
        .expect("finish");
    let game = store
        .game(&"g1".into())
        .await
        .expect("load")
        .expect("exists");
    assert_eq!(game.status, GameStatus::Finished);
    assert_eq!(game.winner, None);
    assert_eq!(game.reason, Some(EndReason::Resigned));
    assert_eq!(game.moves.len(), 1);

    // Finishing an unknown game fails and writes no leaderboard row.
    let err = store
        .finish_game(&win("ghost", "p1", 99, 3_000), Fence::SINGLE)
        .await
        .expect_err("unknown game");
    assert!(
        matches!(err, StoreError::Database(sqlx::Error::RowNotFound)),
        "{err:?}"
    );
    assert_eq!(count(&store, "SELECT COUNT(*) FROM leaderboard").await, 0);

    // A move whose finish fails is not written either: one transaction.
    store
        .create_game(&new_game("g2", "p1", "Alice", 4_000), Fence::SINGLE)
        .await
        .expect("create game");
    let err = store
        .append_move(
            &mv("g2", 1, "b2", 4_100),
            Some(&win("ghost", "p1", 99, 4_200)),
            Fence::SINGLE,
        )
        .await
        .expect_err("finish of an unknown game");
    assert!(
        matches!(err, StoreError::Database(sqlx::Error::RowNotFound)),
        "{err:?}"
    );
    let g2 = store
        .game(&"g2".into())
        .await
        .expect("load")
        .expect("exists");
    assert!(g2.moves.is_empty());
    assert_eq!(
        count(&store, "SELECT moves FROM games WHERE game_id = 'g2'").await,
        0
    );

    // A move for an unknown game is refused (the fenced insert finds no game to own it)
    // and stores nothing.
    let err = store
        .append_move(&mv("ghost", 1, "b2", 5_000), None, Fence::SINGLE)
        .await
        .expect_err("a move of an unknown game");
    assert!(matches!(err, StoreError::Fenced { .. }), "{err:?}");
    assert_eq!(
        count(&store, "SELECT COUNT(*) FROM moves WHERE game_id = 'ghost'").await,
        0
    );
    store.close().await;
}

#[tokio::test]
async fn the_leaderboard_keeps_the_best_score_and_the_earliest_on_ties() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    for (id, name, hash) in [
        ("p1", "Alice", "h1"),
        ("p2", "Bob", "h2"),
        ("p3", "Carol", "h3"),
    ] {
        store
            .create_player(&player(id, name), hash, 1)
            .await
            .expect("create player");
    }
    // (game id, player, score, finished at)
    let results = [
        ("g1", "p1", 10, 100), // p1's first 10
        ("g2", "p1", 5, 200),  // lower: ignored
        ("g3", "p1", 10, 300), // tie: the earlier g1 stays
        ("g4", "p2", 10, 150), // same score as p1, later: ranks after p1
        ("g5", "p3", 7, 400),
    ];
    for (game_id, player_id, score, at) in results {
        store
            .create_game(&new_game(game_id, player_id, "x", at - 50), Fence::SINGLE)
            .await
            .expect("create game");
        store
            .finish_game(&win(game_id, player_id, score, at), Fence::SINGLE)
            .await
            .expect("finish");
    }
    let board = store
        .leaderboard(GameKind::TicTacToe, None, 10)
        .await
        .expect("board");
    let summary: Vec<_> = board
        .iter()
        .map(|e| {
            (
                e.rank,
                e.player_id.as_str(),
                e.name.as_str(),
                e.score,
                e.game_id.as_str(),
                e.achieved_at_ms,
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (1, "p1", "Alice", 10, "g1", 100),
            (2, "p2", "Bob", 10, "g4", 150),
            (3, "p3", "Carol", 7, "g5", 400),
        ]
    );

    // A strictly higher score replaces the entry; a rename shows at once.
    store
        .create_game(&new_game("g6", "p3", "Carol", 450), Fence::SINGLE)
        .await
        .expect("create game");
    store
        .finish_game(&win("g6", "p3", 11, 500), Fence::SINGLE)
        .await
        .expect("finish");
    store
        .rename_player(&"p3".into(), "Caroline")
        .await
        .expect("rename");
    let board = store
        .leaderboard(GameKind::TicTacToe, None, 2)
        .await
        .expect("board");
    assert_eq!(board.len(), 2, "the limit applies");
    assert_eq!(board[0].rank, 1);
    assert_eq!(board[0].player_id, "p3");
    assert_eq!(board[0].name, "Caroline");
    assert_eq!((board[0].score, board[0].game_id.as_str()), (11, "g6"));
    assert_eq!(board[0].achieved_at_ms, 500);
    assert_eq!((board[1].rank, board[1].player_id.as_str()), (2, "p1"));

    // Boards are per game.
    assert!(
        store
            .leaderboard(GameKind::Chess, None, 10)
            .await
            .expect("board")
            .is_empty()
    );
    store.close().await;
}

#[tokio::test]
async fn the_leaderboard_keeps_a_best_per_opponent_and_reads_one_or_all() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    store
        .create_player(&player("p1", "Alice"), "h1", 1)
        .await
        .expect("create player");
    let against_a_person = |finish: GameFinish| GameFinish {
        leaderboard: finish
            .leaderboard
            .iter()
            .map(|candidate| LeaderboardCandidate {
                opponent: Opponent::Person,
                ..candidate.clone()
            })
            .collect(),
        ..finish
    };
    // A high score against the easy bot, a lower one against a person, then a lower
    // one against the easy bot: each opponent keeps its own best.
    let finishes = [
        win("g1", "p1", 900, 100),
        against_a_person(win("g2", "p1", 200, 200)),
        win("g3", "p1", 500, 300),
    ];
    for finish in &finishes {
        store
            .create_game(
                &new_game(finish.game_id.as_str(), "p1", "Alice", 1),
                Fence::SINGLE,
            )
            .await
            .expect("create game");
        store
            .finish_game(finish, Fence::SINGLE)
            .await
            .expect("finish");
    }
    let read = async |opponent| {
        let board = store
            .leaderboard(GameKind::TicTacToe, opponent, 10)
            .await
            .expect("board");
        board
            .iter()
            .map(|e| (e.rank, e.opponent, e.score, e.game_id.to_string()))
            .collect::<Vec<_>>()
    };
    let easy = Opponent::Bot(BotLevel::Easy);
    assert_eq!(
        read(None).await,
        [
            (1, easy, 900, "g1".to_owned()),
            (2, Opponent::Person, 200, "g2".to_owned())
        ]
    );
    assert_eq!(
        read(Some(Opponent::Person)).await,
        [(1, Opponent::Person, 200, "g2".to_owned())]
    );
    assert_eq!(read(Some(easy)).await, [(1, easy, 900, "g1".to_owned())]);
    assert!(read(Some(Opponent::Bot(BotLevel::Hard))).await.is_empty());
    store.close().await;
}

#[tokio::test]
async fn a_restart_keeps_everything() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    store
        .create_player(&player("p1", "Alice"), "hash-1", 10)
        .await
        .expect("create alice");
    store
        .rename_player(&"p1".into(), "Alicia")
        .await
        .expect("rename");
    store
        .create_game(&new_game("g1", "p1", "Alicia", 1_000), Fence::SINGLE)
        .await
        .expect("create game");
    let mut finish = win("g1", "p1", 42, 1_600);
    finish.moves = 1;
    store
        .append_move(&mv("g1", 1, "b2", 1_100), Some(&finish), Fence::SINGLE)
        .await
        .expect("append");
    store
        .create_game(&new_game("g2", "p1", "Alicia", 2_000), Fence::SINGLE)
        .await
        .expect("create game");
    store
        .append_move(&mv("g2", 1, "a1", 2_100), None, Fence::SINGLE)
        .await
        .expect("append");
    let g1 = store.game(&"g1".into()).await.expect("load");
    let g2 = store.game(&"g2".into()).await.expect("load");
    let board = store
        .leaderboard(GameKind::TicTacToe, None, 10)
        .await
        .expect("board");
    store.close().await;
    drop(store);

    let store = open(&db).await;
    assert_eq!(
        store.player_by_token("hash-1").await.expect("lookup"),
        Some(player("p1", "Alicia"))
    );
    assert_eq!(store.game(&"g1".into()).await.expect("load"), g1);
    assert_eq!(store.game(&"g2".into()).await.expect("load"), g2);
    assert_eq!(
        store
            .leaderboard(GameKind::TicTacToe, None, 10)
            .await
            .expect("board"),
        board
    );
    // Both names are still p1's.
    for name in ["alice", "ALICIA"] {
        let err = store
            .create_player(&player("p2", name), "hash-2", 20)
            .await
            .expect_err("owned by p1");
        assert!(matches!(err, StoreError::NameTaken), "{err:?}");
    }
    store.close().await;
}
