//! The rooms a connection is in that have moved to another node of a fleet (or stopped
//! here because another node holds them now), told by whoever finds out (the room as it
//! stops, the relay when an owner changes or Redis's messages were lost) to the
//! connection's session, which puts the connection back into each of them wherever it
//! is now.

use std::sync::{Arc, Mutex};

use tokio::sync::Notify;
use tokio::sync::futures::Notified;

use parlor_room::RoomId;

/// The moved rooms of one connection, and the signal that wakes its session. Cloning it
/// is cheap and shares both.
#[derive(Clone, Debug, Default)]
pub(crate) struct MovedRooms(Arc<Inner>);

#[derive(Debug, Default)]
struct Inner {
    rooms: Mutex<Vec<RoomId>>,
    told: Notify,
}

impl MovedRooms {
    /// Tells the connection that `room` has moved.
    pub(crate) fn tell(&self, room: &RoomId) {
        if let Ok(mut rooms) = self.0.rooms.lock()
            && !rooms.contains(room)
        {
            rooms.push(room.clone());
        }
        // Kept as a permit when nobody waits yet: the next wait ends at once.
        self.0.told.notify_one();
    }

    /// The rooms told since the last call, in the order they were first told.
    pub(crate) fn take(&self) -> Vec<RoomId> {
        self.0
            .rooms
            .lock()
            .map(|mut rooms| std::mem::take(&mut *rooms))
            .unwrap_or_default()
    }

    /// Ends when a room has been told (at once if one was told before it is awaited).
    pub(crate) fn told(&self) -> Notified<'_> {
        self.0.told.notified()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_room_told_before_anyone_waits_is_heard_once() {
        let moved = MovedRooms::default();
        let (a, b) = (RoomId::from("a"), RoomId::from("b"));
        moved.tell(&a);
        moved.tell(&b);
        moved.tell(&a);
        moved.clone().told().await;
        assert_eq!(moved.take(), [a, b]);
        assert!(moved.take().is_empty());
    }
}
