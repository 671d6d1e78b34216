//! Group commit of the game log: game starts and moves from every room are written
//! together, one transaction per batch, by one writer.
//!
//! A room awaits `MoveWriter::append` and broadcasts its move only once the batch
//! holding it has committed, so moves stay durable before they are visible; what the
//! batch saves is one commit (one fsync on SQLite) per move. Batches form by themselves:
//! while one commits, the moves that arrive meanwhile queue up and go together in the
//! next, up to [`MAX_BATCH`]. No move ever waits for a batch to fill, so a quiet server
//! commits each move at once. Under load (a batch of two or more formed), the writer
//! first yields once (`LogHost::yield_to_rooms`) to whatever else is ready where it runs:
//! on a busy core the rooms' next moves then join this batch, and one commit serves
//! several times more moves; with nothing else ready, the yield returns at once. A game's start (`MoveWriter::start`) joins the same
//! batches, so starting a game costs no transaction and no pool connection of its own.
//!
//! A batch is one transaction of a few statements whatever its size: one `INSERT` for the
//! games it starts and one for their seats, the moves (`LogConnection::insert_moves`:
//! one multi-row `INSERT` on PostgreSQL, one cached prepared `INSERT` per move on
//! SQLite, where a statement costs no round trip), plus the endings of the games its
//! moves finished (`endings`: five statements on PostgreSQL, one cached statement per
//! row on SQLite). A batch of moves alone, ending no game, needs no
//! `BEGIN` and `COMMIT` of its own: PostgreSQL commits its one `INSERT` as one atomic
//! statement, and SQLite's connection wraps several moves in a transaction by itself. If
//! the database refuses the batch (say, one move breaks a constraint), each of its
//! entries is written again in a transaction of its own, so a bad one fails alone and
//! the rest still commit.
//!
//! On PostgreSQL every batch has a deadline (`store.write_timeout_ms`) from asking for
//! its connection to its commit. A batch that runs out of it, or whose connection breaks
//! once its statements were sent, is given up: its connection is dropped (never used
//! again), its database session noted in the store's [`LostSessions`], and each of its
//! entries fails as [`StoreError::Unsettled`], since it may have committed all the same.
//! The room holds such a move until [`crate::store::Store::settle_move`] has ended that
//! session and read whether the move is stored. A batch refused before anything was sent
//! (no connection in time), or cancelled by the database itself (its own
//! `statement_timeout`), stored nothing and is refused.
//!
//! A batch's answers go back together: those for rooms of one HTTP worker are left at
//! that worker's [`Doorstep`], which wakes its thread once for the whole batch where
//! answering each room would wake it once per room.
//!
//! The writer keeps one connection of its own, opened by its [`LogHost`] at the first
//! batch and again after a failure. On PostgreSQL it is a tokio task on a connection
//! taken out of the pool. On SQLite it is a thread of its own that owns a synchronous
//! connection (`sqlite/log_thread.rs`): a move's write is then one hand-off to that thread
//! and one back, where sqlx's driver added a round trip to its worker thread for every
//! statement.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::{Mutex, mpsc, oneshot};

use super::endings::{read_ratings, write_finishes};
use super::writes::{insert_games, write_move};
use crate::doorstep::{Doorstep, Rounds};
use crate::store::sql::BatchStats;
use crate::store::sql::log_connection::{LogConnection, LogHost};
use crate::store::sql::lost_sessions::{LostSessions, SessionId};
use crate::store::{Fence, GameFinish, MoveRecord, NewGame, RatingChange, StoreError};
use parlor_room::ratings::{RatedKey, Rating};

/// The most moves and game starts one transaction writes. At 10,000 connections on one
/// core, 256 capped the batches the game log's thread formed once the rooms had sent
/// their moves (store.writer_nice), and 1,024 took 10 % less CPU per move and half the
/// bytes written (BENCHMARKS.md). A batch's largest statements on PostgreSQL (its
/// endings' seats and ratings, 7 values for each of up to 2,048 rows) then bind about
/// 14,000 parameters, under the protocol's 65,535.
pub(super) const MAX_BATCH: usize = 1024;

/// How many moves and starts may wait for the writer; rooms wait (never fail) when it is
/// full.
const QUEUE: usize = 4 * MAX_BATCH;

