//! `/healthz` says whether the process lives (its rooms answer) and `/readyz` whether it
//! can serve new players, each naming the node: with PostgreSQL black-holed or reset
//! (through a fault proxy) and with the fleet's Redis killed, the node stays live and is
//! not ready, says which service failed, shows it in its metrics, and is ready again
//! once the service is back; a server shutting down is not ready at once.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use parlor_testkit::fault_proxy::FaultProxy;
use parlor_testkit::redis_server::RedisServer;
use serde_json::Value;
use serial_test::serial;

use crate::common::{TestServer, client_at, get_json_at, temp_dir, test_config};
use crate::conformance::check_http_answer;
use crate::fleet::TestFleet;
use crate::services::PostgresSchema;
use crate::shutdown_always_finishes::a_room_stuck_writing_a_move;
use crate::waiting::eventually;

/// How long a test waits for a service's failure or return to show before it fails.
const PATIENCE: Duration = Duration::from_secs(60);

/// The value of the sample whose line starts with `series` (name and labels) in the
/// metrics of the server at `address` (which asks for no token).
pub(crate) async fn metric(address: &str, series: &str) -> Option<f64> {
    let text = reqwest::get(format!("http://{address}/metrics"))
        .await
        .ok()?
        .text()
        .await
        .ok()?;
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|value| value.parse().ok())
}

/// Waits until `/readyz` at `address` answers `status`; returns its body.
async fn readiness_becomes(address: &str, status: u16) -> Value {
    let what = format!("/readyz answers {status}");
    eventually(&what, PATIENCE, async || {
        let (answered, body) = get_json_at(address, "/readyz").await;
        if answered == status {
            Ok(body)
        } else {
            Err(format!("{answered}: {body}"))
        }
    })
    .await
}

/// Asks `/healthz` at `address`: it must be 200, naming `node`.
async fn still_live(address: &str, node: &Value) {
    let (status, body) = get_json_at(address, "/healthz").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["rooms"], "ok", "{body}");
    assert_eq!(&body["node"], node, "{body}");
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_single_server_is_live_and_ready_and_names_no_node() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let address = server.addr.to_string();
    still_live(&address, &Value::Null).await;
    let (status, body) = get_json_at(&address, "/readyz").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "ready", "{body}");
    assert_eq!(body["node"], Value::Null, "{body}");
    let checks = &body["checks"];
    assert_eq!(checks["store"]["ok"], true, "{body}");
    assert_eq!(checks["redis"], Value::Null, "{body}");
    assert_eq!(checks["draining"], false, "{body}");
    assert_eq!(checks["fleet"], Value::Null, "{body}");
    assert_eq!(metric(&address, "parlor_ready").await, Some(1.0));
    assert_eq!(metric(&address, "parlor_store_up").await, Some(1.0));
    // A single server has no fleet to report on.
    assert_eq!(metric(&address, "parlor_redis_up").await, None);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_whose_postgres_stalls_or_resets_is_live_but_not_ready_until_it_is_back() {
    let test = "a_server_whose_postgres_stalls_or_resets_is_live_but_not_ready";
    let Some(schema) = PostgresSchema::new(test).await else {
        return;
    };
    let proxy = FaultProxy::start(&schema.server()).await.unwrap();
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.store.url = Some(schema.store_url_via(proxy.address()));
    let server = TestServer::start(config).await;
    let address = server.addr.to_string();
    readiness_becomes(&address, 200).await;

    // Black-holed, the database never answers: the check gives up on it at its bound.
    proxy.black_hole();
    let asked = Instant::now();
    let (status, body) = get_json_at(&address, "/readyz").await;
    eprintln!(
        "/readyz answered {status} in {:?} with PostgreSQL black-holed",
        asked.elapsed()
    );
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["status"], "not_ready", "{body}");
    let store = &body["checks"]["store"];
    assert_eq!(store["ok"], false, "{body}");
    assert!(
        store["error"]
            .as_str()
            .is_some_and(|error| error.contains("did not answer a trivial query within 1000 ms")),
        "{body}"
    );
    assert_eq!(body["checks"]["draining"], false, "{body}");
    still_live(&address, &Value::Null).await;
    assert_eq!(metric(&address, "parlor_store_up").await, Some(0.0));
    assert_eq!(metric(&address, "parlor_ready").await, Some(0.0));

    proxy.heal();
    readiness_becomes(&address, 200).await;
    assert_eq!(metric(&address, "parlor_store_up").await, Some(1.0));

    // Reset, every connection to it breaks and none can be made.
    proxy.reset();
    let body = readiness_becomes(&address, 503).await;
    assert_eq!(body["checks"]["store"]["ok"], false, "{body}");
    assert!(body["checks"]["store"]["error"].is_string(), "{body}");
    still_live(&address, &Value::Null).await;
    proxy.heal();
    readiness_becomes(&address, 200).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn a_fleet_node_whose_redis_dies_is_live_but_not_ready_until_redis_returns() {
    let test = "a_fleet_node_whose_redis_dies_is_live_but_not_ready_until_redis_returns";
    let Some(fleet) = TestFleet::new(test).await else {
        return;
    };
    let mut redis = RedisServer::start().expect("a Redis of the test's own");
    let dir = temp_dir();
    let url = redis.url();
    let node = fleet.start_node_with(dir.path(), &[("PARLOR_CLUSTER__REDIS_URL", url.as_str())]);
    let address = node.address.clone();

    let body = readiness_becomes(&address, 200).await;
    let id = body["node"].clone();
    assert!(id.as_str().is_some_and(|id| !id.is_empty()), "{body}");
    assert_eq!(body["checks"]["redis"]["ok"], true, "{body}");
    assert_eq!(body["checks"]["store"]["ok"], true, "{body}");
    assert_eq!(body["checks"]["fleet"], "member", "{body}");
    still_live(&address, &id).await;
    assert_eq!(metric(&address, "parlor_redis_up").await, Some(1.0));
    // The node holds a room, whose lease its renewals count.
    let (mut alice, _) = client_at(&address, "Alice", None).await;
    alice.create(["me", "open"]).await;
    eventually(
        "the node counts its lease",
        PATIENCE,
        async || match metric(&address, "parlor_fleet_leases_held").await {
            Some(held) if held >= 1.0 => Ok(()),
            other => Err(format!("{other:?}")),
        },
    )
    .await;

    redis.kill();
    let body = readiness_becomes(&address, 503).await;
    assert_eq!(body["node"], id, "{body}");
    assert_eq!(body["checks"]["redis"]["ok"], false, "{body}");
    assert!(body["checks"]["redis"]["error"].is_string(), "{body}");
    assert_eq!(body["checks"]["store"]["ok"], true, "{body}");
    still_live(&address, &id).await;
    assert_eq!(metric(&address, "parlor_redis_up").await, Some(0.0));
    assert_eq!(metric(&address, "parlor_ready").await, Some(0.0));

    redis.restart().expect("Redis starts again");
    let body = readiness_becomes(&address, 200).await;
    assert_eq!(body["checks"]["redis"]["ok"], true, "{body}");
    assert_eq!(metric(&address, "parlor_redis_up").await, Some(1.0));
    still_live(&address, &id).await;
    node.kill();
}

