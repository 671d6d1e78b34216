//! The rooms other nodes of a fleet list, as their news reaches this node, each with
//! the node that lists it, so that a node that stops or dies takes its rooms out of
//! this node's listings with it. The lobby lists them beside its own rooms (through its
//! `ListedElsewhere` trait), and what changes among them is told to its subscribers.

use std::collections::HashSet;
use std::sync::Arc;

use dashmap::DashMap;
use parlor_room::{NodeId, RoomId};

use crate::lobby::{ListedElsewhere, Lobby};
use crate::protocol::{LobbyChange, RoomSummary};
use crate::store::Fence;

/// The rooms other nodes list. Cloning it is cheap and shares them. Empty on a single
/// node.
#[derive(Clone, Debug, Default)]
pub(crate) struct RemoteListings {
    rooms: Arc<DashMap<RoomId, Listed>>,
}

/// A room another node lists.
#[derive(Clone, Debug)]
struct Listed {
    node: NodeId,
    /// The token the node holds the room under: a node that took the room over holds
    /// it under a higher one, and its news outranks the old node's.
    fence: Fence,
    summary: RoomSummary,
}

/// One room as a node of the fleet reports it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RoomNews {
    /// What happened to the room.
    pub(crate) change: LobbyChange,
    /// The token the node holds the room under.
    pub(crate) fence: Fence,
    /// The room as it is now (as it last was, when removed).
    pub(crate) summary: RoomSummary,
}

impl RemoteListings {
    /// Records what `node` says happened to a room; whether that changed anything here.
    /// News under a lower token than the room's listing is old news from a node that
    /// lost the room, and changes nothing; nor does a removal by a node that no longer
    /// lists the room (it moved to another node meanwhile).
    pub(crate) fn apply(&self, node: &NodeId, news: &RoomNews) -> bool {
        let room = &news.summary.room;
        match news.change {
            LobbyChange::Added | LobbyChange::Changed => {
                if self
                    .rooms
                    .get(room)
                    .is_some_and(|listed| listed.fence > news.fence)
                {
                    return false;
                }
                self.rooms.insert(
                    room.clone(),
                    Listed {
                        node: node.clone(),
                        fence: news.fence,
                        summary: news.summary.clone(),
                    },
                );
                true
            }
            LobbyChange::Removed => self
                .rooms
                .remove_if(room, |_, listed| {
                    listed.node == *node && listed.fence <= news.fence
                })
                .is_some(),
        }
    }

    /// How another node lists the room `id` under a token above `fence`, if one does; a
    /// listing under a lower token is forgotten (this node held the room since).
    pub(crate) fn after(&self, id: &RoomId, fence: Fence) -> Option<RoomSummary> {
        self.rooms.remove_if(id, |_, listed| {
            listed.fence <= fence && fence != Fence::SINGLE
        });
        self.rooms
            .get(id)
            .filter(|listed| listed.fence > fence)
            .map(|listed| listed.summary.clone())
    }

    /// Forgets every room `node` lists; returns them as they last were.
    pub(crate) fn forget(&self, node: &NodeId) -> Vec<RoomSummary> {
        let mut gone = Vec::new();
        self.rooms.retain(|_, listed| {
            let keep = listed.node != *node;
            if !keep {
                gone.push(listed.summary.clone());
            }
            keep
        });
        gone
    }

    /// Replaces what `node` lists with `rooms` (each with its token); returns the
    /// changes that makes.
    pub(crate) fn replace(
        &self,
        node: &NodeId,
        rooms: Vec<(Fence, RoomSummary)>,
    ) -> Vec<(LobbyChange, RoomSummary)> {
        let kept: HashSet<&RoomId> = rooms.iter().map(|(_, room)| &room.room).collect();
        let mut changes: Vec<(LobbyChange, RoomSummary)> = Vec::new();
        self.rooms.retain(|id, listed| {
            let keep = listed.node != *node || kept.contains(id);
            if !keep {
                changes.push((LobbyChange::Removed, listed.summary.clone()));
            }
            keep
        });
        for (fence, room) in rooms {
            let change = match self.rooms.get(&room.room) {
                Some(listed) if listed.summary == room && listed.node == *node => continue,
                Some(_) => LobbyChange::Changed,
                None => LobbyChange::Added,
            };
            let news = RoomNews {
                change,
                fence,
                summary: room,
            };
            if self.apply(node, &news) {
                changes.push((change, news.summary));
            }
        }
        changes
    }

    /// Takes in what the fleet's node `node` says happened to one of the rooms it lists,
    /// and tells `lobby`'s subscribers (unless the room is `lobby`'s own).
    pub(crate) fn hear(&self, lobby: &Lobby, node: &NodeId, news: &RoomNews) {
        if self.apply(node, news) && !lobby.has(&news.summary.room) {
            lobby.announce_elsewhere(news.change, &news.summary);
        }
    }

    /// Replaces what this node knows of the rooms `node` lists with `rooms` (each with
    /// the token `node` holds it under), and tells `lobby`'s subscribers what that
    /// changed.
    pub(crate) fn hear_all(&self, lobby: &Lobby, node: &NodeId, rooms: Vec<(Fence, RoomSummary)>) {
        for (change, summary) in self.replace(node, rooms) {
            if !lobby.has(&summary.room) {
                lobby.announce_elsewhere(change, &summary);
            }
        }
    }

