//! The SQL behind [`Store`], written once and compiled once per engine: the including
//! module (`sqlite` or `postgres`) names the database as `Db` and its few differences,
//! and everything here is checked against that driver's own types.
//!
//! Every write runs in a transaction and returns only after it has committed; moves share
//! transactions with other rooms' moves (group commit, [`batch`]). The parts: `writes`
//! and [`batch`] write, `endings` writes games' endings, `reads` answers the read API,
//! `names` claims players' names, `rerating` recomputes older databases' ratings once,
//! and `sqlx_log` makes this engine's connection a `LogConnection` for the game log's
//! SQL; rows decode through `super::rows`.

mod accounts;
mod bans;
mod batch;
mod endings;
mod names;
mod reads;
mod rerating;
mod sqlx_log;
#[cfg(test)]
mod tests;
mod writes;

use parlor_room::{GameId, PlayerId, RoomId};
use parlor_rules::GameKind;
use parlor_rules::games::Seat;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use sqlx::Pool;
use sqlx::migrate::Migrator;
use tokio::sync::Mutex;

use self::batch::MoveWriter;
#[cfg(test)]
use super::TestDb;
use super::{
    Db, DbConnection, ExclusiveHold, PLACEHOLDERS, RATINGS_LOCK, READ_SNAPSHOT, RERATING_LOCK,
    ROW_SHARE_LOCK, ROW_SHARE_LOCK_PLAIN, SESSION_OF, end_sessions, hold_evicted, release_hold,
};
use crate::store::sql::BatchStats;
use crate::store::sql::log_connection::LogHost;
use crate::store::sql::lost_sessions::LostSessions;
use crate::store::{
    AccountRecord, Ban, BotUpgrade, ChatRecord, DrawOfferRecord, Fence, GameFinish,
    LeaderboardEntry, MoveRecord, NewGame, PlayerGame, PlayerRecord, RatingChange, RatingEntry,
    Settled, SiteIdentity, Store, StoreError, StoredGame, UnfinishedGame,
};
use parlor_room::ratings::{RatedKey, Rating};
use parlor_room::scoring::Opponent;

/// The schema migrations in `migrations/`, embedded at compile time; the same files for
/// every engine.
pub(super) static MIGRATOR: Migrator = sqlx::migrate!("./migrations");

/// The [`Store`] backed by this engine's database. Cloning it is cheap and shares the
/// connection pool.
#[derive(Clone, Debug)]
pub(crate) struct SqlStore {
    /// The connection pool (open to the engine's module, for its own tests).
    pub(super) pool: Pool<Db>,
    /// This process's write transactions run one at a time: SQLite has a single writer
    /// anyway, and a transaction that reads before it writes (a rating update) must not
    /// race another. (Across processes, `RATINGS_LOCK` does that on PostgreSQL.)
    writes: Arc<Mutex<()>>,
    /// The group-commit writer every move goes through.
    moves: MoveWriter,
    /// What keeps a second server off the database (a lock on the SQLite file, or a
    /// PostgreSQL session holding an advisory lock), released when the store closes.
    exclusive: Arc<std::sync::Mutex<Option<ExclusiveHold>>>,
    /// Cancelled when another server takes the database over from this one.
    evicted: tokio_util::sync::CancellationToken,
    /// How long any call may wait on the database (`None`: a local database, whose
    /// waits are its own busy timeout).
    deadline: Option<Duration>,
    /// The sessions of batches given up mid-write, ended before a move's outcome is
    /// read.
    lost: LostSessions,
}

