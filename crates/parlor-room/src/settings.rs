//! What a room's rules read of the server's configuration, gathered once when the server
//! starts (`Config::room_settings` in the server) and shared by every room.

use std::time::Duration;

use parlor_rules::GameSettings;
use parlor_rules::bots::BotLevel;

use crate::options::Takeover;
use crate::scoring::ScoringConfig;

/// The settings every room plays under.
#[derive(Clone, Debug, PartialEq)]
pub struct RoomSettings {
    /// The games' rule settings (`[checkers]`, `[fox_geese]`), stored with each game.
    pub games: GameSettings,
    /// A finished room, or a waiting one with nobody in it, closes after this long
    /// (`rooms.idle_secs`).
    pub idle: Duration,
    /// How long an absent player keeps their seat (`rooms.reconnect_grace_secs`).
    pub reconnect_grace: Duration,
    /// The player present may claim the game (`claim_victory`, `claim_draw`) once their
    /// opponent has been away this long (`rooms.claim_after_secs`); at most
    /// `reconnect_grace`.
    pub claim_after: Duration,
    /// What happens to the seat then, unless the room's options say
    /// (`rooms.takeover`).
    pub takeover: Takeover,
    /// A game whose first moves are not made within this is aborted
    /// (`rooms.first_move_secs`).
    pub first_move: Duration,
    /// The longest chat line, in characters; 0 turns chat off (`rooms.chat_max_chars`).
    pub chat_max_chars: usize,
    /// Spectators one room may have at once; 0 for no limit
    /// (`limits.spectators_per_room`).
    pub spectators_per_room: u32,
    /// An open seat opposite a connected person gets a bot after this long
    /// (`bots.fill_after_secs`).
    pub fill_after: Duration,
    /// That bot's level (`bots.fill_level`).
    pub fill_level: BotLevel,
    /// A bot's move is not played sooner than this after the move before
    /// (`bots.min_delay_ms`).
    pub bot_min_delay: Duration,
    /// The score formula's parameters (`[scoring]`).
    pub scoring: ScoringConfig,
}
