//! What a server does with the games nobody is playing: a single server resumes the
//! ones the last one left unfinished as it starts; a node of a fleet adopts, as it starts
//! and whenever a node dies, those whose room no node holds. Each becomes a live room,
//! its `seq` numbered above anything an earlier owner sent, or is marked interrupted
//! when its records cannot be replayed.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use parlor_room::RoomId;

use crate::cluster::{Cluster, ClusterError};
use crate::lobby::Lobby;
use crate::ratings::RatedKey;
use crate::room::{self, ResumeError};
use crate::store::{Fence, Store, StoreError, StoredGame, UnfinishedGame};

/// How far apart the `seq` numbering of two servers' resumed rooms is: a room would
/// have to broadcast more states than this in one server's life to overlap the next.
const SEQ_PER_INCARNATION: u64 = 1 << 32;

/// Both seats' current ratings in `stored`'s game, as its room shows them; none if
/// they cannot be read (they are only shown).
async fn shown_ratings(store: &dyn Store, stored: &StoredGame) -> [Option<f64>; 2] {
    let keys: Vec<RatedKey> = stored
        .seats
        .iter()
        .map(|seat| RatedKey::of(seat.kind, seat.player_id.as_ref()))
        .collect();
    let [Some(first), Some(second)] = [keys.first(), keys.get(1)] else {
        return [None, None];
    };
    match store.ratings(stored.game, [first, second]).await {
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

/// How many games a node of a fleet adopts at once: each group is live (and its leases
/// renewed) before the next is read, so a node taking over thousands of games never
/// lets the leases it has just taken run out.
const ADOPT_AT_ONCE: usize = 50;

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
async fn resume_games(
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

/// Takes every unfinished game whose room no node holds (its node died, or stopped and
/// handed it over) and makes it a live room of `lobby`, [`ADOPT_AT_ONCE`] at a time:
/// the room's lease first, then the game in the store under the lease's token (which
/// waits for the old owner's writes in flight), then the game as stored. A failure
/// with one game is logged and leaves it for a later round; the others go on. Stops
/// when `shutdown` is cancelled.
async fn adopt_unowned(
    cluster: &Cluster,
    store: &dyn Store,
    lobby: &Lobby,
    adopting: &Adopting,
    shutdown: &CancellationToken,
) -> Result<usize, StoreError> {
    let games: Vec<UnfinishedGame> = store
        .unfinished_games()
        .await?
        .into_iter()
        .filter(|game| !lobby.has(&game.room_id))
        .collect();
    let mut adopted = 0;
    for group in games.chunks(ADOPT_AT_ONCE) {
        if shutdown.is_cancelled() {
            break;
        }
        let _forgotten_when_done = adopting.until_done(group);
        let taken = take_group(cluster, store, adopting, group).await;
        if taken.is_empty() {
            continue;
        }
        let incarnation = store.next_incarnation().await?;
        let outcome = resume_games(store, lobby, taken, incarnation).await?;
        adopted += outcome.resumed;
        for game in outcome.left {
            adopting.forget(std::slice::from_ref(&game.room_id));
            let _ = cluster.release(&game.room_id).await;
        }
    }
    Ok(adopted)
}

/// Claims the rooms of `games` that no node holds and takes their games over in the
/// store; the games taken, each with its new token.
async fn take_group(
    cluster: &Cluster,
    store: &dyn Store,
    adopting: &Adopting,
    games: &[UnfinishedGame],
) -> Vec<UnfinishedGame> {
    let rooms: Vec<RoomId> = games.iter().map(|game| game.room_id.clone()).collect();
    let owners = match cluster.owners(&rooms).await {
        Ok(owners) => owners,
        Err(error) => {
            warn!(%error, "could not ask who holds the unfinished games' rooms");
            return Vec::new();
        }
    };
    let mut taken = Vec::new();
    for (game, owner) in games.iter().zip(owners) {
        if owner.is_some() {
            continue;
        }
        match take(cluster, store, adopting, game).await {
            Ok(Some(fence)) => taken.push(UnfinishedGame {
                fence,
                ..game.clone()
            }),
            Ok(None) => adopting.forget(std::slice::from_ref(&game.room_id)),
            Err(error) => {
                warn!(game_id = %game.game_id, %error, "could not take an unfinished game over; trying again shortly");
                adopting.forget(std::slice::from_ref(&game.room_id));
                let _ = cluster.release(&game.room_id).await;
            }
        }
    }
    taken
}

/// Claims `game`'s room and takes the game over under the claim's token: the token, or
/// `None` if another node holds the room, the game is over, or the token was not above
/// the game's (Redis lost its counters: they are raised for the next round).
async fn take(
    cluster: &Cluster,
    store: &dyn Store,
    adopting: &Adopting,
    game: &UnfinishedGame,
) -> Result<Option<Fence>, AdoptError> {
    let Some(fence) = cluster.claim(&game.room_id).await? else {
        return Ok(None);
    };
    adopting.add(&game.room_id);
    if fence <= game.fence {
        cluster.raise_fence(&game.room_id, game.fence).await?;
        cluster.release(&game.room_id).await?;
        return Ok(None);
    }
    match store.take_over(&game.game_id, fence).await {
        Ok(()) => Ok(Some(fence)),
        Err(StoreError::Fenced { .. }) => {
            cluster.release(&game.room_id).await?;
            Ok(None)
        }
        Err(error) => Err(error.into()),
    }
}

/// Why one game could not be taken over (it is tried again at a later round).
#[derive(Debug, thiserror::Error)]
pub(crate) enum AdoptError {
    /// The store could not be read or written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Redis could not be asked.
    #[error(transparent)]
    Cluster(#[from] ClusterError),
}

/// What a node of a fleet does while it runs, until the server's shutdown: every third
/// of a lease, renews its leases on the rooms that hold one (stopping any room it no
/// longer holds), in a task of its own so that no adoption delays it; and adopts the
/// games nobody holds.
pub(crate) async fn keep_rooms(
    cluster: Cluster,
    store: Arc<dyn Store>,
    lobby: Lobby,
    shutdown: CancellationToken,
) {
    let every = cluster.lease() / 3;
    let adopting = Adopting::default();
    tokio::spawn(renew_leases(
        cluster.clone(),
        lobby.clone(),
        adopting.clone(),
        every,
        shutdown.clone(),
    ));
    loop {
        let adopted = adopt_unowned(&cluster, store.as_ref(), &lobby, &adopting, &shutdown);
        if let Err(error) = adopted.await {
            warn!(%error, "could not adopt the games nobody holds; trying again shortly");
        }
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            () = shutdown.cancelled() => return,
        }
    }
}

/// Every `every`, renews this node's leases on its rooms that hold one and on those it
/// is adopting, and stops any room it no longer holds.
async fn renew_leases(
    cluster: Cluster,
    lobby: Lobby,
    adopting: Adopting,
    every: std::time::Duration,
    shutdown: CancellationToken,
) {
    loop {
        match renew_once(&cluster, lobby.held_ids(), &adopting).await {
            Ok(lost) => {
                for room in lost {
                    warn!(%room, "this node no longer holds a room; it stops here");
                    lobby.relinquish(&room);
                }
            }
            Err(error) => warn!(%error, "could not renew this node's leases"),
        }
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            () = shutdown.cancelled() => return,
        }
    }
}

/// Renews this node's leases on its `live` rooms and on the rooms it is adopting;
/// returns the rooms it no longer holds (no longer counted as being adopted either).
async fn renew_once(
    cluster: &Cluster,
    live: Vec<RoomId>,
    adopting: &Adopting,
) -> Result<Vec<RoomId>, ClusterError> {
    let mut rooms = live;
    for room in adopting.ids() {
        if !rooms.contains(&room) {
            rooms.push(room);
        }
    }
    let lost = cluster.renew(&rooms).await?;
    adopting.forget(&lost);
    Ok(lost)
}

/// The rooms whose leases this node has taken to adopt their games and that are not
/// live rooms yet. Their leases are renewed with the live rooms': adopting many games
/// from a busy database can outlast a lease, and a lease that lapsed before its room
/// went live would let another node adopt the same game.
#[derive(Clone, Debug, Default)]
struct Adopting(Arc<Mutex<HashSet<RoomId>>>);

impl Adopting {
    /// Counts `room` as being adopted.
    fn add(&self, room: &RoomId) {
        if let Ok(mut rooms) = self.0.lock() {
            rooms.insert(room.clone());
        }
    }

    /// The rooms being adopted.
    fn ids(&self) -> Vec<RoomId> {
        self.0
            .lock()
            .map(|rooms| rooms.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// No longer counts `rooms` as being adopted.
    fn forget(&self, rooms: &[RoomId]) {
        if let Ok(mut adopting) = self.0.lock() {
            for room in rooms {
                adopting.remove(room);
            }
        }
    }

    /// A guard that, when dropped, no longer counts the rooms of `games` as being
    /// adopted, whichever way their adoption ended: live rooms by then renew as such.
    fn until_done<'a>(&'a self, games: &'a [UnfinishedGame]) -> AdoptionRound<'a> {
        AdoptionRound {
            adopting: self,
            games,
        }
    }
}

/// See [`Adopting::until_done`].
struct AdoptionRound<'a> {
    adopting: &'a Adopting,
    games: &'a [UnfinishedGame],
}

impl Drop for AdoptionRound<'_> {
    fn drop(&mut self) {
        if let Ok(mut adopting) = self.adopting.0.lock() {
            for game in self.games {
                adopting.remove(&game.room_id);
            }
        }
    }
}

/// Gives up this node's leases on `rooms` once its rooms have stopped (each room gives
/// its own up as it ends; this catches any left), so that other nodes adopt them at
/// once instead of when the leases run out.
pub(crate) async fn hand_over(cluster: &Cluster, rooms: &[RoomId]) {
    let mut handed = 0;
    for room in rooms {
        match cluster.release(room).await {
            Ok(()) => handed += 1,
            Err(error) => {
                warn!(%room, %error, "could not hand a room over; its lease runs out instead");
            }
        }
    }
    if handed > 0 {
        info!(rooms = handed, "rooms handed over to the fleet");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::tests::{SHORT_LEASE_MS, fleet, renew_until_lapsed};
    use parlor_room::GameId;

    #[tokio::test]
    async fn a_lease_taken_to_adopt_a_game_is_renewed_until_the_room_is_live() {
        let test = "a_lease_taken_to_adopt_a_game_is_renewed_until_the_room_is_live";
        let Some([a, b]) = fleet(test, SHORT_LEASE_MS).await else {
            return;
        };
        let adopting = Adopting::default();
        let rooms = [RoomId::from("slow"), RoomId::from("done")];
        for room in &rooms {
            a.claim(room).await.expect("claim").expect("free");
            adopting.add(room);
        }
        // "done" went live (or failed) at once; "slow" takes longer than a lease. a's
        // renewals keep the lease of the one it is still adopting, until the other's
        // lapses.
        adopting.forget(&rooms[1..]);
        renew_until_lapsed(
            async || {
                let lost = renew_once(&a, Vec::new(), &adopting).await.expect("renew");
                assert!(lost.is_empty(), "{lost:?}");
            },
            async || b.claim(&rooms[1]).await.expect("claim"),
        )
        .await;
        assert_eq!(b.claim(&rooms[0]).await.expect("claim"), None, "still a's");
        // What a renewal finds lost is no longer counted as being adopted.
        adopting.add(&rooms[1]);
        let lost = renew_once(&a, Vec::new(), &adopting).await.expect("renew");
        assert_eq!(lost, ["done"]);
        assert_eq!(adopting.ids(), ["slow"]);
    }

    #[test]
    fn a_round_of_adoptions_forgets_its_rooms_however_it_ends() {
        let adopting = Adopting::default();
        let game = |room: &str| UnfinishedGame {
            game_id: GameId::from(format!("g_{room}")),
            room_id: RoomId::from(room),
            fence: Fence(1),
        };
        let group = [game("r1"), game("r2")];
        adopting.add(&RoomId::from("elsewhere"));
        {
            let _round = adopting.until_done(&group);
            adopting.add(&RoomId::from("r1"));
            adopting.add(&RoomId::from("r2"));
            assert_eq!(adopting.ids().len(), 3);
        }
        assert_eq!(adopting.ids(), ["elsewhere"]);
    }
}
