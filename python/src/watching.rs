//! A Python session watched by a person: `Session.attachable(name)` opens a watch point
//! (the engine's [`tuipilot::live::point`]), and `Session.keep(name, seconds)` keeps a
//! failed test's session for a person to attach to ([`tuipilot::live::keep`]), as
//! `--tuipilot-keep` asks.

use std::sync::Arc;
use std::time::Duration;

use pyo3::prelude::*;
use tuipilot::live::keep::{KeptUntil, MAX_KEEP};
use tuipilot::live::point::WatchPoint;

use crate::PySession;
use crate::arguments::seconds;
use crate::errors::{bad_input, raise};

/// Opens the session's watch point under `name`, closing any earlier one first (the name
/// it held is free again).
pub(crate) fn open(py: Python<'_>, session: &PySession, name: &str) -> PyResult<()> {
    close(session);
    let point = WatchPoint::open(name, session.inner.clone(), "a Python test").map_err(|e| raise(py, e))?;
    *session.watch_point.lock().unwrap_or_else(|p| p.into_inner()) = Some(point);
    Ok(())
}

/// Closes the session's watch point, if it has one: its watchers are told it ended.
pub(crate) fn close(session: &PySession) {
    let point = session
        .watch_point
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take();
    drop(point);
}

/// Keeps the session for a person as `name` for up to `for_seconds` with nobody attached;
/// Ctrl-C stops the keeping (and raises `KeyboardInterrupt`).
pub(crate) fn keep(
    py: Python<'_>,
    session: &PySession,
    name: &str,
    for_seconds: f64,
) -> PyResult<&'static str> {
    let bound: Duration = seconds(py, "seconds", for_seconds)?;
    if bound.is_zero() || bound > MAX_KEEP {
        return Err(bad_input(
            py,
            format!(
                "keep: seconds={for_seconds} is out of range: keep a session from 1 s to {} s",
                MAX_KEEP.as_secs()
            ),
        ));
    }
    // The name it may hold already is the one a person is told to attach to.
    close(session);
    let cancel = session.inner.canceller();
    let inner = Arc::clone(&session.inner);
    let kept = crate::calls::interruptible(py, &cancel, || {
        tuipilot::live::keep::keep(&*inner, name, bound, &|| cancel.is_cancelled(), &|line| {
            eprintln!("{line}")
        })
    })?
    .map_err(|e| raise(py, e))?;
    Ok(match kept {
        KeptUntil::WatcherLeft => "watcher left",
        KeptUntil::ProgramExited => "program exited",
        KeptUntil::NobodyCame => "nobody came",
        KeptUntil::Cancelled => "interrupted",
        KeptUntil::NotInCi => "not kept in CI",
    })
}

/// How long `value` (of `--tuipilot-keep` or `TUIPILOT_KEEP`: `1`, `90s`, `15m`, `0`)
/// asks to keep a failed test's session, in seconds; `None` when off.
#[pyfunction]
pub(crate) fn keep_seconds(py: Python<'_>, value: &str) -> PyResult<Option<f64>> {
    tuipilot::live::keep::parse_keep(value)
        .map(|kept| kept.map(|d| d.as_secs_f64()))
        .map_err(|e| raise(py, e))
}

/// The session name a kept session of test `test` (its node id) gets: free in the
/// runtime directory.
#[pyfunction]
pub(crate) fn keep_name(test: &str) -> String {
    tuipilot::live::keep::free_name_for_test(Some(test))
}
