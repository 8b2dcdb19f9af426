//! The tape runner: each tape line becomes operations, applied by the one executor
//! ([`Session::apply`]); the runner itself only keeps the tape's state (settings, masks,
//! the clipboard, hidden or shown, how far the view is scrolled back) and writes what the
//! tape asks for (text goldens, screenshots, snapshots) and, when a tape fails, its
//! failure bundle.

// A `Failure` carries the whole report (screen, bundle, notes) and is made at most once
// per tape, so its size costs nothing; boxing it would only make callers unwrap a box.
#![allow(clippy::result_large_err)]

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod apply;
mod bundle;
mod deadline;
mod outputs;

use super::outcome::{Failure, FailureKind, Report};
use super::program::{Command, CommandKind, Scope, Tape, WaitKind};
use super::settings::{DEFAULT_WAIT_PATTERN, Setup};
use super::snapshots::SnapshotPolicy;
use crate::operation::{Operation, Reply, Step, WaitFor};
use crate::session::{Cancel, Session};

use bundle::Logged;
use deadline::Deadline;
use outputs::{absolute, make_parent};

/// How a run goes.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Accept changed snapshots (`--update`; `TUIPILOT_UPDATE=1` does the same). Never
    /// writes when `CI` is set, unless `TUIPILOT_UPDATE=force`.
    pub update: bool,
    /// Where what a failure leaves goes — the bundle (`NAME.failure/`) and a changed
    /// snapshot's `NAME.snap.new`, `NAME.actual.png` and `NAME.diff.png` (default: next to
    /// the tape and its snapshots).
    pub out_dir: Option<PathBuf>,
    /// Folders put first on the `PATH` of the tape's shell: where the binaries under test
    /// are (`env!("CARGO_BIN_EXE_NAME")`'s folder), so a tape types their bare names.
    pub path: Vec<PathBuf>,
    /// Runs the tape hermetically: no inherited environment but `PATH`, a fresh `HOME`,
    /// `TMPDIR` and XDG folders, all removed when the tape ends (as
    /// [`SessionBuilder::isolated`](crate::SessionBuilder::isolated)).
    pub isolated: bool,
    /// How a failure tells the user to accept a changed snapshot (default:
    /// `--update (or TUIPILOT_UPDATE=1)`, as `tuipilot run` takes it).
    pub update_hint: Option<String>,
    /// Run tapes whose `Output` asks for a GIF, video or recording without that output
    /// (with a note) instead of failing.
    pub skip_media: bool,
    /// Also write the run's report (`report.html`, `report.md`, `report.json`, see
    /// [`report`](crate::report)) into this folder, pass or fail. A failure's bundle
    /// holds its report whatever this says.
    pub report: Option<PathBuf>,
    /// Compare every snapshot and write none, whatever `update`, `TUIPILOT_UPDATE` or `CI`
    /// say: a missing snapshot fails too (`export --verify`).
    pub check_only: bool,
}

/// The tape's state while it runs.
struct Runner<'a> {
    tape: &'a Tape,
    options: &'a RunOptions,
    setup: Setup,
    session: Option<Session>,
    masks: Vec<String>,
    /// `Mask+Rows` spans: rows hidden whole in text snapshots.
    masked_rows: Vec<(u16, u16)>,
    clipboard: String,
    hidden: bool,
    scrolled_back: u32,
    text_golden: Option<(PathBuf, String)>,
    frame_dir: Option<PathBuf>,
    frames: usize,
    final_pngs: Vec<PathBuf>,
    log: VecDeque<Logged>,
    notes: Vec<String>,
    /// Waits that returned with part of the reaction pending, by line.
    pending: Vec<String>,
    written: Vec<PathBuf>,
    policy: SnapshotPolicy,
    /// The last input ran the `Wait` after it too (see `send_input`).
    folded: bool,
    /// `Output x.cast` targets; the first is where the run is recorded.
    casts: Vec<PathBuf>,
    /// Where the run is recorded when the tape asks for no `.cast` (for the bundle).
    scratch: Option<crate::files::TempDir>,
    /// `Output x.gif` targets, written from the recording when the run ends.
    gifs: Vec<PathBuf>,
    /// The markers of `Hide` (true) and `Show` (false) lines, for the GIFs.
    visibility: Vec<(String, bool)>,
    /// When the run started, for `TapeTimeout`.
    started: Instant,
    /// `TapeTimeout`, armed with the session's canceller once the session runs.
    deadline: Option<(Deadline, Cancel)>,
    /// Every operation as a report's step, the newest [`REPORT_STEPS`].
    steps: VecDeque<crate::report::Step>,
    /// Golden images that did not match, for the report.
    goldens: Vec<crate::report::Golden>,
}

