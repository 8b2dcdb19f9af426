//! Wait conditions and the one waiting loop.
//!
//! Every wait sleeps on the session's condition variable, which the reader thread
//! signals after each chunk of output is parsed (and the exit watcher after the program
//! ends); the condition is re-checked on each wake-up. Nothing polls on a timer: the only
//! timed sleeps are the deadline itself and, for `Stable`, the end of the quiet period.
//!
//! A wait that fails returns a [`WaitError`] whose `Display` shows the condition, the
//! elapsed time, the screen as it last was, the line closest to what was wanted, and the
//! terminal queries the program sent that went unanswered.

use std::cell::RefCell;
use std::fmt;
use std::io::Write;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, MutexGuard};
use std::time::{Duration, Instant};

use regex::Regex;

use crate::error::{Error, Result};
use crate::process::ExitStatus;
use crate::session::OutputRing;
use crate::session::{Shared, State};
use crate::snapshot::{Snapshot, compile};
use crate::terminal::QueryRecord;

mod ready;

pub(crate) use ready::readiness;
use ready::wait_ready;
pub use ready::{READY_FALLBACK_QUIET, still_true};

/// A test on a snapshot, for [`Condition::Predicate`].
pub type Predicate = Arc<dyn Fn(&Snapshot) -> bool + Send + Sync>;

/// What a failed wait's report says the screen held instead, for a [`Condition::Explained`].
pub type Explain = Arc<dyn Fn(&Snapshot) -> Option<String> + Send + Sync>;

/// What a wait waits for.
#[derive(Clone)]
pub enum Condition {
    /// A regex matches some row of the visible screen.
    Text(Regex),
    /// No row of the visible screen matches the regex.
    NoText(Regex),
    /// A regex matches the cursor's row (trailing spaces trimmed): the line a shell
    /// prompt or a program's input field is on.
    Line(Regex),
    /// A regex matches the program's output (escape sequences removed) since a point in
    /// the stream: the session start, a [`Mark`](crate::Mark), or the input of a
    /// `send_and_wait`.
    Output(Regex),
    /// The screen has not changed for this long, counted from the start of the wait.
    Stable(Duration),
    /// The program has exited.
    Exit,
    /// The cursor is at this 0-based (row, col).
    CursorAt(u16, u16),
    /// A shell command finished after the baseline: the shell's OSC 133;D mark (see
    /// shell integration). The reply's screen carries its exit code.
    CommandDone,
    /// The program rang the bell after the baseline.
    Bell,
    /// The window title matches the regex.
    Title(Regex),
    /// The working directory the program reported (OSC 7) matches the regex.
    Cwd(Regex),
    /// A caller-supplied test on the screen.
    Predicate(Predicate),
    /// A caller-supplied test with the words a failed wait's report uses for it
    /// ([`Condition::described`]).
    Described(String, Predicate),
    /// A [`Described`](Condition::Described) test that also says, when the wait fails, what
    /// the screen held instead (`"Cherry" is drawn bold fg=white (15)`).
    Explained(String, Predicate, Explain),
    /// The program has finished reacting and waits for input, as the kernel sees it (see
    /// [`readiness`](crate::readiness)): every process of the terminal's foreground group
    /// asleep, one blocked on the terminal, no output or input in flight; seen twice a few
    /// milliseconds apart with no output between. Where the kernel cannot tell, a screen
    /// quiet for [`READY_FALLBACK_QUIET`].
    Ready,
    /// A shell waits at its prompt: [`Condition::Ready`], and, once the shell has sent
    /// OSC 133 marks, its last marks a prompt with no command running. For a shell's first
    /// prompt, where the screen's text is anyone's guess (`$`, `#`, `%`, a theme).
    Prompt,
}

impl Condition {
    /// Text on the screen matching `pattern`.
    pub fn text(pattern: &str) -> Result<Condition> {
        Ok(Condition::Text(compile(pattern)?))
    }

    /// No text on the screen matching `pattern`.
    pub fn no_text(pattern: &str) -> Result<Condition> {
        Ok(Condition::NoText(compile(pattern)?))
    }

    /// The cursor's row matching `pattern`.
    pub fn line(pattern: &str) -> Result<Condition> {
        Ok(Condition::Line(compile(pattern)?))
    }

    /// Output matching `pattern`.
    pub fn output(pattern: &str) -> Result<Condition> {
        Ok(Condition::Output(compile(pattern)?))
    }

    /// The window title matching `pattern`.
    pub fn title(pattern: &str) -> Result<Condition> {
        Ok(Condition::Title(compile(pattern)?))
    }

