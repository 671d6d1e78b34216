//! A fleet of two Parlor nodes on one PostgreSQL and one Redis, loaded three times with
//! the same load: every room's players on one node; then the second player and the
//! spectators on the other node, so that every move and every frame crosses between
//! them (the difference is the cost of the hop); then every other room, whole, on the
//! other node, so that the two nodes share the load and nothing crosses.

use crate::error::BenchError;
use crate::load::{self, Load, Placement};
use crate::report::Report;
use crate::server::{Places, Server, Target};
use crate::system;

/// Runs `load` against two fresh nodes sharing `store_url` and `redis_url` (under a key
/// prefix of its own, removed afterwards): same node, across nodes, shared by both
/// nodes; the three reports.
pub(crate) async fn run(
    load: &Load,
    places: &Places,
    store_url: &str,
    redis_url: &str,
) -> Result<Vec<Report>, BenchError> {
    let prefix = format!("parlor-bench-{:016x}", rand::random::<u64>());
    let env = [
        ("PARLOR_STORE__URL", store_url),
        ("PARLOR_CLUSTER__REDIS_URL", redis_url),
        ("PARLOR_CLUSTER__KEY_PREFIX", prefix.as_str()),
    ];
    let nodes = [
        Server::start(Target::Parlor, places, false, false, &env)?,
        Server::start(Target::Parlor, places, false, false, &env)?,
    ];
    eprintln!(
        "parlor-bench: a fleet of two nodes (pids {} and {}) at {} and {}",
        nodes[0].pid, nodes[1].pid, nodes[0].url, nodes[1].url
    );
    let mut reports = Vec::new();
    for (name, placement) in [
        ("fleet, same node", Placement::OneNode),
        (
            "fleet, across nodes",
            Placement::Across(nodes[1].url.clone()),
        ),
        (
            "fleet, rooms on both nodes",
            Placement::Spread(nodes[1].url.clone()),
        ),
    ] {
        let load = Load {
            url: nodes[0].url.clone(),
            placement,
            ..load.clone()
        };
        let pids = [nodes[0].pid, nodes[1].pid];
        let measured = load::run(&load, &pids).await?;
        reports.push(Report::new(
            name.to_owned(),
            &load,
            false,
            &pids,
            &measured,
            system::load_average(),
        ));
    }
    // Stopping waits for each process to exit: off the async workers.
    let _ = tokio::task::spawn_blocking(move || nodes.map(Server::stop)).await;
    if let Err(error) = forget_keys(redis_url, &prefix) {
        eprintln!("parlor-bench: the fleet's keys under {prefix} were not removed: {error}");
    }
    Ok(reports)
}

/// Deletes every key under `prefix` in the Redis at `url`.
fn forget_keys(url: &str, prefix: &str) -> redis::RedisResult<()> {
    let mut redis = redis::Client::open(url)?.get_connection()?;
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}:*"))
        .query(&mut redis)?;
    if !keys.is_empty() {
        redis::cmd("DEL").arg(keys).exec(&mut redis)?;
    }
    Ok(())
}
