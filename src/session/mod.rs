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
//! - `waits`: the session's waits, each a thin door to the one waiting loop in
//!   [`crate::wait`].
//!
//! The waits themselves are in [`crate::wait`]. Dropping a session ends the program's whole
//! process session and leaves nothing behind.

mod builder;
mod expect;
mod output_ring;
mod pipeline;
mod shared;
mod shell_integration;
mod story;
mod waits;

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::panic::Location;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use portable_pty::{MasterPty, PtySize};

pub use builder::{SessionBuilder, parse_timeout_ms};
pub use expect::LiveLocator;
pub use output_ring::DEFAULT_LOG_CAPACITY;
pub(crate) use output_ring::OutputRing;
use shared::InputTurns;
pub(crate) use shared::{Shared, State};

use builder::pixel_size;
use pipeline::WriteJob;

use crate::error::{Error, Result};
use crate::keys::mouse::MouseAction;
use crate::keys::{Focus, Key, encode_paste, parse_key_list};
use crate::process::{self, ExitStatus};
use crate::record::Recorder;
use crate::snapshot::Snapshot;
use crate::terminal::QueryRecord;
use crate::wait::Baseline;

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

/// Input for [`Session::send_and_wait`].
#[derive(Clone, Debug)]
pub enum Input {
    /// Literal text, sent as UTF-8.
    Text(String),
    /// Keys, each encoded for the modes in effect when it is sent.
    Keys(Vec<Key>),
    /// A paste, bracketed if the program enabled bracketed paste.
    Paste(String),
    /// Raw bytes.
    Bytes(Vec<u8>),
    /// A mouse action, encoded for the program's mouse modes and aimed at the screen as
    /// it is when sent; refused when the program enabled no mouse reporting.
    Mouse(MouseAction),
    /// A focus change; refused when the program did not enable focus events.
    Focus(Focus),
}

impl Input {
    /// Literal text.
    pub fn text(text: impl Into<String>) -> Input {
        Input::Text(text.into())
    }

    /// One key or several separated by spaces/commas (`"Down Down Enter"`).
    pub fn keys(specs: &str) -> Result<Input> {
        Ok(Input::Keys(parse_key_list(specs)?))
    }

    /// A paste.
    pub fn paste(text: impl Into<String>) -> Input {
        Input::Paste(text.into())
    }

    /// A mouse action (`click 12,3`, `drag 2,1..9,1`, `scroll-down /log/ 3`).
    pub fn mouse(spec: &str) -> Result<Input> {
        Ok(Input::Mouse(MouseAction::parse(spec)?))
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
    /// The row hashes of the last capture's screen, for `changed_rows`.
    last_capture_rows: Mutex<Vec<u64>>,
    /// Secret sends under way: their input is kept nowhere, not even in the story.
    secret_sends: std::sync::atomic::AtomicUsize,
}

/// A secret send under way (see [`Session::hide_input_if`]): its input is left out of the
/// recording and the session's story until dropped.
pub(crate) struct HiddenInput<'a> {
    session: &'a Session,
    _recording: Option<crate::record::recorder::HiddenInput<'a>>,
}

