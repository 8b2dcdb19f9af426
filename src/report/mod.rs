//! One account of a run — a tape, a failed test, an agent's session, a recording — for
//! people and for machines: `report.html` (one self-contained file that opens from disk,
//! no network), `report.md` (sized for an agent or a CI comment) and `report.json` (the
//! data both are made from).
//!
//! A [`RunReport`] holds what ran (a header), the steps (an operation log, a tape's
//! commands or a recording's markers), why it failed ([`Explanation`]: what was expected,
//! the closest line, the cells located or masked, unanswered terminal queries), golden
//! images that did not match, and files to link. The screens come from the run's
//! recording: it is replayed through the engine's own terminal ([`timeline`]), so the
//! screen after each step and the program's animation between steps are the ones the run
//! saw. The HTML draws them with the SVG renderer ([`svg_parts`](crate::render::svg_parts)),
//! keeping each distinct row once, so a hundred screens of one session cost little more
//! than one.
//!
//! This module knows reports; where they are written from — a tape's run, a failed test,
//! the executor for a live session, the CLI for a recording file — is the caller's.

mod html;
mod index;
mod markdown;
pub mod timeline;

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::operation::LoggedOperation;
use crate::record::{CastFile, Recording, Replayable};
use crate::snapshot::Snapshot;

pub use index::{SuiteEntry, suite_index};
pub use timeline::Timeline;

/// How the run ended, as the report's header says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Everything it checked held.
    Passed,
    /// A step failed.
    Failed,
    /// The session is still running (a report of a live session).
    Running,
    /// A recording or a session that ended, with nothing to pass or fail.
    Ended,
}

impl Verdict {
    /// The word the report shows.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Passed => "passed",
            Verdict::Failed => "failed",
            Verdict::Running => "running",
            Verdict::Ended => "ended",
        }
    }
}

/// One step of the run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Step {
    /// What it did: a tape's command as written, an operation's label.
    pub label: String,
    /// Where it is written (`demo.tape:12`), when it comes from a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// When it started, in milliseconds since the run started.
    pub at_ms: u64,
    /// How long it took, in milliseconds.
    pub took_ms: u64,
    /// Why its wait ended, when it waited (`matched /…/ at row 3`, `ready: …`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waited: Option<String>,
    /// Its error's first line, when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The screen's text after it (filled from the recording when the report is made).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screen: Option<String>,
    /// When it ended to the microsecond, where known: output stamped within the
    /// millisecond it ended in is then placed before or after it exactly.
    #[serde(skip)]
    pub ended_us: Option<u64>,
}

impl Step {
    /// A step that ran `label` from `at_ms` for `took_ms`.
    pub fn new(label: impl Into<String>, at_ms: u64, took_ms: u64) -> Step {
        Step {
            label: label.into(),
            at_ms,
            took_ms,
            ..Step::default()
        }
    }

    /// When it ended, in milliseconds since the run started.
    pub fn end_ms(&self) -> u64 {
        self.at_ms.saturating_add(self.took_ms)
    }

    /// When it ended, in microseconds: exact where known, else the end of its millisecond.
    pub fn end_us(&self) -> u64 {
        self.ended_us
            .unwrap_or_else(|| self.end_ms().saturating_mul(1000).saturating_add(999))
    }

    /// The steps of an operation log: each operation's label, times, why its wait ended
    /// and its error.
    pub fn from_log(log: &[LoggedOperation]) -> Vec<Step> {
        log.iter()
            .map(|logged| Step {
                label: logged.label(),
                source: logged.source.clone(),
                at_ms: logged.at_ms,
                took_ms: logged.took_ms,
                waited: logged.waited.clone(),
                error: logged.error.clone(),
                screen: None,
                ended_us: (logged.ended_us > 0).then_some(logged.ended_us),
            })
            .collect()
    }

    /// The steps a recording's markers name: the executor marks each operation with its
    /// label and, right after it ended, why (`→ matched /…/ at row 3`, `→ failed: …`).
    /// A marker of the recorder's own (a tape's `Screenshot`) is a step too.
    pub fn from_markers(recording: &Recording) -> Vec<Step> {
        Step::from_marker_list(recording.markers())
    }