/// An HTTP/1.1 connection kept open across requests, as a load balancer's health
/// checker keeps one: a server stopping accepts no new connection, but answers on this.
struct KeptConnection {
    reader: BufReader<TcpStream>,
    address: String,
}

impl KeptConnection {
    fn open(address: &str) -> KeptConnection {
        let stream = TcpStream::connect(address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        KeptConnection {
            reader: BufReader::new(stream),
            address: address.to_owned(),
        }
    }

    /// `GET path` on this connection: the status and the JSON body; `None` once the
    /// server has closed the connection.
    fn get(&mut self, path: &str) -> Option<(u16, Value)> {
        let request = format!("GET {path} HTTP/1.1\r\nHost: {}\r\n\r\n", self.address);
        self.reader.get_mut().write_all(request.as_bytes()).ok()?;
        let mut status_line = String::new();
        if self.reader.read_line(&mut status_line).ok()? == 0 {
            return None;
        }
        let status = status_line.get(9..12)?.parse().ok()?;
        let mut length = 0;
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line).ok()?;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().ok()?;
            }
        }
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body).ok()?;
        Some((status, serde_json::from_slice(&body).ok()?))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn a_server_shutting_down_is_not_ready_at_once_and_still_live() {
    // A room waiting on the database holds the shutdown up (for up to its grace) until
    // the test lets the write through: the moment a balancer must stop sending players.
    let mut stuck = a_room_stuck_writing_a_move(120).await;
    let mut checker = KeptConnection::open(&stuck.parlor.address);
    let (status, body) = checker.get("/readyz").expect("an answer");
    check_http_answer("GET", "/readyz", status, &body);
    assert_eq!(status, 200, "{body}");

    stuck.parlor.signal(libc::SIGTERM);
    stuck.parlor.logged("shutting down", PATIENCE).await;
    // The server takes no new connection now, but answers on the checker's.
    let (status, body) = checker.get("/readyz").expect("an answer while draining");
    check_http_answer("GET", "/readyz", status, &body);
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["status"], "not_ready", "{body}");
    assert_eq!(body["checks"]["draining"], true, "{body}");
    // The database answers reads while the room's write waits for the lock.
    assert_eq!(body["checks"]["store"]["ok"], true, "{body}");
    let (status, health) = checker.get("/healthz").expect("an answer while draining");
    check_http_answer("GET", "/healthz", status, &health);
    assert_eq!(status, 200, "{health}");

    sqlx::query("ROLLBACK")
        .execute(&mut stuck.lock)
        .await
        .unwrap();
    let exited = stuck.parlor.exited_within(PATIENCE);
    assert!(exited.is_some_and(|status| status.success()), "{exited:?}");
}
