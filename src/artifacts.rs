//! Failure artefacts: what a failed wait in a test leaves behind to look at.
//!
//! A report in a CI log scrolls away and shows no colours; so when a wait called from a
//! test fails, the screen is also written to `DIR/<test name>/`: `screen.txt` (the text),
//! `screen.ansi` (with colours, for `cat` in a terminal), `screen.png` (with the `render`
//! feature) and `state.json` (size, cursor, title, exit status, the condition and the
//! timing). The report names the folder. `DIR` is `$TUIPILOT_ARTIFACTS`, else
//! `tuipilot-artifacts` in cargo's target directory: `$CARGO_TARGET_DIR`, else the
//! directory holding the test executable that cargo marked with `CACHEDIR.TAG` (so a
//! workspace member's tests write to the workspace's `target/`), else
//! `$CARGO_MANIFEST_DIR/target`; outside cargo, with none of these, nothing is written.
//! The test's name is its thread's (libtest names each test's thread after the test).
//! Waits made through the operation executor (a session host, the MCP server) write
//! nothing: they are not inside a test.

use std::path::PathBuf;

use serde_json::json;

use crate::files::{Access, Folder};
use crate::snapshot::Snapshot;

/// Where a failed wait's artefacts go, if anywhere: the folder for this test.
fn folder() -> Option<PathBuf> {
    let base = match std::env::var_os("TUIPILOT_ARTIFACTS").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => cargo_target_dir()?.join("tuipilot-artifacts"),
    };
    let thread = std::thread::current();
    let test = match thread.name() {
        Some(name) if name != "main" => name.to_string(),
        _ => "main".to_string(),
    };
    // Test names are paths (`tests::a_b`); keep them one folder each.
    let test: String = test
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    Some(base.join(test))
}

/// Cargo's target directory for this test run: `$CARGO_TARGET_DIR`, else the one this
/// executable was built in, else `$CARGO_MANIFEST_DIR/target`; `None` outside cargo.
pub(crate) fn cargo_target_dir() -> Option<PathBuf> {
    std::env::var_os("CARGO_TARGET_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(cargo_target_of_this_executable)
        .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR").map(|d| PathBuf::from(d).join("target")))
}

/// The target directory cargo built this executable in: the nearest ancestor with the
/// `CACHEDIR.TAG` cargo writes there.
fn cargo_target_of_this_executable() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    exe.ancestors()
        .skip(1)
        .find(|dir| dir.join("CACHEDIR.TAG").is_file())
        .map(PathBuf::from)
}

/// Removes the artefacts an earlier run of this test left, once per test and process: a
/// test that passes now leaves none behind. Called when a test starts a session.
pub(crate) fn clear_stale() {
    static CLEARED: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
    if std::thread::current().name().is_none_or(|n| n == "main") {
        return;
    }
    let Some(dir) = folder() else { return };
    let mut cleared = CLEARED.lock().unwrap_or_else(|p| p.into_inner());
    if !cleared.contains(&dir) {
        let _ = std::fs::remove_dir_all(&dir);
        cleared.push(dir);
    }
}

/// What a session adds to a failure's artefacts: the keys it sent (`keys.txt`), its
/// output and input as a recording (`recording.cast`), and for the report each input's
/// time and keys and how long the session has run.
pub(crate) struct SessionFiles {
    pub(crate) keys: String,
    pub(crate) cast: String,
    pub(crate) inputs: Vec<(f64, String)>,
    /// The test's waits that held, for the report's steps.
    pub(crate) waits: Vec<WaitRecord>,
    pub(crate) uptime: f64,
}

/// A wait a test made that held: when its baseline was taken and it began and ended
/// (seconds since the session started), what it waited for and why it ended.
#[derive(Clone, Debug)]
pub(crate) struct WaitRecord {
    pub(crate) since: f64,
    pub(crate) began: f64,
    pub(crate) ended: f64,
    pub(crate) label: String,
    pub(crate) why: String,
}

/// A failed test's steps before the failure: each input, and each wait that held — a wait
/// whose baseline was taken before inputs (`send_keys_and_wait`, `wait_start` then sends)
/// as one step with them, `send Enter, wait text /x/`, taking until the wait ended and
/// saying why it did.
#[cfg(feature = "render")]
fn steps_of(files: &SessionFiles) -> Vec<crate::report::Step> {
    use crate::report::{Step, seconds_to_ms as ms};
    let mut inputs: Vec<Option<&(f64, String)>> = files.inputs.iter().map(Some).collect();
    let mut steps: Vec<(f64, Step)> = Vec::new();
    for wait in &files.waits {
        let joined: Vec<usize> = (0..inputs.len())
            .filter(|&i| inputs[i].is_some_and(|(at, _)| *at >= wait.since && *at <= wait.began))
            .collect();
        let first = joined.first().and_then(|&i| inputs[i]).map(|(at, _)| *at);
        let keys: Vec<String> = joined
            .iter()
            .filter_map(|&i| inputs[i].take())
            .map(|(_, k)| k.clone())
            .collect();
        let (label, at) = match first {
            Some(at) => (format!("send {}, {}", keys.join(" "), wait.label), at),
            None => (wait.label.clone(), wait.began),
        };
        let mut step = Step::new(label, ms(at), ms(wait.ended).saturating_sub(ms(at)));
        step.waited = Some(wait.why.clone());
        steps.push((at, step));
    }
    steps.extend(
        inputs
            .into_iter()
            .flatten()
            .map(|(at, keys)| (*at, Step::new(format!("send {keys}"), ms(*at), 0))),
    );
    steps.sort_by(|a, b| a.0.total_cmp(&b.0));
    steps.into_iter().map(|(_, step)| step).collect()
}

