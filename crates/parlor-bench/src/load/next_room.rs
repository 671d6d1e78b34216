//! How one room's players and spectators go from game to game: a rematch in the same
//! room, or (`--cycle newroom`, what a client following PROTOCOL.md §17 does for a new
//! opponent) a new room for every game, which the creator opens, the spectators watch
//! and the second player then joins, as the room's first game was set up.

use serde::Serialize;
use tokio::sync::watch;

/// How a room's connections go on to their next game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
pub(crate) enum Cycle {
    /// Every game in a new room: the creator leaves the finished room and creates the
    /// next, the spectators leave and watch it, then the second player leaves and joins.
    #[value(name = "newroom")]
    #[serde(rename = "newroom")]
    NewRoom,
    /// Both players ask for a rematch and play on in the same room, seats swapped.
    #[value(name = "rematch")]
    #[serde(rename = "rematch")]
    Rematch,
}

impl Cycle {
    /// The cycle's name, as on the command line.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Cycle::NewRoom => "newroom",
            Cycle::Rematch => "rematch",
        }
    }
}

/// The rooms one group of connections has played in, numbered from 0 (the room set up
/// before the load started), and how many spectators watch the newest.
pub(crate) struct NextRoom {
    /// The newest room: its number and id.
    room: watch::Sender<(u64, String)>,
    /// A room's number and how many of the group's spectators watch it.
    watching: watch::Sender<(u64, usize)>,
    /// The group's spectators.
    spectators: usize,
}

impl NextRoom {
    /// The group that set up the room `first` with `spectators` spectators watching.
    pub(crate) fn new(first: String, spectators: usize) -> NextRoom {
        NextRoom {
            room: watch::Sender::new((0, first)),
            watching: watch::Sender::new((0, spectators)),
            spectators,
        }
    }

    /// Watches for the next room the creator announces.
    pub(crate) fn follow(&self) -> watch::Receiver<(u64, String)> {
        self.room.subscribe()
    }

    /// The creator has opened the room `id`.
    pub(crate) fn opened(&self, id: String) {
        self.room.send_modify(|(number, room)| {
            *number += 1;
            *room = id;
        });
    }

    /// One more spectator watches the room `number`.
    pub(crate) fn watched(&self, number: u64) {
        self.watching.send_modify(|(newest, count)| {
            if *newest == number {
                *count += 1;
            } else {
                *newest = number;
                *count = 1;
            }
        });
    }

    /// Waits until every spectator of the group watches the room `number` (or a later
    /// one), so that the second player's joining starts a game they all see.
    pub(crate) async fn all_watching(&self, number: u64) {
        let spectators = self.spectators;
        let mut watching = self.watching.subscribe();
        // The sender lives as long as `self`: this wait ends or is cancelled.
        let _ = watching
            .wait_for(|(newest, count)| {
                spectators == 0 || *newest > number || (*newest == number && *count >= spectators)
            })
            .await;
    }
}
