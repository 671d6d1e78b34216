//! When a bot's answer is due, on a clock its caller provides: the rules read no clock of
//! their own, so a search is as pure as the rules it searches.

use std::fmt;
use std::time::{Duration, Instant};

/// A moment on the caller's clock. The search asks it now and then whether the moment
/// has come; the caller decides what time it is (a server passes `Instant::now`, a test
/// may pass a clock that never moves).
#[derive(Clone, Copy)]
pub struct Deadline {
    at: Instant,
    clock: fn() -> Instant,
}

impl Deadline {
    /// The moment `at`, on `clock`.
    pub fn at(at: Instant, clock: fn() -> Instant) -> Deadline {
        Deadline { at, clock }
    }

    /// `after` from now, on `clock`.
    pub fn after(after: Duration, clock: fn() -> Instant) -> Deadline {
        Deadline {
            at: clock() + after,
            clock,
        }
    }

    /// The moment itself.
    pub fn instant(&self) -> Instant {
        self.at
    }

    /// The time now, on this deadline's clock.
    pub fn now(&self) -> Instant {
        (self.clock)()
    }

    /// Whether the moment has come.
    pub fn passed(&self) -> bool {
        self.now() >= self.at
    }

    /// The earlier of the two, on this deadline's clock.
    pub fn min(self, other: Deadline) -> Deadline {
        Deadline {
            at: self.at.min(other.at),
            clock: self.clock,
        }
    }
}

impl PartialEq for Deadline {
    /// Two deadlines are the same moment (whatever clock reads them).
    fn eq(&self, other: &Deadline) -> bool {
        self.at == other.at
    }
}

impl Eq for Deadline {}

impl fmt::Debug for Deadline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Deadline").field(&self.at).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clock standing at one moment, so that no test waits.
    fn frozen() -> Instant {
        use std::sync::OnceLock;
        static AT: OnceLock<Instant> = OnceLock::new();
        *AT.get_or_init(Instant::now)
    }

    #[test]
    fn a_deadline_passes_only_on_its_own_clock() {
        let now = frozen();
        let due = Deadline::at(now + Duration::from_secs(1), frozen);
        assert!(!due.passed(), "the frozen clock never reaches it");
        assert!(Deadline::at(now, frozen).passed());
        assert_eq!(due.min(Deadline::at(now, frozen)).instant(), now);
        assert_eq!(Deadline::after(Duration::from_secs(1), frozen), due);
    }
}
