//! Game clocks, pure: time comes in as `now`, so every rule is tested with plain values.
//!
//! A room's clock knows the time control, each seat's remaining time and whose clock is
//! running. The room asks it when the running side would flag and tells it when a move
//! is made. As players know it from Lichess, a side's clock starts only once that side
//! has made its first move: before that, the room's first-move abort guards against a
//! no-show, and the clock stands still.

use std::time::{Duration, Instant};

use crate::TimeControl;
use parlor_rules::games::Seat;

/// The running side's time ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Flagged(pub Seat);

/// Both sides' clocks under one time control.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Clock {
    control: TimeControl,
    /// Each seat's remaining time, ms, as of the start of the running turn.
    remaining_ms: [u64; 2],
    /// The seat whose clock runs, and since when.
    running: Option<(Seat, Instant)>,
    /// Which seats have made their first move (only theirs can run).
    moved: [bool; 2],
}

impl Clock {
    /// Stopped clocks with each side's initial time.
    pub(crate) fn new(control: TimeControl) -> Clock {
        let initial = control.initial_ms().unwrap_or(0);
        Clock {
            control,
            remaining_ms: [initial, initial],
            running: None,
            moved: [false; 2],
        }
    }

    /// The time control.
    pub(crate) fn control(&self) -> TimeControl {
        self.control
    }

    /// Begins `seat`'s turn at `now`: a per-move clock is reset to the full time, and the
    /// clock runs if `seat` has made its first move (before that it stands still).
    pub(crate) fn start(&mut self, seat: Seat, now: Instant) {
        if self.control == TimeControl::None {
            return;
        }
        if let TimeControl::PerMove { per_move_ms } = self.control {
            self.remaining_ms[seat.index()] = per_move_ms;
        }
        self.running = self.moved[seat.index()].then_some((seat, now));
    }

    /// Sets the clocks as a resumed game had them: each side's remaining time as stored
    /// with the last move (when there is one), and `next`'s clock running from `now`, with
    /// no time charged for the gap before.
    pub(crate) fn resume(
        &mut self,
        remaining_ms: Option<[u64; 2]>,
        next: Option<Seat>,
        now: Instant,
    ) {
        if self.control == TimeControl::None {
            return;
        }
        if let Some(remaining_ms) = remaining_ms {
            self.remaining_ms = remaining_ms;
        }
        self.running = next
            .filter(|seat| self.moved[seat.index()])
            .map(|seat| (seat, now));
    }

    /// Stops the clock for `seat`'s move received at `now`: charges the time used and
    /// adds the increment; a move that came too late flags instead (the time is then 0).
    /// A side's first move costs nothing and gains nothing: its clock was not running.
    pub(crate) fn stop(&mut self, seat: Seat, now: Instant) -> Result<(), Flagged> {
        self.moved[seat.index()] = true;
        let Some((seat, since)) = self.running.take() else {
            return Ok(());
        };
        let used = millis(now.saturating_duration_since(since));
        let left = &mut self.remaining_ms[seat.index()];
        if used > *left {
            *left = 0;
            return Err(Flagged(seat));
        }
        *left -= used;
        if let TimeControl::Fischer { increment_ms, .. } = self.control {
            *left += increment_ms;
        }
        Ok(())
    }

    /// Gives the running side back `held`: time the server held its turn (a move whose
    /// write's outcome was lost, then found not stored), which its clock does not charge.
    pub(crate) fn excuse(&mut self, held: Duration) {
        if let Some((_, since)) = &mut self.running {
            *since += held;
        }
    }

    /// Freezes the clocks at `now` (the game ended otherwise), charging the running side.
    pub(crate) fn halt(&mut self, now: Instant) {
        if let Some((seat, since)) = self.running.take() {
            let used = millis(now.saturating_duration_since(since));
            let left = &mut self.remaining_ms[seat.index()];
            *left = left.saturating_sub(used);
        }
    }

