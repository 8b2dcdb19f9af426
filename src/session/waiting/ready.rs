//! The readiness wait ([`Condition::Ready`], [`Condition::Prompt`]): the kernel's answer
//! (see [`readiness`](crate::readiness)) asked again and again, confirmed, and combined
//! with what only the session knows — output read but not yet on the screen, a shell's
//! prompt marks. Where the kernel cannot tell, the wait becomes a quiet-screen wait.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::super::Shared;
use super::failure::{Attempt, failure};
use super::reaction::{Chain, PollingLoop, Resting, Sightings, Step};

/// The most threads a session remembers as reading no input.
const NO_READERS_KEPT: usize = 64;

/// How many answers in a row that the kernel could not tell make a wait fall back to a
/// quiet screen.
const UNKNOWN_ANSWERS: u32 = 3;
use super::{Baseline, NEVER, OutputScan, Satisfied, wait_until};
use crate::error::{Error, Result};
use crate::process::ExitStatus;
use crate::readiness::Readiness;
use crate::wait::{Condition, ESCAPE_SETTLE, READY_FALLBACK_QUIET, STILL_TRUE, spoken};

/// How often a readiness wait asks the kernel while the program is busy (at the most:
/// see [`PROBE_SHARE`]).
pub(super) const READY_POLL: Duration = Duration::from_millis(2);
/// A busy program is asked again no sooner than this many times the CPU time the last
/// question took: asking costs a file read or two per thread, and a program of thousands of threads
/// would otherwise keep a core busy for as long as the wait lasts. At 4 the probe takes at
/// most a fifth of a core; a program of a few threads (asked in well under 0.5 ms) is
/// still asked every [`READY_POLL`].
const PROBE_SHARE: u32 = 4;
/// How long after a first "ready" a readiness wait asks again to confirm it.
pub(super) const READY_CONFIRM: Duration = Duration::from_millis(3);
/// With no input to follow (its reaction already seen), a program waiting on the terminal
/// with a timer due within this on any of its threads (a debounced redraw, an event loop's
/// next tick) is confirmed only after the timer has fired, as it may draw then without new
/// input. Longer timers are a program at rest.
const SHORT_TIMER: Duration = Duration::from_millis(50);

/// The CPU time this thread has used (`CLOCK_THREAD_CPUTIME_ID`); zero where it cannot be
/// read, which paces the probe at [`READY_POLL`].
fn thread_cpu_time() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into a live local.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) } != 0 {
        return Duration::ZERO;
    }
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// Whether the session's program waits for input now: the kernel is asked, then output
/// not yet on the screen (read and not parsed, or in the reader's hands) keeps it busy.
pub(crate) fn readiness(shared: &Shared) -> Readiness {
    readiness_for(shared, false)
}

/// [`readiness`], asked to confirm a "ready" (`confirming`): the processes on the terminal
/// are then looked for afresh (see [`Probe::check_since`](crate::readiness::Probe::check_since)).
fn readiness_for(shared: &Shared, confirming: bool) -> Readiness {
    let traffic = shared.traffic();
    let (input_at, following) = {
        let state = shared.lock();
        (state.reaction.input_at, state.reaction.pending().is_some())
    };
    let answer = match shared.probe() {
        Some(probe) => probe.check_since(Some(input_at), following, confirming),
        None => Readiness::Unknown {
            why: "the session's terminal cannot be probed".into(),
        },
    };
    // Asked after the kernel: output the program wrote before it went to read is then
    // in the terminal (seen above), in the reader's hands, in flight, or on the screen;
    // input (a key, the answer to a query the program just asked) is in the terminal or
    // still queued for it. Bytes that moved while the kernel was asked may have slipped
    // between two of these places, so the answer is then not trusted.
    if shared.in_flight() > 0 || shared.reader_at_work() {
        return Readiness::busy_for("output not yet on the screen");
    }
    if shared.unwritten() > 0 {
        return Readiness::busy_for("input not yet written to the terminal");
    }
    if shared.traffic() != traffic {
        return Readiness::busy_for("output or input moved while the kernel was asked");
    }
    answer
}

