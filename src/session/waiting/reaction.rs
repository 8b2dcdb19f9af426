//! What a readiness wait follows after input beyond the program's first "ready": the
//! timers its reaction may be drawn at (`Chain`, with what the session learnt of which
//! kinds of input have timers that draw), and polling loops that never block on the terminal (`PollingLoop`).

use std::time::{Duration, Instant};

use super::super::shared::{Reaction, TimerRecord};
use crate::operation::NOT_DRAWN_YET;
use crate::readiness::{Readiness, Timer};
use crate::wait::{ESCAPE_SETTLE, READY_FALLBACK_QUIET, spoken};

use super::ready::READY_CONFIRM;

/// The timers a readiness wait follows after input: the program's reaction may be drawn
/// only when they fire (vim after a lone Esc waits 25 ms, draws `^[`, waits its 100 ms
/// `ttimeoutlen`, then leaves insert mode). Each confirmed "ready" names every thread's
/// timer; the wait waits out the soonest and looks again, until no thread has one left
/// that is not its own period, or the next is due beyond the bound. A period belongs to
/// one thread: a timer that repeats one the same thread rested with before the input, or
/// one already waited out in the same thread (a clock, a spinner, htop's refresh, an
/// input thread polling the terminal every 100 ms), is that thread's period and ends
/// nothing for the others — a one-shot timer in another thread (an event loop's 400 ms
/// debounce) is still waited out.
///
/// Some programs arm timers after every key that draw nothing: prompt_toolkit's 0.5 s
/// escape flush. The session remembers, per kind of input, whether following its timers
/// led to anything drawn; after [`SILENT_CHAINS`] reactions to one kind whose timers all
/// stayed silent, and none that drew, that kind's timers are no longer waited out when
/// the first is [`LEARNT_TIMER`] or longer. Kinds keep apart what must be: emacs fires the same
/// two silent timers after a typed `x` and after `C-x`, where a third echoes `C-x-`.
pub(super) struct Chain {
    /// The first confirmed "ready" after the input.
    started: Instant,
    /// The timers waited out so far, in order, each with its thread.
    waited: Vec<Timer>,
    /// When the last one is due (at the latest: counted from the "ready" it was seen at).
    due: Option<Instant>,
    /// Whose timers they are.
    program: String,
    /// Each thread's timer when the program rested after the input before.
    resting: Vec<Timer>,
    /// Whether the input was a lone Esc (its timer is an escape timeout).
    lone_escape: bool,
    /// The input's kind ([`Reaction::input_kind`]).
    input_kind: u64,
}

/// What a confirmed "ready" showed of the reaction still to come: every thread's timer,
/// the work the input started outside the foreground group that is running, and what may
/// draw at a time the kernel does not show.
pub(super) struct Work<'a> {
    pub timers: &'a [Timer],
    pub in_flight: &'a [String],
    pub unseen: &'a [String],
}

/// How often work in flight is looked at again.
const IN_FLIGHT_POLL: Duration = Duration::from_millis(5);

/// What a readiness wait does next, following the reaction's timers.
pub(super) enum Step {
    /// Waits until this instant, then asks again.
    Wait(Instant),
    /// The reaction is done; what was waited out (or is still pending), to add to the
    /// reason.
    Done(Option<String>),
}

/// Two timers are the same when they are within 5% of each other, or this: a period
/// re-armed as what is left of it, a little late under load.
const SAME_TIMER: Duration = Duration::from_millis(2);

/// Whether two timers are the same (see [`SAME_TIMER`]).
fn same(a: Duration, b: Duration) -> bool {
    a.abs_diff(b) <= SAME_TIMER.max(a.max(b) / 20)
}

/// How many reactions to one kind of input must have had only silent timers (and none
/// timers that drew) before that kind's timers are no longer waited out.
pub(super) const SILENT_CHAINS: u32 = 2;

/// Only a first timer this long or longer is skipped for what was learnt: a shorter one
/// costs little to wait out, and an event loop's short timers draw on some keys and not on
/// others (Textual refreshes 15 ms after a key, sometimes before the first "ready" is seen
/// and sometimes after: skipping it once learnt returned stale screens).
const LEARNT_TIMER: Duration = Duration::from_millis(200);

/// The most kinds of input a session remembers.
const KINDS_KEPT: usize = 32;

impl Chain {
    pub(super) fn new(started: Instant, reaction: Reaction) -> Chain {
        Chain {
            started,
            waited: Vec::new(),
            due: None,
            program: String::new(),
            resting: reaction.resting,
            lone_escape: reaction.lone_escape,
            input_kind: reaction.input_kind,
        }
    }