    /// When the running side flags, if a clock is running.
    pub(crate) fn deadline(&self) -> Option<(Seat, Instant)> {
        let (seat, since) = self.running?;
        Some((
            seat,
            since + Duration::from_millis(self.remaining_ms[seat.index()]),
        ))
    }

    /// The seat whose clock runs.
    pub(crate) fn running(&self) -> Option<Seat> {
        self.running.map(|(seat, _)| seat)
    }

    /// Both seats' remaining time, ms, as they stand once a move received at `now` has
    /// been charged and `next`'s clock started: what the `state` after the move shows and
    /// what is stored with the move (a per-move clock shows the waiting side's full
    /// allowance, not what it had left after its own last move). `None` without a time
    /// control.
    pub(crate) fn after_move(&self, next: Option<Seat>, now: Instant) -> Option<[u64; 2]> {
        let mut after = self.clone();
        if let Some(next) = next {
            after.start(next, now);
        }
        after.remaining_at(now)
    }

    /// Each seat's remaining time at `now`, ms; `None` without a time control.
    pub(crate) fn remaining_at(&self, now: Instant) -> Option<[u64; 2]> {
        self.control.initial_ms()?;
        let mut remaining = self.remaining_ms;
        if let Some((seat, since)) = self.running {
            let used = millis(now.saturating_duration_since(since));
            remaining[seat.index()] = remaining[seat.index()].saturating_sub(used);
        }
        Some(remaining)
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// A clock under `control` once both sides have made their (free) first moves
    /// before `t0`, with `seat`'s turn beginning at `t0`.
    fn after_the_opening(control: TimeControl, seat: Seat, t0: Instant) -> Clock {
        let mut clock = Clock::new(control);
        for mover in [seat, seat.other()] {
            clock.start(mover, t0);
            assert_eq!(clock.stop(mover, t0), Ok(()));
        }
        clock.start(seat, t0);
        clock
    }

    #[test]
    fn each_sides_clock_stands_still_until_its_first_move() {
        let t0 = Instant::now();
        let mut clock = Clock::new(TimeControl::Fischer {
            base_ms: 60_000,
            increment_ms: 2_000,
        });
        clock.start(Seat::First, t0);
        assert_eq!(clock.running(), None);
        assert_eq!(clock.deadline(), None);
        assert_eq!(clock.remaining_at(t0 + ms(20_000)), Some([60_000, 60_000]));
        assert_eq!(clock.stop(Seat::First, t0 + ms(20_000)), Ok(()));
        clock.start(Seat::Second, t0 + ms(20_000));
        assert_eq!(clock.running(), None);
        assert_eq!(clock.stop(Seat::Second, t0 + ms(45_000)), Ok(()));
        assert_eq!(clock.remaining_at(t0 + ms(45_000)), Some([60_000, 60_000]));
        clock.start(Seat::First, t0 + ms(45_000));
        assert_eq!(clock.running(), Some(Seat::First));
        assert_eq!(clock.remaining_at(t0 + ms(46_000)), Some([59_000, 60_000]));
    }

    #[test]
    fn a_resumed_clock_runs_from_the_stored_time_charging_nothing_for_the_gap() {
        let t0 = Instant::now();
        let control = TimeControl::Fischer {
            base_ms: 60_000,
            increment_ms: 0,
        };
        let mut clock = after_the_opening(control, Seat::First, t0);
        let resumed_at = t0 + ms(30_000);
        clock.resume(Some([41_000, 52_000]), Some(Seat::Second), resumed_at);
        assert_eq!(clock.remaining_at(resumed_at), Some([41_000, 52_000]));
        assert_eq!(
            clock.remaining_at(resumed_at + ms(2_000)),
            Some([41_000, 50_000])
        );
        assert_eq!(
            clock.deadline(),
            Some((Seat::Second, resumed_at + ms(52_000)))
        );
    }

    #[test]
    fn a_game_resumed_before_a_sides_first_move_keeps_that_clock_still() {
        let t0 = Instant::now();
        let mut clock = Clock::new(TimeControl::Fischer {
            base_ms: 60_000,
            increment_ms: 0,
        });
        clock.start(Seat::First, t0);
        assert_eq!(clock.stop(Seat::First, t0 + ms(5_000)), Ok(()));
        clock.resume(Some([60_000, 60_000]), Some(Seat::Second), t0 + ms(9_000));
        assert_eq!(clock.running(), None);
        assert_eq!(clock.deadline(), None);
    }

    #[test]
    fn fischer_charges_time_used_and_adds_the_increment() {
        let t0 = Instant::now();
        let control = TimeControl::Fischer {
            base_ms: 1_000,
            increment_ms: 100,
        };
        let mut clock = after_the_opening(control, Seat::First, t0);
        assert_eq!(clock.deadline(), Some((Seat::First, t0 + ms(1_000))));
        assert_eq!(clock.remaining_at(t0 + ms(300)), Some([700, 1_000]));
        assert_eq!(clock.stop(Seat::First, t0 + ms(300)), Ok(()));
        assert_eq!(clock.remaining_at(t0 + ms(300)), Some([800, 1_000]));
        clock.start(Seat::Second, t0 + ms(300));
        assert_eq!(clock.running(), Some(Seat::Second));
        assert_eq!(clock.deadline(), Some((Seat::Second, t0 + ms(1_300))));
    }

    #[test]
    fn a_late_move_flags_and_leaves_zero() {
        let t0 = Instant::now();
        let control = TimeControl::Fischer {
            base_ms: 500,
            increment_ms: 1_000,
        };
        let mut clock = after_the_opening(control, Seat::Second, t0);
        assert_eq!(
            clock.stop(Seat::Second, t0 + ms(501)),
            Err(Flagged(Seat::Second))
        );
        assert_eq!(clock.remaining_at(t0 + ms(501)), Some([500, 0]));
    }

    #[test]
    fn per_move_resets_every_turn() {
        let t0 = Instant::now();
        let control = TimeControl::PerMove { per_move_ms: 3_000 };
        let mut clock = after_the_opening(control, Seat::First, t0);
        assert_eq!(clock.stop(Seat::First, t0 + ms(2_900)), Ok(()));
        clock.start(Seat::First, t0 + ms(5_000));
        assert_eq!(clock.remaining_at(t0 + ms(5_000)), Some([3_000, 3_000]));
        assert_eq!(clock.deadline(), Some((Seat::First, t0 + ms(8_000))));
    }

    #[test]
    fn no_time_control_never_runs() {
        let t0 = Instant::now();
        let mut clock = after_the_opening(TimeControl::None, Seat::First, t0);
        assert_eq!(clock.deadline(), None);
        assert_eq!(clock.remaining_at(t0), None);
        assert_eq!(clock.stop(Seat::First, t0 + ms(1_000_000)), Ok(()));
    }

    #[test]
    fn halting_charges_the_running_side() {
        let t0 = Instant::now();
        let control = TimeControl::Fischer {
            base_ms: 1_000,
            increment_ms: 0,
        };
        let mut clock = after_the_opening(control, Seat::First, t0);
        clock.halt(t0 + ms(250));
        assert_eq!(clock.running(), None);
        assert_eq!(clock.remaining_at(t0 + ms(9_999)), Some([750, 1_000]));
    }

    #[test]
    fn time_controls_read_and_validate() {
        let fischer: TimeControl =
            serde_json::from_str(r#"{"kind":"fischer","base_ms":60000,"increment_ms":0}"#).unwrap();
        assert_eq!(
            fischer,
            TimeControl::Fischer {
                base_ms: 60_000,
                increment_ms: 0
            }
        );
        assert!(fischer.validate().is_ok());
        assert!(serde_json::from_str::<TimeControl>(r#"{"kind":"sudden"}"#).is_err());
        assert!(serde_json::from_str::<TimeControl>(r#"{"kind":"per_move"}"#).is_err());
        assert!(TimeControl::PerMove { per_move_ms: 0 }.validate().is_err());
    }
}
