//! Opening rooms in a fleet. On a node that holds rooms, a room's lease is taken before
//! the room is made, so that it writes under its token from its first move and no other
//! node can hold it meanwhile. A node that holds none (`cluster.owns_rooms = false`)
//! names the room, asks a node that holds rooms to open it, and reaches it there like
//! any room of another node.

use rand::seq::SliceRandom;
use serde_json::Value;
use tracing::warn;

use super::Relay;
use super::awaited::Unanswered;
use super::gateway::{RemoteRoom, RoomLink};
use super::wire::Envelope;
use crate::lobby::NewRoom;
use crate::players::random_hex;
use crate::protocol::{ClientError, ErrorCode};
use crate::room::{Creator, RoomHandle, Subscriber};
use parlor_room::{NodeId, PlayerInfo, ROOM_ID_BYTES, RoomId, SeatSpec};

/// A room asked for on another node: its id, the room as the client reaches it, and
/// whether it was opened (`room_unreachable` when that node did not answer in time: it
/// may have).
pub(crate) struct Opening {
    /// The room's id.
    pub(crate) room: RoomId,
    /// The room as the client reaches it.
    pub(crate) link: RoomLink,
    /// Done, or why not (or that it is not known).
    pub(crate) outcome: Result<(), ClientError>,
}

fn no_room_holder() -> ClientError {
    ClientError::new(
        ErrorCode::RoomUnreachable,
        "No server of the fleet that holds rooms answered, so the room was not opened. Try again in a few seconds.",
    )
}

fn opening_unanswered(room: &RoomId) -> ClientError {
    ClientError::new(
        ErrorCode::RoomUnreachable,
        format!(
            "The server asked to open room \"{room}\" did not answer in time, so it is not known whether it was. Watch or join \"{room}\" to find out, or open another."
        ),
    )
}

impl Relay {
    /// Opens a room (see [`Lobby::create`](crate::lobby::Lobby::create)) on a node that
    /// holds rooms (tried in random order), for this node's client `sub`, seated in it
    /// if a seat says `me`. Refused with `room_unreachable` when no such node hears.
    pub(crate) async fn open_elsewhere(
        &self,
        (player, new_room): (PlayerInfo, NewRoom),
        sub: &Subscriber,
        reference: Option<Value>,
    ) -> Result<Opening, ClientError> {
        let mut owners: Vec<NodeId> = self
            .inner
            .owning_nodes
            .iter()
            .map(|entry| entry.key().clone())
            .collect();
        owners.shuffle(&mut rand::rng());
        let seated = SeatSpec::mine(&new_room.seats).is_some();
        let room = RoomId::from(random_hex(ROOM_ID_BYTES));
        for owner in owners {
            let asked = self
                .ask_node(&owner, sub.conn, |asker| Envelope::Create {
                    asker,
                    room: room.clone(),
                    player: player.clone(),
                    game: new_room.game,
                    seats: new_room.seats,
                    options: new_room.options.clone(),
                    reference: reference.clone(),
                })
                .await;
            // The owner answers once the room holds its lease, so the client counts as
            // in it (and hears if it moves) only from then: before, the room's lease
            // would look lost.
            let (opened, outcome) = match asked {
                Err(Unanswered::NotHeard) => {
                    self.inner.owning_nodes.remove(&owner);
                    continue;
                }
                // A node that turns out to hold no rooms: the next one may.
                Ok(Err(refusal)) if refusal.code == ErrorCode::RoomUnreachable => continue,
                Ok(Err(refusal)) => return Err(refusal),
                Ok(Ok(opened)) => (opened.unwrap_or_else(|| room.clone()), Ok(())),
                Err(Unanswered::Late) => (room.clone(), Err(opening_unanswered(&room))),
            };
            let remote = RemoteRoom::new(self.clone(), opened.clone(), owner);
            if seated {
                remote.enter(sub.conn);
            }
            return Ok(Opening {
                room: opened,
                link: RoomLink::Remote(remote),
                outcome,
            });
        }
        Err(no_room_holder())
    }
}

impl Relay {
    /// Opens `new_room` on this node (which holds rooms), named `id` when another node
    /// named it: the game's start is checked, then the room's lease taken, then the room
    /// made under the lease's token, its `creator` (if any) seated as it starts. Refused
    /// with `storage_unavailable` when the lease cannot be taken; a lease taken for a
    /// room then refused (the server is full) is given up at once.
    pub(crate) async fn open_here(
        &self,
        id: Option<RoomId>,
        new_room: NewRoom,
        creator: Option<Creator>,
    ) -> Result<RoomHandle, ClientError> {
        let inner = &self.inner;
        inner.lobby.check_start(new_room.game, &new_room.options)?;
        let id = id.unwrap_or_else(|| inner.lobby.fresh_id());
        // Counted as being taken until it is live, so that the keeper neither lets its
        // lease lapse nor gives it up as a closed room's meanwhile.
        let _taken = inner.taking.hold(&id);
        let fence = match inner.cluster.claim(&id).await {
            Ok(Some(fence)) => fence,
            held => {
                warn!(room = %id, ?held, "a new room's lease could not be taken; it is refused");
                return Err(ClientError::storage_unavailable());
            }
        };
        let created = inner.lobby.create_as(&id, fence, new_room, creator);
        if created.is_err()
            && let Err(error) = inner.cluster.release(&id).await
        {
            warn!(room = %id, %error, "could not give up the lease of a refused room; it runs out instead");
        }
        created
    }
}
