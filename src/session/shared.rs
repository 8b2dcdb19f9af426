//! The state a session shares between its threads and its waiters.
//!
//! One mutex guards the screen ([`Terminal`]), the raw-output ring, the exit status and
//! a generation counter; one condition variable wakes every waiter when any of them
//! changes. The parser thread and the exit watcher write; `wait` and the state getters
//! read. Nothing here knows about processes or threads.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

use super::output_ring::OutputRing;
use crate::process::ExitStatus;
use crate::snapshot::Snapshot;
use crate::terminal::Terminal;

/// Shared between the session, its threads and its waiters.
pub(crate) struct Shared {
    pub(super) state: Mutex<State>,
    pub(super) changed: Condvar,
}

pub(crate) struct State {
    pub(crate) terminal: Terminal,
    /// Bumped after every chunk of output is parsed.
    pub(crate) generation: u64,
    pub(crate) log: OutputRing,
    /// Set once the child has exited and its output has been drained.
    pub(crate) exit: Option<ExitStatus>,
    pub(crate) reader_done: bool,
    /// Set once `exit()`/`kill()` ended the session.
    pub(crate) closed: bool,
}

impl State {
    pub(crate) fn snapshot(&self) -> Snapshot {
        let mut snap = self.terminal.snapshot();
        snap.exit = self.exit;
        snap
    }
}

impl Shared {
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave State half-updated in a way that
        // matters more than losing the session, so keep going with the data.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn sleep<'a>(&self, guard: MutexGuard<'a, State>, timeout: Duration) -> MutexGuard<'a, State> {
        match self.changed.wait_timeout(guard, timeout) {
            Ok((guard, _)) => guard,
            Err(p) => p.into_inner().0,
        }
    }

    pub(crate) fn notify(&self) {
        self.changed.notify_all();
    }
}

/// Turns at sending input, served in the order they were asked for: one request's steps
/// (and the baseline its wait starts from) go to the program as one unit, and requests
/// from several threads or clients run in arrival order. A ticket lock, because std's
/// mutex is neither fair nor ordered.
#[derive(Default)]
pub(crate) struct InputTurns {
    /// (next ticket to hand out, ticket being served)
    tickets: Mutex<(u64, u64)>,
    turn_over: Condvar,
}

/// The right to send; the next caller's turn starts when it is dropped.
pub(crate) struct InputTurn<'a>(&'a InputTurns);

impl InputTurns {
    /// Waits for this caller's turn.
    pub(crate) fn take(&self) -> InputTurn<'_> {
        let mut tickets = self.tickets.lock().unwrap_or_else(|p| p.into_inner());
        let mine = tickets.0;
        tickets.0 += 1;
        while tickets.1 != mine {
            tickets = self.turn_over.wait(tickets).unwrap_or_else(|p| p.into_inner());
        }
        InputTurn(self)
    }
}

impl Drop for InputTurn<'_> {
    fn drop(&mut self) {
        self.0.tickets.lock().unwrap_or_else(|p| p.into_inner()).1 += 1;
        self.0.turn_over.notify_all();
    }
}
