//! `tuipilot record`: a person drives a program in their terminal, and what they did
//! becomes a tape (and a Rust test) that replays it.
//!
//! The program runs in a session of this process, shown and driven through the same
//! live view as `attach --control` (`crate::watch`), over a socket pair. Every key goes
//! to the program at once, through the executor, marked typed by a person; the tape is
//! then the session's export (`tuipilot::tape::export`), which knows what a person's
//! keys are: text typed in a row is one `Type`, each other key a `Key` line, and where
//! the program was ready (as the kernel saw it) when the person went on after a key that
//! was not text, a `Wait+Ready` — never a `Sleep`. The recorder's menu (the leave key)
//! adds a snapshot of the screen or an `Expect` of the cursor's row; stopping adds the
//! last screen as the tape's snapshot, with masks over clocks, dates and pids.

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tuipilot::live::Watched;
use tuipilot::operation::WaitFor;
use tuipilot::tape::export::{ExportOptions, row_pattern_in, test_name, to_rust, to_tape, write_world};
use tuipilot::{Operation, Session, StartSpec};

use super::args::RecordCommandArgs;
use super::current_dir;
use crate::error::Failure;
use crate::watch::Assertion;
use crate::watch::serve::Person;
use crate::watch::tty::PersonTerminal;
use crate::watch::view::{self, Purpose};

/// The recording person: keys to the program, assertions into the log.
struct Recorder {
    /// The tape's name (its file's stem).
    name: String,
    snapshots: AtomicUsize,
    /// Operations applied to the session: more than its log holds means the log dropped
    /// the start of the recording (its bound, `operation::MAX_LOGGED`).
    applied: AtomicUsize,
    /// Where the program's world was, when it was copied: the tape replays inside the
    /// copy, so an expected row's folder matches the copy's too.
    world: Option<tuipilot::files::WorldMap>,
}

/// A capture of the screen once the program has reacted (never failing: a busy program
/// is captured as it is when the time is up); with every cell's style when `styled`.
fn settled_capture(styled: bool) -> Operation {
    let mut capture = match styled {
        true => Operation::capture_ansi(),
        false => Operation::capture_text(),
    };
    if let Operation::Capture { wait, .. } = &mut capture {
        *wait = Some(WaitFor::Settle);
    }
    capture
}

impl Person for Recorder {
    fn typed(&self, session: &dyn Watched, bytes: &[u8]) -> Result<(), String> {
        self.applied.fetch_add(1, Ordering::SeqCst);
        crate::watch::serve::send_typed(session, bytes)
    }

    fn assert(&self, session: &dyn Watched, assertion: Assertion) -> Result<String, String> {
        match assertion {
            Assertion::Snapshot | Assertion::StyledSnapshot => {
                let styled = assertion == Assertion::StyledSnapshot;
                self.applied.fetch_add(1, Ordering::SeqCst);
                session
                    .apply_by_person(&settled_capture(styled))
                    .map_err(|e| format!("no assertion added: {e}"))?;
                let n = self.snapshots.fetch_add(1, Ordering::SeqCst) + 1;
                let what = match styled {
                    true => "the whole screen and its colours",
                    false => "the whole screen",
                };
                Ok(format!("added snapshot {n} of {} ({what})", self.name))
            }
            Assertion::CursorRow => {
                // The row once the program has reacted: the replay waits the same way.
                let settle = Operation::Wait {
                    condition: WaitFor::Settle,
                    timeout_ms: None,
                };
                self.applied.fetch_add(1, Ordering::SeqCst);
                session
                    .apply_by_person(&settle)
                    .map_err(|e| format!("no assertion added: {e}"))?;
                let screen = session.snapshot();
                let row = screen
                    .row(screen.cursor().row)
                    .unwrap_or("")
                    .trim_end()
                    .to_string();
                if row.trim().is_empty() {
                    return Err(
                        "no assertion added: the cursor's row is empty (a snapshot keeps the whole screen)"
                            .into(),
                    );
                }
                let pattern = row_pattern_in(&row, self.world.as_ref());
                self.applied.fetch_add(1, Ordering::SeqCst);
                session
                    .apply_by_person(&Operation::Wait {
                        condition: WaitFor::Text(pattern.clone()),
                        timeout_ms: None,
                    })
                    .map_err(|e| format!("no assertion added: {e}"))?;
                Ok(format!("added Expect /{pattern}/"))
            }
        }
    }
}

