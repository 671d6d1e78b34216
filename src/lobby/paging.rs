//! The room list: every listed room of this node and of the fleet, newest first, whole
//! or by game, and in pages that go on from a cursor (`GET /api/rooms`); and a
//! player's games going on here.

use serde::Serialize;

use super::Lobby;
use crate::protocol::RoomSummary;
use crate::store::Fence;
use parlor_room::views::Status;
use parlor_room::{PlayerId, RoomId};
use parlor_rules::GameKind;

impl Lobby {
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

    /// This node's live rooms, private ones included, with a game `player` holds a seat
    /// in and that has not finished, in no order.
    pub(crate) fn games_of(&self, player: &PlayerId) -> Vec<RoomSummary> {
        self.rooms
            .iter()
            .map(|entry| entry.summary())
            .filter(|summary| {
                summary.status != Status::Finished
                    && summary
                        .seats
                        .iter()
                        .any(|seat| seat.player_id.as_ref() == Some(player))
            })
            .collect()
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
}

/// The order of every room listing: newest first, then by id.
fn newest_first(a: &RoomSummary, b: &RoomSummary) -> std::cmp::Ordering {
    b.created_at_ms
        .cmp(&a.created_at_ms)
        .then(a.room.cmp(&b.room))
}

/// One page of the room list.
#[derive(Debug, Serialize, schemars::JsonSchema)]
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
