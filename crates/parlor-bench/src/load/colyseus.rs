//! The generator's client of the Colyseus peer (crates/parlor-bench/colyseus/server.mjs):
//! matchmaking over HTTP, one WebSocket per room, and Colyseus's framing of the Parlor
//! frames a room sends and takes.
//!
//! Colyseus 0.18's protocol, as its own packages write it (`@colyseus/core` 0.18.17,
//! `@colyseus/shared-types`, `@colyseus/ws-transport` 0.18.4, and the official client
//! `@colyseus/sdk` 0.18.4):
//!
//! - A seat is reserved by `POST /matchmake/create/ROOM_TYPE` or
//!   `POST /matchmake/joinById/ROOM_ID` with the join options as a JSON body; the answer
//!   is `{"name","sessionId","roomId","processId"[,"publicAddress"]}`, or an error status
//!   with `{"code","error"}` (core's router/default_routes.ts, MatchMaker.ts).
//! - The seat is taken by a WebSocket to `/PROCESS_ID/ROOM_ID?sessionId=SESSION_ID` on
//!   the same host, or on `publicAddress` when the reservation names one (sdk's
//!   Client.ts `buildEndpoint`, ws-transport's `onConnection`). Every frame is binary,
//!   its first byte a protocol code (shared-types' Protocol.ts; the top three bits are
//!   modifiers, none of which a message carries).
//! - The room runs `onJoin` and answers `JOIN_ROOM` (10) with the reconnection token and
//!   the serializer's id, or `ERROR` (11) with a code and a message when the join is
//!   refused. The client must acknowledge `JOIN_ROOM` with the single byte 10: until
//!   then the room holds back what it sends the client (core's Room.ts `_onMessage`,
//!   Transport.ts `enqueueClientRaw`; sdk's Room.ts acknowledges the same way).
//! - A message is `ROOM_DATA` (13), its type, then its payload in MessagePack (core's
//!   Protocol.ts `getMessageBytes.raw`, RoomMessages.ts `onData`). The type is written
//!   by `@colyseus/schema`'s `encode.string`: MessagePack's string header, except that
//!   its 16- and 32-bit lengths are little-endian. Both ways, the peer's types are short
//!   (one-byte header, standard MessagePack) and its payloads are one MessagePack string,
//!   Parlor's JSON text.
//! - `LEAVE_ROOM` (12) from the client asks to leave: the room runs `onLeave`, then
//!   closes the socket with code 4000 (Room.ts `#_forciblyCloseClient`).

use std::sync::OnceLock;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use tokio_tungstenite::connect_async_with_config;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use super::wire::{READ_BUFFER_BYTES, SETUP_PATIENCE, Ws};

/// How long leaving may take, as closing a connection of Parlor's protocol (wire.rs);
/// past that the connection is dropped, which the room takes as leaving too.
const LEAVE_PATIENCE: Duration = Duration::from_secs(1);

/// Colyseus's room type for tic-tac-toe, as server.mjs defines it.
const ROOM_TYPE: &str = "tictactoe";

/// The protocol code of a frame: its first byte without the modifier bits.
const PROTOCOL_CODE_MASK: u8 = 0x1f;
/// The room confirms a join (server to client), and the client acknowledges it.
const JOIN_ROOM: u8 = 10;
/// A refusal: a code and a message.
const ERROR: u8 = 11;
/// The client asks to leave the room.
const LEAVE_ROOM: u8 = 12;
/// A message: its type, then its MessagePack payload.
const ROOM_DATA: u8 = 13;
/// A message whose payload is raw bytes.
const ROOM_DATA_BYTES: u8 = 17;

/// A client of a Colyseus server, in at most one room at a time (a Colyseus client holds
/// one WebSocket per room).
pub(crate) struct ColyseusConn {
    /// The server's `host:port`.
    authority: String,
    /// The player the client speaks for.
    player_id: String,
    /// The player's name.
    name: String,
    /// Whether the client asks to hear of moves as `moved` events.
    moves: bool,
    /// The connection to the room the client is in.
    ws: Option<Ws>,
}

/// A seat reservation, as the matchmaker answers.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Reservation {
    /// The session the seat is reserved for.
    session_id: String,
    /// The room.
    room_id: String,
    /// The server process that hosts the room.
    process_id: String,
    /// Where to connect instead of the matchmaker's host, if the server says.
    #[serde(default)]
    public_address: Option<String>,
}

