//! The session's deadlines, kept on one timer: when to ping the client, when it must
//! have said hello, when it has been silent too long, and when to ask the rooms that
//! moved again. One timer per connection, set to the earliest of them, rather than one
//! each: an idle connection keeps one timer, and a turn of the loop polls one.

use std::time::Duration;

use tokio::time::Instant;

use super::super::reroute::ASK_AGAIN_EVERY;

/// Which deadline has passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Due {
    /// The connection did not say hello in time.
    HelloOverdue,
    /// The connection may have been silent too long (it is, unless heard since the
    /// deadline was set; [`Deadlines::silence`] is then moved on).
    Silence,
    /// Time to ask the rooms that moved again.
    Reenter,
    /// Time to ping the client.
    Ping,
}

/// A session's deadlines.
pub(crate) struct Deadlines {
    ping_every: Duration,
    ping: Instant,
    hello: Instant,
    reenter: Instant,
    /// Set for when the connection would have been silent too long if nothing came
    /// since it was set; moved on when it passes early (rather than at every frame).
    pub(super) silence: Instant,
}

impl Deadlines {
    /// The deadlines of a connection opened at `opened`: a ping at once, then every
    /// `ping_every`; hello within `hello_within`; silent for no longer than `timeout`.
    pub(super) fn new(
        opened: Instant,
        ping_every: Duration,
        hello_within: Duration,
        timeout: Duration,
    ) -> Deadlines {
        Deadlines {
            ping_every,
            ping: opened,
            hello: opened + hello_within,
            reenter: opened,
            silence: opened + timeout,
        }
    }

    /// The earliest deadline: the hello's only while `awaiting_hello`, the rooms' only
    /// while some are `moving`.
    pub(super) fn next(&self, awaiting_hello: bool, moving: bool) -> Instant {
        let mut next = self.ping.min(self.silence);
        if awaiting_hello {
            next = next.min(self.hello);
        }
        if moving {
            next = next.min(self.reenter);
        }
        next
    }

    /// The most urgent deadline passed at `now`, if any; a ping's or the rooms' is set
    /// again as it is taken.
    pub(super) fn take_due(
        &mut self,
        now: Instant,
        awaiting_hello: bool,
        moving: bool,
    ) -> Option<Due> {
        if awaiting_hello && self.hello <= now {
            Some(Due::HelloOverdue)
        } else if self.silence <= now {
            Some(Due::Silence)
        } else if moving && self.reenter <= now {
            self.asked_rooms_again(now);
            Some(Due::Reenter)
        } else {
            self.take_ping(now).then_some(Due::Ping)
        }
    }

    /// Whether a ping is due at `now`; if so, the next one is set.
    pub(crate) fn take_ping(&mut self, now: Instant) -> bool {
        let due = self.ping <= now;
        if due {
            self.ping = now + self.ping_every;
        }
        due
    }

    /// When the next ping is due.
    pub(crate) fn ping(&self) -> Instant {
        self.ping
    }

    /// The rooms that moved were asked at `now`: they are asked again after
    /// [`ASK_AGAIN_EVERY`].
    pub(super) fn asked_rooms_again(&mut self, now: Instant) {
        self.reenter = now + ASK_AGAIN_EVERY;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    #[test]
    fn each_deadline_comes_in_turn_and_only_while_it_applies() {
        let opened = Instant::now();
        let mut deadlines = Deadlines::new(opened, 15 * SECOND, 10 * SECOND, 45 * SECOND);
        assert_eq!(deadlines.next(true, false), opened);
        assert_eq!(deadlines.take_due(opened, true, false), Some(Due::Ping));
        assert_eq!(deadlines.take_due(opened, true, false), None);
        assert_eq!(deadlines.next(true, false), opened + 10 * SECOND);
        assert_eq!(deadlines.next(false, false), opened + 15 * SECOND);
        let late = opened + 11 * SECOND;
        assert_eq!(
            deadlines.take_due(late, true, false),
            Some(Due::HelloOverdue)
        );
        assert_eq!(deadlines.take_due(late, false, false), None);
        assert_eq!(deadlines.take_due(late, false, true), Some(Due::Reenter));
        let ping = opened + 15 * SECOND;
        assert_eq!(
            deadlines.next(false, true),
            ping.min(late + ASK_AGAIN_EVERY)
        );
        let silent = opened + 46 * SECOND;
        assert_eq!(deadlines.take_due(silent, false, false), Some(Due::Silence));
        deadlines.silence = silent + 45 * SECOND;
        assert_eq!(deadlines.take_due(silent, false, false), Some(Due::Ping));
        assert_eq!(deadlines.ping(), silent + 15 * SECOND);
    }
}