/// Writes the artefacts of a failed wait or assertion; returns the folder, or `None` when
/// there is nowhere to write or writing failed (a report without artefacts beats no
/// report).
pub(crate) fn write(
    screen: &Snapshot,
    condition: &str,
    elapsed_ms: u128,
    timeout_ms: u128,
    session: Option<&SessionFiles>,
) -> Option<PathBuf> {
    let dir = folder()?;
    let extra = json!({
        "condition": condition,
        "elapsed_ms": elapsed_ms,
        "timeout_ms": timeout_ms,
    });
    write_screen(&dir, screen, extra).ok()?;
    if let Some(files) = session {
        let folder = Folder::make(&dir, Access::Private).ok()?;
        folder
            .write("keys.txt".as_ref(), files.keys.as_bytes(), Access::Private)
            .ok()?;
        folder
            .write("recording.cast".as_ref(), files.cast.as_bytes(), Access::Private)
            .ok()?;
    }
    Some(dir)
}

/// Adds the failed test's report to its artefacts in `dir` (`report.html`, `report.md`,
/// `report.json`, see [`crate::report`]): the keys the test sent as steps, the failed
/// check as the last, the session's recording as the screens, `error` explained. A
/// report that cannot be written leaves the other artefacts as they are.
#[cfg(feature = "render")]
pub(crate) fn write_report(
    dir: &std::path::Path,
    error: &crate::Error,
    screen: &Snapshot,
    session: Option<&SessionFiles>,
) {
    use crate::report::{Attachment, Explanation, RunReport, Step, Verdict};
    let test = std::thread::current().name().unwrap_or("main").to_string();
    let (cols, rows) = screen.size();
    let mut report = RunReport::new("test", test, cols, rows);
    report.verdict = Verdict::Failed;
    let ms = crate::report::seconds_to_ms;
    if let Some(files) = session {
        report.steps = steps_of(files);
        report.duration_ms = ms(files.uptime);
        match crate::record::Recording::read(files.cast.as_bytes(), "the session's recording") {
            Ok(recording) => {
                report.cols = recording.header.cols;
                report.rows = recording.header.rows;
                report.recording = Some(crate::record::Replayable::Held(recording));
            }
            Err(e) => report
                .notes
                .push(format!("the recording cannot be replayed: {e}")),
        }
    }
    let mut explanation = Explanation::of_error(error);
    let (label, took, caller) = match (error.wait_error(), error) {
        (Some(wait), _) => (
            format!("wait for {}", wait.condition),
            ms(wait.elapsed.as_secs_f64()),
            wait.caller,
        ),
        (None, crate::Error::Assertion(assertion)) => (
            format!("assert {}", assertion.expected),
            assertion
                .retried
                .map_or(0, |(elapsed, _)| ms(elapsed.as_secs_f64())),
            Some(assertion.caller),
        ),
        _ => ("the check".to_string(), 0, None),
    };
    let mut failed = Step::new(label, report.duration_ms.saturating_sub(took), took);
    if let Some(caller) = caller {
        failed.source = Some(format!("{}:{}", caller.file(), caller.line()));
    }
    failed.error = Some(explanation.message.clone());
    report.steps.push(failed);
    explanation.step = Some(report.steps.len() - 1);
    explanation.screen = Some(screen.text());
    report.failure = Some(explanation);
    report.last_screen = Some(screen.clone());
    report.attachments = Attachment::present_in(
        dir,
        &[
            ("screen.png", "the screen (PNG)"),
            ("screen.txt", "the screen (text)"),
            ("screen.ansi", "the screen with colours (for cat)"),
            ("state.json", "the terminal's state"),
            ("keys.txt", "the keys sent"),
            ("recording.cast", "the recording"),
        ],
    );
    let _ = report.write(dir);
}

/// Writes `screen.txt`, `screen.ansi`, `screen.png` (with the `render` feature) and
/// `state.json` (the screen's size, cursor, title, modes and exit, plus the fields of
/// `extra`) into `dir`, creating it.
pub(crate) fn write_screen(
    dir: &std::path::Path,
    screen: &Snapshot,
    extra: serde_json::Value,
) -> crate::Result<()> {
    let folder = Folder::make(dir, Access::Private)?;
    let (cols, rows) = screen.size();
    let cursor = screen.cursor();
    let mut state = json!({
        "cols": cols,
        "rows": rows,
        "cursor": {"row": cursor.row, "col": cursor.col, "visible": cursor.visible},
        "title": screen.title(),
        "alternate_screen": screen.alternate_screen(),
        "application_cursor": screen.application_cursor(),
        "bracketed_paste": screen.bracketed_paste(),
        "mouse_reporting": screen.mouse_reporting(),
        "exit": screen.exit_status().map(|s| s.to_string()),
    });
    if let (Some(state), serde_json::Value::Object(extra)) = (state.as_object_mut(), extra) {
        state.extend(extra);
    }
    let private = Access::Private;
    folder.write("screen.txt".as_ref(), (screen.text() + "\n").as_bytes(), private)?;
    folder.write("screen.ansi".as_ref(), (screen.ansi() + "\n").as_bytes(), private)?;
    folder.write("state.json".as_ref(), format!("{state:#}\n").as_bytes(), private)?;
    #[cfg(feature = "render")]
    {
        let options = crate::render::RenderOptions::default();
        if let Ok(png) = screen
            .render(&options)
            .and_then(|image| image.to_png(options.compression))
        {
            folder.write("screen.png".as_ref(), &png, private)?;
        }
    }
    Ok(())
}
