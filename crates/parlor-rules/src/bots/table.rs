//! The transposition table: what earlier searches learnt about a position, keyed by
//! [`Game::position_hash`](crate::games::Game::position_hash).
//!
//! A fixed number of slots, one entry each (the newest wins), so memory stays bounded:
//! 16 bytes a slot. A table outlives one search ([`crate::bots::Memory`]): the next
//! move's search starts from what this one learnt. The table is zeroed lazily by the
//! allocator, so a short search only pays for the slots it touches.

/// The most slots a table has: 2^20 slots of 16 bytes, 16 MiB.
const MAX_SLOTS: u64 = 1 << 20;

/// The fewest slots a table has.
const MIN_SLOTS: u64 = 1 << 10;

/// How a stored value relates to the position's true value at the stored depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Bound {
    /// The value itself.
    Exact,
    /// At least the value (the search failed high).
    Lower,
    /// At most the value (the search failed low).
    Upper,
}

impl Bound {
    fn code(self) -> u64 {
        match self {
            Bound::Exact => 1,
            Bound::Lower => 2,
            Bound::Upper => 3,
        }
    }

    fn from_code(code: u64) -> Option<Bound> {
        match code {
            1 => Some(Bound::Exact),
            2 => Some(Bound::Lower),
            3 => Some(Bound::Upper),
            _ => None,
        }
    }
}

/// One position's record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    /// The value from the position's side to move, with forced results counted from the
    /// position itself (not from the root).
    pub(super) value: i32,
    /// The depth searched below the position, in plies.
    pub(super) depth: u8,
    /// Whether every line searched reached the end of the game, so that the value holds
    /// at any depth.
    pub(super) complete: bool,
    /// How `value` bounds the true value.
    pub(super) bound: Bound,
    /// The index in [`Game::legal_moves`](crate::games::Game::legal_moves) of the best
    /// (or refuting) move, if one was found.
    pub(super) best: Option<u16>,
}

impl Entry {
    /// The entry packed in 64 bits: value, depth, bound, completeness, best move + 1
    /// (0 for none).
    fn pack(self) -> u64 {
        let best = self.best.map_or(0, |index| u64::from(index) + 1);
        u64::from(self.value as u32)
            | u64::from(self.depth) << 32
            | self.bound.code() << 40
            | u64::from(self.complete) << 42
            | best << 48
    }

    fn unpack(data: u64) -> Option<Entry> {
        let bound = Bound::from_code((data >> 40) & 0b11)?;
        let best = (data >> 48) as u16;
        Some(Entry {
            value: data as u32 as i32,
            depth: (data >> 32) as u8,
            complete: (data >> 42) & 1 == 1,
            bound,
            best: best.checked_sub(1),
        })
    }
}

/// A fixed-size table of entries indexed by the low bits of the position's hash; each
/// slot keeps the full hash to tell positions apart. The default has no slots and
/// remembers nothing until [`Table::fit`] grows it.
#[derive(Default)]
pub(super) struct Table {
    /// `[hash, packed entry]` per slot; all zero for an empty slot.
    slots: Vec<[u64; 2]>,
    mask: u64,
}

impl Table {
    /// Grows the table to suit a search of at most `max_nodes` positions (a power of two
    /// between 2^10 and 2^20 slots), starting afresh if it grows; a table already that
    /// big keeps its size and its entries.
    pub(super) fn fit(&mut self, max_nodes: u64) {
        let slots = max_nodes.clamp(MIN_SLOTS, MAX_SLOTS).next_power_of_two();
        if (self.slots.len() as u64) < slots {
            self.slots = vec![[0; 2]; slots as usize];
            self.mask = slots - 1;
        }
    }

    /// What is known about the position with this hash, if anything.
    pub(super) fn probe(&self, hash: u64) -> Option<Entry> {
        let [key, data] = *self.slots.get((hash & self.mask) as usize)?;
        if key == hash {
            Entry::unpack(data)
        } else {
            None
        }
    }

    /// Records what a search learnt about the position with this hash.
    pub(super) fn store(&mut self, hash: u64, entry: Entry) {
        if let Some(slot) = self.slots.get_mut((hash & self.mask) as usize) {
            *slot = [hash, entry.pack()];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_survive_packing() {
        for entry in [
            Entry {
                value: -1_000_000,
                depth: 0,
                complete: false,
                bound: Bound::Upper,
                best: None,
            },
            Entry {
                value: 123,
                depth: u8::MAX,
                complete: true,
                bound: Bound::Exact,
                best: Some(u16::MAX - 1),
            },
            Entry {
                value: i32::MIN,
                depth: 7,
                complete: false,
                bound: Bound::Lower,
                best: Some(0),
            },
        ] {
            assert_eq!(Entry::unpack(entry.pack()), Some(entry));
        }
    }

    #[test]
    fn a_probe_finds_only_the_stored_hash() {
        let mut table = Table::default();
        assert_eq!(table.probe(0), None);
        table.fit(5_000);
        let entry = Entry {
            value: 42,
            depth: 3,
            complete: true,
            bound: Bound::Exact,
            best: Some(2),
        };
        table.store(0xABCD, entry);
        assert_eq!(table.probe(0xABCD), Some(entry));
        assert_eq!(table.probe(0xABCD + (1 << 20)), None);
        assert_eq!(table.probe(0x1234), None);
        table.fit(1_000);
        assert_eq!(
            table.probe(0xABCD),
            Some(entry),
            "a smaller search keeps the table"
        );
    }
}
