//! The registry of live rooms: creates them, finds them by id, lists them (with the
//! rooms other nodes of a fleet list), announces every change to a listed room on the
//! lobby feed, finds rooms for `quick_join`, and forgets each room when its task ends.

mod feed;
mod subscription;

use std::sync::Arc;
use std::time::Duration;

use dashmap::DashMap;
use serde::Serialize;
use tokio::sync::broadcast;
use tokio::task::JoinHandle;
use tokio_util::task::TaskTracker;

use crate::players::random_hex;
use crate::protocol::{
    ClientError, ErrorCode, LobbyChange, RoomSummary, SeatView, Status, TimeControl,
};
use crate::room::{self, Creator, ResumeError, RoomContext, RoomHandle, RoomHosts};
use crate::store::{Fence, StoredGame};
use parlor_room::SeatKind;
use parlor_room::{PlayerId, ROOM_ID_BYTES, RoomId};
use parlor_room::{RoomOptions, SeatSpec};
use parlor_rules::GameKind;
use parlor_rules::catalog::{self, AnyGame};
use parlor_rules::games::{PositionError, Seat};

pub(crate) use feed::{LobbyFeed, LobbyUpdate, LocalChange};
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

    /// Creates a room of `game` with `seats` and `options` (each checked as the client's
    /// message was read), after checking that the game can start from `options.start`
    /// and that the server holds fewer than `limits.max_rooms` (`server_full`).
    /// `creator` must be given when a seat is `me` and is then seated in it.
    pub(crate) fn create(
        &self,
        room: NewRoom,
        creator: Option<Creator>,
    ) -> Result<RoomHandle, ClientError> {
        self.create_as(&self.fresh_id(), Fence::SINGLE, room, creator)
    }

    /// Creates a room as [`Lobby::create`] does, under the id `id` and writing under
    /// `fence`: in a fleet, whoever opens a room takes its lease first, and its id is
    /// chosen then (refused with `storage_unavailable`, to be asked again, in the
    /// unlikely case that it is taken here).
    pub(crate) fn create_as(
        &self,
        id: &RoomId,
        fence: Fence,
        NewRoom {
            game,
            seats,
            options,
        }: NewRoom,
        creator: Option<Creator>,
    ) -> Result<RoomHandle, ClientError> {
        let instance = self.check_start(game, &options)?;
        let max_rooms = self.context.config.limits.max_rooms as usize;
        // Two creations racing on different workers may both pass: the cap can be
        // exceeded by at most the number of HTTP workers, which is harmless.
        if max_rooms != 0 && self.rooms.len() >= max_rooms {
            return Err(ClientError::new(
                ErrorCode::ServerFull,
                format!(
                    "The server already has {max_rooms} rooms, the most it holds; join or watch one of them, or try again when some have finished."
                ),
            ));
        }
        if self.rooms.contains_key(id) {
            return Err(ClientError::storage_unavailable());
        }
        let (handle, task) = RoomHandle::spawn(
            id.clone(),
            instance,
            seats,
            options,
            (creator, fence),
            self.context.clone(),
            &self.hosts.here(),
            &self.tracker,
        );
        self.register(id.clone(), handle.clone(), task);
        Ok(handle)
    }

    /// The game a new room of `game` starts with: from `options.start` if given, which
    /// must be a position the game accepts and where a move can still be played
    /// (`bad_option`).
    pub(crate) fn check_start(
        &self,
        game: GameKind,
        options: &RoomOptions,
    ) -> Result<Box<dyn AnyGame>, ClientError> {
        let instance =
            catalog::new_game(game, &self.context.settings.games, options.start.as_deref())
                .map_err(|error| match error {
                    PositionError::Unsupported => ClientError::new(
                        ErrorCode::BadOption,
                        format!(
                            "A {game} game always starts from its usual position; remove \"start\"."
                        ),
                    ),
                    other => ClientError::new(
                        ErrorCode::BadOption,
                        format!("Option \"start\" was refused: {other}."),
                    ),
                })?;
        if let Some(outcome) = instance.outcome() {
            return Err(ClientError::new(
                ErrorCode::BadOption,
                format!(
                    "The position in \"start\" is already decided ({}); give one where a move can still be played.",
                    outcome.reason
                ),
            ));
        }
        Ok(instance)
    }

    /// Makes the stored, unfinished game `stored` a live room again from `live`, its
    /// `seq` going on from `seq`, writing under `fence`, and its seats showing `ratings`,
    /// listed like any other.
    pub(crate) fn resume(
        &self,
        stored: &StoredGame,
        ratings: [Option<f64>; 2],
        (seq, fence): (u64, Fence),
        live: parlor_room::Now,
    ) -> Result<(), ResumeError> {
        if self.rooms.contains_key(&stored.room_id) {
            return Err(ResumeError::RoomTaken);
        }
        let (handle, task) = room::resume(
            stored,
            ratings,
            (seq, fence),
            live,
            &self.context,
            self.hosts.shared(),
            &self.tracker,
        )?;
        self.register(stored.room_id.clone(), handle, task);
        Ok(())
    }

    /// Lists the room `id` until its task ends, announcing its changes on the feed
    /// unless it is private.
    fn register(&self, id: RoomId, handle: RoomHandle, task: JoinHandle<()>) {
        self.rooms.insert(id.clone(), handle.clone());
        let rooms = self.rooms.clone();
        let feed = self.feed.clone();
        let elsewhere = self.elsewhere.clone();
        let mut summaries = (!handle.is_private()).then(|| handle.summaries());
        self.hosts.shared().spawn(async move {
            // The watch ends when the room's task does, having announced its last state.
            if let Some(summaries) = summaries.as_mut() {
                let mut change = LobbyChange::Added;
                while let Some(summary) = summaries.next().await {
                    feed.announce(change, &summary, handle.fence());
                    change = LobbyChange::Changed;
                }
            }
            let _ = task.await;
            rooms.remove(&id);
            if let Some(last) = summaries.as_ref().and_then(|s| s.last()) {
                feed.announce(LobbyChange::Removed, last, handle.fence());
                // The room moved to another node, which lists it already (under a higher
                // token; what an older holder said of it is over).
                if let Some(moved) = elsewhere.and_then(|list| list.after(&id, handle.fence())) {
                    feed.announce_remote(LobbyChange::Changed, &moved);
                }
            }
        });
    }

    /// An id no room of this node has.
    pub(crate) fn fresh_id(&self) -> RoomId {
        loop {
            let id = RoomId::from(random_hex(ROOM_ID_BYTES));
            if !self.rooms.contains_key(&id) {
                return id;
            }
        }
    }

    /// Whether a room with this id lives here.
    pub(crate) fn has(&self, id: &RoomId) -> bool {
        self.rooms.contains_key(id)
    }

    /// Stops the room `id` at once, sending everyone in it to reconnect: this node no
    /// longer holds it, and another node plays it on from the store.
    pub(crate) fn relinquish(&self, id: &RoomId) {
        if let Some(handle) = self.rooms.get(id) {
            handle.relinquish();
        }
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

    /// Every listed (not private) live room, newest first.
    pub(crate) fn list(&self) -> Vec<RoomSummary> {
        self.list_game(None)
    }

    /// Every listed live room of `game` (of every game when `None`), newest first.
    pub(crate) fn list_game(&self, game: Option<GameKind>) -> Vec<RoomSummary> {
        let mut rooms = self.listed();
        rooms.retain(|summary| game.is_none_or(|game| summary.game == game));
        rooms.sort_by(newest_first);
        rooms
    }

    /// Every listed room of this node, with the token it holds the room under, in no
    /// order.
    pub(crate) fn listed_here(&self) -> Vec<(Fence, RoomSummary)> {
        self.rooms
            .iter()
            .filter(|entry| !entry.is_private())
            .map(|entry| (entry.fence(), entry.summary()))
            .collect()
    }

    /// Every listed room of the fleet (of this node alone when it is not in one), in no
    /// order.
    fn listed(&self) -> Vec<RoomSummary> {
        let mut rooms: Vec<RoomSummary> = self
            .rooms
            .iter()
            .filter(|entry| !entry.is_private())
            .map(|entry| entry.summary())
            .collect();
        if let Some(elsewhere) = &self.elsewhere {
            rooms.extend(elsewhere.summaries(&|id| self.rooms.contains_key(id)));
        }
        rooms
    }

    /// One page of [`Lobby::list`]: at most `limit` rooms after `after` (from the start
    /// when `None`), and the cursor of the next page if there are more rooms.
    pub(crate) fn page(&self, after: Option<&PageCursor>, limit: usize) -> RoomsPage {
        let mut rooms = self.listed();
        rooms.retain(|summary| after.is_none_or(|cursor| cursor.precedes(summary)));
        rooms.sort_by(newest_first);
        let more = rooms.len() > limit;
        rooms.truncate(limit);
        let next = more
            .then(|| rooms.last().map(|last| PageCursor::after(last).to_string()))
            .flatten();
        RoomsPage { rooms, next }
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

    /// The rooms `quick_join` may seat `player_id` in, oldest first: listed, waiting
    /// rooms of `game` under `time_control` that start from the usual position, with
    /// one seat open and the other held by a connected person other than `player_id`.
    pub(crate) fn waiting_for(
        &self,
        game: GameKind,
        time_control: TimeControl,
        player_id: &PlayerId,
    ) -> Vec<(RoomHandle, Seat)> {
        let mut found: Vec<(i64, RoomHandle, Seat)> = self
            .rooms
            .iter()
            .filter(|entry| !entry.is_private() && entry.usual_start())
            .filter_map(|entry| {
                let summary = entry.summary();
                if summary.game != game
                    || summary.status != Status::Waiting
                    || summary.time_control != time_control
                {
                    return None;
                }
                let [first, second] = summary.seats.as_slice() else {
                    return None;
                };
                let opponent_waits = |seat: &SeatView| {
                    seat.kind == SeatKind::Human
                        && seat.connected
                        && seat.player_id.as_ref() != Some(player_id)
                };
                let open = match (first.kind, second.kind) {
                    (SeatKind::Open, _) if opponent_waits(second) => Some(Seat::First),
                    (_, SeatKind::Open) if opponent_waits(first) => Some(Seat::Second),
                    _ => None,
                }?;
                Some((summary.created_at_ms, entry.value().clone(), open))
            })
            .collect();
        found.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.id().cmp(b.1.id())));
        found
            .into_iter()
            .map(|(_, handle, seat)| (handle, seat))
            .collect()
    }

    /// Where the rooms run, for the health check's probe.
    pub(crate) fn hosts(&self) -> &RoomHosts {
        &self.hosts
    }

    /// The ids of every live room, private ones included, for logs at shutdown.
    pub(crate) fn live_ids(&self) -> Vec<RoomId> {
        self.rooms.iter().map(|entry| entry.key().clone()).collect()
    }

    /// The ids of the rooms that hold a lease in the fleet (those that have taken one).
    pub(crate) fn held_ids(&self) -> Vec<RoomId> {
        self.rooms
            .iter()
            .filter(|entry| entry.value().fence() != Fence::SINGLE)
            .map(|entry| entry.key().clone())
            .collect()
    }

    /// Waits until every room's task has ended (they end on the server's shutdown signal).
    pub(crate) async fn wait_closed(&self) {
        self.tracker.close();
        self.tracker.wait().await;
    }
}