/// A Parlor client message's `type`.
#[derive(Deserialize)]
struct Kind<'a> {
    /// The type.
    #[serde(rename = "type", borrow)]
    kind: std::borrow::Cow<'a, str>,
}

/// One frame from a room, decoded.
enum Incoming {
    /// A message's payload: Parlor's JSON text.
    Data(String),
    /// A refusal, as text.
    Refused(String),
    /// A frame the client has no use for (Colyseus's own pings and the like).
    Other,
}

impl ColyseusConn {
    /// A client of the server at `ws_url` (`ws://127.0.0.1:PORT/ws` as the bench names
    /// servers; only its `host:port` counts), speaking for `player_id` named `name`;
    /// `moves` asks for `moved` events.
    pub(crate) fn new(ws_url: &str, player_id: String, name: String, moves: bool) -> ColyseusConn {
        let rest = ws_url.split_once("://").map_or(ws_url, |(_, rest)| rest);
        let authority = rest.split('/').next().unwrap_or(rest).to_owned();
        ColyseusConn {
            authority,
            player_id,
            name,
            moves,
            ws: None,
        }
    }

    /// Creates a tic-tac-toe room, seated in seat 0; returns its id. Frames the room
    /// sends arrive through [`ColyseusConn::next`].
    pub(crate) async fn create(&mut self) -> Result<String, String> {
        let options = self.options(serde_json::json!({"seat": 0}));
        let reservation = self
            .reserve(&format!("create/{ROOM_TYPE}"), options)
            .await?;
        let room = reservation.room_id.clone();
        self.take(reservation).await?;
        Ok(room)
    }

    /// Takes `seat` in the room `room`.
    pub(crate) async fn join(&mut self, room: &str, seat: u8) -> Result<(), String> {
        let options = self.options(serde_json::json!({"seat": seat}));
        self.join_by_id(room, options).await
    }

    /// Watches the room `room`.
    pub(crate) async fn watch(&mut self, room: &str) -> Result<(), String> {
        let options = self.options(serde_json::json!({"watch": true}));
        self.join_by_id(room, options).await
    }

    /// Leaves the room it is in (closes that room's connection politely); nothing when
    /// in none. Frames the room sent meanwhile are dropped.
    pub(crate) async fn leave(&mut self) {
        let Some(mut ws) = self.ws.take() else {
            return;
        };
        let polite = async {
            if ws.send(Message::binary(vec![LEAVE_ROOM])).await.is_ok() {
                // The room runs its onLeave, then closes the connection.
                while let Some(Ok(_)) = ws.next().await {}
            }
            let _ = ws.close(None).await;
        };
        let _ = tokio::time::timeout(LEAVE_PATIENCE, polite).await;
    }

    /// Sends a Parlor client message (JSON text whose `type` is e.g. "move" or
    /// "rematch") to the room.
    pub(crate) async fn send(&mut self, text: String) -> Result<(), String> {
        let ws = self
            .ws
            .as_mut()
            .ok_or_else(|| "sending: in no room".to_owned())?;
        let kind = serde_json::from_str::<Kind<'_>>(&text)
            .map_err(|e| format!("sending a message without a type ({e}): {text}"))?;
        let frame = room_data(&kind.kind, &text)?;
        tokio::time::timeout(SETUP_PATIENCE, ws.send(Message::binary(frame)))
            .await
            .map_err(|_| "sending took too long".to_owned())?
            .map_err(|e| format!("sending: {e}"))
    }

    /// The next frame the room sent, as Parlor's JSON text; `None` when the connection
    /// ended (or there is none). Cancel-safe: each await is a read of the WebSocket,
    /// which keeps a partly read frame itself, and nothing is held across it.
    pub(crate) async fn next(&mut self) -> Option<Result<String, String>> {
        let ws = self.ws.as_mut()?;
        loop {
            let bytes = match ws.next().await? {
                Ok(Message::Binary(bytes)) => bytes,
                Ok(Message::Close(_)) => return None,
                Ok(_) => continue,
                Err(e) => return Some(Err(format!("reading from the room: {e}"))),
            };
            match decode(&bytes) {
                Ok(Incoming::Data(text)) => return Some(Ok(text)),
                Ok(Incoming::Refused(why)) => return Some(Err(why)),
                Ok(Incoming::Other) => {}
                Err(e) => return Some(Err(e)),
            }
        }
    }