/// The most steps a tape's report lists.
const REPORT_STEPS: usize = 10_000;

/// Parses and runs a tape file.
pub fn run_file(path: impl AsRef<Path>, options: &RunOptions) -> Result<Report, Failure> {
    let path = path.as_ref();
    let tape = Tape::parse_file(path).map_err(|errors| Failure::parse(path, errors))?;
    run(&tape, options)
}

/// Runs a parsed tape against a fresh session, which is ended when the run ends.
pub fn run(tape: &Tape, options: &RunOptions) -> Result<Report, Failure> {
    let started = Instant::now();
    let mut runner = Runner {
        tape,
        options,
        setup: Setup::default(),
        session: None,
        masks: Vec::new(),
        masked_rows: Vec::new(),
        clipboard: String::new(),
        hidden: false,
        scrolled_back: 0,
        text_golden: None,
        frame_dir: None,
        frames: 0,
        final_pngs: Vec::new(),
        log: VecDeque::new(),
        notes: Vec::new(),
        pending: Vec::new(),
        written: Vec::new(),
        policy: SnapshotPolicy {
            report_dir: options.out_dir.clone(),
            update_hint: options
                .update_hint
                .clone()
                .unwrap_or_else(|| super::snapshots::RUN_UPDATE_HINT.to_string()),
            ..match options.check_only {
                true => SnapshotPolicy::check_only(),
                false => SnapshotPolicy::from_env(options.update),
            }
        },
        folded: false,
        casts: Vec::new(),
        scratch: None,
        gifs: Vec::new(),
        visibility: Vec::new(),
        started,
        deadline: None,
        steps: VecDeque::new(),
        goldens: Vec::new(),
    };
    let result = runner.run_all();
    // The time limit covers the tape's commands; ending the program and writing its
    // outputs come after, and are bounded on their own.
    runner.deadline = None;
    let elapsed = started.elapsed();
    let screen = runner
        .session
        .as_ref()
        .map(|s| s.snapshot().text())
        .unwrap_or_default();
    // The program and its whole process session end with the run, pass or fail.
    let exit = runner.session.as_ref().map(|s| {
        s.apply(&Operation::Exit {
            timeout_ms: Some(1000),
        })
    });
    // The session has ended: its recording is complete.
    let recording = runner.recording_path();
    match result {
        Ok(()) => {
            if let Some(Err(e)) = exit {
                runner.notes.push(format!("ending the program: {e}"));
            }
            if let Some(recording) = &recording
                && runner.scratch.is_none()
            {
                for copy in &runner.casts[1..] {
                    match make_parent(copy).and_then(|()| {
                        crate::files::copy_file(recording, copy, crate::files::Access::Private)
                            .map_err(|e| e.to_string())
                    }) {
                        Ok(_) => runner.written.push(copy.clone()),
                        Err(e) => runner.notes.push(e),
                    }
                }
                runner.written.push(recording.clone());
            }
            if let Some(recording) = &recording
                && let Err(why) = runner.write_gifs(recording)
            {
                let mut failure = Failure::new(FailureKind::Error, &tape.path, None, why);
                failure.elapsed = elapsed;
                failure.notes.extend(runner.notes.iter().cloned());
                return Err(failure);
            }
            let mut written = runner.written.clone();
            let notes = runner.notes.clone();
            let mut report_not_written = None;
            if let Some(dir) = &options.report {
                match runner.report(recording.as_deref(), None, elapsed).write(dir) {
                    Ok(html) => written.push(html),
                    Err(e) => report_not_written = Some(format!("the report into {}: {e}", dir.display())),
                }
            }
            Ok(Report {
                tape: tape.path.clone(),
                elapsed,
                commands: tape.commands.len(),
                notes,
                pending: std::mem::take(&mut runner.pending),
                written,
                screen,
                report_not_written,
            })
        }
        Err(mut failure) => {
            // What the tape wrote so far is kept: the text golden up to the failure.
            if let Some((path, text)) = runner.text_golden.take()
                && make_parent(&path).is_ok()
                && crate::files::write_file_atomically(&path, text.as_bytes()).is_ok()
            {
                failure
                    .notes
                    .push(format!("{}: the screens up to the failure", path.display()));
            }
            if let (Some(recording), Some(bundle)) = (&recording, &failure.bundle)
                && let Err(e) = crate::files::copy_file(
                    recording,
                    &bundle.join("recording.cast"),
                    crate::files::Access::Private,
                )
            {
                failure
                    .notes
                    .push(format!("copying the recording into the bundle: {e}"));
            }
            failure.elapsed = elapsed;
            failure.notes.extend(runner.notes.iter().cloned());
            let mut folders: Vec<PathBuf> = failure.bundle.iter().cloned().collect();
            folders.extend(options.report.iter().cloned());
            for dir in folders {
                if let Err(e) = runner
                    .report(recording.as_deref(), Some(&failure), elapsed)
                    .write(&dir)
                {
                    failure.report_not_written = Some(format!("the report into {}: {e}", dir.display()));
                }
            }
            Err(failure)
        }
    }
}