    /// The working directory the program reports (OSC 7) matching `pattern`.
    pub fn cwd(pattern: &str) -> Result<Condition> {
        Ok(Condition::Cwd(compile(pattern)?))
    }

    /// A screen unchanged for `quiet`.
    pub fn stable(quiet: Duration) -> Condition {
        Condition::Stable(quiet)
    }

    /// A test on each new screen.
    pub fn predicate(test: impl Fn(&Snapshot) -> bool + Send + Sync + 'static) -> Condition {
        Condition::Predicate(Arc::new(test))
    }

    /// A test on each new screen, named for the report: a failed wait says
    /// "waiting for the selected row to be bold", not "a condition on the screen".
    pub fn described(
        what: impl Into<String>,
        test: impl Fn(&Snapshot) -> bool + Send + Sync + 'static,
    ) -> Condition {
        Condition::Described(what.into(), Arc::new(test))
    }

    /// A named test on each new screen, and what to say about the last screen when the
    /// wait fails (a note in the report).
    pub fn explained(
        what: impl Into<String>,
        test: impl Fn(&Snapshot) -> bool + Send + Sync + 'static,
        explain: impl Fn(&Snapshot) -> Option<String> + Send + Sync + 'static,
    ) -> Condition {
        Condition::Explained(what.into(), Arc::new(test), Arc::new(explain))
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Condition::Text(re) => write!(f, "text matching /{re}/ on the screen"),
            Condition::NoText(re) => write!(f, "no text matching /{re}/ on the screen"),
            Condition::Line(re) => write!(f, "the cursor's line to match /{re}/"),
            Condition::Output(re) => write!(f, "output matching /{re}/"),
            Condition::Stable(d) => {
                write!(f, "the screen to stay unchanged for {} ms", d.as_millis())
            }
            Condition::Exit => write!(f, "the program to exit"),
            Condition::CursorAt(r, c) => write!(f, "the cursor at row {r}, col {c}"),
            Condition::CommandDone => write!(f, "the next command to finish (OSC 133;D)"),
            Condition::Bell => write!(f, "a bell"),
            Condition::Title(re) => write!(f, "the title to match /{re}/"),
            Condition::Cwd(re) => write!(f, "the working directory (OSC 7) to match /{re}/"),
            Condition::Predicate(_) => write!(f, "a condition on the screen"),
            Condition::Described(what, _) | Condition::Explained(what, ..) => f.write_str(what),
            Condition::Ready => write!(f, "the program to wait for input"),
            Condition::Prompt => write!(f, "the shell to wait at its prompt"),
        }
    }
}

impl fmt::Debug for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Condition({self})")
    }
}

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
}

impl Baseline {
    pub(crate) fn now(state: &State, require_change: bool) -> Baseline {
        Baseline {
            fingerprint: state.screen_fingerprint,
            output_offset: state.log.total(),
            commands: state.terminal.signals().commands_finished,
            bells: state.terminal.bells(),
            require_change,
        }
    }
}

/// What a satisfied wait returns.
pub(crate) enum Satisfied {
    /// The screen when the condition held, and why it held, in words.
    Screen(Snapshot, String),
    Exit(ExitStatus),
}

/// A failed wait: why, after how long, and what the screen showed.
#[derive(Debug)]
pub struct WaitError {
    /// The condition, in words.
    pub condition: String,
    /// How long the wait ran.
    pub elapsed: Duration,
    /// The timeout it had.
    pub timeout: Duration,
    /// Set when the wait failed because the program exited.
    pub exited: Option<ExitStatus>,
    /// The screen as it last was.
    pub screen: Snapshot,
    /// The row (0-based) and text closest to what was wanted, if any is close.
    pub closest: Option<(usize, String)>,
    /// The last lines of output, for output conditions.
    pub output_tail: Option<String>,
    /// Queries the program sent that were not answered.
    pub unanswered: Vec<QueryRecord>,
    /// Whether the condition had a pattern (so a closest line means something).
    pub has_pattern: bool,
    /// What explains the failure beyond the screen: the pattern already matched before
    /// the input, rows are matched trimmed, …
    pub notes: Vec<String>,
    /// Where the wait was called from, for a direct library call: the report starts with
    /// it, so a `?` in a test still says which line failed.
    pub caller: Option<&'static std::panic::Location<'static>>,
    /// The folder the screen, its colours, a PNG and the state were written to (a direct
    /// library call inside a test; see `TUIPILOT_ARTIFACTS`).
    pub artifacts: Option<std::path::PathBuf>,
}

