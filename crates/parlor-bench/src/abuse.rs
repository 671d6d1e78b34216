//! A stranger's traffic alongside the load: clients that flood messages, create rooms
//! or offer a bot draws as fast as they are let, reconnecting whenever the server closes
//! them, so a run shows whether the server's limits keep them from costing the players.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde::Serialize;
use tokio::task::JoinSet;
use tokio_tungstenite::tungstenite::Message;
use tokio_util::sync::CancellationToken;

use crate::load::{Updates, hello, send};

/// How long an abuser waits before reconnecting after the server closed it.
const RECONNECT_PAUSE: Duration = Duration::from_millis(100);

/// How often an abuser sends a burst; its rate is spread over these ticks.
const TICK: Duration = Duration::from_millis(10);

/// What the abusing clients do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Abuse {
    /// Send cheap, refused messages (a move in a room that does not exist).
    Flood,
    /// Create listed rooms, each waiting for an opponent.
    Rooms,
    /// Sit opposite `bot:hard` at chess and offer a draw again and again.
    Draws,
}

/// The abusers' side of the story, whole run.
#[derive(Debug, Default)]
pub(crate) struct AbuseCounters {
    sent: AtomicU64,
    refused: AtomicU64,
    answered: AtomicU64,
    closed: AtomicU64,
}

/// What the abusers did and what the server made of it.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct AbuseFigures {
    /// What they did.
    pub(crate) kind: Abuse,
    /// How many clients did it.
    pub(crate) clients: usize,
    /// Messages per second each tried to send.
    pub(crate) rate_per_client: u32,
    /// Messages sent.
    pub(crate) sent: u64,
    /// Refused for a limit: `rate_limited`, `server_full` or `room_full`.
    pub(crate) refused: u64,
    /// Every other frame the server sent them (answers, states, other errors).
    pub(crate) answered: u64,
    /// Times the server closed an abuser's connection.
    pub(crate) closed: u64,
}

impl AbuseCounters {
    /// The figures so far.
    pub(crate) fn figures(
        &self,
        kind: Abuse,
        clients: usize,
        rate_per_client: u32,
    ) -> AbuseFigures {
        AbuseFigures {
            kind,
            clients,
            rate_per_client,
            sent: self.sent.load(Ordering::Relaxed),
            refused: self.refused.load(Ordering::Relaxed),
            answered: self.answered.load(Ordering::Relaxed),
            closed: self.closed.load(Ordering::Relaxed),
        }
    }
}

/// Starts `clients` abusers of `kind` on `tasks`, each trying `rate` messages a second
/// until `cancel`.
pub(crate) fn start(
    tasks: &mut JoinSet<()>,
    url: &str,
    kind: Abuse,
    clients: usize,
    rate: u32,
    counters: &Arc<AbuseCounters>,
    cancel: &CancellationToken,
) {
    for index in 0..clients {
        let abuser = Abuser {
            url: url.to_owned(),
            name: format!("abuser-{}-{index}", std::process::id()),
            kind,
            per_tick: (f64::from(rate) * TICK.as_secs_f64()).ceil().max(1.0) as usize,
            counters: counters.clone(),
            cancel: cancel.clone(),
        };
        tasks.spawn(abuser.run());
    }
}

/// One abusing client.
struct Abuser {
    url: String,
    name: String,
    kind: Abuse,
    per_tick: usize,
    counters: Arc<AbuseCounters>,
    cancel: CancellationToken,
}

impl Abuser {
    /// Connects, abuses until the server closes the connection, and does it again (as a
    /// new player each time: the bench's Parlor does not limit new players per address).
    async fn run(self) {
        let mut connection = 0u64;
        while !self.cancel.is_cancelled() {
            connection += 1;
            self.one_connection(&format!("{}-{connection}", self.name))
                .await;
            self.counters.closed.fetch_add(1, Ordering::Relaxed);
            tokio::select! {
                () = self.cancel.cancelled() => break,
                () = tokio::time::sleep(RECONNECT_PAUSE) => {}
            }
        }
    }

    async fn one_connection(&self, name: &str) {
        // A refused hello counts like a closed connection.
        let Ok((mut ws, _)) = hello(&self.url, name, Updates::States).await else {
            return;
        };
        let message = match self.kind {
            Abuse::Flood => r#"{"type":"move","room":"nowhere","text":"a1"}"#.to_owned(),
            Abuse::Rooms => {
                r#"{"type":"create_room","game":"tictactoe","seats":["me","open"]}"#.to_owned()
            }
            Abuse::Draws => match self.seat_opposite_a_bot(&mut ws).await {
                Some(room) => format!(r#"{{"type":"offer_draw","room":"{room}"}}"#),
                None => return,
            },
        };
        let (mut sink, mut stream) = ws.split();
        let mut tick = tokio::time::interval(TICK);
        loop {
            tokio::select! {
                () = self.cancel.cancelled() => break,
                _ = tick.tick() => {
                    for _ in 0..self.per_tick {
                        if sink.feed(Message::text(message.clone())).await.is_err() {
                            return;
                        }
                        self.counters.sent.fetch_add(1, Ordering::Relaxed);
                    }
                    if sink.flush().await.is_err() {
                        return;
                    }
                }
                frame = stream.next() => match frame {
                    Some(Ok(Message::Text(text))) => self.count_reply(&text),
                    Some(Ok(Message::Close(_)) | Err(_)) | None => return,
                    Some(Ok(_)) => {}
                },
            }
        }
        let _ = sink.close().await;
    }

    /// Creates a chess room opposite `bot:hard` and waits for the game to start.
    async fn seat_opposite_a_bot(&self, ws: &mut crate::load::Ws) -> Option<String> {
        let create = r#"{"type":"create_room","game":"chess","seats":["me","bot:hard"]}"#;
        send(ws, create.to_owned()).await.ok()?;
        let mut room = None;
        while let Some(Ok(frame)) = ws.next().await {
            let Message::Text(text) = frame else { continue };
            let value: serde_json::Value = serde_json::from_str(&text).ok()?;
            match value["type"].as_str() {
                Some("room_created") => room = value["room"].as_str().map(str::to_owned),
                Some("state") if value["status"] == "playing" => return room,
                Some("error") => return None,
                _ => {}
            }
        }
        None
    }

    fn count_reply(&self, text: &str) {
        let limited = text.starts_with(r#"{"type":"error""#)
            && ["rate_limited", "server_full", "room_full"]
                .iter()
                .any(|code| text.contains(&format!(r#""code":"{code}""#)));
        let counter = if limited {
            &self.counters.refused
        } else {
            &self.counters.answered
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }
}
