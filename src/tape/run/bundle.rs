//! What a run leaves to look at: the failure bundle (`NAME.failure/`: the screen, its
//! state, the report text, the recording) and the run's report (see [`crate::report`]),
//! written into the bundle and wherever `RunOptions::report` says.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;

use super::Runner;
use crate::tape::outcome::Failure;
use crate::tape::program::Command;

/// How many operations a failure bundle lists.
pub(super) const LOGGED_OPERATIONS: usize = 50;

/// One operation as the bundle lists it.
pub(super) struct Logged {
    pub line: u32,
    pub command: String,
    pub operation: String,
    pub millis: f64,
    pub ok: bool,
    /// Why the operation's wait ended (`ready: vim (pid 4711) reading the terminal`).
    pub waited: Option<String>,
}

impl Runner<'_> {
    pub(super) fn write_bundle(
        &self,
        snapshot: &crate::Snapshot,
        command: &Command,
        failure: &Failure,
    ) -> Option<PathBuf> {
        let stem = self
            .tape
            .path
            .file_stem()
            .map_or_else(|| "tape".to_string(), |s| s.to_string_lossy().into_owned());
        let dir = self
            .options
            .out_dir
            .clone()
            .unwrap_or_else(|| self.tape.dir().to_path_buf())
            .join(format!("{stem}.failure"));
        let operations: Vec<_> = self
            .log
            .iter()
            .map(|l| json!({"line": l.line, "command": l.command, "operation": l.operation, "ms": (l.millis * 1000.0).round() / 1000.0, "ok": l.ok, "waited": l.waited}))
            .collect();
        let extra = json!({
            "tape": self.tape.path.display().to_string(),
            "failed": {
                "file": command.location.file.display().to_string(),
                "line": command.location.line,
                "col": command.location.col,
                "command": self.source(command),
                "message": failure.message,
            },
            "operations": operations,
        });
        crate::artifacts::write_screen(&dir, snapshot, extra).ok()?;
        let report = failure.report.clone().unwrap_or_else(|| failure.message.clone());
        crate::files::write_file(
            &dir.join("report.txt"),
            (report + "\n").as_bytes(),
            crate::files::Access::Private,
        )
        .ok()?;
        Some(dir)
    }
}

/// The files of a bundle a report links to, with what they are.
const BUNDLE_FILES: [(&str, &str); 5] = [
    ("screen.png", "the last screen (PNG)"),
    ("screen.txt", "the last screen (text)"),
    ("state.json", "the terminal's state"),
    ("report.txt", "the failure's report"),
    ("recording.cast", "the recording"),
];

impl Runner<'_> {
    /// The run's report: the tape's operations as steps (each with its line), the
    /// recording's screens, and the failure explained.
    pub(super) fn report(
        &self,
        recording: Option<&Path>,
        failure: Option<&Failure>,
        elapsed: Duration,
    ) -> crate::report::RunReport {
        use crate::report::{Attachment, Explanation, RunReport, Verdict};
        let (cols, rows) = self.setup.size().map(|(size, _)| size).unwrap_or((80, 24));
        let mut report = RunReport::new("tape", self.tape.path.display().to_string(), cols, rows);
        report.command = Some(self.setup.shell.clone());
        report.duration_ms = super::millis(elapsed);
        report.steps = self.steps.iter().cloned().collect();
        report.goldens = self.goldens.clone();
        report.notes = self.notes.clone();
        if let Some(path) = recording {
            // Read from the file on every pass: a run's report costs what a live
            // session's does, however long the run drew.
            match crate::record::CastFile::open(path) {
                Ok(file) => {
                    report.recording = Some(crate::record::Replayable::File(file));
                    report.notes.push(crate::report::read_from_disk_note());
                }
                Err(e) => report
                    .notes
                    .push(format!("the recording cannot be replayed: {e}")),
            }
        }
        report.last_screen = self.session.as_ref().map(crate::Session::snapshot);
        report.verdict = match failure {
            Some(_) => Verdict::Failed,
            None => Verdict::Passed,
        };
        if let Some(failure) = failure {
            let mut explanation = failure.explanation.clone().unwrap_or_else(|| Explanation {
                details: failure.report.clone().unwrap_or_else(|| failure.message.clone()),
                ..Explanation::default()
            });
            // The failing command's step: its last operation, or none when it failed
            // before one ran (a snapshot that differs, a missing program), and then the
            // message says where.
            let line = failure
                .location
                .as_ref()
                .map(|l| format!("{}:{}", l.file.display(), l.line));
            explanation.step = report
                .steps
                .iter()
                .rposition(|s| s.error.is_some() && s.source == line);
            explanation.message = match explanation.step {
                Some(_) => failure.message.clone(),
                None => failure.to_string(),
            };
            if explanation.screen.is_none() {
                explanation.screen = failure.screen.clone();
            }
            // The cells the tape's masks hide from its snapshots, marked on the screen.
            if let Some(screen) = &report.last_screen {
                for mask in &self.masks {
                    for found in screen.find(mask).unwrap_or_default() {
                        explanation.marks.push(crate::report::CellMark {
                            row: found.row,
                            col: found.col,
                            width: (unicode_width::UnicodeWidthStr::width(found.text.as_str()) as u16).max(1),
                            kind: "masked",
                        });
                    }
                }
            }
            report.failure = Some(explanation);
            if let Some(bundle) = &failure.bundle {
                report.attachments = Attachment::present_in(bundle, &BUNDLE_FILES);
            }
        }
        report
    }
}
