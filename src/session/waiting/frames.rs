//! Whole frames, the waiting: a wait on the screen that matched returns once the program
//! has finished drawing the frame it matched on (the rule and its limits:
//! [`crate::wait::FRAME_QUIET`], [`crate::wait::FRAME_LIMIT`]).

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
/// preempted under load, or pausing on a short timer, is not done); at most until `until`. Returns the state locked again.
pub(super) fn until_frame_complete<'a>(
    shared: &'a Shared,
    mut state: MutexGuard<'a, State>,
    until: Instant,
    cancelled: Option<&AtomicBool>,
) -> MutexGuard<'a, State> {
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
                    return state;
                }
                Some(_) => {}
                None => ready_since = Some((seen, output)),
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
