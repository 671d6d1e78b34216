//! How a game ends: the store record of an ending (scores and whom each was earned
//! against, leaderboard, ratings: only between two people) and, once it is recorded,
//! the finishing `state` and `game_over`.

use std::time::{Duration, Instant};

use tracing::info;

use super::views::rounded;
use super::{Effect, Now, RoomState};
use crate::GameId;
use crate::options::Takeover;
use crate::ratings::RatedKey;
use crate::records::{GameFinish, LeaderboardCandidate, RatingShift, SeatResult};
use crate::scoring::{self, Opponent, ScoreInput};
use crate::seats::SeatState;
use crate::views::{GameOverMsg, MIN_MOVES_EACH_TO_RATE, ScoreView, Unrated};
use parlor_rules::bots::BotLevel;
use parlor_rules::games::{EndReason, Outcome, Seat};

/// What follows when the store cannot record an ending.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnFailure {
    /// The player who asked is refused with `storage_unavailable`; nothing changed.
    Refuse,
    /// A timer ended the game: it tries again after [`super::STORE_RETRY`].
    Retry,
    /// A bot agreed to a draw: the game goes on, and the failure is only logged.
    Shrug,
}

/// An ending to record before it is applied.
#[derive(Debug)]
pub struct PendingEnding {
    /// The record to write.
    pub finish: GameFinish,
    /// What follows if it cannot be written.
    pub on_failure: OnFailure,
    /// The seat whose player left the game, ending it.
    pub leaving: Option<Seat>,
    outcome: Outcome,
    scores: [Option<u32>; 2],
    opponents: [Opponent; 2],
    /// Why it is not rated, if it is not.
    unrated: Option<Unrated>,
    duration_ms: u64,
}

impl RoomState {
    /// The record of an ending that no move caused (resignation, abandonment, a draw
    /// agreed, a timer), to write before [`RoomState::conclude`].
    pub fn prepare_ending(
        &self,
        winner: Option<Seat>,
        reason: EndReason,
        on_failure: OnFailure,
        now: Now,
    ) -> PendingEnding {
        let outcome = Outcome { winner, reason };
        self.ending(
            outcome,
            self.history.len(),
            self.thinking_ms,
            on_failure,
            now,
        )
    }

    /// The record of an ending after `moves` moves (one more than played when a move
    /// ends the game), with each seat's thinking time.
    pub(super) fn ending(
        &self,
        outcome: Outcome,
        moves: usize,
        thinking_ms: [u64; 2],
        on_failure: OnFailure,
        now: Now,
    ) -> PendingEnding {
        let config = &self.settings.scoring;
        let mut moves_by_seat = [0u32; 2];
        for (seat, _) in &self.history {
            moves_by_seat[seat.index()] += 1;
        }
        if moves > self.history.len()
            && let Some(mover) = self.game.turn()
        {
            moves_by_seat[mover.index()] += 1;
        }
        let par = config.par.for_game(self.game.kind());
        let scores = Seat::BOTH.map(|seat| match &self.seats[seat.index()] {
            SeatState::Human { .. } if self.options.scored() && !self.stood_in[seat.index()] => {
                scoring::score(&ScoreInput {
                    outcome,
                    seat,
                    moves: moves as u32,
                    moves_by_seat,
                    thinking_ms: thinking_ms[seat.index()],
                    par,
                    min_moves_per_side: config.min_moves_per_side,
                })
            }
            _ => None,
        });
        let (game_id, duration) = match &self.started {
            Some(started) => (
                started.game_id.clone(),
                now.at.saturating_duration_since(started.at),
            ),
            // Only a game in progress ends; an ending without one names no game.
            None => (GameId::from(""), Duration::ZERO),
        };
        let unrated = self.unrated_because(outcome, moves_by_seat);
        let opponents = Seat::BOTH.map(|seat| self.opponent_of(seat));
        let leaderboard = Seat::BOTH
            .into_iter()
            .filter(|seat| outcome.winner.is_none_or(|winner| winner == *seat))
            .filter_map(|seat| {
                let player_id = self.seats[seat.index()].player_id()?;
                Some(LeaderboardCandidate {
                    player_id: player_id.to_owned(),
                    score: i64::from(scores[seat.index()]?),
                    opponent: opponents[seat.index()],
                })
            })
            .collect();
        let finish = GameFinish {
            game_id,
            game: self.game.kind(),
            finished_at_ms: now.unix_ms,
            winner: outcome.winner,
            reason: outcome.reason,
            duration_ms: duration_ms(duration) as i64,
            moves: moves as u32,
            seats: Seat::BOTH
                .map(|seat| SeatResult {
                    seat,
                    thinking_ms: thinking_ms[seat.index()] as i64,
                    score: scores[seat.index()].map(i64::from),
                    opponent: opponents[seat.index()],
                })
                .to_vec(),
            leaderboard,
            rated: match (unrated, self.rating_keys()) {
                (None, [Some(first), Some(second)]) => Some([first, second]),
                _ => None,
            },
        };
        PendingEnding {
            finish,
            on_failure,
            leaving: None,
            outcome,
            scores,
            opponents,
            unrated,
            duration_ms: duration_ms(duration),
        }
    }

