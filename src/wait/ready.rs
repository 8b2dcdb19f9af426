//! What the readiness wait ([`Condition::Ready`](super::Condition::Ready),
//! [`Condition::Prompt`](super::Condition::Prompt)) promises where the kernel cannot
//! tell, and how its report says what was still true when it ended. The wait itself is
//! the session's (`session::waiting::ready`).

use std::time::Duration;

/// What a readiness wait holds on where the kernel cannot tell: the screen quiet this long.
pub const READY_FALLBACK_QUIET: Duration = Duration::from_millis(300);

/// The longest input written after a lone Esc waits for the program to take the Esc:
/// ncurses' default `ESCDELAY` (1 s) and a little more. Programs read bytes that arrive
/// within their escape timeout as one key (`Esc` then `x` is Alt+`x`).
pub const ESCAPE_SETTLE: Duration = Duration::from_millis(1100);

/// How a failed readiness wait's report names what was still true when it ended.
pub(crate) const STILL_TRUE: &str = "when the wait ended: ";

/// What a failed readiness wait's report (its text, as every face prints it) says was
/// still true when the wait ended: `busy: sleep (pid 88) sleeping on a timer
/// (clock_nanosleep)`.
pub fn still_true(report: &str) -> Option<&str> {
    report
        .lines()
        .find_map(|l| l.split_once(STILL_TRUE))
        .map(|(_, why)| why)
}
