//! Reading every game of a chaos run back from the server's HTTP API: each move a
//! player saw acknowledged must be there as it saw it, and every stored clock must
//! charge its mover exactly the thinking time, never an outage.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Duration;

use futures_util::StreamExt;
use serde::{Deserialize, Serialize};

use crate::error::BenchError;

/// Games read back at once.
const READERS: usize = 16;

/// What reading the games back found.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Checked {
    /// Games read back.
    pub(crate) games: usize,
    /// Moves stored in them.
    pub(crate) moves: usize,
    /// Moves a player saw acknowledged that are not stored as it saw them.
    pub(crate) lost: usize,
    /// Stored moves whose clocks do not charge the mover exactly its thinking time.
    pub(crate) clocks_wrong: usize,
    /// Stored moves whose thinking time is as long as an outage (it would have been
    /// charged to the mover).
    pub(crate) over_an_outage: usize,
    /// Stored moves made across an outage (more than an outage after the move before).
    pub(crate) across_an_outage: usize,
    /// The longest thinking time stored, ms.
    pub(crate) longest_think_ms: u64,
    /// Games whose room did not come back after a restart although they were not
    /// finished (a lost game).
    pub(crate) ended_unfinished: usize,
}

#[derive(Deserialize)]
struct StoredGame {
    status: String,
    moves: Vec<StoredMove>,
    options: serde_json::Value,
}

#[derive(Deserialize)]
struct StoredMove {
    ply: u64,
    seat: usize,
    notation: String,
    played_at_ms: i64,
    think_ms: u64,
    clocks_ms: Option<[u64; 2]>,
}

/// Reads back every game in `acked` from the server at `http` and checks it.
pub(super) async fn check(
    http: &str,
    acked: &HashMap<String, BTreeMap<u64, String>>,
    ended: &HashSet<String>,
    outage: Duration,
) -> Result<Checked, BenchError> {
    let client = reqwest::Client::new();
    let games: HashSet<&String> = acked.keys().chain(ended).collect();
    let reads = futures_util::stream::iter(games)
        .map(|game_id| {
            let request = client.get(format!("{http}/api/games/{game_id}")).send();
            async move {
                let game = request
                    .await
                    .and_then(reqwest::Response::error_for_status)
                    .map_err(|e| BenchError::Http(format!("reading game {game_id}: {e}")))?
                    .json::<StoredGame>()
                    .await
                    .map_err(|e| BenchError::Http(format!("reading game {game_id}: {e}")))?;
                Ok::<_, BenchError>((game_id, game))
            }
        })
        .buffer_unordered(READERS)
        .collect::<Vec<_>>()
        .await;
    let mut checked = Checked::default();
    let outage_ms = u64::try_from(outage.as_millis()).unwrap_or(u64::MAX);
    for read in reads {
        let (game_id, game) = read?;
        checked.games += 1;
        checked.moves += game.moves.len();
        if ended.contains(game_id) && game.status != "finished" {
            checked.ended_unfinished += 1;
        }
        for (ply, text) in acked.get(game_id).into_iter().flatten() {
            let stored = usize::try_from(*ply)
                .ok()
                .and_then(|ply| game.moves.get(ply.wrapping_sub(1)));
            if stored.is_none_or(|stored| stored.notation != *text || stored.ply != *ply) {
                checked.lost += 1;
            }
        }
        let increment = game.options["time_control"]["increment_ms"]
            .as_u64()
            .unwrap_or(0);
        let base = game.options["time_control"]["base_ms"].as_u64();
        let mut before: Option<[u64; 2]> = base.map(|base| [base, base]);
        let mut played_before: Option<i64> = None;
        for stored in &game.moves {
            checked.longest_think_ms = checked.longest_think_ms.max(stored.think_ms);
            if played_before.is_some_and(|at| stored.played_at_ms - at >= outage_ms as i64) {
                checked.across_an_outage += 1;
            }
            let charged_right = match (before, stored.clocks_ms) {
                (Some(before), Some(after)) => {
                    let mover = stored.seat.min(1);
                    let mut expected = before;
                    expected[mover] = (before[mover] + increment).saturating_sub(stored.think_ms);
                    after == expected
                }
                _ => true,
            };
            if !charged_right {
                checked.clocks_wrong += 1;
            }
            if stored.think_ms >= outage_ms {
                checked.over_an_outage += 1;
            }
            before = stored.clocks_ms.or(before);
            played_before = Some(stored.played_at_ms);
        }
    }
    Ok(checked)
}
