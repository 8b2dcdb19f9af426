//! The operation log: every operation a session was given through the executor, in
//! order, with when it ran, how long it took, whether it succeeded and what screen it
//! saw — what `export` turns back into a tape or a test. Bounded: the newest
//! [`MAX_LOGGED`] operations holding at most [`MAX_INPUT_BYTES`] of input (a text longer
//! than [`MAX_LOGGED_TEXT`] keeps its start and says how long it was), and the screens'
//! text up to [`MAX_SCREEN_BYTES`] (older entries keep the operation and lose the screen).

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::Operation;

/// The most operations a log keeps.
pub const MAX_LOGGED: usize = 10_000;
/// The most screen text a log keeps, all entries together.
pub const MAX_SCREEN_BYTES: usize = 4 << 20;
/// The most of one typed, pasted or raw input a log keeps.
pub const MAX_LOGGED_TEXT: usize = 16 << 10;
/// The most input a log keeps, all entries together: older operations go first.
pub const MAX_INPUT_BYTES: usize = 4 << 20;

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
    /// Why its wait ended, when it had one (`matched /…/ at row 3`, `ready: …`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waited: Option<String>,
    /// Whether the program was waiting for input when the operation began, as the kernel
    /// saw it — asked of a send or a capture without a wait that follows a send without a
    /// wait (`None` otherwise, or where the kernel cannot tell). The exporter makes a replay
    /// wait for ready between the two where it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready_before: Option<bool>,
    /// How many bytes of its input the log left out: a text over [`MAX_LOGGED_TEXT`] keeps
    /// only its start, ending in `…[N bytes]`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cut_bytes: u64,
    /// When it ended, in microseconds since the session started: a report places the
    /// screen it ended on among output stamped to the microsecond (0: not known).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ended_us: u64,
    /// Whether a person did it rather than the program driving the session: keys typed
    /// while attached with control (`tuipilot attach --control`) or while recording, an
    /// assertion a recording person asked for. Reports, recordings and exports say so.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_person: bool,
    /// Where in the caller's code it was asked for (`test_app.py:12`), when the face knew
    /// (`Session::apply_from`): a report shows it beside the step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// For a send that failed after its input was written — its wait timed out, or the
    /// program exited first — how: the input reached the program, so a replay sends it
    /// too (and waits for the exit where the program exited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_after_input: Option<AfterInput>,
}

/// How a send failed after its input reached the program ([`LoggedOperation::failed_after_input`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AfterInput {
    /// Its wait timed out.
    TimedOut,
    /// The program exited before its wait's condition held.
    Exited,
}

impl LoggedOperation {
    /// The operation's label (see [`Operation::label`]), marked `typed by a person: ` for
    /// a person's input and `by a person: ` for anything else a person did.
    pub fn label(&self) -> String {
        by_person_label(&self.operation, self.by_person)
    }
}

/// `operation`'s label, marked as [`LoggedOperation::label`] marks what a person did.
pub(crate) fn by_person_label(operation: &Operation, by_person: bool) -> String {
    let label = operation.label();
    match (by_person, operation) {
        (false, _) => label,
        (true, Operation::Send { .. }) => format!("typed by a person: {label}"),
        (true, _) => format!("by a person: {label}"),
    }
}

/// How an operation ended, as the log keeps it (see [`LoggedOperation`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct Outcome {
    pub(crate) error: Option<String>,
    pub(crate) screen: Option<String>,
    pub(crate) waited: Option<String>,
    pub(crate) ready_before: Option<bool>,
    pub(crate) by_person: bool,
    pub(crate) source: Option<String>,
    pub(crate) failed_after_input: Option<AfterInput>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// `operation` with each input over [`MAX_LOGGED_TEXT`] cut to its start and its length;
/// the bytes kept and the bytes left out.
fn bounded(operation: &Operation) -> (Operation, usize, u64) {
    use super::Step;
    let mut operation = operation.clone();
    let (mut kept, mut cut) = (0usize, 0u64);
    if let Operation::Send { steps, .. } = &mut operation {
        for step in steps {
            match step {
                Step::Text(text)
                | Step::Type { text, .. }
                | Step::TextPerKey(text)
                | Step::Paste(text)
                | Step::Keys(text)
                | Step::KeysPerKey(text)
                | Step::Mouse(text) => {
                    if text.len() > MAX_LOGGED_TEXT {
                        let whole = text.len();
                        let start = crate::terminal::signals::cut_at(text, MAX_LOGGED_TEXT);
                        cut += (whole - start.len()) as u64;
                        *text = format!("{start}…[{whole} bytes]");
                    }
                    kept += text.len();
                }
                Step::Bytes(bytes) => {
                    if bytes.len() > MAX_LOGGED_TEXT {
                        cut += (bytes.len() - MAX_LOGGED_TEXT) as u64;
                        bytes.truncate(MAX_LOGGED_TEXT);
                    }
                    kept += bytes.len();
                }
                Step::SleepMs(_) | Step::Focus(_) => {}
            }
        }
    }
    (operation, kept, cut)
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
    /// Bytes of input in `list`, each entry's counted as it was pushed.
    input_bytes: usize,
    input_sizes: VecDeque<usize>,
    /// Bytes of screen text in `list`.
    screen_bytes: usize,
    /// Entries before this one hold no screen any more.
    stripped: usize,
}