impl Drop for HiddenInput<'_> {
    fn drop(&mut self) {
        self.session.secret_sends.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Session {
    /// Starts configuring a session for `program` (found on `PATH` unless it has a `/`).
    pub fn builder(program: impl AsRef<OsStr>) -> SessionBuilder {
        SessionBuilder::new(program.as_ref())
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

    // ---- input -------------------------------------------------------------

    /// Takes this caller's turn at sending input (see [`InputTurns`]).
    pub(crate) fn input_turn(&self) -> shared::InputTurn<'_> {
        self.turns.take()
    }

    /// Refuses input to a program that has exited or a session that was ended.
    fn check_input(&self, action: &'static str, caller: Caller) -> Result<()> {
        let state = self.shared.lock();
        if state.closed {
            return Err(Error::Closed { action, caller });
        }
        if let Some(status) = state.exit {
            return Err(Error::Exited {
                action,
                status,
                caller,
            });
        }
        Ok(())
    }

    /// Writes bytes to the program in one write and waits until they are written.
    fn write(&self, bytes: Vec<u8>, caller: Caller) -> Result<()> {
        self.check_input("send input", caller)?;
        if bytes.is_empty() {
            return Ok(());
        }
        let len = bytes.len();
        if let Some(recorder) = &self.recorder {
            recorder.input(&bytes);
        }
        // The story a failed test leaves: what was pressed, by name.
        let label = if self.secret_input || self.secret_sends.load(Ordering::SeqCst) > 0 {
            crate::operation::secret_placeholder(len)
        } else {
            crate::keys::describe_input(&String::from_utf8_lossy(&bytes)).join(" ")
        };
        self.shared.lock().story.note_input(label);
        let (ack, done) = mpsc::sync_channel(1);
        self.jobs
            .send(WriteJob::Bytes(bytes, Some(ack)))
            .map_err(|_| Error::Closed {
                action: "send input",
                caller,
            })?;
        match done.recv_timeout(self.timeout) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => {
                self.check_input("send input", caller)?;
                Err(Error::io("writing to the program", e))
            }
            Err(_) => Err(Error::io(
                format!("writing {len} bytes to the program"),
                std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "the program is not reading its input; wait for it before sending more",
                ),
            )),
        }
    }

    /// Presses one parsed key, encoded for the program's modes now.
    fn press_key_from(&self, key: Key, caller: Caller) -> Result<()> {
        let modes = self.shared.lock().terminal.key_modes();
        self.write(key.encode(modes), caller)
    }

    /// Sends any input; `caller` is where a direct library call came from (`None` for the
    /// executor, whose errors go to other faces).
    pub(crate) fn send_from(&self, input: &Input, caller: Caller) -> Result<()> {
        match input {
            Input::Text(text) => self.write(text.as_bytes().to_vec(), caller),
            Input::Keys(keys) => keys.iter().try_for_each(|k| self.press_key_from(*k, caller)),
            Input::Paste(text) => {
                let bracketed = self.shared.lock().terminal.bracketed_paste();
                self.write(encode_paste(text, bracketed), caller)
            }
            Input::Bytes(bytes) => self.write(bytes.clone(), caller),
            Input::Mouse(action) => {
                self.check_input("send a mouse action", caller)?;
                let (screen, modes, cell) = {
                    let state = self.shared.lock();
                    let terminal = &state.terminal;
                    (
                        terminal.snapshot(),
                        terminal.input_modes().mouse,
                        terminal.cell_size(),
                    )
                };
                for bytes in action.encode_for(&screen, modes, (cell.width, cell.height))? {
                    self.write(bytes, caller)?;
                }
                Ok(())
            }
            Input::Focus(focus) => {
                self.check_input("send a focus event", caller)?;
                if !self.shared.lock().terminal.input_modes().focus_events {
                    return Err(Error::NotListening {
                        input: format!("focus {focus}"),
                        reason:
                            "the program has not enabled focus events (CSI ?1004h), so it would ignore them"
                                .into(),
                    });
                }
                self.write(focus.encode().to_vec(), caller)
            }
        }
    }

    /// Sends a mouse action (`click 12,3`, `double-click /OK/`, `drag 2,1..9,1`,
    /// `scroll-down 10,5 3`), encoded as the program asked; an error when it enabled no
    /// mouse reporting or the target is not on the screen.
    #[track_caller]
    pub fn mouse(&self, action: &str) -> Result<()> {
        self.send_from(&Input::mouse(action)?, Some(Location::caller()))
    }

    /// Tells the program its window gained or lost focus; an error when it did not enable
    /// focus events.
    #[track_caller]
    pub fn focus(&self, focus: Focus) -> Result<()> {
        self.send_from(&Input::Focus(focus), Some(Location::caller()))
    }

    /// Sends literal text (no key names; a newline is sent as LF, so press `Enter`).
    #[track_caller]
    pub fn send_text(&self, text: &str) -> Result<()> {
        self.write(text.as_bytes().to_vec(), Some(Location::caller()))
    }

    /// Sends raw bytes, unchanged.
    #[track_caller]
    pub fn send_bytes(&self, bytes: &[u8]) -> Result<()> {
        self.write(bytes.to_vec(), Some(Location::caller()))
    }

    /// Presses a key given by name (`Enter`, `C-c`, `M-x`, `S-Tab`, `q`…), encoded for the
    /// program's modes at this moment.
    #[track_caller]
    pub fn press(&self, key: &str) -> Result<()> {
        self.press_key_from(Key::parse(key)?, Some(Location::caller()))
    }

    /// Presses a parsed key.
    #[track_caller]
    pub fn press_key(&self, key: Key) -> Result<()> {
        self.press_key_from(key, Some(Location::caller()))
    }

    /// Presses keys in order, one write each. All names are checked before any is sent.
    #[track_caller]
    pub fn press_all<I, S>(&self, keys: I) -> Result<()>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let caller = Some(Location::caller());
        let keys: Vec<Key> = keys
            .into_iter()
            .map(|k| Key::parse(k.as_ref()))
            .collect::<Result<_>>()?;
        keys.into_iter().try_for_each(|k| self.press_key_from(k, caller))
    }

    /// Pastes text: bracketed (`ESC[200~ … ESC[201~`) if the program enabled it.
    #[track_caller]
    pub fn paste(&self, text: &str) -> Result<()> {
        self.send_from(&Input::Paste(text.to_string()), Some(Location::caller()))
    }

    /// Sends any [`Input`].
    #[track_caller]
    pub fn send(&self, input: &Input) -> Result<()> {
        self.send_from(input, Some(Location::caller()))
    }

    /// Resizes the terminal: the screen first, then the PTY (which signals SIGWINCH).
    #[track_caller]
    pub fn resize(&self, cols: u16, rows: u16) -> Result<()> {
        self.resize_from(cols, rows, Some(Location::caller()))
    }

    /// Resizes; `caller` as for [`send_from`](Self::send_from).
    pub(crate) fn resize_from(&self, cols: u16, rows: u16, caller: Caller) -> Result<()> {
        self.check_input("resize", caller)?;
        {
            let mut state = self.shared.lock();
            state.terminal.resize(cols, rows)?;
            state.note_screen();
        }
        if let Some(recorder) = &self.recorder {
            recorder.resize(cols, rows);
        }
        let (pixel_width, pixel_height) = pixel_size(cols, rows);
        self.master
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .resize(PtySize {
                rows,
                cols,
                pixel_width,
                pixel_height,
            })
            .map_err(|e| {
                Error::io(
                    "resizing the pseudo-terminal",
                    std::io::Error::other(e.to_string()),
                )
            })
    }

    /// Adds a marker to the session's recording (none without one): a label a player
    /// can jump to and `render --from/--to` can cut at. The executor marks every
    /// operation; the tape runner marks every tape line.
    pub fn add_marker(&self, label: &str) {
        if let Some(recorder) = &self.recorder {
            recorder.marker(label);
        }
    }

    /// The operations applied to this session through [`apply`](Self::apply) (every face
    /// uses it: the CLI's host, MCP, tapes), oldest first, with their timings, errors and
    /// the screens they saw; what `tuipilot export` turns into a tape or a test. Bounded
    /// ([`MAX_LOGGED`](crate::operation::MAX_LOGGED) operations).
    pub fn operations(&self) -> Vec<crate::operation::LoggedOperation> {
        self.log.entries()
    }

    /// How many operations the log holds, and the bytes of input and of screen text it
    /// keeps for them (bounded: see [`operations`](Self::operations)).
    pub fn operation_log_usage(&self) -> (usize, usize, usize) {
        self.log.usage()
    }

    pub(crate) fn operation_log(&self) -> &crate::operation::OperationLog {
        &self.log
    }

    /// Whether this session is being recorded.
    pub fn is_recording(&self) -> bool {
        self.recorder.is_some()
    }

    /// Whether all of this session's input is secret
    /// ([`SessionBuilder::secret_input`], or a recording without input).
    pub fn input_is_secret(&self) -> bool {
        self.secret_input
    }

    /// Sends `input` as secret input (a password): it reaches the program, but not the
    /// recording, whose marker says `<secret input, N characters>`.
    #[track_caller]
    pub fn send_secret(&self, input: &Input) -> Result<()> {
        let caller = Some(Location::caller());
        if self.is_recording() {
            let placeholder = match input {
                Input::Text(text) | Input::Paste(text) => {
                    crate::operation::secret_placeholder(text.chars().count())
                }
                Input::Bytes(bytes) => crate::operation::secret_placeholder(bytes.len()),
                Input::Keys(keys) => crate::operation::secret_placeholder(keys.len()),
                Input::Mouse(_) | Input::Focus(_) => "secret input".to_string(),
            };
            self.add_marker(&format!("send {placeholder}"));
        }
        let _hidden = self.hide_input_if(true);
        self.send_from(input, caller)
    }

    /// Leaves input out of the recording while the guard lives, when `secret` (or all
    /// input is secret).
    /// The keys sent and the recording a failed test keeps (see `artifacts`).
    pub(crate) fn story_files(&self) -> crate::artifacts::SessionFiles {
        let state = self.shared.lock();
        let (cols, rows) = state.terminal.size();
        crate::artifacts::SessionFiles {
            keys: state.story.keys(),
            cast: state.story.cast(&state.log, cols, rows),
        }
    }

    pub(crate) fn hide_input_if(&self, secret: bool) -> Option<HiddenInput<'_>> {
        (secret || self.secret_input).then(|| {
            self.secret_sends.fetch_add(1, Ordering::SeqCst);
            HiddenInput {
                session: self,
                _recording: self.recorder.as_ref().map(|r| r.hide_input()),
            }
        })
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
        crate::operation::SignalReport::of(&mut self.shared.lock().terminal)
    }

    /// How long the screen has been unchanged (to the batch of output that last changed it).
    pub fn settled(&self) -> Duration {
        self.shared.lock().changed_at.elapsed()
    }

    /// The rows of `screen` that look different from the last capture's (all of them
    /// before the first capture, or after a resize); a capture (`remember`) becomes the
    /// next comparison's base, the screens of other replies do not.
    pub(crate) fn changed_rows_since_capture(&self, screen: &Snapshot, remember: bool) -> Vec<u16> {
        let now = screen.row_hashes();
        let mut last = self.last_capture_rows.lock().unwrap_or_else(|p| p.into_inner());
        let changed = (0..now.len())
            .filter(|&row| last.len() != now.len() || last[row] != now[row])
            .map(|row| row as u16)
            .collect();
        if remember {
            *last = now;
        }
        changed
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
            let _ = self.exit();
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
