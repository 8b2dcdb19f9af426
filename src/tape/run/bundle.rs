//! The failure bundle: what a failed tape leaves to look at, in `NAME.failure/`.

use std::path::PathBuf;

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
