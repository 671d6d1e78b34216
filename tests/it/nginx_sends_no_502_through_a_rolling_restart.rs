//! A rolling restart behind nginx answers no WebSocket upgrade with a 502: three real
//! nodes on the machine's PostgreSQL and Redis, a real nginx (Debian's) in front of them
//! configured with the block docs/OPERATIONS.md gives operators, and WebSocket-only
//! traffic through it (live games whose clients reconnect whenever their node goes, and
//! clients that keep opening new connections to say hello and watch a game) while each
//! node in turn is stopped with SIGTERM, started again on its port and waited for on
//! `/readyz`. Every upgrade's answer is counted; every game is played to its own end
//! with every move any client saw stored once.
//!
//! With `PARLOR_TEST_NGINX_SERVER_FLAGS` set (e.g. `max_fails=2 fail_timeout=5s`, the
//! guide's old flags) the upstream servers get those flags instead of the guide's, and
//! the test only prints its figures (run it with `--nocapture`): what the guide's
//! reasoning quotes.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::SinkExt;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;
use serial_test::serial;
use tokio::sync::watch;
use tokio_tungstenite::tungstenite::Message;

use crate::chaos_clients::{
    Answer, Part, Seen, Upgrade, all_started, all_under_way, chaos_seed, check_stored_game,
    finished_games, take_part, upgrade,
};
use crate::common::{Client, client_at, get_json_at, temp_dir};
use crate::conformance::check_sent;
use crate::fleet::TestFleet;
use crate::nginx::{Nginx, port_of};
use crate::process::ParlorProcess;
use crate::waiting::eventually;

/// Games in flight while the fleet restarts.
const GAMES: usize = 12;

/// The games, in turn, and how long a player thinks over a move (ms): long games, so
/// that every game is still on when the last node restarts.
const KINDS: &[(&str, (u64, u64))] = &[("checkers", (150, 400)), ("fox_geese", (150, 400))];

/// Clients that keep opening new connections through nginx.
const NEWCOMERS: usize = 4;

/// Upgrades answered while a node is down before it is started again: enough that
/// nginx has sent some of them to the node that is gone.
const WHILE_DOWN: usize = 30;

/// The variable that replaces the guide's upstream server flags, to measure others.
const SERVER_FLAGS: &str = "PARLOR_TEST_NGINX_SERVER_FLAGS";

/// How long the whole fleet may take to finish every game after the last restart.
const FINISH_WITHIN: Duration = Duration::from_secs(240);

/// How long a node may take to stop, to answer `/readyz` with 200, or to see enough
/// upgrades while down, before the test fails.
const PATIENCE: Duration = Duration::from_secs(120);

