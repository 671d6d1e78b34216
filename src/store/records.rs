//! What the store keeps beside the rooms' records: a player, and the fencing token a
//! room writes under.

use parlor_room::{PlayerId, PlayerInfo};
use parlor_rules::GameKind;
use serde::Serialize;

/// The ownership token a room writes under. In a fleet every room has one owner node at
/// a time, and each new owner takes a higher token; the store keeps a game's token and
/// refuses a write under a lower one, so a node that lost a room can never write for it
/// again. A single server writes everything under [`Fence::SINGLE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Fence(pub(crate) i64);

impl Fence {
    /// The token of every write on a server that is not part of a fleet.
    pub(crate) const SINGLE: Fence = Fence(0);
}

/// An account of a site that signs its users in (`[auth]`): the issuer and subject of
/// its tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SiteIdentity {
    /// The token's `iss` (empty when the site's tokens name none).
    pub(crate) issuer: String,
    /// The token's `sub`: the account at that issuer.
    pub(crate) subject: String,
}

/// An operator's ban of a player: why, by whom, since when and until when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Ban {
    /// The player banned.
    pub(crate) player_id: PlayerId,
    /// Why, as the operator said it (shown to the player).
    pub(crate) reason: String,
    /// Who banned them, as the operator named themselves.
    pub(crate) banned_by: String,
    /// When, in ms since the Unix epoch.
    pub(crate) banned_at_ms: i64,
    /// When the ban ends, in ms since the Unix epoch; `None` for good.
    pub(crate) expires_at_ms: Option<i64>,
}

/// A registered player as the store knows them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct PlayerRecord {
    /// The player's public, stable id.
    pub(crate) player_id: PlayerId,
    /// The player's current display name.
    pub(crate) name: String,
    /// Whether the player is a bot account: it plays only through the Bot API.
    pub(crate) bot_account: bool,
}

/// A player's account: who, since when, whether a bot account, and their ratings.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AccountRecord {
    /// The player.
    pub(crate) player: PlayerRecord,
    /// When the player was first seen, in ms since the Unix epoch.
    pub(crate) created_at_ms: i64,
    /// When the player became a bot account, if they did.
    pub(crate) bot_since_ms: Option<i64>,
    /// The games a bot account takes challenges in (chess alone unless it said).
    pub(crate) bot_games: Vec<GameKind>,
    /// The player's rating in each game they have one in.
    pub(crate) ratings: Vec<GameRating>,
}

impl AccountRecord {
    /// The player as rooms know them: a bot account says so.
    pub(crate) fn player_info(&self) -> PlayerInfo {
        PlayerInfo {
            player_id: self.player.player_id.clone(),
            name: self.player.name.clone(),
            bot_account: self.bot_since_ms.is_some(),
        }
    }
}

/// A player's rating in one game.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct GameRating {
    /// The game.
    pub(crate) game: GameKind,
    /// The rating (Glicko-2, on the Glicko scale).
    pub(crate) rating: f64,
    /// Its deviation.
    pub(crate) deviation: f64,
    /// Rated games played.
    pub(crate) games: i64,
}

/// What asking to become a bot account came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BotUpgrade {
    /// The player is a bot account from now on.
    Upgraded,
    /// The player was one already.
    AlreadyBot,
    /// The player has played (or is playing) games as a person, so may not become one.
    HasPlayed,
    /// No player has that id.
    UnknownPlayer,
}
