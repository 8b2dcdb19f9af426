//! The engine's errors as `tuipilot.errors`' exceptions: one class per error kind, the
//! library's report as the message.

use pyo3::prelude::*;
use tuipilot::ErrorKind;

/// A tuipilot error as the exception of `tuipilot.errors` for its kind, with `kind` and,
/// for a failed wait, `screen` (the screen's text when it ended) set on it.
pub(crate) fn raise(py: Python<'_>, error: tuipilot::Error) -> PyErr {
    let message = error.to_string();
    exception(py, &error, message)
}

/// The class of `tuipilot.errors` for an error kind.
fn class_of(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::BadInput => "InvalidInput",
        ErrorKind::Spawn => "SpawnError",
        ErrorKind::Timeout => "TimeoutError",
        ErrorKind::Exited | ErrorKind::ExitedWhileWaiting => "ExitedError",
        ErrorKind::Mismatch => "MismatchError",
        ErrorKind::Unsupported => "UnsupportedError",
        ErrorKind::Cancelled | ErrorKind::Internal => "Error",
    }
}

/// The exception of `tuipilot.errors` for `error`'s kind, with `message`.
fn exception(py: Python<'_>, error: &tuipilot::Error, message: String) -> PyErr {
    let class = class_of(error.kind());
    let made = || -> PyResult<PyErr> {
        let errors = py.import("tuipilot.errors")?;
        let exception = errors.getattr(class)?.call1((message,))?;
        exception.setattr("kind", format!("{:?}", error.kind()))?;
        let screen = error.wait_error().map(|report| report.screen.text());
        exception.setattr("screen", screen)?;
        Ok(PyErr::from_value(exception))
    };
    made().unwrap_or_else(|e| e)
}

/// [`raise`] for an error of an assertion asked for at `source` (the Python caller's
/// `file:line`): a failed locator assertion names that line, not the engine's.
pub(crate) fn raise_at(py: Python<'_>, error: tuipilot::Error, source: Option<&str>) -> PyErr {
    let (tuipilot::Error::Assertion(failure), Some(source)) = (&error, source) else {
        return raise(py, error);
    };
    let engine = format!("{}:{}: ", failure.caller.file(), failure.caller.line());
    let message = error.to_string();
    let message = match message.strip_prefix(&engine) {
        Some(rest) => format!("{source}: {rest}"),
        None => message,
    };
    exception(py, &error, message)
}

/// A bad argument, as `tuipilot.InvalidInput` (a `ValueError`) like the engine's own.
pub(crate) fn bad_input(py: Python<'_>, message: String) -> PyErr {
    raise(py, tuipilot::Error::InvalidArgument { message })
}
