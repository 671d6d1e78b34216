//! The generator's side of the protocol: connecting and saying hello (with how the
//! connection hears of moves), sending, and reading until a given message.

use std::borrow::Cow;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde::{Deserialize, Serialize};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async_with_config};

/// Each client's read buffer. tungstenite's default (128 KiB) would cost more per
/// connection than the servers do, making the generator the bottleneck.
pub(super) const READ_BUFFER_BYTES: usize = 4 * 1024;

/// How long one step of setting up a room (connect, hello, create, join, watch) may take.
pub(super) const SETUP_PATIENCE: Duration = Duration::from_secs(30);

pub(crate) type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// How a connection asks in `hello` to hear of moves (`hello.updates`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Updates {
    /// `"updates":"moves"`: a move that leaves the game on comes as a compact `moved`
    /// event, every other change as a full `state`.
    Moves,
    /// No `updates` in `hello` (the server's default): a full `state` after every change.
    States,
}

impl Updates {
    /// The mode's name, as on the command line and in `hello`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Updates::Moves => "moves",
            Updates::States => "states",
        }
    }
}

/// What `room_created` says.
#[derive(Deserialize)]
pub(crate) struct RoomCreated {
    /// The new room's id.
    pub(crate) room: String,
}

/// The parts of a message (most often a `state` or a `moved`) the generator's players
/// read; what is absent from a message is left at its default.
#[derive(Deserialize)]
pub(crate) struct Seen<'a> {
    /// The message's `type`.
    #[serde(rename = "type", borrow)]
    pub(crate) kind: Cow<'a, str>,
    /// The room it is about.
    #[serde(default, borrow)]
    pub(crate) room: Option<Cow<'a, str>>,
    /// The room's `seq`.
    #[serde(default)]
    pub(crate) seq: Option<u64>,
    /// Waiting, playing or finished.
    #[serde(default, borrow)]
    pub(crate) status: Option<Cow<'a, str>>,
    /// The current game's id.
    #[serde(default, borrow)]
    pub(crate) game_id: Option<Cow<'a, str>>,
    /// The seat to move.
    #[serde(default)]
    pub(crate) to_move: Option<u8>,
    /// The legal moves of the side to move.
    #[serde(default, borrow)]
    pub(crate) legal_moves: Vec<Cow<'a, str>>,
    /// Moves played.
    #[serde(default)]
    pub(crate) moves: u64,
    /// Both seats.
    #[serde(default, borrow)]
    pub(crate) seats: Vec<SeenSeat<'a>>,
    /// The last move.
    #[serde(default, borrow)]
    pub(crate) last_move: Option<SeenMove<'a>>,
    /// An error's code.
    #[serde(default, borrow)]
    pub(crate) code: Option<Cow<'a, str>>,
}

/// A seat as [`Seen`] reads it.
#[derive(Deserialize)]
pub(crate) struct SeenSeat<'a> {
    /// Its player, if a person holds it.
    #[serde(default, borrow)]
    pub(crate) player_id: Option<Cow<'a, str>>,
}

/// The last move as [`Seen`] reads it.
#[derive(Deserialize)]
pub(crate) struct SeenMove<'a> {
    /// Who played it.
    pub(crate) seat: u8,
    /// The move.
    #[serde(rename = "move", borrow)]
    pub(crate) text: Cow<'a, str>,
}

/// What `welcome` says that a client keeps.
#[derive(Deserialize)]
pub(crate) struct Welcome {
    /// The player's id.
    pub(crate) player_id: String,
    /// The token that speaks for the player from now on.
    pub(crate) token: String,
}

/// A message's `type`, all [`until`] reads of it.
#[derive(Deserialize)]
pub(super) struct Kind<'a> {
    /// The message's `type`.
    #[serde(rename = "type", borrow)]
    pub(super) kind: Cow<'a, str>,
}

/// A new connection that has said hello, asking to hear of moves as `updates` says;
/// returns it and the player's id.
pub(crate) async fn hello(url: &str, name: &str, updates: Updates) -> Result<(Ws, String), String> {
    let (ws, welcome) = hello_as(url, name, None, updates).await?;
    Ok((ws, welcome.player_id))
}

/// A new connection that has said hello as `name`, resuming the player `token` speaks
/// for if given and asking to hear of moves as `updates` says; returns it and the
/// `welcome`.
pub(crate) async fn hello_as(
    url: &str,
    name: &str,
    token: Option<&str>,
    updates: Updates,
) -> Result<(Ws, Welcome), String> {
    let config = WebSocketConfig::default().read_buffer_size(READ_BUFFER_BYTES);
    let connecting = connect_async_with_config(url, Some(config), true);
    let (mut ws, _) = tokio::time::timeout(SETUP_PATIENCE, connecting)
        .await
        .map_err(|_| format!("connecting to {url} took over {SETUP_PATIENCE:?}"))?
        .map_err(|e| format!("connecting to {url}: {e}"))?;
    let mut hello = serde_json::json!({"type": "hello", "name": name});
    if let Some(token) = token {
        hello["token"] = serde_json::json!(token);
    }
    // Full states are the default: a hello without `updates` asks for them as it always
    // did, so such a run sends what earlier runs sent.
    if updates == Updates::Moves {
        hello["updates"] = serde_json::json!(updates.name());
    }
    send(&mut ws, hello.to_string()).await?;
    let welcome = until(&mut ws, "welcome").await?;
    let welcome = serde_json::from_str::<Welcome>(&welcome)
        .map_err(|e| format!("welcome without a player_id or token: {e}"))?;
    Ok((ws, welcome))
}

/// Sends `text`, failing if that takes longer than setting up a room may.
pub(crate) async fn send(ws: &mut Ws, text: String) -> Result<(), String> {
    tokio::time::timeout(SETUP_PATIENCE, ws.send(Message::text(text)))
        .await
        .map_err(|_| "sending took too long".to_owned())?
        .map_err(|e| format!("sending: {e}"))
}

/// Reads until a message of type `kind`; an `error` on the way fails.
pub(crate) async fn until(ws: &mut Ws, kind: &str) -> Result<String, String> {
    let deadline = tokio::time::Instant::now() + SETUP_PATIENCE;
    loop {
        let frame = tokio::time::timeout_at(deadline, ws.next())
            .await
            .map_err(|_| format!("no {kind} within {SETUP_PATIENCE:?}"))?;
        let text = match frame {
            Some(Ok(Message::Text(text))) => text,
            Some(Ok(Message::Close(why))) => {
                return Err(format!("closed waiting for {kind}: {why:?}"));
            }
            Some(Ok(_)) => continue,
            Some(Err(e)) => return Err(format!("waiting for {kind}: {e}")),
            None => return Err(format!("closed waiting for {kind}")),
        };
        let seen = serde_json::from_str::<Kind<'_>>(&text)
            .map_err(|e| format!("not a message ({e}): {}", text.as_str()))?;
        if seen.kind == kind {
            return Ok(text.as_str().to_owned());
        }
        if seen.kind == "error" {
            return Err(format!("waiting for {kind}: {}", text.as_str()));
        }
    }
}

/// Closes politely, giving up after a second.
pub(super) async fn close(mut ws: Ws) {
    let _ = tokio::time::timeout(Duration::from_secs(1), ws.close(None)).await;
}
