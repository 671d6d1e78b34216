//! What the Bot API shares across a fleet, in Redis: the channel `<prefix>:bot-events`,
//! on which a node tells every node what happened to a player's challenges and games
//! (each node passes it on to the player's streams there), and the challenges
//! themselves, so that one made on one node is seen and answered on any:
//! `<prefix>:challenge:<id>` holds a challenge as made, `<prefix>:challenge:<id>:answer`
//! its answer (set once: the first answer wins), `<prefix>:challenges-of:<player>` the
//! ids of a player's challenges. All lapse after a day, so nothing outlives its use.
//! The texts are the Bot API's; this module only keeps and carries them.

use redis::AsyncCommands;

use super::{Cluster, ClusterError};
use parlor_room::{PlayerId, RoomId};

/// How long a challenge, its answer and a player's list of them are kept.
const CHALLENGE_KEPT_SECS: u64 = 86_400;

/// A challenge as kept: the text it was made with, and its answer's, once answered.
pub(crate) type KeptChallenge = (String, Option<String>);

impl Cluster {
    fn bot_events_channel(&self) -> String {
        format!("{}:bot-events", self.prefix)
    }

    fn challenge_key(&self, id: &RoomId) -> String {
        format!("{}:challenge:{id}", self.prefix)
    }

    fn answer_key(&self, id: &RoomId) -> String {
        format!("{}:challenge:{id}:answer", self.prefix)
    }

    fn challenges_of_key(&self, player: &PlayerId) -> String {
        format!("{}:challenges-of:{player}", self.prefix)
    }

    /// Tells every node following the Bot API's events (this one included) of `news`.
    pub(crate) async fn publish_bot_event(&self, news: &str) -> Result<(), ClusterError> {
        self.publish_on(self.bot_events_channel(), news).await
    }

    /// Listens to the Bot API's events: every one published from the moment this
    /// returns, until the connection to Redis breaks (the stream then ends).
    pub(crate) async fn follow_bot_events(
        &self,
    ) -> Result<impl futures_util::Stream<Item = String> + Send + use<>, ClusterError> {
        self.follow_channel(self.bot_events_channel()).await
    }

    /// Keeps challenge `id`, made as `text`, between `players`.
    pub(crate) async fn put_challenge(
        &self,
        id: &RoomId,
        text: &str,
        players: [&PlayerId; 2],
    ) -> Result<(), ClusterError> {
        let mut pipe = redis::pipe();
        pipe.atomic()
            .set_ex(self.challenge_key(id), text, CHALLENGE_KEPT_SECS)
            .ignore();
        for player in players {
            let key = self.challenges_of_key(player);
            pipe.sadd(&key, id.as_str()).ignore();
            pipe.expire(&key, CHALLENGE_KEPT_SECS as i64).ignore();
        }
        let mut redis = self.redis.clone();
        let () = pipe.query_async(&mut redis).await?;
        Ok(())
    }

    /// Challenge `id` as kept, if it is.
    pub(crate) async fn challenge(
        &self,
        id: &RoomId,
    ) -> Result<Option<KeptChallenge>, ClusterError> {
        let mut redis = self.redis.clone();
        let keys = [self.challenge_key(id), self.answer_key(id)];
        let (made, answer): (Option<String>, Option<String>) = redis.mget(&keys).await?;
        Ok(made.map(|made| (made, answer)))
    }

    /// Answers challenge `id` with `text` unless it has been answered; whether this was
    /// its answer.
    pub(crate) async fn answer_challenge(
        &self,
        id: &RoomId,
        text: &str,
    ) -> Result<bool, ClusterError> {
        let mut redis = self.redis.clone();
        let set: Option<String> = redis::cmd("SET")
            .arg(self.answer_key(id))
            .arg(text)
            .arg("NX")
            .arg("EX")
            .arg(CHALLENGE_KEPT_SECS)
            .query_async(&mut redis)
            .await?;
        Ok(set.is_some())
    }

    /// Every challenge `player` is in that is still kept.
    pub(crate) async fn challenges_of(
        &self,
        player: &PlayerId,
    ) -> Result<Vec<KeptChallenge>, ClusterError> {
        let mut redis = self.redis.clone();
        let ids: Vec<String> = redis.smembers(self.challenges_of_key(player)).await?;
        let mut kept = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(challenge) = self.challenge(&RoomId::from(id)).await? {
                kept.push(challenge);
            }
        }
        Ok(kept)
    }

    /// Forgets challenge `id`, between `players`.
    pub(crate) async fn forget_challenge(
        &self,
        id: &RoomId,
        players: [&PlayerId; 2],
    ) -> Result<(), ClusterError> {
        let mut pipe = redis::pipe();
        pipe.atomic()
            .del(&[self.challenge_key(id), self.answer_key(id)])
            .ignore();
        for player in players {
            pipe.srem(self.challenges_of_key(player), id.as_str())
                .ignore();
        }
        let mut redis = self.redis.clone();
        let () = pipe.query_async(&mut redis).await?;
        Ok(())
    }
}
