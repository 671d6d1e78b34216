//! One connection's state as its session and the dispatch of its messages share it:
//! who it speaks for, the rooms it is in (and which of them it watches, and which are
//! moving between nodes), its lobby feed and its budgets.

use foldhash::HashSet;
use std::net::IpAddr;
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::mpsc;

use super::reroute::Moving;
use super::room_links::RoomLinks;
use crate::AppState;
use crate::bot_api::events::BotEvent;
use crate::limits::Budget;
use crate::lobby::LobbySubscription;
use crate::players::Identity;
use crate::protocol::ServerMsg;
use crate::room::{ConnId, Subscriber};
use parlor_room::RoomId;

/// One connection's state.
pub(super) struct Connection {
    pub(super) conn: ConnId,
    pub(super) app: Arc<AppState>,
    pub(super) identity: Option<Identity>,
    /// Rooms this connection plays or watches in, told when it closes.
    pub(super) rooms: RoomLinks,
    /// Which of them it watches (rather than plays in).
    pub(super) watching: HashSet<RoomId>,
    /// Which of them moved to another node of the fleet and have not taken the
    /// connection back yet.
    pub(super) moving: Moving,
    pub(super) subscriber: Subscriber,
    /// The lobby feed, while subscribed. Boxed: few connections follow the lobby, and
    /// every other one would keep room for it.
    pub(super) lobby: Option<Box<LobbySubscription>>,
    /// News of its player's challenges to bot accounts, once it has made one.
    pub(super) bot_events: Option<mpsc::Receiver<BotEvent>>,
    /// The challenges it made, taken back as it closes if still unanswered.
    pub(super) challenges_sent: Vec<RoomId>,
    /// The client's address, which quotas count against.
    pub(super) address: IpAddr,
    /// Rooms this connection may still create this minute.
    pub(super) room_budget: Budget,
    /// Chat lines this connection may still send (`limits.chat_lines_per_minute`).
    pub(super) chat_budget: Budget,
    /// The client has sent a `ping` message: it keeps a heartbeat, so a shorter silence
    /// (`server.heartbeat_timeout_secs`) means it is gone.
    pub(super) on_heartbeat: bool,
    /// What the operator's list of live connections was last told: whether the
    /// connection had said hello, and in how many rooms it was.
    pub(super) described: (bool, usize),
}

impl Connection {
    /// Tells the operator's list of live connections who this connection speaks for and
    /// which rooms it is in, if either changed since it last told (a message changes
    /// at most one room).
    pub(super) fn describe_to_operator(&mut self) {
        let now = (self.identity.is_some(), self.rooms.len());
        if now != self.described {
            self.described = now;
            let player = self.identity.as_ref().map(|identity| &identity.player_id);
            self.app.live.describe(self.conn, player, self.rooms.ids());
        }
    }

    /// A `lobby` snapshot for this connection's subscription.
    pub(super) fn lobby_snapshot(&self, reference: Option<Value>) -> ServerMsg {
        let game = self.lobby.as_deref().and_then(LobbySubscription::game);
        ServerMsg::Lobby {
            rooms: self.app.lobby.list_game(game),
            game,
            reference,
        }
    }
}
