//! What a readiness wait follows after input beyond the program's first "ready": the
//! timers its reaction may be drawn at (`Chain`, with what the session learnt of which
//! kinds of input have timers that draw), and polling loops that never block on the terminal (`PollingLoop`).

use std::time::{Duration, Instant};

use super::super::shared::{Learnt, PendingTimer, Reaction, TimerRecord, as_long as same};
use crate::operation::{NOT_DRAWN_YET, NOT_WAITED_FOR};
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
/// escape flush, emacs's idle timers (125 ms, then 375 ms: `show-paren-mode`, jit-lock).
/// The session remembers, per program and kind of input, whether following its timers led
/// to anything drawn, and the whole chain's length; after [`SILENT_CHAINS`] reactions in a
/// row whose timers all stayed silent, and none that drew, a chain of [`LEARNT_TIMER`] or
/// longer is no longer waited out — and the reply says so, as what was not waited for
/// (`unwaited`, apart from what is seen pending: emacs shows a matching paren 125 ms after
/// a typed `)`: the kind of key is the same, the timer not always silent). Kinds keep apart what must be: emacs fires the
/// same two silent timers after a typed `x` and after `C-x`, where a third echoes `C-x-`.
///
/// A timer is counted from when its sleep was first seen ([`Sightings`]): a relative
/// timeout (`poll`'s) shows whole for as long as the thread sleeps in it.
///
/// A timer due beyond the bound is said to be pending, unless it is the program's own
/// rest: the same thread rested on the same timer before the input (vim's and neovim's
/// `updatetime`, re-armed by every key) and that timer was not itself said pending (a
/// debounce re-armed by every key looks the same, and its reaction is exactly what is not
/// drawn yet). Such a timer is named in the reason, as the program's rest.
pub(super) struct Chain {
    /// The first confirmed "ready" after the input.
    started: Instant,
    /// The timers waited out so far, in order, each with its thread.
    waited: Vec<Timer>,
    /// When the last one is due (at the latest: counted from the "ready" it was seen at).
    due: Option<Instant>,
    /// Whose timers they are.
    program: String,
    /// Each thread's timer when the program rested after the input before, and when that
    /// was.
    resting: Vec<Timer>,
    resting_due: Vec<Instant>,
    /// The timers it rested with at earlier rests ([`Reaction::earlier`]).
    earlier: Vec<(Timer, Instant)>,
    /// When the program was last seen at rest.
    rested_at: Instant,
    /// Whether the input was a lone Esc (its timer is an escape timeout).
    lone_escape: bool,
    /// The input's kind ([`Reaction::input_kind`]).
    input_kind: u64,
    /// When the input was written.
    input_instant: Instant,
    /// The timer the wait before said pending, and when it is due, while its sleep lasted
    /// ([`Reaction::pending_timer`]).
    pending_before: Option<PendingTimer>,
}

/// What a confirmed "ready" showed of the reaction still to come: every thread's timer,
/// the work the input started outside the foreground group that is running, and what may
/// draw at a time the kernel does not show.
pub(super) struct Work<'a> {
    /// The program blocked on the terminal (its name).
    pub program: &'a str,
    pub timers: &'a [Timer],
    pub in_flight: &'a [String],
    pub unseen: &'a [String],
    /// What could draw at a time the kernel does not show, with no sign that the input
    /// armed it (a SIGALRM handler installed before).
    pub hidden: &'a [String],
    /// When the screen last changed.
    pub changed_at: Instant,
}

/// How often work in flight is looked at again.
const IN_FLIGHT_POLL: Duration = Duration::from_millis(5);

/// What a readiness wait does next, following the reaction's timers.
pub(super) enum Step {
    /// Waits until this instant, then asks again.
    Wait(Instant),
    /// The reaction is done; what was waited out (or is still pending), to add to the
    /// reason, and the timer due beyond the bound its reaction may still be drawn at (with
    /// when).
    Done(Option<String>, Option<PendingTimer>),
}

/// How many reactions to one kind of input must have had only silent timers (and none
/// timers that drew) before that kind's timers are no longer waited out.
pub(super) const SILENT_CHAINS: u32 = 3;

