//! Opening a database an older server wrote (the schema as migrations 0001 to 0009 left
//! it): migration 0010 rebuilds the score boards per opponent from the games, and the
//! store recomputes the people's ratings from their games against each other, once.

use super::*;
use parlor_room::ratings::{Rating, rate};
use sqlx::Pool;

use super::super::Db;

/// A seat as the older server stored it: kind, player, stood in (0 or 1), score, and
/// (rating before, after) if the game was rated then.
type OldSeat = (
    &'static str,
    Option<&'static str>,
    i64,
    Option<i64>,
    Option<(f64, f64)>,
);

/// One finished or unfinished game as a server of migration 0009 stored it.
struct OldGame {
    game_id: &'static str,
    game: &'static str,
    /// `None` while it is being played.
    finished_at: Option<i64>,
    winner: Option<i64>,
    reason: EndReason,
    options: &'static str,
    seats: [OldSeat; 2],
    /// Moves made by each seat.
    moves: [u32; 2],
}

/// The database as migrations 0001 to 0009 leave it, in `db`.
async fn older_schema(db: &TestDb) -> Pool<Db> {
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
    pool
}

/// Writes `game` as the older server did: the game, its seats and its moves.
async fn write_old_game(pool: &Pool<Db>, game: &OldGame) {
    let status = if game.finished_at.is_some() {
        "finished"
    } else {
        "playing"
    };
    let total = game.moves[0] + game.moves[1];
    sqlx::query(
        "INSERT INTO games (game_id, game, room_id, status, options, started_at, finished_at, \
         winner, reason, duration_ms, moves) VALUES ($1, $2, 'r', $3, $4, 1, $5, $6, $7, $8, $9)",
    )
    .bind(game.game_id)
    .bind(game.game)
    .bind(status)
    .bind(game.options)
    .bind(game.finished_at)
    .bind(game.winner)
    .bind(game.finished_at.map(|_| game.reason.as_str()))
    .bind(game.finished_at.map(|at| at - 1))
    .bind(i64::from(total))
    .execute(pool)
    .await
    .expect("a game");
    for (seat, (kind, player, stood_in, score, rating)) in game.seats.iter().enumerate() {
        sqlx::query(
            "INSERT INTO game_seats (game_id, seat, kind, player_id, name, stood_in, score, \
             rating_before, rating_after) VALUES ($1, $2, $3, $4, 'x', $5, $6, $7, $8)",
        )
        .bind(game.game_id)
        .bind(seat as i64)
        .bind(*kind)
        .bind(*player)
        .bind(*stood_in)
        .bind(*score)
        .bind(rating.map(|(before, _)| before))
        .bind(rating.map(|(_, after)| after))
        .execute(pool)
        .await
        .expect("a seat");
    }
    // Seat 0 moves first; the moves alternate until one side has made all of its own.
    let turns = (0..game.moves[0].max(game.moves[1])).flat_map(|turn| {
        [0_usize, 1]
            .into_iter()
            .filter(move |&seat| turn < game.moves[seat])
    });
    for (ply, seat) in (1_i64..).zip(turns) {
        sqlx::query(
            "INSERT INTO moves (game_id, ply, seat, notation, played_at, think_ms) \
             VALUES ($1, $2, $3, 'm', $2, 1)",
        )
        .bind(game.game_id)
        .bind(ply)
        .bind(seat as i64)
        .execute(pool)
        .await
        .expect("a move");
    }
}

