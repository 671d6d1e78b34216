//! `quick_join` on this node: the rooms a player may be seated in, oldest first.

use super::Lobby;
use crate::protocol::{SeatView, Status, TimeControl};
use crate::room::RoomHandle;
use parlor_room::{PlayerId, SeatKind};
use parlor_rules::GameKind;
use parlor_rules::games::Seat;

impl Lobby {
    /// The rooms `quick_join` may seat `player_id` in, oldest first: listed, waiting
    /// rooms of `game` under `time_control` that start from the usual position, with
    /// one seat open and the other held by a connected person other than `player_id`.
    pub(crate) fn waiting_for(
        &self,
        game: GameKind,
        time_control: TimeControl,
        player_id: &PlayerId,
    ) -> Vec<(RoomHandle, Seat)> {
        let mut found: Vec<(i64, RoomHandle, Seat)> = self
            .rooms
            .iter()
            .filter(|entry| !entry.is_private() && entry.usual_start())
            .filter_map(|entry| {
                let summary = entry.summary();
                if summary.game != game
                    || summary.status != Status::Waiting
                    || summary.time_control != time_control
                {
                    return None;
                }
                let [first, second] = &*summary.seats else {
                    return None;
                };
                let opponent_waits = |seat: &SeatView| {
                    seat.kind == SeatKind::Human
                        && seat.connected
                        && seat.player_id.as_ref() != Some(player_id)
                };
                let open = match (first.kind, second.kind) {
                    (SeatKind::Open, _) if opponent_waits(second) => Some(Seat::First),
                    (_, SeatKind::Open) if opponent_waits(first) => Some(Seat::Second),
                    _ => None,
                }?;
                Some((summary.created_at_ms, entry.value().clone(), open))
            })
            .collect();
        found.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.id().cmp(b.1.id())));
        found
            .into_iter()
            .map(|(_, handle, seat)| (handle, seat))
            .collect()
    }
}
