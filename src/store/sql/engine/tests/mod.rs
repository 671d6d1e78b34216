//! Tests of the SQL store, compiled and run once per engine: against a real SQLite file
//! in a temporary folder, and against the machine's PostgreSQL in a schema of the test's
//! own (`PARLOR_TEST_POSTGRES_URL`). `recovery` holds those of what a restarting server
//! reads and writes.

mod chat;
mod fencing;
mod recovery;

use parlor_room::PlayerId;
use parlor_rules::GameKind;
use parlor_rules::bots::BotLevel;
use parlor_rules::games::{EndReason, Seat};

use parlor_room::ratings::RatedKey;
use parlor_room::records::{LeaderboardCandidate, SeatRecord, SeatResult};

use parlor_room::SeatKind;

use super::endings::write_finishes;
use super::{MIGRATOR, SqlStore, TestDb};
use crate::store::sql::BatchStats;
use crate::store::{
    Fence, GameFinish, GameStatus, MoveRecord, NewGame, PlayerRecord, Store, StoreError,
    StoredGame, StoredMove, StoredSeat,
};

/// The test's database: a new SQLite file, or a new PostgreSQL schema. `None` when the
/// engine's test database is not configured (said loudly by `TestDb::new`).
async fn test_db() -> Option<TestDb> {
    TestDb::new().await
}

/// The store in `db`.
async fn open(db: &TestDb) -> SqlStore {
    db.open_with(BatchStats::unreported()).await
}

/// A store whose batch statistics the test reads, with player `p1` (Alice) in it.
async fn open_with_alice(db: &TestDb) -> (SqlStore, BatchStats) {
    let stats = BatchStats::unreported();
    let store = db.open_with(stats.clone()).await;
    store
        .create_player(&player("p1", "Alice"), "hash1", 0)
        .await
        .expect("player");
    (store, stats)
}

/// The key the player `id` is rated under.
fn human(id: &str) -> RatedKey {
    RatedKey::of(SeatKind::Human, Some(&PlayerId::from(id)))
}

/// The key the easy bot is rated under.
fn easy() -> RatedKey {
    RatedKey::of(SeatKind::Bot(BotLevel::Easy), None)
}

fn player(id: &str, name: &str) -> PlayerRecord {
    PlayerRecord {
        player_id: id.into(),
        name: name.to_owned(),
    }
}

async fn count(store: &SqlStore, sql: &str) -> i64 {
    sqlx::query_scalar(sql)
        .fetch_one(&store.pool)
        .await
        .expect("count query")
}

/// Runs `calls` (store writes awaited together) so that all of them are queued before
/// the writer forms its next batch: the store's write lock, which the writer takes
/// before it forms a batch, is held until each call has been polled once.
async fn queued_together<T>(store: &SqlStore, calls: impl Future<Output = T>) -> T {
    let held = store.writes.lock().await;
    let (result, ()) = tokio::join!(calls, async move {
        tokio::task::yield_now().await;
        drop(held);
    });
    result
}

/// A tic-tac-toe game: `player_id` (human) in seat 0, a bot in seat 1.
fn new_game(game_id: &str, player_id: &str, name: &str, started_at_ms: i64) -> NewGame {
    NewGame {
        game_id: game_id.into(),
        game: GameKind::TicTacToe,
        room_id: format!("room-{game_id}").into(),
        started_at_ms,
        seats: vec![
            SeatRecord {
                seat: Seat::First,
                kind: SeatKind::Human,
                player_id: Some(player_id.into()),
                name: name.to_owned(),
            },
            SeatRecord {
                seat: Seat::Second,
                kind: SeatKind::Bot(BotLevel::Easy),
                player_id: None,
                name: "Easy bot".to_owned(),
            },
        ],
        options_json: r#"{"bot":"easy"}"#.to_owned(),
        rules_json: r#"{"checkers":{"quiet_moves":40}}"#.to_owned(),
    }
}

/// Seat 0 wins `game_id` at `finished_at_ms`, offering `score` for `player_id`.
fn win(game_id: &str, player_id: &str, score: i64, finished_at_ms: i64) -> GameFinish {
    GameFinish {
        game_id: game_id.into(),
        game: GameKind::TicTacToe,
        finished_at_ms,
        winner: Some(Seat::First),
        reason: EndReason::ThreeInARow,
        duration_ms: 1_000,
        moves: 0,
        seats: vec![
            SeatResult {
                seat: Seat::First,
                thinking_ms: 700,
                score: Some(score),
            },
            SeatResult {
                seat: Seat::Second,
                thinking_ms: 300,
                score: None,
            },
        ],
        leaderboard: vec![LeaderboardCandidate {
            player_id: player_id.into(),
            score,
        }],
        rated: None,
    }
}

