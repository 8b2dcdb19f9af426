//! Whole frames, the waiting: a wait on the screen that matched returns once the program
//! has finished drawing the frame it matched on (the rule and its limits:
//! [`crate::wait::FRAME_QUIET`], [`crate::wait::FRAME_LIMIT`]).
//!
//! Only where a frame exists: output that is a stream of lines (plain text and colours,
//! no cursor addressing, on the main screen — `yes`, a build's log, a line printed before
//! a sleep) has no frame to finish, and a match on it is whole at once; so is a screen
//! whose program is asleep where nothing but its own timers, none due soon, can wake it.

use std::sync::MutexGuard;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::super::{Shared, State};
use super::ready::{READY_CONFIRM, READY_POLL, readiness};
use crate::wait::FRAME_QUIET;

/// Waits, the lock released, until the frame being drawn is complete: no output in
/// flight and the program ready for input (as the kernel sees it, twice
/// [`READY_CONFIRM`](READY_CONFIRM) apart with no output between), or no output for
/// [`FRAME_QUIET`] while no thread of it runs or is due to wake within that time (a writer
/// preempted under load, or pausing on a short timer, is not done); at most until `until`.
/// A screen already proved whole with no output since ([`State::frame_whole_at`]) is
/// whole at once. Returns the state locked again.
pub(super) fn until_frame_complete<'a>(
    shared: &'a Shared,
    mut state: MutexGuard<'a, State>,
    until: Instant,
    cancelled: Option<&AtomicBool>,
) -> MutexGuard<'a, State> {
    if streaming(&state) || state.frame_whole_at == Some(state.log.total()) {
        return state;
    }
    let mut output = state.log.total();
    let mut quiet_since = Instant::now();
    // When ready was first seen with this much output: it must be seen again
    // `READY_CONFIRM` later with no output between. A write the program made just before
    // it went to read can still be on its way through the kernel's PTY buffers, in no
    // queue a probe can see.
    let mut ready_since: Option<(Instant, u64)> = None;
    loop {
        let now = Instant::now();
        if now >= until || cancelled.is_some_and(|c| c.load(Ordering::SeqCst)) || state.exit.is_some() {
            return state;
        }
        if state.log.total() != output {
            output = state.log.total();
            quiet_since = now;
            ready_since = None;
        }
        if now.duration_since(quiet_since) >= FRAME_QUIET {
            return state;
        }
        if !state.terminal.synchronized() {
            drop(state);
            let now = readiness(shared);
            state = shared.lock();
            let seen = Instant::now();
            match ready_since {
                _ if !now.is_ready() || state.log.total() != output => ready_since = None,
                Some((first, at)) if at == output && seen.duration_since(first) >= READY_CONFIRM => {
                    state.frame_whole_at = Some(output);
                    return state;
                }
                Some(_) => {}
                None => ready_since = Some((seen, output)),
            }
            // Drained, and no thread can write before a timer not due soon: whole now.
            if now.idle_for(FRAME_QUIET) && state.log.total() == output {
                state.frame_whole_at = Some(output);
                return state;
            }
            // A writer preempted mid-frame is quiet but not done; so is one that pauses
            // on a short timer between the pieces of a frame.
            if now.is_working() || now.wakes_within(FRAME_QUIET) {
                quiet_since = seen;
            }
        }
        let poll = match ready_since {
            Some((first, _)) => (first + READY_CONFIRM).max(now + Duration::from_micros(200)),
            None => now + READY_POLL,
        };
        let wake = until.min(quiet_since + FRAME_QUIET).min(poll);
        state = shared.sleep(state, wake.saturating_duration_since(now));
    }
}

/// How much of the latest output tells whether it is a stream of lines.
const STREAM_TAIL: u64 = 4096;

/// Whether the latest output is a stream of lines rather than a frame: on the main screen,
/// outside a synchronized update, the last [`STREAM_TAIL`] bytes hold a line feed and no
/// escape sequence but colours and attributes (SGR).
fn streaming(state: &State) -> bool {
    if state.terminal.alternate_screen() || state.terminal.synchronized() {
        return false;
    }
    let total = state.log.total();
    let (_, tail) = state.log.since(total.saturating_sub(STREAM_TAIL));
    plain_lines(&tail)
}

/// Whether `bytes` (which may begin inside a line) are lines of text: a line feed, and
/// after the first one no escape sequence but SGR (`ESC [ … m`).
pub(super) fn plain_lines(bytes: &[u8]) -> bool {
    let Some(first) = bytes.iter().position(|b| *b == b'\n') else {
        return false;
    };
    let mut rest = bytes[first + 1..].iter().copied().peekable();
    while let Some(byte) = rest.next() {
        if byte != 0x1b {
            continue;
        }
        if rest.next() != Some(b'[') {
            return false;
        }
        // Parameters and intermediates, then the final byte.
        let fin = loop {
            match rest.next() {
                Some(0x20..=0x3f) => {}
                other => break other,
            }
        };
        match fin {
            Some(b'm') => {}
            // Cut off at the end of what arrived: not a sequence that moves anything yet.
            None => return true,
            Some(_) => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::plain_lines;

    #[test]
    fn lines_with_colours_are_a_stream_and_cursor_addressing_is_a_frame() {
        assert!(plain_lines(b"y\ny\ny\n"));
        assert!(plain_lines(b"\x1b[2J partial\n\x1b[1;31merror\x1b[0m: x\nmore\n"));
        assert!(!plain_lines(b"no line feed"));
        assert!(!plain_lines(b"a\n\x1b[5;1Hdrawn"));
        assert!(!plain_lines(b"a\n\x1b]133;A\x07$ "));
        assert!(!plain_lines(b"a\n\x1b[?1049h"));
    }
}
