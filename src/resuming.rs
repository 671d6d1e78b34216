//! What a server does with the games nobody is playing: a single server resumes the
//! ones the last one left unfinished as it starts (a node of a fleet adopts them through
//! the same [`resume_games`], see `fleet::adoption`). Each becomes a live room, its `seq`
//! numbered above anything an earlier owner sent, or is marked interrupted when its
//! records cannot be replayed.

use tracing::{info, warn};

use crate::lobby::Lobby;
use crate::room::{self, ResumeError};
use crate::store::{Fence, Store, StoreError, StoredGame, UnfinishedGame};
use parlor_room::ratings::RatedKey;

/// How far apart the `seq` numbering of two servers' resumed rooms is: a room would
/// have to broadcast more states than this in one server's life to overlap the next.
const SEQ_PER_INCARNATION: u64 = 1 << 32;

/// Both seats' current ratings in `stored`'s game, as its room shows them (a bot's
/// none); none if they cannot be read (they are only shown).
async fn shown_ratings(store: &dyn Store, stored: &StoredGame) -> [Option<f64>; 2] {
    let keys: Vec<Option<RatedKey>> = stored
        .seats
        .iter()
        .map(|seat| RatedKey::of(seat.kind, seat.player_id.as_ref()))
        .collect();
    let [Some(first), Some(second)] = [keys.first(), keys.get(1)] else {
        return [None, None];
    };
    match store
        .ratings(stored.game, [first.as_ref(), second.as_ref()])
        .await
    {
        Ok(ratings) => ratings.map(|rating| rating.map(|r| r.rating)),
        Err(error) => {
            warn!(game_id = %stored.game_id, %error, "could not read the ratings of a resumed game; they are not shown");
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
    /// Games left for later: their records could not be read just now, or their room
    /// is still stopping here.
    pub(crate) left: Vec<UnfinishedGame>,
}

/// Resumes every unfinished game in `store` as a room of `lobby`: what a single server
/// does as it starts. A game that cannot be replayed is marked interrupted and logged;
/// only a store that cannot list the games (or take an incarnation) fails the start.
/// A game a fleet left behind (its token above 0) is taken over under a higher token.
pub(crate) async fn resume_unfinished(
    store: &dyn Store,
    lobby: &Lobby,
) -> Result<Resumed, StoreError> {
    let incarnation = store.next_incarnation().await?;
    let mut games = Vec::new();
    for mut game in store.unfinished_games().await? {
        if game.fence != Fence::SINGLE {
            let fence = Fence(game.fence.0.saturating_add(1));
            store.take_over(&game.game_id, fence).await?;
            game.fence = fence;
        }
        games.push(game);
    }
    let outcome = resume_games(store, lobby, games, incarnation).await?;
    for game in &outcome.left {
        warn!(
            game_id = %game.game_id,
            "an unfinished game could not be read; the next start resumes it"
        );
    }
    Ok(outcome)
}

/// Makes `games` (each with the token its room writes under) live rooms of `lobby`, their
/// `seq` numbered from `incarnation`. Every game is read first and then all are made
/// live at one instant, so that no clock runs while the others are still being read.
/// A game whose records do not replay is marked interrupted; one that cannot be read
/// just now is left (in the outcome) for later.
pub(crate) async fn resume_games(
    store: &dyn Store,
    lobby: &Lobby,
    games: Vec<UnfinishedGame>,
    incarnation: u64,
) -> Result<Resumed, StoreError> {
    let seq = incarnation.saturating_mul(SEQ_PER_INCARNATION);
    let mut outcome = Resumed::default();
    let mut unreadable = Vec::new();
    let mut readable = Vec::new();
    for game in games {
        match store.game(&game.game_id).await {
            Ok(Some(stored)) => {
                let ratings = shown_ratings(store, &stored).await;
                readable.push((stored, ratings, game));
            }
            Ok(None) => {}
            Err(error) if error.is_unreadable_record() => {
                unreadable.push((game, format!("its records cannot be read: {error}")));
            }
            Err(error) => {
                warn!(game_id = %game.game_id, %error, "could not read an unfinished game");
                outcome.left.push(game);
            }
        }
    }
    let live = room::now();
    for (stored, ratings, game) in readable {
        match lobby.resume(&stored, ratings, (seq, game.fence), live) {
            Ok(()) => outcome.resumed += 1,
            // The room is still here (stopping, in a fleet): taken up at a later round.
            Err(ResumeError::RoomTaken) => outcome.left.push(game),
            Err(error) => unreadable.push((game, error.to_string())),
        }
    }
    for (game, why) in unreadable {
        warn!(
            game_id = %game.game_id,
            why, "an unfinished game cannot be resumed; it is marked interrupted"
        );
        store.interrupt_game(&game.game_id, game.fence).await?;
        outcome.interrupted += 1;
    }
    if outcome.resumed + outcome.interrupted > 0 {
        info!(
            incarnation,
            resumed = outcome.resumed,
            interrupted = outcome.interrupted,
            "unfinished games resumed"
        );
    }
    Ok(outcome)
}
