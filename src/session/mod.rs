//! A program running under a PTY, driven like a person at a keyboard.
//!
//! [`Session`] is the public face: input, waits, state, ending. It ties the pieces
//! together, one job a file:
//!
//! - `builder`: [`SessionBuilder`] — configuration, spawning the program under a PTY (the
//!   private `pty` module) and starting the threads;
//! - `pipeline`: the reader, parser, writer and exit-watcher threads: output flows through
//!   the [`Terminal`](crate::Terminal), query replies go straight back, keys go out one
//!   write each;
//! - `shared`: the state those threads and every waiter share (screen, output ring, exit
//!   status, generation counter) and the condition variable that wakes waiters;
//! - `output_ring`: the bounded ring of raw output that output waits read;
//! - `input`: what the session sends — text, keys, pastes, mouse and focus events, secret
//!   input, resizes and recording markers — each write checked and acknowledged;
//! - `waits`: the session's waits, each a thin door to the one waiting loop in
//!   [`crate::wait`];
//! - `expect`: assertions on the live screen that retry;
//! - `story`: what a failed test keeps of the session (the keys sent, a recording).
//!
//! The waits themselves are in [`crate::wait`]. Dropping a session ends the program's whole
//! process session and leaves nothing behind.

mod apply;
mod builder;
mod expect;
mod input;
mod output_ring;
mod pipeline;
mod shared;
mod shell_integration;
mod story;
mod waiting;
mod waits;

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::panic::Location;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use portable_pty::MasterPty;

pub use builder::{SessionBuilder, parse_timeout_ms};
pub use expect::LiveLocator;
pub use output_ring::DEFAULT_LOG_CAPACITY;
pub(crate) use output_ring::OutputRing;
use shared::InputTurns;
pub(crate) use shared::{Shared, State};

use pipeline::WriteJob;
pub(crate) use waiting::Baseline;

pub use crate::keys::Input;

use crate::error::{Error, Result};
use crate::operation::RowChange;
use crate::process::{self, ExitStatus};
use crate::record::Recorder;
use crate::snapshot::Snapshot;
use crate::terminal::QueryRecord;

/// The wait timeout when neither the builder nor `TUIPILOT_TIMEOUT_MS` sets one.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Where a direct library call came from: errors for it start with the caller's line.
type Caller = Option<&'static Location<'static>>;

/// A position in the output stream, for [`Session::wait_for_output_since`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Mark(pub(crate) u64);

impl Mark {
    /// Bytes of output before this mark.
    pub fn offset(&self) -> u64 {
        self.0
    }
}

/// The starting point of a wait, taken before input is sent
/// ([`Session::wait_start`]).
#[derive(Clone, Copy, Debug)]
pub struct WaitStart(Baseline);

impl WaitStart {
    pub(crate) fn baseline(&self) -> Baseline {
        self.0
    }
}

/// Stops a running [`Session::apply_cancellable`] from another thread: its wait or pause
/// ends at once with [`Error::Cancelled`]; input already sent stays sent. A session host
/// cancels the request of a client that hung up, so a vanished client holds nothing.
#[derive(Clone)]
pub struct Cancel {
    flag: Arc<AtomicBool>,
    shared: Arc<Shared>,
}

impl Cancel {
    /// Cancels the operation (it may already have finished; then nothing happens).
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::SeqCst);
        // Notify under the lock: a waiter between its check of the flag and its sleep
        // holds the lock, so it cannot miss this wake-up.
        let _state = self.shared.lock();
        self.shared.notify();
    }

    /// Whether [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }
}

impl fmt::Debug for Cancel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cancel({})", self.is_cancelled())
    }
}

