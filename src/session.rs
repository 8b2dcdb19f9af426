//! A program running under a PTY, driven like a person at a keyboard.
//!
//! [`Session`] ties the pieces together: the PTY (spawned by the private `pty` module), a reader
//! thread that feeds output through the [`Terminal`] and writes query replies back, a
//! writer thread that sends every key as one write, an exit watcher that reaps the child,
//! and the waits in [`crate::wait`]. Dropping a session ends the program's whole process
//! session and leaves nothing behind.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::Duration;

use portable_pty::{MasterPty, PtySize};

use crate::error::{Error, Result};
use crate::keys::{Key, encode_paste, parse_key_list};
use crate::outlog::{DEFAULT_LOG_CAPACITY, OutputLog};
use crate::process::{self, ExitStatus};
use crate::pty::{self, SpawnSpec};
use crate::snapshot::Snapshot;
use crate::terminal::{CellSize, DEFAULT_SCROLLBACK, QueryRecord, Terminal, TerminalOptions, check_size};
use crate::theme::Theme;
use crate::wait::{Baseline, Condition, Satisfied, wait_until};

/// The wait timeout when neither the builder nor `TUIPILOT_TIMEOUT_MS` sets one.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long after the child exits its output may keep arriving before the exit is
/// reported anyway (only when background processes keep the PTY open).
const DRAIN_GRACE: Duration = Duration::from_millis(100);

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
}

/// Shared between the session, its threads and its waiters.
pub(crate) struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

pub(crate) struct State {
    pub(crate) terminal: Terminal,
    /// Bumped after every chunk of output is parsed.
    pub(crate) generation: u64,
    pub(crate) log: OutputLog,
    /// Set once the child has exited and its output has been drained.
    pub(crate) exit: Option<ExitStatus>,
    reader_done: bool,
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

    fn notify(&self) {
        self.changed.notify_all();
    }
}

enum WriteJob {
    Bytes(Vec<u8>, Option<mpsc::SyncSender<std::io::Result<()>>>),
    Stop,
}

/// Configures and starts a [`Session`].
#[derive(Clone, Debug)]
pub struct SessionBuilder {
    program: OsString,
    args: Vec<OsString>,
    env: Vec<(OsString, Option<OsString>)>,
    cwd: Option<PathBuf>,
    cols: u16,
    rows: u16,
    scrollback: usize,
    timeout: Option<Duration>,
    log_capacity: usize,
    theme: Theme,
    exit_grace: Duration,
}