/// Records a session of `args.command` driven by the person, then writes the tape. Named
/// by `-s` (`watched_as`), the session is watchable under that name (`attach -s NAME`)
/// while it is recorded, as MCP's attachable sessions are.
pub(super) fn record(args: RecordCommandArgs, watched_as: Option<String>) -> Result<(), Failure> {
    if let Some(name) = &watched_as {
        crate::host::paths::check_name(name)?;
    }
    let name = args
        .output
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| Failure::bad_request("-o needs a file name, like demo.tape"))?;
    if args.output.extension().is_none_or(|e| e != "tape") {
        return Err(Failure::bad_request(format!(
            "-o {}: a recording is written as a tape: name it FILE.tape (--rust FILE.rs writes the Rust test)",
            args.output.display()
        )));
    }
    for (flag, path, ext) in [("--rust", &args.rust, "rs"), ("--cast", &args.cast, "cast")] {
        if let Some(path) = path
            && path.extension().is_none_or(|e| e != ext)
        {
            return Err(Failure::bad_request(format!(
                "{flag} {}: name it FILE.{ext}",
                path.display()
            )));
        }
    }
    for path in std::iter::once(&args.output).chain(&args.rust).chain(&args.cast) {
        let folder = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if !folder.is_dir() {
            return Err(Failure::bad_request(format!(
                "{}: the folder {} does not exist; create it or write elsewhere",
                path.display(),
                folder.display()
            )));
        }
    }
    // SAFETY: `record` runs on the command line's only thread, before anything (the
    // terminal's signal handling, the session) starts another.
    let watchdog = unsafe { crate::watchdog::Watchdog::fork() }.map_err(Failure::internal)?;
    let terminal = PersonTerminal::take()?;
    let (cols, rows) = terminal.size();
    let mut spec = StartSpec::new(args.command.clone());
    spec.cols = cols.max(tuipilot::terminal::MIN_COLS);
    spec.rows = rows.saturating_sub(1).max(tuipilot::terminal::MIN_ROWS);
    spec.cwd = Some(current_dir()?);
    spec.reaction_bound_ms = args.reaction_bound;
    spec.record = args.cast.clone();
    // What the program finds in its folder is kept: the tape replays against it — an
    // earlier recording's world as an empty folder (copied whole, each recording's world
    // would hold the last one's, a copy inside a copy).
    let mut builder = spec
        .builder()?
        .capture_world(tuipilot::files::WorldLimits::default());
    for (path, why) in own_worlds(&args, &name) {
        builder = builder.world_copies_empty(path, why);
    }
    let session = builder.spawn()?;
    // A recorder ended by a signal (even SIGKILL) takes its program with it.
    if let Err(e) = watchdog.arm(&session) {
        let _ = session.kill();
        return Err(Failure::internal(e));
    }
    let session = Arc::new(session);
    let watched = watched_as
        .map(|name| tuipilot::live::point::WatchPoint::open(&name, session.clone(), "tuipilot record"));
    let _watched = match watched.transpose() {
        Ok(watched) => watched,
        Err(e) => {
            let _ = session.kill();
            return Err(e.into());
        }
    };
    let recorder = Arc::new(Recorder {
        name: name.clone(),
        snapshots: AtomicUsize::new(0),
        applied: AtomicUsize::new(0),
        world: session.world().and_then(Result::ok).map(|world| world.map()),
    });
    let ending = Arc::new(Ending {
        args,
        spec,
        name,
        session: Arc::clone(&session),
        recorder: Arc::clone(&recorder),
        written: Mutex::new(false),
    });
    // A signal (a hang-up, a kill) writes what was recorded before the process dies of it.
    tuipilot::files::on_signal_also({
        let ending = Arc::clone(&ending);
        move || {
            let _ = ending.write(false);
        }
    });
    let (ours, theirs) =
        UnixStream::pair().map_err(|e| Failure::internal(format!("connecting the view: {e}")))?;
    let size = (ending.spec.cols, ending.spec.rows);
    let viewed = std::thread::scope(|scope| {
        scope.spawn(|| crate::watch::serve::serve(&*session, theirs, Vec::new(), size, &*recorder));
        view::run(
            &terminal,
            ours,
            Vec::new(),
            &format!("record {}", ending.name),
            Purpose::Record,
        )
    });
    drop(terminal);
    // However the view ended — stopped, the program's exit, the terminal's hang-up, even
    // an error — what was recorded is written.
    let written = ending.write(true);
    // A signal's cleanup may be ending the process now: it dies of the signal, as its
    // caller expects.
    tuipilot::files::await_end_by_signal();
    if session.exit().is_ok() {
        let _ = watchdog.disarm(session.pid());
    }
    let said = match written {
        Some(Ok(said)) => said,
        Some(Err(e)) => return Err(e),
        None => String::new(),
    };
    // A terminal that hung up takes no words: not an error of the recording.
    let _ = writeln!(std::io::stderr(), "{said}");
    viewed.map(drop)
}