fn mv(game_id: &str, ply: u32, notation: &str, played_at_ms: i64) -> MoveRecord {
    MoveRecord {
        game_id: game_id.into(),
        ply,
        seat: if ply.is_multiple_of(2) {
            Seat::Second
        } else {
            Seat::First
        },
        notation: notation.to_owned(),
        played_at_ms,
        think_ms: i64::from(ply) * 100,
        clocks_ms: Some([60_000 - i64::from(ply), 60_000]),
    }
}

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
    // Queued before the writer forms a batch: g1, g2, and g1 again.
    let games = ["g1", "g2", "g1"].map(|id| new_game(id, "p1", "Alice", 0));
    let results = queued_together(
        &store,
        futures_util::future::join_all(games.iter().map(|g| store.create_game(g, Fence::SINGLE))),
    )
    .await;
    assert!(results[0].is_ok() && results[1].is_ok(), "{results:?}");
    assert!(
        matches!(
            results[2],
            Err(StoreError::Database(_) | StoreError::Sqlite(_))
        ),
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
    store
        .create_game(&new_game("g1", "p1", "Alice", 0), Fence::SINGLE)
        .await
        .expect("g1");
    let keys = [human("p1"), easy()];
    let ending = GameFinish {
        rated: Some(keys),
        ..win("g1", "p1", 600, 500)
    };
    let (last, next) = (mv("g1", 1, "4", 400), new_game("g2", "p1", "Alice", 600));
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
async fn create_and_resolve_players() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    store
        .create_player(&player("p1", "Alice"), "hash-1", 10)
        .await
        .expect("create alice");
    store
        .create_player(&player("p2", "Bob"), "hash-2", 20)
        .await
        .expect("create bob");

    assert_eq!(
        store.player_by_token("hash-1").await.expect("lookup"),
        Some(player("p1", "Alice"))
    );
    assert_eq!(
        store.player_by_token("hash-2").await.expect("lookup"),
        Some(player("p2", "Bob"))
    );
    assert_eq!(store.player_by_token("nope").await.expect("lookup"), None);
    store.close().await;
}

#[tokio::test]
async fn a_look_alike_of_a_name_is_taken() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    store
        .create_player(&player("p1", "Alice"), "hash-1", 10)
        .await
        .expect("create alice");
    for (id, look_alike) in [("p2", "\u{0410}lice"), ("p3", "A1ice"), ("p4", "ALICE")] {
        let err = store
            .create_player(&player(id, look_alike), id, 20)
            .await
            .expect_err(look_alike);
        assert!(
            matches!(err, StoreError::NameTaken),
            "{look_alike}: {err:?}"
        );
    }
    store
        .create_player(&player("p5", "Alicia"), "hash-5", 30)
        .await
        .expect("a different name is free");
    store.close().await;
}

#[tokio::test]
async fn name_keys_written_under_the_old_rule_are_upgraded_once() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    store
        .create_player(&player("p1", "b0b"), "hash-1", 10)
        .await
        .expect("create b0b");
    // As an older server left it: the key is the lowercase name, and no rule noted.
    for statement in [
        "UPDATE player_names SET name_key = 'b0b' WHERE player_id = 'p1'",
        "DELETE FROM store_meta",
    ] {
        sqlx::query(statement)
            .execute(&store.pool)
            .await
            .expect(statement);
    }
    store.close().await;

    let store = open(&db).await;
    let err = store
        .create_player(&player("p2", "bob"), "hash-2", 20)
        .await
        .expect_err("bob looks like b0b");
    assert!(matches!(err, StoreError::NameTaken), "{err:?}");
    assert_eq!(
        store.player_by_token("hash-1").await.expect("lookup"),
        Some(player("p1", "b0b")),
        "the old player keeps their name"
    );
    store.close().await;
}

#[tokio::test]
async fn a_name_is_taken_case_insensitively_and_nothing_is_written() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    store
        .create_player(&player("p1", "Alice"), "hash-1", 10)
        .await
        .expect("create alice");

    let err = store
        .create_player(&player("p2", "alice"), "hash-2", 20)
        .await
        .expect_err("alice is Alice's");
    assert!(matches!(err, StoreError::NameTaken), "{err:?}");
    let err = store
        .create_player(&player("p3", "ALICE"), "hash-3", 30)
        .await
        .expect_err("ALICE is Alice's");
    assert!(matches!(err, StoreError::NameTaken), "{err:?}");

    assert_eq!(store.player_by_token("hash-2").await.expect("lookup"), None);
    assert_eq!(count(&store, "SELECT COUNT(*) FROM players").await, 1);
    assert_eq!(count(&store, "SELECT COUNT(*) FROM player_names").await, 1);

    // The failed attempts left nothing behind: the same id and token work with a free name.
    store
        .create_player(&player("p2", "Alicia"), "hash-2", 40)
        .await
        .expect("create alicia");
    assert_eq!(
        store.player_by_token("hash-2").await.expect("lookup"),
        Some(player("p2", "Alicia"))
    );
    store.close().await;
}

