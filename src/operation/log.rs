//! The operation log: every operation a session was given through the executor, in
//! order, with when it ran, how long it took, whether it succeeded and what screen it
//! saw — what `export` turns back into a tape or a test. Bounded: the newest
//! [`MAX_LOGGED`] operations, and the screens' text up to [`MAX_SCREEN_BYTES`] (older
//! entries keep the operation and lose the screen).

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::Operation;

/// The most operations a log keeps.
pub const MAX_LOGGED: usize = 10_000;
/// The most screen text a log keeps, all entries together.
pub const MAX_SCREEN_BYTES: usize = 4 << 20;

/// One operation as it ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoggedOperation {
    /// The operation.
    pub operation: Operation,
    /// When it started, in milliseconds since the session started.
    pub at_ms: u64,
    /// How long it took, in milliseconds.
    pub took_ms: u64,
    /// `None` when it succeeded; else the error's first line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The screen's text it ended on, when it returned one (captures, waits, sends with a
    /// capture) and the log still holds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen: Option<String>,
}

/// A session's log (see the module's docs).
#[derive(Debug)]
pub(crate) struct OperationLog {
    started: Instant,
    entries: Mutex<Entries>,
}

#[derive(Debug, Default)]
struct Entries {
    list: VecDeque<LoggedOperation>,
    /// Bytes of screen text in `list`.
    screen_bytes: usize,
    /// Entries before this one hold no screen any more.
    stripped: usize,
}

impl OperationLog {
    pub(crate) fn new() -> OperationLog {
        OperationLog {
            started: Instant::now(),
            entries: Mutex::new(Entries::default()),
        }
    }

    /// Adds an operation that started at `began`.
    pub(crate) fn push(
        &self,
        operation: &Operation,
        began: Instant,
        error: Option<String>,
        screen: Option<String>,
    ) {
        let millis = |d: std::time::Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let entry = LoggedOperation {
            operation: operation.clone(),
            at_ms: millis(began.saturating_duration_since(self.started)),
            took_ms: millis(began.elapsed()),
            error,
            screen,
        };
        let mut guard = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let log = &mut *guard;
        log.screen_bytes += entry.screen.as_ref().map_or(0, String::len);
        log.list.push_back(entry);
        if log.list.len() > MAX_LOGGED
            && let Some(old) = log.list.pop_front()
        {
            log.screen_bytes -= old.screen.as_ref().map_or(0, String::len);
            log.stripped = log.stripped.saturating_sub(1);
        }
        // Oldest screens go first; the operations stay.
        while log.screen_bytes > MAX_SCREEN_BYTES && log.stripped < log.list.len() {
            if let Some(text) = log.list[log.stripped].screen.take() {
                log.screen_bytes -= text.len();
            }
            log.stripped += 1;
        }
    }

    /// A copy of the log, oldest first.
    pub(crate) fn entries(&self) -> Vec<LoggedOperation> {
        let guard = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        guard.list.iter().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_keeps_the_newest_operations_and_drops_old_screens_first() {
        let log = OperationLog::new();
        let big = "x".repeat(MAX_SCREEN_BYTES / 2 + 1);
        for n in 0..3 {
            log.push(&Operation::Info, Instant::now(), None, Some(format!("{n}{big}")));
        }
        let entries = log.entries();
        assert_eq!(entries.len(), 3);
        assert!(entries[0].screen.is_none() && entries[1].screen.is_none());
        assert!(entries[2].screen.as_deref().unwrap().starts_with('2'));
        for _ in 0..MAX_LOGGED {
            log.push(&Operation::Info, Instant::now(), Some("failed".into()), None);
        }
        let entries = log.entries();
        assert_eq!(entries.len(), MAX_LOGGED);
        assert!(entries.iter().all(|e| e.error.is_some()));
    }
}