    /// The next step at a confirmed "ready" whose soonest timer is `timer`, of `program`,
    /// the screen having last changed at `changed_at`; `memory` keeps which kinds of input
    /// have timers that draw.
    pub(super) fn next(
        &mut self,
        work: &Work,
        program: &str,
        bound: Duration,
        changed_at: Instant,
        memory: &mut Vec<TimerRecord>,
    ) -> Step {
        let now = Instant::now();
        if let Some(due) = self.due.filter(|due| now < *due) {
            return Step::Wait(due);
        }
        // Work in flight is waited for while the bound lasts, then said.
        if !work.in_flight.is_empty() {
            if now.duration_since(self.started) < bound {
                return Step::Wait(now + IN_FLIGHT_POLL);
            }
            let mut what = self.waited_out().unwrap_or_default();
            what.push_str(&format!(
                "; {}: its result {NOT_DRAWN_YET}",
                work.in_flight.join(", ")
            ));
            return Step::Done(Some(what));
        }
        let step = self.decide(work.timers, program, bound, now, memory);
        // What the timers drew: a screen changed since the first "ready" after the input.
        if matches!(step, Step::Done(_)) && !self.waited.is_empty() {
            self.remember(memory, changed_at > self.started);
        }
        match step {
            // A timer the kernel does not show may still draw: said.
            Step::Done(what) if !work.unseen.is_empty() => {
                let mut what = what.unwrap_or_default();
                what.push_str(&format!(
                    "; {}: its reaction {NOT_DRAWN_YET}",
                    work.unseen.join(", ")
                ));
                Step::Done(Some(what))
            }
            step => step,
        }
    }

    fn decide(
        &mut self,
        timers: &[Timer],
        program: &str,
        bound: Duration,
        now: Instant,
        memory: &[TimerRecord],
    ) -> Step {
        // A thread's period: the timer it rested with before the input, or one of its own
        // already waited out.
        let periodic = |t: &Timer| {
            let same_thread =
                |other: &Timer| other.pid == t.pid && other.tid == t.tid && same(other.due, t.due);
            self.resting.iter().any(same_thread) || self.waited.iter().any(same_thread)
        };
        // The first timer after input is waited out even when it looks like the program's
        // period: it is the tick that may apply the input (htop's sort). After it, a
        // thread's period within the bound ends nothing.
        let first = self.waited.is_empty();
        let Some(timer) = timers
            .iter()
            .filter(|t| first || !(periodic(t) && t.due <= bound))
            .min_by_key(|t| t.due)
        else {
            return Step::Done(self.waited_out());
        };
        let beyond = now.duration_since(self.started) + timer.due > bound;
        if beyond {
            // Said even when it looks like the timer the program rested with (vim's
            // `updatetime`, re-armed by every key): a debounce re-armed by every key looks
            // the same, and its reaction is exactly what is not drawn yet.
            let mut what = self.waited_out().unwrap_or_default();
            what.push_str(&format!(
                "; a timer of {} (pid {}) is due in {}: its reaction {NOT_DRAWN_YET}",
                timer.owner,
                timer.pid,
                spoken(timer.due)
            ));
            return Step::Done(Some(what));
        }
        if first && timer.due >= LEARNT_TIMER && self.known_silent(memory) {
            return Step::Done(None);
        }
        self.waited.push(timer.clone());
        self.program = program.to_string();
        let due = now + timer.due + READY_CONFIRM;
        self.due = Some(due);
        Step::Wait(due)
    }

    /// Whether this kind of input's timers have stayed silent often enough, and never drew.
    fn known_silent(&self, memory: &[TimerRecord]) -> bool {
        memory
            .iter()
            .any(|r| r.input_kind == self.input_kind && !r.drew && r.silent >= SILENT_CHAINS)
    }

    /// Notes whether following this reaction's timers led to anything drawn.
    fn remember(&self, memory: &mut Vec<TimerRecord>, drew: bool) {
        match memory.iter_mut().find(|r| r.input_kind == self.input_kind) {
            Some(record) => {
                record.drew |= drew;
                record.silent = if drew { 0 } else { record.silent + 1 };
            }
            None => {
                if memory.len() == KINDS_KEPT {
                    memory.remove(0);
                }
                memory.push(TimerRecord {
                    input_kind: self.input_kind,
                    silent: u32::from(!drew),
                    drew,
                });
            }
        }
    }

    /// What the wait waited out, for its reason: `, after vim's escape timeout (25 ms,
    /// 100 ms)`, `, after htop's 1.5 s timer`.
    fn waited_out(&self) -> Option<String> {
        let lengths: Vec<String> = self.waited.iter().map(|t| spoken(t.due)).collect();
        let program = &self.program;
        let escape = self.lone_escape && self.waited.iter().map(|t| t.due).sum::<Duration>() <= ESCAPE_SETTLE;
        match (lengths.as_slice(), escape) {
            ([], _) => None,
            ([one], true) => Some(format!(", after {program}'s {one} escape timeout")),
            ([one], false) => Some(format!(", after {program}'s {one} timer")),
            (many, true) => Some(format!(
                ", after {program}'s escape timeout ({})",
                many.join(", ")
            )),
            (many, false) => Some(format!(", after {program}'s timers ({})", many.join(", "))),
        }
    }
}

