//! A node of a fleet keeping its rooms: every third of a lease it renews the leases of
//! its live rooms and of the rooms it is taking (stopping any room it lost, giving up
//! the lease of any room that has closed), and it adopts the games whose room no node
//! holds (lease, then `Store::take_over` under the new token, then the game as stored,
//! resumed as a single server resumes one). When it stops it hands every lease over.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use parlor_room::RoomId;

use super::cluster::{Cluster, ClusterError};
use crate::lobby::Lobby;
use crate::metrics::Metrics;
use crate::resuming::resume_games;
use crate::store::{Fence, Store, StoreError, UnfinishedGame};

/// How many games a node of a fleet adopts at once: each group is live (and its leases
/// renewed) before the next is read, so a node taking over thousands of games never
/// lets the leases it has just taken run out.
const ADOPT_AT_ONCE: usize = 50;

/// Takes every unfinished game whose room no node holds (its node died, or stopped and
/// handed it over) and makes it a live room of `lobby`, [`ADOPT_AT_ONCE`] at a time:
/// the room's lease first, then the game in the store under the lease's token (which
/// waits for the old owner's writes in flight), then the game as stored. A failure
/// with one game is logged and leaves it for a later round; the others go on. Stops
/// when `shutdown` is cancelled. Each game adopted counts in `metrics`.
async fn adopt_unowned(
    cluster: &Cluster,
    store: &dyn Store,
    lobby: &Lobby,
    taking: &Taking,
    metrics: &Metrics,
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
        let _forgotten_when_done = taking.until_done(group);
        let taken = take_group(cluster, store, taking, group).await;
        if taken.is_empty() {
            continue;
        }
        let incarnation = store.next_incarnation().await?;
        let outcome = resume_games(store, lobby, taken, incarnation).await?;
        adopted += outcome.resumed;
        metrics.fleet_adoptions.inc_by(outcome.resumed as u64);
        for game in outcome.left {
            taking.forget(std::slice::from_ref(&game.room_id));
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
    taking: &Taking,
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
        match take(cluster, store, taking, game).await {
            Ok(Some(fence)) => taken.push(UnfinishedGame {
                fence,
                ..game.clone()
            }),
            Ok(None) => taking.forget(std::slice::from_ref(&game.room_id)),
            Err(error) => {
                warn!(game_id = %game.game_id, %error, "could not take an unfinished game over; trying again shortly");
                taking.forget(std::slice::from_ref(&game.room_id));
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
    taking: &Taking,
    game: &UnfinishedGame,
) -> Result<Option<Fence>, AdoptError> {
    let Some(fence) = cluster.claim(&game.room_id).await? else {
        return Ok(None);
    };
    taking.add(&game.room_id);
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
/// of a lease, and at once when a room stopped because the store said another server
/// holds its game (`fenced_out`), renews its leases on the rooms that hold one (stopping
/// any room it no longer holds, giving up those of rooms that stopped), in a task of its
/// own so that no adoption delays it; and adopts the games nobody holds. Its leases and
/// adoptions count in `metrics`.
pub(super) async fn keep_rooms(
    cluster: Cluster,
    store: Arc<dyn Store>,
    lobby: Lobby,
    taking: Taking,
    fenced_out: Arc<Notify>,
    metrics: Arc<Metrics>,
    shutdown: CancellationToken,
) {
    let every = cluster.lease() / 3;
    let trouble = Trouble::default();
    tokio::spawn(renew_leases(
        (cluster.clone(), store.clone()),
        lobby.clone(),
        (taking.clone(), trouble.clone()),
        metrics.clone(),
        (every, fenced_out),
        shutdown.clone(),
    ));
    loop {
        // Right after Redis was out of reach, every lease may have lapsed, those of
        // nodes alive as well as of dead ones: the living take theirs back at their next
        // renewal, so nothing is adopted until a whole lease has passed without trouble.
        if !trouble.steady_for(cluster.lease()) {
            tokio::select! {
                () = tokio::time::sleep(every) => continue,
                () = shutdown.cancelled() => return,
            }
        }
        let adopted = adopt_unowned(
            &cluster,
            store.as_ref(),
            &lobby,
            &taking,
            &metrics,
            &shutdown,
        );
        if let Err(error) = adopted.await {
            warn!(%error, "could not adopt the games nobody holds; trying again shortly");
        }
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            () = shutdown.cancelled() => return,
        }
    }
}

/// Every `every` (and whenever `fenced_out` is woken), renews this node's leases on its
/// rooms that hold one and on those it is taking, stops any room it no longer holds,
/// gives up the leases of the rooms that have closed here, so that another node may take
/// their games at once, and keeps the fleet's id in Redis, noting in `trouble` when Redis
/// could not be reached. Once Redis has been out of reach for a whole lease, it asks the
/// store instead whether another node has taken any of its rooms' games over, and stops
/// those rooms. The leases held and lost count in `metrics`.
async fn renew_leases(
    (cluster, store): (Cluster, Arc<dyn Store>),
    lobby: Lobby,
    (taking, trouble): (Taking, Trouble),
    metrics: Arc<Metrics>,
    (every, fenced_out): (Duration, Arc<Notify>),
    shutdown: CancellationToken,
) {
    loop {
        match cluster.keep_fleet_id().await {
            Ok(()) => trouble.over(),
            Err(error) => {
                warn!(%error, "could not keep the fleet's id in Redis");
                trouble.note();
            }
        }
        if trouble.lasted(cluster.lease()) {
            stop_rooms_taken_over(store.as_ref(), &lobby).await;
        }
        // Read in this order: a room whose lease was taken before `held` was read is
        // still being taken when `taking` is read, or live by the time `live` is.
        let held = cluster.held();
        let taken: HashSet<RoomId> = taking.ids().into_iter().collect();
        let live = lobby.held_ids();
        match renew_once(&cluster, live.clone(), &taking).await {
            Ok(lost) => {
                metrics.fleet_leases_lost.inc_by(lost.len() as u64);
                for room in lost {
                    warn!(%room, "this node no longer holds a room; it stops here");
                    lobby.relinquish(&room);
                }
            }
            Err(error) => {
                warn!(%error, "could not renew this node's leases");
                trouble.note();
            }
        }
        let live: HashSet<RoomId> = live.into_iter().collect();
        let closed = held
            .into_iter()
            .filter(|room| !live.contains(room) && !taken.contains(room));
        for room in closed {
            if let Err(error) = cluster.release(&room).await {
                warn!(%room, %error, "could not give up a closed room's lease; it runs out instead");
            }
        }
        metrics.fleet_leases_held.set(cluster.held().len() as i64);
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            () = fenced_out.notified() => {}
            () = shutdown.cancelled() => return,
        }
    }
}

/// Renews this node's leases on its `live` rooms and on the rooms it is taking;
/// returns the rooms it no longer holds (no longer counted as being adopted either).
async fn renew_once(
    cluster: &Cluster,
    live: Vec<RoomId>,
    taking: &Taking,
) -> Result<Vec<RoomId>, ClusterError> {
    let mut rooms = live;
    let live: HashSet<&RoomId> = rooms.iter().collect();
    let taken: Vec<RoomId> = taking
        .ids()
        .into_iter()
        .filter(|room| !live.contains(room))
        .collect();
    rooms.extend(taken);
    let lost = cluster.renew(&rooms).await?;
    taking.forget(&lost);
    Ok(lost)
}

/// Stops this node's rooms whose games the store says another node has taken over (under
/// a higher token than the room's): while this node cannot reach Redis, that is how it
/// learns that the fleet has given its rooms to others.
async fn stop_rooms_taken_over(store: &dyn Store, lobby: &Lobby) {
    let stored = match store.unfinished_games().await {
        Ok(games) => games,
        Err(error) => {
            warn!(%error, "could not ask the store which of this node's games are still its own");
            return;
        }
    };
    let fences: std::collections::HashMap<RoomId, Fence> = stored
        .into_iter()
        .map(|game| (game.room_id, game.fence))
        .collect();
    for (room, fence) in lobby.held() {
        if fences.get(&room).is_some_and(|stored| *stored > fence) {
            warn!(%room, "another node took this room's game over while Redis was out of reach; it stops here");
            lobby.relinquish(&room);
        }
    }
}

/// When this node could not reach Redis: the first and the last time of the trouble
/// going on, and the last time of any. Cloning it is cheap and shares it.
#[derive(Clone, Debug, Default)]
struct Trouble(Arc<Mutex<TroubleTimes>>);

#[derive(Debug, Default)]
struct TroubleTimes {
    /// When the trouble going on began; `None` while Redis answers.
    since: Option<Instant>,
    /// When Redis last could not be reached, if ever.
    last: Option<Instant>,
}

impl Trouble {
    /// Notes that Redis could not be reached just now.
    fn note(&self) {
        if let Ok(mut times) = self.0.lock() {
            let now = Instant::now();
            times.since.get_or_insert(now);
            times.last = Some(now);
        }
    }

    /// Notes that Redis answered just now.
    fn over(&self) {
        if let Ok(mut times) = self.0.lock() {
            times.since = None;
        }
    }

    /// Whether the trouble going on has lasted at least `span`.
    fn lasted(&self, span: Duration) -> bool {
        self.0
            .lock()
            .map(|times| times.since.is_some_and(|since| since.elapsed() >= span))
            .unwrap_or(false)
    }

    /// Whether Redis has been reached without trouble for at least `span`.
    fn steady_for(&self, span: Duration) -> bool {
        self.0
            .lock()
            .map(|times| times.last.is_none_or(|at| at.elapsed() >= span))
            .unwrap_or(true)
    }
}

/// The rooms whose leases this node has taken (to adopt their games, or to open them)
/// and that are not live rooms yet. Their leases are renewed with the live rooms':
/// adopting many games from a busy database can outlast a lease, and a lease that
/// lapsed before its room went live would let another node adopt the same game.
/// Cloning it is cheap and shares the set.
#[derive(Clone, Debug, Default)]
pub(super) struct Taking(Arc<Mutex<HashSet<RoomId>>>);

impl Taking {
    /// Counts `room` as being taken.
    pub(super) fn add(&self, room: &RoomId) {
        if let Ok(mut rooms) = self.0.lock() {
            rooms.insert(room.clone());
        }
    }

    /// Counts `room` as being taken until the guard returned is dropped.
    pub(super) fn hold<'a>(&'a self, room: &'a RoomId) -> Holding<'a> {
        self.add(room);
        Holding { taking: self, room }
    }

    /// The rooms being taken.
    fn ids(&self) -> Vec<RoomId> {
        self.0
            .lock()
            .map(|rooms| rooms.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// No longer counts `rooms` as being taken.
    pub(super) fn forget(&self, rooms: &[RoomId]) {
        if let Ok(mut taking) = self.0.lock() {
            for room in rooms {
                taking.remove(room);
            }
        }
    }

    /// A guard that, when dropped, no longer counts the rooms of `games` as being
    /// adopted, whichever way their adoption ended: live rooms by then renew as such.
    fn until_done<'a>(&'a self, games: &'a [UnfinishedGame]) -> AdoptionRound<'a> {
        AdoptionRound {
            taking: self,
            games,
        }
    }
}

/// See [`Taking::hold`].
pub(super) struct Holding<'a> {
    taking: &'a Taking,
    room: &'a RoomId,
}

impl Drop for Holding<'_> {
    fn drop(&mut self) {
        self.taking.forget(std::slice::from_ref(self.room));
    }
}

/// See [`Taking::until_done`].
struct AdoptionRound<'a> {
    taking: &'a Taking,
    games: &'a [UnfinishedGame],
}

impl Drop for AdoptionRound<'_> {
    fn drop(&mut self) {
        if let Ok(mut taking) = self.taking.0.lock() {
            for game in self.games {
                taking.remove(&game.room_id);
            }
        }
    }
}

