//! The snapshot helpers the Python package's `assert_snapshot` and `assert_png` call:
//! the screen's text masked (or styled), the screen drawn as a PNG, each compared with
//! its golden under the tape snapshots' rules (the same code decides).

use std::path::PathBuf;

use pyo3::prelude::*;

use crate::PySession;
use crate::errors::raise;

/// Text snapshots for `tuipilot.assert_snapshot`: compares `text` with the file `golden`
/// under the tape snapshots' rules (a missing one is written, a changed one fails and
/// leaves `NAME.snap.new`; `update` accepts; on CI nothing is written unless
/// `TUIPILOT_UPDATE=force`). Returns a note when a file was written, `None` when it
/// matched; raises `MismatchError` with the line diff otherwise.
#[pyfunction]
#[pyo3(signature = (text, golden, update=false, hint="--tuipilot-update"))]
pub(crate) fn compare_snapshot(
    py: Python<'_>,
    text: &str,
    golden: PathBuf,
    update: bool,
    hint: &str,
) -> PyResult<Option<String>> {
    let mut policy = tuipilot::tape::snapshots::SnapshotPolicy::from_env(update);
    policy.update_hint = hint.to_string();
    py.detach(|| tuipilot::tape::snapshots::compare_text(text, &golden, &policy))
        .map_err(|report| raise(py, tuipilot::Error::ImageMismatch { report }))
}

/// The session's screen text with every match of each regex in `patterns` replaced by one
/// placeholder whatever its length, as the engine masks a text golden
/// (`Snapshot::masked_text`); with `styled`, the text and every cell's style under it
/// (`Snapshot::styled`, masked cells keeping their length), as `Snapshot+Styled` compares.
#[pyfunction]
#[pyo3(signature = (session, patterns, styled=false))]
pub(crate) fn mask(
    py: Python<'_>,
    session: &Bound<'_, PySession>,
    patterns: Vec<String>,
    styled: bool,
) -> PyResult<String> {
    let patterns: Vec<&str> = patterns.iter().map(String::as_str).collect();
    let snapshot = session.get().inner.snapshot();
    match styled {
        true => snapshot.masked_all(&patterns).map(|s| s.styled()),
        false => snapshot.masked_text(&patterns),
    }
    .map_err(|e| raise(py, e))
}

/// Image goldens for `tuipilot.assert_png`: the session's screen drawn as a PNG (`masks`
/// painted flat, as the engine masks an image), compared with the file `golden` under the
/// tape snapshots' rules (written when missing, `NAME.actual.png` and `NAME.diff.png`
/// left beside a changed one, `update` accepts, nothing written on CI unless
/// `TUIPILOT_UPDATE=force`). Returns a note when a file was written, `None` when it
/// matched; raises `MismatchError` otherwise.
#[pyfunction]
#[pyo3(signature = (session, golden, masks, update=false, hint="--tuipilot-update"))]
pub(crate) fn compare_png(
    py: Python<'_>,
    session: &Bound<'_, PySession>,
    golden: PathBuf,
    masks: Vec<String>,
    update: bool,
    hint: &str,
) -> PyResult<Option<String>> {
    let patterns: Vec<&str> = masks.iter().map(String::as_str).collect();
    let snapshot = session.get().inner.snapshot();
    let png = py
        .detach(|| {
            snapshot
                .masked_all(&patterns)?
                .to_png(&tuipilot::render::RenderOptions::default())
        })
        .map_err(|e| raise(py, e))?;
    let mut policy = tuipilot::tape::snapshots::SnapshotPolicy::from_env(update);
    policy.update_hint = hint.to_string();
    py.detach(|| policy.compare_png(&png, &golden))
        .map_err(|report| raise(py, tuipilot::Error::ImageMismatch { report }))
}
