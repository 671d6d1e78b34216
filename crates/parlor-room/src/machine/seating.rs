//! Who is in a room: taking and taking back seats, watching, leaving, and connections
//! that close or are dropped (PROTOCOL.md §9.4–9.6).

use std::time::Instant;

use serde_json::Value;
use tracing::{debug, info};

use super::endings::OnFailure;
use super::{AfterStart, Effect, Now, RoomState, Step, Then};
use crate::seats::SeatState;
use crate::views::{StateMsg, Status};
use crate::{ConnId, PlayerId, PlayerInfo, Refusal};
use parlor_rules::games::{EndReason, Seat};

impl RoomState {
    /// `player` takes `seat` on `conn`, or takes it back (from another connection, or
    /// from the bot standing in for them). Then the game starts if it can, and the
    /// room welcomes them (see [`AfterStart::Welcome`]).
    pub fn join(
        &mut self,
        player: PlayerInfo,
        seat: Seat,
        conn: ConnId,
        reference: Option<Value>,
    ) -> Result<Step, Refusal> {
        let other = &self.seats[seat.other().index()];
        if other.player_id() == Some(&player.player_id) {
            return Err(Refusal::AlreadySeated {
                other: seat.other(),
            });
        }
        let mut effects = Vec::new();
        let mut replaced = None;
        match &mut self.seats[seat.index()] {
            SeatState::Human {
                player: holder,
                conn: held,
                away_since,
            } if holder.player_id == player.player_id => {
                // The same player, from a new connection: the seat moves there.
                replaced = held.take().filter(|old| *old != conn);
                *holder = player;
                *held = Some(conn);
                *away_since = None;
                self.nobody_back = false;
            }
            SeatState::StandIn {
                player: holder,
                conn: held,
                ..
            } if holder.player_id == player.player_id => {
                // Back after a bot took over: the bot finishes any move it is making.
                replaced = held.take().filter(|old| *old != conn);
                *holder = player;
                *held = Some(conn);
                self.nobody_back = false;
                self.hand_back(seat);
            }
            SeatState::Open => {
                self.seats[seat.index()] = SeatState::Human {
                    player,
                    conn: Some(conn),
                    away_since: None,
                };
            }
            SeatState::Human { .. } | SeatState::Bot(_) | SeatState::StandIn { .. } => {
                return Err(Refusal::SeatTaken { seat });
            }
        }
        if let Some(old) = replaced {
            effects.push(Effect::Replaced(old));
            self.release_if_gone(old, &mut effects);
        }
        self.spectators.remove(&conn);
        debug!(room = %self.id, seat = seat.index(), "seat taken");
        Ok(Step {
            effects,
            then: Then::Start(AfterStart::Welcome {
                conn,
                seat,
                reference,
            }),
        })
    }

    /// Holds `seat` of a waiting room for `player`, not connected yet (see
    /// [`crate::RoomCommand::Reserve`]); then the game starts if both seats are held.
    pub fn reserve(&mut self, player: PlayerInfo, seat: Seat) -> Result<Step, Refusal> {
        if self.status() != Status::Waiting || !self.seats[seat.index()].is_open() {
            return Err(Refusal::SeatTaken { seat });
        }
        if self.seats[seat.other().index()].player_id() == Some(&player.player_id) {
            return Err(Refusal::AlreadySeated {
                other: seat.other(),
            });
        }
        self.seats[seat.index()] = SeatState::Human {
            player,
            conn: None,
            away_since: None,
        };
        debug!(room = %self.id, seat = seat.index(), "seat held for a player on the way");
        Ok(Step {
            effects: Vec::new(),
            then: Then::Start(AfterStart::Announce),
        })
    }