    /// Takes every room `node` listed out of the listings (it stopped, or has not been
    /// heard from for a lease), and tells `lobby`'s subscribers.
    pub(crate) fn forget_node(&self, lobby: &Lobby, node: &NodeId) {
        for summary in self.forget(node) {
            if !lobby.has(&summary.room) {
                lobby.announce_elsewhere(LobbyChange::Removed, &summary);
            }
        }
    }

    /// The nodes that list at least one room here.
    pub(crate) fn nodes(&self) -> HashSet<NodeId> {
        self.rooms.iter().map(|entry| entry.node.clone()).collect()
    }
}

impl ListedElsewhere for RemoteListings {
    fn summaries(&self, is_here: &dyn Fn(&RoomId) -> bool) -> Vec<RoomSummary> {
        self.rooms
            .iter()
            .filter(|entry| !is_here(entry.key()))
            .map(|entry| entry.summary.clone())
            .collect()
    }

    fn after(&self, id: &RoomId, fence: Fence) -> Option<RoomSummary> {
        RemoteListings::after(self, id, fence)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Status, TimeControl};
    use parlor_rules::GameKind;

    fn room(id: &str, moves: usize) -> RoomSummary {
        RoomSummary {
            room: RoomId::from(id),
            game: GameKind::Chess,
            status: Status::Playing,
            seats: Vec::new().into(),
            spectators: 0,
            moves,
            time_control: TimeControl::default(),
            created_at_ms: 1,
        }
    }

    fn node(name: &str) -> NodeId {
        NodeId::from(name)
    }

    fn news(change: LobbyChange, fence: i64, summary: RoomSummary) -> RoomNews {
        RoomNews {
            change,
            fence: Fence(fence),
            summary,
        }
    }

    fn ids(listings: &RemoteListings) -> Vec<RoomId> {
        let mut ids: Vec<RoomId> = listings
            .summaries(&|_| false)
            .into_iter()
            .map(|summary| summary.room)
            .collect();
        ids.sort();
        ids
    }

    #[test]
    fn a_room_that_moved_is_not_removed_or_changed_by_its_old_node() {
        let listings = RemoteListings::default();
        listings.apply(&node("a"), &news(LobbyChange::Added, 1, room("r1", 0)));
        // Node a lost the room; node b took it over under a higher token before a's
        // last news arrived.
        listings.apply(&node("b"), &news(LobbyChange::Changed, 2, room("r1", 3)));
        assert!(!listings.apply(&node("a"), &news(LobbyChange::Changed, 1, room("r1", 1))));
        assert!(!listings.apply(&node("a"), &news(LobbyChange::Removed, 1, room("r1", 1))));
        assert_eq!(
            listings.after(&RoomId::from("r1"), Fence(1)),
            Some(room("r1", 3))
        );
        assert_eq!(
            listings.after(&RoomId::from("r1"), Fence(2)),
            None,
            "not above"
        );
        // The room ended on a node that held it under a higher token: b's listing is
        // over.
        listings.apply(&node("b"), &news(LobbyChange::Changed, 2, room("r1", 3)));
        assert_eq!(listings.after(&RoomId::from("r1"), Fence(3)), None);
        assert!(ids(&listings).is_empty());
        listings.apply(&node("b"), &news(LobbyChange::Changed, 2, room("r1", 3)));
        assert!(listings.forget(&node("a")).is_empty());
        assert_eq!(listings.forget(&node("b")), [room("r1", 3)]);
        assert!(ids(&listings).is_empty());
    }

    #[test]
    fn replacing_a_nodes_rooms_says_what_changed() {
        let listings = RemoteListings::default();
        listings.apply(&node("a"), &news(LobbyChange::Added, 1, room("r1", 0)));
        listings.apply(&node("a"), &news(LobbyChange::Added, 1, room("r2", 0)));
        listings.apply(&node("b"), &news(LobbyChange::Added, 1, room("r9", 0)));
        let rooms = |list: &[(&str, usize)]| -> Vec<(Fence, RoomSummary)> {
            list.iter()
                .map(|(id, moves)| (Fence(1), room(id, *moves)))
                .collect()
        };
        let changes = listings.replace(&node("a"), rooms(&[("r2", 0), ("r1", 5), ("r3", 0)]));
        assert_eq!(
            changes,
            [
                (LobbyChange::Changed, room("r1", 5)),
                (LobbyChange::Added, room("r3", 0)),
            ]
        );
        let changes = listings.replace(&node("a"), rooms(&[("r3", 0)]));
        assert_eq!(changes.len(), 2);
        assert!(
            changes
                .iter()
                .all(|(change, _)| *change == LobbyChange::Removed)
        );
        assert_eq!(ids(&listings), ["r3", "r9"]);
        assert_eq!(listings.nodes(), HashSet::from([node("a"), node("b")]));
        assert_eq!(
            listings.summaries(&|id| *id == "r9"),
            [room("r3", 0)],
            "a room this node holds is listed as its own"
        );
    }
}
