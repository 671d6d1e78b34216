//! A rolling restart of a whole fleet ends no game: three real nodes on the machine's
//! PostgreSQL and Redis, 50 live games whose players and spectators are spread over
//! them, and each node in turn stopped with SIGTERM (it hands its rooms over) and
//! started again. Every game is played to its own end, with every move any client
//! saw stored once, and no state's `seq` seen twice for two different states.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;
use tokio::sync::watch;

use crate::chaos_clients::{
    Part, Seen, all_started, all_under_way, chaos_seed, check_stored_game, finished_games,
    take_part,
};
use crate::common::{client_at, get_json_at, temp_dir};
use crate::fleet::TestFleet;
use crate::process::ParlorProcess;
use serial_test::serial;

/// Games in flight while the fleet restarts.
const GAMES: usize = 50;

/// The games, in turn, and how long a player thinks over a move (ms): long enough that
/// every game is still on when the last node restarts.
const KINDS: &[(&str, (u64, u64))] = &[
    ("tictactoe", (1_500, 3_000)),
    ("checkers", (150, 400)),
    ("fox_geese", (150, 400)),
];

/// How long the whole fleet may take to finish every game after the last restart.
const FINISH_WITHIN: Duration = Duration::from_secs(240);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn a_rolling_restart_of_the_fleet_ends_no_game() {
    let test = "a_rolling_restart_of_the_fleet_ends_no_game";
    let Some(fleet) = TestFleet::new(test).await else {
        return;
    };
    let seed = chaos_seed();
    eprintln!(
        "rolling restart seed {seed} (PARLOR_TEST_CHAOS_SEED={seed} replays the clients' choices)"
    );
    let mut rng = StdRng::seed_from_u64(seed);
    let dirs = [temp_dir(), temp_dir(), temp_dir()];
    let mut nodes = fleet.start_nodes(&dirs);
    let live = |nodes: &[ParlorProcess]| -> Vec<String> {
        nodes.iter().map(|node| node.address.clone()).collect()
    };
    let (addresses_tx, addresses) = watch::channel(live(&nodes));
    let seen = Arc::new(Mutex::new(Seen::default()));

    // Rooms are opened on every node in turn; their players and a spectator connect
    // wherever their draw sends them.
    let mut parts = Vec::new();
    for n in 0..GAMES {
        let (kind, think_ms) = KINDS[n % KINDS.len()];
        let (mut organizer, _) = client_at(&nodes[n % 3].address, &format!("O{n}"), None).await;
        let clock = json!({"kind": "fischer", "base_ms": 600_000, "increment_ms": 0});
        let (room, _) = organizer
            .create_game(kind, ["open", "open"], json!({"time_control": clock}))
            .await;
        for (seat, name) in [
            (Some(0), format!("P{n}a")),
            (Some(1), format!("P{n}b")),
            (None, format!("W{n}")),
        ] {
            parts.push(Part {
                room: room.clone(),
                seat,
                name,
                think_ms,
                fleet: true,
            });
        }
    }
    let clients = parts.len();
    let players: Vec<_> = parts
        .into_iter()
        .map(|part| {
            let seed = rng.random();
            tokio::spawn(take_part(part, addresses.clone(), seen.clone(), seed))
        })
        .collect();

    // Each node in turn, once every game is on and under way: stopped gracefully, and
    // started again on its own folder.
    all_started(&seen, clients, Duration::from_secs(60)).await;
    all_under_way(&seen, GAMES, Duration::from_secs(120)).await;
    for index in 0..nodes.len() {
        let others: Vec<String> = live(&nodes)
            .into_iter()
            .enumerate()
            .filter(|(other, _)| *other != index)
            .map(|(_, address)| address)
            .collect();
        addresses_tx.send_replace(others);
        nodes[index].signal(libc::SIGTERM);
        // A deadline only for a node that never stops: SIGTERM ends it cleanly.
        let stopped = nodes[index].exited_within(Duration::from_secs(120));
        assert!(
            stopped.is_some_and(|status| status.success()),
            "{stopped:?}"
        );
        eprintln!("rolling restart: node {index} stopped");
        nodes[index] = fleet.start_node(dirs[index].path());
        addresses_tx.send_replace(live(&nodes));
        // Not a wait for anything: an operator's pause between one node and the next,
        // part of the scenario. Whenever the next node stops, its rooms must go on.
        tokio::time::sleep(Duration::from_secs(1)).await;
    }

    let game_ids = finished_games(players, FINISH_WITHIN, GAMES).await;

    let seen = std::mem::take(&mut *seen.lock().unwrap());
    let mut moves = 0;
    for game_id in &game_ids {
        let (_, game) = get_json_at(&nodes[0].address, &format!("/api/games/{game_id}")).await;
        let reason = game["reason"].as_str().unwrap_or("");
        assert!(
            !matches!(reason, "aborted" | "abandoned" | "interrupted"),
            "game {game_id} was ended by the restarts: {reason}"
        );
        let saw: BTreeMap<u64, String> = seen.moves.get(game_id).cloned().unwrap_or_default();
        moves += saw.len();
        check_stored_game(&game, &saw, &[]);
    }
    eprintln!(
        "rolling restart: {} games, {} states and {moves} moves seen",
        game_ids.len(),
        seen.states.len()
    );
}
