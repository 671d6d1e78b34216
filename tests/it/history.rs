//! The history checker over every client's view of a game, for the tests that make the
//! servers fail: the stored game holds each ply once and in turn, every move a player
//! saw acknowledged, and every move any client saw (no two clients saw different moves
//! at one ply: [`Seen`] refuses that as it happens); and how long the trouble froze each
//! game, from when its moves were first seen.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::chaos_clients::{Outage, Seen, check_stored_game};

/// What [`check_history`] found in one game.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Checked {
    /// The moves stored.
    pub(crate) stored: usize,
    /// The moves the players saw acknowledged, all stored.
    pub(crate) acknowledged: usize,
    /// The moves any client saw, all stored.
    pub(crate) seen: usize,
}

/// Checks the stored `game` against what every client saw: each ply stored once, in
/// order, the seats taking turns (a move stored twice shows as a ply repeated or a seat
/// moving twice in a row); every acknowledged move stored at its ply; every move seen
/// stored, and the clocks charging exactly the thinking time ([`check_stored_game`],
/// with `outages` charged to no one).
pub(crate) fn check_history(game: &Value, seen: &Seen, outages: &[Outage]) -> Checked {
    let id = game["game_id"].as_str().unwrap_or_default();
    let moves = game["moves"].as_array().unwrap();
    for (index, stored) in moves.iter().enumerate() {
        assert_eq!(
            stored["ply"].as_u64(),
            Some(index as u64 + 1),
            "game {id} stores each ply once, in order: {moves:?}"
        );
        if index > 0 {
            assert_ne!(
                stored["seat"],
                moves[index - 1]["seat"],
                "game {id}: the seats take turns, so no move is stored twice: {moves:?}"
            );
        }
    }
    let acknowledged = seen.acknowledged.get(id).cloned().unwrap_or_default();
    for (ply, text) in &acknowledged {
        let stored = usize::try_from(*ply)
            .ok()
            .and_then(|ply| moves.get(ply - 1));
        assert_eq!(
            stored.map(|stored| &stored["notation"]),
            Some(&Value::from(text.as_str())),
            "game {id}: the acknowledged move {ply} ({text}) is stored"
        );
    }
    let saw = seen.moves.get(id).cloned().unwrap_or_default();
    check_stored_game(game, &saw, outages);
    Checked {
        stored: moves.len(),
        acknowledged: acknowledged.len(),
        seen: saw.len(),
    }
}

/// How long a game stood still across `window` (a fault, from its start to its end):
/// the longest time between two of its moves being first seen, one before the window's
/// end and the next after its start; `None` if no two moves of it were seen around the
/// window.
pub(crate) fn frozen_across(
    first_seen: &BTreeMap<u64, Instant>,
    window: (Instant, Instant),
) -> Option<Duration> {
    let times: Vec<Instant> = first_seen.values().copied().collect();
    times
        .windows(2)
        .filter(|pair| pair[0] < window.1 && pair[1] > window.0)
        .map(|pair| pair[1] - pair[0])
        .max()
}

/// How long the fault of `window` froze each game, longest first, as the test's log
/// line: for each game that moved across it, its id, how long it stood still, how much
/// of that was beyond the fault, and how soon after the fault ended its next move was
/// seen (each of these includes a player's thinking time).
pub(crate) fn freezes_report(seen: &Seen, window: (Instant, Instant)) -> String {
    let mut freezes: Vec<(Duration, &str, Option<Duration>)> = seen
        .first_seen
        .iter()
        .filter_map(|(game, times)| {
            let frozen = frozen_across(times, window)?;
            let next = times.values().find(|seen| **seen > window.1);
            Some((frozen, game.as_str(), next.map(|next| *next - window.1)))
        })
        .collect();
    freezes.sort_unstable_by(|a, b| b.cmp(a));
    let cut = window.1 - window.0;
    let games: Vec<String> = freezes
        .iter()
        .map(|(frozen, game, next)| {
            format!(
                "{game} {} ms (+{} ms; next move {} ms after)",
                frozen.as_millis(),
                frozen.saturating_sub(cut).as_millis(),
                next.map_or_else(|| "-".to_owned(), |next| next.as_millis().to_string())
            )
        })
        .collect();
    format!(
        "{} games moved across the fault ({} ms); each stood still, longest first: {}",
        freezes.len(),
        cut.as_millis(),
        games.join(", ")
    )
}

/// The checker itself, on made-up games and views: it can fail.
mod tests {
    use super::*;
    use serde_json::json;

    fn game(notations: &[(u64, u64, &str)]) -> Value {
        let moves: Vec<Value> = notations
            .iter()
            .map(|(ply, seat, notation)| {
                json!({"ply": ply, "seat": seat, "notation": notation, "think_ms": 0,
                       "played_at_ms": ply * 1000})
            })
            .collect();
        json!({"game_id": "g_test", "status": "finished",
               "options": {"time_control": {"kind": "none"}}, "moves": moves})
    }

    fn seen_with_ack(ply: u64, text: &str) -> Seen {
        let mut seen = Seen::default();
        seen.acknowledged
            .entry("g_test".to_owned())
            .or_default()
            .insert(ply, text.to_owned());
        seen
    }

    #[test]
    fn a_whole_history_passes() {
        let stored = game(&[(1, 0, "0"), (2, 1, "4"), (3, 0, "8")]);
        let checked = check_history(&stored, &seen_with_ack(3, "8"), &[]);
        assert_eq!((checked.stored, checked.acknowledged), (3, 1));
    }

    #[test]
    #[should_panic(expected = "each ply once")]
    fn a_ply_stored_twice_is_caught() {
        check_history(&game(&[(1, 0, "0"), (1, 0, "0")]), &Seen::default(), &[]);
    }

    #[test]
    #[should_panic(expected = "no move is stored twice")]
    fn a_move_stored_again_at_the_next_ply_is_caught() {
        check_history(&game(&[(1, 0, "0"), (2, 0, "4")]), &Seen::default(), &[]);
    }

    #[test]
    #[should_panic(expected = "the acknowledged move 3 (8) is stored")]
    fn a_lost_acknowledged_move_is_caught() {
        check_history(
            &game(&[(1, 0, "0"), (2, 1, "4")]),
            &seen_with_ack(3, "8"),
            &[],
        );
    }

    #[test]
    fn a_freeze_is_the_longest_gap_around_the_window() {
        let start = Instant::now();
        let at = |ms: u64| start + Duration::from_millis(ms);
        let times: BTreeMap<u64, Instant> = [(1, at(0)), (2, at(500)), (3, at(9_000))].into();
        let window = (at(1_000), at(6_000));
        assert_eq!(
            frozen_across(&times, window),
            Some(Duration::from_millis(8_500))
        );
        assert_eq!(frozen_across(&times, (at(10_000), at(11_000))), None);
    }
}