#[tokio::test]
async fn an_older_database_gets_boards_per_opponent_and_ratings_from_games_between_people() {
    let Some(db) = test_db().await else { return };
    let pool = older_schema(&db).await;
    let ttt = "tictactoe";
    let plain = r#"{"bot":"easy"}"#;
    // As the older server rated them all, bots included: values that must leave no trace.
    let then = Some((1500.0, 1662.0));
    let games = [
        // Alice beats Easy bot fast.
        OldGame {
            game_id: "g1",
            game: ttt,
            finished_at: Some(10),
            winner: Some(0),
            reason: EndReason::ThreeInARow,
            options: plain,
            seats: [
                ("human", Some("p1"), 0, Some(482), then),
                ("bot:easy", None, 0, None, then),
            ],
            moves: [3, 2],
        },
        // Alice beats Bob slowly.
        OldGame {
            game_id: "g2",
            game: ttt,
            finished_at: Some(20),
            winner: Some(0),
            reason: EndReason::ThreeInARow,
            options: "{}",
            seats: [
                ("human", Some("p1"), 0, Some(130), then),
                ("human", Some("p2"), 0, Some(0), then),
            ],
            moves: [4, 3],
        },
        // Bob and Carol draw.
        OldGame {
            game_id: "g3",
            game: ttt,
            finished_at: Some(30),
            winner: None,
            reason: EndReason::BoardFull,
            options: "{}",
            seats: [
                ("human", Some("p2"), 0, Some(40), then),
                ("human", Some("p3"), 0, Some(40), then),
            ],
            moves: [5, 4],
        },
        // Carol resigns at once to Alice: rated then, too short to be rated now.
        OldGame {
            game_id: "g4",
            game: ttt,
            finished_at: Some(40),
            winner: Some(1),
            reason: EndReason::Resigned,
            options: "{}",
            seats: [
                ("human", Some("p3"), 0, None, then),
                ("human", Some("p1"), 0, None, then),
            ],
            moves: [1, 0],
        },
        // Bob beats Alice's stand-in at checkers: rated for neither, then or now.
        OldGame {
            game_id: "g5",
            game: "checkers",
            finished_at: Some(50),
            winner: Some(0),
            reason: EndReason::NoMoves,
            options: "{}",
            seats: [
                ("human", Some("p2"), 0, Some(150), None),
                ("human", Some("p1"), 1, None, None),
            ],
            moves: [20, 20],
        },
        // Alice beats Easy bot again with the same score: the first one stays.
        OldGame {
            game_id: "g6",
            game: ttt,
            finished_at: Some(60),
            winner: Some(0),
            reason: EndReason::ThreeInARow,
            options: plain,
            seats: [
                ("human", Some("p1"), 0, Some(482), then),
                ("bot:easy", None, 0, None, then),
            ],
            moves: [3, 2],
        },
        // Bob is playing Hard bot.
        OldGame {
            game_id: "g7",
            game: ttt,
            finished_at: None,
            winner: None,
            reason: EndReason::Aborted,
            options: r#"{"bot":"hard"}"#,
            seats: [
                ("human", Some("p2"), 0, None, None),
                ("bot:hard", None, 0, None, None),
            ],
            moves: [1, 1],
        },
    ];
    let statements = [
        "INSERT INTO players (player_id, token_hash, name, created_at) VALUES \
         ('p1', 'h1', 'Alice', 1), ('p2', 'h2', 'Bob', 1), ('p3', 'h3', 'Carol', 1)",
        "INSERT INTO ratings (game, player_key, rating, deviation, volatility, games, updated_at) \
         VALUES ('tictactoe', 'bot:easy', 1249, 300, 0.06, 3, 60), \
         ('tictactoe', 'p1', 1800, 250, 0.06, 4, 60), ('tictactoe', 'p2', 1400, 290, 0.06, 2, 30), \
         ('tictactoe', 'p3', 1450, 290, 0.06, 2, 40)",
    ];
    for statement in statements {
        sqlx::query(statement)
            .execute(&pool)
            .await
            .expect("older rows");
    }
    for game in &games {
        write_old_game(&pool, game).await;
    }
    // The old board: one best per player, whoever the opponent.
    sqlx::query(
        "INSERT INTO leaderboard (game, player_id, score, game_id, achieved_at) VALUES \
         ('tictactoe', 'p1', 482, 'g1', 10), ('tictactoe', 'p2', 40, 'g3', 30), \
         ('tictactoe', 'p3', 40, 'g3', 30), ('checkers', 'p2', 150, 'g5', 50)",
    )
    .execute(&pool)
    .await
    .expect("the old board");
    pool.close().await;

    let store = open(&db).await;
    let board = async |game, opponent| {
        store
            .leaderboard(game, Some(opponent), 10)
            .await
            .expect("board")
            .iter()
            .map(|e| (e.player_id.to_string(), e.score, e.game_id.to_string()))
            .collect::<Vec<_>>()
    };
    let entry = |player: &str, score, game_id: &str| (player.to_owned(), score, game_id.to_owned());
    let easy = Opponent::Bot(BotLevel::Easy);
    assert_eq!(
        board(GameKind::TicTacToe, Opponent::Person).await,
        [
            entry("p1", 130, "g2"),
            entry("p2", 40, "g3"),
            entry("p3", 40, "g3")
        ],
        "Alice's win over a person has its place, though her best came against a bot"
    );
    assert_eq!(
        board(GameKind::TicTacToe, easy).await,
        [entry("p1", 482, "g1")],
        "on equal scores the earlier achievement stays"
    );
    assert_eq!(
        board(GameKind::Checkers, Opponent::Bot(BotLevel::Random)).await,
        [entry("p2", 150, "g5")],
        "a stand-in's level was not kept: the weakest is assumed"
    );
    let seats = |game: StoredGame| game.seats.iter().map(|s| s.opponent).collect::<Vec<_>>();
    let g1 = store.game(&"g1".into()).await.expect("read").expect("g1");
    assert_eq!(seats(g1), [Some(easy), Some(Opponent::Person)]);
    let g7 = store.game(&"g7".into()).await.expect("read").expect("g7");
    assert_eq!(
        seats(g7),
        [None, None],
        "an unfinished game has no opponent yet"
    );

    // The ratings, from the games between people that §13.4 rates (g2, then g3) alone.
    let fresh = Rating::default();
    let [alice, bob_after_g2] = rate([fresh, fresh], Some(Seat::First));
    let [bob, carol] = rate([bob_after_g2, fresh], None);
    let ratings: Vec<(String, f64, f64, f64, i64, i64)> = sqlx::query_as(
        "SELECT player_key, rating, deviation, volatility, games, updated_at FROM ratings \
         ORDER BY game, player_key",
    )
    .fetch_all(&store.pool)
    .await
    .expect("ratings");
    let row = |key: &str, r: Rating, games, at| {
        (
            key.to_owned(),
            r.rating,
            r.deviation,
            r.volatility,
            games,
            at,
        )
    };
    assert_eq!(
        ratings,
        [
            row("p1", alice, 1, 20),
            row("p2", bob, 2, 30),
            row("p3", carol, 1, 30)
        ],
        "no bot game and no too-short game counts"
    );
    let rated = async |game_id: &str| {
        let game = store
            .game(&game_id.into())
            .await
            .expect("read")
            .expect("a game");
        game.seats
            .iter()
            .map(|s| (s.rating_before, s.rating_after))
            .collect::<Vec<_>>()
    };
    let rounded = |r: Rating| Some(r.rating.round() as i64);
    assert_eq!(
        rated("g2").await,
        [
            (Some(1500), rounded(alice)),
            (Some(1500), rounded(bob_after_g2))
        ]
    );
    assert_eq!(
        rated("g3").await,
        [
            (rounded(bob_after_g2), rounded(bob)),
            (Some(1500), rounded(carol))
        ]
    );
    for unrated in ["g1", "g4", "g6"] {
        assert_eq!(
            rated(unrated).await,
            [(None, None), (None, None)],
            "{unrated}"
        );
    }
    store.close().await;

    // Once only: a rating written since stays as it is when the store opens again.
    let store = open(&db).await;
    sqlx::query("UPDATE ratings SET rating = 1234 WHERE player_key = 'p1'")
        .execute(&store.pool)
        .await
        .expect("a later rating");
    store.close().await;
    let store = open(&db).await;
    assert_eq!(
        count(&store, "SELECT COUNT(*) FROM ratings WHERE rating = 1234").await,
        1,
        "the recompute ran again"
    );
    store.close().await;
}
