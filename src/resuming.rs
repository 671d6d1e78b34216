//! What a server does with the games nobody is playing: a single server resumes the
//! ones the last one left unfinished as it starts; a node of a fleet adopts, as it starts
//! and whenever a node dies, those whose room no node holds. Each becomes a live room,
//! its `seq` numbered above anything an earlier owner sent, or is marked interrupted
//! when its records cannot be replayed.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use crate::cluster::{Cluster, ClusterError};
use crate::lobby::Lobby;
use crate::ratings::rated_key;
use crate::room::{self, ResumeError};
use crate::store::{Fence, Store, StoreError, StoredGame, UnfinishedGame};

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

/// Resumes every unfinished game in `store` as a room of `lobby`: what a single server
/// does as it starts. A game that cannot be read or replayed is marked interrupted and
/// logged; only a store that cannot list the games (or take an incarnation) fails the
/// start.
pub(crate) async fn resume_unfinished(
    store: &dyn Store,
    lobby: &Lobby,
) -> Result<Resumed, StoreError> {
    let incarnation = store.next_incarnation().await?;
    let games = store.unfinished_games().await?;
    let games = games
        .into_iter()
        .map(|game| (game.game_id, Fence::SINGLE))
        .collect();
    resume_games(store, lobby, games, incarnation).await
}

/// Makes `games` (each with the token its room writes under) live rooms of `lobby`, their
/// `seq` numbered from `incarnation`. Every game is read first and then all are made
/// live at one instant, so that no clock runs while the others are still being read.
async fn resume_games(
    store: &dyn Store,
    lobby: &Lobby,
    games: Vec<(String, Fence)>,
    incarnation: u64,
) -> Result<Resumed, StoreError> {
    let seq = incarnation.saturating_mul(SEQ_PER_INCARNATION);
    let mut outcome = Resumed::default();
    let mut unreadable = Vec::new();
    let mut readable = Vec::new();
    for (game_id, fence) in games {
        match store.game(&game_id).await {
            Ok(Some(stored)) => {
                let ratings = shown_ratings(store, &stored).await;
                readable.push((stored, ratings, fence));
            }
            Ok(None) => {}
            Err(error) => {
                unreadable.push((game_id, format!("its records cannot be read: {error}")))
            }
        }
    }
    let live = room::now();
    for (stored, ratings, fence) in readable {
        match lobby.resume(&stored, ratings, (seq, fence), live) {
            Ok(()) => outcome.resumed += 1,
            // The room is still here (stopping, in a fleet): taken up at a later round.
            Err(ResumeError::RoomTaken) => {}
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

/// Why a round of adoption stopped early (it is tried again at the next round).
#[derive(Debug, thiserror::Error)]
pub(crate) enum AdoptError {
    /// The store could not be read or written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Redis could not be asked.
    #[error(transparent)]
    Cluster(#[from] ClusterError),
}

/// Takes every unfinished game whose room no node holds (its node died, or stopped and
/// handed it over) and makes it a live room of `lobby`: the room's lease first, then the
/// game in the store under the lease's token (which waits for the old owner's writes in
/// flight), then the game as the store has it.
pub(crate) async fn adopt_unowned(
    cluster: &Cluster,
    store: &dyn Store,
    lobby: &Lobby,
) -> Result<Resumed, AdoptError> {
    let games: Vec<UnfinishedGame> = store
        .unfinished_games()
        .await?
        .into_iter()
        .filter(|game| !lobby.has(&game.room_id))
        .collect();
    if games.is_empty() {
        return Ok(Resumed::default());
    }
    let rooms: Vec<String> = games.iter().map(|game| game.room_id.clone()).collect();
    let owners = cluster.owners(&rooms).await?;
    let mut adopted = Vec::new();
    for (game, owner) in games.into_iter().zip(owners) {
        if owner.is_some() {
            continue;
        }
        let Some(fence) = cluster.claim(&game.room_id).await? else {
            continue;
        };
        match store.take_over(&game.game_id, fence).await {
            Ok(()) => adopted.push((game.game_id, fence)),
            Err(error) => {
                // Finished meanwhile, or already taken under a higher token.
                cluster.release(&game.room_id).await?;
                if !matches!(error, StoreError::Fenced { .. }) {
                    return Err(error.into());
                }
            }
        }
    }
    if adopted.is_empty() {
        return Ok(Resumed::default());
    }
    let incarnation = store.next_incarnation().await?;
    Ok(resume_games(store, lobby, adopted, incarnation).await?)
}

/// What a node of a fleet does while it runs: every third of a lease, renews its leases
/// on its rooms (stopping any room it no longer holds) and adopts the games nobody holds.
/// Ends with the server's shutdown.
pub(crate) async fn keep_rooms(
    cluster: Cluster,
    store: Arc<dyn Store>,
    lobby: Lobby,
    shutdown: CancellationToken,
) {
    let every = cluster.lease() / 3;
    loop {
        match cluster.renew(&lobby.live_ids()).await {
            Ok(lost) => {
                for room in lost {
                    warn!(room, "this node no longer holds a room; it stops here");
                    lobby.relinquish(&room).await;
                }
            }
            Err(error) => warn!(%error, "could not renew this node's leases"),
        }
        if let Err(error) = adopt_unowned(&cluster, store.as_ref(), &lobby).await {
            warn!(%error, "could not adopt the games nobody holds; trying again shortly");
        }
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            () = shutdown.cancelled() => return,
        }
    }
}

/// Gives up this node's leases on `rooms` (its rooms have stopped), so that other nodes
/// adopt them at once instead of when the leases run out.
pub(crate) async fn hand_over(cluster: &Cluster, rooms: &[String]) {
    let mut handed = 0;
    for room in rooms {
        match cluster.release(room).await {
            Ok(()) => handed += 1,
            Err(error) => {
                warn!(room, %error, "could not hand a room over; its lease runs out instead");
            }
        }
    }
    info!(rooms = handed, "rooms handed over to the fleet");
}
