//! The lobby: every live room of this node by id, and what is told of them. `registry`
//! brings rooms in (new or resumed) and forgets them when they end; `paging` lists them
//! (beside the rooms other nodes of a fleet list); `matchmaking` finds a seat for
//! `quick_join`; `feed` and `subscription` tell lobby subscribers of every change.

mod feed;
mod matchmaking;
mod paging;
mod registry;
mod subscription;

use std::sync::Arc;
use std::time::Duration;

use dashmap::DashMap;
use tokio::sync::broadcast;
use tokio_util::task::TaskTracker;

use crate::protocol::{ClientError, ErrorCode, LobbyChange, RoomSummary};
use crate::room::{RoomContext, RoomHandle, RoomHosts};
use crate::store::Fence;
use parlor_room::{RoomId, RoomOptions, SeatSpec};
use parlor_rules::GameKind;

pub(crate) use feed::{LobbyFeed, LobbyUpdate, LocalChange};
pub(crate) use paging::{PageCursor, RoomsPage};
pub(crate) use subscription::{LobbyEvent, LobbySubscription, next_lobby_event};

/// A room to create: its game, seats and options, each checked already.
pub(crate) struct NewRoom {
    /// The game.
    pub(crate) game: GameKind,
    /// The two seats.
    pub(crate) seats: [SeatSpec; 2],
    /// The options.
    pub(crate) options: RoomOptions,
}

/// The rooms other nodes of a fleet list, as the lobby lists them beside its own. The
/// fleet keeps them; the lobby knows them only through this.
pub(crate) trait ListedElsewhere: Send + Sync {
    /// Every room another node lists, except those `is_here` says this node holds (a
    /// room this node took over before the news of its old node leaving arrived).
    fn summaries(&self, is_here: &dyn Fn(&RoomId) -> bool) -> Vec<RoomSummary>;

    /// How another node lists the room `id` under a token above `fence`, if one does
    /// (the room moved there); a listing under a lower token is forgotten.
    fn after(&self, id: &RoomId, fence: Fence) -> Option<RoomSummary>;
}

/// All live rooms, by id. Cloning it is cheap and shares the rooms.
#[derive(Clone)]
pub(crate) struct Lobby {
    rooms: Arc<DashMap<RoomId, RoomHandle>>,
    context: Arc<RoomContext>,
    feed: LobbyFeed,
    /// The rooms other nodes of a fleet list, if this server is a node of one.
    elsewhere: Option<Arc<dyn ListedElsewhere>>,
    hosts: RoomHosts,
    tracker: TaskTracker,
}
impl Lobby {
    /// A lobby whose rooms run on `hosts` (each room a client creates on the worker
    /// serving that client, when it has enlisted; the others on the shared runtime),
    /// announce their changes on `feed` (the feed `context` reports followers of), and
    /// are listed beside those `elsewhere` lists, in a fleet.
    pub(crate) fn new(
        context: Arc<RoomContext>,
        feed: LobbyFeed,
        hosts: RoomHosts,
        elsewhere: Option<Arc<dyn ListedElsewhere>>,
    ) -> Self {
        Self {
            rooms: Arc::new(DashMap::new()),
            context,
            feed,
            elsewhere,
            hosts,
            tracker: TaskTracker::new(),
        }
    }

    /// Whether a room with this id lives here.
    pub(crate) fn has(&self, id: &RoomId) -> bool {
        self.rooms.contains_key(id)
    }

    /// The room with this id, or `unknown_room`.
    pub(crate) fn get(&self, id: &RoomId) -> Result<RoomHandle, ClientError> {
        self.rooms
            .get(id)
            .map(|entry| entry.value().clone())
            .ok_or_else(|| {
                ClientError::new(
                    ErrorCode::UnknownRoom,
                    format!("There is no room \"{id}\". List the rooms to see which exist."),
                )
            })
    }

    /// A subscription to the lobby feed for rooms of `game` (all when `None`): every
    /// change to a listed room from now on, coalesced per `limits.lobby_flush_ms`.
    pub(crate) fn subscribe(&self, game: Option<GameKind>) -> LobbySubscription {
        let flush_every = Duration::from_millis(self.context.config.limits.lobby_flush_ms);
        LobbySubscription::new(self.feed.subscribe(), game, flush_every)
    }

    /// Every change to a room of this node from now on, as it is announced, for the
    /// rest of a fleet.
    pub(crate) fn local_changes(&self) -> broadcast::Receiver<LocalChange> {
        self.feed.subscribe_local()
    }

    /// Tells this node's lobby subscribers what happened to a room another node lists.
    pub(crate) fn announce_elsewhere(&self, change: LobbyChange, summary: &RoomSummary) {
        self.feed.announce_remote(change, summary);
    }

    /// Where the rooms run, for the health check's probe.
    pub(crate) fn hosts(&self) -> &RoomHosts {
        &self.hosts
    }

    /// The ids of every live room, private ones included, for logs at shutdown.
    pub(crate) fn live_ids(&self) -> Vec<RoomId> {
        self.rooms.iter().map(|entry| entry.key().clone()).collect()
    }

    /// The ids of the rooms that hold a lease in the fleet (those that have taken one
    /// and are still running).
    pub(crate) fn held_ids(&self) -> Vec<RoomId> {
        self.held().into_iter().map(|(room, _)| room).collect()
    }

    /// The rooms that hold a lease in the fleet, each with the token it writes under.
    pub(crate) fn held(&self) -> Vec<(RoomId, Fence)> {
        self.rooms
            .iter()
            .filter(|entry| entry.value().fence() != Fence::SINGLE && !entry.value().is_closed())
            .map(|entry| (entry.key().clone(), entry.value().fence()))
            .collect()
    }

    /// Waits until every room's task has ended (they end on the server's shutdown signal).
    pub(crate) async fn wait_closed(&self) {
        self.tracker.close();
        self.tracker.wait().await;
    }
}
