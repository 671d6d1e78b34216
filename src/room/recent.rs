//! A room's recent broadcasts by `seq`, so that a client who reconnects and says the
//! last `seq` it saw (`since`) gets exactly what it missed instead of a full snapshot.

use std::collections::VecDeque;

use super::Frame;
use super::fanout::Broadcast;
use crate::protocol::Updates;

/// How many broadcast frames a room keeps (lila-ws keeps 20–30 events per room).
pub(super) const KEPT_FRAMES: usize = 32;

/// The last [`KEPT_FRAMES`] broadcasts of a room (`state`, `moved` and `game_over`),
/// each with its `seq`, oldest first.
#[derive(Debug, Default)]
pub(super) struct Recent {
    frames: VecDeque<(u64, Broadcast)>,
}

impl Recent {
    /// Keeps a broadcast the room has just sent, forgetting the oldest past the bound.
    pub(super) fn push(&mut self, seq: u64, frame: Broadcast) {
        if self.frames.len() == KEPT_FRAMES {
            self.frames.pop_front();
        }
        self.frames.push_back((seq, frame));
    }

    /// Forgets every kept frame and the room they took: a finished room that everyone
    /// has left keeps nothing only a returning connection could use (a finished
    /// tic-tac-toe room's frames were about half of what it held).
    pub(super) fn forget(&mut self) {
        self.frames = VecDeque::new();
    }

    /// What a client that last saw `since` and hears of moves as `updates` says missed,
    /// in order, when the room is at `current`: every kept frame after `since` (none
    /// when it is up to date), or `None` when the client needs a snapshot: the history
    /// no longer reaches back that far, `since` is not a `seq` this room has had, or a
    /// move after it went out only in the other form than the one the client takes.
    pub(super) fn since(&self, since: u64, current: u64, updates: Updates) -> Option<Vec<Frame>> {
        if since > current {
            return None;
        }
        if since == current {
            return Some(Vec::new());
        }
        // Every `seq` after the oldest kept one is kept, so the history reaches back to
        // `since` when the frame right after it is still here.
        let oldest = self.frames.front()?.0;
        if oldest > since + 1 {
            return None;
        }
        self.frames
            .iter()
            .filter(|(seq, _)| *seq > since)
            .map(|(_, sent)| sent.for_updates(updates).map(Frame::clone))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use bytestring::ByteString;

    use super::*;

    fn frame(text: &str) -> Frame {
        Arc::new(ByteString::from(text.to_owned()))
    }

    fn same(text: &str) -> Broadcast {
        Broadcast::Same(frame(text))
    }

    fn texts(frames: Option<Vec<Frame>>) -> Option<Vec<String>> {
        frames.map(|frames| frames.iter().map(|f| f.to_string()).collect())
    }

    #[test]
    fn once_forgotten_a_client_behind_gets_a_snapshot_and_one_up_to_date_nothing() {
        let mut recent = Recent::default();
        for seq in 1..=3 {
            recent.push(seq, same(&format!("s{seq}")));
        }
        recent.forget();
        assert_eq!(recent.since(1, 3, Updates::States), None);
        assert_eq!(texts(recent.since(3, 3, Updates::States)), Some(vec![]));
        recent.push(4, same("s4"));
        assert_eq!(
            texts(recent.since(3, 4, Updates::States)),
            Some(vec!["s4".to_owned()])
        );
    }

    #[test]
    fn a_client_gets_exactly_what_came_after_its_seq() {
        let mut recent = Recent::default();
        for (seq, text) in [(1, "s1"), (2, "s2"), (3, "s3"), (3, "over3")] {
            recent.push(seq, same(text));
        }
        assert_eq!(
            texts(recent.since(1, 3, Updates::States)),
            Some(vec!["s2".into(), "s3".into(), "over3".into()])
        );
        assert_eq!(
            texts(recent.since(0, 3, Updates::States)),
            Some(vec!["s1".into(), "s2".into(), "s3".into(), "over3".into()])
        );
        assert_eq!(
            texts(recent.since(3, 3, Updates::States)),
            Some(vec![]),
            "up to date"
        );
        assert_eq!(
            texts(recent.since(4, 3, Updates::States)),
            None,
            "a seq the room never had"
        );
    }

    #[test]
    fn a_client_from_before_the_history_gets_a_snapshot() {
        let mut recent = Recent::default();
        for seq in 1..=(KEPT_FRAMES as u64 + 5) {
            recent.push(seq, same(&format!("s{seq}")));
        }
        let current = KEPT_FRAMES as u64 + 5;
        assert_eq!(recent.since(4, current, Updates::Moves), None);
        let from_five = recent.since(5, current, Updates::Moves).unwrap();
        assert_eq!(from_five.len(), KEPT_FRAMES);
        assert_eq!(from_five[0].to_string(), "s6");
        assert_eq!(
            Recent::default().since(0, 2, Updates::States),
            None,
            "nothing kept yet"
        );
    }

    #[test]
    fn a_move_sent_only_as_an_event_sends_a_client_of_full_states_to_a_snapshot() {
        let mut recent = Recent::default();
        recent.push(1, same("s1"));
        recent.push(
            2,
            Broadcast::Move {
                moved: Some(frame("m2")),
                state: None,
            },
        );
        recent.push(
            3,
            Broadcast::Move {
                moved: Some(frame("m3")),
                state: Some(frame("s3")),
            },
        );
        assert_eq!(
            texts(recent.since(1, 3, Updates::Moves)),
            Some(vec!["m2".into(), "m3".into()])
        );
        assert_eq!(texts(recent.since(1, 3, Updates::States)), None);
        assert_eq!(
            texts(recent.since(2, 3, Updates::States)),
            Some(vec!["s3".into()])
        );
        recent.push(
            4,
            Broadcast::Move {
                moved: None,
                state: Some(frame("s4")),
            },
        );
        assert_eq!(
            texts(recent.since(3, 4, Updates::Moves)),
            None,
            "a move sent only as a state sends a client of events to a snapshot"
        );
    }
}