/// Gives up this node's leases on `rooms` once its rooms have stopped, so that other
/// nodes adopt them at once instead of when the leases run out.
pub(super) async fn hand_over(cluster: &Cluster, rooms: &[RoomId]) {
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
    use crate::fleet::cluster::tests::{SHORT_LEASE_MS, fleet, renew_until_lapsed};
    use parlor_room::GameId;

    #[tokio::test]
    async fn a_lease_taken_to_adopt_a_game_is_renewed_until_the_room_is_live() {
        let test = "a_lease_taken_to_adopt_a_game_is_renewed_until_the_room_is_live";
        let Some([a, b]) = fleet(test, SHORT_LEASE_MS).await else {
            return;
        };
        let taking = Taking::default();
        let rooms = [RoomId::from("slow"), RoomId::from("done")];
        for room in &rooms {
            a.claim(room).await.expect("claim").expect("free");
            taking.add(room);
        }
        // "done" went live (or failed) at once; "slow" takes longer than a lease. a's
        // renewals keep the lease of the one it is still adopting, until the other's
        // lapses.
        taking.forget(&rooms[1..]);
        renew_until_lapsed(
            async || {
                let lost = renew_once(&a, Vec::new(), &taking).await.expect("renew");
                assert!(lost.is_empty(), "{lost:?}");
            },
            async || b.claim(&rooms[1]).await.expect("claim"),
        )
        .await;
        assert_eq!(b.claim(&rooms[0]).await.expect("claim"), None, "still a's");
        // What a renewal finds lost is no longer counted as being taken.
        taking.add(&rooms[1]);
        let lost = renew_once(&a, Vec::new(), &taking).await.expect("renew");
        assert_eq!(lost, ["done"]);
        assert_eq!(taking.ids(), ["slow"]);
    }

    #[test]
    fn a_round_of_adoptions_forgets_its_rooms_however_it_ends() {
        let taking = Taking::default();
        let game = |room: &str| UnfinishedGame {
            game_id: GameId::from(format!("g_{room}")),
            room_id: RoomId::from(room),
            fence: Fence(1),
        };
        let group = [game("r1"), game("r2")];
        taking.add(&RoomId::from("elsewhere"));
        {
            let _round = taking.until_done(&group);
            taking.add(&RoomId::from("r1"));
            taking.add(&RoomId::from("r2"));
            assert_eq!(taking.ids().len(), 3);
        }
        assert_eq!(taking.ids(), ["elsewhere"]);
    }

    #[test]
    fn trouble_with_redis_is_timed_from_its_start_and_waited_out_from_its_end() {
        let trouble = Trouble::default();
        assert!(!trouble.lasted(Duration::ZERO), "no trouble yet");
        assert!(trouble.steady_for(Duration::from_secs(3600)));
        trouble.note();
        assert!(trouble.lasted(Duration::ZERO));
        assert!(!trouble.lasted(Duration::from_secs(3600)));
        assert!(!trouble.steady_for(Duration::from_secs(3600)));
        trouble.over();
        assert!(!trouble.lasted(Duration::ZERO), "over");
        assert!(
            !trouble.steady_for(Duration::from_secs(3600)),
            "not steady for long yet"
        );
        assert!(trouble.steady_for(Duration::ZERO));
    }
}