/// Only a chain this long or longer in all is skipped for what was learnt: a shorter one
/// costs little to wait out, and an event loop's short timers draw on some keys and not on
/// others (Textual refreshes 15 ms after a key, sometimes before the first "ready" is seen
/// and sometimes after: skipping it once learnt returned stale screens).
const LEARNT_TIMER: Duration = Duration::from_millis(200);

/// Two deadlines are the same within this, or 1% of the timer: a runtime polling for its
/// next timer passes what is left of it, rounded to milliseconds.
const SAME_DEADLINE: Duration = Duration::from_millis(20);

/// How long past its due time a timer whose sleep is still the same is waited for before
/// it is taken for gone (a thread woken late under load keeps its sleep a little longer).
/// 50 ms was too short under load: a child in a session of its own, its timerfd fired,
/// was woken later than that and its draw missed (1 round of 1,008 in the matrix).
/// Waiting costs nothing when the thread wakes on time.
const LATE_TIMER: Duration = Duration::from_millis(250);

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
            resting_due: reaction.resting_due,
            earlier: reaction.earlier,
            rested_at: reaction.rested_at,
            lone_escape: reaction.lone_escape,
            input_kind: reaction.input_kind,
            input_instant: reaction.input_instant,
            pending_before: reaction.pending_timer,
        }
    }

    /// The next step at a confirmed "ready" whose soonest timer is `timer`, of `program`,
    /// the screen having last changed at `changed_at`; `memory` keeps which kinds of input
    /// have timers that draw.
    pub(super) fn next(
        &mut self,
        work: &Work,
        bound: Duration,
        learnt: &mut Learnt,
        sightings: &Sightings,
    ) -> Step {
        let changed_at = work.changed_at;
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
            return Step::Done(Some(what), None);
        }
        let step = self.decide(work, bound, now, learnt, sightings);
        // A timer that repeats one of its thread's already waited out is the program's
        // period: learnt, so that the next reaction ends at its first tick.
        if matches!(step, Step::Done(..)) {
            for t in work.timers {
                if self
                    .waited
                    .iter()
                    .any(|w| w.pid == t.pid && w.tid == t.tid && same(w.due, t.due))
                {
                    learnt.note_period(t.pid, sightings.length(t));
                }
            }
        }
        // What the timers drew: a screen changed since the first "ready" after the input.
        if matches!(step, Step::Done(..)) && !self.waited.is_empty() {
            self.remember(&mut learnt.chains, changed_at > self.started);
        }
        match step {
            // A timer the kernel does not show may still draw: said, as pending when the
            // input armed one by the evidence, else as not waited for.
            // A SIGALRM handler installed before is said only of a program seen to draw
            // at a time none of its timers explains (a handler's draw): bash, top, fish
            // and emacs catch SIGALRM and never draw on it, and a note on each of their
            // keys would be wrong every time.
            Step::Done(what, timer)
                if !work.unseen.is_empty() || (!work.hidden.is_empty() && learnt.unprompted_draws) =>
            {
                let mut what = what.unwrap_or_default();
                if !work.unseen.is_empty() {
                    what.push_str(&format!(
                        "; {}: its reaction {NOT_DRAWN_YET}",
                        work.unseen.join(", ")
                    ));
                }
                if !work.hidden.is_empty() && learnt.unprompted_draws {
                    what.push_str(&format!(
                        "; {}: such a timer {NOT_WAITED_FOR}",
                        work.hidden.join(", ")
                    ));
                }
                Step::Done(Some(what), timer)
            }
            step => step,
        }
    }

    fn decide(
        &mut self,
        work: &Work,
        bound: Duration,
        now: Instant,
        learnt: &Learnt,
        sightings: &Sightings,
    ) -> Step {
        let (timers, program, changed_at) = (work.timers, work.program, work.changed_at);
        // What is left of a timer: counted from its sleep's first sighting.
        let left = |t: &Timer| sightings.due_at(t, now).saturating_duration_since(now);
        let same_sleep =
            |a: &Timer, b: &Timer| a.pid == b.pid && a.tid == b.tid && a.runs.is_some() && a.runs == b.runs;
        let same_length = |a: &Timer, b: &Timer| a.pid == b.pid && a.tid == b.tid && same(a.due, b.due);
        // A thread's period: the timer it rested with before the input, or one of its own
        // already waited out.
        let periodic = |t: &Timer| {
            self.resting.iter().any(|r| same_length(r, t))
                || self.waited.iter().any(|w| same_length(w, t))
                || learnt.is_period(t.pid, sightings.length(t))
        };
        // A timer waited out whose sleep is still the one seen: it fires late (the thread
        // not yet woken); looked at again shortly, for a while.
        let last_still_asleep = timers
            .iter()
            .any(|t| self.waited.last().is_some_and(|w| same_sleep(w, t)));
        if last_still_asleep && self.due.is_some_and(|due| now < due + LATE_TIMER) {
            return Step::Wait(now + READY_CONFIRM);
        }
        // The first timer after input is waited out even when it looks like the program's
        // period: it is the tick that may apply the input (htop's sort). After it, a
        // thread's period within the bound ends nothing.
        let first = self.waited.is_empty();
        let Some(timer) = timers
            .iter()
            .filter(|t| first || !(periodic(t) && t.due <= bound))
            .filter(|t| !self.waited.iter().any(|w| same_sleep(w, t)))
            .min_by_key(|t| left(t))
        else {
            return Step::Done(self.waited_out(), None);
        };
        let beyond = now.duration_since(self.started) + left(timer) > bound;
        if beyond {
            let mut what = self.waited_out().unwrap_or_default();
            // Not this input's: a timer a thread of the program already waited for at its
            // rest before the input (the same sleep, or the same deadline, whichever of its
            // threads polls for it: a runtime's next timer, Go's) — said, if it was pending,
            // by the reply that saw it first. And the program's own rest: one as long, in the
            // same thread, re-armed by the input (vim's and neovim's `updatetime`), unless
            // that one was said pending (a debounce re-armed by every key looks the same,
            // and its reaction is exactly what is not drawn yet).
            let due_at = sightings.due_at(timer, now);
            // Within a tolerance smaller than half the time since the rest: a timer re-armed
            // since (a debounce, keys 8 ms apart) is due that much later.
            let tolerance = SAME_DEADLINE
                .max(timer.due / 100)
                .min(now.saturating_duration_since(self.rested_at) / 2);
            let same_deadline = |at: Instant| at.max(due_at) - at.min(due_at) <= tolerance;
            let armed_before = self
                .resting
                .iter()
                .zip(&self.resting_due)
                .any(|(r, at)| same_sleep(r, timer) || same_deadline(*at))
                || self.earlier.iter().any(|(_, at)| same_deadline(*at));
            let said_before = self.pending_before.as_ref().is_some_and(|p| {
                same_sleep(&p.timer, timer) || same_length(&p.timer, timer) || same_deadline(p.due_at)
            });
            // As at its last rest, or at an earlier one (top's refresh, after its help
            // screen rested with none).
            let rearmed = self
                .resting
                .iter()
                .chain(self.earlier.iter().map(|(t, _)| t))
                .any(|r| same_length(r, timer))
                && !said_before;
            let named = if armed_before {
                Some("armed before the input (the program waited for it at its rest)")
            } else if rearmed {
                Some("as it was at its rest before the input (its own, re-armed by the input)")
            } else {
                None
            };
            if let Some(how) = named {
                what.push_str(&format!(
                    "; a timer of {} (pid {}) is due in {}, {how}",
                    timer.owner,
                    timer.pid,
                    spoken(left(timer))
                ));
                return Step::Done(Some(what), None);
            }
            let length = sightings.length(timer);
            if let Some(learnt) = learnt.silent_late(program, length) {
                what.push_str(&format!(
                    "; a timer of {} (pid {}) is due in {}: {program}'s {} timer, which drew nothing the {} time{} it fired",
                    timer.owner,
                    timer.pid,
                    spoken(left(timer)),
                    spoken(learnt.length),
                    learnt.silent,
                    if learnt.silent == 1 { "" } else { "s" }
                ));
                return Step::Done(Some(what), None);
            }
            what.push_str(&format!(
                "; a timer of {} (pid {}) is due in {}: its reaction {NOT_DRAWN_YET}",
                timer.owner,
                timer.pid,
                spoken(left(timer))
            ));
            let pending = PendingTimer {
                timer: timer.clone(),
                length,
                due_at,
                said_at: now,
                program: program.to_string(),
            };
            return Step::Done(Some(what), Some(pending));
        }
        if first && let Some(record) = self.known_silent(program, &learnt.chains) {
            // The thread's own period (ranger's 2 s poll, fzf's 100 ms ticker), the input
            // already drawn: its tick has drawn nothing after this kind of input before,
            // and the program does not leave its input for the tick. Skipped for what was
            // learnt, so said as not waited for.
            // Rested so: the same length, or a deadline the resting one's plus whole periods
            // of the program's (a ticker that went on ticking since).
            let due_at = sightings.due_at(timer, now);
            let on_beat = |at: Instant| {
                let apart = at.max(due_at).duration_since(at.min(due_at));
                apart <= SAME_DEADLINE
                    || learnt.periods_of(timer.pid).any(|period| {
                        let off = Duration::from_nanos((apart.as_nanos() % period.as_nanos().max(1)) as u64);
                        off.min(period.saturating_sub(off)) <= SAME_DEADLINE
                    })
            };
            // Or a phase of a period learnt of the process, in a thread that rested on a
            // timer (a tick's deadline measured under load is off by a few ms too many).
            let phase = learnt
                .periods_of(timer.pid)
                .any(|period| sightings.length(timer) <= period + SAME_DEADLINE);
            let rested = self.resting.iter().zip(&self.resting_due).any(|(r, at)| {
                same_length(r, timer) || on_beat(*at) || (r.pid == timer.pid && r.tid == timer.tid && phase)
            });
            if rested && record.chain.len() == 1 && changed_at > self.input_instant {
                return Step::Done(
                    Some(format!(
                        "; its own period (a timer of {}, pid {}, due in {}) {NOT_WAITED_FOR}: the input was drawn at once, and after such input its tick drew nothing the last {} times",
                        timer.owner,
                        timer.pid,
                        spoken(left(timer)),
                        record.silent
                    )),
                    None,
                );
            }
            // Any other chain is skipped only when it costs enough, and said.
            if record.chain.iter().sum::<Duration>() >= LEARNT_TIMER {
                let lengths: Vec<String> = record.chain.iter().map(|d| spoken(*d)).collect();
                let what = format!(
                    "; a timer of {} (pid {}) due in {} {NOT_WAITED_FOR}, as {program}'s timers after this kind of input ({}) drew nothing the last {} times",
                    timer.owner,
                    timer.pid,
                    spoken(left(timer)),
                    lengths.join(", "),
                    record.silent
                );
                return Step::Done(Some(what), None);
            }
        }
        let due = sightings.due_at(timer, now) + READY_CONFIRM;
        self.waited.push(Timer {
            due: sightings.length(timer),
            ..timer.clone()
        });
        self.program = program.to_string();
        self.due = Some(due);
        Step::Wait(due)
    }

    /// What was learnt of this kind of input to `program`, when its timers have stayed
    /// silent often enough and never drew.
    fn known_silent<'m>(&self, program: &str, memory: &'m [TimerRecord]) -> Option<&'m TimerRecord> {
        memory.iter().find(|r| {
            r.program == program && r.input_kind == self.input_kind && !r.drew && r.silent >= SILENT_CHAINS
        })
    }

    /// Notes whether following this reaction's timers led to anything drawn.
    fn remember(&self, memory: &mut Vec<TimerRecord>, drew: bool) {
        let chain: Vec<Duration> = self.waited.iter().map(|t| t.due).collect();
        let program = &self.program;
        match memory
            .iter_mut()
            .find(|r| r.input_kind == self.input_kind && r.program == *program)
        {
            Some(record) => {
                record.drew |= drew;
                record.silent = if drew { 0 } else { record.silent + 1 };
                record.chain = chain;
            }
            None => {
                if memory.len() == KINDS_KEPT {
                    memory.remove(0);
                }
                memory.push(TimerRecord {
                    program: program.clone(),
                    input_kind: self.input_kind,
                    silent: u32::from(!drew),
                    chain,
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

/// When each sleep of each thread was first seen, and its timer then: a relative timeout
/// shows whole for as long as the thread sleeps in it, so what is left of it is counted
/// from the first sighting ([`Timer::runs`] tells one sleep from the next).
#[derive(Default)]
pub(super) struct Sightings(std::collections::HashMap<(i32, i32, u64), (Instant, Duration)>);

/// The most sleeps a wait remembers (a program re-arming timers without end is forgotten
/// and seen afresh).
const SIGHTINGS_KEPT: usize = 4096;

impl Sightings {
    /// Notes the sleeps of `timers`, seen by a probe asked at `asked`, not seen before.
    pub(super) fn see(&mut self, timers: &[Timer], asked: Instant) {
        if self.0.len() > SIGHTINGS_KEPT {
            self.0.clear();
        }
        for timer in timers {
            if let Some(runs) = timer.runs {
                self.0
                    .entry((timer.pid, timer.tid, runs))
                    .or_insert((asked, timer.due));
            }
        }
    }

    /// When `timer` is due: counted from its sleep's first sighting, else from `now`.
    fn due_at(&self, timer: &Timer, now: Instant) -> Instant {
        match self.first(timer) {
            Some((first, due)) => first + due,
            None => now + timer.due,
        }
    }

    /// When each of `timers` is due (see [`Sightings::due_at`]).
    pub(super) fn deadlines(&self, timers: &[Timer], now: Instant) -> Vec<Instant> {
        timers.iter().map(|t| self.due_at(t, now)).collect()
    }

    /// The timer as it was first seen: its length, for a relative timeout.
    fn length(&self, timer: &Timer) -> Duration {
        self.first(timer).map_or(timer.due, |(_, due)| due)
    }

    fn first(&self, timer: &Timer) -> Option<(Instant, Duration)> {
        self.0.get(&(timer.pid, timer.tid, timer.runs?)).copied()
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
    /// program is taken as resting, and whether it was seen to read no input.
    pub(super) fn note(
        &mut self,
        answer: &Readiness,
        output: u64,
        reaction: &Reaction,
        following: bool,
        unread_bytes: usize,
        drawn: impl FnOnce() -> bool,
    ) -> Option<(String, bool)> {
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
        // A front end asleep in `pause` with no timer and nothing at work anywhere in the
        // program's tree (GNU screen's, its back end and the shell inside at rest) rests
        // as soon as that is confirmed; otherwise the screen must stay quiet a while.
        let paused = why.contains("asleep in pause") && timers.is_empty();
        let quiet = if paused {
            READY_CONFIRM * 2
        } else {
            READY_FALLBACK_QUIET
        };
        if since.elapsed() < quiet {
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
        // Input still unread though a sleeper has woken since the reply that left it
        // unread (watch, which reads no input): it does not read it, and nothing is
        // pending on it. Only if that input is still there: more is unread than was sent
        // since (nmon reads it when it wakes, and the new key is then all that is unread).
        let woke_unread = unread
            && unread_bytes > reaction.sent_since_unread
            && reaction.unread_sleepers.iter().any(|(pid, tid, runs)| {
                timers
                    .iter()
                    .any(|t| t.pid == *pid && t.tid == *tid && t.runs.is_some_and(|r| r != *runs))
            });
        if woke_unread {
            said.push_str(
                "; it woke since the earlier input was sent and left it unread: it reads no input now",
            );
            return Some((said, true));
        }
        // The same threads seen so before (watch, every key): the earlier input is still
        // there, unread, so they still read none — no need to see them wake again.
        let left_before = unread
            && unread_bytes > reaction.sent_since_unread
            && !timers.is_empty()
            && timers
                .iter()
                .all(|t| reaction.no_readers.contains(&(t.pid, t.tid)));
        if left_before {
            said.push_str(
                "; it was seen to wake and leave its input unread before, and the earlier input is still unread: it reads no input now",
            );
            return Some((said, true));
        }
        if let Some(t) = next.filter(|_| following && (unread || first_rest)) {
            let does = if unread { "reads the input" } else { "may draw" };
            said.push_str(&format!(
                "; {} {does} when it wakes in {}: its reaction {NOT_DRAWN_YET}",
                t.owner,
                spoken(t.due)
            ));
        }
        Some((said, false))
    }
}
