//! A connection's room requests in flight: at most one per room at a time, so that a
//! room answers a connection's requests in the order they were sent, while requests
//! for different rooms wait side by side (a move held up by a stalled store keeps no
//! other room waiting). Requests for a busy room queue behind it.

use std::collections::{HashSet, VecDeque};
use std::future::{Future, poll_fn};
use std::task::Poll;

use futures_util::StreamExt;
use futures_util::future::LocalBoxFuture;
use futures_util::stream::FuturesUnordered;

use super::connection::Connection;
use super::room_request::{Answered, RoomRequest};
use parlor_room::RoomId;

/// How many requests may wait on rooms (sent or queued) before the session stops
/// reading the client's frames (they wait in the socket until a room answers).
const MOST_WAITING: usize = 32;

/// The room requests of one connection that have not been answered yet: nothing while
/// none are (most of a connection's life); the one request alone while only one is out
/// (nearly always: a player moves and waits for the answer), which takes no set, queue
/// or scheduler of its own; boxed while more are, so that an idle connection keeps one
/// pointer for them.
#[derive(Default)]
pub(super) enum InFlight {
    /// No request is out.
    #[default]
    Idle,
    /// One request is out, to this room.
    One(One),
    /// Several requests are out, or queued.
    Many(Box<Requests>),
}

/// The one request out, while it is alone.
pub(super) struct One {
    /// The room asked.
    room: RoomId,
    /// Whether it is the session's own request to be put back into the room.
    reentry: bool,
    /// The request until its answer has been taken.
    sent: Option<LocalBoxFuture<'static, Answered>>,
}

/// What [`InFlight`] holds while several requests are out.
#[derive(Default)]
pub(super) struct Requests {
    /// The requests sent, one per busy room.
    sent: FuturesUnordered<LocalBoxFuture<'static, Answered>>,
    /// The rooms with a client's request sent.
    busy: HashSet<RoomId>,
    /// The rooms the connection is being put back into (which wait for nothing: a
    /// client's request still out to a room that moved goes to where it was).
    returning: HashSet<RoomId>,
    /// Requests for busy rooms, in the order they came.
    queued: VecDeque<RoomRequest>,
}

impl Requests {
    /// The request of `one`, if it is still out, with room for more.
    fn from_one(one: One) -> Requests {
        let mut requests = Requests::default();
        let One {
            room,
            reentry,
            sent,
        } = one;
        if let Some(sent) = sent {
            if reentry {
                requests.returning.insert(room);
            } else {
                requests.busy.insert(room);
            }
            requests.sent.push(sent);
        }
        requests
    }

    /// Sends `request`, or queues it behind the one its room is answering.
    fn push(&mut self, request: RoomRequest, connection: &mut Connection) {
        let room = request.room.clone();
        if request.reentry {
            if !self.returning.insert(room) {
                return;
            }
        } else if !self.busy.insert(room) {
            self.queued.push_back(request);
            return;
        }
        self.sent.push(connection.ask_room(request));
    }
}

impl InFlight {
    /// Whether no request is waiting on a room.
    pub(super) fn is_idle(&self) -> bool {
        match self {
            InFlight::Idle => true,
            InFlight::One(_) => false,
            InFlight::Many(requests) => requests.busy.is_empty() && requests.returning.is_empty(),
        }
    }

    /// Whether the connection is being put back into `room`.
    pub(super) fn is_returning(&self, room: &RoomId) -> bool {
        match self {
            InFlight::Idle => false,
            InFlight::One(one) => one.reentry && one.room == *room,
            InFlight::Many(requests) => requests.returning.contains(room),
        }
    }

    /// Whether as many requests wait as may: the client's next frames are left unread
    /// until a room answers.
    pub(super) fn is_full(&self) -> bool {
        match self {
            InFlight::Idle | InFlight::One(_) => false,
            InFlight::Many(requests) => requests.busy.len() + requests.queued.len() >= MOST_WAITING,
        }
    }

    /// Sends `request`, or queues a client's request behind the one its room is
    /// answering (a request to be put back into a room already being asked is dropped).
    pub(super) fn push(&mut self, request: RoomRequest, connection: &mut Connection) {
        let mut requests = match std::mem::take(self) {
            InFlight::Idle => {
                *self = InFlight::One(One {
                    room: request.room.clone(),
                    reentry: request.reentry,
                    sent: Some(connection.ask_room(request)),
                });
                return;
            }
            InFlight::One(one) => Box::new(Requests::from_one(one)),
            InFlight::Many(requests) => requests,
        };
        requests.push(request, connection);
        *self = InFlight::Many(requests);
    }

    /// The next answer; never comes while nothing is sent. A poll of the requests
    /// rather than an `async fn`: the session waits on it beside its other events, and
    /// an `async fn`'s state would make every idle connection's future larger.
    pub(super) fn next(&mut self) -> impl Future<Output = Answered> + '_ {
        poll_fn(|cx| match self {
            InFlight::One(One {
                sent: sent @ Some(_),
                ..
            }) => match sent.as_mut().map(|future| future.as_mut().poll(cx)) {
                Some(Poll::Ready(answered)) => {
                    *sent = None;
                    Poll::Ready(answered)
                }
                Some(Poll::Pending) | None => Poll::Pending,
            },
            InFlight::Many(requests) if !requests.sent.is_empty() => {
                match requests.sent.poll_next_unpin(cx) {
                    Poll::Ready(Some(answered)) => Poll::Ready(answered),
                    Poll::Ready(None) | Poll::Pending => Poll::Pending,
                }
            }
            _ => Poll::Pending,
        })
    }

    /// Notes that `room` answered a client's request (or, `reentry`, took the connection
    /// back or did not), and sends the client's request queued next for it, if any.
    pub(super) fn answered(&mut self, room: &RoomId, reentry: bool, connection: &mut Connection) {
        let requests = match self {
            InFlight::Idle => return,
            // The one request out is the one answered.
            InFlight::One(_) => {
                *self = InFlight::Idle;
                return;
            }
            InFlight::Many(requests) => requests,
        };
        if reentry {
            requests.returning.remove(room);
        } else {
            requests.busy.remove(room);
            let next = requests
                .queued
                .iter()
                .position(|queued| queued.room == *room);
            if let Some(next) = next.and_then(|at| requests.queued.remove(at)) {
                requests.push(next, connection);
            }
        }
        self.let_go_if_idle();
    }

    /// Once nothing waits, frees what the requests took: a connection mostly has one
    /// request out at a time, and between them (which is most of its life) it should
    /// keep nothing for them. The next request allocates anew.
    fn let_go_if_idle(&mut self) {
        if let InFlight::Many(requests) = self
            && requests.sent.is_empty()
            && requests.busy.is_empty()
            && requests.returning.is_empty()
            && requests.queued.is_empty()
        {
            *self = InFlight::Idle;
        }
    }

    /// Waits for every request sent to be answered, and hands each answer to
    /// `connection`; the queued ones are dropped unsent. For a closing connection, so
    /// that a room it entered meanwhile is among the rooms told it closed.
    pub(super) async fn finish(self, connection: &mut Connection) {
        match self {
            InFlight::Idle => {}
            InFlight::One(one) => {
                if let Some(sent) = one.sent {
                    connection.settle(sent.await);
                }
            }
            InFlight::Many(mut requests) => {
                while let Some(answered) = requests.sent.next().await {
                    connection.settle(answered);
                }
            }
        }
    }
}
