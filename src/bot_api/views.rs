//! Accounts as Lichess shows them (`GET /api/account`, `/api/user/{name}`): an id, a
//! username, `title: "BOT"` for bot accounts, and `perfs`, the ratings `lichess-bot`
//! reads by speed (chess) or by game.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::store::{AccountRecord, GameRating};
use parlor_room::ratings::{Rating, is_provisional};
use parlor_rules::GameKind;

/// Lichess's speed categories, under each of which a chess rating is read. Parlor rates
/// chess once, whatever the clock, so every speed shows that one rating.
const CHESS_SPEEDS: [&str; 6] = [
    "ultraBullet",
    "bullet",
    "blitz",
    "rapid",
    "classical",
    "correspondence",
];

/// An account as Lichess shows one.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct AccountView {
    /// The player's id (Parlor's; stable, unlike the name).
    id: String,
    /// The player's name.
    username: String,
    /// `"BOT"` for a bot account; absent for a person.
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'static str>,
    /// When the player was first seen, ms since the Unix epoch.
    created_at: i64,
    /// The player's ratings: chess under each speed, the other games under their ids.
    perfs: BTreeMap<&'static str, Perf>,
    /// Never: Parlor closes no accounts.
    disabled: bool,
    /// A bot account's games, which it takes challenges in; absent for a person.
    #[serde(skip_serializing_if = "Option::is_none")]
    games: Option<Vec<GameKind>>,
}

/// A player's rating in one category, as Lichess shows it.
#[derive(Clone, Copy, Serialize)]
pub(super) struct Perf {
    /// Rated games played.
    games: i64,
    /// The rating, rounded.
    rating: i64,
    /// Its deviation, rounded.
    rd: i64,
    /// Its progress over the last games: not tracked, so 0.
    prog: i64,
    /// Whether it is still provisional.
    prov: bool,
}

impl Perf {
    fn of(rating: f64, deviation: f64, games: i64) -> Perf {
        Perf {
            games,
            rating: rating.round() as i64,
            rd: deviation.round() as i64,
            prog: 0,
            prov: is_provisional(deviation),
        }
    }
}

impl AccountView {
    /// How Lichess would show `account`.
    pub(super) fn of(account: &AccountRecord) -> AccountView {
        let fresh = Rating::default();
        let perf = |game: GameKind| {
            let rated = account.ratings.iter().find(|rating| rating.game == game);
            rated.map_or(Perf::of(fresh.rating, fresh.deviation, 0), |rated| {
                let GameRating {
                    rating,
                    deviation,
                    games,
                    ..
                } = *rated;
                Perf::of(rating, deviation, games)
            })
        };
        let mut perfs = BTreeMap::new();
        for game in GameKind::ALL.iter().copied() {
            if game == GameKind::Chess {
                for speed in CHESS_SPEEDS {
                    perfs.insert(speed, perf(game));
                }
            } else {
                perfs.insert(game.as_str(), perf(game));
            }
        }
        AccountView {
            id: account.player.player_id.to_string(),
            username: account.player.name.clone(),
            title: account.bot_since_ms.map(|_| "BOT"),
            created_at: account.created_at_ms,
            perfs,
            disabled: false,
            games: account.bot_since_ms.map(|_| account.bot_games.clone()),
        }
    }
}
