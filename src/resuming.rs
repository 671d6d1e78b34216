//! What a starting server does with the games the last one left unfinished: resumes
//! each as a live room, its `seq` numbered above anything an earlier server sent, or
//! marks it interrupted when its records cannot be replayed.

use tracing::{info, warn};

use crate::lobby::Lobby;
use crate::ratings::rated_key;
use crate::room;
use crate::store::{Store, StoreError, StoredGame};

/// How far apart the `seq` numbering of two servers' resumed rooms is: a room would
/// have to broadcast more states than this in one server's life to overlap the next.
const SEQ_PER_INCARNATION: u64 = 1 << 32;

/// Both seats' current ratings in `stored`'s game, as its room shows them; none if
/// they cannot be read (they are only shown).
async fn shown_ratings(store: &dyn Store, stored: &StoredGame) -> [Option<f64>; 2] {
    let keys: Vec<String> = stored
        .seats
        .iter()
        .map(|seat| rated_key(&seat.kind.to_string(), seat.player_id.as_deref()))
        .collect();
    let [Some(first), Some(second)] = [keys.first(), keys.get(1)] else {
        return [None, None];
    };
    match store.ratings(stored.game, [first, second]).await {
        Ok(ratings) => ratings.map(|rating| rating.map(|r| r.rating)),
        Err(error) => {
            warn!(game_id = stored.game_id, %error, "could not read the ratings of a resumed game; they are not shown");
            [None, None]
        }
    }
}

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
/// list the games (or take an incarnation) fails the start. Every game is read first
/// and then all are made live at one instant, so that no clock runs while the others
/// are still being read.
pub(crate) async fn resume_unfinished(
    store: &dyn Store,
    lobby: &Lobby,
) -> Result<Resumed, StoreError> {
    let incarnation = store.next_incarnation().await?;
    let seq = incarnation.saturating_mul(SEQ_PER_INCARNATION);
    let mut outcome = Resumed::default();
    let mut unreadable = Vec::new();
    let mut games = Vec::new();
    for game_id in store.unfinished_game_ids().await? {
        match store.game(&game_id).await {
            Ok(Some(stored)) => {
                let ratings = shown_ratings(store, &stored).await;
                games.push((stored, ratings));
            }
            Ok(None) => {}
            Err(error) => {
                unreadable.push((game_id, format!("its records cannot be read: {error}")))
            }
        }
    }
    let live = room::now();
    for (stored, ratings) in games {
        match lobby.resume(&stored, ratings, seq, live) {
            Ok(()) => outcome.resumed += 1,
            Err(error) => unreadable.push((stored.game_id, error.to_string())),
        }
    }
    for (game_id, why) in unreadable {
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
