//! Chaos: a real `parlor` process playing two dozen games of every kind (humans against
//! humans and bots, bots against bots, with and without clocks) is killed with SIGKILL
//! at random moments, several times in a row, and started again on the same database
//! after an outage. The clients reconnect, `hello` with their tokens and `join` again.
//! Every game resumes and finishes; every move any client saw is stored as it saw it;
//! no `seq` ever names two different states; and the stored clocks show that no one
//! was charged for an outage. It runs on SQLite and, in a schema of its own, on the
//! machine's PostgreSQL.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use tokio::sync::watch;

use crate::chaos_clients::{
    Outage, Part, Seen, all_started, chaos_seed, check_stored_game, finished_games, take_part,
    unix_ms,
};
use crate::common::{client_at, get_json_at, temp_dir};
use crate::process::ParlorProcess;
use crate::services::PostgresSchema;
use serial_test::serial;

/// How many times the server is killed.
const KILLS: usize = 3;

/// How long the server stays down after each kill: long enough that a clock charged
/// for the outage would show plainly.
const OUTAGE: Duration = Duration::from_secs(4);

/// How long the games may take to begin, every client having joined.
const STARTING: Duration = Duration::from_secs(60);

/// How long the whole scenario may take once the last restart is done.
const FINISH_WITHIN: Duration = Duration::from_secs(240);

/// The server's settings: a grace longer than any outage, slow enough bots that their
/// games are still on when the server dies, and limits that let one address run it all.
const ENV: &[(&str, &str)] = &[
    ("PARLOR_ROOMS__RECONNECT_GRACE_SECS", "120"),
    ("PARLOR_ROOMS__FIRST_MOVE_SECS", "120"),
    ("PARLOR_BOTS__MIN_DELAY_MS", "150"),
    ("PARLOR_BOTS__PRIORITY", "nice"),
    ("PARLOR_BOTS__NICE", "0"),
    ("PARLOR_LIMITS__CONNECTIONS_PER_IP", "1000"),
    ("PARLOR_LIMITS__PLAYERS_PER_MINUTE_PER_IP", "1000"),
    ("PARLOR_LIMITS__ROOMS_PER_MINUTE_PER_IP", "1000"),
    ("PARLOR_LIMITS__ROOMS_PER_MINUTE_PER_CONNECTION", "1000"),
];

/// The games, and how long a person takes over a move in each (ms): slow enough that
/// short games are still in progress when the server dies.
const GAMES: &[(&str, (u64, u64))] = &[
    ("tictactoe", (500, 1_000)),
    ("fox_geese", (60, 160)),
    ("checkers", (40, 120)),
    ("chess", (10, 50)),
];

fn fischer() -> Value {
    json!({"kind": "fischer", "base_ms": 600_000, "increment_ms": 1_000})
}

fn per_move() -> Value {
    json!({"kind": "per_move", "per_move_ms": 60_000})
}

fn no_clock() -> Value {
    json!({"kind": "none"})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn games_survive_repeated_sigkills() {
    survive_sigkills(ENV).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn games_survive_repeated_sigkills_on_postgres() {
    let Some(schema) = PostgresSchema::new("games_survive_repeated_sigkills_on_postgres").await
    else {
        return;
    };
    let store_url = schema.store_url();
    let mut env = ENV.to_vec();
    env.push(("PARLOR_STORE__URL", &store_url));
    survive_sigkills(&env).await;
}

/// The scenario, with the server's environment `env`.
async fn survive_sigkills(env: &[(&str, &str)]) {
    let seed = chaos_seed();
    eprintln!("chaos seed {seed} (PARLOR_TEST_CHAOS_SEED={seed} replays the clients' choices)");
    let mut rng = StdRng::seed_from_u64(seed);
    let dir = temp_dir();
    let mut parlor = ParlorProcess::start(dir.path(), env);
    let (address_tx, address) = watch::channel(vec![parlor.address.clone()]);
    let seen = Arc::new(Mutex::new(Seen::default()));

    let (mut organizer, _) = client_at(&parlor.address, "Organizer", None).await;
    let mut parts = Vec::new();
    let mut rooms = 0;
    for (game, think_ms) in GAMES {
        let mut tables: Vec<([&str; 2], Value)> = vec![
            (["open", "open"], fischer()),
            (["open", "open"], per_move()),
            (["open", "open"], no_clock()),
            (["open", "bot:random"], fischer()),
            (["bot:easy", "open"], no_clock()),
        ];
        if *game != "chess" {
            // Random bots would play a chess game for minutes.
            tables.push((["bot:random", "bot:random"], per_move()));
        }
        for (seats, clock) in tables {
            let (room, _) = organizer
                .create_game(game, seats, json!({"time_control": clock}))
                .await;
            rooms += 1;
            for (seat, spec) in seats.iter().enumerate() {
                if *spec == "open" {
                    parts.push(Part {
                        room: room.clone(),
                        seat: Some(seat as u8),
                        name: format!("P{rooms}s{seat}"),
                        think_ms: *think_ms,
                        fleet: false,
                    });
                }
            }
            if seats.iter().all(|spec| spec.starts_with("bot:")) {
                parts.push(Part {
                    room: room.clone(),
                    seat: None,
                    name: format!("W{rooms}"),
                    think_ms: *think_ms,
                    fleet: false,
                });
            }
        }
    }
    drop(organizer);
    let clients = parts.len();
    let players: Vec<_> = parts
        .into_iter()
        .map(|part| {
            let seed = rng.random();
            tokio::spawn(take_part(part, address.clone(), seen.clone(), seed))
        })
        .collect();

    all_started(&seen, clients, STARTING).await;
    let mut outages = Vec::new();
    for kill in 0..KILLS {
        // Neither sleep waits for anything: when the server dies and how long it stays
        // down are the scenario, drawn from the seed.
        let alive = Duration::from_millis(rng.random_range(800..2_500));
        tokio::time::sleep(alive).await;
        eprintln!("chaos: SIGKILL {} after {alive:?}", kill + 1);
        let down_ms = unix_ms();
        parlor.kill();
        tokio::time::sleep(OUTAGE).await;
        outages.push(Outage {
            down_ms,
            up_ms: unix_ms(),
        });
        parlor = ParlorProcess::start(dir.path(), env);
        address_tx.send_replace(vec![parlor.address.clone()]);
    }

    let game_ids = finished_games(players, FINISH_WITHIN, rooms).await;

    let seen = std::mem::take(&mut *seen.lock().unwrap());
    let mut spanning = 0;
    for game_id in &game_ids {
        let (_, game) = get_json_at(&parlor.address, &format!("/api/games/{game_id}")).await;
        let moves = seen.moves.get(game_id).cloned().unwrap_or_default();
        spanning += check_stored_game(&game, &moves, &outages);
    }
    assert!(
        spanning >= 1,
        "some move was made across an outage, and its mover was not charged for it"
    );
    let moves_seen: usize = seen.moves.values().map(BTreeMap::len).sum();
    assert!(
        moves_seen >= 10 * game_ids.len(),
        "the clients saw {moves_seen} moves, too few for the check to mean anything"
    );
    eprintln!(
        "chaos: {} games, {} states and {moves_seen} moves seen, {spanning} moves across an outage",
        game_ids.len(),
        seen.states.len(),
    );
}