impl SessionBuilder {
    /// Adds one argument.
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_os_string());
        self
    }

    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    /// Terminal size in columns and rows (default 80×24; 10–1000 columns, 2–1000 rows).
    pub fn size(mut self, cols: u16, rows: u16) -> Self {
        self.cols = cols;
        self.rows = rows;
        self
    }

    /// Sets an environment variable for the program (overrides the defaults too).
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.env
            .push((key.as_ref().to_os_string(), Some(value.as_ref().to_os_string())));
        self
    }

    /// Removes an environment variable from the program's environment.
    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Self {
        self.env.push((key.as_ref().to_os_string(), None));
        self
    }

    /// The program's working directory (default: the caller's current directory).
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Lines of scrollback kept (default 1000).
    pub fn scrollback(mut self, lines: usize) -> Self {
        self.scrollback = lines;
        self
    }

    /// The default timeout of every wait (default: `TUIPILOT_TIMEOUT_MS`, else 10 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Bytes of raw output kept for output waits (default 1 MiB).
    pub fn output_log_capacity(mut self, bytes: usize) -> Self {
        self.log_capacity = bytes;
        self
    }

    /// The theme reported to colour queries.
    pub fn theme(mut self, theme: Theme) -> Self {
        self.theme = theme;
        self
    }

    /// How long `exit()` waits after each of SIGHUP and SIGTERM before escalating
    /// (default 1 s).
    pub fn exit_grace(mut self, grace: Duration) -> Self {
        self.exit_grace = grace;
        self
    }

    /// Starts the program.
    pub fn spawn(self) -> Result<Session> {
        check_size(self.cols, self.rows)?;
        let timeout = match self.timeout {
            Some(t) => t,
            None => timeout_from_env()?,
        };
        let terminal = Terminal::with_options(TerminalOptions {
            cols: self.cols,
            rows: self.rows,
            scrollback: self.scrollback,
            theme: self.theme.clone(),
            cell_size: CellSize::default(),
        })?;
        let (pixel_width, pixel_height) = pixel_size(self.cols, self.rows);
        let spawned = pty::spawn(&SpawnSpec {
            program: self.program.clone(),
            args: self.args.clone(),
            env: self.env.clone(),
            cwd: self.cwd.clone(),
            cols: self.cols,
            rows: self.rows,
            pixel_width,
            pixel_height,
        })?;
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                terminal,
                generation: 0,
                log: OutputLog::new(self.log_capacity),
                exit: None,
                reader_done: false,
                closed: false,
            }),
            changed: Condvar::new(),
        });
        let (jobs, job_rx) = mpsc::channel();
        let (chunk_tx, chunk_rx) = mpsc::sync_channel(CHUNK_QUEUE);
        let pid = spawned.pid;
        let pending_fd = pty::dup_master(spawned.master.as_ref())?;
        let threads = [
            spawn_thread("tuipilot-writer", {
                let writer = spawned.writer;
                move || write_loop(writer, job_rx)
            }),
            spawn_thread("tuipilot-reader", {
                let reader = spawned.reader;
                move || read_loop(reader, pending_fd, chunk_tx)
            }),
            spawn_thread("tuipilot-parser", {
                let (shared, jobs) = (shared.clone(), jobs.clone());
                move || parse_loop(chunk_rx, &shared, &jobs)
            }),
            spawn_thread("tuipilot-exit", {
                let shared = shared.clone();
                move || watch_exit(pid, &shared)
            }),
        ];
        let mut session = Session {
            shared,
            jobs,
            master: Mutex::new(spawned.master),
            _child: spawned.child,
            pid,
            program: self.program.to_string_lossy().into_owned(),
            command: std::iter::once(self.program.clone())
                .chain(self.args.iter().cloned())
                .collect(),
            started: std::time::SystemTime::now(),
            timeout,
            exit_grace: self.exit_grace,
            exit_thread: Mutex::new(None),
            ended: AtomicBool::new(false),
        };
        // On an early return the session is dropped, which ends the program.
        let [writer, reader, parser, exit] = threads;
        *session.exit_thread.get_mut().unwrap_or_else(|p| p.into_inner()) = Some(exit?);
        // The other threads end on their own (end of file, Stop); they are detached so
        // that a stray process that escaped the session cannot block a drop.
        writer?;
        reader?;
        parser?;
        Ok(session)
    }
}

fn spawn_thread(name: &str, body: impl FnOnce() + Send + 'static) -> Result<thread::JoinHandle<()>> {
    thread::Builder::new()
        .name(name.to_string())
        .spawn(body)
        .map_err(|e| Error::io(format!("starting the {name} thread"), e))
}

/// The text area in pixels for a grid, as the renderer would draw it (what the PTY
/// reports to programs through TIOCGWINSZ, matching the `CSI 14 t` reply).
fn pixel_size(cols: u16, rows: u16) -> (u16, u16) {
    let cell = CellSize::default();
    (cols.saturating_mul(cell.width), rows.saturating_mul(cell.height))
}

/// `TUIPILOT_TIMEOUT_MS`, if set, else [`DEFAULT_TIMEOUT`].
fn timeout_from_env() -> Result<Duration> {
    parse_timeout_ms(std::env::var("TUIPILOT_TIMEOUT_MS").ok())
}