    /// Announces what the room did after trying to start its game.
    pub fn after_start(&mut self, after: AfterStart, now: Instant) -> Vec<Effect> {
        let mut effects = Vec::new();
        match after {
            AfterStart::Welcome {
                conn,
                seat,
                reference,
            } => {
                self.announce_state(now, Some(conn), &mut effects);
                effects.push(Effect::Greet {
                    conn,
                    seat: Some(seat),
                    reference,
                });
            }
            AfterStart::Announce => self.announce_state(now, None, &mut effects),
            AfterStart::AnnounceIfStarted => {
                if self.status() == Status::Playing {
                    self.announce_state(now, None, &mut effects);
                }
            }
        }
        effects
    }

    /// Adds a spectator (unless the room is full) and greets them; the others learn of
    /// them at once after a quiet pace, otherwise in the next paced announcement.
    pub fn watch(
        &mut self,
        conn: ConnId,
        reference: Option<Value>,
        now: Instant,
    ) -> Result<Vec<Effect>, Refusal> {
        let seat = Seat::BOTH
            .into_iter()
            .find(|s| self.seats[s.index()].conn() == Some(conn));
        let mut effects = Vec::new();
        // Watching again, or watching one's own room, changes nothing but gets a snapshot.
        if seat.is_none() && !self.spectators.contains(&conn) {
            let limit = self.settings.spectators_per_room;
            if limit > 0 && self.spectators.len() >= limit as usize {
                return Err(Refusal::RoomFull { limit });
            }
            self.spectators.insert(conn);
            self.audience_changed(Some(conn), now, &mut effects);
        }
        effects.push(Effect::Greet {
            conn,
            seat,
            reference,
        });
        Ok(effects)
    }

    /// The seat `player_id` holds, from whichever connection (or none, while away).
    pub fn seat_held_by(&self, player_id: &PlayerId) -> Option<Seat> {
        Seat::BOTH
            .into_iter()
            .find(|s| self.seats[s.index()].player_id() == Some(player_id))
    }

    /// The seat `player_id` holds on `conn`, or `not_a_player`.
    pub fn seat_of(&self, player_id: &PlayerId, conn: ConnId) -> Result<Seat, Refusal> {
        Seat::BOTH
            .into_iter()
            .find(|s| {
                let state = &self.seats[s.index()];
                state.player_id() == Some(player_id) && state.conn() == Some(conn)
            })
            .ok_or(Refusal::NotAPlayer)
    }

    /// A spectator stops watching; a player gives up their seat, which during a game
    /// loses it by `abandoned`, or aborts it while no move has been played (recorded
    /// first: see [`Then::End`]).
    pub fn leave(&mut self, player_id: &PlayerId, conn: ConnId, now: Now) -> Result<Step, Refusal> {
        let mut effects = Vec::new();
        // Whoever leaves is let go before anything is announced: the leaver gets only
        // `left` (PROTOCOL.md §6.7).
        if self.spectators.remove(&conn) {
            self.release_if_gone(conn, &mut effects);
            self.audience_changed(None, now.at, &mut effects);
            return Ok(Step::done(effects));
        }
        let seat = self.seat_of(player_id, conn)?;
        if self.status() == Status::Playing {
            // Nobody loses a game in which nothing was played: it did not count yet.
            let (winner, reason) = if self.history.is_empty() {
                (None, EndReason::Aborted)
            } else {
                (Some(seat.other()), EndReason::Abandoned)
            };
            let mut ending = self.prepare_ending(winner, reason, OnFailure::Refuse, now);
            ending.leaving = Some(seat);
            return Ok(Step {
                effects,
                then: Then::End(Box::new(ending)),
            });
        }
        self.vacate(seat);
        self.release_if_gone(conn, &mut effects);
        self.announce_state(now.at, None, &mut effects);
        Ok(Step::done(effects))
    }

    /// A player leaves `seat`: before the game it opens again; after, it stays theirs.
    pub(super) fn vacate(&mut self, seat: Seat) {
        let state = &mut self.seats[seat.index()];
        if self.started.is_none() {
            *state = SeatState::Open;
        } else if let SeatState::Human { conn, .. } = state {
            *conn = None;
        }
    }

