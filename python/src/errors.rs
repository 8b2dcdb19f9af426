//! The engine's errors as `tuipilot.errors`' exceptions: one class per error kind, the
//! library's report as the message.

use pyo3::prelude::*;
use tuipilot::ErrorKind;

/// A tuipilot error as the exception of `tuipilot.errors` for its kind, with `kind` and,
/// for a failed wait, `screen` (the screen's text when it ended) set on it.
pub(crate) fn raise(py: Python<'_>, error: tuipilot::Error) -> PyErr {
    let class = match error.kind() {
        ErrorKind::BadInput => "InvalidInput",
        ErrorKind::Spawn => "SpawnError",
        ErrorKind::Timeout => "TimeoutError",
        ErrorKind::Exited | ErrorKind::ExitedWhileWaiting => "ExitedError",
        ErrorKind::Mismatch => "MismatchError",
        ErrorKind::Unsupported => "UnsupportedError",
        ErrorKind::Cancelled | ErrorKind::Internal => "Error",
    };
    let made = || -> PyResult<PyErr> {
        let errors = py.import("tuipilot.errors")?;
        let exception = errors.getattr(class)?.call1((error.to_string(),))?;
        exception.setattr("kind", format!("{:?}", error.kind()))?;
        let screen = error.wait_error().map(|report| report.screen.text());
        exception.setattr("screen", screen)?;
        Ok(PyErr::from_value(exception))
    };
    made().unwrap_or_else(|e| e)
}

/// A bad argument, as `tuipilot.InvalidInput` (a `ValueError`) like the engine's own.
pub(crate) fn bad_input(py: Python<'_>, message: String) -> PyErr {
    raise(py, tuipilot::Error::InvalidArgument { message })
}
