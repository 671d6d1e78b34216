//! This node's live connections as an operator sees them (`GET /api/admin/connections`):
//! each one's address, player and rooms; and the way a player's connections are closed
//! with a word to each (a ban, on whichever node they are; an upgrade to a bot account).
//!
//! Sessions keep their own entry up to date; the operator's routes and the fleet's news
//! of bans read it and close connections through it, never reaching into a session.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;

use dashmap::DashMap;
use serde::Serialize;

use parlor_room::{ConnId, PlayerId, RoomId};

use crate::alerts::Alerts;
use crate::protocol::ClientError;

/// This node's live connections. Cloning it is cheap and shares the table.
#[derive(Clone, Default)]
pub(crate) struct LiveConnections {
    entries: Arc<DashMap<ConnId, Entry>>,
}

/// One live connection.
struct Entry {
    address: IpAddr,
    player: Option<PlayerId>,
    rooms: Vec<RoomId>,
    /// Kicked to close the connection (shared with its rooms, which kick it when the
    /// connection cannot keep up), and told of the server's shutdown.
    close: Alerts,
    /// Why the connection is being closed for its player: the error it is sent last.
    closing: Option<ClientError>,
}

/// The connections of one client address, as `GET /api/admin/connections` lists them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct AddressView {
    /// The client address.
    pub(crate) address: IpAddr,
    /// How many connections it has open.
    pub(crate) connections: usize,
    /// The players those connections said hello as, sorted.
    pub(crate) players: Vec<PlayerId>,
    /// The rooms those connections play or watch in, sorted.
    pub(crate) rooms: Vec<RoomId>,
}

impl LiveConnections {
    /// Counts connection `conn` from `address` in, closed by kicking `close`.
    pub(crate) fn open(&self, conn: ConnId, address: IpAddr, close: Alerts) {
        self.entries.insert(
            conn,
            Entry {
                address,
                player: None,
                rooms: Vec::new(),
                close,
                closing: None,
            },
        );
    }

    /// Records who connection `conn` speaks for and which rooms it is in now.
    pub(crate) fn describe<'r>(
        &self,
        conn: ConnId,
        player: Option<&PlayerId>,
        rooms: impl Iterator<Item = &'r RoomId>,
    ) {
        if let Some(mut entry) = self.entries.get_mut(&conn) {
            entry.player = player.cloned();
            entry.rooms = rooms.cloned().collect();
        }
    }

    /// Forgets a closed connection.
    pub(crate) fn close(&self, conn: ConnId) {
        self.entries.remove(&conn);
    }

    /// Closes every connection of `player`, each sent `why` last; how many were not
    /// being closed for their player already.
    pub(crate) fn close_player(&self, player: &PlayerId, why: &ClientError) -> usize {
        let mut closed = 0;
        for mut entry in self.entries.iter_mut() {
            if entry.player.as_ref() == Some(player) && entry.closing.is_none() {
                entry.closing = Some(why.clone());
                entry.close.kick();
                closed += 1;
            }
        }
        closed
    }

    /// Tells every live connection that the server is shutting down.
    pub(crate) fn shut_down_all(&self) {
        for entry in self.entries.iter() {
            entry.close.shut_down();
        }
    }

    /// The error a connection closed for its player is sent, if it was closed for one.
    pub(crate) fn closing_error(&self, conn: ConnId) -> Option<ClientError> {
        self.entries.get(&conn)?.closing.clone()
    }

    /// The players with a connection open here.
    pub(crate) fn players(&self) -> Vec<PlayerId> {
        let mut players: Vec<PlayerId> = self
            .entries
            .iter()
            .filter_map(|entry| entry.player.clone())
            .collect();
        players.sort();
        players.dedup();
        players
    }

    /// Every address with a connection open, with its connections, players and rooms.
    pub(crate) fn by_address(&self) -> Vec<AddressView> {
        let mut views: BTreeMap<IpAddr, AddressView> = BTreeMap::new();
        for entry in self.entries.iter() {
            let view = views.entry(entry.address).or_insert_with(|| AddressView {
                address: entry.address,
                connections: 0,
                players: Vec::new(),
                rooms: Vec::new(),
            });
            view.connections += 1;
            view.players.extend(entry.player.clone());
            view.rooms.extend(entry.rooms.iter().cloned());
        }
        views
            .into_values()
            .map(|mut view| {
                view.players.sort();
                view.players.dedup();
                view.rooms.sort();
                view.rooms.dedup();
                view
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ErrorCode;

    #[test]
    fn addresses_list_their_connections_players_and_rooms() {
        let live = LiveConnections::default();
        let (a, b) = (IpAddr::from([10, 0, 0, 1]), IpAddr::from([10, 0, 0, 2]));
        live.open(1, a, Alerts::default());
        live.open(2, a, Alerts::default());
        live.open(3, b, Alerts::default());
        let room = RoomId::from("r1".to_owned());
        live.describe(1, Some(&PlayerId::from("p1")), [&room].into_iter());
        live.describe(2, Some(&PlayerId::from("p1")), std::iter::empty());
        let views = live.by_address();
        assert_eq!(views.len(), 2);
        assert_eq!(views[0].connections, 2);
        assert_eq!(views[0].players, vec![PlayerId::from("p1")]);
        assert_eq!(views[0].rooms, vec![room]);
        assert_eq!(views[1].connections, 1);
        assert!(views[1].players.is_empty());
        live.close(3);
        assert_eq!(live.by_address().len(), 1);
    }

    #[test]
    fn a_ban_closes_every_connection_of_the_player_and_no_other() {
        let live = LiveConnections::default();
        let address = IpAddr::from([10, 0, 0, 1]);
        let alerts: Vec<Alerts> = (0..3).map(|_| Alerts::default()).collect();
        for (conn, alert) in (1..).zip(&alerts) {
            live.open(conn, address, alert.clone());
        }
        live.describe(1, Some(&PlayerId::from("p1")), std::iter::empty());
        live.describe(2, Some(&PlayerId::from("p2")), std::iter::empty());
        live.describe(3, Some(&PlayerId::from("p1")), std::iter::empty());
        let spam = ClientError::new(ErrorCode::Banned, "spam");
        assert_eq!(live.close_player(&PlayerId::from("p1"), &spam), 2);
        assert_eq!(
            live.close_player(&PlayerId::from("p1"), &spam),
            0,
            "closed once"
        );
        assert!(alerts[0].is_kicked() && alerts[2].is_kicked());
        assert!(!alerts[1].is_kicked());
        assert_eq!(live.closing_error(1), Some(spam));
        assert_eq!(live.closing_error(2), None);
    }
}
