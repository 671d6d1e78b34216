//! The registry of live rooms: creates them, finds them by id, lists them, and forgets
//! each one when its task ends.

use std::sync::Arc;

use dashmap::DashMap;
use serde_json::{Map, Value};
use tokio::runtime::Handle as Runtime;
use tokio_util::task::TaskTracker;

use crate::catalog::{self, GAME_IDS, NewGameError};
use crate::games::PositionError;
use crate::players::random_hex;
use crate::protocol::{ClientError, ErrorCode, RoomSummary};
use crate::room::{Creator, RoomContext, RoomHandle, RoomOptions, SeatSpec};

/// All live rooms, by id.
pub struct Lobby {
    rooms: Arc<DashMap<String, RoomHandle>>,
    context: Arc<RoomContext>,
    runtime: Runtime,
    tracker: TaskTracker,
}

impl Lobby {
    /// A lobby whose rooms run on `runtime` (a multi-threaded runtime, so rooms spread
    /// over every core rather than over the HTTP workers' single-threaded ones).
    pub fn new(context: Arc<RoomContext>, runtime: Runtime) -> Self {
        Self {
            rooms: Arc::new(DashMap::new()),
            context,
            runtime,
            tracker: TaskTracker::new(),
        }
    }

    /// Creates a room after checking, in order, the game, the seats and the options
    /// (including whether the game can start from `options.start`).
    /// `creator` must be given when a seat is `me` and is then seated in it.
    pub fn create(
        &self,
        game: &str,
        seats: &[String],
        options: Option<Map<String, Value>>,
        creator: Option<Creator>,
    ) -> Result<RoomHandle, ClientError> {
        if !GAME_IDS.contains(&game) {
            return Err(ClientError::new(
                ErrorCode::UnknownGame,
                format!(
                    "There is no game \"{game}\". Available: {}.",
                    GAME_IDS.join(", ")
                ),
            ));
        }
        let seats = SeatSpec::parse_pair(seats)?;
        let options = RoomOptions::parse(options)?;
        let instance = catalog::new_game(game, &self.context.config, options.start.as_deref())
            .map_err(|error| match error {
                NewGameError::Position(PositionError::Unsupported) => ClientError::new(
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
        let id = self.fresh_id();
        let (handle, task) = RoomHandle::spawn(
            id.clone(),
            instance,
            seats,
            options,
            creator,
            self.context.clone(),
            &self.runtime,
            &self.tracker,
        );
        self.rooms.insert(id.clone(), handle.clone());
        let rooms = self.rooms.clone();
        self.runtime.spawn(async move {
            let _ = task.await;
            rooms.remove(&id);
        });
        Ok(handle)
    }

    fn fresh_id(&self) -> String {
        loop {
            let id = random_hex(5);
            if !self.rooms.contains_key(&id) {
                return id;
            }
        }
    }

    /// The room with this id, or `unknown_room`.
    pub fn get(&self, id: &str) -> Result<RoomHandle, ClientError> {
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

    /// Every live room, newest first.
    pub fn list(&self) -> Vec<RoomSummary> {
        let mut rooms: Vec<RoomSummary> = self.rooms.iter().map(|entry| entry.summary()).collect();
        rooms.sort_by(|a, b| {
            b.created_at_ms
                .cmp(&a.created_at_ms)
                .then(a.room.cmp(&b.room))
        });
        rooms
    }

    /// Waits until every room's task has ended (they end on the server's shutdown signal).
    pub async fn wait_closed(&self) {
        self.tracker.close();
        self.tracker.wait().await;
    }
}