/// How each node is told that nginx, on this machine, is its proxy (as the guide says).
const TRUSTED: &[(&str, &str)] = &[("PARLOR_SERVER__TRUSTED_PROXIES", "[\"127.0.0.1\"]")];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn nginx_sends_no_502_through_a_rolling_restart() {
    let test = "nginx_sends_no_502_through_a_rolling_restart";
    let Some(binary) = Nginx::binary(test) else {
        return;
    };
    let Some(fleet) = TestFleet::new(test).await else {
        return;
    };
    let server_flags = std::env::var(SERVER_FLAGS).ok();
    let seed = chaos_seed();
    eprintln!("nginx rolling restart seed {seed} (PARLOR_TEST_CHAOS_SEED={seed} replays it)");
    let mut rng = StdRng::seed_from_u64(seed);
    let dirs = [temp_dir(), temp_dir(), temp_dir()];
    let mut nodes: Vec<ParlorProcess> = dirs
        .iter()
        .map(|dir| fleet.start_node_with(dir.path(), TRUSTED))
        .collect();
    for node in &nodes {
        ready(&node.address).await;
    }
    let upstreams: Vec<String> = nodes.iter().map(|node| node.address.clone()).collect();
    let nginx = Nginx::start(&binary, &upstreams, server_flags.as_deref()).await;
    let (_nginx_only, through_nginx) = watch::channel(vec![nginx.address.clone()]);
    let seen = Arc::new(Mutex::new(Seen::default()));

    // Every room is opened through nginx, and every client reaches it through nginx.
    let mut parts = Vec::new();
    let mut rooms = Vec::new();
    for n in 0..GAMES {
        let (kind, think_ms) = KINDS[n % KINDS.len()];
        let (mut organizer, _) = client_at(&nginx.address, &format!("O{n}"), None).await;
        let clock = json!({"kind": "fischer", "base_ms": 600_000, "increment_ms": 0});
        let (room, _) = organizer
            .create_game(kind, ["open", "open"], json!({"time_control": clock}))
            .await;
        rooms.push(room.clone());
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
            tokio::spawn(take_part(part, through_nginx.clone(), seen.clone(), seed))
        })
        .collect();
    all_started(&seen, clients, PATIENCE).await;
    all_under_way(&seen, GAMES, PATIENCE).await;

    let (stop, stopped) = watch::channel(false);
    let newcomers: Vec<_> = (0..NEWCOMERS)
        .map(|n| {
            let (address, rooms, seen) = (nginx.address.clone(), rooms.clone(), seen.clone());
            tokio::spawn(keep_coming(
                n,
                address,
                rooms,
                seen,
                stopped.clone(),
                rng.random(),
            ))
        })
        .collect();

    // Each node in turn: stopped gracefully, left down until nginx has had traffic to
    // send it, started again on its port and waited for until ready.
    let mut restarts = Vec::new();
    for index in 0..nodes.len() {
        let port = port_of(&nodes[index].address);
        let began = Instant::now();
        nodes[index].signal(libc::SIGTERM);
        let exited = tokio::task::block_in_place(|| nodes[index].exited_within(PATIENCE));
        assert!(exited.is_some_and(|status| status.success()), "{exited:?}");
        let down = Instant::now();
        eventually(
            &format!("{WHILE_DOWN} upgrades answered while node {index} is down"),
            PATIENCE,
            async || {
                let count = answered_since(&seen, down);
                (count >= WHILE_DOWN)
                    .then_some(())
                    .ok_or(format!("{count}"))
            },
        )
        .await;
        nodes[index] = tokio::task::block_in_place(|| {
            fleet.start_node_on_port(dirs[index].path(), port, TRUSTED)
        });
        ready(&nodes[index].address).await;
        eprintln!("nginx rolling restart: node {index} is back and ready");
        restarts.push((began, Instant::now()));
    }

    stop.send_replace(true);
    let mut sessions = 0;
    for newcomer in newcomers {
        sessions += newcomer.await.unwrap();
    }
    let game_ids = finished_games(players, FINISH_WITHIN, GAMES).await;
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    for game_id in &game_ids {
        let (_, game) = get_json_at(&nodes[0].address, &format!("/api/games/{game_id}")).await;
        let reason = game["reason"].as_str().unwrap_or("");
        assert!(
            !matches!(reason, "aborted" | "abandoned" | "interrupted"),
            "game {game_id} was ended by the restarts: {reason}"
        );
        let saw: BTreeMap<u64, String> = seen.moves.get(game_id).cloned().unwrap_or_default();
        check_stored_game(&game, &saw, &[]);
    }

    let figures = Figures::of(&seen.upgrades, &restarts);
    let away: Vec<String> = restarts
        .iter()
        .map(|(from, to)| format!("{} ms", (*to - *from).as_millis()))
        .collect();
    eprintln!(
        "nginx rolling restart, upstream flags {}: {figures}; {sessions} newcomers' \
         sessions; the nodes were away for {}; nginx logged {:#?}",
        server_flags.as_deref().unwrap_or("as the guide gives them"),
        away.join(", "),
        nginx.logged_kinds(),
    );
    let error_log = nginx.error_log();
    assert!(sessions > 0, "the newcomers watched no game");
    if server_flags.is_none() {
        assert_eq!(
            figures.switched,
            seen.upgrades.len(),
            "every upgrade through nginx was switched to a WebSocket: {figures}\n{error_log}"
        );
    }
}

/// Waits until `/readyz` at `address` answers 200.
async fn ready(address: &str) {
    eventually(&format!("{address} is ready"), PATIENCE, async || {
        let (status, body) = get_json_at(address, "/readyz").await;
        (status == 200).then_some(()).ok_or(body.to_string())
    })
    .await;
}

/// How many upgrades were answered after `since`.
fn answered_since(seen: &Mutex<Seen>, since: Instant) -> usize {
    let seen = seen.lock().unwrap();
    seen.upgrades.iter().filter(|up| up.at > since).count()
}

