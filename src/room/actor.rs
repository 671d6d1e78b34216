//! A room's task: the thin shell around its [`RoomState`]. It runs the `select!` loop
//! over commands, the room's timer and shutdown; reads the clock; writes to the store
//! what the machine prepares before the machine applies it; sends the frames the
//! machine asks for; asks the bot pool; and publishes the room for readers outside.
//! Every rule of a room lives in the machine.

use std::sync::Arc;

use bytestring::ByteString;
use foldhash::HashMap;
use parlor_room::RoomId;
use std::time::Instant;
use tokio::sync::{mpsc, oneshot, watch};

use tokio::time::sleep_until;
use tokio_util::task::TaskTracker;
use tracing::{debug, error, info, warn};

use super::Caller;
use super::caller::too_late;
use super::fanout::{Broadcast, Deferred, Snapshots, frame, send_to};
use super::recent::Recent;
use super::{ConnId, Creator, Frame, RoomContext, Subscriber, now};
use crate::protocol::{ClientError, RoomSummary, ServerMsg, Status, Updates};
use crate::store::{Fence, Settled, StoreError};
use audience::LastState;
use parlor_room::RoomState;
use parlor_room::machine::{DrawAnswer, Effect, PendingMove, Step, Then, Tick};
use parlor_room::records::RatingShift;
use parlor_room::{Asked, RoomCommand};
use parlor_room::{RoomOptions, SeatSpec};
use parlor_rules::catalog::AnyGame;
use parlor_rules::games::Seat;

mod audience;
mod bots;
mod chat;
mod held;
mod writes;

/// Reply channel for commands that either succeed or fail with a client error.
type Reply = oneshot::Sender<Result<(), ClientError>>;

/// What the room's task is asked to do.
#[derive(Debug)]
pub(super) enum Command {
    /// Answer a client's command.
    Ask {
        asked: Asked,
        caller: Caller,
        received: Instant,
        reply: Reply,
    },
    /// A connection has closed.
    Disconnect { conn: ConnId },
    /// A bot finished thinking about the position after `ply` moves.
    BotMoved { ply: usize, text: String },
    /// A bot judged the draw offer open in the position after `ply` moves.
    BotJudgedDraw { ply: usize, answer: DrawAnswer },
    /// Another node holds the room now: stop without writing anything more.
    Relinquish,
    /// Someone outside (`GET /api/rooms/{id}`) reads the current `state`, which the room
    /// has not encoded yet.
    ReadState { reply: oneshot::Sender<ByteString> },
    /// The store has read whether the move the room holds (its write's outcome was
    /// lost) is stored.
    Settled { settled: Settled },
}

/// What a room makes readable without asking its task: its listing and, when it was
/// encoded for someone already, its current state.
#[derive(Debug)]
pub(super) struct Published {
    /// The room as listings show it.
    pub(super) summary: RoomSummary,
    /// The room's current `state` message, encoded, if it was sent to anyone: a move
    /// announced only as `moved` leaves it to be read from the room (`ReadState`).
    pub(super) state: Option<ByteString>,
    /// The room's `seq` when this was published (and of `state`, when there is one).
    pub(super) seq: u64,
    /// The token the room writes under ([`Fence::SINGLE`] until a room of a fleet has
    /// taken its lease).
    pub(super) fence: Fence,
}

