//! When a room announces changes in its audience: at once after a quiet pace, merged
//! into one `state` within it, so a crowd arriving costs the players little.

use std::time::{Duration, Instant};

/// Spectators joining and leaving (and connections dropped for not keeping up) are
/// announced to the room in one `state` at most this often: a thousand spectators
/// arriving cost the players a state a second, not a thousand.
pub(super) const AUDIENCE_PACE: Duration = Duration::from_secs(1);

/// When the room announces changes in its audience (who is watching): a change after a
/// quiet [`AUDIENCE_PACE`] is announced at once, as a single join always was; changes
/// within the pace after an announcement are merged into one `state` at its end. So a
/// lone spectator costs one `state`, and a thousand arriving together about one a
/// second.
#[derive(Debug, Default)]
pub(super) struct Pacer {
    /// When the merged announcement is due, if one is owed.
    due: Option<Instant>,
    /// When the audience was last announced.
    last: Option<Instant>,
}

impl Pacer {
    /// The audience changed at `now`; `true` if the caller should announce it at once
    /// (then call [`Pacer::announced`]), `false` if it is merged into one due later.
    pub(super) fn changed(&mut self, now: Instant) -> bool {
        if self.due.is_some() {
            return false;
        }
        match self.last {
            Some(last) if now < last + AUDIENCE_PACE => {
                self.due = Some(last + AUDIENCE_PACE);
                false
            }
            _ => true,
        }
    }

    /// The audience changed at `now` where announcing at once is not allowed (inside a
    /// broadcast): it is announced by the room's timer, as soon as the pace allows.
    pub(super) fn defer(&mut self, now: Instant) {
        let earliest = self.last.map_or(now, |last| now.max(last + AUDIENCE_PACE));
        self.due.get_or_insert(earliest);
    }

    /// A `state` announcing the audience went to everyone at `now`.
    pub(super) fn announced(&mut self, now: Instant) {
        self.last = Some(now);
        self.due = None;
    }

    /// A `state` went to everyone for another reason, carrying the audience as it is.
    pub(super) fn carried(&mut self) {
        self.due = None;
    }

    /// When the merged announcement is due, if one is owed.
    pub(super) fn due(&self) -> Option<Instant> {
        self.due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_change_is_announced_at_once_and_a_burst_merged() {
        let now = Instant::now();
        let mut pacer = Pacer::default();
        assert!(pacer.changed(now));
        pacer.announced(now);
        let soon = now + Duration::from_millis(300);
        assert!(!pacer.changed(soon));
        assert!(!pacer.changed(soon + Duration::from_millis(100)));
        assert_eq!(pacer.due(), Some(now + AUDIENCE_PACE));
        pacer.announced(now + AUDIENCE_PACE);
        assert_eq!(pacer.due(), None);
        // A change inside a broadcast waits for the timer, even after a quiet spell.
        let later = now + 5 * AUDIENCE_PACE;
        pacer.defer(later);
        assert_eq!(pacer.due(), Some(later));
        pacer.carried();
        assert_eq!(pacer.due(), None);
        assert!(pacer.changed(later));
    }
}
