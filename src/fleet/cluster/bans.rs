//! The channel `<prefix>:bans`, on which a node that bans a player tells every node of
//! the fleet, each of which closes that player's connections.

use super::{Cluster, ClusterError};

impl Cluster {
    fn bans_channel(&self) -> String {
        format!("{}:bans", self.prefix)
    }

    /// Tells every node following the bans (this one included) of `news`.
    pub(crate) async fn publish_ban(&self, news: &str) -> Result<(), ClusterError> {
        self.publish_on(self.bans_channel(), news).await
    }

    /// Listens to the fleet's bans: every one published from the moment this returns,
    /// until the connection to Redis breaks (the stream then ends).
    pub(crate) async fn follow_bans(
        &self,
    ) -> Result<impl futures_util::Stream<Item = String> + Send + use<>, ClusterError> {
        self.follow_channel(self.bans_channel()).await
    }
}
