//! `parlor-baseline-actix`: the least a tic-tac-toe room server can do on actix-web and
//! actix-ws (Parlor's own stack) while sending the same frames as Parlor.
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

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use actix_ws::AggregatedMessage;
use bytestring::ByteString;
use clap::Parser;
use conn::Conn;
use rooms::{Hub, MAX_FRAME_BYTES, OUTBOX_FRAMES};
use tokio::sync::mpsc;

#[tokio::main]
async fn main() -> ExitCode {
    let args = args::Args::parse();
    let (listener, _) = match args.listen("parlor-baseline-actix") {
        Ok(bound) => bound,
        Err(error) => {
            eprintln!("parlor-baseline-actix: {error}");
            return ExitCode::FAILURE;
        }
    };
    let hub = web::Data::new(Hub::<ByteString>::new());
    let server = HttpServer::new(move || {
        App::new()
            .app_data(hub.clone())
            .route("/ws", web::get().to(upgrade))
    })
    // actix-web leaves Nagle's algorithm on; small frames would then wait for ACKs.
    .on_connect(|conn, _| {
        if let Some(tcp) = conn.downcast_ref::<actix_web::rt::net::TcpStream>() {
            let _ = tcp.set_nodelay(true);
        }
    })
    .disable_signals()
    .listen(listener);
    let result = match server {
        Ok(server) => server.run().await,
        Err(error) => Err(error),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("parlor-baseline-actix: the HTTP server failed: {error}");
            ExitCode::FAILURE
        }
    }
}

/// `GET /ws`: upgrades and starts the connection's loop on this worker.
async fn upgrade(
    req: HttpRequest,
    body: web::Payload,
    hub: web::Data<Hub<ByteString>>,
) -> actix_web::Result<HttpResponse> {
    let (response, session, stream) = actix_ws::handle(&req, body)?;
    let stream = stream
        .max_frame_size(MAX_FRAME_BYTES)
        .aggregate_continuations()
        .max_continuation_size(MAX_FRAME_BYTES);
    actix_web::rt::spawn(serve(hub.into_inner(), session, stream));
    Ok(response)
}

/// One connection: frames in, direct replies and queued room frames out.
async fn serve(
    hub: Arc<Hub<ByteString>>,
    mut session: actix_ws::Session,
    mut stream: actix_ws::AggregatedMessageStream,
) {
    let (outbox, mut queued) = mpsc::channel::<ByteString>(OUTBOX_FRAMES);
    let mut conn = Conn::new(hub, outbox);
    loop {
        tokio::select! {
            frame = stream.recv() => match frame {
                Some(Ok(AggregatedMessage::Text(text))) => {
                    if let Some(reply) = conn.on_text(&text)
                        && session.text(reply).await.is_err()
                    {
                        break;
                    }
                }
                Some(Ok(AggregatedMessage::Ping(bytes))) => {
                    if session.pong(&bytes).await.is_err() {
                        break;
                    }
                }
                Some(Ok(AggregatedMessage::Close(reason))) => {
                    let _ = session.clone().close(reason).await;
                    break;
                }
                Some(Err(_)) | None => break,
                Some(Ok(_)) => {}
            },
            Some(frame) = queued.recv() => {
                if session.text(frame).await.is_err() {
                    break;
                }
            }
        }
    }
    conn.closed();
}
