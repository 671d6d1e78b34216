//! A seated player's requests other than a move: resigning, draw offers and their
//! answers, rematches, and (answered in their own modules) a bot for the open seat and
//! the claims on a game the opponent left (PROTOCOL.md §6.6, §6.9–6.12, §6.18, §6.19).

use tracing::info;

use super::absence::Claim;
use super::endings::OnFailure;
use super::{AfterStart, DrawChange, Now, RoomState, Step, Then};
use crate::clock::Clock;
use crate::command::Request;
use crate::records::DrawOfferRecord;
use crate::seats::SeatState;
use crate::views::Status;
use crate::{ConnId, GameId, PlayerId, Refusal};
use parlor_rules::games::{EndReason, Seat};

impl RoomState {
    /// A seated player's request, checked in the documented order: the seat, then the
    /// game's status, then the request itself.
    pub fn request(
        &mut self,
        request: Request,
        player_id: &PlayerId,
        conn: ConnId,
        now: Now,
    ) -> Result<Step, Refusal> {
        let seat = self.seat_of(player_id, conn)?;
        match request {
            Request::Rematch => return self.ask_rematch(seat, now),
            Request::FillWithBot { level } => return self.fill_with_bot(seat, level),
            _ => {}
        }
        match self.status() {
            Status::Finished => return Err(Refusal::RequestAfterEnd),
            Status::Waiting => return Err(Refusal::RequestBeforeStart),
            Status::Playing => {}
        }
        let offered_to_me = self.draw_offer == Some(seat.other());
        let end = |state: &Self, winner, reason| {
            let ending = state.prepare_ending(winner, reason, OnFailure::Refuse, now);
            Ok(Step {
                effects: Vec::new(),
                then: Then::End(Box::new(ending)),
            })
        };
        match request {
            Request::Resign => end(self, Some(seat.other()), EndReason::Resigned),
            Request::AcceptDraw | Request::OfferDraw if offered_to_me => {
                end(self, None, EndReason::DrawAgreed)
            }
            Request::OfferDraw => Ok(Step {
                effects: Vec::new(),
                then: Then::DrawOffer(DrawChange::Offered(seat)),
            }),
            Request::DeclineDraw if offered_to_me => Ok(Step {
                effects: Vec::new(),
                then: Then::DrawOffer(DrawChange::Declined { by_bot: false }),
            }),
            Request::AcceptDraw | Request::DeclineDraw => Err(Refusal::NoDrawOffer),
            Request::ClaimVictory => self.claim(seat, Claim::Victory, now),
            Request::ClaimDraw => self.claim(seat, Claim::Draw, now),
            Request::Rematch | Request::FillWithBot { .. } => Ok(Step::done(Vec::new())),
        }
    }

    /// The game and the draw offer as `change` leaves it, to record before
    /// [`RoomState::draw_offer_recorded`]; `None` if no game is on.
    pub fn draw_offer_record(
        &self,
        change: DrawChange,
    ) -> Option<(GameId, Option<DrawOfferRecord>)> {
        let started = self.started.as_ref()?;
        let offer = match change {
            DrawChange::Offered(seat) => Some(DrawOfferRecord {
                seat,
                ply: self.history.len() as u32,
            }),
            DrawChange::Declined { .. } => None,
        };
        Some((started.game_id.clone(), offer))
    }

    /// A change to the draw offer has been recorded: it is made and announced, and a bot
    /// offered a draw is asked to answer.
    pub fn draw_offer_recorded(&mut self, change: DrawChange, now: Now) -> Step {
        let mut effects = Vec::new();
        match change {
            DrawChange::Offered(seat) => {
                self.draw_offer = Some(seat);
                self.announce_state(now.at, None, &mut effects);
                let then = self.bot_answers_draw(seat.other(), now, &mut effects);
                Step { effects, then }
            }
            DrawChange::Declined { .. } => {
                self.draw_offer = None;
                self.announce_state(now.at, None, &mut effects);
                Step::done(effects)
            }
        }
    }

    /// Records `seat`'s wish for a rematch; a bot always agrees. When both seats agree,
    /// a new game starts in the room with the seats swapped.
    fn ask_rematch(&mut self, seat: Seat, now: Now) -> Result<Step, Refusal> {
        if self.status() != Status::Finished {
            return Err(Refusal::RematchBeforeEnd);
        }
        self.rematch[seat.index()] = true;
        for other in Seat::BOTH {
            if matches!(self.seats[other.index()], SeatState::Bot(_)) {
                self.rematch[other.index()] = true;
            }
        }
        if self.rematch == [true, true] {
            self.restart();
            return Ok(Step {
                effects: Vec::new(),
                then: Then::Start(AfterStart::Announce),
            });
        }
        let mut effects = Vec::new();
        self.announce_state(now.at, None, &mut effects);
        Ok(Step::done(effects))
    }

    /// Sets the room up for a new game with the same options and the seats swapped.
    fn restart(&mut self) {
        info!(room = %self.id, "a rematch begins with the seats swapped");
        self.seats.swap();
        self.ratings.swap(0, 1);
        self.game = self.initial.clone_box();
        self.history.clear();
        self.result = None;
        self.started = None;
        self.thinking_ms = [0, 0];
        self.bot_thinking = None;
        self.stood_in = [false, false];
        self.clock = Clock::new(self.options.time_control);
        self.draw_offer = None;
        self.draw_judging = None;
        self.draw_judged = None;
        self.rematch = [false, false];
        self.resumed = false;
    }
}
