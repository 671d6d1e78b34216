//! Rooms coming into the registry and leaving it: a new room checked and made (under
//! the token whoever opens it took), a stored game made a live room again, each room
//! listed until its task ends and then forgotten, its last listing announced.

use tokio::runtime::Handle as Runtime;
use tokio::task::JoinHandle;

use super::{Lobby, NewRoom};
use crate::players::random_hex;
use crate::protocol::{ClientError, ErrorCode, LobbyChange};
use crate::room::{self, Creator, ResumeError, RoomHandle};
use crate::store::{Fence, StoredGame};
use parlor_room::{ROOM_ID_BYTES, RoomId, RoomOptions};
use parlor_rules::GameKind;
use parlor_rules::catalog::{self, AnyGame};
use parlor_rules::games::PositionError;

impl Lobby {
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
        let runtime = self.hosts.here();
        let (handle, task) = RoomHandle::spawn(
            id.clone(),
            instance,
            seats,
            options,
            (creator, fence),
            self.context.clone(),
            &runtime,
            &self.tracker,
        );
        self.register(id.clone(), handle.clone(), task, &runtime);
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
        self.register(stored.room_id.clone(), handle, task, self.hosts.shared());
        Ok(())
    }

    /// Lists the room `id` until its task ends, announcing its changes on the feed
    /// unless it is private. The watch runs on `runtime`, the room's own, so that the
    /// room's changes wake no other thread; it is tracked with the rooms, so that
    /// shutdown, which stops the HTTP workers once the rooms have closed, lets it
    /// announce the room's removal first.
    fn register(&self, id: RoomId, handle: RoomHandle, task: JoinHandle<()>, runtime: &Runtime) {
        self.rooms.insert(id.clone(), handle.clone());
        let rooms = self.rooms.clone();
        let feed = self.feed.clone();
        let elsewhere = self.elsewhere.clone();
        let mut summaries = (!handle.is_private()).then(|| handle.summaries());
        runtime.spawn(self.tracker.track_future(async move {
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
        }));
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

    /// Stops the room `id` at once, sending everyone in it to reconnect: this node no
    /// longer holds it, and another node plays it on from the store.
    pub(crate) fn relinquish(&self, id: &RoomId) {
        if let Some(handle) = self.rooms.get(id) {
            handle.relinquish();
        }
    }
}
