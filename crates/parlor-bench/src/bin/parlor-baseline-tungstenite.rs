//! `parlor-baseline-tungstenite`: the least a tic-tac-toe room server can do on bare
//! tokio and tokio-tungstenite while sending the same frames as Parlor.
//!
//! It validates only turn and cell, stores nothing and runs one task per connection
//! (none per room). parlor-bench measures Parlor against it: see BENCHMARKS.md.

#[path = "baseline/args.rs"]
mod args;
#[path = "baseline/conn.rs"]
mod conn;
#[path = "baseline/rooms.rs"]
mod rooms;

use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use conn::Conn;
use futures_util::{SinkExt, StreamExt};
use rooms::{Hub, MAX_FRAME_BYTES, OUTBOX_FRAMES};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

/// Frames queued at once are written with one flush, up to this many.
const WRITE_BATCH: usize = 64;

#[tokio::main]
async fn main() -> ExitCode {
    let args = args::Args::parse();
    let (listener, _) = match args.listen("parlor-baseline-tungstenite") {
        Ok(bound) => bound,
        Err(error) => {
            eprintln!("parlor-baseline-tungstenite: {error}");
            return ExitCode::FAILURE;
        }
    };
    let listener = match listener
        .set_nonblocking(true)
        .and_then(|()| TcpListener::from_std(listener))
    {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("parlor-baseline-tungstenite: could not use the listener: {error}");
            return ExitCode::FAILURE;
        }
    };
    let hub = Arc::new(Hub::<Utf8Bytes>::new());
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                tokio::spawn(serve(stream, hub.clone()));
            }
            Err(error) => {
                // Out of file descriptors, typically: wait for some to close.
                eprintln!("parlor-baseline-tungstenite: accept failed: {error}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        }
    }
}

/// One connection: frames in, direct replies and queued room frames out.
async fn serve(stream: TcpStream, hub: Arc<Hub<Utf8Bytes>>) {
    let _ = stream.set_nodelay(true);
    let config = WebSocketConfig::default()
        .read_buffer_size(8 * 1024)
        .max_message_size(Some(MAX_FRAME_BYTES))
        .max_frame_size(Some(MAX_FRAME_BYTES));
    let Ok(mut ws) = tokio_tungstenite::accept_async_with_config(stream, Some(config)).await else {
        return;
    };
    let (outbox, mut queued) = mpsc::channel::<Utf8Bytes>(OUTBOX_FRAMES);
    let mut conn = Conn::new(hub, outbox);
    loop {
        tokio::select! {
            frame = ws.next() => match frame {
                Some(Ok(Message::Text(text))) => {
                    if let Some(reply) = conn.on_text(text.as_str())
                        && ws.send(Message::Text(reply)).await.is_err()
                    {
                        break;
                    }
                }
                Some(Ok(Message::Close(_)) | Err(_)) | None => break,
                Some(Ok(_)) => {}
            },
            Some(frame) = queued.recv() => {
                let mut written = ws.feed(Message::Text(frame)).await.is_ok();
                for _ in 1..WRITE_BATCH {
                    let Ok(frame) = queued.try_recv() else { break };
                    written = written && ws.feed(Message::Text(frame)).await.is_ok();
                }
                if !written || ws.flush().await.is_err() {
                    break;
                }
            }
        }
    }
    conn.closed();
}
