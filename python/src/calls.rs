//! How a call into the engine runs from Python: with the interpreter's lock released, and
//! Ctrl-C honoured while it waits.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// How often a call that waits checks for signals (Ctrl-C) while the engine works.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// Runs `work` on a thread of its own with the interpreter's lock released, while this
/// one checks for signals every [`SIGNAL_CHECK`]: Ctrl-C cancels `cancel` (which `work`
/// must heed), waits for `work` to stop and raises `KeyboardInterrupt`.
pub(crate) fn interruptible<T: Send>(
    py: Python<'_>,
    cancel: &tuipilot::Cancel,
    work: impl FnOnce() -> tuipilot::Result<T> + Send,
) -> PyResult<tuipilot::Result<T>> {
    let (done, mut answer) = mpsc::channel();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let _ = done.send(work());
        });
        loop {
            let (got, back) = py.detach(move || (answer.recv_timeout(SIGNAL_CHECK), answer));
            answer = back;
            match got {
                Ok(result) => return Ok(result),
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(interrupt) = py.check_signals() {
                        cancel.cancel();
                        let _ = py.detach(move || answer.recv());
                        return Err(interrupt);
                    }
                }
                // Only a panic in the engine drops the sender; the scope re-raises it.
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(PyRuntimeError::new_err(
                        "the engine's thread ended without an answer: report this as a bug",
                    ));
                }
            }
        }
    })
}