/// A program running under a pseudo-terminal.
///
/// ```no_run
/// use tuipilot::Session;
///
/// let s = Session::builder("bash").args(["--norc", "--noprofile"]).size(80, 24).spawn()?;
/// s.wait_for_text(r"\$ $")?;
/// s.send_text("echo hi")?;
/// s.press("Enter")?;
/// s.wait_for_text("^hi$")?;
/// s.exit()?;
/// # Ok::<(), tuipilot::Error>(())
/// ```
pub struct Session {
    shared: Arc<Shared>,
    jobs: Sender<WriteJob>,
    master: Mutex<Box<dyn MasterPty + Send>>,
    _child: Box<dyn portable_pty::Child + Send + Sync>,
    pid: i32,
    program: String,
    command: Vec<OsString>,
    started: std::time::SystemTime,
    timeout: Duration,
    exit_grace: Duration,
    exit_thread: Mutex<Option<thread::JoinHandle<()>>>,
    ended: AtomicBool,
    turns: InputTurns,
    /// An isolated session's temporary `HOME` and a zsh's integration `ZDOTDIR`: removed
    /// once the program has been ended.
    temp_dirs: Mutex<Vec<crate::files::TempDir>>,
    /// The recording in progress, if the builder asked for one.
    recorder: Option<Arc<Recorder>>,
    /// All input is secret: kept nowhere (recording, markers, operation log, exports).
    secret_input: bool,
    /// Every operation applied through the executor ([`Session::apply`]).
    log: crate::operation::OperationLog,
    /// The last capture's screen, for `changed_rows` and `changes`.
    last_capture: Mutex<Option<Snapshot>>,
    /// Secret sends under way: their input is kept nowhere, not even in the story.
    secret_sends: std::sync::atomic::AtomicUsize,
    /// When a lone Esc was the last input written, if the next input has not yet waited
    /// for the program to take it (see `write`).
    escape_sent: Mutex<Option<std::time::Instant>>,
    /// The program's world as it was at the start, if the builder asked for it.
    world: Option<std::result::Result<crate::files::World, crate::files::WorldRefused>>,
}

impl Session {
    /// Starts configuring a session for `program` (found on `PATH` unless it has a `/`).
    pub fn builder(program: impl AsRef<OsStr>) -> SessionBuilder {
        SessionBuilder::new(program.as_ref())
    }

    /// The program's world as it was when the session started — its working folder and
    /// the paths its command named, copied — or why it was not copied; `None` unless the
    /// builder asked for it ([`SessionBuilder::capture_world`]). The copy is removed when
    /// the session is ended, with its other temporaries: export before ending it.
    pub fn world(&self) -> Option<std::result::Result<&crate::files::World, &crate::files::WorldRefused>> {
        self.world.as_ref().map(|w| w.as_ref())
    }

    /// The temporary folders the session removes when it ends: its fresh `HOME`, the
    /// folder of its shell integration, its world's copy. A server that may die without
    /// ending its sessions (SIGKILL) hands them to a process that outlives it.
    pub fn temporary_folders(&self) -> Vec<std::path::PathBuf> {
        let dirs = self.temp_dirs.lock().unwrap_or_else(|p| p.into_inner());
        dirs.iter().map(|d| d.path().to_path_buf()).collect()
    }

    /// The program's process id (also its session id).
    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// The program as given to the builder.
    pub fn program(&self) -> &str {
        &self.program
    }

    /// The program and its arguments, as given to the builder.
    pub fn command(&self) -> &[OsString] {
        &self.command
    }

    /// When the session started.
    pub fn started(&self) -> std::time::SystemTime {
        self.started
    }

    /// The default wait timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Changes the default wait timeout.
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    // ---- state -------------------------------------------------------------

    /// What the program asked of its input now: key encoding, mouse, focus, paste.
    pub fn input_modes(&self) -> crate::keys::InputModes {
        self.shared.lock().terminal.input_modes()
    }

    /// The program's last clipboard write (OSC 52) whole (up to 1 MiB): replies carry
    /// only its first [`REPLY_CLIPBOARD_BYTES`](crate::terminal::signals::REPLY_CLIPBOARD_BYTES).
    pub fn clipboard(&self) -> Option<crate::terminal::signals::ClipboardWrite> {
        self.shared.lock().terminal.signals().clipboard.clone()
    }

    /// What the program signalled besides the screen now: the last shell command and its
    /// exit code, bells, working directory, clipboard writes, links, notifications.
    pub fn signal_report(&self) -> crate::operation::SignalReport {
        crate::operation::SignalReport::of(&self.shared.lock().terminal)
    }

    /// How long the screen has been unchanged (to the batch of output that last changed it).
    pub fn settled(&self) -> Duration {
        self.shared.lock().changed_at.elapsed()
    }

    /// A number that changes whenever what a person watching would see changes: the
    /// screen's cells, attributes, cursor or title (each batch of output, a resize), or the
    /// program's end. What a live view compares between frames
    /// ([`wait_for_change`](Self::wait_for_change)).
    pub fn screen_version(&self) -> u64 {
        screen_version(&self.shared.lock())
    }

