//! Golden snapshots for `Snapshot NAME` (text, `NAME.snap`) and `Snapshot NAME.png`
//! (an image compared with a tolerance), next to the tape.
//!
//! Like insta: a missing snapshot is written on the first run (with a note), a changed
//! one fails and leaves `NAME.snap.new` (or `NAME.actual.png` and `NAME.diff.png`) to look
//! at; `--update` or `TUIPILOT_UPDATE=1` accepts changes. When `CI` is set nothing is ever
//! written — a missing snapshot fails too — unless `TUIPILOT_UPDATE=force`.
//!
//! Public for the other faces that keep text snapshots by the same rules (the Python
//! package's `assert_snapshot`).

use std::path::Path;

use crate::render::compare::{Outcome, Tolerance, compare_png_reporting, decode_png, line_diff, on_ci};

/// The tolerance of an image snapshot: anti-aliasing may differ by a few levels, and a
/// handful of pixels (a cursor's edge) may differ outright.
const PNG_TOLERANCE: Tolerance = Tolerance {
    channel: 8,
    max_share: 0.001,
};

/// What may be written, and where a mismatch's new files go.
#[derive(Clone, Debug)]
pub struct SnapshotPolicy {
    /// Create a snapshot that does not exist yet.
    pub write_new: bool,
    /// Overwrite one that differs.
    pub write_changed: bool,
    /// Where `NAME.snap.new`, `NAME.actual.png` and `NAME.diff.png` go (default: beside
    /// the snapshot).
    pub report_dir: Option<std::path::PathBuf>,
    /// How to accept a change, as a failure says it.
    pub update_hint: String,
}

/// How a change is accepted from `tuipilot run`.
pub(super) const RUN_UPDATE_HINT: &str = "--update (or TUIPILOT_UPDATE=1)";

impl SnapshotPolicy {
    /// From `--update`, `TUIPILOT_UPDATE` and `CI`.
    pub fn from_env(update: bool) -> SnapshotPolicy {
        let env = std::env::var("TUIPILOT_UPDATE").ok();
        let ci = on_ci(std::env::var("CI").ok().as_deref());
        SnapshotPolicy::decide(update, env.as_deref(), ci)
    }

    /// Compares and writes nothing: a missing or changed snapshot fails.
    pub fn check_only() -> SnapshotPolicy {
        SnapshotPolicy {
            write_new: false,
            write_changed: false,
            report_dir: None,
            update_hint: RUN_UPDATE_HINT.to_string(),
        }
    }

    fn decide(update: bool, env: Option<&str>, ci: bool) -> SnapshotPolicy {
        let forced = env == Some("force");
        let wanted = update || env == Some("1");
        SnapshotPolicy {
            write_new: forced || !ci,
            write_changed: forced || (wanted && !ci),
            report_dir: None,
            update_hint: RUN_UPDATE_HINT.to_string(),
        }
    }

    /// Compares PNG bytes with the golden image: `Ok(Some(note))` when it was written,
    /// `Ok(None)` when it matched, `Err(report)` when it differs.
    pub fn compare_png(&self, png: &[u8], golden: &Path) -> Result<Option<String>, String> {
        let image = decode_png(png, "the screenshot").map_err(|e| e.to_string())?;
        let exists = golden.exists();
        let write = if exists {
            self.write_changed
        } else {
            self.write_new
        };
        if !exists && !write {
            return Err(missing(golden));
        }
        match compare_png_reporting(&image, golden, PNG_TOLERANCE, write, self.report_dir.as_deref()) {
            Ok(Outcome::Updated) => Ok(Some(written(golden, exists))),
            Ok(Outcome::Matched { .. }) => Ok(None),
            Err(e) => Err(e.to_string().replace("TUIPILOT_UPDATE=1", &self.update_hint)),
        }
    }
}

fn missing(golden: &Path) -> String {
    format!(
        "snapshot {} does not exist, and CI is set, so it is not created: run the tape locally (or with TUIPILOT_UPDATE=force), check the snapshot, and commit it",
        golden.display()
    )
}

fn written(golden: &Path, existed: bool) -> String {
    if existed {
        format!("snapshot {} updated", golden.display())
    } else {
        format!("snapshot {} created: check it and commit it", golden.display())
    }
}

/// A screen captured as ANSI text (`capture --ansi`, rows joined by `\n`) drawn again on a
/// terminal of its size, masked by `masks` (each match's cells, keeping their length) and
/// written with its styles ([`Snapshot::styled`](crate::Snapshot::styled)): what
/// `Snapshot+Styled` compares, and what an export of a colour capture writes — one
/// function, so the two read a screen the same way.
pub fn styled_from_ansi(ansi: &str, cols: u16, rows: u16, masks: &[regex::Regex]) -> String {
    redrawn(ansi, cols, rows).map_or_else(|| ansi.to_string(), |s| s.masked_regexes(masks).styled())
}