/// A room's task: its state machine and the connections, store and bots it talks to.
pub(super) struct Room {
    state: RoomState,
    /// The outbound side of every connection in the room, by connection.
    audience: HashMap<ConnId, Subscriber>,
    context: Arc<RoomContext>,
    myself: mpsc::WeakSender<Box<Command>>,
    /// The last state encoded, published again and made into snapshots without
    /// re-encoding.
    last_state: Option<LastState>,
    /// The snapshot newcomers get, shared by a burst of them.
    snapshots: Snapshots,
    /// The room's recent broadcasts, for those who come back saying what they last saw.
    recent: Recent,
    /// The last `seq` each connection being greeted right now says it saw.
    caught_up: HashMap<ConnId, u64>,
    /// The token the room writes to the store under.
    fence: Fence,
    /// Where the room publishes itself for readers outside its task; `None` until it
    /// runs.
    publisher: Option<watch::Sender<Published>>,
    /// Whether the room has announced itself to the lobby: until then it publishes
    /// silently.
    announced: bool,
    /// What the room leaves running in the background (chat lines being stored), so
    /// that a graceful shutdown waits for it as it waits for the room.
    background: TaskTracker,
    /// Whether the store refused a write because the game is held under a higher token
    /// (another server took it over): the room stops as soon as the command at hand is
    /// answered, and its clients find the game where it is played now.
    fenced_out: bool,
    /// A move whose write's outcome was lost, held until the store says whether it is
    /// stored (`held`).
    held: Option<Box<PendingMove>>,
}

/// Whether the room's task should keep running.
#[derive(Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    Close,
}

impl Room {
    /// A new room, not yet running, writing under `fence`: its machine, and no one in it.
    pub(super) fn new(
        id: RoomId,
        (game, seats, options): (Box<dyn AnyGame>, [SeatSpec; 2], RoomOptions),
        fence: Fence,
        context: Arc<RoomContext>,
        myself: mpsc::WeakSender<Box<Command>>,
    ) -> Room {
        let settings = context.settings.clone();
        let state = RoomState::new(id, game, seats, options, settings, now());
        Room::with_state(state, fence, context, myself)
    }

    /// A room around `state` (a new room's, or one rebuilt from the store), writing
    /// under `fence`, not yet running, and no one in it yet. In a fleet a new room (with
    /// [`Fence::SINGLE`]) takes its own token as it starts.
    pub(super) fn with_state(
        state: RoomState,
        fence: Fence,
        context: Arc<RoomContext>,
        myself: mpsc::WeakSender<Box<Command>>,
    ) -> Room {
        Room {
            state,
            audience: HashMap::default(),
            context,
            myself,
            last_state: None,
            snapshots: Snapshots::default(),
            recent: Recent::default(),
            caught_up: HashMap::default(),
            fence,
            publisher: None,
            announced: false,
            background: TaskTracker::new(),
            fenced_out: false,
            held: None,
        }
    }

    /// The room, with what it leaves running in the background tracked by `tracker`.
    pub(super) fn tracked_by(mut self, tracker: &TaskTracker) -> Room {
        self.background = tracker.clone();
        self
    }

