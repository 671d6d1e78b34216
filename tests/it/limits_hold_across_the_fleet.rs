//! An address's per-minute quotas hold across a fleet: new players made through any
//! node count against one quota in Redis, so a balancer spreading one address over the
//! nodes gets it no more than a single server would. While the fleet's Redis is away a
//! node counts alone, in memory, and still serves new players.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use serial_test::serial;

use crate::common::{Client, temp_dir};
use crate::fleet::TestFleet;
use crate::process::ParlorProcess;
use parlor_testkit::fault_proxy::FaultProxy;
use parlor_testkit::redis_server::RedisServer;

/// The nodes' `limits.players_per_minute_per_ip` in the fleet-wide test.
const PLAYERS_PER_MINUTE: u32 = 5;

/// How long the log line of a Redis outage may take to appear before the test fails.
const LOG_PATIENCE: Duration = Duration::from_secs(60);

/// Says hello as a new player named `name` through the node at `address`: its welcome,
/// or the error it was refused with.
async fn new_player(address: &str, name: &str) -> Result<Value, Value> {
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{address}/ws"))
        .await
        .unwrap();
    let mut client = Client { ws };
    client
        .send(json!({"type": "hello", "name": name, "ref": name}))
        .await;
    let reply = client.recv().await;
    match reply["type"].as_str() {
        Some("welcome") => Ok(reply),
        _ => {
            assert_eq!(reply["type"], "error", "{reply}");
            assert_eq!(reply["ref"], name, "{reply}");
            Err(reply)
        }
    }
}

/// How many places a quota of `per_minute` may have given back in `elapsed` (one every
/// minute / `per_minute`), so that a stalled test counts them rather than fails.
fn given_back(per_minute: u32, elapsed: Duration) -> u32 {
    let each = 60.0 / f64::from(per_minute);
    (elapsed.as_secs_f64() / each).floor() as u32
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn new_players_from_one_address_are_counted_across_the_fleet() {
    let test = "new_players_from_one_address_are_counted_across_the_fleet";
    let Some(fleet) = TestFleet::new(test).await else {
        return;
    };
    let limit = PLAYERS_PER_MINUTE.to_string();
    let setting = [("PARLOR_LIMITS__PLAYERS_PER_MINUTE_PER_IP", limit.as_str())];
    let dirs = [temp_dir(), temp_dir()];
    let nodes: Vec<ParlorProcess> = dirs
        .iter()
        .map(|dir| fleet.start_node_with(dir.path(), &setting))
        .collect();

    // New players from 127.0.0.1, alternately through both nodes, until one is refused:
    // the fleet lets through its limit (each node alone would let through twice that).
    let started = Instant::now();
    let mut welcomed = Vec::new();
    let refusal = loop {
        let node = &nodes[welcomed.len() % 2];
        let name = format!("New{}", welcomed.len());
        match new_player(&node.address, &name).await {
            Ok(welcome) => welcomed.push(welcome),
            Err(refusal) => break refusal,
        }
        assert!(
            welcomed.len() < 2 * PLAYERS_PER_MINUTE as usize,
            "never refused"
        );
    };
    let most = PLAYERS_PER_MINUTE + given_back(PLAYERS_PER_MINUTE, started.elapsed());
    assert!(
        welcomed.len() >= PLAYERS_PER_MINUTE as usize && welcomed.len() <= most as usize,
        "{} new players let through, limit {PLAYERS_PER_MINUTE}",
        welcomed.len()
    );
    assert_eq!(refusal["code"], "rate_limited", "{refusal}");
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .contains("new players in the last minute"),
        "{refusal}"
    );

    // Refused on whichever node, unless the quota has given a place back since; a
    // returning player is welcome on both all the same.
    let token = welcomed[0]["token"].as_str().unwrap().to_owned();
    for (at, node) in nodes.iter().enumerate() {
        match new_player(&node.address, &format!("Again{at}")).await {
            Err(refusal) => assert_eq!(refusal["code"], "rate_limited", "{refusal}"),
            Ok(welcome) => assert!(
                given_back(PLAYERS_PER_MINUTE, started.elapsed()) > 0,
                "node {at} let a sixth new player through at once: {welcome}"
            ),
        }
        let (_, again) = crate::common::client_at(&node.address, "New0", Some(&token)).await;
        assert_eq!(again["player_id"], welcomed[0]["player_id"]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn new_players_are_served_by_the_nodes_own_count_while_redis_is_away() {
    let test = "new_players_are_served_by_the_nodes_own_count_while_redis_is_away";
    let Some(fleet) = TestFleet::new(test).await else {
        return;
    };
    let mut redis = RedisServer::start().unwrap();
    let redis_url = redis.url();
    let dir = temp_dir();
    let node = fleet.start_node_with(
        dir.path(),
        &[
            ("PARLOR_CLUSTER__REDIS_URL", redis_url.as_str()),
            ("PARLOR_LIMITS__PLAYERS_PER_MINUTE_PER_IP", "3"),
        ],
    );
    let started = Instant::now();
    new_player(&node.address, "BeforeOutage").await.unwrap();

    redis.kill();
    let killed = Instant::now();
    // The first new player after the outage began is served all the same: the node
    // counts alone (this is the figure docs/RELIABILITY.md quotes).
    new_player(&node.address, "DuringOutage0").await.unwrap();
    eprintln!(
        "a new player was served {} ms after the fleet's Redis was killed",
        killed.elapsed().as_millis()
    );
    // ...and counts against the node's own quota, which also counted the player made
    // while Redis answered: the third is the last this minute.
    new_player(&node.address, "DuringOutage1").await.unwrap();
    match new_player(&node.address, "DuringOutage2").await {
        Err(refusal) => assert_eq!(refusal["code"], "rate_limited", "{refusal}"),
        Ok(welcome) => assert!(
            given_back(3, started.elapsed()) > 0,
            "a fourth new player let through at once: {welcome}"
        ),
    }
    // The outage is told once, however many requests it touched.
    let warning = "counted by this node alone until Redis answers again";
    node.logged(warning, LOG_PATIENCE).await;
    let told = node
        .log_lines()
        .iter()
        .filter(|line| line.contains(warning))
        .count();
    assert_eq!(told, 1, "{:#?}", node.log_lines());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn new_players_are_served_while_redis_is_black_holed() {
    let test = "new_players_are_served_while_redis_is_black_holed";
    let Some(fleet) = TestFleet::new(test).await else {
        return;
    };
    let redis = RedisServer::start().unwrap();
    let relay = FaultProxy::start(&redis.address().to_string())
        .await
        .unwrap();
    let through_relay = format!("redis://{}", relay.address());
    let dir = temp_dir();
    let node = fleet.start_node_with(
        dir.path(),
        &[
            ("PARLOR_CLUSTER__REDIS_URL", through_relay.as_str()),
            ("PARLOR_LIMITS__PLAYERS_PER_MINUTE_PER_IP", "3"),
        ],
    );
    new_player(&node.address, "BeforeStall").await.unwrap();

    // Redis's connections stay open and nothing comes back: the quota's question waits
    // for the cluster's response timeout (a quarter of the test fleet's 2 s lease), and
    // the player is served by the node's own count.
    relay.black_hole();
    for at in 0..2 {
        let asked = Instant::now();
        new_player(&node.address, &format!("DuringStall{at}"))
            .await
            .unwrap();
        eprintln!(
            "new player {at} during the stall was served in {} ms",
            asked.elapsed().as_millis()
        );
    }
    node.logged(
        "counted by this node alone until Redis answers again",
        LOG_PATIENCE,
    )
    .await;
}
