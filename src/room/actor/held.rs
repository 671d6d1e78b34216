//! A move whose write's outcome was lost (the database stopped answering after the
//! write was sent, so it may be stored): the room holds its game, refusing whatever
//! would change it, until the store has read whether the move is stored; then it plays
//! the move for everyone, or lets it go, and the game goes on from what is stored.

use std::time::{Duration, Instant};

use tracing::{debug, info};

use super::{Command, Room};
use crate::protocol::{ClientError, ErrorCode};
use crate::store::Settled;
use parlor_room::RoomCommand;
use parlor_room::machine::PendingMove;

/// How long the room waits before it asks the store again about a held move, while the
/// database cannot be reached.
const ASK_AGAIN: Duration = Duration::from_secs(1);

/// The answer to the move whose outcome was lost.
pub(super) fn outcome_unknown() -> ClientError {
    ClientError::new(
        ErrorCode::StorageUnavailable,
        "The server lost touch with its database while saving this move, so whether it was saved is not known yet. The game waits until it is: if the move was saved, everyone is shown it then; if not, play it again.",
    )
}

/// The answer to what would change a game that holds a move.
pub(super) fn holding() -> ClientError {
    ClientError::new(
        ErrorCode::StorageUnavailable,
        "The server is still finding out whether the last move of this game was saved; the game waits until it knows. Try again in a moment.",
    )
}

impl Room {
    /// Holds `pending`, whose write's outcome was lost, and asks the store in the
    /// background until it says whether the move is stored; the answer comes back to
    /// the room as [`Command::Settled`].
    pub(super) fn hold(&mut self, pending: PendingMove) {
        let record = pending.record.clone();
        self.held = Some(Box::new(pending));
        let store = self.context.store.clone();
        let room = self.myself.clone();
        let shutdown = self.context.shutdown.clone();
        let id = self.state.id().clone();
        // Not tracked with the room's background work: a shutdown must not wait for a
        // database that is gone. A room stopped meanwhile is resumed from what is stored.
        tokio::spawn(async move {
            let settled = loop {
                match store.settle_move(&record).await {
                    Ok(settled) => break settled,
                    Err(error) => {
                        debug!(room = %id, %error, "the held move's outcome cannot be read yet");
                    }
                }
                tokio::select! {
                    () = tokio::time::sleep(ASK_AGAIN) => {}
                    () = shutdown.cancelled() => return,
                }
            };
            if let Some(room) = room.upgrade() {
                let _ = room.send(Box::new(Command::Settled { settled })).await;
            }
        });
    }

    /// Refuses `command` while the room holds a move, if it would change the game (a
    /// move, a request, leaving a seat, the operator's close); joining, watching and
    /// chat go on.
    pub(super) fn check_not_held(&self, command: &RoomCommand) -> Result<(), ClientError> {
        let changes_the_game = matches!(
            command,
            RoomCommand::Move { .. }
                | RoomCommand::Request(_)
                | RoomCommand::Leave
                | RoomCommand::Close { .. }
        );
        if self.held.is_some() && changes_the_game {
            return Err(holding());
        }
        Ok(())
    }

    /// Whether the room holds a move (its timers wait meanwhile: no clock may run out,
    /// and no seat be given up, on a game whose last move is not known).
    pub(super) fn holds_a_move(&self) -> bool {
        self.held.is_some()
    }

    /// The store has said whether the held move is stored: plays it (announced to all,
    /// with the rating changes stored with it if it ended a rated game) or lets it go,
    /// giving the mover back the time the game was held.
    pub(super) fn settled(&mut self, settled: Settled) {
        let Some(pending) = self.held.take() else {
            return;
        };
        let room = self.state.id().clone();
        if let Settled::Stored(ratings) = settled {
            info!(%room, ply = pending.record.ply, "the held move was stored; it is played");
            let kind = self.state.game().kind();
            let effects = self.state.apply_move(*pending, ratings, Instant::now());
            self.perform(effects);
            self.context
                .metrics
                .moves_accepted
                .with_label_values(&[kind.as_str()])
                .inc();
        } else {
            info!(%room, ply = pending.record.ply, "the held move was not stored; the game goes on without it");
            let effects = self.state.held_move_dropped(&pending, Instant::now());
            self.perform(effects);
        }
    }
}