    /// A connection is gone: a seat it held is announced at once, a spectator by the
    /// room's timer as the pace allows.
    pub fn disconnect(&mut self, conn: ConnId, now: Instant) -> Vec<Effect> {
        let mut effects = Vec::new();
        let held_a_seat = self.forget(conn, now);
        self.release_if_gone(conn, &mut effects);
        if held_a_seat {
            debug!(room = %self.id, conn, "a player's connection left the room");
            self.announce_state(now, None, &mut effects);
        }
        effects
    }

    /// A connection could not keep up with a broadcast and was dropped: it is forgotten
    /// without announcing anything at once (that could overflow more queues); the
    /// change rides on the next paced announcement.
    pub fn dropped(&mut self, conn: ConnId, now: Instant) {
        debug!(room = %self.id, conn, "dropping a connection that could not keep up");
        // A seated player's connection is shown as gone in the paced announcement too:
        // when their session later reports the disconnect, nothing is left to change, so
        // nothing else would announce it.
        if self.forget(conn, now) {
            self.pacer.defer(now);
        }
    }

    /// The room's latest state rendered again, for an announcement of `seq` still to be
    /// sent when connections were dropped on the way (by an earlier announcement of the
    /// same step): the drops then ride on it, as they did when every state was rendered
    /// as it was sent, and no later paced announcement is needed for them. `None` when
    /// `seq` is not the latest state's, which cannot be rendered again exactly.
    pub fn restate(&mut self, seq: u64, now: Instant) -> Option<StateMsg> {
        if seq != self.seq {
            return None;
        }
        self.pacer.carried();
        Some(self.state_msg(false, now))
    }

    /// Forgets a connection without announcing anything; `true` if it held a seat.
    fn forget(&mut self, conn: ConnId, now: Instant) -> bool {
        if self.spectators.remove(&conn) {
            self.pacer.defer(now);
        }
        // Read first: taking the seats to change them counts as a change of the seats.
        if !self.seats.iter().any(|state| state.conn() == Some(conn)) {
            return false;
        }
        let mut changed = false;
        for state in self.seats.iter_mut() {
            match state {
                SeatState::Human {
                    conn: held,
                    away_since,
                    ..
                } if *held == Some(conn) => {
                    *held = None;
                    *away_since = Some(now);
                    changed = true;
                }
                SeatState::StandIn { conn: held, .. } if *held == Some(conn) => {
                    *held = None;
                    changed = true;
                }
                _ => {}
            }
        }
        changed
    }

    /// A spectator came or went: announced at once after a quiet pace (not to `except`,
    /// who gets a snapshot), otherwise merged into the paced announcement.
    fn audience_changed(
        &mut self,
        except: Option<ConnId>,
        now: Instant,
        effects: &mut Vec<Effect>,
    ) {
        if self.pacer.changed(now) {
            self.pacer.announced(now);
            self.announce_state(now, except, effects);
        }
    }

    /// Gives a seat back to its returning player unless its bot is making their move
    /// right now; then the move, once played, hands it back.
    pub(super) fn hand_back(&mut self, seat: Seat) -> bool {
        let bot_busy = self.status() == Status::Playing
            && self.game.turn() == Some(seat)
            && self.bot_thinking == Some(self.history.len());
        // Read first: taking the seat to change it counts as a change of the seats.
        if bot_busy
            || !matches!(
                self.seats[seat.index()],
                SeatState::StandIn { conn: Some(_), .. }
            )
        {
            return false;
        }
        let state = &mut self.seats[seat.index()];
        if let SeatState::StandIn {
            player,
            conn: Some(conn),
            ..
        } = state
        {
            info!(room = %self.id, seat = seat.index(), "an absent player took their seat back");
            *state = SeatState::Human {
                player: player.clone(),
                conn: Some(*conn),
                away_since: None,
            };
            return true;
        }
        false
    }
}