    /// The steps these markers (times in seconds, labels) name, as [`Step::from_markers`].
    pub fn from_marker_list(markers: Vec<(f64, &str)>) -> Vec<Step> {
        let mut steps: Vec<Step> = Vec::new();
        let mut open = false;
        for (time, label) in markers {
            let at_ms = seconds_to_ms(time);
            if let Some(why) = label.strip_prefix("→ ") {
                if let (true, Some(step)) = (open, steps.last_mut()) {
                    step.took_ms = at_ms.saturating_sub(step.at_ms);
                    step.ended_us = Some(seconds_to_us(time));
                    match why.strip_prefix("failed: ") {
                        Some(error) => step.error = Some(error.to_string()),
                        None => step.waited = Some(why.to_string()),
                    }
                }
                open = false;
                continue;
            }
            steps.push(Step::new(label, at_ms, 0));
            open = true;
        }
        steps
    }
}

/// What a report of a recording on disk says of its memory: the budgets that bound it.
pub(crate) fn read_from_disk_note() -> String {
    format!(
        "the recording was replayed from its file, one event at a time: the report's pictures are kept within {} MB and its screens' text within {} MB, whatever the recording's length",
        timeline::MAX_PIECE_BYTES >> 20,
        timeline::MAX_TEXT_BYTES >> 20
    )
}

/// A recording's time (seconds) in whole milliseconds, as steps count.
pub(crate) fn seconds_to_ms(seconds: f64) -> u64 {
    (seconds * 1000.0).round().max(0.0) as u64
}

/// A recording's time (seconds) in microseconds, to place output among steps.
fn seconds_to_us(seconds: f64) -> u64 {
    (seconds * 1e6).max(0.0) as u64
}

/// A run of cells marked on a screen: located by an assertion, or masked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CellMark {
    /// Row, 0-based.
    pub row: u16,
    /// First column, 0-based.
    pub col: u16,
    /// How many cells.
    pub width: u16,
    /// `located` or `masked`.
    pub kind: &'static str,
}

/// Why the run failed, for the failing step.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Explanation {
    /// The failing step's index in [`RunReport::steps`], when one step failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
    /// What went wrong, in one line.
    pub message: String,
    /// What was expected (`text /^done$/`, `the row "Save" bold`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// What was found instead, when the check says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found: Option<String>,
    /// The screen line closest to what was expected (`row 3: "…"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closest: Option<String>,
    /// Cells marked on the failing screen.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub marks: Vec<CellMark>,
    /// Terminal queries the program sent that went unanswered.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unanswered: Vec<String>,
    /// The whole textual report (the numbered screen, notes, saved files).
    pub details: String,
    /// The screen's text when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screen: Option<String>,
    /// The pattern the failing step looked for on the screen, when the closest line is
    /// still to be found on its screen.
    #[serde(skip)]
    pub pattern: Option<String>,
}

impl Explanation {
    /// A failed step's explanation when all that is known is its error's line (an
    /// operation log, a recording's marker).
    pub fn of_step(step: usize, error: &str) -> Explanation {
        Explanation {
            step: Some(step),
            message: error.to_string(),
            details: error.to_string(),
            ..Explanation::default()
        }
    }

    /// The explanation an engine error gives: a failed wait's condition, closest line and
    /// unanswered queries; a failed assertion's expectation, finding and located cells.
    pub fn of_error(error: &Error) -> Explanation {
        let details = error.to_string();
        let message = details.lines().next().unwrap_or("").to_string();
        let mut explanation = Explanation {
            message,
            details,
            ..Explanation::default()
        };
        if let Some(report) = error.wait_error() {
            explanation.expected = Some(report.condition.clone());
            explanation.closest = report
                .closest
                .as_ref()
                .filter(|_| report.has_pattern)
                .map(|(row, text)| format!("row {row}: {text:?}"));
            explanation.unanswered = report
                .unanswered
                .iter()
                .map(|q| format!("{} ({})", q.query, q.note))
                .collect();
            explanation.screen = Some(report.screen.text());
        }
        if let Error::Assertion(assertion) = error {
            explanation.expected = Some(assertion.expected.clone());
            explanation.found = Some(assertion.found.clone());
            explanation.closest = assertion
                .closest
                .as_ref()
                .map(|(row, text)| format!("row {row}: {text:?}"));
            explanation.marks = assertion
                .cells
                .iter()
                .map(|&(row, col, end)| CellMark {
                    row,
                    col,
                    width: end.saturating_sub(col).max(1),
                    kind: "located",
                })
                .collect();
        }
        explanation
    }
}

