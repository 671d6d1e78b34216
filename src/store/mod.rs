//! Durable storage of players, games, moves and the leaderboard.
//!
//! Rooms and sessions talk to a [`Store`] trait object, which [`open`] makes from
//! `[store]`: SQLite (the embedded default) or PostgreSQL, one set of SQL and of
//! migrations compiled for each engine's native sqlx driver.
//!
//! This file holds the trait and its error; `records` a player and the fencing token
//! (the games' records are the room's, `parlor_room::records`), `stored` the values the
//! read API returns, `status` a stored game's [`GameStatus`], and `sql` the SQL engine.

mod claimant;
mod records;
mod sql;
mod status;
mod stored;

use std::time::Duration;

use async_trait::async_trait;
use parlor_room::{GameId, PlayerId, RoomId};
use parlor_rules::GameKind;
use parlor_rules::games::Seat;

use parlor_room::ratings::{RatedKey, Rating};
use parlor_room::scoring::Opponent;

// What rooms record, and read back to resume a game, is the room's own vocabulary: the
// store writes and returns it as it is.
pub(crate) use claimant::{Claimant, FleetIdentity};
pub(crate) use parlor_room::records::{
    ChatRecord, DrawOfferRecord, GameFinish, MoveRecord, NewGame, RatingChange, RatingShift,
    StoredChatLine, StoredMove, StoredSeat,
};
pub(crate) use records::{
    AccountRecord, Ban, BotUpgrade, Fence, GameRating, PlayerRecord, SiteIdentity,
};
pub(crate) use sql::{BatchStats, open};
pub(crate) use status::GameStatus;
pub(crate) use stored::{LeaderboardEntry, PlayerGame, RatingEntry, StoredGame, UnfinishedGame};

impl StoreError {
    /// Whether a stored record could not be read back as a value (a damaged row, or one
    /// a newer version wrote): retrying will not help.
    pub(crate) fn is_unreadable_record(&self) -> bool {
        matches!(self, StoreError::Database(sqlx::Error::ColumnDecode { .. }))
    }

    /// Whether the database could not be reached at all (the connection broke, or no
    /// connection could be made in time), as opposed to refusing a statement.
    pub(crate) fn is_connection_lost(&self) -> bool {
        matches!(
            self,
            StoreError::ConnectionLost { .. }
                | StoreError::TimedOut { .. }
                | StoreError::Database(
                    sqlx::Error::Io(_)
                        | sqlx::Error::Tls(_)
                        | sqlx::Error::Protocol(_)
                        | sqlx::Error::PoolTimedOut
                        | sqlx::Error::PoolClosed
                        | sqlx::Error::WorkerCrashed
                )
                | StoreError::Sqlite(rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error {
                        code: rusqlite::ErrorCode::CannotOpen,
                        ..
                    },
                    _,
                ))
        )
    }
}

impl StoreError {
    /// Whether a write that failed so may have been stored all the same: it ran out of
    /// time, or its connection broke, after it was sent (a lost `COMMIT`
    /// acknowledgement). A connection never obtained, or a statement the database
    /// itself cancelled, stored nothing.
    pub(crate) fn may_have_landed(&self) -> bool {
        matches!(
            self,
            StoreError::TimedOut { .. }
                | StoreError::ConnectionLost { .. }
                | StoreError::Unsettled { .. }
                | StoreError::Database(
                    sqlx::Error::Io(_)
                        | sqlx::Error::Tls(_)
                        | sqlx::Error::Protocol(_)
                        | sqlx::Error::WorkerCrashed
                )
        )
    }

    /// Whether the database cancelled the statement itself, which then stored nothing:
    /// its `statement_timeout` or `lock_timeout` ran out (SQLSTATE 57014, 55P03).
    pub(crate) fn is_cancelled_by_database(&self) -> bool {
        match self {
            StoreError::Database(sqlx::Error::Database(error)) => {
                matches!(error.code().as_deref(), Some("57014" | "55P03"))
            }
            _ => false,
        }
    }
}