impl SqlStore {
    /// Brings the schema of the database up to date through `setup` (connections with
    /// no deadline: a migration may take long) and starts the move writer where `log`
    /// runs it, with its deadline; `exclusive` is kept until the store closes. The pool
    /// is closed again if the schema cannot be brought up to date or the writer started.
    pub(super) async fn start(
        pool: Pool<Db>,
        setup: &Pool<Db>,
        exclusive: ExclusiveHold,
        stats: BatchStats,
        log: impl LogHost,
    ) -> Result<SqlStore, StoreError> {
        let deadline = log.deadline();
        let lost = LostSessions::default();
        let ready = async {
            MIGRATOR.run(setup).await?;
            names::upgrade_name_keys(setup).await?;
            rerating::recompute_ratings(setup).await?;
            let writes = Arc::new(Mutex::new(()));
            let moves = MoveWriter::spawn(log, writes.clone(), stats, lost.clone())?;
            Ok::<_, StoreError>((writes, moves))
        };
        let (writes, moves) = match ready.await {
            Ok(ready) => ready,
            Err(err) => {
                pool.close().await;
                release_hold(exclusive).await;
                return Err(err);
            }
        };
        Ok(SqlStore {
            moves,
            pool,
            writes,
            evicted: hold_evicted(&exclusive),
            exclusive: Arc::new(std::sync::Mutex::new(Some(exclusive))),
            deadline,
            lost,
        })
    }

    /// `work` within the store's deadline: [`StoreError::TimedOut`] once it runs out
    /// (the connection `work` held is then dropped by the pool, not reused).
    async fn bounded<T>(
        &self,
        work: impl Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        let Some(limit) = self.deadline else {
            return work.await;
        };
        tokio::time::timeout(limit, work).await.unwrap_or_else(|_| {
            Err(StoreError::TimedOut {
                after_ms: u64::try_from(limit.as_millis()).unwrap_or(u64::MAX),
            })
        })
    }
}

#[async_trait]
impl Store for SqlStore {
    async fn player_by_token(&self, token_hash: &str) -> Result<Option<PlayerRecord>, StoreError> {
        self.bounded(async { reads::player_by_token(&self.pool, token_hash).await })
            .await
    }

    async fn create_player(
        &self,
        player: &PlayerRecord,
        token_hash: &str,
        created_at_ms: i64,
    ) -> Result<(), StoreError> {
        self.bounded(async {
            let _writing = self.writes.lock().await;
            writes::create_player(&self.pool, player, token_hash, None, created_at_ms).await?;
            tracing::debug!(player_id = %player.player_id, "player created");
            Ok(())
        })
        .await
    }

    async fn player_by_identity(
        &self,
        identity: &SiteIdentity,
    ) -> Result<Option<PlayerRecord>, StoreError> {
        self.bounded(async { reads::player_by_identity(&self.pool, identity).await })
            .await
    }

    async fn create_signed_in_player(
        &self,
        player: &PlayerRecord,
        token_hash: &str,
        identity: &SiteIdentity,
        created_at_ms: i64,
    ) -> Result<(), StoreError> {
        self.bounded(async {
            let _writing = self.writes.lock().await;
            writes::create_player(
                &self.pool,
                player,
                token_hash,
                Some(identity),
                created_at_ms,
            )
            .await?;
            tracing::debug!(player_id = %player.player_id, "signed-in player created");
            Ok(())
        })
        .await
    }

    async fn link_identity(
        &self,
        player_id: &PlayerId,
        identity: &SiteIdentity,
        token_hash: &str,
        linked_at_ms: i64,
    ) -> Result<(), StoreError> {
        self.bounded(async {
            let _writing = self.writes.lock().await;
            writes::link_identity(&self.pool, player_id, identity, token_hash, linked_at_ms)
                .await?;
            tracing::debug!(%player_id, "player linked to a site account");
            Ok(())
        })
        .await
    }

    async fn ban_player(&self, ban: &Ban) -> Result<(), StoreError> {
        self.bounded(async {
            let _writing = self.writes.lock().await;
            bans::ban_player(&self.pool, ban).await
        })
        .await
    }

    async fn lift_ban(&self, player_id: &PlayerId) -> Result<bool, StoreError> {
        self.bounded(async {
            let _writing = self.writes.lock().await;
            bans::lift_ban(&self.pool, player_id).await
        })
        .await
    }

