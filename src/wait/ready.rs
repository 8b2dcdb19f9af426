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

/// The longest timer a readiness wait waits out after input, by default. A program that
/// has read a key may draw its reaction only when a timer it armed fires: htop applies a
/// sort at its next refresh (within its 1.5 s delay), emacs echoes a prefix key after 1 s,
/// readline and prompt_toolkit tell Esc from Alt after 0.5 s, vim after 100 ms, fzf
/// redraws 45 ms after a key. A timer due later than this (vim's 4 s `updatetime`, top's
/// 3 s refresh) is not waited for: the reply says it is pending instead. Set per session
/// (`SessionBuilder::reaction_bound`, `start --reaction-bound`, `Set ReactionBound`).
pub const REACTION_BOUND: Duration = Duration::from_millis(2000);

/// A duration as a reply says it: `100 ms`, `1.5 s`.
pub(crate) fn spoken(duration: Duration) -> String {
    let ms = duration.as_millis();
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        let tenths = (ms + 50) / 100;
        match tenths % 10 {
            0 => format!("{} s", tenths / 10),
            t => format!("{}.{t} s", tenths / 10),
        }
    }
}

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
