//! What a client is told before the server closes its connection on its own account:
//! the server shutting down or restarting, or a room it is in moving to another node of
//! the fleet; each a `shutdown` message, then a close code and reason.

use actix_ws::CloseCode;

use crate::config::ServerConfig;
use crate::protocol::{ServerMsg, ShutdownReason};

/// What a client is told as the server shuts down: the `shutdown` message, then the
/// close code and reason. A restart (the default) closes with 1012, "service restart";
/// a stop that ends the games with 1001, "going away".
pub(super) fn shutdown_notice(server: &ServerConfig) -> (ServerMsg, CloseCode, &'static str) {
    let retry_after_ms = server.reconnect_after_ms;
    if server.end_games_on_shutdown {
        let notice = ServerMsg::Shutdown {
            reason: ShutdownReason::Stopping,
            message: "The server is stopping. Games in progress end here and are kept as interrupted; reconnect in a moment to play again.".to_owned(),
            retry_after_ms,
        };
        (notice, CloseCode::Away, "server shutting down")
    } else {
        let notice = ServerMsg::Shutdown {
            reason: ShutdownReason::Restarting,
            message: "The server is restarting. Your game is kept: reconnect in a moment, say hello with your token and join your seat again; the clocks stand still until the server is back.".to_owned(),
            retry_after_ms,
        };
        (notice, CloseCode::Restart, "server restarting")
    }
}

/// What a client in a room that moved to another node of the fleet is sent before its
/// connection is closed: reconnect (to any node) and rejoin, as after a restart.
pub(super) fn moved_notice(server: &ServerConfig) -> (ServerMsg, CloseCode, &'static str) {
    let notice = ServerMsg::Shutdown {
        reason: ShutdownReason::Restarting,
        message: "A room you are in has moved to another server of this site. Your game is kept: reconnect in a moment, say hello with your token and join your seat again.".to_owned(),
        retry_after_ms: server.reconnect_after_ms,
    };
    (notice, CloseCode::Restart, "room moved")
}
