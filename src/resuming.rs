//! What a starting server does with the games the last one left unfinished: resumes
//! each as a live room, its `seq` numbered above anything an earlier server sent, or
//! marks it interrupted when its records cannot be replayed.

use tracing::{info, warn};

use crate::lobby::Lobby;
use crate::store::{Store, StoreError};

/// How far apart the `seq` numbering of two servers' resumed rooms is: a room would
/// have to broadcast more states than this in one server's life to overlap the next.
const SEQ_PER_INCARNATION: u64 = 1 << 32;

/// What start-up did with the unfinished games.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Resumed {
    /// Games that are live rooms again.
    pub(crate) resumed: usize,
    /// Games that could not be resumed and were marked interrupted.
    pub(crate) interrupted: usize,
}

/// Resumes every unfinished game in `store` as a room of `lobby`. A game that cannot
/// be read or replayed is marked interrupted and logged; only a store that cannot
/// list the games (or take an incarnation) fails the start.
pub(crate) async fn resume_unfinished(
    store: &dyn Store,
    lobby: &Lobby,
) -> Result<Resumed, StoreError> {
    let incarnation = store.next_incarnation().await?;
    let seq = incarnation.saturating_mul(SEQ_PER_INCARNATION);
    let mut outcome = Resumed::default();
    for game_id in store.unfinished_game_ids().await? {
        let why = match store.game(&game_id).await {
            Ok(Some(stored)) => match lobby.resume(&stored, seq) {
                Ok(()) => {
                    outcome.resumed += 1;
                    continue;
                }
                Err(error) => error.to_string(),
            },
            Ok(None) => continue,
            Err(error) => format!("its records cannot be read: {error}"),
        };
        warn!(
            game_id,
            why, "an unfinished game cannot be resumed; it is marked interrupted"
        );
        store.interrupt_game(&game_id).await?;
        outcome.interrupted += 1;
    }
    info!(
        incarnation,
        resumed = outcome.resumed,
        interrupted = outcome.interrupted,
        "unfinished games resumed"
    );
    Ok(outcome)
}
