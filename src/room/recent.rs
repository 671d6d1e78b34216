//! A room's recent broadcasts by `seq`, so that a client who reconnects and says the
//! last `seq` it saw (`since`) gets exactly what it missed instead of a full snapshot.

use std::collections::VecDeque;

use super::Frame;

/// How many broadcast frames a room keeps (lila-ws keeps 20–30 events per room).
pub(super) const KEPT_FRAMES: usize = 32;

/// The last [`KEPT_FRAMES`] frames a room broadcast (`state` and `game_over`), each with
/// its `seq`, oldest first.
#[derive(Debug, Default)]
pub(super) struct Recent {
    frames: VecDeque<(u64, Frame)>,
}

impl Recent {
    /// Keeps a frame the room has just broadcast, forgetting the oldest past the bound.
    pub(super) fn push(&mut self, seq: u64, frame: Frame) {
        if self.frames.len() == KEPT_FRAMES {
            self.frames.pop_front();
        }
        self.frames.push_back((seq, frame));
    }

    /// What a client that last saw `since` missed, in order, when the room is at
    /// `current`: every kept frame after `since` (none when it is up to date), or `None`
    /// when the history no longer reaches back that far, or `since` is not a `seq` this
    /// room has had, and the client needs a snapshot.
    pub(super) fn since(&self, since: u64, current: u64) -> Option<Vec<Frame>> {
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
        Some(
            self.frames
                .iter()
                .filter(|(seq, _)| *seq > since)
                .map(|(_, frame)| Frame::clone(frame))
                .collect(),
        )
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

    fn texts(frames: Option<Vec<Frame>>) -> Option<Vec<String>> {
        frames.map(|frames| frames.iter().map(|f| f.to_string()).collect())
    }

    #[test]
    fn a_client_gets_exactly_what_came_after_its_seq() {
        let mut recent = Recent::default();
        for (seq, text) in [(1, "s1"), (2, "s2"), (3, "s3"), (3, "over3")] {
            recent.push(seq, frame(text));
        }
        assert_eq!(
            texts(recent.since(1, 3)),
            Some(vec!["s2".into(), "s3".into(), "over3".into()])
        );
        assert_eq!(
            texts(recent.since(0, 3)),
            Some(vec!["s1".into(), "s2".into(), "s3".into(), "over3".into()])
        );
        assert_eq!(texts(recent.since(3, 3)), Some(vec![]), "up to date");
        assert_eq!(texts(recent.since(4, 3)), None, "a seq the room never had");
    }

    #[test]
    fn a_client_from_before_the_history_gets_a_snapshot() {
        let mut recent = Recent::default();
        for seq in 1..=(KEPT_FRAMES as u64 + 5) {
            recent.push(seq, frame(&format!("s{seq}")));
        }
        let current = KEPT_FRAMES as u64 + 5;
        assert_eq!(recent.since(4, current), None);
        let from_five = recent.since(5, current).unwrap();
        assert_eq!(from_five.len(), KEPT_FRAMES);
        assert_eq!(from_five[0].to_string(), "s6");
        assert_eq!(Recent::default().since(0, 2), None, "nothing kept yet");
    }
}
