//! The public face of a room: a cheap cloneable handle that sends commands to the
//! room's task and reads what the room last published.

use std::sync::Arc;
use std::time::Duration;

use parlor_room::RoomId;
use serde_json::Value;
use std::time::Instant;
use tokio::runtime::Handle as Runtime;
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio_util::task::TaskTracker;

use super::Caller;
use super::actor::{Command, Published, Room};
use super::{ConnId, RoomContext, Subscriber};
use crate::protocol::{ClientError, ErrorCode, RoomSummary};
use crate::store::Fence;
use parlor_room::Asked;
use parlor_room::RoomState;
use parlor_room::{PlayerInfo, RoomOptions, SeatSpec};
use parlor_rules::catalog::AnyGame;
use parlor_rules::games::Seat;

/// How many commands may wait for a room before senders wait their turn.
const COMMAND_QUEUE: usize = 64;

/// The player who created a room with a `me` seat, seated as the room starts.
#[derive(Debug)]
pub(crate) struct Creator {
    /// The creator.
    pub(crate) player: PlayerInfo,
    /// Their connection.
    pub(crate) sub: Subscriber,
    /// The `ref` of their `create_room`, echoed in `joined`.
    pub(crate) reference: Option<Value>,
}

/// A cheap, cloneable way to talk to one room's task.
#[derive(Clone, Debug)]
pub(crate) struct RoomHandle {
    id: RoomId,
    /// Boxed, so that a room's queue (allocated 32 slots at a time) stays small.
    commands: mpsc::Sender<Box<Command>>,
    published: watch::Receiver<Published>,
    private: bool,
    usual_start: bool,
}

/// Follows a room's summary as the room publishes it.
#[derive(Debug)]
pub(crate) struct SummaryWatch {
    published: watch::Receiver<Published>,
    last: Option<RoomSummary>,
}

impl SummaryWatch {
    /// Waits until the room's summary differs from the one last returned, and returns
    /// it; `None` once the room has closed. Summaries published in quick succession are
    /// coalesced into the latest, so a watcher never holds a room up.
    pub(crate) async fn next(&mut self) -> Option<RoomSummary> {
        loop {
            self.published.changed().await.ok()?;
            let summary = self.published.borrow_and_update().summary.clone();
            if self.last.as_ref() != Some(&summary) {
                self.last = Some(summary.clone());
                return Some(summary);
            }
        }
    }

    /// The summary last returned by [`SummaryWatch::next`], if any.
    pub(crate) fn last(&self) -> Option<&RoomSummary> {
        self.last.as_ref()
    }
}

fn room_gone() -> ClientError {
    ClientError::new(
        ErrorCode::UnknownRoom,
        "That room has just closed. List the rooms to find another.",
    )
}

/// How long a reader of a room's state waits for the room to encode it.
const READ_STATE_WITHIN: Duration = Duration::from_secs(2);

/// Why a room's current state could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum StateUnread {
    /// The room closed meanwhile.
    #[error("the room has just closed")]
    Closed,
    /// The room has too much to do to answer now.
    #[error(
        "the room is busy (its queue is full or it is waiting for the database); try again in a moment"
    )]
    Busy,
}

