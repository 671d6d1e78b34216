//! Network partitions lose no move: three real nodes, each in a network namespace of its
//! own, reach the machine's PostgreSQL and Redis through forwarders in the root
//! namespace, each over a link of its own, and their clients over a third. One node is
//! cut from Redis (not PostgreSQL), or from PostgreSQL (not Redis), for longer than a
//! lease, by dropping every packet on that link (`parlor_testkit::netns`), then healed.
//! Games whose players and spectators are spread over the nodes play to their ends, and
//! the history checker holds over every client's view: each ply stored once, every
//! acknowledged move stored, no two clients shown different moves at one ply. How long
//! the cut froze each game is printed (`-- --nocapture`), not asserted.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;
use tokio::sync::watch;

use parlor_testkit::fault_proxy::FaultProxy;
use parlor_testkit::netns::NetNamespace;

use crate::chaos_clients::{
    Part, Seen, all_started, all_under_way, chaos_seed, finished_games, take_part,
};
use crate::common::{client_at, get_json_at, temp_dir};
use crate::fleet::{LEASE_MS, TestFleet};
use crate::history::{check_history, freezes_report};
use crate::process::ParlorProcess;
use serial_test::serial;

/// Games in flight through the cut.
const GAMES: usize = 12;

/// The games, in turn, and how long a player thinks over a move (ms): long enough that
/// the games are still on when the cut heals.
const KINDS: &[(&str, (u64, u64))] = &[
    ("tictactoe", (2_000, 3_500)),
    ("checkers", (150, 400)),
    ("fox_geese", (150, 400)),
];

/// How long a link stays cut: four leases, so that the cut node's leases lapse.
const CUT: Duration = Duration::from_millis(4 * LEASE_MS);

/// How long the fleet may take to finish every game after the cut heals.
const FINISH_WITHIN: Duration = Duration::from_secs(240);

/// A node's links: its clients', its PostgreSQL's and its Redis's.
#[derive(Clone, Copy, Debug)]
enum Path {
    Clients = 0,
    Postgres = 1,
    Redis = 2,
}

/// A node in a namespace of its own, with the forwarders its service links lead to.
/// Fields drop in order: the server, then the forwarders, then the namespace.
struct PartitionedNode {
    process: ParlorProcess,
    _postgres: FaultProxy,
    _redis: FaultProxy,
    namespace: NetNamespace,
}

impl PartitionedNode {
    /// Starts a node of `fleet` in `namespace`, in `dir`, listening on its clients'
    /// link and reaching PostgreSQL and Redis each over its own link.
    async fn start(fleet: &TestFleet, namespace: NetNamespace, dir: &std::path::Path) -> Self {
        let link = |path: Path| namespace.link(path as usize).clone();
        let postgres =
            FaultProxy::start_on(link(Path::Postgres).root_ip.into(), &fleet.store_server())
                .await
                .unwrap();
        let redis_url = reqwest::Url::parse(fleet.redis_url()).unwrap();
        let redis_server = format!(
            "{}:{}",
            redis_url.host_str().unwrap(),
            redis_url.port().unwrap_or(6379)
        );
        let redis = FaultProxy::start_on(link(Path::Redis).root_ip.into(), &redis_server)
            .await
            .unwrap();
        let mut via_forwarder = redis_url.clone();
        via_forwarder.set_ip_host(redis.address().ip()).unwrap();
        via_forwarder
            .set_port(Some(redis.address().port()))
            .unwrap();
        let mut env = fleet.env();
        for (key, value) in &mut env {
            match key.as_str() {
                "PARLOR_STORE__URL" => *value = fleet.store_url_via(postgres.address()),
                "PARLOR_CLUSTER__REDIS_URL" => *value = via_forwarder.to_string(),
                _ => {}
            }
        }
        env.push((
            "PARLOR_SERVER__BIND".to_owned(),
            link(Path::Clients).ns_ip.to_string(),
        ));
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let process = ParlorProcess::start_in_namespace(namespace.name(), dir, &env, &[]);
        PartitionedNode {
            process,
            _postgres: postgres,
            _redis: redis,
            namespace,
        }
    }
}

