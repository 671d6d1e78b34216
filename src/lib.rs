//! Parlor: a real-time multiplayer board-game server.
pub mod games;
pub mod store;
