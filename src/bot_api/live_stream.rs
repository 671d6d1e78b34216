//! A Bot API stream as one of this node's live connections: listed to the operator
//! (`GET /api/admin/connections`) with its player and room, counted as the player being
//! online, and closed when the operator bans the player (or, for a game stream, when
//! its room drops it for not keeping up).

use actix_web::HttpRequest;

use crate::AppState;
use crate::limits::client_address;
use crate::room::{Alerts, ConnId};
use parlor_room::{PlayerId, RoomId};

/// A stream's place among the live connections, given up when it is dropped.
pub(super) struct LiveStream {
    conn: ConnId,
    live: crate::live::LiveConnections,
    /// Kicked when the stream must end.
    pub(super) close: Alerts,
}

impl LiveStream {
    /// Counts connection `conn`, `player`'s stream (of `room`, for a game stream) opened
    /// by `request`, among the live connections; it ends when `close` is kicked.
    pub(super) fn open(
        state: &AppState,
        request: &HttpRequest,
        conn: ConnId,
        player: &PlayerId,
        room: Option<&RoomId>,
        close: Alerts,
    ) -> LiveStream {
        let address = client_address(request, &state.config.server.trusted_proxies);
        state.live.open(conn, address, close.clone());
        state.live.describe(conn, Some(player), room.into_iter());
        LiveStream {
            conn,
            live: state.live.clone(),
            close,
        }
    }
}

impl Drop for LiveStream {
    fn drop(&mut self) {
        self.live.close(self.conn);
    }
}
