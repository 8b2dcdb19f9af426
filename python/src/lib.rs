//! The Python face of tuipilot: `tuipilot._native`, a module over the engine.
//!
//! A face only translates (see the guide's architecture chapter): input, waits and
//! pictures become [`Operation`]s handed to the one executor, [`Session::apply`], so a
//! send or a wait from Python behaves as it does from the command line, MCP or a tape —
//! the same checks, the same operation log, the same markers in a recording. Reads of the
//! screen (text, cursor, matches, styles) take a snapshot directly, as the library does.
//!
//! Every call that can block — starting, sending, waiting, ending, drawing — lets go of
//! the interpreter's lock while it runs, so tests can drive several sessions from threads.
//! Errors become the exception classes of `tuipilot.errors` (one class per error kind;
//! a wait that timed out is also a built-in `TimeoutError`), whose message is the report
//! the library prints: the condition, the numbered screen, the closest line.
//!
//! This file holds the `Session` class and the module; `errors` the exceptions,
//! `arguments` how Python's arguments become the vocabulary's, `screen` the `Match` and
//! `Style` classes, `locate` the `Locator` class.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use tuipilot::operation::{PngRequest, Step, SvgRequest, WaitFor};
use tuipilot::report::RunReport;
use tuipilot::{Operation, Reply, Session, StartSpec};

mod arguments;
mod calls;
mod errors;
mod locate;
mod screen;
mod snapshots;
mod watching;

use arguments::{caller, command_words, millis, one_or_list, returncode, seconds, timeout_ms};
use calls::interruptible;
use errors::{bad_input, raise};
use screen::{PyMatch, PyStyle};

/// A program running under a pseudo-terminal (see the package's documentation).
#[pyclass(frozen, module = "tuipilot._native", name = "Session")]
struct PySession {
    inner: Arc<Session>,
    argv: Vec<String>,
    /// Where a person can attach to it, once asked ([`watching`]).
    watch_point: std::sync::Mutex<Option<tuipilot::live::point::WatchPoint>>,
}

impl PySession {
    /// Hands `operation` to the executor with the interpreter's lock released, as
    /// [`interruptible`] runs it: Ctrl-C during a long wait cancels it and raises
    /// `KeyboardInterrupt` at once, as it would in a Python loop.
    fn apply(&self, py: Python<'_>, operation: Operation) -> PyResult<Reply> {
        let cancel = self.inner.canceller();
        let source = caller(py);
        let reply = interruptible(py, &cancel, || match source {
            Some(source) => self.inner.apply_from(&operation, &cancel, source),
            None => self.inner.apply_cancellable(&operation, &cancel),
        })?
        .map_err(|e| raise(py, e))?;
        // A reaction that may still be pending, or what the wait did not wait for, is
        // warned of at the caller's line, never left silent (the wait's reason,
        // `last_waited`, says it too).
        for note in reply.notes() {
            let message = std::ffi::CString::new(note).unwrap_or_default();
            PyErr::warn(py, &py.get_type::<pyo3::exceptions::PyUserWarning>(), &message, 1)?;
        }
        Ok(reply)
    }

    /// A wait for `condition`; the screen's text when it held.
    fn wait(&self, py: Python<'_>, condition: WaitFor, timeout: Option<f64>) -> PyResult<String> {
        let operation = Operation::Wait {
            condition,
            timeout_ms: timeout_ms(py, timeout)?,
        };
        match self.apply(py, operation)? {
            Reply::Screen { screen } => Ok(screen.text),
            _ => Ok(self.inner.snapshot().text()),
        }
    }

    /// A capture that draws the screen into a file.
    fn draw(&self, py: Python<'_>, png: Option<PngRequest>, svg: Option<SvgRequest>) -> PyResult<()> {
        let operation = Operation::Capture {
            wait: None,
            timeout_ms: None,
            ansi: false,
            scrollback: false,
            png: png.map(Box::new),
            svg: svg.map(Box::new),
            text: false,
            mask: Vec::new(),
            scrolled_back: 0,
        };
        self.apply(py, operation).map(|_| ())
    }