    async fn ban_of(&self, player_id: &PlayerId, now_ms: i64) -> Result<Option<Ban>, StoreError> {
        self.bounded(async { bans::ban_of(&self.pool, player_id, now_ms).await })
            .await
    }

    async fn bans(&self, now_ms: i64) -> Result<Vec<Ban>, StoreError> {
        self.bounded(async { bans::bans(&self.pool, now_ms).await })
            .await
    }

    async fn latest_game_in_room(&self, room: &RoomId) -> Result<Option<GameId>, StoreError> {
        self.bounded(async { accounts::latest_game_in_room(&self.pool, room).await })
            .await
    }

    async fn account(&self, player_id: &PlayerId) -> Result<Option<AccountRecord>, StoreError> {
        self.bounded(async { accounts::account(&self.pool, player_id).await })
            .await
    }

    async fn account_named(&self, name: &str) -> Result<Option<AccountRecord>, StoreError> {
        self.bounded(async { accounts::account_named(&self.pool, name).await })
            .await
    }

    async fn set_bot_games(
        &self,
        player_id: &PlayerId,
        games: &[GameKind],
    ) -> Result<bool, StoreError> {
        self.bounded(async {
            let _writing = self.writes.lock().await;
            accounts::set_bot_games(&self.pool, player_id, games).await
        })
        .await
    }

    async fn upgrade_to_bot(
        &self,
        player_id: &PlayerId,
        now_ms: i64,
    ) -> Result<BotUpgrade, StoreError> {
        self.bounded(async {
            let _writing = self.writes.lock().await;
            let upgrade = accounts::upgrade_to_bot(&self.pool, player_id, now_ms).await?;
            tracing::debug!(%player_id, ?upgrade, "asked to become a bot account");
            Ok(upgrade)
        })
        .await
    }

    async fn rename_player(&self, player_id: &PlayerId, name: &str) -> Result<(), StoreError> {
        self.bounded(async {
            let _writing = self.writes.lock().await;
            writes::rename_player(&self.pool, player_id, name).await?;
            tracing::debug!(%player_id, "player renamed");
            Ok(())
        })
        .await
    }

    async fn create_game(
        &self,
        game: &NewGame,
        fence: Fence,
    ) -> Result<[Option<Rating>; 2], StoreError> {
        let ratings = self.moves.start(game, fence).await?;
        tracing::debug!(game_id = %game.game_id, game = %game.game, "game recorded");
        Ok(ratings)
    }

    async fn append_move(
        &self,
        mv: &MoveRecord,
        finish: Option<&GameFinish>,
        fence: Fence,
    ) -> Result<Option<[RatingChange; 2]>, StoreError> {
        self.moves.append(mv, finish, fence).await
    }

    async fn finish_game(
        &self,
        finish: &GameFinish,
        fence: Fence,
    ) -> Result<Option<[RatingChange; 2]>, StoreError> {
        self.bounded(async {
            let _writing = self.writes.lock().await;
            let changes = writes::finish_game(&self.pool, finish, fence).await?;
            tracing::debug!(game_id = %finish.game_id, reason = %finish.reason, "game finished");
            Ok(changes)
        })
        .await
    }

    async fn ratings(
        &self,
        game: GameKind,
        keys: [Option<&RatedKey>; 2],
    ) -> Result<[Option<Rating>; 2], StoreError> {
        self.bounded(async { reads::ratings(&self.pool, game, keys).await })
            .await
    }

    async fn player_games(
        &self,
        player_id: &PlayerId,
        limit: u32,
    ) -> Result<Option<Vec<PlayerGame>>, StoreError> {
        self.bounded(async { reads::player_games(&self.pool, player_id, limit).await })
            .await
    }

    async fn rating_leaderboard(
        &self,
        game: GameKind,
        limit: u32,
    ) -> Result<Vec<RatingEntry>, StoreError> {
        self.bounded(async { reads::rating_leaderboard(&self.pool, game, limit).await })
            .await
    }

