//! Rebuilding a room from its stored records: the seats and moves the store keeps of a
//! game, replayed through the same checks and the same apply path a live move takes,
//! and its chat taken up where it stood.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{ChatLog, Now, RoomState, SeatPair};
use crate::records::{DrawOfferRecord, StoredChatLine, StoredMove, StoredSeat};
use crate::seats::SeatState;
use crate::{GameId, PlayerInfo, Refusal, RoomId, RoomOptions, RoomSettings, SeatKind, SeatSpec};
use parlor_rules::GameKind;
use parlor_rules::catalog::{self, GameSettings};
use parlor_rules::games::{PositionError, Seat};

/// Why stored records do not make a room.
#[derive(Debug, thiserror::Error)]
pub enum RebuildError {
    /// A game has exactly two seats.
    #[error("a game has two seats, not {0}")]
    Seats(usize),
    /// A human seat has no player.
    #[error("seat {} cannot be seated again: {why}", seat.index())]
    Seat {
        /// The seat.
        seat: Seat,
        /// What is wrong with it.
        why: String,
    },
    /// The game cannot start from its stored start position under its rules.
    #[error("its start position is refused: {0}")]
    Position(#[from] PositionError),
    /// The stored moves end the game, yet it was not recorded as finished.
    #[error("the stored moves end the game, but its ending was never recorded")]
    Over,
    /// A stored move is refused by the game as replayed.
    #[error("stored move {ply} ({notation}) cannot be replayed: {error}")]
    Move {
        /// Its number.
        ply: u32,
        /// Its notation.
        notation: String,
        /// Why it is refused.
        error: Refusal,
    },
}

/// The records of one game, as the store keeps them.
pub struct Records<'a> {
    /// The game's unique id.
    pub game_id: GameId,
    /// Which game it is.
    pub kind: GameKind,
    /// The rule settings it started under.
    pub rules: GameSettings,
    /// Both seats' ratings now, for showing.
    pub ratings: [Option<f64>; 2],
    /// When it started, Unix ms.
    pub started_at_ms: i64,
    /// Both seats, in seat order.
    pub seats: &'a [StoredSeat],
    /// Every move, in order, with the thinking times and clocks recorded with it.
    pub moves: &'a [StoredMove],
    /// The draw offer last recorded, if any.
    pub draw_offer: Option<DrawOfferRecord>,
    /// Every chat line stored with it, in order.
    pub chat: &'a [StoredChatLine],
}

impl Records<'_> {
    /// The seat whose recorded draw offer is still open: none once the other seat has
    /// moved after it.
    fn open_offer(&self) -> Option<Seat> {
        let offer = self.draw_offer?;
        let answered = self
            .moves
            .iter()
            .any(|stored| stored.ply > offer.ply && stored.seat != offer.seat);
        Some(offer.seat).filter(|_| !answered)
    }

    /// Both clocks as stored with the last move, if it has them.
    fn last_clocks(&self) -> Option<[u64; 2]> {
        let clocks = self.moves.last()?.clocks_ms?;
        Some(clocks.map(|ms| u64::try_from(ms).unwrap_or(0)))
    }
}

impl RoomState {
    /// The room `id` playing `records`' game under `options`, live again at `live`.
    /// Every stored move is checked and applied as a live one is (each received its
    /// recorded thinking time after its turn began); then the room stands as the records
    /// left it, with nothing charged for the time in between. The side to move's clock
    /// runs from `live` with the time stored after the last move, and every person is
    /// away from `live`, with the whole reconnect grace ahead. The store does not keep
    /// `seq`: the rebuilt room goes on from the given one.
    pub fn rebuild(
        id: RoomId,
        options: RoomOptions,
        settings: Arc<RoomSettings>,
        records: &Records<'_>,
        live: Now,
        seq: u64,
    ) -> Result<RoomState, RebuildError> {
        let [first, second] = records.seats else {
            return Err(RebuildError::Seats(records.seats.len()));
        };
        let seats = [
            seated(Seat::First, first, live.at)?,
            seated(Seat::Second, second, live.at)?,
        ];
        let game = catalog::new_game(records.kind, &records.rules, options.start.as_deref())?;
        let mut room = RoomState::new(id, game, [SeatSpec::Open; 2], options, settings, live);
        room.rules = records.rules.clone();
        room.seats = SeatPair::new(seats);
        room.stood_in = [first.stood_in, second.stood_in];
        room.nobody_back = room.seats.iter().any(|seat| seat.player_id().is_some());
        room.idle_since = None;
        room.started(records.game_id.clone(), records.ratings, live.at);
        for stored in records.moves {
            let refused = |error| RebuildError::Move {
                ply: stored.ply,
                notation: stored.notation.clone(),
                error,
            };
            let seat = Some(stored.seat)
                .filter(|seat| room.game.turn() == Some(*seat))
                .ok_or_else(|| refused(Refusal::NotYourTurn))?;
            let think = Duration::from_millis(u64::try_from(stored.think_ms).unwrap_or(0));
            let received = room.turn_began + think;
            let at = Now {
                at: received,
                unix_ms: stored.played_at_ms,
            };
            let pending = room
                .prepare_move(seat, &stored.notation, received, at)
                .map_err(refused)?;
            room.apply_move(pending, None, received);
        }
        if room.result.is_some() {
            return Err(RebuildError::Over);
        }
        room.turn_began = live.at;
        room.last_move_at = live.at;
        let next = room.game.turn();
        room.clock.resume(records.last_clocks(), next, live.at);
        let played_for =
            u64::try_from(live.unix_ms.saturating_sub(records.started_at_ms)).unwrap_or(0);
        if let Some(started) = &mut room.started {
            started.at = live
                .at
                .checked_sub(Duration::from_millis(played_for))
                .unwrap_or(live.at);
        }
        room.created_at_ms = records.started_at_ms;
        room.draw_offer = records.open_offer();
        room.chat = ChatLog::resumed(records.chat);
        room.resumed = true;
        room.seq = seq;
        Ok(room)
    }
}

/// A stored seat as the room holds it again: its person away until they come back.
fn seated(seat: Seat, stored: &StoredSeat, now: Instant) -> Result<SeatState, RebuildError> {
    let why = |why: String| RebuildError::Seat { seat, why };
    match stored.kind {
        SeatKind::Open => Ok(SeatState::Open),
        SeatKind::Bot(level) => Ok(SeatState::Bot(level)),
        SeatKind::Human => {
            let player_id = stored
                .player_id
                .clone()
                .ok_or_else(|| why("a human seat without a player".to_owned()))?;
            Ok(SeatState::Human {
                // A bot account is known as one again once its game stream returns.
                player: PlayerInfo {
                    player_id,
                    name: stored.name.clone(),
                    bot_account: false,
                },
                conn: None,
                away_since: Some(now),
            })
        }
    }
}