/// Interprets a `TUIPILOT_TIMEOUT_MS` value (`None`: unset).
pub fn parse_timeout_ms(value: Option<String>) -> Result<Duration> {
    match value {
        None => Ok(DEFAULT_TIMEOUT),
        Some(value) => value
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|ms| *ms > 0)
            .map(Duration::from_millis)
            .ok_or(Error::InvalidEnv {
                name: "TUIPILOT_TIMEOUT_MS",
                value,
                expected: "a positive whole number of milliseconds",
            }),
    }
}

fn write_loop(mut writer: Box<dyn Write + Send>, jobs: Receiver<WriteJob>) {
    for job in jobs {
        match job {
            WriteJob::Bytes(bytes, ack) => {
                let result = writer.write_all(&bytes).and_then(|()| writer.flush());
                if let Some(ack) = ack {
                    let _ = ack.send(result);
                }
            }
            WriteJob::Stop => break,
        }
    }
    // Dropping the writer types newline + EOF into the PTY; by now the program is gone.
}

/// One read from the PTY, and whether more output was already waiting after it.
struct Chunk {
    bytes: Vec<u8>,
    more_pending: bool,
}

/// Chunks queued between the reader and the parser (each at most 64 KiB).
const CHUNK_QUEUE: usize = 64;
/// Under a continuous flood, waiters are still woken after this much output.
const NOTIFY_EVERY: usize = 1 << 20;

/// Reads the PTY and hands chunks to the parser thread, so reading and parsing run on
/// separate cores. `pending_fd` is a private duplicate of the master descriptor, used
/// only to ask how much output is already waiting.
fn read_loop(mut reader: Box<dyn Read + Send>, pending_fd: OwnedFd, chunks: SyncSender<Chunk>) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            // EIO once every holder of the PTY's slave side is gone.
            Err(_) => break,
        };
        let chunk = Chunk {
            bytes: buf[..n].to_vec(),
            more_pending: pty::bytes_waiting(pending_fd.as_raw_fd()) > 0,
        };
        if chunks.send(chunk).is_err() {
            break;
        }
    }
}

/// Parses chunks into the screen, sends query replies back at once, and wakes waiters
/// when the output has paused (or after [`NOTIFY_EVERY`] bytes of a flood), so a flood
/// does not make every waiter re-read the screen for every 4 KiB.
fn parse_loop(chunks: Receiver<Chunk>, shared: &Shared, jobs: &Sender<WriteJob>) {
    let mut unnotified = 0usize;
    while let Ok(first) = chunks.recv() {
        let mut batch = vec![first];
        let mut size = batch[0].bytes.len();
        while size < NOTIFY_EVERY {
            match chunks.try_recv() {
                Ok(chunk) => {
                    size += chunk.bytes.len();
                    batch.push(chunk);
                }
                Err(_) => break,
            }
        }
        let paused = batch.last().is_some_and(|c| !c.more_pending);
        let replies = {
            let mut state = shared.lock();
            for chunk in &batch {
                state.log.push(&chunk.bytes);
                state.terminal.process(&chunk.bytes);
            }
            state.generation += 1;
            state.terminal.take_replies()
        };
        if !replies.is_empty() {
            let _ = jobs.send(WriteJob::Bytes(replies, None));
        }
        unnotified += size;
        if paused || unnotified >= NOTIFY_EVERY {
            shared.notify();
            unnotified = 0;
        }
    }
    shared.lock().reader_done = true;
    shared.notify();
}

fn watch_exit(pid: i32, shared: &Shared) {
    // If waitpid fails (something else reaped the child), the status is unknowable;
    // report the conventional "killed" status rather than hang every waiter.
    let status = process::wait_for_exit(pid).unwrap_or(ExitStatus::Signaled(libc::SIGKILL));
    let mut state = shared.lock();
    let deadline = std::time::Instant::now() + DRAIN_GRACE;
    while !state.reader_done {
        let now = std::time::Instant::now();
        if now >= deadline {
            break;
        }
        state = shared.sleep(state, deadline - now);
    }
    state.exit = Some(status);
    drop(state);
    shared.notify();
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
}