    /// Runs the room until it is idle long enough, the operator closes it, or the server
    /// shuts down.
    ///
    /// A plain function returning its future, not an `async fn`: an `async fn` moves its
    /// arguments into locals and its future keeps room for both copies, so every room
    /// would carry its whole state twice.
    #[expect(
        clippy::manual_async_fn,
        reason = "an async fn would hold the room twice"
    )]
    pub(super) fn run(
        mut self,
        mut inbox: mpsc::Receiver<Box<Command>>,
        publisher: watch::Sender<Published>,
        creator: Option<Box<(Seat, Creator)>>,
    ) -> impl Future<Output = ()> + Send + 'static {
        async move {
            let game = self.state.game().kind();
            self.publisher = Some(publisher);
            if self.state.is_resumed() {
                info!(room = %self.state.id(), %game, seq = self.state.seq(), "room resumed");
            } else {
                // Debug, as are a game's start and a room's removal: a busy server opens
                // hundreds of rooms a second, and the games' ends (info) tell the story.
                debug!(room = %self.state.id(), %game, "room created");
            }
            // Boxed: the room's future keeps its arguments for its whole life, and the
            // creator is needed only now.
            if let Some((seat, creator)) = creator.map(|creator| *creator) {
                // The `me` seat is open until now; the creator is the first to take it.
                let asked = Asked {
                    player: creator.player,
                    command: RoomCommand::Join { seat, since: None },
                    reference: creator.reference,
                };
                let caller = Caller {
                    conn: creator.sub.conn,
                    sub: Some(creator.sub),
                    answer_by: None,
                };
                let result = Box::pin(self.answer(asked, caller, Instant::now())).await;
                if let Err(error) = result {
                    warn!(room = %self.state.id(), %error, "the creator could not be seated");
                }
            }
            Box::pin(self.settle()).await;
            // Always announced: the lobby lists a room from this first publication on.
            self.announced = true;
            if let Some(publisher) = &self.publisher {
                publisher.send_replace(self.publication());
            }
            let shutdown = self.context.shutdown.clone();
            let rooms = self.context.metrics.rooms.clone();
            let mut counted = self.state.status();
            rooms
                .with_label_values(&[game.as_str(), counted.as_str()])
                .inc();
            loop {
                let deadline = self.state.next_deadline().filter(|_| !self.holds_a_move());
                // The room also wakes to let a snapshot go once newcomers may no longer
                // share it, so that an idle room does not keep it.
                let wake = [deadline, self.snapshots.expiry()]
                    .into_iter()
                    .flatten()
                    .min();
                let flow = tokio::select! {
                    command = inbox.recv() => match command {
                        // Boxed, here and for the timers: handling holds far more state
                        // than waiting, and an idle room should not carry it.
                        Some(command) => Box::pin(self.handle(*command)).await,
                        None => Flow::Close,
                    },
                    () = sleep_until(wake.unwrap_or_else(Instant::now).into()), if wake.is_some() => {
                        let now = Instant::now();
                        self.snapshots.forget_expired(now);
                        if deadline.is_some_and(|deadline| deadline <= now) {
                            Box::pin(self.on_timer()).await
                        } else {
                            Flow::Continue
                        }
                    }
                    () = shutdown.cancelled() => Flow::Close,
                };
                self.publish();
                let status = self.state.status();
                if status == Status::Finished && self.audience.is_empty() {
                    // Nobody is left to come back for the frames kept: a newcomer gets a
                    // snapshot, and the room stays listed for `rooms.idle_secs`.
                    self.recent.forget();
                }
                if status != counted {
                    rooms
                        .with_label_values(&[game.as_str(), counted.as_str()])
                        .dec();
                    rooms
                        .with_label_values(&[game.as_str(), status.as_str()])
                        .inc();
                    counted = status;
                }
                if self.fenced_out {
                    warn!(room = %self.state.id(), "the store says another server holds this room's game now; it stops here");
                    self.send_everyone_where_it_is();
                    break;
                }
                if flow == Flow::Close {
                    break;
                }
            }
            rooms
                .with_label_values(&[game.as_str(), counted.as_str()])
                .dec();
            debug!(room = %self.state.id(), "room removed");
            if self.fenced_out {
                // Closed first, so that the keeper of the leases, woken, finds the room
                // gone and gives its lease up.
                drop(inbox);
                self.context.fenced_out.notify_one();
            }
        }
    }

    async fn handle(&mut self, command: Command) -> Flow {
        match command {
            Command::Ask {
                asked,
                caller,
                received,
                reply,
            } => {
                let conn = caller.conn;
                if caller.answer_by.is_some_and(|by| Instant::now() > by) {
                    let _ = reply.send(Err(too_late()));
                    return Flow::Continue;
                }
                let closing = match &asked.command {
                    RoomCommand::Close { reason } => Some(reason.clone()),
                    _ => None,
                };
                self.catching_up(conn, asked.command.since());
                let result = self.answer(asked, caller, received).await;
                self.caught_up.remove(&conn);
                let closed = closing.filter(|_| result.is_ok());
                let _ = reply.send(result);
                if let Some(reason) = closed {
                    self.tell_closed(reason);
                    return Flow::Close;
                }
            }
            Command::Disconnect { conn } => {
                let effects = self.state.disconnect(conn, Instant::now());
                self.perform(effects);
            }
            Command::BotMoved { ply, text } => self.bot_moved(ply, &text).await,
            Command::BotJudgedDraw { ply, answer } => {
                let step = self.state.bot_judged_draw(ply, answer, now());
                // A bot's answer fails no one: `follow` only logs what the store refused.
                let _ = self.follow(step).await;
            }
            Command::ReadState { reply } => {
                let _ = reply.send(self.current_state());
                return Flow::Continue;
            }
            Command::Settled { settled } => self.settled(settled),
            Command::Relinquish => {
                info!(room = %self.state.id(), "another node holds the room now; it stops here");
                self.send_everyone_where_it_is();
                return Flow::Close;
            }
        }
        self.settle().await;
        Flow::Continue
    }

    /// Tells everyone in the room that it moved, for their sessions to find it where it
    /// is now.
    fn send_everyone_where_it_is(&self) {
        for sub in self.audience.values() {
            sub.alerts.tell_moved(self.state.id());
        }
    }

    /// Notes a write the store refused (counted in the metrics): one refused under the
    /// room's token (another server holds the game now) stops the room.
    pub(super) fn note_refused(&mut self, error: &StoreError) {
        self.context.metrics.count_refused_write(error);
        if matches!(error, StoreError::Fenced { .. }) {
            self.fenced_out = true;
        }
    }

    /// Tells everyone in the room that the operator closed it, and why.
    fn tell_closed(&self, reason: String) {
        let room = self.state.id().clone();
        info!(%room, %reason, "the operator closed the room");
        let message = format!(
            "The server's operator closed this room: {}. Any game in it ended without a result.",
            reason.trim_end_matches('.')
        );
        let closed = frame(&ServerMsg::RoomClosed {
            room,
            reason,
            message,
        });
        for sub in self.audience.values() {
            send_to(sub, &closed, &self.context.metrics);
        }
    }

    /// Has the machine answer a client's command, lets the connection in if the
    /// command enters the room, then performs the step.
    async fn answer(
        &mut self,
        asked: Asked,
        caller: Caller,
        received: Instant,
    ) -> Result<(), ClientError> {
        self.check_not_held(&asked.command)?;
        let step = self.state.answer(asked, caller.conn, received, now())?;
        if let Some(sub) = caller.sub {
            self.audience.insert(sub.conn, sub);
        }
        self.follow(step).await
    }

    /// Records a move the machine checked (with the game's ending, if it ends the
    /// game), and only then has the machine apply it. On any error the room is
    /// unchanged; when the write's outcome was lost, the room holds the move (`held`).
    async fn play(&mut self, pending: PendingMove) -> Result<(), ClientError> {
        if self.holds_a_move() {
            return Err(held::holding());
        }
        let finish = pending.ending.as_ref().map(|ending| &ending.finish);
        let ratings = match self
            .context
            .store
            .append_move(&pending.record, finish, self.fence)
            .await
        {
            Ok(changes) => changes,
            Err(error @ StoreError::Unsettled { .. }) => {
                error!(room = %self.state.id(), %error, "a move's write was given up mid-way; the game waits for its outcome");
                self.hold(pending);
                return Err(held::outcome_unknown());
            }
            Err(error) => {
                error!(room = %self.state.id(), %error, "could not record a move; it was refused");
                self.note_refused(&error);
                return Err(ClientError::storage_unavailable());
            }
        };
        let received = pending.received();
        let shifts = ratings.map(|changes| changes.map(RatingShift::from));
        let effects = self.state.apply_move(pending, shifts, Instant::now());
        self.perform(effects);
        let metrics = &self.context.metrics;
        metrics
            .moves_accepted
            .with_label_values(&[self.state.game().kind().as_str()])
            .inc();
        metrics
            .move_to_broadcast_seconds
            .observe(received.elapsed().as_secs_f64());
        Ok(())
    }

    async fn bot_moved(&mut self, ply: usize, text: &str) {
        let Some(seat) = self.state.bot_moved(ply) else {
            return;
        };
        let played = match self.state.prepare_move(seat, text, Instant::now(), now()) {
            Ok(pending) => self.play(pending).await,
            Err(refusal) => Err(refusal.into()),
        };
        if let Err(error) = played {
            warn!(room = %self.state.id(), %error, "a bot's move was not played; it will try again");
            self.state.retry_later(Instant::now());
        }
    }

    /// Performs a step's effects, then the store work it asks for.
    async fn follow(&mut self, step: Step) -> Result<(), ClientError> {
        self.perform(step.effects);
        match step.then {
            Then::Nothing => Ok(()),
            Then::Play(pending) => self.play(*pending).await,
            Then::Start(after) => {
                self.start(after).await;
                Ok(())
            }
            Then::End(ending) => self.end(*ending).await,
            Then::DrawOffer(change) => self.change_draw_offer(change).await,
            Then::StandIn { seat, level } => {
                self.stand_in(seat, level).await;
                Ok(())
            }
        }
    }

    /// After any change: starts a game that waited for the store, then lets the
    /// machine set its timers and ask a bot to move.
    async fn settle(&mut self) {
        if let Some(after) = self.state.pending_start() {
            self.start(after).await;
        }
        let effects = self.state.settle(Instant::now());
        self.perform(effects);
    }

    async fn on_timer(&mut self) -> Flow {
        match self.state.on_timer(now()) {
            Tick::Close => Flow::Close,
            Tick::Step(step) => {
                // Timers fail no one: `follow` has the machine retry what the store refused.
                let _ = self.follow(step).await;
                self.settle().await;
                Flow::Continue
            }
        }
    }

    /// Does what the machine asked, in order.
    fn perform(&mut self, effects: Vec<Effect>) {
        // Whether a broadcast of this step dropped anyone: a state the machine made before
        // that must be rendered again, or it would show them still here.
        let mut dropped = false;
        for effect in effects {
            match effect {
                Effect::State { mut msg, except } => {
                    if dropped && let Some(fresh) = self.state.restate(msg.seq, Instant::now()) {
                        *msg = fresh;
                    }
                    // A state nobody hears now (the room's only connection is the
                    // newcomer it is announced to, or it has none) is encoded only if
                    // someone asks for it later.
                    let seq = msg.seq;
                    let heard = self.audience.keys().any(|conn| Some(*conn) != except);
                    let sent = if heard {
                        let frame = frame(&*msg);
                        self.last_state = Some(LastState::new(seq, Frame::clone(&frame)));
                        Broadcast::Same(frame)
                    } else {
                        Broadcast::Unheard(Deferred::new(msg))
                    };
                    self.publish();
                    dropped |= self.broadcast(seq, sent, except);
                }
                Effect::Moved { mut msg, at } => {
                    let wanted = |updates| self.audience.values().any(|sub| sub.updates == updates);
                    let moved = wanted(Updates::Moves).then(|| frame(&*msg));
                    // The machine has just played the move: its state is this `seq`'s, and
                    // its legal moves are the event's.
                    let state = wanted(Updates::States).then(|| {
                        let legal_moves = std::mem::take(&mut msg.legal_moves);
                        frame(&self.state.state_after_move(legal_moves, at))
                    });
                    if let Some(state) = &state {
                        self.last_state = Some(LastState::new(msg.seq, Frame::clone(state)));
                    }
                    self.publish();
                    dropped |= self.broadcast(msg.seq, Broadcast::Move { moved, state }, None);
                }
                Effect::GameOver(msg) => {
                    dropped |= self.broadcast(msg.seq, Broadcast::Same(frame(&*msg)), None);
                }
                Effect::Replaced(conn) => {
                    if let Some(sub) = self.audience.get(&conn) {
                        let replaced = ServerMsg::Replaced {
                            room: self.state.id().to_owned(),
                        };
                        send_to(sub, &frame(&replaced), &self.context.metrics);
                    }
                }
                Effect::Greet {
                    conn,
                    seat,
                    reference,
                } => self.greet(conn, seat, reference),
                Effect::Release(conn) => {
                    self.audience.remove(&conn);
                }
                Effect::Think {
                    ply,
                    level,
                    budget,
                    not_before,
                } => self.think(ply, level, budget, not_before),
                Effect::JudgeDraw { ply, seat } => self.judge_draw(ply, seat),
                Effect::Chat { to, said } => self.say(&to, *said),
            }
        }
    }
}
