//! One player of the chaos run: plays its seat with a human's pace, asks for a rematch
//! after each game, and whenever its connection is lost reconnects to wherever the
//! server now is, says hello with its token and joins its seat again with `since`.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

use super::Ctx;
use crate::load::wire::{Seen, Updates, Ws, hello_as};

/// How long a player waits for any message before it counts the room as stuck.
const STUCK: Duration = Duration::from_secs(30);

/// A player: who it is and its seat in its room (which a rematch swaps).
pub(super) struct Player {
    pub(super) name: String,
    pub(super) token: String,
    pub(super) player_id: String,
    pub(super) room: String,
    pub(super) seat: u8,
    pub(super) seed: u64,
    /// Its room has ended: nothing more to play.
    pub(super) done: bool,
    /// The game it last saw in its room.
    pub(super) game_id: Option<String>,
}

/// A move sent and not yet seen played: its game, the number it will have, its text.
struct Pending {
    game_id: String,
    ply: u64,
    text: String,
}

impl Player {
    /// Plays until the run is over.
    pub(super) async fn play(mut self, ctx: Arc<Ctx>) {
        let mut rng = StdRng::seed_from_u64(self.seed);
        let mut address = ctx.address.clone();
        let mut last_seq: Option<u64> = None;
        let mut incarnation = 0;
        while !ctx.cancel.is_cancelled() && !self.done {
            let url = address.borrow_and_update().clone();
            // Full states: the player reads each one's status and seats.
            let Ok((mut ws, _)) =
                hello_as(&url, &self.name, Some(&self.token), Updates::States).await
            else {
                tokio::select! {
                    () = ctx.cancel.cancelled() => return,
                    _ = address.changed() => {}
                    () = tokio::time::sleep(Duration::from_millis(100)) => {}
                }
                continue;
            };
            let mut join = json!({"type": "join", "room": self.room, "seat": self.seat});
            if let Some(since) = last_seq {
                join["since"] = json!(since);
            }
            if ws.send(Message::text(join.to_string())).await.is_err() {
                continue;
            }
            let restarts = ctx.restarts.load(Ordering::Relaxed);
            let back_from_restart = (restarts > incarnation).then_some(restarts);
            incarnation = restarts;
            self.session(&mut ws, &ctx, &mut rng, &mut last_seq, back_from_restart)
                .await;
        }
    }

    /// One connection's life: until it closes, fails or the run ends.
    async fn session(
        &mut self,
        ws: &mut Ws,
        ctx: &Ctx,
        rng: &mut StdRng,
        last_seq: &mut Option<u64>,
        mut back_from_restart: Option<usize>,
    ) {
        let mut pending: Option<Pending> = None;
        let mut asked_rematch: Option<String> = None;
        loop {
            let frame = tokio::select! {
                () = ctx.cancel.cancelled() => return,
                frame = tokio::time::timeout(STUCK, ws.next()) => frame,
            };
            let text = match frame {
                Ok(Some(Ok(Message::Text(text)))) => text,
                Ok(Some(Ok(_))) => continue,
                Ok(Some(Err(_)) | None) => return,
                Err(_) => {
                    ctx.problem(format!("{} heard nothing for {STUCK:?}", self.name));
                    return;
                }
            };
            let Ok(seen) = serde_json::from_str::<Seen<'_>>(&text) else {
                ctx.problem(format!("{} could not read {}", self.name, text.as_str()));
                return;
            };
            match seen.kind.as_ref() {
                "joined" => {
                    if let Some(restart) = back_from_restart.take() {
                        ctx.rejoined(restart, Instant::now());
                    }
                }
                "state" => {
                    *last_seq = seen.seq.or(*last_seq);
                    if let Some(seat) = seen
                        .seats
                        .iter()
                        .position(|seat| seat.player_id.as_deref() == Some(&self.player_id))
                    {
                        self.seat = seat as u8;
                    }
                    let game_id = seen.game_id.as_deref().unwrap_or_default();
                    if let (Some(sent), Some(last)) = (&pending, &seen.last_move)
                        && sent.game_id == game_id
                        && sent.ply == seen.moves
                        && last.seat == self.seat
                        && last.text == sent.text
                    {
                        ctx.acknowledged(&sent.game_id, sent.ply, &sent.text);
                        pending = None;
                    }
                    let status = seen.status.as_deref().unwrap_or_default();
                    if !game_id.is_empty() {
                        self.game_id = Some(game_id.to_owned());
                    }
                    if status == "finished" && asked_rematch.as_deref() != Some(game_id) {
                        asked_rematch = Some(game_id.to_owned());
                        ctx.games_finished.fetch_add(1, Ordering::Relaxed);
                        let rematch = json!({"type": "rematch", "room": self.room});
                        if ws.send(Message::text(rematch.to_string())).await.is_err() {
                            return;
                        }
                    }
                    let my_turn = status == "playing" && seen.to_move == Some(self.seat);
                    let waiting = pending
                        .as_ref()
                        .is_some_and(|sent| sent.game_id == game_id && sent.ply == seen.moves + 1);
                    if my_turn && !waiting && !seen.legal_moves.is_empty() {
                        let choice = seen.legal_moves[rng.random_range(0..seen.legal_moves.len())]
                            .to_string();
                        let pause = rng.random_range(0..=2 * ctx.think_ms);
                        tokio::time::sleep(Duration::from_millis(pause)).await;
                        let play = json!({"type": "move", "room": self.room, "move": choice});
                        if ws.send(Message::text(play.to_string())).await.is_err() {
                            return;
                        }
                        pending = Some(Pending {
                            game_id: game_id.to_owned(),
                            ply: seen.moves + 1,
                            text: choice,
                        });
                    }
                }
                "error" => {
                    let code = seen.code.as_deref().unwrap_or_default();
                    // A move sent into a position that changed meanwhile (the server
                    // restarted after storing it, a rematch began) is refused harmlessly.
                    if matches!(
                        code,
                        "not_your_turn" | "illegal_move" | "game_finished" | "game_not_finished"
                    ) {
                        pending = None;
                    } else if code == "already_seated" {
                        // A rematch swapped the seats and the server died before this
                        // player saw it: its seat is the other one.
                        self.seat = 1 - self.seat.min(1);
                        let join = json!({"type": "join", "room": self.room, "seat": self.seat, "since": *last_seq});
                        if ws.send(Message::text(join.to_string())).await.is_err() {
                            return;
                        }
                    } else if code == "unknown_room"
                        && let Some(game_id) = &self.game_id
                    {
                        // The game ended, and its room with the server, before a rematch
                        // began (perhaps before this player saw the end): only games in
                        // progress are resumed. The check reads it back as finished.
                        ctx.room_ended(game_id);
                        self.done = true;
                        return;
                    } else {
                        ctx.problem(format!("{} was refused: {}", self.name, text.as_str()));
                    }
                }
                _ => {}
            }
        }
    }
}