/// A screen captured as ANSI text drawn again on a terminal of its size: its plain text
/// (what an export asserts of a colour capture's rows).
pub fn plain_from_ansi(ansi: &str, cols: u16, rows: u16) -> String {
    redrawn(ansi, cols, rows).map_or_else(|| ansi.to_string(), |s| s.text())
}

/// A screen's captured text (rows joined by `\n`, plain or ANSI) drawn again on a
/// terminal of `cols` by `rows`; `None` for a size no terminal takes.
pub(crate) fn redrawn(captured: &str, cols: u16, rows: u16) -> Option<crate::Snapshot> {
    let mut terminal = crate::Terminal::new(cols, rows).ok()?;
    terminal.process(captured.replace('\n', "\r\n").as_bytes());
    Some(terminal.snapshot())
}

/// `text` with each row in `spans` (first and last, 0-based and inclusive) replaced by
/// the mask placeholder whole, blank or not (a list may be shorter in a replay):
/// `Mask+Rows`.
pub fn mask_whole_rows(text: &str, spans: &[(u16, u16)]) -> String {
    if spans.is_empty() {
        return text.to_string();
    }
    text.split('\n')
        .enumerate()
        .map(|(index, row)| {
            let masked = spans
                .iter()
                .any(|&(first, last)| (usize::from(first)..=usize::from(last)).contains(&index));
            match masked {
                true => crate::snapshot::MASK_PLACEHOLDER,
                false => row,
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Compares screen text with a `.snap` file (see [`SnapshotPolicy::compare_png`] for the
/// result).
pub fn compare_text(text: &str, golden: &Path, policy: &SnapshotPolicy) -> Result<Option<String>, String> {
    let actual = format!("{text}\n");
    let new_path = match (&policy.report_dir, golden.file_name()) {
        (Some(dir), Some(name)) => dir.join(name).with_extension("snap.new"),
        _ => golden.with_extension("snap.new"),
    };
    let write = |bytes: &str| {
        if let Some(dir) = golden.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        }
        crate::files::write_file_atomically(golden, bytes.as_bytes()).map_err(|e| e.to_string())
    };
    let expected = match std::fs::read_to_string(golden) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if !policy.write_new {
                return Err(missing(golden));
            }
            write(&actual)?;
            return Ok(Some(written(golden, false)));
        }
        Err(e) => return Err(format!("reading {}: {e}", golden.display())),
    };
    if expected == actual {
        let _ = std::fs::remove_file(&new_path);
        return Ok(None);
    }
    if policy.write_changed {
        write(&actual)?;
        let _ = std::fs::remove_file(&new_path);
        return Ok(Some(written(golden, true)));
    }
    if let Some(dir) = &policy.report_dir {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = crate::files::write_file_atomically(&new_path, actual.as_bytes());
    // A golden written while masks kept the length they hid (`*` runs) reads differently
    // now: say why, once.
    let placeholder = crate::snapshot::MASK_PLACEHOLDER;
    let older_masks = if actual.contains(placeholder)
        && !expected.contains(placeholder)
        && expected.contains('*')
    {
        format!(
            "; masks now write {placeholder} for a match of any length where this golden has `*` runs: if the diff shows only that, accept it once"
        )
    } else {
        String::new()
    };
    Err(format!(
        "the screen differs from {} (new screen written to {}; accept it with {}{older_masks}):\n{}",
        golden.display(),
        new_path.display(),
        policy.update_hint,
        line_diff(&expected, &actual)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ci_never_writes_snapshots_unless_forced() {
        let p = SnapshotPolicy::decide(true, Some("1"), true);
        assert!(!p.write_new && !p.write_changed);
        let p = SnapshotPolicy::decide(false, Some("force"), true);
        assert!(p.write_new && p.write_changed);
        let p = SnapshotPolicy::decide(false, None, false);
        assert!(p.write_new && !p.write_changed);
        let p = SnapshotPolicy::decide(true, None, false);
        assert!(p.write_new && p.write_changed);
    }

    #[test]
    fn a_golden_with_the_older_fixed_width_masks_is_told_why_it_differs() {
        let dir = crate::files::TempDir::new("snapshots-test").unwrap();
        let golden = dir.path().join("clock.snap");
        std::fs::write(&golden, "at ********\n").unwrap();
        let policy = SnapshotPolicy::decide(false, None, true);
        let report = compare_text("at [masked]", &golden, &policy).unwrap_err();
        assert!(
            report.contains(
                "masks now write [masked] for a match of any length where this golden has `*` runs"
            ),
            "{report}"
        );
        std::fs::write(&golden, "at noon\n").unwrap();
        let report = compare_text("at [masked]", &golden, &policy).unwrap_err();
        assert!(!report.contains("masks now write"), "{report}");
    }

    #[test]
    fn a_diff_lists_only_the_rows_that_differ() {
        assert_eq!(
            line_diff("a\nb\nc\n", "a\nB\nc\nd\n"),
            "   1 - b\n   1 + B\n   3 + d"
        );
    }
}
