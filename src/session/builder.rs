//! Configuring and starting a [`Session`]: size, environment, timeouts, theme.
//!
//! `spawn` checks the configuration, starts the program under a PTY, and starts the
//! session's threads ([`super::pipeline`]); if anything fails on the way, the half-made
//! session is dropped, which ends the program.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::output_ring::DEFAULT_LOG_CAPACITY;
use super::output_ring::OutputRing;
use super::pipeline::{CHUNK_QUEUE, parse_loop, read_loop, spawn_thread, watch_exit, write_loop};
use super::shared::{Shared, State};
use super::{DEFAULT_TIMEOUT, Session};
use crate::color::Theme;
use crate::error::{Error, Result};
use crate::files::TempDir;
use crate::operation::StartSpec;
use crate::pty::{self, SpawnSpec};
use crate::record::{RecordHeader, Recorder};
use crate::terminal::DEFAULT_SCROLLBACK;
use crate::terminal::{CellSize, Terminal, TerminalOptions, check_size};

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
    clear_env: bool,
    isolated: bool,
    /// With `isolated`: start in the fresh `HOME`, with these files copied into it.
    in_home: Option<Vec<PathBuf>>,
    shell_integration: bool,
    record: Option<RecordTarget>,
    record_input: bool,
    secret_input: bool,
    record_title: Option<String>,
    kernel_readiness: bool,
    whole_frames: bool,
    reaction_bound: Duration,
    /// Copy the program's world at its start (see [`SessionBuilder::capture_world`]).
    world: Option<crate::files::WorldLimits>,
    /// Folders the world copies empty, each with why (see
    /// [`SessionBuilder::world_copies_empty`]).
    world_copies_empty: Vec<(PathBuf, String)>,
}

/// Where a recording goes.
#[derive(Clone)]
enum RecordTarget {
    Path(PathBuf),
    /// Taken by the first spawn (a writer cannot be shared by two recordings).
    Writer(Arc<Mutex<Option<Box<dyn std::io::Write + Send>>>>),
}

impl std::fmt::Debug for RecordTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordTarget::Path(path) => write!(f, "{}", path.display()),
            RecordTarget::Writer(_) => f.write_str("a writer"),
        }
    }
}

impl SessionBuilder {
    /// The defaults: 80×24, the caller's cwd and environment, 10 s waits.
    pub(super) fn new(program: &OsStr) -> SessionBuilder {
        SessionBuilder {
            program: program.to_os_string(),
            args: Vec::new(),
            env: Vec::new(),
            cwd: None,
            cols: crate::terminal::DEFAULT_COLS,
            rows: crate::terminal::DEFAULT_ROWS,
            scrollback: DEFAULT_SCROLLBACK,
            timeout: None,
            log_capacity: DEFAULT_LOG_CAPACITY,
            theme: Theme::default(),
            exit_grace: crate::operation::DEFAULT_EXIT_GRACE,
            clear_env: false,
            isolated: false,
            in_home: None,
            shell_integration: true,
            record: None,
            record_input: true,
            secret_input: false,
            kernel_readiness: true,
            whole_frames: true,
            reaction_bound: crate::wait::REACTION_BOUND,
            record_title: None,
            world: None,
            world_copies_empty: Vec::new(),
        }
    }

    /// Records the session to `path` as asciicast v2 (created or truncated at spawn): the
    /// output, the input (see [`record_input`](Self::record_input)), resizes and a marker
    /// per operation, written as it happens by a thread of its own. The file is complete
    /// when the session ends. Read it back with [`Recording`](crate::record::Recording).
    pub fn record(mut self, path: impl Into<PathBuf>) -> Self {
        self.record = Some(RecordTarget::Path(path.into()));
        self
    }

    /// Records to a writer instead of a file (see [`record`](Self::record)).
    pub fn record_to(mut self, writer: impl std::io::Write + Send + 'static) -> Self {
        let writer: Box<dyn std::io::Write + Send> = Box::new(writer);
        self.record = Some(RecordTarget::Writer(Arc::new(Mutex::new(Some(writer)))));
        self
    }

    /// Whether a recording keeps what was sent to the program as `"i"` events (default:
    /// yes; the keystroke overlay of rendered GIFs is drawn from them).
    pub fn record_input(mut self, input: bool) -> Self {
        self.record_input = input;
        self
    }