    /// Waits until [`screen_version`](Self::screen_version) differs from `seen`, or
    /// `timeout` passes, and returns the version then. A live view (`tuipilot attach`)
    /// sleeps here between frames: it wakes with the output that changed the screen, and
    /// never holds the screen's lock while asleep.
    pub fn wait_for_change(&self, seen: u64, timeout: Duration) -> u64 {
        let deadline = std::time::Instant::now() + timeout;
        let mut state = self.shared.lock();
        loop {
            let version = screen_version(&state);
            let now = std::time::Instant::now();
            if version != seen || now >= deadline {
                return version;
            }
            state = self.shared.sleep(state, deadline - now);
        }
    }

    /// The rows of `screen` that look different from the last capture's (all of them
    /// before the first capture, or after a resize), and for each where the last capture
    /// had the same size, which columns and whether text or only style changed. Only a
    /// capture becomes the next comparison's base ([`remember_capture`](Self::remember_capture)),
    /// the screens of other replies do not.
    pub(crate) fn changes_since_capture(&self, screen: &Snapshot) -> (Vec<u16>, Vec<RowChange>) {
        let last = self.last_capture.lock().unwrap_or_else(|p| p.into_inner());
        match last.as_ref() {
            Some(before) if before.size() == screen.size() => {
                let rows: Vec<u16> = (0..screen.size().1)
                    .filter(|&row| screen.row_differs(before, row))
                    .collect();
                let changes = rows
                    .iter()
                    .filter_map(|&row| RowChange::of(before, screen, row))
                    .collect();
                (rows, changes)
            }
            _ => ((0..screen.size().1).collect(), Vec::new()),
        }
    }

    /// Makes a capture's screen the base the next replies' changes are counted from
    /// (moved in: a screen is copied for nobody).
    pub(crate) fn remember_capture(&self, screen: Snapshot) {
        *self.last_capture.lock().unwrap_or_else(|p| p.into_inner()) = Some(screen);
    }

    /// A copy of the screen now.
    pub fn snapshot(&self) -> Snapshot {
        self.shared.lock().snapshot()
    }

    /// The screen as someone scrolled back `rows` lines into the scrollback would see it
    /// (0: the live screen). Scrolling the view sends nothing to the program.
    pub fn snapshot_scrolled_back(&self, rows: usize) -> Snapshot {
        let mut state = self.shared.lock();
        let mut snap = state.terminal.snapshot_scrolled_back(rows);
        snap.exit = state.exit;
        snap
    }

    /// The screen as text now (`snapshot().text()`).
    pub fn text(&self) -> String {
        self.shared.lock().terminal.text()
    }

    /// Lines that scrolled off the top, oldest first.
    pub fn scrollback(&self) -> Vec<String> {
        self.shared.lock().terminal.scrollback()
    }

    /// The raw output still held by the log (at most its capacity, the most recent).
    pub fn output_bytes(&self) -> Vec<u8> {
        self.shared.lock().log.since(0).1
    }

    /// Bytes of raw output the log holds now (never more than its capacity) and bytes
    /// the program has written in all.
    pub fn output_log_usage(&self) -> (usize, u64) {
        let state = self.shared.lock();
        (state.log.len(), state.log.total())
    }

    /// What the session has shown so far as asciicast v2 text: the output the raw ring
    /// still holds, at the times it was parsed, the input and the resizes — the recording a
    /// failed test keeps and a report replays. Times count from the session's start, as
    /// the operation log's do.
    pub fn story_cast(&self) -> String {
        let state = self.shared.lock();
        let (cols, rows) = state.terminal.size();
        state.story.cast(&state.log, cols, rows)
    }

    /// How long the session has run.
    pub fn uptime(&self) -> Duration {
        self.shared.lock().story.started().elapsed()
    }

    /// The queries the program sent and the replies it got.
    pub fn transcript(&self) -> Vec<QueryRecord> {
        self.shared.lock().terminal.transcript()
    }

    /// How the program ended, if it has (without waiting).
    pub fn exit_status(&self) -> Option<ExitStatus> {
        self.shared.lock().exit
    }

    /// Whether the program is still running.
    pub fn is_running(&self) -> bool {
        self.exit_status().is_none()
    }

    /// `(cols, rows)`.
    pub fn size(&self) -> (u16, u16) {
        self.shared.lock().terminal.size()
    }

    // ---- ending ------------------------------------------------------------

    /// Ends the program gracefully: SIGHUP to every process in its session, then
    /// SIGTERM, then SIGKILL, each after the grace period; returns how the program ended.
    pub fn exit(&self) -> Result<ExitStatus> {
        self.exit_within(self.exit_grace)
    }