/// What a move's write returns: the ratings, when the move ended a rated game.
type Written = Result<Option<[RatingChange; 2]>, StoreError>;

/// One move waiting to be written, under its room's ownership token.
struct Pending {
    mv: MoveRecord,
    finish: Option<GameFinish>,
    fence: Fence,
    reply: oneshot::Sender<Written>,
    /// The doorstep of the thread the room waits on, if it has one.
    door: Option<Arc<Doorstep>>,
}

impl Pending {
    /// Answers the room, within `rounds`.
    fn answer(self, result: Written, rounds: &mut Rounds) {
        let reply = self.reply;
        rounds.add(self.door.as_ref(), move || drop(reply.send(result)));
    }
}

/// Both seats' ratings in a game as it starts (see [`crate::store::Store::create_game`]).
type SeatRatings = [Option<Rating>; 2];

/// One game start waiting to be written, under its room's ownership token.
struct PendingStart {
    game: NewGame,
    fence: Fence,
    reply: oneshot::Sender<Result<SeatRatings, StoreError>>,
    /// The doorstep of the thread the room waits on, if it has one.
    door: Option<Arc<Doorstep>>,
}

impl PendingStart {
    /// Answers the room, within `rounds`.
    fn answer(self, result: Result<SeatRatings, StoreError>, rounds: &mut Rounds) {
        let reply = self.reply;
        rounds.add(self.door.as_ref(), move || drop(reply.send(result)));
    }
}

/// What the writer is asked to do.
enum Job {
    /// Boxed: a move is hundreds of bytes, and the queue holds jobs by value.
    Write(Box<Pending>),
    /// Record a game's start (boxed for the same reason).
    Start(Box<PendingStart>),
    /// Finish what is queued, then stop and say so.
    Close(oneshot::Sender<()>),
}

/// What one transaction writes: game starts first, then moves (and their endings).
#[derive(Default)]
struct Batch {
    starts: Vec<PendingStart>,
    moves: Vec<Pending>,
}

