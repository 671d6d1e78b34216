//! `[limits]`: what one client, one address or the whole server may ask for, so that no
//! stranger can stall the rooms others play in. Each limit is documented in
//! `config.toml` and docs/RELIABILITY.md; 0 turns a limit off.

use serde::{Deserialize, Serialize};

/// `[limits]`: per-connection budgets, per-address quotas and server-wide caps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LimitsConfig {
    /// Messages one connection may send per second, sustained (0: no limit).
    pub messages_per_sec: u32,
    /// Messages one connection may send in a burst above the sustained rate.
    pub messages_burst: u32,
    /// A connection whose messages are refused as `rate_limited` this many times in a
    /// row is closed with code 1008 (0: never closed for it).
    pub close_after_refusals: u32,
    /// WebSocket connections open at once from one address (0: no limit).
    pub connections_per_ip: u32,
    /// Rooms one connection may create per minute (0: no limit).
    pub rooms_per_minute_per_connection: u32,
    /// Rooms all connections from one address may create per minute (0: no limit).
    pub rooms_per_minute_per_ip: u32,
    /// New players (first `hello` of a name) one address may make per minute (0: no
    /// limit).
    pub players_per_minute_per_ip: u32,
    /// Live rooms on the server at once (0: no limit).
    pub max_rooms: u32,
    /// Spectators one room may have at once (0: no limit).
    pub spectators_per_room: u32,
    /// Chat lines one connection may send per minute, sustained (0: no limit).
    pub chat_lines_per_minute: u32,
    /// Chat lines one connection may send at once before the sustained rate applies.
    pub chat_burst: u32,
    /// A lobby subscriber gets at most one batch of room changes this often, in
    /// milliseconds: changes to the same room in between are merged.
    pub lobby_flush_ms: u64,
    /// The most rooms `GET /api/rooms` returns in one page (and its default page size).
    pub rooms_page_size: u32,
    /// The most games one bot account plays at once (0: no limit); a challenge beyond
    /// is declined for it (`tooMany`).
    pub bot_games_at_once: u32,
    /// Bot API requests one player may make per minute, all of which may come at once,
    /// but for their games' moves, chat and streams, never refused for their rate (0: no
    /// limit); more are answered 429.
    pub bot_requests_per_minute: u32,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        Self {
            messages_per_sec: 20,
            messages_burst: 100,
            close_after_refusals: 50,
            connections_per_ip: 200,
            rooms_per_minute_per_connection: 30,
            rooms_per_minute_per_ip: 120,
            players_per_minute_per_ip: 30,
            max_rooms: 20_000,
            spectators_per_room: 1_000,
            chat_lines_per_minute: 12,
            chat_burst: 3,
            lobby_flush_ms: 250,
            rooms_page_size: 100,
            bot_games_at_once: 8,
            bot_requests_per_minute: 120,
        }
    }
}

impl LimitsConfig {
    /// Every limit off: for load generators and tests that open thousands of
    /// connections from one address.
    pub fn unlimited() -> Self {
        Self {
            messages_per_sec: 0,
            messages_burst: 0,
            close_after_refusals: 0,
            connections_per_ip: 0,
            rooms_per_minute_per_connection: 0,
            rooms_per_minute_per_ip: 0,
            players_per_minute_per_ip: 0,
            max_rooms: 0,
            spectators_per_room: 0,
            chat_lines_per_minute: 0,
            bot_games_at_once: 0,
            bot_requests_per_minute: 0,
            ..Self::default()
        }
    }
}
