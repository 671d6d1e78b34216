//! The rooms other nodes of a fleet list, as their news reaches this node, each with
//! the node that lists it, so that a node that stops or dies takes its rooms out of
//! this node's listings with it.

use std::collections::HashSet;
use std::sync::Arc;

use dashmap::DashMap;

use crate::protocol::{LobbyChange, RoomSummary};

/// The rooms other nodes list. Cloning it is cheap and shares them. Empty on a single
/// node.
#[derive(Clone, Debug, Default)]
pub(crate) struct RemoteListings {
    rooms: Arc<DashMap<String, Listed>>,
}

/// A room another node lists.
#[derive(Clone, Debug)]
struct Listed {
    node: Arc<str>,
    summary: RoomSummary,
}

impl RemoteListings {
    /// Records what `node` says happened to `summary`'s room; whether that changed
    /// anything here (a removal by a node that no longer lists the room changes nothing:
    /// the room has moved to another node meanwhile).
    pub(crate) fn apply(&self, node: &str, change: LobbyChange, summary: &RoomSummary) -> bool {
        match change {
            LobbyChange::Added | LobbyChange::Changed => {
                self.rooms.insert(
                    summary.room.clone(),
                    Listed {
                        node: Arc::from(node),
                        summary: summary.clone(),
                    },
                );
                true
            }
            LobbyChange::Removed => self
                .rooms
                .remove_if(&summary.room, |_, listed| &*listed.node == node)
                .is_some(),
        }
    }

    /// Forgets every room `node` lists; returns them as they last were.
    pub(crate) fn forget(&self, node: &str) -> Vec<RoomSummary> {
        let mut gone = Vec::new();
        self.rooms.retain(|_, listed| {
            let keep = &*listed.node != node;
            if !keep {
                gone.push(listed.summary.clone());
            }
            keep
        });
        gone
    }

    /// Replaces what `node` lists with `rooms`; returns the changes that makes.
    pub(crate) fn replace(
        &self,
        node: &str,
        rooms: Vec<RoomSummary>,
    ) -> Vec<(LobbyChange, RoomSummary)> {
        let kept: HashSet<&str> = rooms.iter().map(|room| room.room.as_str()).collect();
        let mut changes: Vec<(LobbyChange, RoomSummary)> = Vec::new();
        self.rooms.retain(|id, listed| {
            let keep = &*listed.node != node || kept.contains(id.as_str());
            if !keep {
                changes.push((LobbyChange::Removed, listed.summary.clone()));
            }
            keep
        });
        for room in rooms {
            let change = match self.rooms.get(&room.room) {
                Some(listed) if listed.summary == room && &*listed.node == node => continue,
                Some(_) => LobbyChange::Changed,
                None => LobbyChange::Added,
            };
            self.apply(node, change, &room);
            changes.push((change, room));
        }
        changes
    }

    /// The nodes that list at least one room here.
    pub(crate) fn nodes(&self) -> HashSet<String> {
        self.rooms
            .iter()
            .map(|entry| entry.node.to_string())
            .collect()
    }

    /// Every room other nodes list, except those `is_local` says this node holds (a room
    /// this node took over before the news of its old node leaving arrived).
    pub(crate) fn summaries(&self, is_local: impl Fn(&str) -> bool) -> Vec<RoomSummary> {
        self.rooms
            .iter()
            .filter(|entry| !is_local(entry.key()))
            .map(|entry| entry.summary.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Status, TimeControl};
    use parlor_rules::GameKind;

    fn room(id: &str, moves: usize) -> RoomSummary {
        RoomSummary {
            room: id.to_owned(),
            game: GameKind::Chess,
            status: Status::Playing,
            seats: Vec::new(),
            spectators: 0,
            moves,
            time_control: TimeControl::default(),
            created_at_ms: 1,
        }
    }

    fn ids(listings: &RemoteListings) -> Vec<String> {
        let mut ids: Vec<String> = listings
            .summaries(|_| false)
            .into_iter()
            .map(|summary| summary.room)
            .collect();
        ids.sort();
        ids
    }

    #[test]
    fn a_room_that_moved_is_not_removed_by_its_old_node() {
        let listings = RemoteListings::default();
        listings.apply("a", LobbyChange::Added, &room("r1", 0));
        // Node a died; node b took the room over before a's removal arrived.
        listings.apply("b", LobbyChange::Changed, &room("r1", 3));
        assert!(!listings.apply("a", LobbyChange::Removed, &room("r1", 0)));
        assert_eq!(ids(&listings), ["r1"]);
        assert!(listings.forget("a").is_empty());
        assert_eq!(listings.forget("b"), [room("r1", 3)]);
        assert!(ids(&listings).is_empty());
    }

    #[test]
    fn replacing_a_nodes_rooms_says_what_changed() {
        let listings = RemoteListings::default();
        listings.apply("a", LobbyChange::Added, &room("r1", 0));
        listings.apply("a", LobbyChange::Added, &room("r2", 0));
        listings.apply("b", LobbyChange::Added, &room("r9", 0));
        let changes = listings.replace("a", vec![room("r2", 0), room("r1", 5), room("r3", 0)]);
        assert_eq!(
            changes,
            [
                (LobbyChange::Changed, room("r1", 5)),
                (LobbyChange::Added, room("r3", 0)),
            ]
        );
        let changes = listings.replace("a", vec![room("r3", 0)]);
        assert_eq!(changes.len(), 2);
        assert!(
            changes
                .iter()
                .all(|(change, _)| *change == LobbyChange::Removed)
        );
        assert_eq!(ids(&listings), ["r3", "r9"]);
        assert_eq!(
            listings.nodes(),
            HashSet::from(["a".to_owned(), "b".to_owned()])
        );
        assert_eq!(
            listings.summaries(|id| id == "r9"),
            [room("r3", 0)],
            "a room this node holds is listed as its own"
        );
    }
}