/// What [`Store::settle_move`] found of a move whose write's outcome was lost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Settled {
    /// The move is not stored, and never will be.
    NotStored,
    /// The move is stored; when it ended a rated game, with each seat's rating before
    /// and after it, as the game's record keeps them.
    Stored(Option<[RatingShift; 2]>),
}

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The name, or one a person would read as the same, is owned by another player.
    #[error("the name is already taken by another player")]
    NameTaken,
    /// The site account already has a player of its own, or the player an account of
    /// its own.
    #[error("the account or the player is already linked")]
    AlreadyLinked,
    /// No player has that id.
    #[error("no player has that id")]
    UnknownPlayer,
    /// The database could not be opened, read or written.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// The SQLite game log's own connection could not be opened, read or written.
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The thread that writes the SQLite game log could not be started.
    #[error("could not start the game log's writer thread: {0}")]
    WriterThread(std::io::Error),
    /// The schema migrations could not be applied at start-up.
    #[error("could not apply database migrations: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// The database could not be reached while a batch of writes was being made; nothing
    /// of the batch was acknowledged.
    #[error("lost the connection to the database: {reason}")]
    ConnectionLost {
        /// What the driver reported.
        reason: String,
    },
    /// The database stopped answering (or the connection broke) after the write was
    /// sent: whether it was stored is not known until [`Store::settle_move`] reads it.
    #[error(
        "the database stopped answering while the write was being made ({reason}); whether it was stored is not known yet"
    )]
    Unsettled {
        /// What the driver reported, or the deadline that ran out.
        reason: String,
    },
    /// The database did not answer within `store.write_timeout_ms`; the connection was
    /// dropped.
    #[error(
        "the database did not answer within {after_ms} ms (store.write_timeout_ms); check that PostgreSQL is up and reachable"
    )]
    TimedOut {
        /// The deadline, in milliseconds.
        after_ms: u64,
    },
    /// The game is owned under another token: another node has taken its room over.
    #[error("game {game_id} is now played on another node; this one may not write for it")]
    Fenced {
        /// The game.
        game_id: GameId,
    },
    /// Another game (of another room, or owned under another token, or no longer
    /// starting) is stored under the id of a game being started.
    #[error(
        "another game is already stored as {game_id}; the start was not recorded (a new game id is needed)"
    )]
    GameIdTaken {
        /// The id.
        game_id: GameId,
    },
    /// The store has been closed (the server is shutting down).
    #[error("the store is closed")]
    Closed,
    /// The database did not answer a health check's trivial query in time (it is
    /// stalled, overloaded or cut off by the network).
    #[error(
        "the database did not answer a trivial query within {within_ms} ms; check that it runs and that the network to it is not cut"
    )]
    Unanswered {
        /// How long it was given, ms.
        within_ms: u64,
    },
    /// Another process holds the database (a second Parlor on the same file would mark
    /// the first one's live games interrupted).
    #[error(
        "the database {path} is in use by another Parlor process{}; stop that process first, or give this one another store.path",
        holder.map(|pid| format!(" (pid {pid})")).unwrap_or_default()
    )]
    InUse {
        /// The database file.
        path: String,
        /// The holding process's id, when its lock file names it.
        holder: Option<u32>,
    },
    /// The lock file beside the database could not be created or locked.
    #[error("could not lock the database with {path}: {source}")]
    Lock {
        /// The lock file.
        path: String,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// The file at `store.path` is not a SQLite database.
    #[error(
        "{path} is not a SQLite database; point store.path at a Parlor database, or at a new file to create one"
    )]
    NotSqlite {
        /// The file.
        path: String,
    },
    /// `store.url` is not a PostgreSQL URL sqlx can read.
    #[error(
        "store.url is not a PostgreSQL URL ({reason}); write it as postgres://user:password@host:port/database"
    )]
    BadUrl {
        /// What is wrong with it (never the URL itself, which may hold a password).
        reason: String,
    },
    /// The database server could not be reached or refused the connection.
    #[error(
        "could not connect to PostgreSQL at {place}: {source}; check store.url and that the server is running"
    )]
    Unreachable {
        /// The host, port and database tried.
        place: String,
        /// What the driver reported.
        source: sqlx::Error,
    },
    /// Another Parlor server holds the PostgreSQL database (or schema).
    #[error(
        "the PostgreSQL database {place} is in use by another Parlor server; stop that server first, or give this one another database or schema (options[search_path])"
    )]
    DatabaseInUse {
        /// The host, port and database.
        place: String,
    },
    /// Live servers this one may not share the database with hold it.
    #[error(
        "the PostgreSQL database {place} is held by {holders}; {claimant} would take their games. Give this server the same [cluster] redis_url and key_prefix as those servers, or point store.url at another database; to move the database to this server on purpose (the holders then give up their games and stop), start it once with --take-over-database"
    )]
    HeldByOthers {
        /// The host, port and database.
        place: String,
        /// What this server is.
        claimant: String,
        /// The servers holding it, as the registry describes them.
        holders: String,
    },
    /// A take-over (`--take-over-database`) found servers that did not let go in time.
    #[error(
        "took the PostgreSQL database {place} over, but these servers did not let go within 30 s: {holders}; stop them (or end their sessions with SELECT pg_terminate_backend(<session>)), then start this server again"
    )]
    TakeOverStalled {
        /// The host, port and database.
        place: String,
        /// The servers still holding it.
        holders: String,
    },
    /// The database file's folder could not be created.
    #[error("could not create the folder for the database file {path}: {source}")]
    CreateDir {
        /// The folder that could not be created.
        path: String,
        /// The underlying I/O error.
        source: std::io::Error,
    },
}