/// A program that checks the terminal without blocking and sleeps a few milliseconds
/// between checks (less in follow mode: `poll` with no timeout, then a 2 ms
/// `clock_nanosleep`) is never seen blocked on the terminal, yet it waits for input as
/// surely as one that is. Seen asleep on such short timers at least as often as running,
/// with no output for [`READY_FALLBACK_QUIET`], it is taken as waiting, and the reason
/// says so.
#[derive(Default)]
pub(super) struct PollingLoop {
    /// Since when, with the output's length then.
    since: Option<(Instant, u64)>,
    asleep: u32,
    running: u32,
}

/// The longest sleep of a polling loop's.
const POLLING_SLEEP: Duration = Duration::from_millis(10);

impl PollingLoop {
    /// Notes a "busy" answer with `output` bytes written so far; how long the loop has
    /// been seen, once it counts as waiting.
    pub(super) fn note(&mut self, answer: &Readiness, output: u64) -> Option<Duration> {
        let short_sleep = matches!(answer, Readiness::Busy { wakes_in: Some(t), why, .. }
            if *t <= POLLING_SLEEP && why.contains("timer"));
        let running = matches!(answer, Readiness::Busy { why, .. } if why == "running");
        if self.since.is_some_and(|(_, at)| at != output) || !(short_sleep || running) {
            *self = PollingLoop::default();
        }
        if !(short_sleep || running) {
            return None;
        }
        let (since, _) = *self.since.get_or_insert((Instant::now(), output));
        self.asleep += u32::from(short_sleep);
        self.running += u32::from(running);
        let seen = since.elapsed();
        (seen >= READY_FALLBACK_QUIET && self.asleep >= self.running.max(1)).then_some(seen)
    }
}

/// A program asleep on timers of its own, reading no terminal, with nothing else at work:
/// `watch` (it reads no input), nmon (it checks for keys only when its 2 s sleep ends), a
/// clock, GNU screen's front end asleep in `pause` (its back end reads the terminal). It is
/// never seen blocked on the terminal, yet it rests. Seen so, with no output, for
/// [`READY_FALLBACK_QUIET`] — at the program's start once it has drawn something (its
/// first rest), or with the same threads asleep so as at its last rest (not a thread the
/// input put to sleep: that is the reaction, waited for) — the wait ends, saying it rests on its timer; when input is
/// still unread, or the rest is the start's, the timer's reaction is said to be pending.
#[derive(Default)]
pub(super) struct Resting {
    /// Since when, with the output's length then.
    since: Option<(Instant, u64)>,
}

impl Resting {
    /// Notes a "busy" answer with `output` bytes written so far; the reason, once the
    /// program is taken as resting.
    pub(super) fn note(
        &mut self,
        answer: &Readiness,
        output: u64,
        reaction: &Reaction,
        following: bool,
        drawn: impl FnOnce() -> bool,
    ) -> Option<String> {
        // A shell waiting for its command is not at rest, whatever the command sleeps on.
        let Readiness::Busy {
            idle: true,
            timers,
            why,
            for_child: false,
            ..
        } = answer
        else {
            self.since = None;
            return None;
        };
        if self.since.is_some_and(|(_, at)| at != output) {
            self.since = None;
        }
        let (since, _) = *self.since.get_or_insert((Instant::now(), output));
        if since.elapsed() < READY_FALLBACK_QUIET {
            return None;
        }
        let first_rest = reaction.settled == 0;
        let as_at_rest = timers.iter().all(|t| reaction.sleepers.contains(&(t.pid, t.tid)));
        if following && !first_rest && !as_at_rest {
            return None;
        }
        // At its start, a program that has drawn nothing yet is not at rest: it sleeps
        // before its first screen (`sleep 0.4; echo`), and is waited for.
        if first_rest && !drawn() {
            return None;
        }
        let unread = why.starts_with("input not yet read");
        let next = timers.iter().min_by_key(|t| t.due);
        let mut said = match next {
            Some(t) => format!(
                "resting on its own timer, reading no terminal ({} sleeps, due in {})",
                t.owner,
                spoken(t.due)
            ),
            None => "resting with nothing at work, reading no terminal (asleep until a signal: its input is another process's)".to_string(),
        };
        if let Some(t) = next.filter(|_| following && (unread || first_rest)) {
            let does = if unread { "reads the input" } else { "may draw" };
            said.push_str(&format!(
                "; {} {does} when it wakes in {}: its reaction {NOT_DRAWN_YET}",
                t.owner,
                spoken(t.due)
            ));
        }
        Some(said)
    }
}
