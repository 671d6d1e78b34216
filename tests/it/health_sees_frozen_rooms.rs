//! `/healthz` tells the truth about rooms: 200 while rooms are served, 503 naming the
//! problem while every worker thread of the rooms' runtime is held (as a search on a
//! room's task once held them), and 200 again once they are free.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Barrier, Mutex};
use std::time::Duration;

use crate::common::{TestServer, temp_dir};
use serde_json::Value;

/// `GET path` over a plain blocking socket, so it works while the test's runtime is
/// held: the status and the JSON body.
fn blocking_get(addr: SocketAddr, path: &str) -> (u16, Value) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response[9..12].parse().unwrap();
    let body = response.split("\r\n\r\n").nth(1).unwrap();
    (status, serde_json::from_str(body).unwrap())
}

// The rooms run on this test's runtime (two workers); the test body runs on the main
// thread, outside the workers, so it can hold both and still ask.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_fails_while_the_rooms_runtime_is_frozen() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let (status, body) = server.get_json("/healthz").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["rooms"], "ok", "{body}");

    // Hold both workers, as a long computation on a room's task would, until the test
    // has its answer.
    let both_held = Arc::new(Barrier::new(3));
    let (release, released) = std::sync::mpsc::channel::<()>();
    let released = Arc::new(Mutex::new(released));
    let holders: Vec<_> = (0..2)
        .map(|_| {
            let (both_held, released) = (both_held.clone(), released.clone());
            tokio::spawn(async move {
                both_held.wait();
                // Blocks the worker until the sender is dropped.
                let _ = released.lock().unwrap().recv();
            })
        })
        .collect();
    both_held.wait();
    let (status, body) = blocking_get(server.addr, "/healthz");
    drop(release);
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["rooms"], "stalled", "{body}");
    assert!(
        body["problem"]
            .as_str()
            .is_some_and(|p| p.contains("rooms")),
        "{body}"
    );

    for holder in holders {
        holder.await.unwrap();
    }
    let (status, body) = server.get_json("/healthz").await;
    assert_eq!(status, 200, "{body}");
    server.stop().await;
}