#[tokio::test]
async fn rename_claims_new_names_and_keeps_old_ones() {
    let Some(db) = test_db().await else { return };
    let store = open(&db).await;
    store
        .create_player(&player("p1", "Alice"), "hash-1", 10)
        .await
        .expect("create alice");
    store
        .create_player(&player("p2", "Carol"), "hash-2", 20)
        .await
        .expect("create carol");

    store
        .rename_player(&"p1".into(), "Bob")
        .await
        .expect("rename to Bob");
    assert_eq!(
        store.player_by_token("hash-1").await.expect("lookup"),
        Some(player("p1", "Bob"))
    );

    // Alice still owns her first name (and Bob now): Carol can have neither.
    for name in ["alice", "BOB"] {
        let err = store
            .rename_player(&"p2".into(), name)
            .await
            .expect_err("owned by p1");
        assert!(matches!(err, StoreError::NameTaken), "{err:?}");
    }
    assert_eq!(
        store.player_by_token("hash-2").await.expect("lookup"),
        Some(player("p2", "Carol"))
    );
    let err = store
        .create_player(&player("p3", "Bob"), "hash-3", 30)
        .await
        .expect_err("owned by p1");
    assert!(matches!(err, StoreError::NameTaken), "{err:?}");

    // Back to a name p1 owns, in another case: allowed, and shown as typed.
    store
        .rename_player(&"p1".into(), "ALICE")
        .await
        .expect("rename back");
    assert_eq!(
        store.player_by_token("hash-1").await.expect("lookup"),
        Some(player("p1", "ALICE"))
    );
    // Renaming to one's own current name is fine too.
    store
        .rename_player(&"p2".into(), "Carol")
        .await
        .expect("same name");
    assert_eq!(count(&store, "SELECT COUNT(*) FROM player_names").await, 3);
    store.close().await;
}

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
        .leaderboard(GameKind::TicTacToe, 10)
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

    // A move for an unknown game is refused by the foreign key.
    assert!(
        store
            .append_move(&mv("ghost", 1, "b2", 5_000), None, Fence::SINGLE)
            .await
            .is_err()
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
        .leaderboard(GameKind::TicTacToe, 10)
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
        .leaderboard(GameKind::TicTacToe, 2)
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
            .leaderboard(GameKind::Chess, 10)
            .await
            .expect("board")
            .is_empty()
    );
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
        .leaderboard(GameKind::TicTacToe, 10)
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
            .leaderboard(GameKind::TicTacToe, 10)
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

#[tokio::test]
async fn an_unknown_status_in_the_database_is_a_decoding_error_not_a_panic() {
    let Some(db) = test_db().await else { return };
    let (store, _) = open_with_alice(&db).await;
    store
        .create_game(&new_game("g1", "p1", "Alice", 1_000), Fence::SINGLE)
        .await
        .expect("create game");
    sqlx::query("UPDATE games SET status = 'paused' WHERE game_id = 'g1'")
        .execute(&store.pool)
        .await
        .expect("corrupt the status");

    let is_status_error = |error: &StoreError| {
        matches!(
            error,
            StoreError::Database(sqlx::Error::ColumnDecode { index, source })
                if index == "status" && source.to_string().contains("paused")
        )
    };
    let game = store.game(&"g1".into()).await;
    assert!(game.as_ref().is_err_and(is_status_error), "{game:?}");
    let games = store.player_games(&"p1".into(), 10).await;
    assert!(games.as_ref().is_err_and(is_status_error), "{games:?}");
    store.close().await;
}

#[tokio::test]
async fn an_unknown_game_seat_kind_or_reason_in_the_database_is_a_decoding_error() {
    let Some(db) = test_db().await else { return };
    let (store, _) = open_with_alice(&db).await;
    for (column, corrupt) in [
        ("game", "UPDATE games SET game = 'go'"),
        ("reason", "UPDATE games SET reason = 'fell_asleep'"),
        ("kind", "UPDATE game_seats SET kind = 'ghost'"),
    ] {
        let id = format!("g_{column}");
        store
            .create_game(&new_game(&id, "p1", "Alice", 1_000), Fence::SINGLE)
            .await
            .expect("create game");
        sqlx::query(&format!("{corrupt} WHERE game_id = '{id}'"))
            .execute(&store.pool)
            .await
            .expect("corrupt the column");
        let game = store.game(&id.as_str().into()).await;
        assert!(
            matches!(
                &game,
                Err(StoreError::Database(sqlx::Error::ColumnDecode { index, .. })) if index == column
            ),
            "{column}: {game:?}"
        );
    }
    store.close().await;
}

#[tokio::test]
async fn options_that_are_not_json_are_read_back_as_their_text() {
    let Some(db) = test_db().await else { return };
    let (store, _) = open_with_alice(&db).await;
    store
        .create_game(&new_game("g1", "p1", "Alice", 1_000), Fence::SINGLE)
        .await
        .expect("create game");
    let read = store
        .game(&"g1".into())
        .await
        .expect("read")
        .expect("stored");
    assert_eq!(read.options, serde_json::json!({"bot": "easy"}));

    sqlx::query("UPDATE games SET options = '{bot: easy' WHERE game_id = 'g1'")
        .execute(&store.pool)
        .await
        .expect("write text that is not JSON");
    let read = store
        .game(&"g1".into())
        .await
        .expect("read")
        .expect("stored");
    assert_eq!(read.options, serde_json::json!("{bot: easy"));
    store.close().await;
}

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