impl Runner<'_> {
    fn run_all(&mut self) -> Result<(), Failure> {
        let first_action = self
            .tape
            .commands
            .iter()
            .position(|c| !c.kind.is_header())
            .unwrap_or(self.tape.commands.len());
        // What applies to the whole run wherever it is written: Env, Require, Output.
        for command in &self.tape.commands {
            match &command.kind {
                CommandKind::Env(k, v) => self.setup.env.push((k.clone(), v.clone())),
                CommandKind::Start { command: words, dir } => {
                    if self.setup.program.is_some() {
                        return Err(self.failure(
                            FailureKind::Error,
                            command,
                            "a second `Start`: a tape starts one program; remove one of them".into(),
                        ));
                    }
                    self.setup.program = Some((words.clone(), dir.clone()));
                }
                // A relative path is the tape's: an export's world beside it.
                CommandKind::With(file) => self.setup.with.push(self.tape.dir().join(file)),
                CommandKind::Require(program) => self.require(command, program)?,
                CommandKind::Output(path) => self.output(command, path)?,
                _ => {}
            }
        }
        for command in &self.tape.commands[..first_action] {
            if let CommandKind::Set(setting) = &command.kind
                && let Some(note) = self.setup.apply(setting)
            {
                self.notes.push(format!("{}: {note}", command.location));
            }
        }
        self.start()?;
        let actions = &self.tape.commands[first_action..];
        let mut at = 0;
        while let Some(command) = actions.get(at) {
            if let Some((deadline, _)) = &self.deadline
                && deadline.passed()
            {
                return Err(self.failure(FailureKind::Failed, command, deadline.message()));
            }
            self.mark_line(command);
            let framed = self.action(command, actions.get(at + 1))?;
            if framed && !self.hidden {
                self.frame(command)?;
            }
            at += 1;
            if std::mem::take(&mut self.folded) {
                // The wait ran as part of the input's send; its frame is the same screen.
                if !self.hidden {
                    self.frame(&actions[at])?;
                }
                at += 1;
            }
        }
        self.finish()
    }

    fn require(&self, command: &Command, program: &str) -> Result<(), Failure> {
        let cwd = std::env::current_dir().unwrap_or_default();
        crate::process::find_program(program.as_ref(), std::env::var_os("PATH").as_deref(), &cwd)
            .map(|_| ())
            .map_err(|_| {
                self.failure(
                    FailureKind::Error,
                    command,
                    format!("`Require {program}`: {program} is not on PATH; install it, or remove the line"),
                )
            })
    }

    fn start(&mut self) -> Result<(), Failure> {
        let at_start = |message: String| Failure::new(FailureKind::Error, &self.tape.path, None, message);
        if self.setup.shell == "cmd" {
            return Err(at_start(
                "Set Shell cmd: cmd is the Windows shell; use bash, zsh, fish, nu, osh, xonsh or pwsh".into(),
            ));
        }
        let ((cols, rows), note) = self.setup.size().map_err(|e| at_start(e.to_string()))?;
        if let Some(note) = note {
            self.notes.push(note);
        }
        let isolated = self.options.isolated || self.setup.isolated;
        let absolute_dir = matches!(&self.setup.program, Some((_, Some(dir))) if dir.is_absolute());
        if !self.setup.with.is_empty() && (!isolated || self.setup.program.is_none() || absolute_dir) {
            return Err(at_start(
                "`With` copies files into the fresh HOME a `Start`ed program starts in: it needs `Start` (or `Start+Dir` with a folder relative to that HOME) and `Set Isolated true` (or run --isolated)".into(),
            ));
        }
        let mut spec = self.setup.start_spec(cols, rows, isolated);
        if !self.options.path.is_empty() {
            let inherited = std::env::var_os("PATH").unwrap_or_default();
            let folders = self
                .options
                .path
                .iter()
                .cloned()
                .chain(std::env::split_paths(&inherited));
            let joined = std::env::join_paths(folders)
                .map_err(|e| at_start(format!("a folder for the tapes' PATH cannot be on a PATH: {e}")))?;
            spec.env.push(("PATH".into(), joined));
        }
        spec.record = Some(self.prepare_recording().map_err(at_start)?);
        spec.record_title = Some(self.tape.name());
        let what = match self.setup.program {
            Some(_) => "the program",
            None => "the shell",
        };
        let session = spec.spawn().map_err(|e| {
            at_start(format!(
                "starting {what} `{}`: {e}",
                spec.command
                    .first()
                    .map_or(String::new(), |p| crate::operation::shown_word(p))
            ))
        })?;
        let cancel = session.canceller();
        self.deadline = Some((
            Deadline::arm(self.started, self.setup.tape_timeout, cancel.clone()),
            cancel,
        ));
        self.session = Some(session);
        if self.setup.program.is_some() {
            // No shell, no prompt: the tape's own first wait says when the program is
            // ready (an export's first line is `Wait+Ready`).
            return Ok(());
        }
        // A person waits for the prompt before typing; keys typed earlier would be echoed
        // twice (once by the terminal driver, once by the shell's line editor).
        let ready = if self.setup.own_prompt() {
            WaitFor::StableMs(200)
        } else {
            WaitFor::Line(DEFAULT_WAIT_PATTERN.into())
        };
        let operation = Operation::Wait {
            condition: ready,
            timeout_ms: Some(self.setup.wait_timeout.as_millis() as u64),
        };
        self.apply_logged(&operation, None).map_err(|e| {
            let mut failure = at_start(format!(
                "the shell `{}` did not show its prompt: {}",
                self.setup.shell,
                first_line(&e.to_string())
            ));
            failure.report = Some(e.to_string());
            failure
        })?;
        Ok(())
    }

    /// Marks `command`'s line in the run's recording (`t.tape:3 Type "ls"`).
    fn mark_line(&self, command: &Command) {
        if let Some(session) = &self.session {
            session.add_marker(&self.line_label(command));
        }
    }

    /// The marker of `command`'s line: its file (a `Source`d line names its own), line
    /// and text.
    fn line_label(&self, command: &Command) -> String {
        let file = command.location.file.display();
        format!("{file}:{} {}", command.location.line, self.source(command))
    }

    /// `command`'s text as the run may keep and show it: between `Hide` and `Show`, what
    /// is typed, copied or pasted is secret, and its text becomes
    /// `<secret input, N characters>` in markers, logs, failures and bundles.
    fn source<'c>(&self, command: &'c Command) -> std::borrow::Cow<'c, str> {
        use std::borrow::Cow;
        if !self.hidden {
            // A line of megabytes (a huge `Type`) is shown by its start and its length.
            const MOST: usize = 200;
            return match command.source.char_indices().nth(MOST) {
                Some((cut, _)) => Cow::Owned(format!(
                    "{}…[{} characters]",
                    &command.source[..cut],
                    command.source.chars().count()
                )),
                None => Cow::Borrowed(&command.source),
            };
        }
        let placeholder = |text: &str| crate::operation::secret_placeholder(text.chars().count());
        match &command.kind {
            CommandKind::Type { text, .. } => Cow::Owned(format!("Type {}", placeholder(text))),
            CommandKind::TypePerKey(text) => Cow::Owned(format!("Type+PerKey {}", placeholder(text))),
            CommandKind::Copy(text) => Cow::Owned(format!("Copy {}", placeholder(text))),
            CommandKind::Paste => Cow::Owned(format!("Paste {}", placeholder(&self.clipboard))),
            _ => Cow::Borrowed(&command.source),
        }
    }

    /// Where the run is recorded: the tape's first `Output x.cast`, else a scratch file
    /// that only a failure bundle keeps.
    fn prepare_recording(&mut self) -> Result<PathBuf, String> {
        if let Some(first) = self.casts.first() {
            make_parent(first)?;
            return Ok(absolute(first));
        }
        let scratch = crate::files::TempDir::new("tape").map_err(|e| e.to_string())?;
        let path = scratch.path().join("run.cast");
        self.scratch = Some(scratch);
        Ok(path)
    }

    fn recording_path(&self) -> Option<PathBuf> {
        match (&self.scratch, self.casts.first()) {
            (Some(scratch), _) => Some(scratch.path().join("run.cast")),
            (None, Some(first)) => Some(absolute(first)),
            (None, None) => None,
        }
    }

    /// Runs one command after the header; says whether it makes a text-golden frame.
    /// `next` is the command after it, which input may fold in (see `send_input`).
    fn action(&mut self, command: &Command, next: Option<&Command>) -> Result<bool, Failure> {
        let typing = |speed: Option<Duration>, setup: &Setup| speed.unwrap_or(setup.typing_speed);
        match &command.kind {
            CommandKind::Set(setting) => {
                if setting.applies_late() {
                    self.setup.apply(setting);
                    return Ok(true);
                }
                self.notes.push(format!(
                    "{}: `{}` ignored: settings other than TypingSpeed, WaitTimeout and WaitPattern apply only before the first action; move it to the top",
                    command.location, command.source
                ));
                Ok(false)
            }
            CommandKind::Env(..)
            | CommandKind::Output(_)
            | CommandKind::Start { .. }
            | CommandKind::With(_) => Ok(true),
            CommandKind::Bytes(bytes) => {
                self.scrolled_back = 0;
                self.send_input(command, vec![Step::Bytes(bytes.clone())], next)
            }
            CommandKind::Require(_) => Ok(false),
            CommandKind::TypePerKey(text) => {
                self.scrolled_back = 0;
                self.send_input(command, vec![Step::TextPerKey(text.clone())], next)
            }
            CommandKind::KeysPerKey(keys) => {
                self.scrolled_back = 0;
                self.send_input(command, vec![Step::KeysPerKey(keys.clone())], next)
            }
            CommandKind::Type { text, speed } => {
                let pause = typing(*speed, &self.setup);
                let steps = if pause.is_zero() {
                    vec![Step::Text(text.clone())]
                } else {
                    vec![Step::Type {
                        text: text.clone(),
                        pause_ms: millis(pause),
                    }]
                };
                self.scrolled_back = 0;
                self.send_input(command, steps, next)
            }
            CommandKind::Keys { keys, speed, count } => {
                let pause = typing(*speed, &self.setup);
                let mut steps = Vec::new();
                for _ in 0..*count {
                    steps.push(Step::Keys(keys.clone()));
                    if !pause.is_zero() {
                        steps.push(Step::SleepMs(millis(pause)));
                    }
                }
                self.scrolled_back = 0;
                self.send_input(command, steps, next)
            }
            CommandKind::Scroll { rows, speed } => {
                self.scrolled_back =
                    (i64::from(self.scrolled_back) + i64::from(*rows)).clamp(0, i64::from(u32::MAX)) as u32;
                let pause = typing(*speed, &self.setup);
                if pause.is_zero() {
                    return Ok(true);
                }
                let steps = (0..rows.unsigned_abs())
                    .map(|_| Step::SleepMs(millis(pause)))
                    .collect();
                self.send(command, steps)
            }
            CommandKind::Sleep(pause) => self.send(command, vec![Step::SleepMs(millis(*pause))]),
            CommandKind::Paste => {
                self.scrolled_back = 0;
                self.send_input(command, vec![Step::Paste(self.clipboard.clone())], next)
            }
            CommandKind::Mouse(action) => {
                self.scrolled_back = 0;
                self.send_input(command, vec![Step::Mouse(action.clone())], next)
            }
            CommandKind::Focus(focus) => self.send_input(command, vec![Step::Focus(*focus)], next),
            CommandKind::Copy(text) => {
                self.clipboard = text.clone();
                Ok(true)
            }
            CommandKind::Hide => {
                self.hidden = true;
                self.visibility.push((self.line_label(command), true));
                Ok(false)
            }
            CommandKind::Show => {
                self.hidden = false;
                self.visibility.push((self.line_label(command), false));
                Ok(true)
            }
            CommandKind::Subtitle(_) => {
                self.notes.push(format!(
                    "{}: Subtitle: a caption in VHS's video, not on the screen",
                    command.location
                ));
                Ok(true)
            }
            CommandKind::Mask(re) => {
                self.masks.push(re.clone());
                Ok(true)
            }
            CommandKind::MaskRows(span) => {
                self.masked_rows.push(*span);
                Ok(true)
            }
            CommandKind::Resize { cols, rows } => {
                self.apply(
                    command,
                    &Operation::Resize {
                        cols: *cols,
                        rows: *rows,
                    },
                )?;
                Ok(true)
            }
            CommandKind::Screenshot(path) => {
                self.screenshot(command, path)?;
                Ok(true)
            }
            CommandKind::Wait { kind, timeout } => {
                let condition = self.wait_condition(kind);
                self.wait(command, condition, *timeout)?;
                Ok(true)
            }
            CommandKind::Expect {
                scope,
                pattern,
                negated,
                timeout,
            } => {
                let condition = match (scope, negated) {
                    (_, true) => WaitFor::NoText(pattern.clone()),
                    (Scope::Line, false) => WaitFor::Line(pattern.clone()),
                    (Scope::Screen, false) => WaitFor::Text(pattern.clone()),
                    (Scope::Wrapped, false) => WaitFor::Wrapped(pattern.clone()),
                    (Scope::Region { rows, cols }, false) => WaitFor::TextIn {
                        pattern: pattern.clone(),
                        rows: *rows,
                        cols: *cols,
                    },
                };
                self.wait(command, condition, *timeout)?;
                Ok(true)
            }
            CommandKind::ExpectExit { code, timeout } => {
                let reply = self.wait(command, WaitFor::Exit, *timeout)?;
                if let Reply::Exit(exit) = reply
                    && exit.exit_code != Some(*code)
                {
                    return Err(self.failure(
                        FailureKind::Failed,
                        command,
                        format!("`{}`: the program {}", self.source(command), exit.words()),
                    ));
                }
                Ok(true)
            }
            CommandKind::Snapshot(name) => {
                self.snapshot(command, name, false)?;
                Ok(true)
            }
            CommandKind::StyledSnapshot(name) => {
                self.snapshot(command, name, true)?;
                Ok(true)
            }
        }
    }

    /// The operation's condition for a `Wait` command, with the tape's default pattern.
    fn wait_condition(&self, kind: &WaitKind) -> WaitFor {
        match kind {
            WaitKind::Pattern(scope, pattern) => {
                let pattern = pattern.clone().unwrap_or_else(|| self.setup.wait_pattern.clone());
                match scope {
                    Scope::Line => WaitFor::Line(pattern),
                    Scope::Screen => WaitFor::Text(pattern),
                    Scope::Wrapped => WaitFor::Wrapped(pattern),
                    Scope::Region { rows, cols } => WaitFor::TextIn {
                        pattern,
                        rows: *rows,
                        cols: *cols,
                    },
                }
            }
            WaitKind::Stable(quiet) => WaitFor::StableMs(millis(*quiet)),
            WaitKind::Exit => WaitFor::Exit,
            WaitKind::Output(re) => WaitFor::Output(re.clone()),
            WaitKind::Command => WaitFor::Command,
            WaitKind::Bell => WaitFor::Bell,
            WaitKind::Title(re) => WaitFor::Title(re.clone()),
            WaitKind::Cwd(re) => WaitFor::Cwd(re.clone()),
            WaitKind::Ready => WaitFor::Ready,
            WaitKind::Prompt => WaitFor::Prompt,
        }
    }
}

/// The first line of an error, without its location prefix.
fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").to_string()
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