/// A golden image that did not match: the three pictures as PNG files.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Golden {
    /// The golden's name (its file).
    pub name: String,
    /// The golden, as expected.
    pub expected: PathBuf,
    /// What the run drew.
    pub actual: PathBuf,
    /// The differing pixels marked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<PathBuf>,
}

/// A file beside the report, linked from it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Attachment {
    /// What it is (`the last screen as PNG`).
    pub label: String,
    /// Where it is.
    pub path: PathBuf,
}

impl Attachment {
    /// Of `files` (a file's name and what it is), those that sit in `dir`, linked by name
    /// (the report is written into `dir` beside them).
    pub fn present_in(dir: &Path, files: &[(&str, &str)]) -> Vec<Attachment> {
        files
            .iter()
            .filter(|(file, _)| dir.join(file).is_file())
            .map(|(file, label)| Attachment {
                label: label.to_string(),
                path: PathBuf::from(file),
            })
            .collect()
    }
}

/// One report: the header, the steps, the failure, goldens and attachments, and the
/// recording the screens are replayed from.
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    /// What ran, as a title: the tape's path, the test's name, the session's command.
    pub title: String,
    /// What kind of run: `tape`, `test`, `session` or `recording`.
    pub kind: &'static str,
    /// The program and its arguments, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Columns at the start.
    pub cols: u16,
    /// Rows at the start.
    pub rows: u16,
    /// The `TERM` the program saw.
    pub term: String,
    /// How it ended.
    pub verdict: Verdict,
    /// How long it ran, in milliseconds.
    pub duration_ms: u64,
    /// How the program ended, when it has (`exited with code 0`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit: Option<String>,
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<Explanation>,
    /// Golden images that did not match.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub goldens: Vec<Golden>,
    /// Files beside the report.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<Attachment>,
    /// What a reader may want to know besides.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The recording the screens come from: a session's held in memory, a file's read
    /// from it on every pass.
    #[serde(skip)]
    pub recording: Option<Replayable>,
    /// The screen at the end (or at the failure), shown when there is no recording and
    /// checked against the recording's last frame.
    #[serde(skip)]
    pub last_screen: Option<Snapshot>,
}

/// The files [`RunReport::write`] makes.
pub const REPORT_FILES: [&str; 3] = ["report.html", "report.md", "report.json"];

/// One of the report's three forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    /// `report.html`.
    Html,
    /// `report.md`.
    Markdown,
    /// `report.json`.
    Json,
}

impl ReportFormat {
    /// The form a file name asks for by its extension (`.html`/`.htm`, `.md`, `.json`).
    pub fn of_path(path: &Path) -> Option<ReportFormat> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "html" | "htm" => Some(ReportFormat::Html),
            "md" | "markdown" => Some(ReportFormat::Markdown),
            "json" => Some(ReportFormat::Json),
            _ => None,
        }
    }
}

impl RunReport {
    /// An empty report of a `kind` of run called `title`, on a screen of `cols` × `rows`.
    pub fn new(kind: &'static str, title: impl Into<String>, cols: u16, rows: u16) -> RunReport {
        RunReport {
            title: title.into(),
            kind,
            command: None,
            cols,
            rows,
            term: crate::pty::DEFAULT_TERM.to_string(),
            verdict: Verdict::Ended,
            duration_ms: 0,
            exit: None,
            steps: Vec::new(),
            failure: None,
            goldens: Vec::new(),
            attachments: Vec::new(),
            notes: Vec::new(),
            recording: None,
            last_screen: None,
        }
    }

    /// A report of a recording alone: its size and title from the header, its steps from
    /// its markers (see [`Step::from_markers`]), a failure where a step failed.
    pub fn of_recording(recording: Recording, title: impl Into<String>) -> RunReport {
        RunReport::of_replayable(Replayable::Held(recording), title)
    }

    /// A report of a recording file, read from the file on every pass instead of held:
    /// what the report costs stays within its budgets (the timeline's pictures and texts,
    /// said in its notes) whatever the recording's length and screen size.
    pub fn of_file(file: CastFile, title: impl Into<String>) -> RunReport {
        let mut report = RunReport::of_replayable(Replayable::File(file), title);
        report.notes.push(read_from_disk_note());
        report
    }