impl fmt::Display for WaitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.elapsed.as_secs_f64();
        if let Some(caller) = self.caller {
            write!(f, "{}:{}: ", caller.file(), caller.line())?;
        }
        match &self.exited {
            Some(status) => writeln!(
                f,
                "the program {status} after {secs:.2}s while waiting for {}",
                self.condition
            )?,
            None => writeln!(
                f,
                "timed out after {secs:.2}s (timeout {} ms) waiting for {}",
                self.timeout.as_millis(),
                self.condition
            )?,
        }
        let (cols, rows) = self.screen.size();
        let cursor = self.screen.cursor();
        writeln!(f, "screen ({cols}x{rows}, {}):", cursor.words())?;
        let (listing, last) = self.screen.numbered_rows(&[]);
        f.write_str(&listing)?;
        let rows = self.screen.rows().len();
        if last < rows {
            writeln!(f, "     | (rows {last}-{} empty)", rows - 1)?;
        }
        if let Some(tail) = &self.output_tail {
            writeln!(f, "last output:")?;
            for line in tail.lines() {
                writeln!(f, "     > {line}")?;
            }
        }
        for note in &self.notes {
            writeln!(f, "note: {note}")?;
        }
        match (&self.closest, self.has_pattern) {
            (Some((row, line)), _) => match line.matches('\n').count() {
                0 => writeln!(f, "closest line: row {row}: {line:?}")?,
                more => writeln!(f, "closest lines: rows {row}-{}: {line:?}", row + more)?,
            },
            (None, true) => writeln!(f, "closest line: none resembles the pattern")?,
            (None, false) => {}
        }
        if let Some(dir) = &self.artifacts {
            writeln!(f, "saved: {}", crate::artifacts::listing(dir))?;
        }
        if self.unanswered.is_empty() {
            write!(f, "unanswered terminal queries: none")
        } else {
            write!(f, "unanswered terminal queries:")?;
            for q in &self.unanswered {
                write!(f, "\n     {} ({})", q.query, q.note)?;
            }
            Ok(())
        }
    }
}

