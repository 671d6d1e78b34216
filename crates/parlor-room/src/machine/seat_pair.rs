//! A room's two seats, and both seats as shown, made again only after a seat changed.
//!
//! Every `state` and every listing shows the seats, and most of them (each move's
//! `state`, the listing published after each command) show them unchanged: making the
//! views anew each time cloned both names and both ids. Any mutable access to a seat
//! counts as a change, so no change can go unshown.

use std::cell::RefCell;
use std::ops::{Index, IndexMut};

use crate::seats::SeatState;
use crate::views::ShownSeats;
use parlor_rules::games::Seat;

/// Both seats, indexed by [`Seat::index`].
pub(super) struct SeatPair {
    states: [SeatState; 2],
    /// Rises with every mutable access to a seat.
    changes: u64,
    /// The views last made, and what they were made of.
    shown: RefCell<Option<Shown>>,
}

/// Both seats' views as made after `changes` mutable accesses, with `ratings`.
struct Shown {
    changes: u64,
    ratings: [Option<i64>; 2],
    views: ShownSeats,
}

impl SeatPair {
    /// The seats `states`.
    pub(super) fn new(states: [SeatState; 2]) -> SeatPair {
        SeatPair {
            states,
            changes: 0,
            shown: RefCell::new(None),
        }
    }

    /// Both seats, in seat order.
    pub(super) fn iter(&self) -> std::slice::Iter<'_, SeatState> {
        self.states.iter()
    }

    /// Both seats, in seat order, to change.
    pub(super) fn iter_mut(&mut self) -> std::slice::IterMut<'_, SeatState> {
        self.changes += 1;
        self.states.iter_mut()
    }

    /// Swaps the two seats' occupants (a rematch changes sides).
    pub(super) fn swap(&mut self) {
        self.changes += 1;
        self.states.swap(0, 1);
    }

    /// Both seats as shown, with `ratings`: the views last made while no seat has
    /// changed since and the ratings are the same, otherwise made now and kept (the
    /// views last made, with their JSON, if they came out the same).
    pub(super) fn views(&self, ratings: [Option<i64>; 2]) -> ShownSeats {
        let mut shown = self.shown.borrow_mut();
        if let Some(shown) = shown.as_ref()
            && shown.changes == self.changes
            && shown.ratings == ratings
        {
            return shown.views.clone();
        }
        let made = Seat::BOTH.map(|seat| {
            let mut view = self.states[seat.index()].view(seat);
            view.rating = ratings[seat.index()];
            view
        });
        let views = match shown.take() {
            Some(kept) if *kept.views == made => kept.views,
            _ => ShownSeats::new(made.to_vec()),
        };
        *shown = Some(Shown {
            changes: self.changes,
            ratings,
            views: views.clone(),
        });
        views
    }
}

impl Index<usize> for SeatPair {
    type Output = SeatState;

    fn index(&self, index: usize) -> &SeatState {
        &self.states[index]
    }
}

impl IndexMut<usize> for SeatPair {
    fn index_mut(&mut self, index: usize) -> &mut SeatState {
        self.changes += 1;
        &mut self.states[index]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seats::PlayerInfo;

    fn human(name: &str) -> SeatState {
        SeatState::Human {
            player: PlayerInfo {
                player_id: format!("p_{name}").into(),
                name: name.to_owned(),
                bot_account: false,
            },
            conn: Some(1),
            away_since: None,
        }
    }

    #[test]
    fn views_are_shared_until_a_seat_or_a_rating_changes() {
        let mut seats = SeatPair::new([human("ann"), SeatState::Open]);
        let first = seats.views([None, None]);
        assert!(first.same(&seats.views([None, None])));

        seats[0] = human("ann");
        assert!(
            first.same(&seats.views([None, None])),
            "the same views are kept"
        );

        let rated = seats.views([Some(1500), None]);
        assert_eq!(rated[0].rating, Some(1500));
        assert!(!first.same(&rated));

        seats[1] = human("bob");
        let filled = seats.views([Some(1500), None]);
        assert_eq!(filled[1].name.as_deref(), Some("bob"));

        for state in seats.iter_mut() {
            if let SeatState::Human { conn, .. } = state {
                *conn = None;
            }
        }
        let away = seats.views([Some(1500), None]);
        assert!(away.iter().all(|view| !view.connected));
    }
}
