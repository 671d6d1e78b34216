//! The database sessions whose batch of moves was given up mid-write: until each is
//! seen to have ended, what that batch stored cannot be read for certain (it may still
//! commit), so they are ended before any move's outcome is read.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// A database server process serving one connection, told apart from a later process
/// that reuses its id by when it started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SessionId {
    /// The server process's id (`pg_backend_pid()`).
    pub(crate) pid: i32,
    /// When it started (`backend_start`, as text).
    pub(crate) started: String,
}

/// The sessions given up mid-write and not yet seen to have ended; clones share them.
#[derive(Clone, Debug, Default)]
pub(crate) struct LostSessions(Arc<Mutex<Vec<SessionId>>>);

impl LostSessions {
    fn held(&self) -> MutexGuard<'_, Vec<SessionId>> {
        // A list of ids stays consistent whatever panicked while holding it.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Notes a session whose batch was given up mid-write.
    pub(crate) fn add(&self, session: SessionId) {
        self.held().push(session);
    }

    /// The sessions not yet seen to have ended.
    pub(crate) fn pending(&self) -> Vec<SessionId> {
        self.held().clone()
    }

    /// Strikes off a session seen to have ended.
    pub(crate) fn ended(&self, session: &SessionId) {
        self.held().retain(|held| held != session);
    }
}