impl RoomHandle {
    /// Starts a room's task on `runtime`, writing under `fence`, and returns its handle
    /// and the task. The `creator`, if any, is seated in the `me` seat (and ignored if
    /// there is none).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn spawn(
        id: RoomId,
        game: Box<dyn AnyGame>,
        seats: [SeatSpec; 2],
        options: RoomOptions,
        (creator, fence): (Option<Creator>, Fence),
        context: Arc<RoomContext>,
        runtime: &Runtime,
        tracker: &TaskTracker,
    ) -> (RoomHandle, JoinHandle<()>) {
        let (commands, inbox) = mpsc::channel(COMMAND_QUEUE);
        let private = options.private;
        let usual_start = options.start.is_none();
        let creator = creator
            .zip(SeatSpec::mine(&seats))
            .map(|(creator, seat)| (seat, creator));
        let room = Room::new(
            id.clone(),
            (game, seats, options),
            fence,
            context,
            commands.downgrade(),
        );
        RoomHandle::start(
            id,
            room,
            (commands, inbox),
            (private, usual_start),
            creator,
            runtime,
            tracker,
        )
    }

    /// Starts the task of a room rebuilt from the store (see [`RoomState::rebuild`]) on
    /// `runtime`, writing under `fence`, and returns its handle and the task.
    pub(super) fn resume(
        state: RoomState,
        fence: Fence,
        options: &RoomOptions,
        context: Arc<RoomContext>,
        runtime: &Runtime,
        tracker: &TaskTracker,
    ) -> (RoomHandle, JoinHandle<()>) {
        let (commands, inbox) = mpsc::channel(COMMAND_QUEUE);
        let id = state.id().clone();
        let room = Room::with_state(state, fence, context, commands.downgrade());
        let kind = (options.private, options.start.is_none());
        RoomHandle::start(id, room, (commands, inbox), kind, None, runtime, tracker)
    }

    /// Spawns `room`'s task, reading `queue`, tracked by `tracker`; `kind` is whether the
    /// room is private and whether it begins from the usual start.
    fn start(
        id: RoomId,
        room: Room,
        queue: (mpsc::Sender<Box<Command>>, mpsc::Receiver<Box<Command>>),
        kind: (bool, bool),
        creator: Option<(Seat, Creator)>,
        runtime: &Runtime,
        tracker: &TaskTracker,
    ) -> (RoomHandle, JoinHandle<()>) {
        let (commands, inbox) = queue;
        let (private, usual_start) = kind;
        let (publisher, published) = watch::channel(room.publication());
        let room = room.tracked_by(tracker);
        let creator = creator.map(Box::new);
        let task = runtime.spawn(tracker.track_future(room.run(inbox, publisher, creator)));
        let handle = RoomHandle {
            id,
            commands,
            published,
            private,
            usual_start,
        };
        (handle, task)
    }

    /// The room's id.
    pub(crate) fn id(&self) -> &RoomId {
        &self.id
    }

    /// Whether the room was created with `options.private`: it is never listed.
    pub(crate) fn is_private(&self) -> bool {
        self.private
    }

    /// Whether the room's games begin from the game's usual start (no `options.start`).
    pub(crate) fn usual_start(&self) -> bool {
        self.usual_start
    }

    /// A watch over the room's summary; its first [`SummaryWatch::next`] returns the
    /// summary the room publishes once it has seated its creator.
    pub(crate) fn summaries(&self) -> SummaryWatch {
        SummaryWatch {
            published: self.published.clone(),
            last: None,
        }
    }

    /// The room as it appears in listings, as last published.
    pub(crate) fn summary(&self) -> RoomSummary {
        self.published.borrow().summary.clone()
    }

    /// The room's current `state` message: as last broadcast or read when that is
    /// current, otherwise as the room encodes it now (once per change: the room
    /// publishes what it encoded). A reader never waits behind a full queue of the
    /// room's commands, nor longer than [`READ_STATE_WITHIN`].
    pub(crate) async fn state_json(&self) -> Result<bytestring::ByteString, StateUnread> {
        if let Some(state) = self.published.borrow().state.clone() {
            return Ok(state);
        }
        let (reply, answer) = oneshot::channel();
        self.commands
            .try_send(Box::new(Command::ReadState { reply }))
            .map_err(|error| match error {
                TrySendError::Full(_) => StateUnread::Busy,
                TrySendError::Closed(_) => StateUnread::Closed,
            })?;
        match tokio::time::timeout(READ_STATE_WITHIN, answer).await {
            Ok(Ok(state)) => Ok(state),
            Ok(Err(_)) => Err(StateUnread::Closed),
            Err(_) => Err(StateUnread::Busy),
        }
    }

    /// Has the room answer `asked`, from `caller`, received at `received` (a move's
    /// thinking time counts to then). On success of a command that enters the room,
    /// the room has queued `joined` and a snapshot to the caller, or, when `since` is a
    /// `seq` the room still has the frames after, those frames instead; the room's
    /// broadcast is the answer to any other.
    pub(crate) async fn ask(
        &self,
        asked: Asked,
        caller: Caller,
        received: Instant,
    ) -> Result<(), ClientError> {
        let (reply, answer) = oneshot::channel();
        let command = Command::Ask {
            asked,
            caller,
            received,
            reply,
        };
        self.commands
            .send(Box::new(command))
            .await
            .map_err(|_| room_gone())?;
        answer.await.map_err(|_| room_gone())?
    }

    /// Whether the room's task has ended (it closed), so that asking it is pointless.
    pub(crate) fn is_closed(&self) -> bool {
        self.commands.is_closed()
    }

    /// Tells the room that a connection has closed. Waits for queue space so the notice
    /// is never lost; does nothing if the room has already closed.
    pub(crate) async fn disconnect(&self, conn: ConnId) {
        let _closed = self
            .commands
            .send(Box::new(Command::Disconnect { conn }))
            .await;
    }

    /// Asks the room to stop at once: this node no longer holds it. Never waits: a room
    /// whose queue is full is asked again at the next renewal.
    pub(crate) fn relinquish(&self) {
        let _ = self.commands.try_send(Box::new(Command::Relinquish));
    }

    /// The token the room writes under, as it last published it.
    pub(crate) fn fence(&self) -> Fence {
        self.published.borrow().fence
    }
}
