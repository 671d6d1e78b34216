//! The channel `<prefix>:bans`, on which a node that bans a player tells every node of
//! the fleet, each of which closes that player's connections.

use redis::AsyncCommands;

use super::{Cluster, ClusterError};

impl Cluster {
    fn bans_channel(&self) -> String {
        format!("{}:bans", self.prefix)
    }

    /// Tells every node following the bans (this one included) of `news`.
    pub(crate) async fn publish_ban(&self, news: &str) -> Result<(), ClusterError> {
        let mut redis = self.redis.clone();
        let _heard: u64 = redis.publish(self.bans_channel(), news).await?;
        Ok(())
    }

    /// Listens to the fleet's bans: every one published from the moment this returns,
    /// until the connection to Redis breaks (the stream then ends).
    pub(crate) async fn follow_bans(
        &self,
    ) -> Result<impl futures_util::Stream<Item = String> + Send + use<>, ClusterError> {
        let mut pubsub = self.client.get_async_pubsub().await?;
        pubsub.subscribe(self.bans_channel()).await?;
        Ok(futures_util::StreamExt::filter_map(
            pubsub.into_on_message(),
            |message| futures_util::future::ready(message.get_payload::<String>().ok()),
        ))
    }
}
