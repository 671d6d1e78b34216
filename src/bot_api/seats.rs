//! The Bot API's players in their games: for each bot and game whose stream is open,
//! the connection that holds the bot's seat there (the stream's own), on which the
//! game's actions (a move, chat, resign, a draw) are asked, and how many moves the
//! stream has shown, which a move is sent with (`after`), so that a move that reaches
//! the room after the game moved on is refused rather than played there.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use dashmap::DashMap;

use crate::fleet::RoomLink;
use crate::room::Subscriber;
use parlor_room::{PlayerId, RoomId};

/// The seats the Bot API's streams hold. Cloning it is cheap and shares the table.
#[derive(Clone, Default)]
pub(crate) struct BotSeats {
    seats: Arc<DashMap<(PlayerId, RoomId), BotSeat>>,
}

/// A seat a bot's game stream holds.
#[derive(Clone)]
pub(crate) struct BotSeat {
    /// The stream's connection, which holds the seat.
    pub(crate) subscriber: Subscriber,
    /// The room.
    pub(crate) link: RoomLink,
    /// How many moves the stream has shown (`u32::MAX` before its first state).
    pub(crate) moves_shown: Arc<AtomicU32>,
}

impl BotSeat {
    /// How many moves the bot has been shown, once it has been shown the game.
    pub(crate) fn moves_shown(&self) -> Option<u32> {
        Some(self.moves_shown.load(Ordering::Acquire)).filter(|&moves| moves != u32::MAX)
    }
}

impl BotSeats {
    /// Notes that `player`'s stream of `room` holds `seat` (a newer stream replaces an
    /// older one, as the room does).
    pub(crate) fn hold(&self, player: PlayerId, room: RoomId, seat: BotSeat) {
        self.seats.insert((player, room), seat);
    }

    /// The seat `player`'s stream of `room` holds, if one is open.
    pub(crate) fn get(&self, player: &PlayerId, room: &RoomId) -> Option<BotSeat> {
        let key = (player.clone(), room.clone());
        self.seats.get(&key).map(|seat| seat.clone())
    }

    /// Forgets the seat of `player` in `room` if the stream of connection `conn` still
    /// holds it.
    pub(crate) fn release(&self, player: &PlayerId, room: &RoomId, conn: u64) {
        let key = (player.clone(), room.clone());
        self.seats
            .remove_if(&key, |_, seat| seat.subscriber.conn == conn);
    }
}
