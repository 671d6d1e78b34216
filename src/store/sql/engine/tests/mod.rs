//! Tests of the SQL store, compiled and run once per engine: against a real SQLite file
//! in a temporary folder, and against the machine's PostgreSQL in a schema of the test's
//! own (`PARLOR_TEST_POSTGRES_URL`), one module per part of the store; this one holds the
//! database each test opens and the records they write.

mod accounts;
mod bans;
mod batching;
mod chat;
mod decoding;
mod endings;
mod engine;
mod fencing;
mod games;
mod identities;
mod names;
mod recovery;
mod starts;
mod upgrade;

use parlor_room::PlayerId;
use parlor_rules::GameKind;
use parlor_rules::bots::BotLevel;
use parlor_rules::games::{EndReason, Seat};

use parlor_room::ratings::RatedKey;
use parlor_room::records::{LeaderboardCandidate, SeatRecord, SeatResult};
use parlor_room::scoring::Opponent;

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
    RatedKey::of(SeatKind::Human, Some(&PlayerId::from(id))).expect("a person has a key")
}

fn player(id: &str, name: &str) -> PlayerRecord {
    PlayerRecord {
        player_id: id.into(),
        name: name.to_owned(),
        bot_account: false,
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

/// `game_id` between the people `first` and `second`, started at `started_at_ms`.
fn between_people(game_id: &str, [first, second]: [&str; 2], started_at_ms: i64) -> NewGame {
    let mut game = new_game(game_id, first, "First", started_at_ms);
    game.seats[1] = SeatRecord {
        seat: Seat::Second,
        kind: SeatKind::Human,
        player_id: Some(second.into()),
        name: "Second".to_owned(),
    };
    game
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
                opponent: Opponent::Bot(BotLevel::Easy),
            },
            SeatResult {
                seat: Seat::Second,
                thinking_ms: 300,
                score: None,
                opponent: Opponent::Person,
            },
        ],
        leaderboard: vec![LeaderboardCandidate {
            player_id: player_id.into(),
            score,
            opponent: Opponent::Bot(BotLevel::Easy),
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