/// [`Condition::Ready`]: asks the kernel every [`READY_POLL`] (and on every output), and
/// holds once "ready" is seen twice [`READY_CONFIRM`] apart with no output between, so a
/// program caught between reading its input and drawing its answer is not taken as done.
///
/// After input (or the start), ready is not yet done: a program may draw its reaction only
/// when a timer it armed fires (htop's refresh tick applies a sort, vim's escape timeout
/// ends insert mode, a debounced redraw). So at the first confirmed "ready" after the
/// input the soonest timer of the program's threads is noted and, due within the session's
/// reaction bound, waited out; then the next, until the program has none, one repeats
/// (a period: a clock, a spinner, htop's refresh — the wait holds about one period) or
/// one is due beyond the bound (see `reaction::Chain`). That one is not waited for: the
/// reason says it is pending, so a screen it may still change is never returned silently.
///
/// Where the kernel cannot tell, the rest of the wait is a quiet-screen wait.
pub(super) fn wait_ready(
    shared: &Shared,
    condition: &Condition,
    baseline: Baseline,
    timeout: Duration,
    cancelled: Option<&AtomicBool>,
    caller: Option<&'static std::panic::Location<'static>>,
) -> Result<Satisfied> {
    let start = Instant::now();
    let deadline = start + timeout.min(NEVER);
    // The wait's failure: the program exited, or the time is up; with what the kernel said
    // last, when it said something.
    let failed = |exited: Option<ExitStatus>, last: Option<&Readiness>| {
        let mut state = shared.lock();
        let attempt = Attempt {
            start,
            timeout,
            caller,
        };
        let scan = OutputScan::new(baseline.output_offset);
        let mut error = failure(&mut state, condition, &attempt, exited, &scan, false);
        if let (Some(last), Some(report)) = (last, error.wait_error_mut()) {
            report.notes.push(format!("{STILL_TRUE}{last}"));
        }
        error
    };
    let (reaction, bound) = {
        let mut state = shared.lock();
        // What the timer said pending last did, if it has fired since.
        let state = &mut *state;
        state.learnt.observe(&mut state.reaction, state.changed_at);
        (state.reaction.clone(), state.reaction_bound)
    };
    // The input whose reaction this wait follows, and the timer it waits out for it.
    let pending = reaction.pending();
    let mut chain: Option<Chain> = None;
    // The output generation at a first "ready", to be confirmed, and when it was seen.
    let mut confirming: Option<(u64, Instant)> = None;
    // How long the kernel took to answer last, and when it answered.
    let mut probe_took = Duration::ZERO;
    let mut last_asked: Option<Instant> = None;
    // "The kernel could not tell" answers in a row: one may be a process caught as it
    // changed (a thread ending mid-read); the quiet-screen fallback waits for a few.
    let mut unknown_streak = 0;
    let mut polling = PollingLoop::default();
    let mut resting = Resting::default();
    let mut sightings = Sightings::default();
    loop {
        let (generation, exited, no_prompt) = {
            let state = shared.lock();
            if let Some(fault) = state.terminal.fault() {
                return Err(fault);
            }
            if state.closed {
                return Err(Error::Closed {
                    action: "wait",
                    caller,
                });
            }
            // A shell that speaks OSC 133 must be at its prompt, not in a command.
            let signals = state.terminal.signals();
            let no_prompt =
                matches!(condition, Condition::Prompt) && signals.shell_integration && !signals.at_prompt();
            (state.generation, state.exit, no_prompt)
        };
        if cancelled.is_some_and(|c| c.load(Ordering::SeqCst)) {
            return Err(Error::Cancelled { action: "the wait" });
        }
        let now = if exited.is_some() {
            Readiness::busy_for("the program has exited")
        } else if no_prompt {
            Readiness::busy_for("the shell runs a command (no prompt mark since its last output mark)")
        } else {
            // A costly probe is paced whatever woke the wait (output wakes it too); the one
            // that confirms a "ready" only by its own length (a program of 3,000 threads
            // is answered in three probes, not six).
            let share = if confirming.is_some() { 1 } else { PROBE_SHARE };
            let spacing = probe_took * share;
            let since = last_asked.map_or(spacing, |at| at.elapsed());
            let paced = match spacing > READY_POLL {
                true => spacing.saturating_sub(since),
                false => Duration::ZERO,
            };
            // A "ready" is confirmed no sooner than READY_CONFIRM after it was seen, also
            // when the wait is woken earlier (output announced late, on the reader's beat,
            // rings after the first "ready" with nothing new).
            let confirm_in = confirming.map_or(Duration::ZERO, |(_, seen)| {
                READY_CONFIRM.saturating_sub(seen.elapsed())
            });
            let hold = paced.max(confirm_in);
            if !hold.is_zero() {
                let state = shared.lock();
                let wake = hold.min(deadline.saturating_duration_since(Instant::now()));
                drop(shared.sleep(state, wake));
                if Instant::now() < deadline {
                    continue;
                }
            }
            let asked = Instant::now();
            let cpu_before = thread_cpu_time();
            let answer = readiness_for(shared, confirming.is_some());
            // Paced by what the probe cost this thread, not by the wall time it took: a
            // probe the scheduler kept waiting (8–16 ms under load) cost no more than one
            // that ran at once, and must not space the next question out by 4×.
            probe_took = thread_cpu_time().saturating_sub(cpu_before);
            last_asked = Some(Instant::now());
            if let Readiness::Ready { timers, .. } | Readiness::Busy { timers, .. } = &answer {
                sightings.see(timers, asked);
            }
            answer
        };
        unknown_streak = match &now {
            Readiness::Unknown { .. } => unknown_streak + 1,
            _ => 0,
        };
        let pause = match &now {
            Readiness::Unknown { .. } if unknown_streak < UNKNOWN_ANSWERS => READY_POLL,
            Readiness::Unknown { why } => {
                let left = deadline.saturating_duration_since(Instant::now());
                let quiet = Condition::Stable(READY_FALLBACK_QUIET);
                let settled = match wait_until(shared, &quiet, baseline, left, cancelled, caller)? {
                    // Said: the screen was waited on, and why the kernel was not asked.
                    Satisfied::Screen(screen, said) => {
                        Satisfied::Screen(screen, format!("{said} (the kernel could not tell: {why})"))
                    }
                    exit => exit,
                };
                // A quiet screen holds once the program has exited; ready it is not.
                let exited = shared.lock().exit;
                return match exited {
                    Some(status) => Err(failed(Some(status), None)),
                    None => {
                        if let Some(input) = pending {
                            shared.lock().reaction.settle(input, &[], Vec::new());
                        }
                        Ok(settled)
                    }
                };
            }
            Readiness::Ready {
                wakes_in,
                program,
                timers,
                in_flight,
                unseen,
                hidden,
                ..
            } => match (confirming, pending) {
                // Confirmed, with no reaction to follow: done.
                (Some((seen, _)), None) if seen == generation => {
                    let mut state = shared.lock();
                    state
                        .reaction
                        .rest(timers, sightings.deadlines(timers, Instant::now()));
                    return Ok(Satisfied::Screen(state.snapshot(), now.to_string()));
                }
                // Confirmed after the input: follow the reaction's timers.
                (Some((seen, first)), Some(input)) if seen == generation => {
                    let chain = chain.get_or_insert_with(|| Chain::new(first, reaction.clone()));
                    let step = {
                        let mut state = shared.lock();
                        let changed_at = state.changed_at;
                        let work = super::reaction::Work {
                            program,
                            timers,
                            in_flight,
                            unseen,
                            hidden,
                            changed_at,
                        };
                        chain.next(&work, bound, &mut state.learnt, &sightings)
                    };
                    match step {
                        Step::Wait(until) => {
                            confirming = None;
                            until.saturating_duration_since(Instant::now()).max(READY_CONFIRM)
                        }
                        Step::Done(what, pending_timer) => {
                            let why = match what {
                                Some(what) => format!("{now}{what}"),
                                None => now.to_string(),
                            };
                            let mut state = shared.lock();
                            let due = sightings.deadlines(timers, Instant::now());
                            // A timer the start left pending is the program's rest as far
                            // as later keys go (vim's `updatetime`, top's refresh): the same
                            // timer re-armed by a key is not said again; one a key armed
                            // first (a debounce) is, after every key that re-arms it.
                            let pending_timer = pending_timer.filter(|_| input > 1);
                            state.reaction.settle_pending(input, timers, due, pending_timer);
                            return Ok(Satisfied::Screen(state.snapshot(), why));
                        }
                    }
                }
                _ => {
                    confirming = Some((generation, Instant::now()));
                    match (pending, wakes_in) {
                        (None, Some(due)) if *due <= SHORT_TIMER => *due + READY_CONFIRM,
                        _ => READY_CONFIRM,
                    }
                }
            },
            Readiness::Busy { .. } => {
                confirming = None;
                let output = shared.lock().log.total();
                if let Some(loop_seen) = polling.note(&now, output) {
                    let why = format!(
                        "{now}: waking every few ms without drawing for {}, a polling loop taken as waiting for input",
                        spoken(loop_seen)
                    );
                    let mut state = shared.lock();
                    if let Some(input) = pending {
                        state.reaction.settle(input, &[], Vec::new());
                    }
                    return Ok(Satisfied::Screen(state.snapshot(), why));
                }
                let drawn = || !shared.lock().snapshot().text().trim().is_empty();
                let unread_bytes = match &now {
                    Readiness::Busy { why, .. } if why.starts_with("input not yet read") => {
                        shared.probe().map_or(0, |probe| probe.unread_input())
                    }
                    _ => 0,
                };
                if let Some((why, reads_no_input)) =
                    resting.note(&now, output, &reaction, pending.is_some(), unread_bytes, drawn)
                {
                    let why = format!("{now}: {why}");
                    let mut state = shared.lock();
                    if let Readiness::Busy { timers, why, .. } = &now {
                        if reads_no_input {
                            let no_readers = &mut state.reaction.no_readers;
                            no_readers.extend(timers.iter().map(|t| (t.pid, t.tid)));
                            no_readers.sort_unstable();
                            no_readers.dedup();
                            let over = no_readers.len().saturating_sub(NO_READERS_KEPT);
                            no_readers.drain(..over);
                        }
                        state.reaction.sent_since_unread = 0;
                        state.reaction.unread_sleepers = if why.starts_with("input not yet read") {
                            timers
                                .iter()
                                .filter_map(|t| Some((t.pid, t.tid, t.runs?)))
                                .collect()
                        } else {
                            Vec::new()
                        };
                    }
                    if let (Some(input), Readiness::Busy { timers, .. }) = (pending, &now) {
                        state
                            .reaction
                            .settle(input, timers, sightings.deadlines(timers, Instant::now()));
                        state.reaction.sleepers = timers.iter().map(|t| (t.pid, t.tid)).collect();
                    }
                    return Ok(Satisfied::Screen(state.snapshot(), why));
                }
                READY_POLL.max(probe_took * PROBE_SHARE)
            }
        };
        let late = Instant::now() >= deadline;
        if exited.is_some() || late {
            return Err(failed(exited, Some(&now)));
        }
        let state = shared.lock();
        let wake = pause.min(deadline.saturating_duration_since(Instant::now()));
        drop(shared.sleep(state, wake));
    }
}

