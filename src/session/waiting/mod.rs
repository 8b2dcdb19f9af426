//! The one waiting loop, and the waits that read the session's state.
//!
//! Every wait sleeps on the session's condition variable, which the reader thread
//! signals after each chunk of output is parsed (and the exit watcher after the program
//! ends); the condition is re-checked on each wake-up. Nothing polls on a timer: the only
//! timed sleeps are the deadline itself and, for `Stable`, the end of the quiet period.
//!
//! What a wait waits for and what a failed one reports are data in [`crate::wait`]; here
//! is the waiting, beside the state it reads. The readiness wait (`ready`, with what it
//! follows after input in `reaction`), the completion of a matched frame (`frames`) and
//! the failure's report (`failure`) have files of their own.

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use regex::Regex;

use super::{OutputRing, Shared, State};
use crate::error::{Error, Result};
use crate::process::ExitStatus;
use crate::snapshot::Snapshot;
use crate::terminal::Terminal;
use crate::wait::{Condition, FRAME_LIMIT, reads_the_screen};

mod failure;
mod frames;
mod reaction;
mod ready;

use failure::{Attempt, failure};
use frames::until_frame_complete;
use ready::wait_ready;
pub(crate) use ready::{let_escape_land, readiness};

/// Where a wait starts from: taken before input is written, so a fast reply cannot be
/// missed and an unchanged screen is not mistaken for the reply.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Baseline {
    pub fingerprint: u64,
    pub output_offset: u64,
    /// Commands finished (OSC 133;D) and bells rung before the baseline.
    pub commands: u64,
    pub bells: u64,
    /// A `Text` or `Line` condition holds only after the screen has changed, or the
    /// program has printed something, since the baseline.
    pub require_change: bool,
    /// When it was taken: a wait whose baseline predates input was sent together with it
    /// (`send_keys_and_wait`), and a failed test's report shows the two as one step.
    pub at: std::time::Instant,
}

impl Baseline {
    pub(crate) fn now(state: &State, require_change: bool) -> Baseline {
        Baseline {
            fingerprint: state.screen_fingerprint,
            output_offset: state.log.total(),
            commands: state.terminal.signals().commands_finished,
            bells: state.terminal.bells(),
            require_change,
            at: std::time::Instant::now(),
        }
    }
}

/// What a satisfied wait returns.
pub(crate) enum Satisfied {
    /// The screen when the condition held, and why it held, in words.
    Screen(Snapshot, String),
    Exit(ExitStatus),
}

/// Follows the output stream for an `Output` condition: strips escape sequences from new
/// bytes as they arrive (keeping parser state across chunks) and searches the text.
struct OutputScan {
    next: u64,
    stripper: strip_ansi_escapes::Writer<SharedBuf>,
    text: Rc<RefCell<Vec<u8>>>,
    searched: usize,
    /// Whether the newest output has been searched first (see `recent_match`), and
    /// whether it matched there (output once matched stays matched).
    tried_recent: bool,
    recent_held: bool,
    /// Whether every chunk so far was plain text (the stripper, never fed, is still in
    /// its ground state): a plain chunk is then its own stripped text.
    plain: bool,
}

/// Matches are found when they lie within this many bytes of newly arrived text.
const OUTPUT_WINDOW: usize = 64 * 1024;
/// Stripped text kept per scan.
const OUTPUT_KEEP: usize = 1 << 20;

#[derive(Clone)]
struct SharedBuf(Rc<RefCell<Vec<u8>>>);

impl Write for SharedBuf {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl OutputScan {
    fn new(from: u64) -> OutputScan {
        let text = Rc::new(RefCell::new(Vec::new()));
        OutputScan {
            next: from,
            stripper: strip_ansi_escapes::Writer::new(SharedBuf(text.clone())),
            text,
            searched: 0,
            tried_recent: false,
            recent_held: false,
            plain: true,
        }
    }

    /// Once, before the first full scan of a long backlog: whether `re` matches the
    /// newest [`OUTPUT_WINDOW`] of it (from its first line break, so no escape sequence is
    /// cut in two). Any match since the start holds, and under a flood the newest is where
    /// one is: a megabyte of backlog is then not stripped and searched for it.
    fn recent_match(&mut self, log: &OutputRing, re: &Regex) -> bool {
        let backlog = log.total().saturating_sub(self.next);
        if std::mem::replace(&mut self.tried_recent, true) || backlog <= 2 * OUTPUT_WINDOW as u64 {
            return self.recent_held;
        }
        let (_, bytes) = log.since(log.total() - OUTPUT_WINDOW as u64);
        let Some(line) = bytes.iter().position(|b| *b == b'\n') else {
            return false;
        };
        let text = strip_ansi_escapes::strip(&bytes[line + 1..]);
        self.recent_held = re.is_match(&String::from_utf8_lossy(&text));
        self.recent_held
    }