/// The order of every room listing: newest first, then by id.
fn newest_first(a: &RoomSummary, b: &RoomSummary) -> std::cmp::Ordering {
    b.created_at_ms
        .cmp(&a.created_at_ms)
        .then(a.room.cmp(&b.room))
}

/// One page of the room list.
#[derive(Debug, Serialize)]
pub(crate) struct RoomsPage {
    /// The rooms, newest first.
    pub(crate) rooms: Vec<RoomSummary>,
    /// The cursor to pass as `after` for the next page; left out on the last page, so
    /// a server with one page of rooms answers exactly as before pagination.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) next: Option<String>,
}

/// Where a page of the room list continues: after the room created at this time with
/// this id. Written `<created_at_ms>-<room id>`; a cursor stays valid when its room is
/// removed, since it names a place in the order rather than a room.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PageCursor {
    created_at_ms: i64,
    room: RoomId,
}

/// A page cursor that is not `<created_at_ms>-<room id>`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("\"{0}\" is not a page cursor; pass the \"next\" of the previous page as \"after\"")]
pub(crate) struct BadCursor(String);

impl PageCursor {
    /// The cursor of the page that continues after `room`.
    pub(crate) fn after(room: &RoomSummary) -> Self {
        Self {
            created_at_ms: room.created_at_ms,
            room: room.room.clone(),
        }
    }

    /// Whether `room` comes after this cursor in the listing's order.
    fn precedes(&self, room: &RoomSummary) -> bool {
        room.created_at_ms < self.created_at_ms
            || (room.created_at_ms == self.created_at_ms && room.room > self.room)
    }
}

impl std::str::FromStr for PageCursor {
    type Err = BadCursor;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || BadCursor(text.chars().take(64).collect());
        let (at, room) = text.split_once('-').ok_or_else(bad)?;
        let created_at_ms = at.parse().map_err(|_| bad())?;
        if room.is_empty() || !room.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(bad());
        }
        Ok(Self {
            created_at_ms,
            room: RoomId::from(room),
        })
    }
}

impl std::fmt::Display for PageCursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.created_at_ms, self.room)
    }
}
