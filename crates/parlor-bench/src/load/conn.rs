//! One load connection whatever the server speaks: Parlor's protocol (and the baselines',
//! which speak the same) on one WebSocket for every room, or a Colyseus client, which
//! holds one WebSocket per room and finds rooms over HTTP. The players and spectators
//! speak to both through the same few requests and read the same JSON frames.

use futures_util::{SinkExt, StreamExt};
use serde::Serialize;
use tokio_tungstenite::tungstenite::Message;

use super::colyseus::ColyseusConn;
use super::wire::{self, Kind, RoomCreated, Updates, Ws};

/// Which protocol the server under load speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Wire {
    /// Parlor's protocol: Parlor and both baselines.
    #[default]
    Parlor,
    /// Colyseus's matchmaking and room protocol, carrying Parlor's frames as messages.
    Colyseus,
}

/// A connection of the load, before or after it entered a room.
pub(crate) enum Conn {
    /// Parlor's protocol on one WebSocket.
    Parlor(Box<Ws>),
    /// A Colyseus client.
    Colyseus(Box<ColyseusConn>),
}

impl Conn {
    /// A new client of the server at `url` named `name`, hearing of moves as `updates`
    /// says; with the id it plays under.
    pub(crate) async fn open(
        wire: Wire,
        url: &str,
        name: &str,
        updates: Updates,
    ) -> Result<(Conn, String), String> {
        match wire {
            Wire::Parlor => {
                let (ws, player_id) = wire::hello(url, name, updates).await?;
                Ok((Conn::Parlor(Box::new(ws)), player_id))
            }
            Wire::Colyseus => {
                let player_id = format!("p_{:016x}", rand::random::<u64>());
                let conn = ColyseusConn::new(
                    url,
                    player_id.clone(),
                    name.to_owned(),
                    updates == Updates::Moves,
                );
                Ok((Conn::Colyseus(Box::new(conn)), player_id))
            }
        }
    }

    /// Creates a room of `game` with this client in seat 0 and waits for its first
    /// `state`; returns the room's id.
    pub(crate) async fn create(&mut self, game: &str) -> Result<String, String> {
        let id = match self {
            Conn::Parlor(ws) => {
                let create = serde_json::json!({
                    "type": "create_room", "game": game, "seats": ["me", "open"],
                });
                wire::send(ws, create.to_string()).await?;
                let created = wire::until(ws, "room_created").await?;
                serde_json::from_str::<RoomCreated>(&created)
                    .map_err(|e| format!("room_created without a room: {e}"))?
                    .room
            }
            Conn::Colyseus(client) => client.create().await?,
        };
        self.until("state").await?;
        Ok(id)
    }

    /// Watches the room `room` and waits for its `state`.
    pub(crate) async fn watch(&mut self, room: &str) -> Result<(), String> {
        match self {
            Conn::Parlor(ws) => {
                wire::send(ws, format!(r#"{{"type":"watch","room":"{room}"}}"#)).await?;
            }
            Conn::Colyseus(client) => client.watch(room).await?,
        }
        self.until("state").await.map(drop)
    }

    /// Takes `seat` in the room `room` and waits until it is this client's; the room's
    /// `state` follows through [`Conn::next`].
    pub(crate) async fn join(&mut self, room: &str, seat: u8) -> Result<(), String> {
        match self {
            Conn::Parlor(ws) => {
                let join = format!(r#"{{"type":"join","room":"{room}","seat":{seat}}}"#);
                wire::send(ws, join).await?;
                wire::until(ws, "joined").await.map(drop)
            }
            Conn::Colyseus(client) => client.join(room, seat).await,
        }
    }

    /// Leaves the room `room` without waiting for the answer: what the room sends until
    /// it has read the request may still arrive.
    pub(crate) async fn leave(&mut self, room: &str) -> Result<(), String> {
        match self {
            Conn::Parlor(ws) => {
                let leave = format!(r#"{{"type":"leave","room":"{room}"}}"#);
                ws.send(Message::text(leave))
                    .await
                    .map_err(|e| format!("leaving a room: {e}"))
            }
            Conn::Colyseus(client) => {
                client.leave().await;
                Ok(())
            }
        }
    }

    /// Sends a client message of Parlor's protocol (a `move` or a `rematch`).
    pub(crate) async fn send(&mut self, text: String) -> Result<(), String> {
        match self {
            Conn::Parlor(ws) => ws
                .send(Message::text(text))
                .await
                .map_err(|e| e.to_string()),
            Conn::Colyseus(client) => client.send(text).await,
        }
    }

    /// The next frame's text; `None` when the connection has ended. Cancel-safe.
    pub(crate) async fn next(&mut self) -> Option<Result<String, String>> {
        match self {
            Conn::Parlor(ws) => loop {
                match ws.next().await? {
                    Ok(Message::Text(text)) => return Some(Ok(text.as_str().to_owned())),
                    Ok(Message::Close(why)) => {
                        return Some(Err(format!("the server closed the connection: {why:?}")));
                    }
                    Ok(_) => {}
                    Err(e) => return Some(Err(e.to_string())),
                }
            },
            Conn::Colyseus(client) => client.next().await,
        }
    }

    /// Reads until a frame of type `kind`; an `error` on the way fails.
    async fn until(&mut self, kind: &str) -> Result<String, String> {
        match self {
            Conn::Parlor(ws) => wire::until(ws, kind).await,
            Conn::Colyseus(_) => {
                let deadline = tokio::time::Instant::now() + wire::SETUP_PATIENCE;
                loop {
                    let text = tokio::time::timeout_at(deadline, self.next())
                        .await
                        .map_err(|_| format!("no {kind} within {:?}", wire::SETUP_PATIENCE))?
                        .ok_or_else(|| format!("closed waiting for {kind}"))??;
                    let seen = serde_json::from_str::<Kind<'_>>(&text)
                        .map_err(|e| format!("not a message ({e}): {text}"))?;
                    if seen.kind == kind {
                        return Ok(text);
                    }
                    if seen.kind == "error" {
                        return Err(format!("waiting for {kind}: {text}"));
                    }
                }
            }
        }
    }

    /// Closes politely, giving up after a second.
    pub(crate) async fn close(self) {
        match self {
            Conn::Parlor(ws) => wire::close(*ws).await,
            Conn::Colyseus(mut client) => client.leave().await,
        }
    }
}