    fn update(&mut self, log: &OutputRing) {
        if log.total() <= self.next {
            return;
        }
        let (_, bytes) = log.since(self.next);
        self.next = log.total();
        // Text with no escape sequence or control but line feeds strips to itself: a
        // flood of lines (`yes`, a megabyte of log) is not run through the parser.
        self.plain &= plain_text(&bytes);
        if self.plain {
            self.text.borrow_mut().extend_from_slice(&bytes);
        } else {
            // Writing into memory cannot fail.
            let _ = self.stripper.write_all(&bytes);
            let _ = self.stripper.flush();
        }
        let mut text = self.text.borrow_mut();
        if text.len() > 2 * OUTPUT_KEEP {
            let cut = text.len() - OUTPUT_KEEP;
            text.drain(..cut);
            self.searched = self.searched.saturating_sub(cut);
        }
    }

    fn is_match(&mut self, re: &Regex) -> bool {
        let text = self.text.borrow();
        let from = self.searched.saturating_sub(OUTPUT_WINDOW);
        self.searched = text.len();
        re.is_match(&String::from_utf8_lossy(&text[from..]))
    }

    fn tail(&self, lines: usize) -> String {
        let text = self.text.borrow();
        let text = String::from_utf8_lossy(&text);
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }
}

/// Whether `bytes` are text that stripping escape sequences leaves as it is: UTF-8 with no
/// control character but the line feed (which the stripper keeps) and no DEL.
fn plain_text(bytes: &[u8]) -> bool {
    bytes.iter().all(|b| (*b >= 0x20 && *b != 0x7f) || *b == b'\n') && std::str::from_utf8(bytes).is_ok()
}

/// Far enough to be "never" for a wait, near enough not to overflow an `Instant`.
const NEVER: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// Waits until `condition` holds, the program exits in a way that means it never will,
/// the session is closed, `cancelled` is set, or `timeout` passes.
pub(crate) fn wait_until(
    shared: &Shared,
    condition: &Condition,
    baseline: Baseline,
    timeout: Duration,
    cancelled: Option<&AtomicBool>,
    caller: Option<&'static std::panic::Location<'static>>,
) -> Result<Satisfied> {
    if let Condition::Ready | Condition::Prompt = condition {
        return wait_ready(shared, condition, baseline, timeout, cancelled, caller);
    }
    let start = Instant::now();
    let deadline = start + timeout.min(NEVER);
    let mut state = shared.lock();
    let mut scan = OutputScan::new(baseline.output_offset);
    let mut seen_generation = None;
    let mut last_fingerprint = baseline.fingerprint;
    let mut changed = !baseline.require_change;
    let mut quiet_since = start;
    // The output's length when the frame was last seen complete.
    let mut frame_complete_at: Option<u64> = None;
    loop {
        if let Some(fault) = state.terminal.fault() {
            return Err(fault);
        }
        if cancelled.is_some_and(|c| c.load(Ordering::SeqCst)) {
            return Err(Error::Cancelled { action: "the wait" });
        }
        if seen_generation != Some(state.generation) {
            seen_generation = Some(state.generation);
            // The parser notes the screen's fingerprint after every batch: read, not
            // recomputed.
            if state.screen_fingerprint != last_fingerprint {
                last_fingerprint = state.screen_fingerprint;
                changed = true;
                quiet_since = Instant::now();
            }
            // Output since the input counts as a change even when it redrew the same
            // screen (a `clear` and the same prompt, parsed in one batch, leave no
            // different screen to see).
            if !changed && state.log.total() > baseline.output_offset {
                changed = true;
            }
        }
        let now = Instant::now();
        let holds = match condition {
            Condition::Text(re) => changed && on_screen(re, &state.terminal),
            Condition::NoText(re) => !on_screen(re, &state.terminal),
            Condition::Line(re) => changed && on_cursor_row(re, &state.terminal),
            Condition::Wrapped(re) => changed && state.snapshot().logical_match(re).is_some(),
            Condition::Output(re) => {
                scan.recent_match(&state.log, re) || {
                    scan.update(&state.log);
                    scan.is_match(re)
                }
            }
            // A program that has exited (its output drained) can no longer change the
            // screen: it is as stable as it will ever be.
            Condition::Stable(quiet) => {
                (state.exit.is_some() && !state.closed) || now.duration_since(quiet_since) >= *quiet
            }
            Condition::Exit => {
                if let Some(status) = state.exit {
                    return Ok(Satisfied::Exit(status));
                }
                false
            }
            Condition::CursorAt(row, col) => {
                let cursor = state.snapshot().cursor();
                (cursor.row, cursor.col) == (*row, *col)
            }
            Condition::Predicate(test) | Condition::Described(_, test) | Condition::Explained(_, test, _) => {
                test(&state.snapshot())
            }
            Condition::CommandDone => state.terminal.signals().commands_finished > baseline.commands,
            Condition::Bell => state.terminal.bells() > baseline.bells,
            Condition::Title(re) => re.is_match(state.terminal.title()),
            Condition::Cwd(re) => state
                .terminal
                .signals()
                .cwd
                .as_deref()
                .is_some_and(|cwd| re.is_match(cwd)),
            // Handled by `wait_ready`.
            Condition::Ready | Condition::Prompt => false,
        };
        // A match returns on a whole frame: once the program has finished writing it,
        // checked again on what it finished.
        let whole = !state.whole_frames
            || !reads_the_screen(condition)
            || now >= deadline
            || frame_complete_at == Some(state.log.total());
        if holds && !whole {
            state = until_frame_complete(shared, state, deadline.min(now + FRAME_LIMIT), cancelled);
            frame_complete_at = Some(state.log.total());
            continue;
        }
        if holds {
            let why = held(condition, &state, now.duration_since(quiet_since));
            return Ok(Satisfied::Screen(state.snapshot(), why));
        }
        if state.closed {
            return Err(Error::Closed {
                action: "wait",
                caller,
            });
        }
        // Once the program has exited (and its output is drained) the screen is final:
        // only a quiet-period wait can still come true.
        let exited = state.exit.filter(|_| !matches!(condition, Condition::Stable(_)));
        if exited.is_some() || now >= deadline {
            let unchanged_since_input = baseline.require_change && !changed;
            let attempt = Attempt {
                start,
                timeout,
                caller,
            };
            return Err(failure(
                &mut state,
                condition,
                &attempt,
                exited,
                &scan,
                unchanged_since_input,
            ));
        }
        let mut wake = deadline;
        if let Condition::Stable(quiet) = condition {
            wake = wake.min(quiet_since.checked_add(*quiet).unwrap_or(deadline));
        }
        state = shared.sleep(state, wake.saturating_duration_since(now));
    }
}

/// Whether `re` matches the screen: its rows, trailing spaces trimmed, or the cursor's
/// row with the spaces before the cursor (a prompt's `>>> `).
fn on_screen(re: &Regex, terminal: &Terminal) -> bool {
    let text = terminal.text();
    crate::snapshot::matches_rows(re, &text) || before_cursor(re, &text, terminal)
}

/// Whether `re` matches the cursor's row of `text` (the trimmed rows) up to the cursor.
fn before_cursor(re: &Regex, text: &str, terminal: &Terminal) -> bool {
    let (row, col) = terminal.cursor_position();
    text.split('\n')
        .nth(usize::from(row))
        .and_then(|row| up_to_cursor(row, col))
        .is_some_and(|row| re.is_match(&row))
}

/// `row`, trimmed, with the spaces up to column `col` put back, where the cursor stands
/// past its end; `None` where it does not.
fn up_to_cursor(row: &str, col: u16) -> Option<String> {
    let width = unicode_width::UnicodeWidthStr::width(row);
    let col = usize::from(col);
    (col > width).then(|| format!("{row}{}", " ".repeat(col - width)))
}

/// Whether `re` matches the cursor's row, trimmed or up to the cursor.
fn on_cursor_row(re: &Regex, terminal: &Terminal) -> bool {
    let row = terminal.cursor_row_text();
    re.is_match(&row) || up_to_cursor(&row, terminal.cursor_position().1).is_some_and(|row| re.is_match(&row))
}

/// Why `condition` holds on the state, in words for a reply: which row matched, how long
/// the screen was quiet, the command's exit code.
fn held(condition: &Condition, state: &State, quiet: Duration) -> String {
    let first_row = |re: &Regex, text: &str| text.lines().position(|row| re.is_match(row.trim_end()));
    match condition {
        Condition::Text(re) => {
            let text = state.terminal.text();
            match first_row(re, &text) {
                Some(row) => format!("matched /{re}/ at row {row}"),
                None if before_cursor(re, &text, &state.terminal) => format!(
                    "matched /{re}/ at row {}, before the cursor",
                    state.terminal.cursor_position().0
                ),
                // A pattern spanning rows (`a\nb`): matched, on no one row.
                None => format!("matched /{re}/"),
            }
        }
        Condition::NoText(re) => format!("no row matches /{re}/"),
        Condition::Line(re) => format!(
            "the cursor's row {} matches /{re}/",
            state.terminal.cursor_position().0
        ),
        Condition::Wrapped(re) => match state.snapshot().logical_match(re) {
            Some((row, 1)) => format!("matched /{re}/ at row {row}"),
            Some((row, rows)) => format!(
                "matched /{re}/ in the line wrapped over rows {row}-{}",
                row + rows - 1
            ),
            None => format!("matched /{re}/"),
        },
        Condition::Output(re) => format!("output matched /{re}/"),
        Condition::Stable(_) if state.exit.is_some() => "the program has exited: the screen is final".into(),
        Condition::Stable(_) => format!("quiet for {} ms", quiet.as_millis()),
        Condition::Exit => "exited".into(),
        Condition::CursorAt(row, col) => format!("the cursor is at row {row}, col {col}"),
        Condition::CommandDone => match state.terminal.signals().last_exit_code() {
            Some(code) => format!("command done (OSC 133), exit {code}"),
            None => "command done (OSC 133)".into(),
        },
        Condition::Bell => "a bell rang".into(),
        Condition::Title(re) => format!("the title matches /{re}/"),
        Condition::Cwd(re) => format!("the working directory matches /{re}/"),
        Condition::Predicate(_) => "the condition held".into(),
        Condition::Described(what, _) | Condition::Explained(what, ..) => format!("{what}: held"),
        Condition::Ready | Condition::Prompt => "ready".into(),
    }
}