    /// Treats all input as secret: it reaches the program, but the recording, its
    /// markers, the operation log and exports keep `<secret input, N characters>` in its
    /// place (a session that types passwords). A recording without input
    /// ([`record_input(false)`](Self::record_input)) implies it.
    pub fn secret_input(mut self, secret: bool) -> Self {
        self.secret_input = secret;
        self
    }

    /// Whether readiness ([`Condition::Ready`](crate::Condition::Ready)) is asked of the
    /// kernel (the default, on Linux); off, readiness waits hold on a quiet screen, as
    /// they do where the kernel cannot tell.
    pub fn kernel_readiness(mut self, on: bool) -> Self {
        self.kernel_readiness = on;
        self
    }

    /// Whether a wait that matched returns only once the frame is complete (the default):
    /// the program ready again, or its output quiet for
    /// [`FRAME_QUIET`](crate::wait::FRAME_QUIET), at most
    /// [`FRAME_LIMIT`](crate::wait::FRAME_LIMIT) — and the condition still true on it. Off,
    /// a wait returns on the first screen that matches, which may be half drawn.
    pub fn whole_frames(mut self, on: bool) -> Self {
        self.whole_frames = on;
        self
    }

    /// The longest timer a readiness wait waits out after input (default
    /// [`REACTION_BOUND`](crate::wait::REACTION_BOUND), 2 s). A program may draw its
    /// reaction to a key only when a timer fires — htop's refresh tick, vim's escape
    /// timeout — so after input a readiness wait holds until the program's soonest timer
    /// due within this has fired and it waits again. A later timer is not waited for; the
    /// wait's reason says it is pending (`a timer of vim (pid 4713) is due in 4 s: its reaction may
    /// not be drawn yet`). Zero waits out no timer.
    pub fn reaction_bound(mut self, bound: Duration) -> Self {
        self.reaction_bound = bound;
        self
    }

    /// The recording's title (its header's `title`).
    pub fn record_title(mut self, title: impl Into<String>) -> Self {
        self.record_title = Some(title.into());
        self
    }

    /// Starts the recorder, if one was asked for.
    fn start_recorder(&self, started: std::time::Instant) -> Result<Option<Arc<Recorder>>> {
        let Some(target) = &self.record else {
            return Ok(None);
        };
        let (out, name): (Box<dyn std::io::Write + Send>, String) = match target {
            RecordTarget::Path(path) => {
                // Only its owner may read it: a recording holds what was typed. It is
                // written as it grows, so it is created in place, never through a link.
                let file = crate::files::create_live_file(path, crate::files::Access::Private).map_err(
                    |e| match e {
                        Error::Io { source, .. } => {
                            Error::io(format!("creating the recording {}", path.display()), source)
                        }
                        other => other,
                    },
                )?;
                (Box::new(file), path.display().to_string())
            }
            RecordTarget::Writer(writer) => {
                let writer = writer.lock().unwrap_or_else(|p| p.into_inner()).take().ok_or_else(|| {
                    Error::InvalidArgument {
                        message: "this builder's recording writer was used by an earlier spawn; give each session its own".into(),
                    }
                })?;
                (writer, "(writer)".to_string())
            }
        };
        // The terminal is ours: its TERM is the default unless the caller set one.
        let value = |key: &str| -> Option<String> {
            match key == "TERM" && !self.env.iter().any(|(k, _)| k == "TERM") {
                true => Some(crate::pty::DEFAULT_TERM.to_string()),
                false => {
                    program_value(&self.env, self.clear_env, key).map(|v| v.to_string_lossy().into_owned())
                }
            }
        };
        let env = ["TERM", "SHELL"]
            .into_iter()
            .filter_map(|key| Some((key.to_string(), value(key)?)))
            .collect();
        let header = RecordHeader {
            cols: self.cols,
            rows: self.rows,
            title: self.record_title.clone(),
            env,
            started,
        };
        let recorder = Recorder::start(out, name, &header, self.record_input)?;
        // How the program was started, for an export from the recording; the
        // environment by name only.
        let start = StartSpec {
            command: std::iter::once(&self.program)
                .chain(&self.args)
                .cloned()
                .collect(),
            cols: self.cols,
            rows: self.rows,
            cwd: self.cwd.clone(),
            env: self
                .env
                .iter()
                .map(|(k, _)| (k.clone(), OsString::new()))
                .collect(),
            ..StartSpec::default()
        }
        .recorded();
        recorder.custom(crate::record::START_EVENT, start);
        Ok(Some(recorder))
    }

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

