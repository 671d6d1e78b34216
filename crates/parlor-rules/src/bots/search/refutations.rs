//! What the search remembers of quiet moves that refuted positions, to try such moves
//! early elsewhere: two killer moves per ply and a history score per kind of move.

use crate::bots::HISTORY_SIZE;

/// History scores past this are halved, all of them, so recent refutations count most.
const HISTORY_LIMIT: i32 = 1 << 20;

/// Killer moves and history scores of one search.
pub(super) struct Refutations<M> {
    /// Two quiet moves per ply that recently refuted a sibling, the newer first.
    killers: Vec<[Option<M>; 2]>,
    /// How much each kind of quiet move ([`crate::bots::Evaluate::history_key`]) has
    /// refuted positions, by the square of the depth left; empty until a game keys one.
    history: Vec<i32>,
}

impl<M> Default for Refutations<M> {
    fn default() -> Self {
        Refutations {
            killers: Vec::new(),
            history: Vec::new(),
        }
    }
}

impl<M: Clone + PartialEq> Refutations<M> {
    /// Remembers that the quiet move `mv`, of kind `key`, refuted a position `ply` moves
    /// from the root with `depth` plies left.
    pub(super) fn record(&mut self, ply: u32, mv: &M, key: Option<usize>, depth: u32) {
        self.add_killer(ply, mv);
        self.add_history(key, depth);
    }

    /// 1 for the newer killer move at `ply`, 0 for the older, `None` for any other move.
    pub(super) fn killer_rank(&self, ply: u32, mv: &M) -> Option<i32> {
        let slot = self.killers.get(ply as usize)?;
        slot.iter()
            .position(|killer| killer.as_ref() == Some(mv))
            .map(|index| 1 - index as i32)
    }

    /// Whether `mv` is one of the killer moves at `ply`.
    pub(super) fn is_killer(&self, ply: u32, mv: &M) -> bool {
        self.killer_rank(ply, mv).is_some()
    }

    /// The history score of moves of kind `key` (0 for none).
    pub(super) fn history(&self, key: Option<usize>) -> i32 {
        key.and_then(|key| self.history.get(key))
            .copied()
            .unwrap_or(0)
    }

    fn add_history(&mut self, key: Option<usize>, depth: u32) {
        let Some(key) = key.filter(|&key| key < HISTORY_SIZE) else {
            return;
        };
        if self.history.is_empty() {
            self.history = vec![0; HISTORY_SIZE];
        }
        let bonus = (depth * depth).min(HISTORY_LIMIT as u32) as i32;
        self.history[key] += bonus;
        if self.history[key] > HISTORY_LIMIT {
            self.history.iter_mut().for_each(|score| *score /= 2);
        }
    }

    fn add_killer(&mut self, ply: u32, mv: &M) {
        let ply = ply as usize;
        if self.killers.len() <= ply {
            self.killers.resize(ply + 1, [None, None]);
        }
        let slot = &mut self.killers[ply];
        if slot[0].as_ref() != Some(mv) {
            slot[1] = slot[0].take();
            slot[0] = Some(mv.clone());
        }
    }
}
