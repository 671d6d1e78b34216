//! Where challenges are kept while they wait for their answer: on this node alone, or,
//! in a fleet, in Redis (`fleet::Cluster`'s challenge keys), so that a challenge made
//! through one node is seen, answered and taken back through any. The first answer
//! wins, on one node as across a fleet.

use std::sync::Arc;

use dashmap::DashMap;
use tracing::warn;

use super::challenges::{Challenge, ChallengeStatus};
use crate::fleet::{Cluster, ClusterError, KeptChallenge};
use parlor_room::{PlayerId, RoomId};

/// The challenges. Cloning it is cheap and shares what it keeps.
#[derive(Clone, Default)]
pub(crate) struct Challenges {
    here: Arc<DashMap<RoomId, Challenge>>,
    /// The fleet's Redis, which keeps them instead when the node is in a fleet.
    fleet: Option<Cluster>,
}

impl Challenges {
    /// The challenges of a node in the fleet `cluster` speaks for, or of a single
    /// server (`None`).
    pub(crate) fn kept_by(cluster: Option<Cluster>) -> Challenges {
        Challenges {
            here: Arc::default(),
            fleet: cluster,
        }
    }

    /// Keeps `challenge`.
    pub(crate) async fn add(&self, challenge: &Challenge) -> Result<(), ClusterError> {
        let Some(cluster) = &self.fleet else {
            self.here.insert(challenge.id.clone(), challenge.clone());
            return Ok(());
        };
        // A challenge is plain data: it always serialises.
        let text = serde_json::to_string(challenge).unwrap_or_default();
        cluster
            .put_challenge(&challenge.id, &text, players(challenge))
            .await
    }

    /// The challenge `id`, if it is kept.
    pub(crate) async fn get(&self, id: &RoomId) -> Result<Option<Challenge>, ClusterError> {
        let Some(cluster) = &self.fleet else {
            return Ok(self.here.get(id).map(|challenge| challenge.clone()));
        };
        Ok(cluster.challenge(id).await?.and_then(read))
    }

    /// Sets the status of challenge `id` to `status` if it is still `Created`; the
    /// challenge as it then is, or `None` if it is gone or was answered before.
    pub(crate) async fn settle(
        &self,
        id: &RoomId,
        status: ChallengeStatus,
    ) -> Result<Option<Challenge>, ClusterError> {
        let Some(cluster) = &self.fleet else {
            let Some(mut entry) = self.here.get_mut(id) else {
                return Ok(None);
            };
            if entry.status != ChallengeStatus::Created {
                return Ok(None);
            }
            entry.status = status;
            return Ok(Some(entry.clone()));
        };
        let Some(mut challenge) = self.get(id).await? else {
            return Ok(None);
        };
        let text = serde_json::to_string(&status).unwrap_or_default();
        if challenge.status != ChallengeStatus::Created
            || !cluster.answer_challenge(id, &text).await?
        {
            return Ok(None);
        }
        challenge.status = status;
        Ok(Some(challenge))
    }

    /// Every challenge `player` is in that is kept, pending or answered.
    pub(crate) async fn of(&self, player: &PlayerId) -> Result<Vec<Challenge>, ClusterError> {
        let Some(cluster) = &self.fleet else {
            return Ok(self
                .here
                .iter()
                .filter(|challenge| challenge.seat_of(player).is_some())
                .map(|challenge| challenge.clone())
                .collect());
        };
        let kept = cluster.challenges_of(player).await?;
        Ok(kept.into_iter().filter_map(read).collect())
    }

    /// Forgets `challenge`.
    pub(crate) async fn forget(&self, challenge: &Challenge) -> Result<(), ClusterError> {
        let Some(cluster) = &self.fleet else {
            self.here.remove(&challenge.id);
            return Ok(());
        };
        cluster
            .forget_challenge(&challenge.id, players(challenge))
            .await
    }
}

/// The two players of `challenge`.
fn players(challenge: &Challenge) -> [&PlayerId; 2] {
    [
        &challenge.challenger.player.player_id,
        &challenge.dest.player.player_id,
    ]
}

/// A challenge as Redis kept it, its answer applied; `None` (and a warning) if it does
/// not read as one, as after an upgrade that changed what a challenge holds.
fn read((made, answer): KeptChallenge) -> Option<Challenge> {
    let mut challenge: Challenge = match serde_json::from_str(&made) {
        Ok(challenge) => challenge,
        Err(error) => {
            warn!(%error, "a challenge kept in Redis does not read as one; it is skipped");
            return None;
        }
    };
    if let Some(answer) = answer {
        match serde_json::from_str(&answer) {
            Ok(status) => challenge.status = status,
            Err(error) => {
                warn!(%error, "a challenge's answer kept in Redis does not read as one");
                return None;
            }
        }
    }
    Some(challenge)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot_api::challenges::{Colour, Party};
    use crate::fleet::cluster_tests::{SHORT_LEASE_MS, fleet};
    use parlor_room::{PlayerInfo, TimeControl};
    use parlor_rules::GameKind;
    use parlor_rules::games::Seat;

    fn party(id: &str, bot_account: bool) -> Party {
        Party {
            player: PlayerInfo {
                player_id: PlayerId::from(id),
                name: id.to_owned(),
                bot_account,
            },
            rating: None,
        }
    }

    fn challenge(id: &str) -> Challenge {
        Challenge {
            id: RoomId::from(id),
            challenger: party("p_ann", false),
            dest: party("p_robo", true),
            game: GameKind::Chess,
            time_control: TimeControl::None,
            rated: true,
            colour: Colour::Random,
            challenger_seat: Seat::Second,
            status: ChallengeStatus::Created,
        }
    }

    /// The answers of two nodes to one challenge, and what each node then reads.
    async fn first_answer_wins(a: &Challenges, b: &Challenges) {
        let made = challenge("c0ffee0001");
        a.add(&made).await.unwrap();
        let seen = b
            .get(&made.id)
            .await
            .unwrap()
            .expect("seen on the other node");
        assert_eq!((seen.challenger_seat, seen.rated), (Seat::Second, true));
        let robo = PlayerId::from("p_robo");
        assert_eq!(b.of(&robo).await.unwrap().len(), 1);

        let declined = ChallengeStatus::Declined("later".to_owned());
        let answered = b.settle(&made.id, declined.clone()).await.unwrap();
        assert_eq!(answered.map(|c| c.status), Some(declined.clone()));
        let late = a.settle(&made.id, ChallengeStatus::Accepted).await.unwrap();
        assert!(late.is_none(), "a second answer is refused");
        let read = a.get(&made.id).await.unwrap().map(|c| c.status);
        assert_eq!(read, Some(declined));

        a.forget(&made).await.unwrap();
        assert!(b.get(&made.id).await.unwrap().is_none());
        assert!(b.of(&robo).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn on_one_node_the_first_answer_wins() {
        let here = Challenges::default();
        first_answer_wins(&here, &here).await;
    }

    #[tokio::test]
    async fn across_a_fleet_the_first_answer_wins_on_any_node() {
        let Some([a, b]) = fleet::<2>("challenges_across_a_fleet", SHORT_LEASE_MS).await else {
            return;
        };
        let (a, b) = (Challenges::kept_by(Some(a)), Challenges::kept_by(Some(b)));
        first_answer_wins(&a, &b).await;
    }
}
