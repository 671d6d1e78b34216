//! Parlor: a real-time multiplayer board-game server.
pub mod bots;
pub mod catalog;
pub mod games;
pub mod scoring;
pub mod store;