/// The worlds a recording named `name` writes (beside its tape, and beside its Rust
/// test), with why each is copied empty into the world it keeps.
fn own_worlds(args: &RecordCommandArgs, name: &str) -> Vec<(PathBuf, String)> {
    let beside = |path: &Path| {
        path.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf()
    };
    let mut worlds = vec![(
        beside(&args.output).join(tuipilot::tape::export::world_folder(name)),
        "this recording's world, from an earlier recording".to_string(),
    )];
    if let Some(rust) = &args.rust {
        worlds.push((
            beside(rust).join(tuipilot::tape::export::world_folder(&test_name(name))),
            "this recording's Rust test's world, from an earlier recording".to_string(),
        ));
    }
    worlds
}

/// Writes the recording once, whichever comes first: the person stopping, the program
/// exiting, the terminal hanging up, or a signal (from the signal cleanup's thread, after
/// it ended the program and before the process dies).
struct Ending {
    args: RecordCommandArgs,
    spec: StartSpec,
    name: String,
    session: Arc<Session>,
    recorder: Arc<Recorder>,
    /// Whether it was written (or refused): the second caller waits for the first and
    /// writes nothing.
    written: Mutex<bool>,
}

impl Ending {
    /// Takes the last screen and writes the files; what to tell the person. `None` when
    /// it was done already.
    fn write(&self, watch_drift: bool) -> Option<Result<String, Failure>> {
        let mut written = self.written.lock().unwrap_or_else(|p| p.into_inner());
        if *written {
            return None;
        }
        *written = true;
        let (session, recorder) = (&self.session, &self.recorder);
        // The last screen, once the program has reacted to the last key: the tape's
        // snapshot (unless the person's own snapshot was the last thing done).
        let snapshot_last = session.operations().last().is_some_and(|e| {
            e.by_person && e.error.is_none() && matches!(e.operation, Operation::Capture { .. })
        });
        if !snapshot_last {
            recorder.applied.fetch_add(1, Ordering::SeqCst);
            if let Err(e) = session.apply_by_person(&settled_capture(false)) {
                return Some(Err(e.into()));
            }
        }
        let log = session.operations();
        let applied = recorder.applied.load(Ordering::SeqCst);
        if applied > log.len() {
            return Some(Err(Failure::bad_request(format!(
                "the recording is longer than a session's log keeps ({} of its {applied} steps; the log keeps at most {} steps and {} MiB of input): no tape was written, since it would not replay from the start; record it in shorter parts",
                log.len(),
                tuipilot::operation::MAX_LOGGED,
                tuipilot::operation::MAX_INPUT_BYTES >> 20
            ))));
        }
        // Written while the session still holds its world's copy (ending it removes it).
        let world = session.world().map(|w| {
            w.map(|w| (w.map(), w.root().to_path_buf()))
                .map_err(|r| r.to_string())
        });
        // The screen as the person left it: what changed since the last capture, with no
        // key between, drifted (a clock, a countdown) and is not asserted. A program that
        // redraws by itself is watched for it first ([`Session::screen_for_export`]),
        // except when a signal is ending the recorder, which writes at once.
        let screen_now = match watch_drift {
            true => session.screen_for_export(),
            false => session.snapshot().text(),
        };
        // A signal ending the recorder leaves no time for a verifying replay.
        let verify = self.args.verify && watch_drift;
        Some(write_recording(
            &self.args, &self.spec, &log, &self.name, world, screen_now, verify,
        ))
    }
}

