//! The rooms one connection is in, by id. A connection is in a room or two at a time,
//! so they are a short list searched in order, sized to what it holds: a hash map's
//! smallest table has room for four, which every connection would carry.

use parlor_room::RoomId;

use crate::fleet::RoomLink;

/// The rooms a connection plays or watches in, each with the way to reach it (a
/// [`RoomLink`]; another type in tests).
pub(super) struct RoomLinks<L = RoomLink>(Vec<(RoomId, L)>);

impl<L> Default for RoomLinks<L> {
    fn default() -> Self {
        RoomLinks(Vec::new())
    }
}

impl<L> RoomLinks<L> {
    /// Notes that the connection is in `room`, reached by `link` (replacing how it was
    /// reached, if it was already in it).
    pub(super) fn insert(&mut self, room: RoomId, link: L) {
        if let Some((_, known)) = self.0.iter_mut().find(|(known, _)| *known == room) {
            *known = link;
            return;
        }
        if self.0.is_empty() {
            self.0.reserve_exact(1);
        }
        self.0.push((room, link));
    }

    /// How to reach `room`, if the connection is in it.
    pub(super) fn get(&self, room: &RoomId) -> Option<&L> {
        self.0
            .iter()
            .find_map(|(known, link)| (known == room).then_some(link))
    }

    /// Whether the connection is in `room`.
    pub(super) fn contains(&self, room: &RoomId) -> bool {
        self.get(room).is_some()
    }

    /// Notes that the connection is no longer in `room`; once it is in none, it keeps
    /// nothing for them.
    pub(super) fn remove(&mut self, room: &RoomId) {
        self.0.retain(|(known, _)| known != room);
        if self.0.is_empty() {
            self.0 = Vec::new();
        }
    }

    /// How many rooms the connection is in.
    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    /// The rooms' ids.
    pub(super) fn ids(&self) -> impl Iterator<Item = &RoomId> {
        self.0.iter().map(|(room, _)| room)
    }

    /// The ways to reach the rooms.
    pub(super) fn links(&self) -> impl Iterator<Item = &L> {
        self.0.iter().map(|(_, link)| link)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn room(id: &str) -> RoomId {
        RoomId::from(id)
    }

    #[test]
    fn a_room_is_found_by_its_id_and_entered_once() {
        let mut links = RoomLinks::default();
        links.insert(room("a"), 1);
        links.insert(room("b"), 2);
        links.insert(room("a"), 3);
        assert_eq!(links.len(), 2);
        assert_eq!(links.get(&room("a")), Some(&3));
        assert!(links.contains(&room("b")));
        assert!(!links.contains(&room("c")));
        let ids: Vec<&str> = links.ids().map(RoomId::as_str).collect();
        assert_eq!(ids, ["a", "b"]);
        assert_eq!(links.links().copied().collect::<Vec<_>>(), [3, 2]);
    }

    #[test]
    fn a_connection_in_no_room_keeps_nothing_for_them() {
        let mut links = RoomLinks::default();
        links.insert(room("a"), 1);
        assert_eq!(links.0.capacity(), 1);
        links.remove(&room("b"));
        assert_eq!(links.len(), 1);
        links.remove(&room("a"));
        assert_eq!(links.len(), 0);
        assert_eq!(links.0.capacity(), 0);
    }
}