    /// The join options: the player, how it hears of moves, and `seat_or_watch`'s fields.
    fn options(&self, mut seat_or_watch: serde_json::Value) -> serde_json::Value {
        seat_or_watch["player_id"] = serde_json::json!(self.player_id);
        seat_or_watch["name"] = serde_json::json!(self.name);
        if self.moves {
            seat_or_watch["updates"] = serde_json::json!("moves");
        }
        seat_or_watch
    }

    /// Reserves a seat in the room `room` with `options`, then takes it.
    async fn join_by_id(&mut self, room: &str, options: serde_json::Value) -> Result<(), String> {
        if !is_id(room) {
            return Err(format!("{room:?} is not a Colyseus room id"));
        }
        let reservation = self.reserve(&format!("joinById/{room}"), options).await?;
        self.take(reservation).await
    }

    /// Asks the matchmaker (`POST /matchmake/{method}`) for a seat.
    async fn reserve(
        &self,
        method: &str,
        options: serde_json::Value,
    ) -> Result<Reservation, String> {
        let url = format!("http://{}/matchmake/{method}", self.authority);
        let asking = async {
            let response = http()?
                .post(&url)
                .json(&options)
                .send()
                .await
                .map_err(|e| format!("matchmaking at {url}: {e}"))?;
            let status = response.status();
            let body = response
                .text()
                .await
                .map_err(|e| format!("matchmaking at {url}: reading the answer: {e}"))?;
            if !status.is_success() {
                return Err(format!("matchmaking at {url}: {status}: {body}"));
            }
            serde_json::from_str::<Reservation>(&body)
                .map_err(|e| format!("matchmaking at {url}: not a seat reservation ({e}): {body}"))
        };
        tokio::time::timeout(SETUP_PATIENCE, asking)
            .await
            .map_err(|_| format!("matchmaking at {url} took over {SETUP_PATIENCE:?}"))?
    }

    /// Leaves the room it is in, if any, then connects to the reserved seat and does
    /// the join handshake.
    async fn take(&mut self, seat: Reservation) -> Result<(), String> {
        self.leave().await;
        if ![&seat.session_id, &seat.room_id, &seat.process_id]
            .into_iter()
            .all(|id| is_id(id))
        {
            return Err(format!(
                "a seat reservation with ids that are not Colyseus ids: {}, {}, {}",
                seat.session_id, seat.room_id, seat.process_id
            ));
        }
        let host = seat.public_address.as_deref().unwrap_or(&self.authority);
        let url = format!(
            "ws://{host}/{}/{}?sessionId={}",
            seat.process_id, seat.room_id, seat.session_id
        );
        let joining = async {
            let config = WebSocketConfig::default().read_buffer_size(READ_BUFFER_BYTES);
            let (mut ws, _) = connect_async_with_config(&url, Some(config), true)
                .await
                .map_err(|e| format!("connecting to {url}: {e}"))?;
            handshake(&mut ws).await?;
            Ok::<_, String>(ws)
        };
        let ws = tokio::time::timeout(SETUP_PATIENCE, joining)
            .await
            .map_err(|_| format!("joining at {url} took over {SETUP_PATIENCE:?}"))??;
        self.ws = Some(ws);
        Ok(())
    }
}