/// Writes the tape, its snapshots and the Rust test: the tape last, so a recording cut
/// short while writing leaves no tape naming files that are not there (each file is
/// written whole, through a temporary renamed into place); then, with `verify`, replays
/// the tape once (`export --verify`'s check). What to tell the person.
fn write_recording(
    args: &RecordCommandArgs,
    spec: &StartSpec,
    log: &[tuipilot::operation::LoggedOperation],
    name: &str,
    world: Option<Result<(tuipilot::files::WorldMap, PathBuf), String>>,
    screen_now: String,
    verify: bool,
) -> Result<String, Failure> {
    let mut said = String::new();
    // The replay runs in a copy of the folder as the recording found it (beside the tape
    // as NAME.world/); where that folder is too large to carry, where the recording ran.
    let mut options = match world {
        Some(Ok(world)) => ExportOptions {
            world: Some(world),
            ..ExportOptions::default()
        },
        Some(Err(why)) => {
            said.push_str(&format!(
                "tuipilot: note: the folder is not carried ({why}): the tape replays where the recording ran\n"
            ));
            ExportOptions {
                in_place: true,
                ..ExportOptions::default()
            }
        }
        None => ExportOptions {
            in_place: true,
            ..ExportOptions::default()
        },
    };
    options.screen_now = Some(screen_now);
    let write = |path: &Path, text: &str| {
        tuipilot::files::write_file(path, text.as_bytes(), tuipilot::files::Access::Private)
            .map(drop)
            .map_err(Failure::from)
    };
    let exported = to_tape(spec, log, name, &options)?;
    let folder = args.output.parent().unwrap_or(Path::new(""));
    let mut written = Vec::new();
    let in_folder = match folder.as_os_str().is_empty() {
        true => Path::new("."),
        false => folder,
    };
    if let Some(world) = write_world(&options, name, in_folder)? {
        written.push(format!("{}/", world.display()));
    }
    for (file, text) in exported.earlier_snapshots.iter().chain(&exported.snapshot) {
        let path = folder.join(file);
        write(&path, text)?;
        written.push(path.display().to_string());
    }
    if let Some(path) = &args.rust {
        let beside = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        // Beside the tape, the test finds the tape's world: one copy serves both. Elsewhere
        // it gets its own, by the test's name.
        let same_folder = std::fs::canonicalize(beside).ok() == std::fs::canonicalize(in_folder).ok();
        let rust_options = ExportOptions {
            world_name: same_folder.then(|| tuipilot::tape::export::world_folder(name)),
            ..options.clone()
        };
        write(path, &to_rust(spec, log, &test_name(name), &rust_options)?)?;
        written.push(path.display().to_string());
        if !same_folder && let Some(world) = write_world(&options, &test_name(name), beside)? {
            written.push(format!("{}/", world.display()));
        }
    }
    write(&args.output, &exported.tape)?;
    written.insert(0, args.output.display().to_string());
    if let Some(path) = &args.cast {
        written.push(path.display().to_string());
    }
    let typed = log
        .iter()
        .filter(|e| matches!(e.operation, Operation::Send { .. }))
        .count();
    if verify && let Some(why) = tuipilot::tape::export::verify(spec, log, name, &options)? {
        return Err(Failure::replay_fails(
            &why,
            &format!("recorded {typed} inputs; wrote {}", written.join(", ")),
        ));
    }
    said.push_str(&format!(
        "tuipilot: recorded {typed} inputs; wrote {}; {}replay it with `tuipilot run {}`",
        written.join(", "),
        match verify {
            true => "checked by a replay; ",
            false => "",
        },
        args.output.display()
    ));
    Ok(said)
}