    /// Starts the program from an empty environment instead of the caller's: it gets only
    /// what tuipilot sets (`TERM`, `COLORTERM`, `COLORFGBG`, `TUIPILOT`, and `LANG=C.UTF-8`), `PATH`
    /// (so programs can still be found), and what [`env`](Self::env) adds. `LINES` and
    /// `COLUMNS` are never set: programs must read the size from the terminal.
    pub fn env_clear(mut self) -> Self {
        self.clear_env = true;
        self
    }

    /// A hermetic session: [`env_clear`](Self::env_clear), plus a fresh empty `HOME`
    /// (and `XDG_CONFIG_HOME`, `XDG_DATA_HOME`, `XDG_CACHE_HOME`, `XDG_STATE_HOME` and
    /// `TMPDIR` inside it) in the temporary directory, removed when the session ends. vim, less, bash and
    /// the like start from their defaults, whatever the dotfiles of whoever runs the tests.
    pub fn isolated(mut self) -> Self {
        self.clear_env = true;
        self.isolated = true;
        self
    }

    /// Copies the program's world as it is when the session starts — its working folder
    /// and the paths its command names outside it, within `limits` — so that an export
    /// replays against what the program found, not what it left ([`Session::world`]; see
    /// [`World`](crate::files::World)). The command line's and MCP's sessions do; a
    /// library session does only when asked. A world past the limits is not copied, and
    /// [`Session::world`] says why. Not with [`isolated_in_home`](Self::isolated_in_home),
    /// whose world is the files it names.
    pub fn capture_world(mut self, limits: crate::files::WorldLimits) -> Self {
        self.world = Some(limits);
        self
    }

    /// Copies the folder `path` into the world [`capture_world`](Self::capture_world)
    /// copies as an empty folder, named in its summary with `why`: an earlier export's or
    /// recording's world in the working folder, which would otherwise be copied into the
    /// next one's, a copy inside a copy (the program still finds the folder there).
    pub fn world_copies_empty(mut self, path: impl Into<PathBuf>, why: impl Into<String>) -> Self {
        self.world_copies_empty.push((path.into(), why.into()));
        self
    }

    /// A hermetic session ([`isolated`](Self::isolated)) that also starts in its fresh
    /// `HOME`, with `files` (files or folders) copied into it first: a replay that meets
    /// nothing an earlier run left, and only the inputs it names. A relative
    /// [`cwd`](Self::cwd) is a folder inside that `HOME` (in a world copied in:
    /// `NAME.world/project`); an absolute one is overridden.
    ///
    /// ```
    /// # fn main() -> tuipilot::Result<()> {
    /// let dir = std::env::temp_dir().join(format!("doc-in-home-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// std::fs::write(dir.join("notes.txt"), "from the first run\n").unwrap();
    /// let s = tuipilot::Session::builder("sh")
    ///     .args(["-c", "pwd; cat notes.txt; sleep 10"])
    ///     .isolated_in_home([dir.join("notes.txt")])
    ///     .spawn()?;
    /// s.wait_for_text("^from the first run$")?;
    /// assert!(!s.text().contains(&dir.display().to_string()));
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// # Ok(()) }
    /// ```
    pub fn isolated_in_home(mut self, files: impl IntoIterator<Item = impl Into<PathBuf>>) -> Self {
        self = self.isolated();
        self.in_home = Some(files.into_iter().map(Into::into).collect());
        self
    }