/// The matchmaking client every [`ColyseusConn`] shares, for its pool of connections.
fn http() -> Result<&'static reqwest::Client, String> {
    static CLIENT: OnceLock<Result<reqwest::Client, String>> = OnceLock::new();
    CLIENT
        .get_or_init(|| {
            reqwest::Client::builder()
                // The servers are on loopback.
                .no_proxy()
                // Below Node's keep-alive timeout (5 s), so that a pooled connection is
                // not reused just as the server closes it.
                .pool_idle_timeout(Duration::from_secs(2))
                .build()
                .map_err(|e| format!("the HTTP client: {e}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Waits for the room's `JOIN_ROOM` and acknowledges it; a refusal fails.
async fn handshake(ws: &mut Ws) -> Result<(), String> {
    loop {
        let bytes = match ws.next().await {
            Some(Ok(Message::Binary(bytes))) => bytes,
            Some(Ok(Message::Close(why))) => return Err(format!("closed while joining: {why:?}")),
            Some(Ok(_)) => continue,
            Some(Err(e)) => return Err(format!("joining: {e}")),
            None => return Err("closed while joining".to_owned()),
        };
        match bytes.first().map(|code| code & PROTOCOL_CODE_MASK) {
            Some(JOIN_ROOM) => {
                return ws
                    .send(Message::binary(vec![JOIN_ROOM]))
                    .await
                    .map_err(|e| format!("acknowledging the join: {e}"));
            }
            Some(ERROR) => return Err(format!("joining: {}", refusal(&bytes[1..])?)),
            _ => {}
        }
    }
}

/// Decodes one frame from a room.
fn decode(frame: &[u8]) -> Result<Incoming, String> {
    let Some((&first, rest)) = frame.split_first() else {
        return Ok(Incoming::Other);
    };
    match first & PROTOCOL_CODE_MASK {
        ROOM_DATA => {
            let (_kind, payload) = schema_str(rest)?;
            let (text, tail) = rmp::decode::read_str_from_slice(payload)
                .map_err(|e| format!("a message whose payload is not a string: {e}"))?;
            if !tail.is_empty() {
                return Err(format!(
                    "a message with {} bytes after its payload",
                    tail.len()
                ));
            }
            Ok(Incoming::Data(text.to_owned()))
        }
        ERROR => refusal(rest).map(Incoming::Refused),
        ROOM_DATA_BYTES => Err("a message of raw bytes, which the peer never sends".to_owned()),
        _ => Ok(Incoming::Other),
    }
}

/// An `ERROR` frame's code and message (after its protocol byte), as text.
fn refusal(bytes: &[u8]) -> Result<String, String> {
    let (code, rest) = schema_uint(bytes)?;
    let (message, _) = schema_str(rest)?;
    Ok(format!("{message} (Colyseus error {code})"))
}

/// A `ROOM_DATA` frame of type `kind` whose payload is the string `text`.
fn room_data(kind: &str, text: &str) -> Result<Vec<u8>, String> {
    // Up to 255 bytes, MessagePack's header (fixstr or str 8) is also Colyseus's; the
    // empty string is not taken for a type by the room.
    if kind.is_empty() || kind.len() > 255 {
        return Err(format!("a message type of {} bytes", kind.len()));
    }
    let mut frame = Vec::with_capacity(1 + 2 + kind.len() + 5 + text.len());
    frame.push(ROOM_DATA);
    rmp::encode::write_str(&mut frame, kind).map_err(|e| format!("encoding: {e}"))?;
    rmp::encode::write_str(&mut frame, text).map_err(|e| format!("encoding: {e}"))?;
    Ok(frame)
}

/// A string as `@colyseus/schema` writes it (`encode.string`), and what follows it.
fn schema_str(bytes: &[u8]) -> Result<(&str, &[u8]), String> {
    let (&prefix, rest) = bytes
        .split_first()
        .ok_or_else(|| "a frame cut short".to_owned())?;
    let (len, rest) = match prefix {
        0xa0..=0xbf => (usize::from(prefix & 0x1f), rest),
        0xd9 => le_uint(rest, 1)?,
        0xda => le_uint(rest, 2)?,
        0xdb => le_uint(rest, 4)?,
        _ => return Err(format!("not a string (0x{prefix:02x})")),
    };
    if rest.len() < len {
        return Err("a frame cut short".to_owned());
    }
    let (text, rest) = rest.split_at(len);
    let text = std::str::from_utf8(text).map_err(|e| format!("a string that is not UTF-8: {e}"))?;
    Ok((text, rest))
}

/// A non-negative integer as `@colyseus/schema` writes it (`encode.number`), and what
/// follows it.
fn schema_uint(bytes: &[u8]) -> Result<(usize, &[u8]), String> {
    let (&prefix, rest) = bytes
        .split_first()
        .ok_or_else(|| "a frame cut short".to_owned())?;
    match prefix {
        0x00..=0x7f => Ok((usize::from(prefix), rest)),
        0xcc => le_uint(rest, 1),
        0xcd => le_uint(rest, 2),
        0xce => le_uint(rest, 4),
        _ => Err(format!("not a non-negative integer (0x{prefix:02x})")),
    }
}

/// The little-endian unsigned integer of `width` bytes at the start of `bytes`, and what
/// follows it.
fn le_uint(bytes: &[u8], width: usize) -> Result<(usize, &[u8]), String> {
    if bytes.len() < width {
        return Err("a frame cut short".to_owned());
    }
    let (number, rest) = bytes.split_at(width);
    let value = number
        .iter()
        .rev()
        .fold(0usize, |value, &byte| (value << 8) | usize::from(byte));
    Ok((value, rest))
}

/// Whether `id` is a Colyseus id, as the WebSocket transport reads them from a path.
fn is_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}
