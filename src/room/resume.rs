//! Resuming a stored, unfinished game as a live room: its options, its game as it
//! started and its records, rebuilt by the room's own rules and started as a task.

use std::sync::Arc;

use tokio::runtime::Handle as Runtime;
use tokio::task::JoinHandle;
use tokio_util::task::TaskTracker;

use parlor_room::machine::{RebuildError, Records};
use parlor_room::options::OptionError;
use parlor_room::{Now, RoomOptions, RoomState};

use super::{RoomContext, RoomHandle};
use crate::store::{Fence, StoredGame};

/// Why a stored game cannot be resumed (it is then marked interrupted).
#[derive(Debug, thiserror::Error)]
pub(crate) enum ResumeError {
    /// Its stored options are not a JSON object (Parlor never writes such options).
    #[error("its stored options are not a JSON object")]
    OptionsNotAnObject,
    /// Its stored options are not ones this server accepts.
    #[error("its stored options are refused: {0}")]
    Options(OptionError),
    /// Its stored rule settings are not ones this server knows.
    #[error("its stored rule settings are refused: {0}")]
    Rules(serde_json::Error),
    /// A live room already has its room id.
    #[error("a live room already has its room id")]
    RoomTaken,
    /// Its records do not replay.
    #[error(transparent)]
    Rebuild(#[from] RebuildError),
}

/// Rebuilds `stored` as a live room at `live`, its `seq` going on from `seq`, writing
/// under `fence`, and its seats showing `ratings`, and starts its task on `runtime`. The game is played under
/// the rule settings stored with it (the server's, for games stored before they were).
pub(crate) fn resume(
    stored: &StoredGame,
    ratings: [Option<f64>; 2],
    (seq, fence): (u64, Fence),
    live: Now,
    context: &Arc<RoomContext>,
    runtime: &Runtime,
    tracker: &TaskTracker,
) -> Result<(RoomHandle, JoinHandle<()>), ResumeError> {
    let serde_json::Value::Object(options) = &stored.options else {
        return Err(ResumeError::OptionsNotAnObject);
    };
    let options = RoomOptions::parse(Some(options.clone())).map_err(ResumeError::Options)?;
    let rules = match &stored.rules {
        Some(rules) if !rules.is_null() => {
            serde_json::from_value(rules.clone()).map_err(ResumeError::Rules)?
        }
        _ => context.settings.games.clone(),
    };
    let records = Records {
        game_id: stored.game_id.clone(),
        kind: stored.game,
        rules,
        ratings,
        started_at_ms: stored.started_at_ms,
        seats: &stored.seats,
        moves: &stored.moves,
        draw_offer: stored.draw_offer,
        chat: &stored.chat,
    };
    let state = RoomState::rebuild(
        stored.room_id.clone(),
        options.clone(),
        context.settings.clone(),
        &records,
        live,
        seq,
    )?;
    Ok(RoomHandle::resume(
        state,
        fence,
        &options,
        context.clone(),
        runtime,
        tracker,
    ))
}
