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

use parlor_room::{GameId, PlayerId};
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
    ROW_SHARE_LOCK, ROW_SHARE_LOCK_PLAIN,
};
use crate::store::sql::BatchStats;
use crate::store::sql::log_connection::LogHost;
use crate::store::{
    Ban, ChatRecord, DrawOfferRecord, Fence, GameFinish, LeaderboardEntry, MoveRecord, NewGame,
    PlayerGame, PlayerRecord, RatingChange, RatingEntry, SiteIdentity, Store, StoreError,
    StoredGame, UnfinishedGame,
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
}

impl SqlStore {
    /// Brings the schema of `pool`'s database up to date and starts the move writer
    /// where `log` runs it; `exclusive` is kept until the store closes. The pool is
    /// closed again if the schema cannot be brought up to date or the writer started.
    pub(super) async fn start(
        pool: Pool<Db>,
        exclusive: ExclusiveHold,
        stats: BatchStats,
        log: impl LogHost,
    ) -> Result<SqlStore, StoreError> {
        if let Err(err) = MIGRATOR.run(&pool).await {
            pool.close().await;
            return Err(err.into());
        }
        if let Err(err) = names::upgrade_name_keys(&pool).await {
            pool.close().await;
            return Err(err);
        }
        if let Err(err) = rerating::recompute_ratings(&pool).await {
            pool.close().await;
            return Err(err);
        }
        let writes = Arc::new(Mutex::new(()));
        let moves = match MoveWriter::spawn(log, writes.clone(), stats) {
            Ok(moves) => moves,
            Err(err) => {
                pool.close().await;
                return Err(err);
            }
        };
        Ok(SqlStore {
            moves,
            pool,
            writes,
            exclusive: Arc::new(std::sync::Mutex::new(Some(exclusive))),
        })
    }
}

#[async_trait]
impl Store for SqlStore {
    async fn player_by_token(&self, token_hash: &str) -> Result<Option<PlayerRecord>, StoreError> {
        reads::player_by_token(&self.pool, token_hash).await
    }

    async fn create_player(
        &self,
        player: &PlayerRecord,
        token_hash: &str,
        created_at_ms: i64,
    ) -> Result<(), StoreError> {
        let _writing = self.writes.lock().await;
        writes::create_player(&self.pool, player, token_hash, None, created_at_ms).await?;
        tracing::debug!(player_id = %player.player_id, "player created");
        Ok(())
    }

    async fn player_by_identity(
        &self,
        identity: &SiteIdentity,
    ) -> Result<Option<PlayerRecord>, StoreError> {
        reads::player_by_identity(&self.pool, identity).await
    }

    async fn create_signed_in_player(
        &self,
        player: &PlayerRecord,
        token_hash: &str,
        identity: &SiteIdentity,
        created_at_ms: i64,
    ) -> Result<(), StoreError> {
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
    }

    async fn link_identity(
        &self,
        player_id: &PlayerId,
        identity: &SiteIdentity,
        token_hash: &str,
        linked_at_ms: i64,
    ) -> Result<(), StoreError> {
        let _writing = self.writes.lock().await;
        writes::link_identity(&self.pool, player_id, identity, token_hash, linked_at_ms).await?;
        tracing::debug!(%player_id, "player linked to a site account");
        Ok(())
    }

    async fn ban_player(&self, ban: &Ban) -> Result<(), StoreError> {
        let _writing = self.writes.lock().await;
        bans::ban_player(&self.pool, ban).await
    }

    async fn lift_ban(&self, player_id: &PlayerId) -> Result<bool, StoreError> {
        let _writing = self.writes.lock().await;
        bans::lift_ban(&self.pool, player_id).await
    }

    async fn ban_of(&self, player_id: &PlayerId, now_ms: i64) -> Result<Option<Ban>, StoreError> {
        bans::ban_of(&self.pool, player_id, now_ms).await
    }

    async fn bans(&self, now_ms: i64) -> Result<Vec<Ban>, StoreError> {
        bans::bans(&self.pool, now_ms).await
    }

    async fn rename_player(&self, player_id: &PlayerId, name: &str) -> Result<(), StoreError> {
        let _writing = self.writes.lock().await;
        writes::rename_player(&self.pool, player_id, name).await?;
        tracing::debug!(%player_id, "player renamed");
        Ok(())
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
        let _writing = self.writes.lock().await;
        let changes = writes::finish_game(&self.pool, finish, fence).await?;
        tracing::debug!(game_id = %finish.game_id, reason = %finish.reason, "game finished");
        Ok(changes)
    }

    async fn ratings(
        &self,
        game: GameKind,
        keys: [Option<&RatedKey>; 2],
    ) -> Result<[Option<Rating>; 2], StoreError> {
        reads::ratings(&self.pool, game, keys).await
    }

    async fn player_games(
        &self,
        player_id: &PlayerId,
        limit: u32,
    ) -> Result<Option<Vec<PlayerGame>>, StoreError> {
        reads::player_games(&self.pool, player_id, limit).await
    }

    async fn rating_leaderboard(
        &self,
        game: GameKind,
        limit: u32,
    ) -> Result<Vec<RatingEntry>, StoreError> {
        reads::rating_leaderboard(&self.pool, game, limit).await
    }

    async fn record_draw_offer(
        &self,
        game_id: &GameId,
        offer: Option<DrawOfferRecord>,
        fence: Fence,
    ) -> Result<(), StoreError> {
        let _writing = self.writes.lock().await;
        writes::record_draw_offer(&self.pool, game_id, offer, fence).await
    }

    async fn record_stand_in(
        &self,
        game_id: &GameId,
        seat: Seat,
        fence: Fence,
    ) -> Result<(), StoreError> {
        let _writing = self.writes.lock().await;
        writes::record_stand_in(&self.pool, game_id, seat, fence).await
    }

    async fn record_chat(&self, said: &ChatRecord, fence: Fence) -> Result<(), StoreError> {
        let _writing = self.writes.lock().await;
        writes::record_chat(&self.pool, said, fence).await
    }

    async fn interrupt_unfinished(&self) -> Result<u64, StoreError> {
        let _writing = self.writes.lock().await;
        writes::interrupt(&self.pool, None).await
    }

    async fn interrupt_game(&self, game_id: &GameId, fence: Fence) -> Result<(), StoreError> {
        let _writing = self.writes.lock().await;
        writes::interrupt(&self.pool, Some((game_id, fence)))
            .await
            .map(drop)
    }

    async fn unfinished_games(&self) -> Result<Vec<UnfinishedGame>, StoreError> {
        reads::unfinished_games(&self.pool).await
    }

    async fn take_over(&self, game_id: &GameId, fence: Fence) -> Result<(), StoreError> {
        let _writing = self.writes.lock().await;
        writes::take_over(&self.pool, game_id, fence).await
    }

    async fn next_incarnation(&self) -> Result<u64, StoreError> {
        let _writing = self.writes.lock().await;
        writes::next_incarnation(&self.pool).await
    }

    async fn game(&self, game_id: &GameId) -> Result<Option<StoredGame>, StoreError> {
        reads::game(&self.pool, game_id).await
    }

    async fn leaderboard(
        &self,
        game: GameKind,
        opponent: Option<Opponent>,
        limit: u32,
    ) -> Result<Vec<LeaderboardEntry>, StoreError> {
        reads::leaderboard(&self.pool, game, opponent, limit).await
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
        if let Ok(mut slot) = self.exclusive.lock() {
            slot.take();
        }
    }
}