    /// Whether bash, zsh and fish get OSC 133 prompt marks injected (on by default; see
    /// the guide (`docs/src/shell-integration.md`) for exactly what is injected): what
    /// [`Condition::CommandDone`](crate::Condition::CommandDone) and the last command's
    /// regions need.
    pub fn shell_integration(mut self, on: bool) -> Self {
        self.shell_integration = on;
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
        // What an earlier failing run of this test left would mislead once it passes.
        crate::artifacts::clear_stale();
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
        // The theme's light or dark background, for programs that read it from here
        // (emacs, vim, many libraries) rather than asking with OSC 11.
        let mut env = vec![("COLORFGBG".into(), Some(self.theme.colorfgbg().into()))];
        let home = if self.isolated {
            let home = TempDir::new("home")?;
            env.push(("HOME".into(), Some(home.path().as_os_str().to_os_string())));
            for (var, dir) in [
                ("XDG_CONFIG_HOME", ".config"),
                ("XDG_DATA_HOME", ".local/share"),
                ("XDG_CACHE_HOME", ".cache"),
                ("XDG_STATE_HOME", ".local/state"),
                // Temporary files too: what the program makes with mktemp goes with HOME.
                ("TMPDIR", "tmp"),
            ] {
                let path = home.path().join(dir);
                std::fs::create_dir_all(&path)
                    .map_err(|e| Error::io(format!("creating {}", path.display()), e))?;
                env.push((var.into(), Some(path.into_os_string())));
            }
            for file in self.in_home.iter().flatten() {
                let name = file.file_name().ok_or_else(|| Error::InvalidArgument {
                    message: format!(
                        "{} names no file to copy into the session's HOME; give a file or folder",
                        file.display()
                    ),
                })?;
                crate::files::copy_tree(file, &home.path().join(name))?;
            }
            Some(home)
        } else {
            None
        };
        // The caller's own settings come last and win, except where shell integration
        // builds on them (a prompt gets its mark added, not replaced).
        env.extend(self.env.iter().cloned());
        let injection = if self.shell_integration {
            super::shell_integration::inject(&self.program, &self.args, &env, self.clear_env)?
        } else {
            Default::default()
        };
        env.extend(injection.env);
        // With `isolated_in_home`, the program starts in its fresh HOME.
        let cwd = match (&home, &self.in_home, &self.cwd) {
            (Some(home), Some(_), Some(dir)) if dir.is_relative() => Some(home.path().join(dir)),
            (Some(home), Some(_), _) => Some(home.path().to_path_buf()),
            _ => self.cwd.clone(),
        };
        // The world as the program is about to find it: copied before it starts.
        let world = match (self.world, &self.in_home) {
            (Some(limits), None) => {
                let folder = match &cwd {
                    Some(dir) if dir.is_absolute() => Ok(dir.clone()),
                    Some(dir) => std::env::current_dir().map(|here| here.join(dir)),
                    None => std::env::current_dir(),
                };
                let command: Vec<OsString> = std::iter::once(self.program.clone())
                    .chain(self.args.iter().cloned())
                    .collect();
                let home = program_value(&env, self.clear_env, "HOME").map(PathBuf::from);
                Some(match folder {
                    Ok(folder) => crate::files::World::capture_copying_empty(
                        &folder,
                        &command,
                        limits,
                        &self.world_copies_empty,
                    )
                    .map(|world| world.seen_from(home)),
                    Err(e) => Err(crate::files::WorldRefused::Failed(format!(
                        "the working folder cannot be found ({e})"
                    ))),
                })
            }
            _ => None,
        };
        let mut temp_dirs: Vec<_> = home.into_iter().chain(injection.dir).collect();
        // The world's copy goes with the session's other temporaries, when it ends.
        let mut world = world;
        if let Some(store) = world
            .as_mut()
            .and_then(|w| w.as_mut().ok())
            .and_then(|w| w.take_store())
        {
            temp_dirs.push(store);
        }
        // Started first, so the recording's clock starts before the program's first byte.
        // The session's zero: its recording, its story and its operation log count from it.
        let started = std::time::Instant::now();
        let recorder = self.start_recorder(started)?;
        // Listed before the terminal exists: the probe's first look need not read them.
        let earlier = self.kernel_readiness.then(crate::readiness::Probe::processes_now);
        let spawned = pty::spawn(&SpawnSpec {
            program: self.program.clone(),
            args: self.args.iter().cloned().chain(injection.args).collect(),
            env,
            clear_env: self.clear_env,
            cwd,
            cols: self.cols,
            rows: self.rows,
            pixel_width,
            pixel_height,
        })
        .inspect_err(|_| {
            if let Some(recorder) = &recorder {
                let _ = recorder.finish();
            }
        })?;
        let mut state = State::new(terminal, OutputRing::new(self.log_capacity), started);
        state.whole_frames = self.whole_frames;
        state.reaction_bound = self.reaction_bound;
        let shared = Arc::new(Shared::new(state));
        if let Some(master) = spawned.master.as_raw_fd().filter(|_| self.kernel_readiness) {
            let probe = crate::readiness::Probe::new(master, spawned.master.tty_name(), spawned.pid);
            shared.set_probe(probe.knowing_earlier(earlier.unwrap_or_default()));
        }
        let (jobs, job_rx) = mpsc::channel();
        let (chunk_tx, chunk_rx) = mpsc::sync_channel(CHUNK_QUEUE);
        let pid = spawned.pid;
        // Ended by the session (`Session::end`, also on drop), or by a signal's cleanup.
        crate::process::note_session_started(pid);
        let threads = [
            spawn_thread("tuipilot-writer", {
                let (writer, shared) = (spawned.writer, shared.clone());
                move || write_loop(writer, job_rx, &shared)
            }),
            spawn_thread("tuipilot-reader", {
                let (reader, shared) = (spawned.reader, shared.clone());
                move || read_loop(reader, chunk_tx, &shared)
            }),
            spawn_thread("tuipilot-parser", {
                let (shared, jobs, recorder) = (shared.clone(), jobs.clone(), recorder.clone());
                move || parse_loop(chunk_rx, &shared, &jobs, recorder.as_deref())
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
            turns: Default::default(),
            temp_dirs: Mutex::new(temp_dirs),
            secret_input: self.secret_input || (recorder.is_some() && !self.record_input),
            recorder,
            log: crate::operation::OperationLog::new(started),
            last_capture: Mutex::new(None),
            secret_sends: std::sync::atomic::AtomicUsize::new(0),
            escape_sent: Mutex::new(None),
            world,
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

/// The text area in pixels for a grid, as the renderer would draw it (what the PTY
/// reports to programs through TIOCGWINSZ, matching the `CSI 14 t` reply).
pub(super) fn pixel_size(cols: u16, rows: u16) -> (u16, u16) {
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
            .filter(|ms| (1..=crate::operation::MAX_DURATION_MS).contains(ms))
            .map(Duration::from_millis)
            .ok_or(Error::InvalidEnv {
                name: "TUIPILOT_TIMEOUT_MS",
                value,
                expected: "a whole number of milliseconds from 1 to 86400000 (24 hours)",
            }),
    }
}

/// A session from the one description every face fills in: the operation vocabulary's
/// [`StartSpec`] is data, and starting it is the session's.
impl StartSpec {
    /// The builder this spec describes.
    pub fn builder(&self) -> Result<SessionBuilder> {
        let Some((program, args)) = self.command.split_first() else {
            return Err(Error::InvalidArgument {
                message: "no command given: name the program to start (and its arguments)".into(),
            });
        };
        // Checked here too, not only at spawn: a face that makes files for a session (a
        // recording) before it spawns refuses a bad size before it makes them.
        check_size(self.cols, self.rows)?;
        let mut builder = Session::builder(program).args(args).size(self.cols, self.rows);
        if let Some(cwd) = &self.cwd {
            builder = builder.cwd(cwd);
        }
        for (key, value) in &self.env {
            builder = builder.env(key, value);
        }
        if let Some(lines) = self.scrollback {
            builder = builder.scrollback(lines);
        }
        if let Some(ms) = self.timeout_ms {
            builder = builder.timeout(Duration::from_millis(ms));
        }
        if self.env_clear {
            builder = builder.env_clear();
        }
        if self.isolated {
            builder = builder.isolated();
        }
        if let Some(files) = &self.in_home {
            builder = builder.isolated_in_home(files.iter().cloned());
        }
        if self.no_shell_integration {
            builder = builder.shell_integration(false);
        }
        if self.no_whole_frames {
            builder = builder.whole_frames(false);
        }
        if let Some(ms) = self.reaction_bound_ms {
            builder = builder.reaction_bound(crate::operation::checked_duration("the reaction bound", ms)?);
        }
        if let Some(path) = &self.record {
            builder = builder.record(path).record_input(!self.record_no_input);
        }
        if self.record_no_input || self.secret_input {
            builder = builder.secret_input(true);
        }
        if let Some(title) = &self.record_title {
            builder = builder.record_title(title);
        }
        Ok(builder)
    }

    /// Starts the session.
    pub fn spawn(&self) -> Result<Session> {
        self.builder()?.spawn()
    }
}

/// The value `key` has in a program's environment: its last setting in `env` (`None`
/// there: removed), else the caller's own, unless the environment starts empty (`clear`).
fn program_value(env: &[(OsString, Option<OsString>)], clear: bool, key: &str) -> Option<OsString> {
    match env.iter().rev().find(|(k, _)| k == key) {
        Some((_, value)) => value.clone(),
        None if clear => None,
        None => std::env::var_os(key),
    }
}