/// Waits until the program has taken the lone Esc written at `sent`: it has read it, is
/// waiting for input again, and the timer it had then (its escape timeout) has fired — at
/// most until [`ESCAPE_SETTLE`] after the Esc. Only the first timer is waited out: a
/// program that rests with a timer (vim's `updatetime`) does not hold the next input
/// beyond it. Where the kernel cannot tell, the rest of the bound is waited.
pub(crate) fn let_escape_land(shared: &Shared, sent: Instant) {
    let deadline = sent + ESCAPE_SETTLE;
    // When the timer seen at the first "ready" is due.
    let mut due: Option<Instant> = None;
    loop {
        let now = Instant::now();
        if now >= deadline {
            return;
        }
        let pause = match readiness(shared) {
            Readiness::Unknown { .. } => deadline - now,
            Readiness::Ready { wakes_in, .. } => match (due, wakes_in) {
                (Some(at), _) if now >= at => return,
                (Some(at), _) => at - now,
                (None, Some(timer)) if now + timer < deadline => {
                    let at = now + timer + READY_CONFIRM;
                    due = Some(at);
                    at - now
                }
                // No timer, or one past the bound: it took the Esc as a key of its own.
                (None, _) => return,
            },
            Readiness::Busy { .. } => READY_POLL,
        };
        let state = shared.lock();
        drop(shared.sleep(
            state,
            pause.min(deadline.saturating_duration_since(Instant::now())),
        ));
    }
}
