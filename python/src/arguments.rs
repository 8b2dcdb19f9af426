//! Python's arguments as the vocabulary takes them: seconds as durations, one string or
//! a list, a command as words, the caller's `file:line`; and an exit as `subprocess`
//! reports it.

use std::time::Duration;

use pyo3::prelude::*;
use tuipilot::ExitStatus;

use crate::errors::{bad_input, raise};

/// Seconds from Python as a duration: refused when negative or not a number.
pub(crate) fn seconds(py: Python<'_>, what: &str, value: f64) -> PyResult<Duration> {
    Duration::try_from_secs_f64(value).map_err(|_| {
        bad_input(
            py,
            format!("{what}={value} is not a duration: give seconds, 0 or more"),
        )
    })
}

/// An optional timeout in seconds as the operations' milliseconds.
pub(crate) fn timeout_ms(py: Python<'_>, timeout: Option<f64>) -> PyResult<Option<u64>> {
    millis(py, "timeout", timeout)
}

/// An optional duration in seconds, the argument `what`, as the operations' milliseconds.
pub(crate) fn millis(py: Python<'_>, what: &str, value: Option<f64>) -> PyResult<Option<u64>> {
    value
        .map(|t| seconds(py, what, t).map(|d| d.as_millis().min(u128::from(u64::MAX)) as u64))
        .transpose()
}

/// Python's `(start, stop)` (stop exclusive, as in `range`) as the vocabulary's first
/// and last; refused when it holds nothing.
pub(crate) fn first_last(
    py: Python<'_>,
    what: &str,
    span: Option<(u16, u16)>,
) -> PyResult<Option<(u16, u16)>> {
    match span {
        None => Ok(None),
        Some((start, stop)) if start < stop => Ok(Some((start, stop - 1))),
        Some((start, stop)) => Err(bad_input(
            py,
            format!(
                "{what}=({start}, {stop}) holds nothing: give (start, stop) with start < stop (stop is exclusive, as in range)"
            ),
        )),
    }
}

/// How a program ended, as Python's `subprocess` says it: the exit code, or minus the
/// signal's number.
pub(crate) fn returncode(status: ExitStatus) -> i32 {
    match status {
        ExitStatus::Exited(code) => code,
        ExitStatus::Signaled(signal) => -signal,
    }
}

/// Where the Python code that called in stands (`test_app.py:12`): the innermost Python
/// frame (a native method makes none of its own), for the report's steps.
pub(crate) fn caller(py: Python<'_>) -> Option<String> {
    let frame = py.import("sys").ok()?.call_method1("_getframe", (0,)).ok()?;
    let file: String = frame
        .getattr("f_code")
        .ok()?
        .getattr("co_filename")
        .ok()?
        .extract()
        .ok()?;
    let line: u32 = frame.getattr("f_lineno").ok()?.extract().ok()?;
    Some(format!("{file}:{line}"))
}

/// A string, or a list of strings: what `keys=` and `mouse=` take.
pub(crate) fn one_or_list(value: &Bound<'_, PyAny>) -> Option<Vec<String>> {
    match value.extract::<String>() {
        Ok(one) => Some(vec![one]),
        Err(_) => value.extract().ok(),
    }
}

/// The program and its arguments: a list of words, or one string split as every face
/// splits a command ([`tuipilot::operation::split_command`]: quotes group, no expansion),
/// so `Session("python3 -q")` runs `python3` with `-q`.
pub(crate) fn command_words(py: Python<'_>, argv: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if let Ok(line) = argv.extract::<String>() {
        return tuipilot::operation::split_command(&line).map_err(|e| raise(py, e));
    }
    argv.extract::<Vec<String>>().map_err(|_| {
        bad_input(
            py,
            "argv takes the command as a list of words ([\"python3\", \"-q\"]) or one string (\"python3 -q\")".into(),
        )
    })
}