impl OperationLog {
    /// An empty log whose times count from `started` (the session's story's start, so
    /// an operation's time and its output's times in a recording share one zero).
    pub(crate) fn new(started: Instant) -> OperationLog {
        OperationLog {
            started,
            entries: Mutex::new(Entries::default()),
        }
    }

    /// Adds an operation that started at `began`.
    pub(crate) fn push(&self, operation: &Operation, began: Instant, outcome: Outcome) {
        let Outcome {
            error,
            screen,
            waited,
            ready_before,
            by_person,
            source,
            failed_after_input,
        } = outcome;
        let millis = |d: std::time::Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let (operation, input, cut_bytes) = bounded(operation);
        let entry = LoggedOperation {
            operation,
            at_ms: millis(began.saturating_duration_since(self.started)),
            took_ms: millis(began.elapsed()),
            error,
            screen,
            waited,
            ready_before,
            cut_bytes,
            ended_us: u64::try_from(self.started.elapsed().as_micros()).unwrap_or(u64::MAX),
            by_person,
            source,
            failed_after_input,
        };
        let mut guard = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let log = &mut *guard;
        log.screen_bytes += entry.screen.as_ref().map_or(0, String::len);
        log.input_bytes += input;
        log.input_sizes.push_back(input);
        log.list.push_back(entry);
        while log.list.len() > MAX_LOGGED || (log.input_bytes > MAX_INPUT_BYTES && log.list.len() > 1) {
            let Some(old) = log.list.pop_front() else { break };
            log.screen_bytes -= old.screen.as_ref().map_or(0, String::len);
            log.input_bytes -= log.input_sizes.pop_front().unwrap_or(0);
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

    /// How many operations the log holds and the bytes of input and screen text in them.
    pub(crate) fn usage(&self) -> (usize, usize, usize) {
        let guard = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        (guard.list.len(), guard.input_bytes, guard.screen_bytes)
    }

    /// A copy of the log, oldest first.
    /// Whether the newest operation was input with no wait of its own (the only kind the
    /// exporter asks about the program's readiness after).
    pub(crate) fn last_is_send_without_wait(&self) -> bool {
        let guard = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        matches!(
            guard.list.back(),
            Some(LoggedOperation {
                operation: super::Operation::Send { wait: None, .. },
                error: None,
                ..
            })
        )
    }

    /// The newest entry, if any.
    pub(crate) fn last(&self) -> Option<LoggedOperation> {
        let guard = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        guard.list.back().cloned()
    }

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
        let log = OperationLog::new(Instant::now());
        let big = "x".repeat(MAX_SCREEN_BYTES / 2 + 1);
        for n in 0..3 {
            log.push(
                &Operation::Info,
                Instant::now(),
                Outcome {
                    screen: Some(format!("{n}{big}")),
                    ..Outcome::default()
                },
            );
        }
        let entries = log.entries();
        assert_eq!(entries.len(), 3);
        assert!(entries[0].screen.is_none() && entries[1].screen.is_none());
        assert!(entries[2].screen.as_deref().unwrap().starts_with('2'));
        for _ in 0..MAX_LOGGED {
            log.push(
                &Operation::Info,
                Instant::now(),
                Outcome {
                    error: Some("failed".into()),
                    ..Outcome::default()
                },
            );
        }
        let entries = log.entries();
        assert_eq!(entries.len(), MAX_LOGGED);
        assert!(entries.iter().all(|e| e.error.is_some()));
    }

    #[test]
    fn long_inputs_keep_their_start_and_length_and_the_log_keeps_at_most_its_input_bytes() {
        let log = OperationLog::new(Instant::now());
        let send = |text: String| Operation::Send {
            steps: vec![super::super::Step::Text(text)],
            wait: None,
            timeout_ms: None,
            capture: false,
            secret: false,
        };
        log.push(&send("y".repeat(1 << 20)), Instant::now(), Outcome::default());
        let entry = &log.entries()[0];
        assert_eq!(entry.cut_bytes, (1 << 20) - MAX_LOGGED_TEXT as u64);
        let super::super::Operation::Send { steps, .. } = &entry.operation else {
            panic!()
        };
        let super::super::Step::Text(text) = &steps[0] else {
            panic!()
        };
        assert!(text.ends_with(&format!("…[{} bytes]", 1 << 20)) && text.len() < MAX_LOGGED_TEXT + 32);
        for _ in 0..1000 {
            log.push(&send("z".repeat(1 << 20)), Instant::now(), Outcome::default());
        }
        let (count, input, _) = log.usage();
        assert!(input <= MAX_INPUT_BYTES, "{input}");
        assert!(count < 1000 && count > 100, "{count}");
    }
}
