//! Rooms of two bots kept busy for the whole run, so their effect on the human rooms'
//! latency can be measured.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures_util::StreamExt;
use tokio_tungstenite::tungstenite::Message;

use super::Ctx;
use super::wire::{RoomCreated, Updates, close, hello, send};

/// Rooms in which two bots play each other, kept busy for the whole run: the load whose
/// effect on the human rooms' latency the issue asks about.
pub(super) struct BotRooms {
    pub(super) url: String,
    pub(super) name: String,
    pub(super) game: String,
    pub(super) level: String,
    pub(super) rooms: usize,
}

impl BotRooms {
    /// Creates the rooms from one connection, watches each, and replaces every room
    /// whose game ends with a new one, until the run ends.
    pub(super) async fn keep(self, ctx: Arc<Ctx>) {
        // Full states: what the bot rooms' figure has always counted.
        let mut ws = match hello(&self.url, &self.name, Updates::States).await {
            Ok((ws, _)) => ws,
            Err(why) => {
                ctx.failure(format!("the bot rooms' connection: {why}"));
                return;
            }
        };
        let bot = format!("bot:{}", self.level);
        let create = serde_json::json!({
            "type": "create_room", "game": self.game, "seats": [bot, bot],
        })
        .to_string();
        for _ in 0..self.rooms {
            if let Err(why) = send(&mut ws, create.clone()).await {
                ctx.failure(format!("creating a bot room: {why}"));
                return;
            }
        }
        loop {
            let frame = tokio::select! {
                () = ctx.cancel.cancelled() => break,
                frame = ws.next() => frame,
            };
            let text = match frame {
                Some(Ok(Message::Text(text))) => text,
                Some(Ok(Message::Close(_)) | Err(_)) | None => {
                    ctx.failure("the bot rooms' connection closed".to_owned());
                    break;
                }
                Some(Ok(_)) => continue,
            };
            let text = text.as_str();
            let reply = if text.starts_with(r#"{"type":"state""#) {
                ctx.counters.bot_states.fetch_add(1, Ordering::Relaxed);
                None
            } else if text.starts_with(r#"{"type":"room_created""#) {
                serde_json::from_str::<RoomCreated>(text)
                    .ok()
                    .map(|created| format!(r#"{{"type":"watch","room":"{}"}}"#, created.room))
            } else if text.starts_with(r#"{"type":"game_over""#) {
                ctx.counters.bot_games.fetch_add(1, Ordering::Relaxed);
                Some(create.clone())
            } else if text.starts_with(r#"{"type":"error""#) {
                ctx.error(format!("bot rooms: {text}"));
                None
            } else {
                None
            };
            if let Some(reply) = reply
                && let Err(why) = send(&mut ws, reply).await
            {
                ctx.failure(format!("the bot rooms' connection: {why}"));
                break;
            }
        }
        close(ws).await;
    }
}