/// A client that, until `stop`, opens a new connection at `address` again and again:
/// says hello, watches one of `rooms` until it sees its state (or is told the room is
/// moving between nodes), and leaves. Returns how many states it saw.
async fn keep_coming(
    n: usize,
    address: String,
    rooms: Vec<String>,
    seen: Arc<Mutex<Seen>>,
    stop: watch::Receiver<bool>,
    seed: u64,
) -> usize {
    let mut rng = StdRng::seed_from_u64(seed);
    let url = format!("ws://{address}/ws");
    let mut states = 0;
    for round in 0.. {
        if *stop.borrow() {
            break;
        }
        // Not a wait for anything: a newcomer arrives a moment after the last one.
        tokio::time::sleep(Duration::from_millis(rng.random_range(20..80))).await;
        let Some(ws) = upgrade(&url, &seen).await else {
            continue;
        };
        let mut client = Client { ws };
        let room = &rooms[rng.random_range(0..rooms.len())];
        let hello = json!({"type": "hello", "name": format!("N{n}r{round}")});
        let watch = json!({"type": "watch", "room": room});
        check_sent(&hello);
        check_sent(&watch);
        let sent = async {
            client.ws.send(Message::text(hello.to_string())).await?;
            client.ws.send(Message::text(watch.to_string())).await
        };
        if sent.await.is_err() {
            continue;
        }
        while let Some(message) = client.next_json().await {
            match (message["type"].as_str(), message["code"].as_str()) {
                (Some("state"), _) => {
                    states += 1;
                    break;
                }
                // A room moving between nodes, or one whose game has just ended.
                (Some("error"), Some("unknown_room" | "room_unreachable")) => break,
                (Some("error"), _) => panic!("newcomer {n} was refused: {message}"),
                _ => {}
            }
        }
        let _ = client.ws.close(None).await;
    }
    states
}

/// The answers nginx gave, counted.
struct Figures {
    /// Upgrades switched to a WebSocket (101).
    switched: usize,
    /// Upgrades answered with another status, by status.
    statuses: BTreeMap<u16, usize>,
    /// Upgrades that got no HTTP answer.
    failed: usize,
    /// Of the answers other than 101, those that came while a node was away (from its
    /// SIGTERM until it was ready again).
    refused_in_restarts: usize,
    /// The longest time from an answer other than 101 to the next 101.
    longest_refusal: Duration,
    /// The time from the first answer other than 101 to the last.
    refusals_spread: Duration,
}

impl Figures {
    /// Counts `upgrades`, with `restarts` the times a node was away.
    fn of(upgrades: &[Upgrade], restarts: &[(Instant, Instant)]) -> Figures {
        let mut sorted: Vec<&Upgrade> = upgrades.iter().collect();
        sorted.sort_by_key(|up| up.at);
        let mut statuses: BTreeMap<u16, usize> = BTreeMap::new();
        let (mut switched, mut failed, mut refused_in_restarts) = (0, 0, 0);
        let mut longest_refusal = Duration::ZERO;
        let mut refused_since: Option<Instant> = None;
        let mut refused = sorted.iter().filter(|up| up.answer != Answer::Switched);
        let first = refused.next().map(|up| up.at);
        let refusals_spread = first.map_or(Duration::ZERO, |first| {
            refused
                .next_back()
                .map_or(Duration::ZERO, |last| last.at - first)
        });
        for up in &sorted {
            match &up.answer {
                Answer::Switched => {
                    switched += 1;
                    if let Some(since) = refused_since.take() {
                        longest_refusal = longest_refusal.max(up.at - since);
                    }
                    continue;
                }
                Answer::Status(status) => *statuses.entry(*status).or_default() += 1,
                Answer::Failed(_) => failed += 1,
            }
            refused_since.get_or_insert(up.at);
            if restarts
                .iter()
                .any(|(from, to)| (*from..=*to).contains(&up.at))
            {
                refused_in_restarts += 1;
            }
        }
        if let (Some(since), Some(last)) = (refused_since, sorted.last()) {
            longest_refusal = longest_refusal.max(last.at - since);
        }
        Figures {
            switched,
            statuses,
            failed,
            refused_in_restarts,
            longest_refusal,
            refusals_spread,
        }
    }
}

impl std::fmt::Display for Figures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let total = self.switched + self.failed + self.statuses.values().sum::<usize>();
        write!(f, "{total} upgrades: {} answered 101", self.switched)?;
        for (status, count) in &self.statuses {
            write!(f, ", {count} answered {status}")?;
        }
        write!(
            f,
            ", {} got no answer; {} refused while a node was away; longest time from a \
             refusal to the next 101: {} ms; from the first refusal to the last: {} ms",
            self.failed,
            self.refused_in_restarts,
            self.longest_refusal.as_millis(),
            self.refusals_spread.as_millis()
        )
    }
}