/// Durable storage. Every write returns only once it is durable (committed; see
/// the README's "Durability" section for what that means on SQLite), so a caller may make
/// its effect visible as soon as the call succeeds.
#[async_trait]
pub(crate) trait Store: Send + Sync + 'static {
    /// The player whose token hashes to `token_hash`, if any.
    async fn player_by_token(&self, token_hash: &str) -> Result<Option<PlayerRecord>, StoreError>;

    /// Registers a new player and claims their name, atomically.
    /// Fails with [`StoreError::NameTaken`] if another player owns the name.
    async fn create_player(
        &self,
        player: &PlayerRecord,
        token_hash: &str,
        created_at_ms: i64,
    ) -> Result<(), StoreError>;

    /// The player a site account signs in as, if it has signed in before.
    async fn player_by_identity(
        &self,
        identity: &SiteIdentity,
    ) -> Result<Option<PlayerRecord>, StoreError>;

    /// Registers a new player for a site account and claims their name, atomically.
    /// Fails with [`StoreError::NameTaken`] if another player owns the name, and with
    /// [`StoreError::AlreadyLinked`] if the account has a player already.
    async fn create_signed_in_player(
        &self,
        player: &PlayerRecord,
        token_hash: &str,
        identity: &SiteIdentity,
        created_at_ms: i64,
    ) -> Result<(), StoreError>;

    /// Binds a site account to an existing (guest) player, keeping their games and
    /// ratings, and replaces their guest token's hash with `token_hash` (a token nobody
    /// holds: from then on the player signs in through the site only). Fails with
    /// [`StoreError::AlreadyLinked`] if either is bound already.
    async fn link_identity(
        &self,
        player_id: &PlayerId,
        identity: &SiteIdentity,
        token_hash: &str,
        linked_at_ms: i64,
    ) -> Result<(), StoreError>;

    /// Bans a player (replacing any ban they had). Fails with
    /// [`StoreError::UnknownPlayer`] if there is no such player.
    async fn ban_player(&self, ban: &Ban) -> Result<(), StoreError>;

    /// Lifts a player's ban; whether they had one.
    async fn lift_ban(&self, player_id: &PlayerId) -> Result<bool, StoreError>;

    /// The ban on a player still in force at `now_ms`, if any.
    async fn ban_of(&self, player_id: &PlayerId, now_ms: i64) -> Result<Option<Ban>, StoreError>;

    /// Every ban still in force at `now_ms`, newest first.
    async fn bans(&self, now_ms: i64) -> Result<Vec<Ban>, StoreError>;

    /// The latest game played in room `room`, if one was.
    async fn latest_game_in_room(&self, room: &RoomId) -> Result<Option<GameId>, StoreError>;

    /// A player's account (name, since when, whether a bot account, ratings), if any.
    async fn account(&self, player_id: &PlayerId) -> Result<Option<AccountRecord>, StoreError>;

    /// The account of the player whose name is `name`, compared as names are (case and
    /// look-alike characters aside), if any.
    async fn account_named(&self, name: &str) -> Result<Option<AccountRecord>, StoreError>;

    /// Sets the games a bot account takes challenges in; `false` if the player is not a
    /// bot account.
    async fn set_bot_games(
        &self,
        player_id: &PlayerId,
        games: &[GameKind],
    ) -> Result<bool, StoreError>;

    /// Makes a player who has no games a bot account, for good, at `now_ms`.
    async fn upgrade_to_bot(
        &self,
        player_id: &PlayerId,
        now_ms: i64,
    ) -> Result<BotUpgrade, StoreError>;

    /// Gives an existing player a new display name, claiming it if unclaimed.
    /// Fails with [`StoreError::NameTaken`] if another player owns it.
    async fn rename_player(&self, player_id: &PlayerId, name: &str) -> Result<(), StoreError>;

    /// Records a game that has just started, with both seats, owned under `fence`;
    /// returns both seats' ratings in its game as they stand (each `None` without one),
    /// read in the same transaction, for the room to show.
    async fn create_game(
        &self,
        game: &NewGame,
        fence: Fence,
    ) -> Result<[Option<Rating>; 2], StoreError>;

    /// Appends a move to its game's log; if `finish` is given (the move ended the game)
    /// the ending is written in the same transaction, with the rating changes it causes.
    /// Fails with [`StoreError::Fenced`] if the game is owned under a token other than
    /// `fence`.
    async fn append_move(
        &self,
        mv: &MoveRecord,
        finish: Option<&GameFinish>,
        fence: Fence,
    ) -> Result<Option<[RatingChange; 2]>, StoreError>;

    /// Whether `mv`, whose write failed as [`StoreError::Unsettled`], is stored. Every
    /// database session that may still be writing a batch given up mid-way is ended
    /// first (and seen gone), so the answer is final: [`Settled::NotStored`] means the
    /// move never will be stored; a stored move that ended a rated game comes with the
    /// rating changes stored with it. Fails (to be asked again) while the database
    /// cannot be reached.
    async fn settle_move(&self, mv: &MoveRecord) -> Result<Settled, StoreError>;

    /// Records a game's ending that no move caused (resignation, abandonment, time),
    /// updating both seats' ratings when it is rated.
    /// Fails if the game is owned under a token other than `fence`.
    async fn finish_game(
        &self,
        finish: &GameFinish,
        fence: Fence,
    ) -> Result<Option<[RatingChange; 2]>, StoreError>;

    /// Two seats' current ratings in a game (say, a room's two seats), each `None` if
    /// the seat has no key (no person holds it) or its person has no rating yet; one
    /// query for both.
    async fn ratings(
        &self,
        game: GameKind,
        keys: [Option<&RatedKey>; 2],
    ) -> Result<[Option<Rating>; 2], StoreError>;

    /// A player's games, newest first; `None` if no such player exists.
    async fn player_games(
        &self,
        player_id: &PlayerId,
        limit: u32,
    ) -> Result<Option<Vec<PlayerGame>>, StoreError>;

    /// The highest-rated players in a game.
    async fn rating_leaderboard(
        &self,
        game: GameKind,
        limit: u32,
    ) -> Result<Vec<RatingEntry>, StoreError>;

    /// Records the draw offer now open in an unfinished game, or that none is (`None`).
    /// Fails with [`StoreError::Fenced`] if the game is owned under another token.
    async fn record_draw_offer(
        &self,
        game_id: &GameId,
        offer: Option<DrawOfferRecord>,
        fence: Fence,
    ) -> Result<(), StoreError>;

    /// Records that a bot has begun to play for the absent person in `seat` of an
    /// unfinished game (the game is then neither rated nor scored for that seat).
    /// Fails with [`StoreError::Fenced`] if the game is owned under another token.
    async fn record_stand_in(
        &self,
        game_id: &GameId,
        seat: Seat,
        fence: Fence,
    ) -> Result<(), StoreError>;

    /// Records a line said in one of a game's chats; a line already recorded under its
    /// number is left as it is. Fails with [`StoreError::Fenced`] if the game is owned
    /// under another token.
    async fn record_chat(&self, said: &ChatRecord, fence: Fence) -> Result<(), StoreError>;

    /// Marks every game still `playing` as `interrupted`; returns how many. Called at
    /// shutdown when the operator has asked for games to end with the process.
    async fn interrupt_unfinished(&self) -> Result<u64, StoreError>;

    /// Marks one game still `playing` as `interrupted` (it cannot be resumed), if it is
    /// owned under `fence`.
    async fn interrupt_game(&self, game_id: &GameId, fence: Fence) -> Result<(), StoreError>;

    /// Every game still `playing`, oldest first, with its room: what a starting server
    /// resumes, and what the nodes of a fleet adopt when their owner is gone.
    async fn unfinished_games(&self) -> Result<Vec<UnfinishedGame>, StoreError>;

    /// Hands the unfinished game `game_id` to the room owner whose token is `fence`:
    /// from now on only writes under `fence` are taken. Waits for writes in flight under
    /// the old token (PostgreSQL), so a read of the game afterwards sees all of them.
    /// Fails with [`StoreError::Fenced`] if the game is no longer playing or a token as
    /// high already holds it.
    async fn take_over(&self, game_id: &GameId, fence: Fence) -> Result<(), StoreError>;

    /// A number one higher than the last one this database handed out (1 the first
    /// time): each start of a server on the database takes one, so that what a server
    /// numbers from it never repeats what an earlier one did.
    async fn next_incarnation(&self) -> Result<u64, StoreError>;

    /// A stored game with its seats and moves.
    async fn game(&self, game_id: &GameId) -> Result<Option<StoredGame>, StoreError>;

    /// The best scores in a game against `opponent` (against any: each player's best
    /// per opponent), highest first, earliest first on ties.
    async fn leaderboard(
        &self,
        game: GameKind,
        opponent: Option<Opponent>,
        limit: u32,
    ) -> Result<Vec<LeaderboardEntry>, StoreError>;

    /// Asks the database a trivial query, on a connection of the read pool (never behind
    /// the move writer or another write): `Ok` if it answered within `within`, else why
    /// not ([`StoreError::Unanswered`] when it did not answer in time).
    async fn ping(&self, within: Duration) -> Result<(), StoreError>;

    /// Waits for in-flight writes and closes the database.
    async fn close(&self);

    /// Cancelled when another server has taken the database over from this one
    /// (`--take-over-database`): this server must give its games up and stop. Never
    /// cancelled on SQLite, whose file one process holds.
    fn evicted(&self) -> tokio_util::sync::CancellationToken;
}