    fn of_replayable(recording: Replayable, title: impl Into<String>) -> RunReport {
        let header = recording.header();
        let mut report = RunReport::new("recording", title, header.cols, header.rows);
        if let Some(term) = header.env.get("TERM") {
            report.term = term.clone();
        }
        if let Some(name) = &header.title {
            report.command = Some(name.clone());
        }
        report.duration_ms = seconds_to_ms(recording.duration());
        report.steps = Step::from_marker_list(recording.markers());
        if let Some(at) = report.steps.iter().position(|s| s.error.is_some()) {
            report.verdict = Verdict::Failed;
            report.failure = Some(Explanation::of_step(
                at,
                report.steps[at].error.as_deref().unwrap_or(""),
            ));
        }
        report.recording = Some(recording);
        report
    }

    /// Makes this the report of a failed test: the verdict "failed", and, where no step
    /// of the session failed (the test's own assertion did), `failure` as the explanation
    /// (its first line the message).
    pub fn fail_with(&mut self, failure: &str) {
        self.verdict = Verdict::Failed;
        if self.failure.is_none() {
            self.failure = Some(Explanation {
                message: failure
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("")
                    .trim()
                    .to_string(),
                details: failure.to_string(),
                ..Explanation::default()
            });
        }
    }

    /// A report of a session as it is now: its command and size, its operation log as
    /// the steps (the operations given through [`Session::apply`](crate::Session::apply):
    /// an agent's, a tape's), the output it recorded as the screens, and the last failed
    /// operation explained. A session that still runs is `running`, one whose program
    /// ended `ended`.
    pub fn of_session(session: &crate::Session) -> Result<RunReport> {
        let (cols, rows) = session.size();
        let command = session
            .command()
            .iter()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ");
        let recording = Recording::read(session.story_cast().as_bytes(), "the session's recording")?;
        let mut report = RunReport::new(
            "session",
            command.clone(),
            recording.header.cols,
            recording.header.rows,
        );
        report.command = Some(command);
        let log = session.operations();
        report.steps = Step::from_log(&log);
        report.verdict = match session.exit_status() {
            Some(_) => Verdict::Ended,
            None => Verdict::Running,
        };
        report.duration_ms = u64::try_from(session.uptime().as_millis()).unwrap_or(u64::MAX);
        report.exit = session.exit_status().map(|s| s.to_string());
        if let Some(at) = report.steps.iter().rposition(|s| s.error.is_some()) {
            let error = report.steps[at].error.clone().unwrap_or_default();
            let wait = log.get(at).and_then(|l| match &l.operation {
                crate::Operation::Wait { condition, .. } => Some(condition.clone()),
                crate::Operation::Send { wait, .. } | crate::Operation::Capture { wait, .. } => wait.clone(),
                _ => None,
            });
            report.failure = Some(Explanation {
                expected: wait.as_ref().map(crate::operation::WaitFor::label),
                pattern: match wait {
                    Some(crate::operation::WaitFor::Text(re) | crate::operation::WaitFor::NoText(re)) => {
                        Some(re)
                    }
                    _ => None,
                },
                ..Explanation::of_step(at, &error)
            });
            // The session's last operation failed: so did the run, as far as it went.
            if at + 1 == report.steps.len() {
                report.verdict = Verdict::Failed;
            }
        }
        if (cols, rows) != (report.cols, report.rows) {
            report.notes.push(format!("the screen is {cols}×{rows} now"));
        }
        if let Some(title) = &recording.header.title
            && title.contains("dropped")
        {
            report.notes.push(format!(
                "the recording holds {title}: the first screens are drawn from the middle of the output"
            ));
        }
        report.last_screen = Some(session.snapshot());
        report.recording = Some(Replayable::Held(recording));
        Ok(report)
    }

    /// The screens: the recording replayed, a frame after each step and for the
    /// program's own changes between (see [`Timeline`]), drawn with the default
    /// [`RenderOptions`](crate::render::RenderOptions).
    pub fn timeline(&self) -> Result<Timeline> {
        Timeline::build(self, &crate::render::RenderOptions::default())
    }