    /// The keys both seats are rated under in this game: a person's, `None` for a bot.
    pub fn rating_keys(&self) -> [Option<RatedKey>; 2] {
        Seat::BOTH.map(|seat| {
            let state = &self.seats[seat.index()];
            RatedKey::of(state.kind(), state.player_id())
        })
    }

    /// Whom `seat` played, as its score records it: the bot in the other seat, or the
    /// bot that stood in for it at some time, or else a person.
    fn opponent_of(&self, seat: Seat) -> Opponent {
        let other = seat.other().index();
        match self.seats[other].bot_level() {
            Some(level) => Opponent::Bot(level),
            None if self.stood_in[other] => Opponent::Bot(self.stand_in_level()),
            None => Opponent::Person,
        }
    }

    /// The level of the bot that stands in for an absent person in this room. Should
    /// the room no longer name one (a game resumed under a configuration without
    /// takeovers), the weakest: a score is never credited as earned against a stronger
    /// bot than it was.
    fn stand_in_level(&self) -> BotLevel {
        match self.options.takeover.unwrap_or(self.settings.takeover) {
            Takeover::Bot(level) => level,
            Takeover::None => BotLevel::Random,
        }
    }

    /// Why a game that ended this way after `moves_by_seat` does not count for ratings,
    /// if it does not: it started from a given position, was aborted, had a bot stand in
    /// for a person, had a bot in a seat (only games between two people are rated), or
    /// ended before each side had made [`MIN_MOVES_EACH_TO_RATE`] moves.
    fn unrated_because(&self, outcome: Outcome, moves_by_seat: [u32; 2]) -> Option<Unrated> {
        if !self.options.scored() {
            Some(Unrated::FromPosition)
        } else if outcome.reason == EndReason::Aborted {
            Some(Unrated::Aborted)
        } else if self.stood_in.contains(&true) {
            Some(Unrated::BotStoodIn)
        } else if self.rating_keys().contains(&None) {
            Some(Unrated::BotOpponent)
        } else if moves_by_seat
            .iter()
            .any(|&moves| moves < MIN_MOVES_EACH_TO_RATE)
        {
            Some(Unrated::TooShort)
        } else {
            None
        }
    }

    /// Applies a recorded ending (with the rating changes the store made) and
    /// announces it: the finishing state, then `game_over`.
    pub fn conclude(
        &mut self,
        ending: PendingEnding,
        ratings: Option<[RatingShift; 2]>,
        now: Instant,
    ) -> Vec<Effect> {
        let PendingEnding {
            finish,
            leaving,
            outcome,
            scores,
            opponents,
            unrated,
            duration_ms,
            ..
        } = ending;
        let mut effects = Vec::new();
        // A player who left is let go before the ending is announced: they get only `left`.
        if let Some(conn) = leaving.and_then(|seat| {
            let conn = self.seats[seat.index()].conn();
            self.vacate(seat);
            conn
        }) {
            self.release_if_gone(conn, &mut effects);
        }
        if let Some(changes) = ratings {
            self.ratings = changes.map(|change| Some(change.after));
        }
        self.result = Some(outcome);
        self.bot_thinking = None;
        self.draw_offer = None;
        self.clock.halt(now);
        self.announce_state(now, None, &mut effects);
        info!(
            room = %self.id, game_id = %finish.game_id, reason = %outcome.reason,
            winner = ?outcome.winner.map(Seat::index), moves = self.history.len(), "game finished"
        );
        let game_over = GameOverMsg {
            room: self.id.clone(),
            game_id: finish.game_id,
            seq: self.seq,
            winner: outcome.winner,
            reason: outcome.reason,
            scores: Seat::BOTH
                .map(|seat| ScoreView {
                    seat,
                    name: self.seats[seat.index()].name(),
                    score: scores[seat.index()],
                    opponent: opponents[seat.index()],
                    rating_before: ratings.map(|changes| rounded(changes[seat.index()].before)),
                    rating_after: ratings.map(|changes| rounded(changes[seat.index()].after)),
                })
                .to_vec(),
            unrated,
            duration_ms,
        };
        effects.push(Effect::GameOver(Box::new(game_over)));
        effects
    }
}

/// A duration in whole milliseconds.
pub(super) fn duration_ms(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