impl Session {
    /// Starts configuring a session for `program` (found on `PATH` unless it has a `/`).
    pub fn builder(program: impl AsRef<OsStr>) -> SessionBuilder {
        SessionBuilder {
            program: program.as_ref().to_os_string(),
            args: Vec::new(),
            env: Vec::new(),
            cwd: None,
            cols: 80,
            rows: 24,
            scrollback: DEFAULT_SCROLLBACK,
            timeout: None,
            log_capacity: DEFAULT_LOG_CAPACITY,
            theme: Theme::default(),
            exit_grace: crate::operation::DEFAULT_EXIT_GRACE,
        }
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

    /// Refuses input to a program that has exited or a session that was ended.
    fn check_input(&self, action: &'static str) -> Result<()> {
        let state = self.shared.lock();
        if state.closed {
            return Err(Error::Closed { action });
        }
        if let Some(status) = state.exit {
            return Err(Error::Exited { action, status });
        }
        Ok(())
    }

    /// Writes bytes to the program in one write and waits until they are written.
    fn write(&self, bytes: Vec<u8>) -> Result<()> {
        self.check_input("send input")?;
        if bytes.is_empty() {
            return Ok(());
        }
        let len = bytes.len();
        let (ack, done) = mpsc::sync_channel(1);
        self.jobs
            .send(WriteJob::Bytes(bytes, Some(ack)))
            .map_err(|_| Error::Closed { action: "send input" })?;
        match done.recv_timeout(self.timeout) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => {
                self.check_input("send input")?;
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

    /// Sends literal text (no key names; a newline is sent as LF, so press `Enter`).
    pub fn send_text(&self, text: &str) -> Result<()> {
        self.write(text.as_bytes().to_vec())
    }

    /// Sends raw bytes, unchanged.
    pub fn send_bytes(&self, bytes: &[u8]) -> Result<()> {
        self.write(bytes.to_vec())
    }

    /// Presses a key given by name (`Enter`, `C-c`, `M-x`, `S-Tab`, `q`…), encoded for the
    /// program's modes at this moment.
    pub fn press(&self, key: &str) -> Result<()> {
        self.press_key(Key::parse(key)?)
    }

    /// Presses a parsed key.
    pub fn press_key(&self, key: Key) -> Result<()> {
        let modes = self.shared.lock().terminal.key_modes();
        self.write(key.encode(modes))
    }

    /// Presses keys in order, one write each. All names are checked before any is sent.
    pub fn press_all<I, S>(&self, keys: I) -> Result<()>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let keys: Vec<Key> = keys
            .into_iter()
            .map(|k| Key::parse(k.as_ref()))
            .collect::<Result<_>>()?;
        keys.into_iter().try_for_each(|k| self.press_key(k))
    }

    /// Pastes text: bracketed (`ESC[200~ … ESC[201~`) if the program enabled it.
    pub fn paste(&self, text: &str) -> Result<()> {
        let bracketed = self.shared.lock().terminal.bracketed_paste();
        self.write(encode_paste(text, bracketed))
    }

    /// Sends any [`Input`].
    pub fn send(&self, input: &Input) -> Result<()> {
        match input {
            Input::Text(text) => self.send_text(text),
            Input::Keys(keys) => keys.iter().try_for_each(|k| self.press_key(*k)),
            Input::Paste(text) => self.paste(text),
            Input::Bytes(bytes) => self.send_bytes(bytes),
        }
    }

    /// Resizes the terminal: the screen first, then the PTY (which signals SIGWINCH).
    pub fn resize(&self, cols: u16, rows: u16) -> Result<()> {
        self.check_input("resize")?;
        self.shared.lock().terminal.resize(cols, rows)?;
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

    // ---- waits -------------------------------------------------------------

    fn wait_inner(&self, condition: &Condition, baseline: Baseline, timeout: Duration) -> Result<Satisfied> {
        wait_until(&self.shared, condition, baseline, timeout)
    }

    fn baseline(&self, require_change: bool) -> Baseline {
        Baseline::now(&self.shared.lock(), require_change)
    }

    /// Waits for `condition` with the default timeout; returns the screen when it holds.
    pub fn wait(&self, condition: &Condition) -> Result<Snapshot> {
        self.wait_timeout(condition, self.timeout)
    }

    /// Waits for `condition` with an explicit timeout.
    pub fn wait_timeout(&self, condition: &Condition, timeout: Duration) -> Result<Snapshot> {
        let baseline = Baseline {
            output_offset: 0,
            ..self.baseline(false)
        };
        match self.wait_inner(condition, baseline, timeout)? {
            Satisfied::Screen(snap) => Ok(snap),
            Satisfied::Exit(_) => Ok(self.snapshot()),
        }
    }

    /// Waits until a row of the screen matches the regex `pattern`.
    pub fn wait_for_text(&self, pattern: &str) -> Result<Snapshot> {
        self.wait_for_text_timeout(pattern, self.timeout)
    }

    /// Like [`wait_for_text`](Self::wait_for_text) with an explicit timeout.
    pub fn wait_for_text_timeout(&self, pattern: &str, timeout: Duration) -> Result<Snapshot> {
        self.wait_timeout(&Condition::text(pattern)?, timeout)
    }

    /// Waits until no row of the screen matches `pattern`.
    pub fn wait_for_no_text(&self, pattern: &str) -> Result<Snapshot> {
        self.wait_for_no_text_timeout(pattern, self.timeout)
    }

    /// Like [`wait_for_no_text`](Self::wait_for_no_text) with an explicit timeout.
    pub fn wait_for_no_text_timeout(&self, pattern: &str, timeout: Duration) -> Result<Snapshot> {
        self.wait_timeout(&Condition::no_text(pattern)?, timeout)
    }

    /// Waits until the output since the session started (as much as the log keeps)
    /// matches `pattern`, with escape sequences removed.
    pub fn wait_for_output(&self, pattern: &str) -> Result<Snapshot> {
        self.wait_for_output_timeout(pattern, self.timeout)
    }

    /// Like [`wait_for_output`](Self::wait_for_output) with an explicit timeout.
    pub fn wait_for_output_timeout(&self, pattern: &str, timeout: Duration) -> Result<Snapshot> {
        self.wait_timeout(&Condition::output(pattern)?, timeout)
    }

    /// The current position in the output stream.
    pub fn mark(&self) -> Mark {
        Mark(self.shared.lock().log.total())
    }

    /// Waits until the output after `mark` matches `pattern`.
    pub fn wait_for_output_since(&self, mark: Mark, pattern: &str) -> Result<Snapshot> {
        self.wait_for_output_since_timeout(mark, pattern, self.timeout)
    }

    /// Like [`wait_for_output_since`](Self::wait_for_output_since) with an explicit timeout.
    pub fn wait_for_output_since_timeout(
        &self,
        mark: Mark,
        pattern: &str,
        timeout: Duration,
    ) -> Result<Snapshot> {
        let condition = Condition::output(pattern)?;
        let baseline = Baseline {
            output_offset: mark.0,
            ..self.baseline(false)
        };
        match self.wait_inner(&condition, baseline, timeout)? {
            Satisfied::Screen(snap) => Ok(snap),
            Satisfied::Exit(_) => Ok(self.snapshot()),
        }
    }

    /// Waits until the screen has not changed for `quiet`, counted from this call: a
    /// screen that was already quiet still waits the full period.
    pub fn wait_stable(&self, quiet: Duration) -> Result<Snapshot> {
        self.wait_stable_timeout(quiet, self.timeout)
    }

    /// Like [`wait_stable`](Self::wait_stable) with an explicit timeout.
    pub fn wait_stable_timeout(&self, quiet: Duration, timeout: Duration) -> Result<Snapshot> {
        self.wait_timeout(&Condition::Stable(quiet), timeout)
    }

    /// Waits until a test on the screen passes.
    pub fn wait_for(&self, test: impl Fn(&Snapshot) -> bool + Send + Sync + 'static) -> Result<Snapshot> {
        self.wait_for_timeout(test, self.timeout)
    }

    /// Like [`wait_for`](Self::wait_for) with an explicit timeout.
    pub fn wait_for_timeout(
        &self,
        test: impl Fn(&Snapshot) -> bool + Send + Sync + 'static,
        timeout: Duration,
    ) -> Result<Snapshot> {
        self.wait_timeout(&Condition::predicate(test), timeout)
    }

    /// Waits for the program to exit and returns how it ended.
    pub fn wait_exit(&self) -> Result<ExitStatus> {
        self.wait_exit_timeout(self.timeout)
    }

    /// Like [`wait_exit`](Self::wait_exit) with an explicit timeout.
    pub fn wait_exit_timeout(&self, timeout: Duration) -> Result<ExitStatus> {
        match self.wait_inner(&Condition::Exit, self.baseline(false), timeout)? {
            Satisfied::Exit(status) => Ok(status),
            Satisfied::Screen(_) => Err(Error::Closed {
                action: "wait for exit",
            }),
        }
    }

    /// Sends `input` and waits for `condition`, with the baseline taken before writing:
    /// a reply that arrives at once is not missed, and for a text condition the screen
    /// must change after the input before a match counts. Output conditions look only at
    /// output after the input; quiet periods start at the input.
    pub fn send_and_wait(&self, input: &Input, condition: &Condition) -> Result<Snapshot> {
        self.send_and_wait_timeout(input, condition, self.timeout)
    }

    /// Takes the baseline for a later [`wait_since`](Self::wait_since): call it before
    /// sending input, send any number of inputs, then wait. `send_and_wait` in steps.
    pub fn wait_start(&self) -> WaitStart {
        WaitStart(self.baseline(true))
    }

    /// Waits for `condition` measured from `start`: output conditions see only output
    /// after it, text conditions need the screen to have changed since it.
    pub fn wait_since(&self, start: &WaitStart, condition: &Condition) -> Result<Snapshot> {
        self.wait_since_timeout(start, condition, self.timeout)
    }

    /// Like [`wait_since`](Self::wait_since) with an explicit timeout.
    pub fn wait_since_timeout(
        &self,
        start: &WaitStart,
        condition: &Condition,
        timeout: Duration,
    ) -> Result<Snapshot> {
        match self.wait_inner(condition, start.0, timeout)? {
            Satisfied::Screen(snap) => Ok(snap),
            Satisfied::Exit(_) => Ok(self.snapshot()),
        }
    }

    /// Like [`send_and_wait`](Self::send_and_wait) with an explicit timeout.
    pub fn send_and_wait_timeout(
        &self,
        input: &Input,
        condition: &Condition,
        timeout: Duration,
    ) -> Result<Snapshot> {
        let start = self.wait_start();
        self.send(input)?;
        self.wait_since_timeout(&start, condition, timeout)
    }

    // ---- state -------------------------------------------------------------

    /// A copy of the screen now.
    pub fn snapshot(&self) -> Snapshot {
        self.shared.lock().snapshot()
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
            });
        }
        let all_gone = process::end_session(self.pid, steps);
        // The exit watcher reaps the child; it returns once the child is dead.
        let exit_thread = self.exit_thread.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(handle) = exit_thread {
            let _ = handle.join();
        }
        let _ = self.jobs.send(WriteJob::Stop);
        let status = {
            let mut state = self.shared.lock();
            state.closed = true;
            state.exit
        };
        self.shared.notify();
        if !all_gone {
            return Err(Error::io(
                format!("ending the processes of session {}", self.pid),
                std::io::Error::other("some survived SIGKILL (uninterruptible sleep?)"),
            ));
        }
        status.ok_or(Error::Closed {
            action: "collect the exit status",
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
