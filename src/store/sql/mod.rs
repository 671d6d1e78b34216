//! SQL implementation of the [`Store`] trait.
//!
//! [`SqlStore`] talks to the database through sqlx's `Any` driver, so one set of queries
//! and one set of migrations (`migrations/`) serves SQLite (the embedded default) and,
//! later, PostgreSQL. The SQL therefore sticks to what both engines accept:
//!
//! * `$1, $2, …` placeholders (SQLite accepts `$N` and binds it to the N-th argument),
//!   except in the statements generated per batch, which write SQLite's plain `?`
//!   (`Placeholders`);
//! * `BIGINT` and `TEXT` columns only, decoded as `i64` and `String` (through `Any`, SQLite
//!   integers arrive as 64-bit values, and columns declared `BOOLEAN`, `DATE`, `TIMESTAMP`…
//!   cannot be decoded at all);
//! * `INSERT … ON CONFLICT … DO NOTHING / DO UPDATE … WHERE` for claims and upserts;
//! * `UPDATE … FROM (VALUES …)` for a batch's endings (SQLite 3.33 and later, which the
//!   bundled SQLite is).
//!
//! Every write runs in a transaction and returns only after it has committed; moves share
//! transactions with other rooms' moves (group commit, [`batch`]). On SQLite each
//! connection runs with `journal_mode=WAL` and `synchronous=FULL`, so a commit has
//! reached the disk when the call returns.
//!
//! The parts: `connect` opens the database (and is where an engine is chosen),
//! `writes` and [`batch`] write, `endings` writes games' endings, `reads` answers the
//! read API, `rows` decodes rows into the store's values, `names` keys players' names,
//! and `sqlite_file` guards a SQLite file.

pub(crate) mod batch;
mod connect;
mod endings;
mod names;
mod placeholders;
mod reads;
mod rows;
mod sqlite_file;
#[cfg(test)]
mod tests;
mod writes;

use parlor_rules::GameKind;
use std::sync::Arc;

use async_trait::async_trait;
use sqlx::AnyPool;
use tokio::sync::Mutex;

use self::batch::MoveWriter;
use self::sqlite_file::FileLock;
use super::{
    DrawOfferRecord, GameFinish, LeaderboardEntry, MoveRecord, NewGame, PlayerGame, PlayerRecord,
    RatingChange, RatingEntry, Store, StoreError, StoredGame,
};
use crate::ratings::Rating;

pub(crate) use self::connect::SqliteTuning;

/// The [`Store`] backed by an SQL database (SQLite or, later, PostgreSQL) through sqlx's
/// `Any` driver. Cloning it is cheap and shares the connection pool.
#[derive(Clone, Debug)]
pub(crate) struct SqlStore {
    pool: AnyPool,
    /// Write transactions run one at a time: SQLite has a single writer anyway, and a
    /// transaction that reads before it writes (a rating update) must not race another.
    writes: Arc<Mutex<()>>,
    /// The group-commit writer every move goes through.
    moves: MoveWriter,
    /// The exclusive hold on a SQLite file, released when the store closes.
    file_lock: Arc<std::sync::Mutex<Option<FileLock>>>,
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
        writes::create_player(&self.pool, player, token_hash, created_at_ms).await?;
        tracing::debug!(player_id = %player.player_id, "player created");
        Ok(())
    }

    async fn rename_player(&self, player_id: &str, name: &str) -> Result<(), StoreError> {
        let _writing = self.writes.lock().await;
        writes::rename_player(&self.pool, player_id, name).await?;
        tracing::debug!(player_id, "player renamed");
        Ok(())
    }

    async fn create_game(&self, game: &NewGame) -> Result<(), StoreError> {
        self.moves.start(game).await?;
        tracing::debug!(game_id = %game.game_id, game = %game.game, "game recorded");
        Ok(())
    }

    async fn append_move(
        &self,
        mv: &MoveRecord,
        finish: Option<&GameFinish>,
    ) -> Result<Option<[RatingChange; 2]>, StoreError> {
        self.moves.append(mv, finish).await
    }

    async fn finish_game(
        &self,
        finish: &GameFinish,
    ) -> Result<Option<[RatingChange; 2]>, StoreError> {
        let _writing = self.writes.lock().await;
        let changes = writes::finish_game(&self.pool, finish).await?;
        tracing::debug!(game_id = %finish.game_id, reason = %finish.reason, "game finished");
        Ok(changes)
    }

    async fn ratings(
        &self,
        game: GameKind,
        keys: [&str; 2],
    ) -> Result<[Option<Rating>; 2], StoreError> {
        reads::ratings(&self.pool, game, keys).await
    }

    async fn player_games(
        &self,
        player_id: &str,
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
        game_id: &str,
        offer: Option<DrawOfferRecord>,
    ) -> Result<(), StoreError> {
        let _writing = self.writes.lock().await;
        writes::record_draw_offer(&self.pool, game_id, offer).await
    }

    async fn record_stand_in(&self, game_id: &str, seat: u8) -> Result<(), StoreError> {
        let _writing = self.writes.lock().await;
        writes::record_stand_in(&self.pool, game_id, seat).await
    }

    async fn interrupt_unfinished(&self) -> Result<u64, StoreError> {
        let _writing = self.writes.lock().await;
        writes::interrupt(&self.pool, None).await
    }

    async fn interrupt_game(&self, game_id: &str) -> Result<(), StoreError> {
        let _writing = self.writes.lock().await;
        writes::interrupt(&self.pool, Some(game_id)).await.map(drop)
    }

    async fn unfinished_game_ids(&self) -> Result<Vec<String>, StoreError> {
        reads::unfinished_game_ids(&self.pool).await
    }

    async fn next_incarnation(&self) -> Result<u64, StoreError> {
        let _writing = self.writes.lock().await;
        writes::next_incarnation(&self.pool).await
    }

    async fn game(&self, game_id: &str) -> Result<Option<StoredGame>, StoreError> {
        reads::game(&self.pool, game_id).await
    }

    async fn leaderboard(
        &self,
        game: GameKind,
        limit: u32,
    ) -> Result<Vec<LeaderboardEntry>, StoreError> {
        reads::leaderboard(&self.pool, game, limit).await
    }

    async fn close(&self) {
        self.moves.close().await;
        self.pool.close().await;
        // Only now may another process open the file.
        if let Ok(mut slot) = self.file_lock.lock() {
            slot.take();
        }
    }
}