/// Follows the output stream for an `Output` condition: strips escape sequences from new
/// bytes as they arrive (keeping parser state across chunks) and searches the text.
struct OutputScan {
    next: u64,
    stripper: strip_ansi_escapes::Writer<SharedBuf>,
    text: Rc<RefCell<Vec<u8>>>,
    searched: usize,
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
        }
    }

    fn update(&mut self, log: &OutputRing) {
        if log.total() <= self.next {
            return;
        }
        let (_, bytes) = log.since(self.next);
        self.next = log.total();
        // Writing into memory cannot fail.
        let _ = self.stripper.write_all(&bytes);
        let _ = self.stripper.flush();
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

/// A wait that matched while the program was still writing returns once the output has
/// been quiet this long (where the kernel cannot say the program is ready again sooner).
pub const FRAME_QUIET: Duration = Duration::from_millis(30);

/// The longest a wait that matched waits for the frame to complete (output that never
/// pauses — a flood, a progress bar — is taken as it is then).
pub const FRAME_LIMIT: Duration = Duration::from_millis(250);

/// Conditions on what the screen shows: a match on a frame half drawn is not a match.
fn reads_the_screen(condition: &Condition) -> bool {
    matches!(
        condition,
        Condition::Text(_)
            | Condition::NoText(_)
            | Condition::Line(_)
            | Condition::Output(_)
            | Condition::CursorAt(..)
            | Condition::Predicate(_)
            | Condition::Described(..)
            | Condition::Explained(..)
    )
}

/// Waits, the lock released, until the frame being drawn is complete: no output in
/// flight and the program ready for input (as the kernel sees it, twice
/// [`READY_CONFIRM`](ready::READY_CONFIRM) apart with no output between), or no output for
/// [`FRAME_QUIET`] while no thread of it runs (a writer preempted under load is not
/// done); at most until `until`. Returns the state locked again.
fn until_frame_complete<'a>(
    shared: &'a Shared,
    mut state: MutexGuard<'a, State>,
    until: Instant,
    cancelled: Option<&AtomicBool>,
) -> MutexGuard<'a, State> {
    let mut output = state.log.total();
    let mut quiet_since = Instant::now();
    // When ready was first seen with this much output: it must be seen again
    // `READY_CONFIRM` later with no output between. A write the program made just before
    // it went to read can still be on its way through the kernel's PTY buffers, in no
    // queue a probe can see.
    let mut ready_since: Option<(Instant, u64)> = None;
    loop {
        let now = Instant::now();
        if now >= until || cancelled.is_some_and(|c| c.load(Ordering::SeqCst)) || state.exit.is_some() {
            return state;
        }
        if state.log.total() != output {
            output = state.log.total();
            quiet_since = now;
            ready_since = None;
        }
        if now.duration_since(quiet_since) >= FRAME_QUIET {
            return state;
        }
        if !state.terminal.synchronized() {
            drop(state);
            let now = ready::readiness(shared);
            state = shared.lock();
            let seen = Instant::now();
            match ready_since {
                _ if !now.is_ready() || state.log.total() != output => ready_since = None,
                Some((first, at)) if at == output && seen.duration_since(first) >= ready::READY_CONFIRM => {
                    return state;
                }
                Some(_) => {}
                None => ready_since = Some((seen, output)),
            }
            // A writer preempted mid-frame is quiet but not done.
            if now.is_working() {
                quiet_since = seen;
            }
        }
        let poll = match ready_since {
            Some((first, _)) => (first + ready::READY_CONFIRM).max(now + Duration::from_micros(200)),
            None => now + ready::READY_POLL,
        };
        let wake = until.min(quiet_since + FRAME_QUIET).min(poll);
        state = shared.sleep(state, wake.saturating_duration_since(now));
    }
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
            Condition::Text(re) => changed && re.is_match(&state.terminal.text()),
            Condition::NoText(re) => !re.is_match(&state.terminal.text()),
            Condition::Line(re) => changed && re.is_match(&state.terminal.cursor_row_text()),
            Condition::Output(re) => {
                scan.update(&state.log);
                scan.is_match(re)
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

/// Why `condition` holds on the state, in words for a reply: which row matched, how long
/// the screen was quiet, the command's exit code.
fn held(condition: &Condition, state: &State, quiet: Duration) -> String {
    let first_row = |re: &Regex, text: &str| text.lines().position(|row| re.is_match(row.trim_end()));
    match condition {
        Condition::Text(re) => {
            let text = state.terminal.text();
            match first_row(re, &text) {
                Some(row) => format!("matched /{re}/ at row {row}"),
                // A pattern spanning rows (`a\nb`): matched, on no one row.
                None => format!("matched /{re}/"),
            }
        }
        Condition::NoText(re) => format!("no row matches /{re}/"),
        Condition::Line(re) => format!(
            "the cursor's row {} matches /{re}/",
            state.terminal.snapshot().cursor().row
        ),
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

/// Why a wait failed, beyond the screen: the explanations a reader would otherwise have to
/// work out.
fn notes(condition: &Condition, screen: &Snapshot, unchanged_since_input: bool) -> Vec<String> {
    let mut notes = Vec::new();
    let searched = match condition {
        // The same text the wait searched.
        Condition::Text(re) => Some((re, screen.text())),
        Condition::Line(re) => Some((re, screen.row(screen.cursor().row).unwrap_or("").to_string())),
        _ => None,
    };
    if let Some((re, text)) = searched
        && unchanged_since_input
    {
        let already = re.is_match(&text);
        notes.push(if already {
            format!(
                "/{re}/ already matched before the input was sent, and the screen has not changed since; a wait after input needs the screen to change: wait for what the input changes, or use a plain wait"
            )
        } else {
            "the screen has not changed at all since the input was sent".to_string()
        });
    }
    if let Condition::Text(re) | Condition::NoText(re) | Condition::Line(re) = condition {
        let pattern = re.as_str().trim_end_matches('$');
        if pattern.ends_with(' ') || pattern.ends_with("\\s") || pattern.ends_with("\\s+") {
            notes.push(
                "rows are matched with trailing spaces removed, so a pattern ending in a space or \\s cannot match at a row's end; drop the trailing space"
                    .to_string(),
            );
        }
    }
    notes
}

/// A wait as it was asked for: when, for how long, and from where.
struct Attempt {
    start: Instant,
    timeout: Duration,
    caller: Option<&'static std::panic::Location<'static>>,
}

fn failure(
    state: &mut MutexGuard<'_, State>,
    condition: &Condition,
    attempt: &Attempt,
    exited: Option<ExitStatus>,
    scan: &OutputScan,
    unchanged_since_input: bool,
) -> Error {
    let screen = state.snapshot();
    let mut notes = notes(condition, &screen, unchanged_since_input);
    let signals = state.terminal.signals();
    match condition {
        Condition::CommandDone if !signals.shell_integration => notes.push(
            "the program has sent no OSC 133 marks: it is not a shell with shell integration (bash, zsh and fish get it unless started with --no-shell-integration; an rc file that replaces PROMPT_COMMAND removes bash's)".into(),
        ),
        Condition::Title(_) => notes.push(format!("the title is {:?}", screen.title)),
        Condition::Explained(_, _, explain) => notes.extend(explain(&screen)),
        Condition::Cwd(_) => notes.push(match &signals.cwd {
            Some(cwd) => format!("the working directory reported last is {cwd:?}"),
            None => "the program has reported no working directory (OSC 7)".into(),
        }),
        _ => {}
    }
    let elapsed = attempt.start.elapsed();
    let artifacts = attempt.caller.and_then(|_| {
        let (cols, rows) = screen.size();
        let session = crate::artifacts::SessionFiles {
            keys: state.story.keys(),
            cast: state.story.cast(&state.log, cols, rows),
        };
        crate::artifacts::write(
            &screen,
            &condition.to_string(),
            elapsed.as_millis(),
            attempt.timeout.as_millis(),
            Some(session),
        )
    });
    let (closest, output_tail) = match condition {
        Condition::Text(re) | Condition::NoText(re) => (closest_line(screen.rows(), re.as_str()), None),
        Condition::Line(re) => {
            let row = usize::from(screen.cursor().row);
            let line = screen.rows().get(row).cloned().unwrap_or_default();
            // The cursor's line is the only candidate: report it whatever it holds.
            let _ = re;
            (Some((row, line)), None)
        }
        Condition::Output(re) => {
            let tail = scan.tail(8);
            let lines: Vec<String> = tail.lines().map(str::to_string).collect();
            (closest_line(&lines, re.as_str()), Some(tail))
        }
        _ => (None, None),
    };
    let mut unanswered: Vec<QueryRecord> = Vec::new();
    for q in state.terminal.transcript() {
        if q.reply.is_none() && !unanswered.iter().any(|u| u.query == q.query) {
            unanswered.push(q);
        }
    }
    let report = WaitError {
        condition: condition.to_string(),
        elapsed,
        timeout: attempt.timeout,
        exited,
        screen,
        closest,
        output_tail,
        unanswered,
        has_pattern: matches!(
            condition,
            Condition::Text(_) | Condition::NoText(_) | Condition::Line(_) | Condition::Output(_)
        ),
        notes,
        caller: attempt.caller,
        artifacts,
    };
    if exited.is_some() {
        Error::ExitedWhileWaiting(Box::new(report))
    } else {
        Error::Timeout(Box::new(report))
    }
}

/// The line most like the literal part of `pattern`: the longest common substring,
/// ignoring case, ties broken by the earlier row.
fn closest_line(lines: &[String], pattern: &str) -> Option<(usize, String)> {
    // A pattern across rows (`a\nb`) is held against as many rows, joined as it sees them.
    let pattern = pattern.replace("\\n", "\n");
    let span = pattern.matches('\n').count() + 1;
    let literal: Vec<char> = pattern
        .chars()
        .filter(|c| !"\\^$.|?*+()[]{}".contains(*c))
        .flat_map(char::to_lowercase)
        .collect();
    if literal.is_empty() {
        return None;
    }
    let mut best: Option<(usize, usize)> = None;
    let windows: Vec<String> = (0..lines.len().saturating_sub(span - 1))
        .map(|i| lines[i..i + span].join("\n"))
        .collect();
    for (i, line) in windows.iter().enumerate() {
        let line: Vec<char> = line.chars().flat_map(char::to_lowercase).collect();
        let score = longest_common_substring(&literal, &line);
        if score >= 2.min(literal.len()) && best.is_none_or(|(_, s)| score > s) {
            best = Some((i, score));
        }
    }
    best.map(|(i, _)| (i, windows[i].clone()))
}

fn longest_common_substring(a: &[char], b: &[char]) -> usize {
    let mut prev = vec![0usize; b.len() + 1];
    let mut best = 0;
    for ca in a {
        let mut cur = vec![0usize; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            if ca == cb {
                cur[j + 1] = prev[j] + 1;
                best = best.max(cur[j + 1]);
            }
        }
        prev = cur;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_line_prefers_the_longest_shared_run() {
        let lines: Vec<String> = ["$ ls", "Compiling foo", "error: bar", ""]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(closest_line(&lines, "Compiled foo").map(|(i, _)| i), Some(1));
        assert_eq!(closest_line(&lines, r"error\[E\d+\]").map(|(i, _)| i), Some(2));
        assert_eq!(closest_line(&lines, "zzz"), None);
        // A pattern over two rows is held against two rows at a time.
        assert_eq!(
            closest_line(&lines, r"^Compiling foo\nerror: baz$"),
            Some((1, "Compiling foo\nerror: bar".to_string()))
        );
    }
}
