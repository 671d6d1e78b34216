//! Streams as Lichess sends them: one JSON value per line, each line its own chunk of a
//! chunked response (`lichess-bot` reads with urllib3, which yields a line only when its
//! chunk ends), a bare newline as a keep-alive at least every [`KEEP_ALIVE`] (its read
//! timeout is 15 s; Lichess sends one every 7 s), headers at once, and no compression
//! or proxy buffering.

use std::convert::Infallible;
use std::time::Duration;

use actix_web::HttpResponse;
use actix_web::http::header;
use actix_web::web::Bytes;
use futures_util::stream;
use tokio::sync::mpsc;

/// How long a stream stays silent at most: then it sends a bare newline.
pub(super) const KEEP_ALIVE: Duration = Duration::from_secs(6);

/// How many lines may wait for a slow reader before the stream's writer waits.
const LINES_QUEUED: usize = 64;

/// The writing end of a stream: lines go out in order, each as one chunk.
pub(super) struct Lines {
    sender: mpsc::Sender<Bytes>,
}

impl Lines {
    /// Sends `json` as a line; `false` once the client has gone.
    pub(super) async fn send(&self, json: &str) -> bool {
        let mut line = String::with_capacity(json.len() + 1);
        line.push_str(json);
        line.push('\n');
        self.sender.send(Bytes::from(line)).await.is_ok()
    }

    /// Sends the keep-alive, a bare newline; `false` once the client has gone.
    pub(super) async fn keep_alive(&self) -> bool {
        self.sender.send(Bytes::from_static(b"\n")).await.is_ok()
    }

    /// Waits until the client has gone (the response was dropped).
    pub(super) async fn gone(&self) {
        self.sender.closed().await;
    }
}

/// A streamed NDJSON response and the end its lines are written to.
pub(super) fn response() -> (HttpResponse, Lines) {
    let (sender, receiver) = mpsc::channel::<Bytes>(LINES_QUEUED);
    let body = stream::unfold(receiver, |mut receiver| async move {
        let line = receiver.recv().await?;
        Some((Ok::<_, Infallible>(line), receiver))
    });
    let response = HttpResponse::Ok()
        .content_type("application/x-ndjson")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(body);
    (response, Lines { sender })
}
