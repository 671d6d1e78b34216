//! A person's challenges to bot accounts on the WebSocket (PROTOCOL.md §6.20, §6.21):
//! `challenge` and `cancel_challenge` made through the Bot API's own challenges, and what
//! the connection is told of their answers (`challenge_accepted`, `challenge_declined`).

use serde_json::Value;

use super::connection::Connection;
use crate::bot_api::challenge_routes::{self, Asked};
use crate::bot_api::challenges::{ChallengeStatus, Colour, decline_sentence};
use crate::bot_api::events::{BotEvent, ChallengeNews};
use crate::bot_api::reply::BotApiError;
use crate::http::ApiError;
use crate::protocol::{Checked, ClientError, ErrorCode, ServerMsg};
use crate::store::{AccountRecord, StoreError};
use parlor_room::{PlayerId, RoomId, TimeControl};
use parlor_rules::GameKind;
use parlor_rules::games::Seat;

/// What a `challenge` message asks for.
pub(super) struct ChallengeAsked {
    pub(super) name: String,
    pub(super) game: Checked<GameKind>,
    pub(super) time_control: Checked<TimeControl>,
    pub(super) seat: Option<Checked<Seat>>,
    pub(super) rated: bool,
}

impl Connection {
    /// Challenges the bot account called `asked.name`; answers `challenge_sent`, and
    /// from then on the connection hears of its player's challenges.
    pub(super) async fn challenge(
        &mut self,
        asked: ChallengeAsked,
        reference: Option<Value>,
    ) -> Result<Vec<ServerMsg>, ClientError> {
        let player = self.player_info()?;
        let (game, time_control) = (asked.game.get()?, asked.time_control.get()?);
        let colour = match asked.seat.map(Checked::get).transpose()? {
            None => Colour::Random,
            Some(Seat::First) => Colour::White,
            Some(Seat::Second) => Colour::Black,
        };
        let store = self.app.store.as_ref();
        let bot = store
            .account_named(&asked.name)
            .await
            .map_err(unavailable)?;
        if bot.is_none_or(|bot| bot.bot_since_ms.is_none()) {
            return Err(ClientError::new(
                ErrorCode::UnknownPlayer,
                format!(
                    "No bot account is called {}. GET /api/bot/online lists the bots online.",
                    asked.name
                ),
            ));
        }
        let me = self.own_account(&player.player_id).await?;
        // Heard from before the challenge is made, so that no quick answer is missed.
        if self.bot_events.is_none() {
            self.bot_events = Some(self.app.events.open(&player.player_id));
        }
        let name = asked.name;
        let asked = Asked {
            game,
            time_control,
            colour,
            rated: asked.rated,
        };
        let made = challenge_routes::make(&self.app, &me, &name, asked).await;
        let challenge = made.map_err(refusal)?;
        // Those answered meanwhile are forgotten, so the list stays short.
        let mut still = Vec::new();
        for id in std::mem::take(&mut self.challenges_sent) {
            if matches!(self.app.challenges.get(&id).await, Ok(Some(_))) {
                still.push(id);
            }
        }
        still.push(challenge.id.clone());
        self.challenges_sent = still;
        Ok(vec![ServerMsg::ChallengeSent {
            challenge: challenge.id.clone(),
            name: challenge.dest.player.name.clone(),
            game,
            seat: challenge.challenger_seat,
            reference,
        }])
    }

    /// Takes back this player's challenge `challenge`; answers `challenge_canceled`.
    pub(super) async fn cancel_challenge(
        &mut self,
        challenge: RoomId,
        reference: Option<Value>,
    ) -> Result<Vec<ServerMsg>, ClientError> {
        let player = self.player_info()?;
        let me = self.own_account(&player.player_id).await?;
        challenge_routes::cancel_for(&self.app, &me, challenge.as_str())
            .await
            .map_err(refusal)?;
        Ok(vec![ServerMsg::ChallengeCanceled {
            challenge,
            reference,
        }])
    }

    /// Takes back the challenges this connection made that still wait for an answer:
    /// it is closing, and nobody would be there to play the game.
    pub(super) async fn withdraw_challenges(&self) {
        for id in &self.challenges_sent {
            if let Err(error) = challenge_routes::withdraw(&self.app, id).await {
                tracing::warn!(%error, challenge = %id, "a closed connection's challenge could not be taken back");
            }
        }
    }

    /// The account of this connection's player, as challenges name it.
    async fn own_account(&self, player: &PlayerId) -> Result<AccountRecord, ClientError> {
        let account = self.app.store.account(player).await.map_err(unavailable)?;
        account.ok_or_else(|| {
            ClientError::new(
                ErrorCode::UnknownPlayer,
                "Say hello again: this player is gone.",
            )
        })
    }
}

/// The refusal of a request whose store read failed.
fn unavailable(error: StoreError) -> ClientError {
    tracing::warn!(%error, "a challenge could not read the store");
    ClientError::storage_unavailable()
}

/// The refusal a Bot API error makes on the WebSocket.
fn refusal(error: BotApiError) -> ClientError {
    match error {
        BotApiError::Refused(error) => error,
        BotApiError::NotFound(message) => ClientError::new(ErrorCode::UnknownPlayer, message),
        BotApiError::BadRequest(message) | BotApiError::TooManyRequests(message) => {
            ClientError::new(ErrorCode::BadMessage, message)
        }
        BotApiError::Http(ApiError::Unavailable(_)) | BotApiError::Fleet(_) => {
            ClientError::storage_unavailable()
        }
        BotApiError::Http(error) => ClientError::new(ErrorCode::BadMessage, error.to_string()),
    }
}

/// What the connection is told of `event`, if anything: a challenge of its player's
/// accepted (its room and seat) or declined. News of its own making or cancelling, and of
/// games' ends, it has already.
pub(super) fn told(event: &BotEvent) -> Option<ServerMsg> {
    match event {
        BotEvent::GameStart(game) => Some(ServerMsg::ChallengeAccepted {
            challenge: game.room.clone(),
            room: game.room.clone(),
            seat: game.seat,
        }),
        BotEvent::Challenge(ChallengeNews::Declined, challenge) => {
            let ChallengeStatus::Declined(reason) = &challenge.status else {
                return None;
            };
            Some(ServerMsg::ChallengeDeclined {
                challenge: challenge.id.clone(),
                reason: reason.clone(),
                message: decline_sentence(reason).to_owned(),
            })
        }
        BotEvent::Challenge(ChallengeNews::Made | ChallengeNews::Canceled, _)
        | BotEvent::GameFinish(_) => None,
    }
}