    /// Fills each step's `screen` with its text from the timeline, and the failure's
    /// screen when it has none.
    /// The bounds the timeline applied ([`Timeline::thinned`]) join the notes.
    pub fn fill_screens(&mut self, timeline: &Timeline) {
        for (index, step) in self.steps.iter_mut().enumerate() {
            if step.screen.is_none() {
                step.screen = timeline.step_text(index).map(trimmed);
            }
        }
        if let Some(failure) = &mut self.failure
            && failure.screen.is_none()
        {
            failure.screen = match failure.step {
                Some(step) => timeline.step_text(step).map(str::to_string),
                None => self.last_screen.as_ref().map(Snapshot::text),
            };
        }
        for note in &timeline.thinned {
            if !self.notes.contains(note) {
                self.notes.push(note.clone());
            }
        }
        if let Some(failure) = &mut self.failure
            && failure.closest.is_none()
            && let (Some(pattern), Some(screen)) = (&failure.pattern, &failure.screen)
        {
            let rows: Vec<String> = screen.split('\n').map(|r| r.trim_end().to_string()).collect();
            failure.closest = crate::wait::report::closest_line(&rows, pattern)
                .map(|(row, text)| format!("row {row}: {text:?}"));
        }
    }

    /// The Markdown report.
    pub fn markdown(&self) -> String {
        markdown::write(self)
    }

    /// The JSON the reports are made from (the steps with their screens' text).
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }

    /// The HTML report: one file, its styles, script and screens inline, drawn as the
    /// timeline drew them.
    pub fn html(&self, timeline: &Timeline) -> Result<String> {
        html::write(self, timeline)
    }

    /// The report in one form, its screens replayed first.
    pub fn text(&mut self, format: ReportFormat) -> Result<String> {
        let timeline = self.timeline()?;
        self.fill_screens(&timeline);
        Ok(match format {
            ReportFormat::Html => self.html(&timeline)?,
            ReportFormat::Markdown => self.markdown(),
            ReportFormat::Json => self.json() + "\n",
        })
    }

    /// Writes the report to `path`: one form when its extension names one (`.html`,
    /// `.md`, `.json`), else the three files into the folder `path`. Returns what it
    /// wrote; files are private to the user (a report holds what was typed).
    pub fn write_to(&mut self, path: &Path) -> Result<Vec<PathBuf>> {
        match ReportFormat::of_path(path) {
            Some(format) => {
                let text = self.text(format)?;
                Ok(vec![crate::files::write_file(
                    path,
                    text.as_bytes(),
                    crate::files::Access::Private,
                )?])
            }
            None => {
                let html = self.write(path)?;
                let dir = html.parent().map(Path::to_path_buf).unwrap_or_default();
                Ok(REPORT_FILES.iter().map(|f| dir.join(f)).collect())
            }
        }
    }

    /// Writes `report.html`, `report.md` and `report.json` into `dir` (made, private to
    /// the user: a report holds what was typed); returns the HTML's path. Attachments are
    /// linked relative to `dir`.
    pub fn write(&mut self, dir: &Path) -> Result<PathBuf> {
        let folder = crate::files::Folder::make(dir, crate::files::Access::Private)?;
        let private = crate::files::Access::Private;
        // One form at a time, each let go before the next is made.
        let path = {
            let timeline = self.timeline()?;
            self.fill_screens(&timeline);
            let html = self.html(&timeline)?;
            drop(timeline);
            folder.write(REPORT_FILES[0].as_ref(), html.as_bytes(), private)?
        };
        folder.write(REPORT_FILES[1].as_ref(), self.markdown().as_bytes(), private)?;
        // The JSON holds every step's screen: written as it is made, not held whole.
        let mut json = folder.create(REPORT_FILES[2].as_ref(), private)?;
        let failed = |e: std::io::Error| Error::io(format!("cannot write {}", json_path(dir).display()), e);
        {
            let mut writer = std::io::BufWriter::new(&mut json);
            serde_json::to_writer_pretty(&mut writer, self).map_err(|e| failed(e.into()))?;
            writer.write_all(b"\n").map_err(failed)?;
            writer.flush().map_err(failed)?;
        }
        json.commit()?;
        Ok(path)
    }
}

/// Where `report.json` goes in `dir`.
fn json_path(dir: &Path) -> PathBuf {
    dir.join(REPORT_FILES[2])
}

/// A screen's text without its blank bottom rows.
pub(crate) fn trimmed(text: &str) -> String {
    text.trim_end_matches(['\n', ' ']).to_string()
}