    /// Like [`exit`](Self::exit) with an explicit grace period per signal.
    pub fn exit_within(&self, grace: Duration) -> Result<ExitStatus> {
        self.end(&[
            (libc::SIGHUP, grace),
            (libc::SIGTERM, grace),
            (libc::SIGKILL, Duration::from_secs(5)),
        ])
    }

    /// Ends the program at once with SIGKILL to every process in its session.
    pub fn kill(&self) -> Result<ExitStatus> {
        self.end(&[(libc::SIGKILL, Duration::from_secs(5))])
    }

    fn end(&self, steps: &[(i32, Duration)]) -> Result<ExitStatus> {
        if self.ended.swap(true, Ordering::SeqCst) {
            // Another caller is ending it (or did): wait for the status it collects.
            let _ = self.wait_exit_timeout(Duration::from_secs(10));
            return self.exit_status().ok_or(Error::Closed {
                action: "end the session",
                caller: None,
            });
        }
        let all_gone = process::end_session(self.pid, steps);
        process::note_session_ended(self.pid);
        // The exit watcher reaps the child; it returns once the child is dead.
        let exit_thread = self.exit_thread.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(handle) = exit_thread {
            let _ = handle.join();
        }
        let _ = self.jobs.send(WriteJob::Stop);
        // The output has drained: the recording has everything it will get.
        let recorded = self.recorder.as_ref().map_or(Ok(()), |r| r.finish());
        let status = {
            let mut state = self.shared.lock();
            state.closed = true;
            state.exit
        };
        // Nothing of the program is left to use its temporary HOME.
        self.temp_dirs.lock().unwrap_or_else(|p| p.into_inner()).clear();
        self.shared.notify();
        recorded?;
        if !all_gone {
            return Err(Error::io(
                format!("ending the processes of session {}", self.pid),
                std::io::Error::other("some survived SIGKILL (uninterruptible sleep?)"),
            ));
        }
        status.ok_or(Error::Closed {
            action: "collect the exit status",
            caller: None,
        })
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if !self.ended.load(Ordering::SeqCst) {
            if thread::panicking() {
                self.keep_for_a_person();
            }
            let _ = self.exit();
        }
    }
}

impl crate::live::Watched for Session {
    fn snapshot(&self) -> Snapshot {
        Session::snapshot(self)
    }
    fn screen_version(&self) -> u64 {
        Session::screen_version(self)
    }
    fn wait_for_change(&self, seen: u64, timeout: Duration) -> u64 {
        Session::wait_for_change(self, seen, timeout)
    }
    fn apply_by_person(&self, operation: &crate::Operation) -> Result<crate::Reply> {
        Session::apply_by_person(self, operation)
    }
    fn info(&self) -> crate::operation::Info {
        Session::info(self)
    }
    fn pid(&self) -> i32 {
        Session::pid(self)
    }
    fn program(&self) -> &str {
        Session::program(self)
    }
}

impl Session {
    /// Makes this session watchable as `name` (`tuipilot -s NAME attach`, read-only or
    /// with `--control`) until the returned point is dropped: a test's program can be
    /// looked at, or taken over, while the test drives it. An error when the name is
    /// taken in the runtime directory or is not a valid session name.
    pub fn watch_point(self: &Arc<Self>, name: &str) -> Result<crate::live::point::WatchPoint> {
        crate::live::point::WatchPoint::open(name, Arc::<Session>::clone(self), "a program using the library")
    }

    /// A failing test's session, when `TUIPILOT_KEEP` asks: kept for a person to attach
    /// to before it ends ([`crate::live::keep`]). Says on stderr what happens, never
    /// panics (the test is unwinding already).
    fn keep_for_a_person(&self) {
        use crate::live::keep;
        let bound = match keep::keep_from_env() {
            Ok(Some(bound)) => bound,
            Ok(None) => return,
            Err(e) => return eprintln!("tuipilot: the failed test's session is not kept: {e}"),
        };
        let name = keep::free_name_for_test(thread::current().name());
        if let Err(e) = keep::keep(self, &name, bound, &|| false, &|line| eprintln!("{line}")) {
            eprintln!("tuipilot: the failed test's session is not kept: {e}");
        }
    }
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("program", &self.program)
            .field("pid", &self.pid)
            .finish_non_exhaustive()
    }
}

/// [`Session::screen_version`] of a state: the screen's fingerprint, with the program's end
/// folded in.
fn screen_version(state: &shared::State) -> u64 {
    let ended = u64::from(state.exit.is_some() || state.closed);
    state.screen_fingerprint.rotate_left(1) ^ ended
}
