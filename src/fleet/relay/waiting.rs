//! `quick_join` across a fleet: the rooms a player opened through `quick_join` wait in a
//! list in Redis per game and time control, and a player arriving at any node takes
//! the oldest. Taking one is atomic (one `LPOP`), so no two nodes seat two players in
//! the one waiting seat; the room itself refuses a seat already taken, so a stale entry
//! (a room that filled on its own node) is only skipped.

use tracing::warn;

use super::{Relay, RoomLink};
use crate::protocol::{ClientError, TimeControl};
use crate::room::Subscriber;
use parlor_room::RoomId;
use parlor_room::{Asked, PlayerInfo, RoomCommand};
use parlor_rules::GameKind;
use parlor_rules::games::Seat;
use serde_json::Value;
use std::time::Instant;

/// How many waiting rooms a `quick_join` tries before it opens its own.
const TRIES: usize = 8;

/// The list a room waits in: its game and its time control.
fn wanted(game: GameKind, time_control: TimeControl) -> String {
    let clock = serde_json::to_string(&time_control).unwrap_or_default();
    format!("{}:{clock}", game.as_str())
}

impl Relay {
    /// Seats `player` in the oldest room of another node waiting for a player of `game`
    /// under `time_control`, if there is one; the room it joined.
    pub(crate) async fn join_waiting(
        &self,
        (game, time_control): (GameKind, TimeControl),
        player: &PlayerInfo,
        sub: &Subscriber,
        reference: Option<Value>,
    ) -> Result<Option<(RoomId, RoomLink)>, ClientError> {
        let wanted = wanted(game, time_control);
        for _ in 0..TRIES {
            let room = match self.inner.cluster.take_waiting(&wanted).await {
                Ok(Some(room)) => room,
                Ok(None) => return Ok(None),
                Err(error) => {
                    warn!(%error, "could not look for rooms waiting on other nodes");
                    return Ok(None);
                }
            };
            let Ok(remote) = self.locate(&room).await else {
                continue;
            };
            let link = RoomLink::Remote(remote);
            let asked = Asked {
                player: player.clone(),
                command: RoomCommand::Join {
                    seat: Seat::Second,
                    since: None,
                },
                reference: reference.clone(),
            };
            match link.ask(asked, sub, Instant::now()).await {
                Ok(()) => return Ok(Some((room, link))),
                Err(error) if error.code.means_seat_gone() => {}
                Err(error) => return Err(error),
            }
        }
        Ok(None)
    }

    /// Lists `room` (opened by `quick_join`, its second seat open) for players of `game`
    /// under `time_control` arriving at any node.
    pub(crate) async fn offer_waiting(
        &self,
        (game, time_control): (GameKind, TimeControl),
        room: &RoomId,
    ) {
        let wanted = wanted(game, time_control);
        if let Err(error) = self.inner.cluster.offer_waiting(&wanted, room).await {
            warn!(%room, %error, "could not offer a waiting room to the other nodes");
        }
    }
}