impl Batch {
    fn len(&self) -> usize {
        self.starts.len() + self.moves.len()
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The handle rooms' moves go through; cloning it shares the one writer.
#[derive(Clone, Debug)]
pub(super) struct MoveWriter {
    queue: mpsc::Sender<Job>,
}

impl MoveWriter {
    /// Starts the writer where `host` runs it, writing through `host`'s connections.
    /// `writes` is the store's lock that keeps write transactions one at a time; the
    /// sessions of batches given up mid-write go in `lost`.
    pub(crate) fn spawn<H: LogHost>(
        host: H,
        writes: Arc<Mutex<()>>,
        stats: BatchStats,
        lost: LostSessions,
    ) -> Result<MoveWriter, StoreError> {
        let (queue, jobs) = mpsc::channel(QUEUE);
        let writer = Writer {
            host,
            held: None,
            lost,
            stats,
        };
        H::spawn(run(writer, writes, jobs))?;
        Ok(MoveWriter { queue })
    }

    /// Writes one move (and the game's ending, if it ends the game) under `fence`;
    /// returns once the batch holding it has committed.
    pub(crate) async fn append(
        &self,
        mv: &MoveRecord,
        finish: Option<&GameFinish>,
        fence: Fence,
    ) -> Written {
        let (reply, written) = oneshot::channel();
        let job = Job::Write(Box::new(Pending {
            mv: mv.clone(),
            finish: finish.cloned(),
            fence,
            reply,
            door: Doorstep::here(),
        }));
        self.queue.send(job).await.map_err(|_| StoreError::Closed)?;
        written.await.map_err(|_| StoreError::Closed)?
    }

    /// Records a game's start with its seats, owned under `fence`; returns once the
    /// batch holding it has committed.
    pub(crate) async fn start(
        &self,
        game: &NewGame,
        fence: Fence,
    ) -> Result<SeatRatings, StoreError> {
        let (reply, written) = oneshot::channel();
        let job = Job::Start(Box::new(PendingStart {
            game: game.clone(),
            fence,
            reply,
            door: Doorstep::here(),
        }));
        self.queue.send(job).await.map_err(|_| StoreError::Closed)?;
        written.await.map_err(|_| StoreError::Closed)?
    }

    /// Writes every move already queued, then stops the writer.
    pub(crate) async fn close(&self) {
        let (done, closed) = oneshot::channel();
        if self.queue.send(Job::Close(done)).await.is_ok() {
            let _ = closed.await;
        }
    }
}

/// The writer: takes whatever is queued (at least one entry, at most [`MAX_BATCH`])
/// and writes it as one transaction, until told to close.
async fn run<H: LogHost>(
    mut writer: Writer<H>,
    writes: Arc<Mutex<()>>,
    mut jobs: mpsc::Receiver<Job>,
) {
    writer.host.settle();
    let mut batch = Batch {
        starts: Vec::new(),
        moves: Vec::with_capacity(MAX_BATCH),
    };
    let mut closing = None;
    while closing.is_none() {
        let Some(job) = jobs.recv().await else { break };
        // The batch forms once the lock is held: what queues while another write
        // transaction finishes joins it.
        let _writing = writes.lock().await;
        let mut next = Some(job);
        let mut yielded = false;
        while let Some(job) = next.take() {
            match job {
                Job::Write(pending) => batch.moves.push(*pending),
                Job::Start(start) => batch.starts.push(*start),
                Job::Close(done) => {
                    closing = Some(done);
                    break;
                }
            }
            if batch.len() < MAX_BATCH {
                next = jobs.try_recv().ok();
                if next.is_none() && batch.len() >= 2 && !yielded {
                    yielded = true;
                    H::yield_to_rooms().await;
                    next = jobs.try_recv().ok();
                }
            }
        }
        if !batch.is_empty()
            && let Some(lost) = writer.write_batch(&mut batch).await
        {
            // What queued while the database was being waited for fails with the
            // batch, rather than waiting for it in turn.
            let mut rounds = Rounds::default();
            while closing.is_none()
                && let Ok(job) = jobs.try_recv()
            {
                match job {
                    Job::Write(pending) => pending.answer(Err(lost()), &mut rounds),
                    Job::Start(start) => start.answer(Err(lost()), &mut rounds),
                    Job::Close(done) => closing = Some(done),
                }
            }
        }
    }
    if let Some(held) = writer.held {
        H::disconnect(held.conn).await;
    }
    if let Some(done) = closing {
        let _ = done.send(());
    }
}

/// The writer's connection, with the database session serving it.
struct Held<C> {
    conn: C,
    session: Option<SessionId>,
}

/// The writer's state between batches: where it connects, its connection, and where it
/// notes the sessions of batches it gave up.
struct Writer<H: LogHost> {
    host: H,
    held: Option<Held<H::Connection>>,
    lost: LostSessions,
    stats: BatchStats,
}

/// Whether a write was sent to the database before it failed, so that it may have been
/// stored all the same.
#[derive(Default)]
struct Sent(AtomicBool);

impl Sent {
    fn mark(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    fn was(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

impl<H: LogHost> Writer<H> {
    /// The writer's own connection, opened by its host if there is none yet.
    async fn connection(&mut self) -> Result<&mut H::Connection, StoreError> {
        if self.held.is_none() {
            let mut conn = self.host.connect().await?;
            let session = conn.session().await?;
            self.held = Some(Held { conn, session });
        }
        match &mut self.held {
            Some(held) => Ok(&mut held.conn),
            None => Err(StoreError::Closed),
        }
    }

    /// Runs `work` on the writer's connection within the host's deadline, noting in
    /// `sent` once the connection is there (and `work` about to send).
    async fn bounded<T>(
        &mut self,
        sent: &Sent,
        work: impl AsyncFnOnce(&mut H::Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let deadline = self.host.deadline();
        let attempt = async {
            let conn = self.connection().await?;
            sent.mark();
            work(conn).await
        };
        match deadline {
            Some(limit) => tokio::time::timeout(limit, attempt)
                .await
                .unwrap_or_else(|_| Err(timed_out(limit))),
            None => attempt.await,
        }
    }

    /// After `error`: drops the connection, and says whether what was sent may have
    /// been stored all the same (then the connection's session is noted as lost, to be
    /// ended before anyone reads what it stored). A local database's failed write
    /// stored nothing; nor did one refused before it was sent, or cancelled by the
    /// database.
    fn give_up(&mut self, error: &StoreError, sent: &Sent) -> bool {
        let session = self.held.take().and_then(|held| held.session);
        let unsettled = sent.was() && self.host.deadline().is_some() && error.may_have_landed();
        if unsettled && let Some(session) = session {
            self.lost.add(session);
        }
        unsettled
    }

    /// Writes `batch` and answers every entry: all in one transaction when the database
    /// takes it; when it cannot be reached or runs out of time, every entry fails at once
    /// (as [`StoreError::Unsettled`] if it may have been stored); when it refuses the
    /// batch, each entry is written again in a transaction of its own. After a failure
    /// the writer's connection is dropped (it may be broken, or mid-transaction) and the
    /// next batch takes a fresh one. When the database could not be reached, returns
    /// what to answer the writes queued meanwhile.
    async fn write_batch(&mut self, batch: &mut Batch) -> Option<impl Fn() -> StoreError + use<H>> {
        let started = Instant::now();
        self.stats.moves.observe(batch.moves.len() as f64);
        // Every entry's answer goes back when the batch is done, together.
        let mut rounds = Rounds::default();
        let sent = Sent::default();
        let written = {
            let together: &Batch = batch;
            self.bounded(&sent, async |conn| write_together(conn, together).await)
                .await
        };
        match written {
            Ok((ratings, results)) => {
                self.stats
                    .commit_seconds
                    .observe(started.elapsed().as_secs_f64());
                for (start, ratings) in batch.starts.drain(..).zip(ratings) {
                    start.answer(Ok(ratings), &mut rounds);
                }
                for (pending, result) in batch.moves.drain(..).zip(results) {
                    pending.answer(result, &mut rounds);
                }
                None
            }
            Err(error) if error.is_connection_lost() || error.is_cancelled_by_database() => {
                let unsettled = self.give_up(&error, &sent);
                // Written one by one, each entry would wait for a connection in turn: a
                // database that is gone would hold the last move of a big batch for
                // minutes.
                tracing::warn!(
                    starts = batch.starts.len(),
                    moves = batch.moves.len(),
                    unsettled,
                    %error,
                    "the database could not be reached in time; the batch's game starts and moves are refused"
                );
                let reason = error.to_string();
                let failed = |reason: &str| {
                    if unsettled {
                        StoreError::Unsettled {
                            reason: reason.to_owned(),
                        }
                    } else {
                        StoreError::ConnectionLost {
                            reason: reason.to_owned(),
                        }
                    }
                };
                for start in batch.starts.drain(..) {
                    start.answer(Err(failed(&reason)), &mut rounds);
                }
                for pending in batch.moves.drain(..) {
                    pending.answer(Err(failed(&reason)), &mut rounds);
                }
                // What queued meanwhile was never sent.
                Some(move || StoreError::ConnectionLost {
                    reason: reason.clone(),
                })
            }
            Err(error) => {
                self.held = None;
                tracing::warn!(
                    starts = batch.starts.len(),
                    moves = batch.moves.len(),
                    %error,
                    "a batch was refused; writing its game starts and moves one by one"
                );
                for start in batch.starts.drain(..) {
                    let result = self
                        .alone(async |conn| {
                            let games = [(&start.game, start.fence)];
                            insert_games(conn, &games).await?;
                            let mut ratings = starting_ratings(conn, &games).await?;
                            Ok(ratings.pop().unwrap_or_default())
                        })
                        .await;
                    // Each answered as soon as it is written, as its write may be slow.
                    start.answer(result, &mut Rounds::default());
                }
                for pending in batch.moves.drain(..) {
                    let result = self
                        .alone(async |conn| {
                            write_move(conn, &pending.mv, pending.finish.as_ref(), pending.fence)
                                .await
                        })
                        .await;
                    pending.answer(result, &mut Rounds::default());
                }
                None
            }
        }
    }

    /// One entry of a refused batch, written by `work` in a transaction of its own on
    /// the writer's connection (a fresh one if the last was dropped), within the
    /// deadline, rolled back if it fails.
    async fn alone<T>(
        &mut self,
        work: impl AsyncFnOnce(&mut H::Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let sent = Sent::default();
        let result = self
            .bounded(&sent, async |conn| {
                conn.begin().await?;
                let written = work(conn).await?;
                conn.commit().await?;
                Ok(written)
            })
            .await;
        let Err(error) = result else {
            return result;
        };
        if error.is_connection_lost() {
            if self.give_up(&error, &sent) {
                return Err(StoreError::Unsettled {
                    reason: error.to_string(),
                });
            }
            return Err(error);
        }
        // A refused entry (fenced, or breaking a constraint) leaves the connection usable
        // once rolled back; one that cannot even roll back is dropped.
        if let Some(held) = &mut self.held
            && held.conn.rollback().await.is_err()
        {
            self.held = None;
        }
        Err(error)
    }
}

/// The error for a batch that ran out of `limit`.
fn timed_out(limit: Duration) -> StoreError {
    StoreError::TimedOut {
        after_ms: u64::try_from(limit.as_millis()).unwrap_or(u64::MAX),
    }
}

/// The whole batch in one transaction: the games it starts, every move, then all the
/// endings together, then the starts' seats' ratings as the endings left them, then
/// the commit; each start's ratings and each move's result, in order. A batch of moves
/// that ends no game is only `insert_moves`, which commits it atomically. A move whose
/// game is owned under another token is not written (and fails as
/// [`StoreError::Fenced`]); the others are.
async fn write_together(
    conn: &mut impl LogConnection,
    batch: &Batch,
) -> Result<(Vec<SeatRatings>, Vec<Written>), StoreError> {
    let moves: Vec<(&MoveRecord, Fence)> = batch
        .moves
        .iter()
        .map(|pending| (&pending.mv, pending.fence))
        .collect();
    let no_endings = batch.moves.iter().all(|pending| pending.finish.is_none());
    if batch.starts.is_empty() && no_endings {
        let inserted = conn.insert_moves(&moves).await?;
        let results = batch
            .moves
            .iter()
            .enumerate()
            .map(|(index, pending)| inserted.check(index, &pending.mv).map(|()| None))
            .collect();
        return Ok((Vec::new(), results));
    }
    conn.begin().await?;
    let games: Vec<(&NewGame, Fence)> = batch
        .starts
        .iter()
        .map(|start| (&start.game, start.fence))
        .collect();
    insert_games(conn, &games).await?;
    let inserted = conn.insert_moves(&moves).await?;
    let finishes: Vec<(&GameFinish, Fence)> = batch
        .moves
        .iter()
        .enumerate()
        .filter(|(index, _)| inserted.written(*index))
        .filter_map(|(_, pending)| Some((pending.finish.as_ref()?, pending.fence)))
        .collect();
    let mut changes = write_finishes(conn, &finishes).await?.into_iter();
    // Read after the endings: a game that starts as its players' last one ends shows
    // the ratings that ending left.
    let ratings = starting_ratings(conn, &games).await?;
    let results = batch
        .moves
        .iter()
        .enumerate()
        .map(|(index, pending)| {
            inserted.check(index, &pending.mv)?;
            Ok(pending
                .finish
                .as_ref()
                .and_then(|_| changes.next().flatten()))
        })
        .collect();
    conn.commit().await?;
    Ok((ratings, results))
}

/// The seats' ratings of each game in `games`, in order, read in one query.
async fn starting_ratings(
    conn: &mut impl LogConnection,
    games: &[(&NewGame, Fence)],
) -> Result<Vec<SeatRatings>, StoreError> {
    if games.is_empty() {
        return Ok(Vec::new());
    }
    let keys: Vec<(&str, [Option<RatedKey>; 2])> = games
        .iter()
        .map(|(game, _)| (game.game.as_str(), game.rating_keys()))
        .collect();
    let wanted = keys
        .iter()
        .flat_map(|(game, seats)| seats.iter().flatten().map(|key| (*game, key.as_str())))
        .collect();
    let stored = read_ratings(conn, &wanted).await?;
    Ok(keys
        .iter()
        .map(|(game, seats)| {
            let in_game = stored.get(*game);
            seats.each_ref().map(|key| {
                in_game
                    .zip(key.as_ref())
                    .and_then(|(ratings, key)| ratings.get(key.as_str()))
                    .copied()
            })
        })
        .collect())
}