    /// How the program ended, once it has.
    fn ended(&self, py: Python<'_>) -> PyResult<i32> {
        match self.inner.exit_status() {
            Some(status) => Ok(returncode(status)),
            None => Err(raise(
                py,
                tuipilot::Error::InvalidArgument {
                    message: "the program has not ended".into(),
                },
            )),
        }
    }
}

#[pymethods]
impl PySession {
    #[new]
    #[pyo3(signature = (argv, *, cols=80, rows=24, env=None, cwd=None, isolated=false, timeout=None, record=None, shell_integration=true, whole_frames=true, reaction_bound=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        argv: Bound<'_, PyAny>,
        cols: u16,
        rows: u16,
        env: Option<BTreeMap<String, String>>,
        cwd: Option<PathBuf>,
        isolated: bool,
        timeout: Option<f64>,
        record: Option<PathBuf>,
        shell_integration: bool,
        whole_frames: bool,
        reaction_bound: Option<f64>,
    ) -> PyResult<PySession> {
        let reaction_bound_ms = millis(py, "reaction_bound", reaction_bound)?;
        let argv = command_words(py, &argv)?;
        let spec = StartSpec {
            command: argv.iter().map(Into::into).collect(),
            cols,
            rows,
            cwd,
            env: env
                .unwrap_or_default()
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
            timeout_ms: timeout_ms(py, timeout)?,
            isolated,
            no_shell_integration: !shell_integration,
            no_whole_frames: !whole_frames,
            reaction_bound_ms,
            record,
            ..StartSpec::default()
        };
        let inner = py.detach(|| spec.spawn()).map_err(|e| raise(py, e))?;
        Ok(PySession {
            inner: Arc::new(inner),
            argv,
            watch_point: std::sync::Mutex::default(),
        })
    }

    /// Sends `text` (typed as it is), then `paste` (bracketed if the program asked for
    /// it), then `keys` (names: `"Enter"`, `"C-c"`, `"Down Down Enter"`, or a list), then
    /// `mouse` (an action or a list, in the command line's grammar: `"click 12,3"`,
    /// `"click /Save/"`, `"drag 2,1..9,1"`, `"scroll-down /log/ 3"`), then `focus` (`"in"`
    /// or `"out"`), then `raw` bytes unchanged, then a `pause` of that many seconds, as one
    /// turn of input; with `typing`, the text is typed a character at a time with that
    /// many seconds after each (a debounced search box sees every keystroke), or with
    /// `typing="ready"` the text and the keys one at a time, each once the program has
    /// read the last (a program that flushes keys typed ahead, like ranger, drops what
    /// arrives together).
    ///
    /// With `wait` (a regex), it then waits until a row matches it — the baseline taken
    /// before the first byte, so a fast reply is never missed and the old screen never
    /// counts — and returns the screen (`timeout` in seconds, as the waits take it); without,
    /// it returns `None` at once.
    #[pyo3(signature = (text=None, *, keys=None, paste=None, mouse=None, focus=None, typing=None, raw=None, pause=None, wait=None, timeout=None))]
    #[allow(clippy::too_many_arguments)]
    fn send(
        &self,
        py: Python<'_>,
        text: Option<String>,
        keys: Option<Bound<'_, PyAny>>,
        paste: Option<String>,
        mouse: Option<Bound<'_, PyAny>>,
        focus: Option<String>,
        typing: Option<Bound<'_, PyAny>>,
        raw: Option<Vec<u8>>,
        pause: Option<f64>,
        wait: Option<String>,
        timeout: Option<f64>,
    ) -> PyResult<Option<String>> {
        let mut steps = Vec::new();
        // Typed a character at a time with `typing` seconds after each, each once the
        // last was read (`"ready"`), or all at once.
        let per_key = typing
            .as_ref()
            .is_some_and(|t| t.extract::<String>().is_ok_and(|t| t == "ready"));
        let typing = match (&typing, per_key) {
            (Some(t), false) => Some(t.extract::<f64>().map_err(|_| {
                bad_input(
                    py,
                    "typing= takes seconds after each character (0.05) or \"ready\" (each key once the program read the last)".into(),
                )
            })?),
            _ => None,
        };
        match (text, millis(py, "typing", typing)?, per_key) {
            (Some(text), _, true) => steps.push(Step::TextPerKey(text)),
            (Some(text), Some(pause_ms), false) => steps.push(Step::Type { text, pause_ms }),
            (text, ..) => steps.extend(text.map(Step::Text)),
        }
        steps.extend(paste.map(Step::Paste));
        if let Some(keys) = keys {
            let names = one_or_list(&keys).ok_or_else(|| {
                bad_input(
                    py,
                    "keys= takes a key name (\"Enter\") or a list of them ([\"Down\", \"Enter\"])".into(),
                )
            })?;
            steps.push(match per_key {
                true => Step::KeysPerKey(names.join(" ")),
                false => Step::Keys(names.join(" ")),
            });
        }
        if let Some(mouse) = mouse {
            let actions = one_or_list(&mouse).ok_or_else(|| {
                bad_input(
                    py,
                    "mouse= takes an action (\"click 12,3\", \"click /Save/\") or a list of them".into(),
                )
            })?;
            steps.extend(actions.into_iter().map(Step::Mouse));
        }
        if let Some(focus) = focus {
            let focus = focus.parse().map_err(|e: tuipilot::Error| raise(py, e))?;
            steps.push(Step::Focus(focus));
        }
        steps.extend(raw.map(Step::Bytes));
        if let Some(ms) = millis(py, "pause", pause)? {
            steps.push(Step::SleepMs(ms));
        }
        if steps.is_empty() {
            return Err(bad_input(
                py,
                "send() needs something to send: text=, keys=, paste=, mouse=, focus=, raw= or pause=".into(),
            ));
        }
        let waits = wait.is_some();
        let operation = Operation::Send {
            steps,
            wait: wait.map(WaitFor::Text),
            timeout_ms: timeout_ms(py, timeout)?,
            capture: waits,
            secret: false,
        };
        let reply = self.apply(py, operation)?;
        Ok(reply.screen().filter(|_| waits).map(|screen| screen.text.clone()))
    }

    /// Waits until a row of the screen matches the regex `pattern` (rows are matched
    /// with trailing spaces removed; `^` and `$` match at each row). With `in_rows` or
    /// `in_cols` (`(start, stop)`, 0-based, `stop` exclusive as in `range`) only matches
    /// inside count. Returns the screen.
    #[pyo3(signature = (pattern, *, in_rows=None, in_cols=None, timeout=None))]
    fn wait_text(
        &self,
        py: Python<'_>,
        pattern: String,
        in_rows: Option<(u16, u16)>,
        in_cols: Option<(u16, u16)>,
        timeout: Option<f64>,
    ) -> PyResult<String> {
        let condition = match (in_rows, in_cols) {
            (None, None) => WaitFor::Text(pattern),
            _ => WaitFor::TextIn {
                pattern,
                rows: arguments::first_last(py, "in_rows", in_rows)?,
                cols: arguments::first_last(py, "in_cols", in_cols)?,
            },
        };
        self.wait(py, condition, timeout)
    }

    /// Waits until the cursor's row matches the regex `pattern` (a prompt, an input line;
    /// trailing spaces trimmed). Returns the screen.
    #[pyo3(signature = (pattern, *, timeout=None))]
    fn wait_line(&self, py: Python<'_>, pattern: String, timeout: Option<f64>) -> PyResult<String> {
        self.wait(py, WaitFor::Line(pattern), timeout)
    }

    /// Waits until a logical line matches the regex `pattern`: the rows the terminal
    /// wrapped joined into the line the program wrote (a path longer than the screen is
    /// wide). Returns the screen.
    #[pyo3(signature = (pattern, *, timeout=None))]
    fn wait_wrapped(&self, py: Python<'_>, pattern: String, timeout: Option<f64>) -> PyResult<String> {
        self.wait(py, WaitFor::Wrapped(pattern), timeout)
    }

    /// Waits until the program's output since the session started (escape sequences
    /// removed) matches the regex `pattern`. Returns the screen.
    #[pyo3(signature = (pattern, *, timeout=None))]
    fn wait_output(&self, py: Python<'_>, pattern: String, timeout: Option<f64>) -> PyResult<String> {
        self.wait(py, WaitFor::Output(pattern), timeout)
    }

    /// Waits until the window title the program set matches the regex `pattern`.
    /// Returns the screen.
    #[pyo3(signature = (pattern, *, timeout=None))]
    fn wait_title(&self, py: Python<'_>, pattern: String, timeout: Option<f64>) -> PyResult<String> {
        self.wait(py, WaitFor::Title(pattern), timeout)
    }

    /// Waits until the working directory the program reports (OSC 7) matches the regex
    /// `pattern`. Returns the screen.
    #[pyo3(signature = (pattern, *, timeout=None))]
    fn wait_cwd(&self, py: Python<'_>, pattern: String, timeout: Option<f64>) -> PyResult<String> {
        self.wait(py, WaitFor::Cwd(pattern), timeout)
    }

    /// Waits until a shell waits at its prompt (ready for input, and at a prompt by its
    /// OSC 133 marks when it sends them). Returns the screen.
    #[pyo3(signature = (*, timeout=None))]
    fn wait_prompt(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<String> {
        self.wait(py, WaitFor::Prompt, timeout)
    }

    /// Waits until the next shell command finishes (its OSC 133;D mark after this call);
    /// returns its exit code (`None` when the shell gave none).
    #[pyo3(signature = (*, timeout=None))]
    fn wait_command(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<Option<i32>> {
        let operation = Operation::Wait {
            condition: WaitFor::Command,
            timeout_ms: timeout_ms(py, timeout)?,
        };
        match self.apply(py, operation)? {
            Reply::Screen { screen } => Ok(screen.signals.command_exit),
            _ => Ok(None),
        }
    }

    /// Waits until the program rings the bell (after this call). Returns the screen.
    #[pyo3(signature = (*, timeout=None))]
    fn wait_bell(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<String> {
        self.wait(py, WaitFor::Bell, timeout)
    }

    /// Waits until no row of the screen matches `pattern`. Returns the screen.
    #[pyo3(signature = (pattern, *, timeout=None))]
    fn wait_absent(&self, py: Python<'_>, pattern: String, timeout: Option<f64>) -> PyResult<String> {
        self.wait(py, WaitFor::NoText(pattern), timeout)
    }

    /// Waits until the screen has not changed for `quiet` seconds. Returns the screen.
    #[pyo3(signature = (quiet=0.3, *, timeout=None))]
    fn wait_stable(&self, py: Python<'_>, quiet: f64, timeout: Option<f64>) -> PyResult<String> {
        let ms = seconds(py, "quiet", quiet)?.as_millis() as u64;
        self.wait(py, WaitFor::StableMs(ms), timeout)
    }

    /// Waits until the program waits for input (the kernel says so: its foreground
    /// process is asleep reading the terminal). Returns why the wait ended, in words.
    #[pyo3(signature = (*, timeout=None))]
    fn wait_ready(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<String> {
        let operation = Operation::Wait {
            condition: WaitFor::Ready,
            timeout_ms: timeout_ms(py, timeout)?,
        };
        match self.apply(py, operation)? {
            Reply::Screen { screen } => Ok(screen.waited.unwrap_or_default()),
            _ => Ok("the program has exited".into()),
        }
    }

    /// Waits until `predicate(screen)` is true, `screen` being the screen's text (every
    /// row, joined by newlines), asked again on every new screen; returns that text. An
    /// exception the predicate raises ends the wait and is raised here.
    #[pyo3(signature = (predicate, *, timeout=None))]
    fn wait_for(&self, py: Python<'_>, predicate: Py<PyAny>, timeout: Option<f64>) -> PyResult<String> {
        let timeout = match timeout_ms(py, timeout)? {
            Some(ms) => Duration::from_millis(ms),
            None => self.inner.timeout(),
        };
        let raised: std::sync::Arc<std::sync::Mutex<Option<PyErr>>> = Default::default();
        let condition = {
            let raised = std::sync::Arc::clone(&raised);
            tuipilot::Condition::described("the Python predicate to be true", move |screen| {
                Python::attach(|py| match predicate.call1(py, (screen.text(),)) {
                    Ok(answer) => answer.is_truthy(py).unwrap_or(false),
                    Err(e) => {
                        *raised.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                        true
                    }
                })
            })
        };
        let cancel = self.inner.canceller();
        let result = interruptible(py, &cancel, || {
            self.inner.wait_timeout_cancellable(&condition, timeout, &cancel)
        })?;
        if let Some(e) = raised.lock().unwrap_or_else(|p| p.into_inner()).take() {
            return Err(e);
        }
        result.map(|screen| screen.text()).map_err(|e| raise(py, e))
    }

    /// Waits until the program exits; returns its exit code (minus the signal's number
    /// when a signal ended it).
    #[pyo3(signature = (*, timeout=None))]
    fn wait_exit(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<i32> {
        let operation = Operation::Wait {
            condition: WaitFor::Exit,
            timeout_ms: timeout_ms(py, timeout)?,
        };
        self.apply(py, operation)?;
        self.ended(py)
    }

    /// The screen as text: every row, trailing spaces trimmed, joined by newlines.
    fn screen(&self) -> String {
        self.inner.snapshot().text()
    }

    /// The screen as a failed wait's report shows it: its size and cursor, the rows
    /// numbered through the last with text, and how many empty rows follow.
    fn listing(&self) -> String {
        self.inner.snapshot().listing()
    }

    /// The cursor's `(row, col)`, 0-based.
    #[getter]
    fn cursor(&self) -> (u16, u16) {
        let cursor = self.inner.snapshot().cursor();
        (cursor.row, cursor.col)
    }

    /// Whether the program shows the cursor.
    #[getter]
    fn cursor_visible(&self) -> bool {
        self.inner.snapshot().cursor().visible
    }

    /// Every match of the regex `pattern` on the live screen, as a `Locator` whose
    /// assertions retry until the screen bears them out; limit it with `in_rows`,
    /// `in_cols`, `in_rect`, `below`, `above`, `right_of`, `left_of`, `inside`, and pick
    /// with `nth`, `first`, `last`. The pattern is checked here.
    fn locate(slf: &Bound<'_, Self>, pattern: String) -> PyResult<locate::PyLocator> {
        let py = slf.py();
        tuipilot::Condition::text(&pattern).map_err(|e| raise(py, e))?;
        Ok(locate::PyLocator::pattern(slf.clone().unbind(), pattern))
    }

    /// One row of the live screen (0-based), as a `Locator`.
    fn locate_row(slf: &Bound<'_, Self>, row: u16) -> locate::PyLocator {
        locate::PyLocator::row(slf.clone().unbind(), row)
    }

    /// The cells `start` to `stop` (0-based, `stop` exclusive) of one row, as a `Locator`.
    fn locate_cells(slf: &Bound<'_, Self>, row: u16, start: u16, stop: u16) -> PyResult<locate::PyLocator> {
        if start >= stop {
            return Err(bad_input(
                slf.py(),
                format!(
                    "locate_cells({row}, {start}, {stop}) holds no cell: give start < stop (stop is exclusive)"
                ),
            ));
        }
        Ok(locate::PyLocator::cells(slf.clone().unbind(), row, start, stop))
    }

    /// Every match of the regex `pattern` on the screen, row by row.
    fn find(&self, py: Python<'_>, pattern: &str) -> PyResult<Vec<PyMatch>> {
        let found = self.inner.snapshot().find(pattern).map_err(|e| raise(py, e))?;
        Ok(found.into_iter().map(PyMatch::from).collect())
    }

    /// The style of the cell at `row`, `col` (0-based).
    fn style_at(&self, row: u16, col: u16) -> PyResult<PyStyle> {
        let snapshot = self.inner.snapshot();
        let (cols, rows) = snapshot.size();
        let cell = snapshot.cell(row, col).ok_or_else(|| {
            PyIndexError::new_err(format!(
                "no cell at row {row}, col {col}: the screen is {cols}x{rows} (0-based)"
            ))
        })?;
        Ok(PyStyle { style: cell.style })
    }

    /// Draws the screen as a PNG at `path`, as a person would see it.
    #[pyo3(signature = (path, *, theme=None, font_size=None, scale=None))]
    fn png(
        &self,
        py: Python<'_>,
        path: PathBuf,
        theme: Option<String>,
        font_size: Option<f32>,
        scale: Option<u32>,
    ) -> PyResult<()> {
        let request = PngRequest {
            path: Some(std::path::absolute(&path).unwrap_or(path)),
            theme,
            font_size,
            scale,
            ..PngRequest::default()
        };
        self.draw(py, Some(request), None)
    }

    /// Draws the screen as an SVG at `path` (text stays text); `window=True` frames it
    /// as a window.
    #[pyo3(signature = (path, *, window=false, theme=None))]
    fn svg(&self, py: Python<'_>, path: PathBuf, window: bool, theme: Option<String>) -> PyResult<()> {
        let request = SvgRequest {
            drawing: PngRequest {
                path: Some(std::path::absolute(&path).unwrap_or(path)),
                theme,
                ..PngRequest::default()
            },
            window,
        };
        self.draw(py, None, Some(request))
    }

    /// Resizes the terminal; the program gets SIGWINCH.
    fn resize(&self, py: Python<'_>, cols: u16, rows: u16) -> PyResult<()> {
        self.apply(py, Operation::Resize { cols, rows }).map(|_| ())
    }

    /// Ends the program and everything it started (SIGHUP, then SIGTERM, then SIGKILL,
    /// each after the grace period); returns its exit code (minus the signal's number when
    /// a signal ended it). Ending a session that has ended returns how it ended.
    fn exit(&self, py: Python<'_>) -> PyResult<i32> {
        watching::close(self);
        let status = py.detach(|| self.inner.exit()).map_err(|e| raise(py, e))?;
        Ok(returncode(status))
    }

    /// Ends the program and everything it started at once, with SIGKILL.
    fn kill(&self, py: Python<'_>) -> PyResult<i32> {
        watching::close(self);
        let status = py.detach(|| self.inner.kill()).map_err(|e| raise(py, e))?;
        Ok(returncode(status))
    }

    /// The exit code once the program has ended (minus the signal's number for a
    /// signal), else `None`.
    #[getter]
    fn returncode(&self) -> Option<i32> {
        self.inner.exit_status().map(returncode)
    }

    /// Whether the program is still running.
    #[getter]
    fn running(&self) -> bool {
        self.inner.is_running()
    }

    /// Makes the session watchable as `name` until it ends: a person runs
    /// `tuipilot -s NAME attach` (add `--control` to type) while the test drives it.
    /// Another call moves it to another name.
    fn attachable(&self, py: Python<'_>, name: &str) -> PyResult<()> {
        watching::open(py, self, name)
    }

    /// Keeps the session watchable as `name` for a person, printing the `attach` command
    /// on stderr, until the person who attached leaves, the program exits, or nobody came
    /// for `seconds` (at most an hour): what `--tuipilot-keep` does for a failed test.
    /// Returns why it stopped: `"watcher left"`, `"program exited"`, `"nobody came"`,
    /// `"interrupted"` (Ctrl-C), or `"not kept in CI"` (`CI` is set: nobody can attach).
    fn keep(&self, py: Python<'_>, name: &str, seconds: f64) -> PyResult<&'static str> {
        watching::keep(py, self, name, seconds)
    }

    /// The program's process id.
    #[getter]
    fn pid(&self) -> i32 {
        self.inner.pid()
    }

    /// The command it was started with.
    #[getter]
    fn argv(&self) -> Vec<String> {
        self.argv.clone()
    }

    /// `(cols, rows)`.
    #[getter]
    fn size(&self) -> (u16, u16) {
        self.inner.size()
    }

    /// The window title the program set.
    #[getter]
    fn title(&self) -> String {
        self.inner.snapshot().title().to_string()
    }

    /// What the session has shown so far, as asciicast v2 text (output, input, resizes):
    /// `tuipilot render recording.cast -o how.gif` replays it.
    fn recording(&self) -> String {
        self.inner.story_cast()
    }

    /// Writes the session's report — every operation, the screens replayed from the
    /// recording — to `path`: `.md` or `.json` for one file, else a folder holding
    /// `report.html`, `report.md` and `report.json`. `title` names it (default: the
    /// command; the pytest plugin gives the test's id). Returns the files written.
    /// `failure` (the test's failure, as pytest words it) makes it the report of a failed
    /// test: its verdict is "failed", and the failure is explained by the failing step
    /// where the session has one, else by `failure`'s words.
    #[pyo3(signature = (path, *, title=None, failure=None))]
    fn report(
        &self,
        py: Python<'_>,
        path: PathBuf,
        title: Option<String>,
        failure: Option<String>,
    ) -> PyResult<Vec<PathBuf>> {
        py.detach(|| {
            let mut report = RunReport::of_session(&self.inner)?;
            report.title = title.unwrap_or_else(|| self.argv.join(" "));
            if let Some(failure) = failure {
                report.fail_with(&failure);
            }
            report.write_to(&path)
        })
        .map_err(|e| raise(py, e))
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Ends the program and everything it started, however the block ended.
    fn __exit__(
        &self,
        py: Python<'_>,
        _kind: Option<Bound<'_, PyAny>>,
        _value: Option<Bound<'_, PyAny>>,
        _traceback: Option<Bound<'_, PyAny>>,
    ) -> bool {
        let _ = py.detach(|| self.inner.exit());
        false
    }

    fn __repr__(&self) -> String {
        let state = match self.inner.exit_status() {
            Some(status) => status.to_string(),
            None => "running".into(),
        };
        format!("Session({:?}, pid={}, {state})", self.argv, self.inner.pid())
    }
}

/// The module: `Session`, `Match`, `Style`, and the helpers the pytest plugin uses.
#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<PySession>()?;
    module.add_class::<PyMatch>()?;
    module.add_class::<locate::PyLocator>()?;
    module.add_class::<PyStyle>()?;
    module.add_function(wrap_pyfunction!(snapshots::compare_snapshot, module)?)?;
    module.add_function(wrap_pyfunction!(snapshots::mask, module)?)?;
    module.add_function(wrap_pyfunction!(snapshots::compare_png, module)?)?;
    module.add_function(wrap_pyfunction!(watching::keep_seconds, module)?)?;
    module.add_function(wrap_pyfunction!(watching::keep_name, module)?)?;
    module.add("ENGINE_VERSION", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
