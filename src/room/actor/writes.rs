//! The room's writes that need more than a move: a game's start (and the ratings it
//! shows, read as it is recorded), its ending, a change to the draw offer and a bot
//! standing in. Each is recorded in the store before the machine applies it; what a
//! failure leads to is the machine's to say.

use std::time::Instant;
use tracing::{debug, error};

use super::Room;
use crate::players::random_hex;
use crate::protocol::ClientError;
use crate::room::now;
use parlor_room::GameId;
use parlor_room::machine::{AfterStart, DrawChange, OnFailure, PendingEnding};
use parlor_room::records::RatingShift;
use parlor_rules::bots::BotLevel;
use parlor_rules::games::Seat;

impl Room {
    /// Records that a bot plays for an absent person, then has the machine seat it; if
    /// the store fails, the machine tries again later.
    pub(super) async fn stand_in(&mut self, seat: Seat, level: BotLevel) {
        if let Some((game_id, seat)) = self.state.stand_in_record(seat)
            && let Err(error) = self
                .context
                .store
                .record_stand_in(&game_id, seat, self.fence)
                .await
        {
            error!(room = %self.state.id(), %error, "could not record a bot standing in; will retry");
            self.note_refused(&error);
            self.state.retry_later(Instant::now());
            return;
        }
        let effects = self.state.stand_in_recorded(seat, level, Instant::now());
        self.perform(effects);
    }

    /// Records a change to the draw offer, then has the machine make it. If the store
    /// fails, a person's offer or refusal is refused; a bot's refusal stands anyway.
    pub(super) async fn change_draw_offer(
        &mut self,
        change: DrawChange,
    ) -> Result<(), ClientError> {
        if let Some((game_id, offer)) = self.state.draw_offer_record(change)
            && let Err(error) = self
                .context
                .store
                .record_draw_offer(&game_id, offer, self.fence)
                .await
        {
            error!(room = %self.state.id(), %error, "could not record a change to the draw offer");
            self.note_refused(&error);
            if change != (DrawChange::Declined { by_bot: true }) {
                return Err(ClientError::storage_unavailable());
            }
        }
        let step = self.state.draw_offer_recorded(change, now());
        Box::pin(self.follow(step)).await
    }

    /// Records an ending, then has the machine apply it.
    pub(super) async fn end(&mut self, ending: PendingEnding) -> Result<(), ClientError> {
        match self
            .context
            .store
            .finish_game(&ending.finish, self.fence)
            .await
        {
            Ok(ratings) => {
                let shifts = ratings.map(|changes| changes.map(RatingShift::from));
                let effects = self.state.conclude(ending, shifts, Instant::now());
                self.perform(effects);
                Ok(())
            }
            Err(error) => {
                error!(room = %self.state.id(), %error, "could not record the end of a game");
                self.note_refused(&error);
                match ending.on_failure {
                    OnFailure::Refuse => Err(ClientError::storage_unavailable()),
                    OnFailure::Retry => {
                        self.state.retry_later(Instant::now());
                        Ok(())
                    }
                    OnFailure::Shrug => Ok(()),
                }
            }
        }
    }

    /// Starts the game if the machine says it can, recording it first, then announces
    /// what the machine says follows.
    pub(super) async fn start(&mut self, after: AfterStart) {
        self.try_start().await;
        let effects = self.state.after_start(after, Instant::now());
        self.perform(effects);
    }

    /// Records the start of the game if both seats are filled; if the store is
    /// unavailable the room stays waiting and the machine tries again later (under the
    /// same game id when the failed write may have been stored).
    pub(super) async fn try_start(&mut self) {
        let now = now();
        let game_id = || fresh_game_id(now.unix_ms);
        let Some(record) = self.state.start_record(now, game_id) else {
            return;
        };
        let ratings = match self.context.store.create_game(&record, self.fence).await {
            Ok(ratings) => ratings.map(|rating| rating.map(|r| r.rating)),
            Err(error) => {
                error!(room = %self.state.id(), %error, "could not record the start of a game; will retry");
                self.note_refused(&error);
                let landed = error.may_have_landed();
                self.state
                    .start_failed(record.game_id, landed, Instant::now());
                return;
            }
        };
        debug!(room = %self.state.id(), game_id = %record.game_id, "game started");
        // The first mover's time starts now, not before the database work above.
        self.state.started(record.game_id, ratings, Instant::now());
    }
}

/// A new game's id: `g_`, then the second it starts in (8 hex digits) and 32 random bits
/// (8 hex digits). Games started close together get ids close together, so each batch of
/// the game log adds its rows to the indexes keyed by game id (games, seats, moves) in a
/// few pages at their end, where random ids put every row in a page of its own: a
/// batch's commit writes fewer pages. Two games started in the same second share an id
/// once in about four billion pairs; the second start's write is then refused alone, and
/// the room starts that game again under a new id.
fn fresh_game_id(unix_ms: i64) -> GameId {
    let second = u32::try_from(unix_ms.div_euclid(1000)).unwrap_or(u32::MAX);
    GameId::from(format!("g_{second:08x}{}", random_hex(4)))
}
