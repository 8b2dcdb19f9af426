//! What a run ends with: a [`Report`] when the tape passed, a [`Failure`] when it did not.
//!
//! A failure's `Display` is one line (`file:line:col: what went wrong`), for a CLI summary
//! and a JUnit failure message; its `Debug` is the whole readable report (the command, the
//! wait's report with the screen, the bundle's folder, the notes), so a `#[test]` that
//! unwraps a run shows everything.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::parse::ParseErrors;
use super::program::Location;

/// A tape that passed.
#[derive(Clone, Debug)]
pub struct Report {
    /// The tape.
    pub tape: PathBuf,
    /// How long it ran.
    pub elapsed: Duration,
    /// How many commands it has.
    pub commands: usize,
    /// What a reader may want to know: settings that only a video shows, ignored late
    /// `Set`s, snapshots created, outputs skipped.
    pub notes: Vec<String>,
    /// Lines whose wait returned while part of the program's reaction may still have been
    /// pending, or without waiting for what may still draw, each with its note
    /// ([`wait_notes`](crate::operation::wait_notes): `t.tape:7: the screen may not show
    /// the whole reaction yet: a timer of … is due in 4 s: its reaction may not be drawn
    /// yet`): said on every run, not only with `-v`.
    pub pending: Vec<String>,
    /// Files and folders the tape wrote (outputs, screenshots, new snapshots).
    pub written: Vec<PathBuf>,
    /// The screen when the tape ended (rows trimmed, as a text golden's last frame).
    pub screen: String,
    /// Why the report asked for ([`RunOptions::report`](super::RunOptions::report)) was
    /// not written: refused (a link planted at its name, another user's folder) or failed.
    pub report_not_written: Option<String>,
}

/// Why a tape failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// The tape does not parse (exit code 2).
    Parse,
    /// An expectation, wait or snapshot was not met (exit code 1).
    Failed,
    /// Something kept the tape from running: a missing program, an output that cannot be
    /// written, a shell that would not start (exit code 2).
    Error,
}

/// A tape that did not pass.
#[derive(Clone)]
pub struct Failure {
    /// The tape.
    pub tape: PathBuf,
    /// Which kind of failure.
    pub kind: FailureKind,
    /// Where in the tape (absent for failures of the whole tape).
    pub location: Option<Location>,
    /// The command that failed, as written.
    pub command: Option<String>,
    /// What went wrong, in one line.
    pub message: String,
    /// The full report behind the message (a wait's report, a snapshot diff), if any.
    pub report: Option<String>,
    /// The screen when it failed, if the program was running.
    pub screen: Option<String>,
    /// The failure bundle's folder, if one was written.
    pub bundle: Option<PathBuf>,
    /// Notes gathered before the failure.
    pub notes: Vec<String>,
    /// How long the tape ran.
    pub elapsed: Duration,
    /// The failure explained for the report (expected, the closest line, located cells),
    /// when an engine error said more than its message.
    pub explanation: Option<crate::report::Explanation>,
    /// Why a report asked for (in the bundle, or [`RunOptions::report`](super::RunOptions::report))
    /// was not written.
    pub report_not_written: Option<String>,
}

impl Failure {
    pub(super) fn new(
        kind: FailureKind,
        tape: &Path,
        location: Option<Location>,
        message: String,
    ) -> Failure {
        Failure {
            tape: tape.to_path_buf(),
            kind,
            location,
            command: None,
            message,
            report: None,
            screen: None,
            bundle: None,
            notes: Vec::new(),
            elapsed: Duration::ZERO,
            explanation: None,
            report_not_written: None,
        }
    }

    pub(super) fn parse(tape: &Path, errors: ParseErrors) -> Failure {
        let first = errors.0.first().cloned();
        let count = errors.0.len();
        let message = match (&first, count) {
            (Some(e), 1) => e.message.clone(),
            (Some(e), n) => format!(
                "{} (and {} more error{})",
                e.message,
                n - 1,
                if n == 2 { "" } else { "s" }
            ),
            (None, _) => "the tape does not parse".to_string(),
        };
        let mut failure = Failure::new(FailureKind::Parse, tape, first.map(|e| e.location), message);
        failure.report = Some(errors.to_string());
        failure
    }

    /// The process exit code this failure maps to: 1 for a failed expectation or wait,
    /// 2 for a parse or operational error.
    pub fn exit_code(&self) -> i32 {
        match self.kind {
            FailureKind::Failed => 1,
            FailureKind::Parse | FailureKind::Error => 2,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Some(at) => write!(f, "{at}: {}", self.message),
            None => write!(f, "{}: {}", self.tape.display(), self.message),
        }
    }
}

impl fmt::Debug for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{self}")?;
        if let Some(report) = &self.report {
            // The message already carries the report's first line.
            let first = report.lines().next().unwrap_or("");
            let rest = if self.message.contains(first) {
                report.split_once('\n').map_or("", |(_, rest)| rest)
            } else {
                report.as_str()
            };
            if !rest.is_empty() {
                writeln!(f, "{rest}")?;
            }
        }
        if self.report.is_none()
            && let Some(screen) = &self.screen
        {
            writeln!(f, "screen:")?;
            for line in screen.lines() {
                writeln!(f, "     | {line}")?;
            }
        }
        if let Some(bundle) = &self.bundle {
            writeln!(
                f,
                "failure bundle: {} (screen.txt, screen.ansi, screen.png, state.json, report.txt, recording.cast)",
                bundle.display()
            )?;
        }
        for note in &self.notes {
            writeln!(f, "note: {note}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Failure {}