/// A namespace for each of `count` nodes, or `None` (said) where the machine cannot make
/// them outside CI; under CI (`CI` set) their lack fails the test.
fn namespaces(test: &str, count: usize) -> Option<Vec<NetNamespace>> {
    let made: Result<Vec<NetNamespace>, _> = (0..count).map(|_| NetNamespace::new(3)).collect();
    match made {
        Ok(namespaces) => Some(namespaces),
        Err(error) if std::env::var_os("CI").is_none() => {
            eprintln!("SKIPPED {test}: no network namespaces on this machine: {error}");
            None
        }
        Err(error) => panic!("{test}: network namespaces are needed under CI: {error}"),
    }
}

/// Plays `GAMES` games across three partitioned nodes while node 0's `cut` link is cut
/// for [`CUT`], then checks every game's history and prints how long the cut froze them.
async fn games_outlive_a_cut(test: &str, cut: Path) {
    let Some(fleet) = TestFleet::new(test).await else {
        return;
    };
    let Some(namespaces) = namespaces(test, 3) else {
        return;
    };
    let seed = chaos_seed();
    eprintln!("{test}: seed {seed} (PARLOR_TEST_CHAOS_SEED={seed} replays the clients' choices)");
    let mut rng = StdRng::seed_from_u64(seed);
    let dirs = [temp_dir(), temp_dir(), temp_dir()];
    let mut nodes = Vec::new();
    for (namespace, dir) in namespaces.into_iter().zip(&dirs) {
        nodes.push(PartitionedNode::start(&fleet, namespace, dir.path()).await);
    }
    let addresses: Vec<String> = nodes
        .iter()
        .map(|node| node.process.address.clone())
        .collect();
    let (_addresses_tx, addresses) = watch::channel(addresses);
    let seen = Arc::new(Mutex::new(Seen::default()));

    // Rooms are opened on every node in turn; their players and a spectator connect
    // wherever their draw sends them, so most games cross nodes.
    let mut parts = Vec::new();
    for n in 0..GAMES {
        let (kind, think_ms) = KINDS[n % KINDS.len()];
        let at = &nodes[n % nodes.len()].process.address;
        let (mut organizer, _) = client_at(at, &format!("O{n}"), None).await;
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
    all_started(&seen, clients, Duration::from_secs(60)).await;
    all_under_way(&seen, GAMES, Duration::from_secs(60)).await;

    let link = nodes[0].namespace.link(cut as usize).clone();
    let from = Instant::now();
    link.cut().unwrap();
    eprintln!("{test}: node 0 cut from {cut:?}");
    // Not a wait for anything: the partition's length is the scenario.
    tokio::time::sleep(CUT).await;
    link.heal().unwrap();
    let healed = Instant::now();
    eprintln!("{test}: node 0's link to {cut:?} healed");

    let game_ids = finished_games(players, FINISH_WITHIN, GAMES).await;
    let finished = healed.elapsed();
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    let (mut stored, mut acknowledged, mut shown) = (0, 0, 0);
    let uncut = &nodes[1].process.address;
    for game_id in &game_ids {
        let (_, game) = get_json_at(uncut, &format!("/api/games/{game_id}")).await;
        let reason = game["reason"].as_str().unwrap_or("");
        assert!(
            !matches!(reason, "aborted" | "abandoned" | "interrupted"),
            "game {game_id} was ended by the cut: {reason}"
        );
        let checked = check_history(&game, &seen, &[]);
        stored += checked.stored;
        acknowledged += checked.acknowledged;
        shown += checked.seen;
    }
    let freezes = freezes_report(&seen, (from, healed));
    eprintln!(
        "{test}: {} games, {stored} moves stored, {acknowledged} acknowledged and {shown} seen, \
         all stored once; the last game ended {} ms after the heal",
        game_ids.len(),
        finished.as_millis()
    );
    eprintln!("{test}: {freezes}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn a_node_cut_from_redis_loses_no_move() {
    games_outlive_a_cut("a_node_cut_from_redis_loses_no_move", Path::Redis).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn a_node_cut_from_postgres_loses_no_move() {
    games_outlive_a_cut("a_node_cut_from_postgres_loses_no_move", Path::Postgres).await;
}