    async fn record_draw_offer(
        &self,
        game_id: &GameId,
        offer: Option<DrawOfferRecord>,
        fence: Fence,
    ) -> Result<(), StoreError> {
        self.bounded(async {
            let _writing = self.writes.lock().await;
            writes::record_draw_offer(&self.pool, game_id, offer, fence).await
        })
        .await
    }

    async fn record_stand_in(
        &self,
        game_id: &GameId,
        seat: Seat,
        fence: Fence,
    ) -> Result<(), StoreError> {
        self.bounded(async {
            let _writing = self.writes.lock().await;
            writes::record_stand_in(&self.pool, game_id, seat, fence).await
        })
        .await
    }

    async fn record_chat(&self, said: &ChatRecord, fence: Fence) -> Result<(), StoreError> {
        self.bounded(async {
            let _writing = self.writes.lock().await;
            writes::record_chat(&self.pool, said, fence).await
        })
        .await
    }

    async fn interrupt_unfinished(&self) -> Result<u64, StoreError> {
        self.bounded(async {
            let _writing = self.writes.lock().await;
            writes::interrupt(&self.pool, None).await
        })
        .await
    }

    async fn interrupt_game(&self, game_id: &GameId, fence: Fence) -> Result<(), StoreError> {
        self.bounded(async {
            let _writing = self.writes.lock().await;
            writes::interrupt(&self.pool, Some((game_id, fence)))
                .await
                .map(drop)
        })
        .await
    }

    async fn unfinished_games(&self) -> Result<Vec<UnfinishedGame>, StoreError> {
        self.bounded(async { reads::unfinished_games(&self.pool).await })
            .await
    }

    async fn take_over(&self, game_id: &GameId, fence: Fence) -> Result<(), StoreError> {
        self.bounded(async {
            let _writing = self.writes.lock().await;
            writes::take_over(&self.pool, game_id, fence).await
        })
        .await
    }

    async fn next_incarnation(&self) -> Result<u64, StoreError> {
        self.bounded(async {
            let _writing = self.writes.lock().await;
            writes::next_incarnation(&self.pool).await
        })
        .await
    }

    async fn game(&self, game_id: &GameId) -> Result<Option<StoredGame>, StoreError> {
        self.bounded(async { reads::game(&self.pool, game_id).await })
            .await
    }

    async fn leaderboard(
        &self,
        game: GameKind,
        opponent: Option<Opponent>,
        limit: u32,
    ) -> Result<Vec<LeaderboardEntry>, StoreError> {
        self.bounded(async { reads::leaderboard(&self.pool, game, opponent, limit).await })
            .await
    }

    async fn settle_move(&self, mv: &MoveRecord) -> Result<Settled, StoreError> {
        self.bounded(async {
            end_sessions(&self.pool, &self.lost).await?;
            if !reads::move_stored(&self.pool, mv).await? {
                return Ok(Settled::NotStored);
            }
            let shifts = reads::rating_shifts(&self.pool, &mv.game_id).await?;
            Ok(Settled::Stored(shifts))
        })
        .await
    }

    async fn ping(&self, within: Duration) -> Result<(), StoreError> {
        // Through the pool the reads use: no write lock, no queue behind the writer.
        let asked = sqlx::query("SELECT 1").execute(&self.pool);
        match tokio::time::timeout(within, asked).await {
            Ok(answered) => answered.map(drop).map_err(StoreError::from),
            Err(_) => Err(StoreError::Unanswered {
                within_ms: u64::try_from(within.as_millis()).unwrap_or(u64::MAX),
            }),
        }
    }

    async fn close(&self) {
        self.moves.close().await;
        self.pool.close().await;
        // Only now may another server open the database.
        let hold = self.exclusive.lock().ok().and_then(|mut slot| slot.take());
        if let Some(hold) = hold {
            release_hold(hold).await;
        }
    }

    fn evicted(&self) -> tokio_util::sync::CancellationToken {
        self.evicted.clone()
    }
}
