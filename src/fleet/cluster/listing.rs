//! What each node of a fleet lists, in Redis: the hash `<prefix>:listing:<node>` holds
//! the node's listed rooms (id → summary as JSON) and lapses a lease after the node's
//! last word, the sorted set `<prefix>:listers` names the nodes that have written one,
//! and the channel `<prefix>:lobby` carries each node's news of its rooms to the others.
//! A node writes its changes and publishes its news in one transaction, so a node that
//! reads the listings after subscribing to the news misses nothing.

use std::time::{SystemTime, UNIX_EPOCH};

use parlor_room::{NodeId, RoomId};
use redis::AsyncCommands;

use super::{Cluster, ClusterError};

/// How long a node that stopped writing stays in `<prefix>:listers` (its listing itself
/// lapses after a lease): only to keep the set from growing without end.
const LISTER_FORGOTTEN_AFTER_MS: i64 = 3_600_000;

/// A change to what this node lists.
#[derive(Debug, Default)]
pub(crate) struct ListingWrite {
    /// Whether this replaces the whole listing (after a start or a failure).
    pub(crate) full: bool,
    /// Rooms added or changed: id and summary as JSON.
    pub(crate) set: Vec<(RoomId, String)>,
    /// Rooms no longer listed.
    pub(crate) removed: Vec<RoomId>,
}

impl Cluster {
    fn listing_key(&self, node: &NodeId) -> String {
        format!("{}:listing:{node}", self.prefix)
    }

    fn listers_key(&self) -> String {
        format!("{}:listers", self.prefix)
    }

    fn lobby_channel(&self) -> String {
        format!("{}:lobby", self.prefix)
    }

    /// Writes `write` into this node's listing, keeps it for another lease, and
    /// publishes `news` (what the other nodes hear of it), all at once.
    pub(crate) async fn write_listing(
        &self,
        write: &ListingWrite,
        news: &str,
    ) -> Result<(), ClusterError> {
        let key = self.listing_key(&self.node);
        let now_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| {
                i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
            });
        let mut pipe = redis::pipe();
        pipe.atomic();
        if write.full {
            pipe.del(&key).ignore();
        }
        if !write.set.is_empty() {
            let set: Vec<(&str, &str)> = write
                .set
                .iter()
                .map(|(room, summary)| (room.as_str(), summary.as_str()))
                .collect();
            pipe.hset_multiple(&key, &set).ignore();
        }
        if !write.removed.is_empty() {
            let removed: Vec<&str> = write.removed.iter().map(RoomId::as_str).collect();
            pipe.hdel(&key, &removed).ignore();
        }
        pipe.pexpire(&key, i64::try_from(self.lease_ms()).unwrap_or(i64::MAX))
            .ignore()
            .zadd(self.listers_key(), self.node.as_str(), now_ms)
            .ignore()
            .zrembyscore(
                self.listers_key(),
                "-inf",
                now_ms.saturating_sub(LISTER_FORGOTTEN_AFTER_MS),
            )
            .ignore()
            .publish(self.lobby_channel(), news)
            .ignore();
        let mut redis = self.redis.clone();
        let () = pipe.query_async(&mut redis).await?;
        Ok(())
    }

    /// Deletes this node's listing and publishes `news` (that it has stopped).
    pub(crate) async fn withdraw_listing(&self, news: &str) -> Result<(), ClusterError> {
        let mut redis = self.redis.clone();
        let () = redis::pipe()
            .atomic()
            .del(self.listing_key(&self.node))
            .ignore()
            .zrem(self.listers_key(), self.node.as_str())
            .ignore()
            .publish(self.lobby_channel(), news)
            .ignore()
            .query_async(&mut redis)
            .await?;
        Ok(())
    }

    /// What every other node lists now, as it wrote it: its id and its rooms' summaries
    /// as JSON. A node whose listing has lapsed lists nothing.
    pub(crate) async fn listings(&self) -> Result<Vec<(NodeId, Vec<String>)>, ClusterError> {
        let mut redis = self.redis.clone();
        let nodes: Vec<String> = redis.zrange(self.listers_key(), 0, -1).await?;
        let nodes: Vec<NodeId> = nodes
            .into_iter()
            .map(NodeId::from)
            .filter(|node| *node != self.node)
            .collect();
        if nodes.is_empty() {
            return Ok(Vec::new());
        }
        let mut pipe = redis::pipe();
        for node in &nodes {
            pipe.hvals(self.listing_key(node));
        }
        let rooms: Vec<Vec<String>> = pipe.query_async(&mut redis).await?;
        Ok(nodes.into_iter().zip(rooms).collect())
    }

    /// What the node `node` lists now, as it wrote it (nothing once its listing lapsed).
    pub(crate) async fn listing_of(&self, node: &NodeId) -> Result<Vec<String>, ClusterError> {
        let mut redis = self.redis.clone();
        let rooms: Vec<String> = redis.hvals(self.listing_key(node)).await?;
        Ok(rooms)
    }

    /// Listens to the nodes' news of their rooms: every piece published from the moment
    /// this returns, until the connection to Redis breaks (the stream then ends).
    pub(crate) async fn follow_listings(
        &self,
    ) -> Result<impl futures_util::Stream<Item = String> + Send + use<>, ClusterError> {
        self.follow_channel(self.lobby_channel()).await
    }
}

#[cfg(test)]
mod tests {
    use futures_util::StreamExt;

    use super::*;
    use crate::fleet::cluster::tests::{SHORT_LEASE_MS, fleet, renew_until_lapsed};

    #[tokio::test]
    async fn a_node_reads_what_others_list_and_hears_their_news_until_a_listing_lapses() {
        let test = "a_node_reads_what_others_list_and_hears_their_news_until_a_listing_lapses";
        let Some([a, b]) = fleet(test, SHORT_LEASE_MS).await else {
            return;
        };
        let mut news = b.follow_listings().await.expect("follow");
        let write = ListingWrite {
            full: true,
            set: vec![
                (RoomId::from("r1"), "{\"room\":\"r1\"}".to_owned()),
                (RoomId::from("r2"), "{\"room\":\"r2\"}".to_owned()),
            ],
            removed: Vec::new(),
        };
        a.write_listing(&write, "first").await.expect("write");
        let removal = ListingWrite {
            removed: vec![RoomId::from("r1")],
            ..ListingWrite::default()
        };
        a.write_listing(&removal, "second").await.expect("write");
        assert_eq!(news.next().await.as_deref(), Some("first"));
        assert_eq!(news.next().await.as_deref(), Some("second"));
        let listings = b.listings().await.expect("listings");
        assert_eq!(
            listings,
            [(a.node().clone(), vec!["{\"room\":\"r2\"}".to_owned()])]
        );
        assert!(
            a.listings().await.expect("listings").is_empty(),
            "a node does not read its own"
        );
        // A node that stops writing lists nothing once a lease has passed; it is still
        // named among the listers.
        let lapsed = renew_until_lapsed(
            async || {},
            async || {
                let listings = b.listings().await.expect("listings");
                listings
                    .iter()
                    .all(|(_, rooms)| rooms.is_empty())
                    .then_some(listings)
            },
        )
        .await;
        assert_eq!(lapsed, [(a.node().clone(), Vec::new())]);
        a.withdraw_listing("gone").await.expect("withdraw");
        assert_eq!(news.next().await.as_deref(), Some("gone"));
        assert!(b.listings().await.expect("listings").is_empty());
    }
}
