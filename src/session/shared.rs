//! The state a session shares between its threads and its waiters.
//!
//! One mutex guards the screen ([`Terminal`]), the raw-output ring, the exit status and
//! a generation counter. The parser thread and the exit watcher write; `wait` and the
//! state getters read. Nothing here knows about processes or threads.
//!
//! Two things keep a flood of output from starving readers. Readers that find the lock
//! taken say so (`waiting`), and the parser, which takes the lock once per chunk, steps
//! aside after each chunk until they have had their turn — std's mutex lets the thread
//! that just unlocked take it straight back, so without this a capture under `yes` waited
//! seconds. And waiters do not sleep on the state mutex's condition variable (whose wake-up
//! re-takes the mutex behind the parser's back) but on a separate doorbell, then take the
//! state lock like any reader.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, TryLockError};
use std::time::{Duration, Instant};

use super::output_ring::OutputRing;
use crate::process::ExitStatus;
use crate::snapshot::Snapshot;
use crate::terminal::Terminal;

/// How long the parser stands aside for readers after a chunk, at most.
const READERS_TURN: Duration = Duration::from_millis(2);

/// Shared between the session, its threads and its waiters.
pub(crate) struct Shared {
    state: Mutex<State>,
    /// Readers blocked on `state`.
    waiting: AtomicUsize,
    /// Rung (its count bumped) whenever the state changes in a way a waiter may care for.
    doorbell: Mutex<u64>,
    rung: Condvar,
    /// Bytes the reader has read and the parser not yet put on the screen.
    in_flight: AtomicUsize,
    /// Bytes queued for the program (input, query replies) and not yet written to the PTY.
    unwritten: AtomicUsize,
    /// Bumped whenever bytes move between the PTY and the screen, either way: a readiness
    /// answer is kept only when nothing moved while the kernel was asked.
    traffic: std::sync::atomic::AtomicU64,
    /// Asks the kernel whether the program waits for input (set once the PTY exists).
    probe: std::sync::OnceLock<crate::readiness::Probe>,
    /// The PTY reader thread's id (0 until it has started, or where there is none).
    reader_tid: std::sync::atomic::AtomicI32,
}

pub(crate) struct State {
    pub(crate) terminal: Terminal,
    /// Bumped after every chunk of output is parsed.
    pub(crate) generation: u64,
    pub(crate) log: OutputRing,
    /// Set once the child has exited and its output has been drained.
    pub(crate) exit: Option<ExitStatus>,
    pub(crate) reader_done: bool,
    /// Set once `exit()`/`kill()` ended the session.
    pub(crate) closed: bool,
    /// The screen's fingerprint, noted after every change to the terminal (each batch of
    /// output, a resize) — what waits compare — and when it last differed from the one
    /// before: how long the screen has been settled.
    pub(crate) screen_fingerprint: u64,
    pub(crate) changed_at: Instant,
    /// Whether waits hand back whole frames (`SessionBuilder::whole_frames`).
    pub(crate) whole_frames: bool,
    /// The output total at which the screen was last proved a whole frame (the program
    /// ready twice with no output between, or asleep with nothing due): while no output
    /// comes and no resize reflows it, the screen is that frame, and a wait that matches
    /// on it needs no second proof. `None` after a resize.
    pub(crate) frame_whole_at: Option<u64>,
    /// What was sent and when output came, for a failed test's artefacts.
    pub(crate) story: super::story::Story,
    /// The input whose reaction readiness waits follow.
    pub(crate) reaction: Reaction,
    /// What readiness waits learnt of the program's timers.
    pub(crate) learnt: Learnt,
    /// Why the last wait that held ended, in words (`Session::last_waited`).
    pub(crate) last_waited: Option<String>,
    /// The screen's text the last send that waited (without a capture) ended on: the
    /// operation log keeps it.
    pub(crate) last_send_screen: Option<String>,
    /// The longest timer a readiness wait waits out after input
    /// (`SessionBuilder::reaction_bound`).
    pub(crate) reaction_bound: Duration,
}

/// The input a program is reacting to, as readiness waits follow it: the program's start
/// counts as the first input. Its reaction is *settled* once a readiness wait has seen the
/// program waiting again after it, with the timers it armed then fired (or said to be
/// beyond the bound).
#[derive(Clone, Debug)]
pub(crate) struct Reaction {
    /// Writes of input so far (the start counts as one).
    pub(crate) inputs: u64,
    /// How many of them a readiness wait has seen reacted to.
    pub(crate) settled: u64,
    /// Whether the last write was a lone Esc (the program's escape timeout follows it).
    pub(crate) lone_escape: bool,
    /// What kind of input it was: 0 for printable text, else a hash of its bytes (each
    /// control key, escape sequence or paste its own kind); 1 for the start.
    pub(crate) input_kind: u64,
    /// Each thread's timer when a readiness wait last saw the program done: the periods
    /// it rests with (htop's refresh, vim's `updatetime`, an input thread's poll), which
    /// input re-arms without deferring anything — each a thread's own.
    pub(crate) resting: Vec<crate::readiness::Timer>,
    /// When each of the `resting` timers was due (counted from its sleep's first sighting).
    pub(crate) resting_due: Vec<Instant>,
    /// The timers the program rested with at earlier rests, each with when it was due,
    /// none said pending: a period the last rest did not show (top's refresh, re-armed when
    /// its help screen, which blocks with no timer, is left), a deadline a thread started
    /// again waits for (calcurse's next minute).
    pub(crate) earlier: Vec<(crate::readiness::Timer, Instant)>,
    /// When the program was last seen at rest (the `resting` timers seen).
    pub(crate) rested_at: Instant,
    /// When the last input was written, on the boot clock: processes started since belong
    /// to its reaction wherever they run ([`Probe::check_since`](crate::readiness::Probe::check_since)).
    pub(crate) input_at: Duration,
    /// The threads (pid, tid) the program rested asleep on timers of their own, reading no
    /// terminal, when a readiness wait last saw it at rest that way (watch, nmon): the same
    /// threads asleep so again after an input are its rest, not its reaction.
    pub(crate) sleepers: Vec<(i32, i32)>,
    /// The threads (pid, tid, [`Timer::runs`](crate::readiness::Timer::runs)) asleep on
    /// their own timers when a readiness wait last returned with input unread: one seen
    /// woken since, the input still unread, does not read it.
    pub(crate) unread_sleepers: Vec<(i32, i32, u64)>,
    /// Bytes of input written since that wait returned: input still unread beyond them is
    /// what the program left unread.
    pub(crate) sent_since_unread: usize,
    /// The threads (pid, tid) seen woken since input was sent and leaving it unread: while
    /// that input is still unread, they read none (watch).
    pub(crate) no_readers: Vec<(i32, i32)>,
    /// The timer the last readiness wait said the reaction may still be drawn at (due
    /// beyond the bound), while the program still sleeps on it: a timer of the same thread
    /// and length after the next input is then that reaction's, not the program's rest.
    pub(crate) pending_timer: Option<PendingTimer>,
    /// When the last input was written.
    pub(crate) input_instant: Instant,
    /// When the terminal was last resized: the program redraws then, unprompted by keys.
    pub(crate) resized_at: Option<Instant>,
    /// How often the screen changed since the program was last seen at rest.
    pub(crate) changes_since_rest: u32,
}

/// What readiness waits learnt of a program's timers, for as long as the session lasts.
#[derive(Debug, Default)]
pub(crate) struct Learnt {
    /// The timers that follow each kind of input, within the bound.
    pub(crate) chains: Vec<TimerRecord>,
    /// The timers said pending beyond the bound, seen firing since.
    pub(crate) late: Vec<LateRecord>,
    /// The periods seen repeat after input, each with its process (a runtime's threads
    /// take turns polling for its timers: Go's, so a period is the process's, not a
    /// thread's). Compared by length as first seen, never by what is left of a deadline,
    /// which may match a period by chance.
    pub(crate) periods: Vec<(i32, Duration)>,
    /// Whether the program was seen to draw, with no input since its last rest, at a time
    /// none of the timers it rested with explains: what a signal timer's handler does (a
    /// `setitimer` re-armed under a SIGALRM handler installed before shows nowhere in
    /// `/proc`, but its draw shows on the screen).
    pub(crate) unprompted_draws: bool,
}

/// What a timer said pending beyond the bound did when it fired, seen at the next wait
/// (the screen unchanged since the reply, and no input until past its due time): a
/// program's timer of this length that drew nothing (micro's 8 s backup, neovim's
/// `updatetime`) is then named, not said pending; one that drew ever is always said.
#[derive(Clone, Debug)]
pub(crate) struct LateRecord {
    /// The program whose timer it was.
    pub(crate) program: String,
    /// Its length as first seen.
    pub(crate) length: Duration,
    /// How many times it fired and drew nothing.
    pub(crate) silent: u32,
    /// Whether it ever drew.
    pub(crate) drew: bool,
}

/// A timer a readiness wait said the reaction may still be drawn at.
#[derive(Clone, Debug)]
pub(crate) struct PendingTimer {
    /// The timer as the probe last saw it.
    pub(crate) timer: crate::readiness::Timer,
    /// Its length as first seen.
    pub(crate) length: Duration,
    /// When it is due.
    pub(crate) due_at: Instant,
    /// When the reply said it.
    pub(crate) said_at: Instant,
    /// The program whose timer it is.
    pub(crate) program: String,
}

/// The most timers beyond the bound a session remembers.
const LATE_KEPT: usize = 32;

/// Two timers are as long within 5% of the longer, or this: a period re-armed as what is
/// left of it, a little late under load.
const SAME_LENGTH: Duration = Duration::from_millis(2);

/// Whether two timers' lengths are the same (see [`SAME_LENGTH`]): how every rule of the
/// readiness waits compares a timer with one seen before.
pub(crate) fn as_long(a: Duration, b: Duration) -> bool {
    a.abs_diff(b) <= SAME_LENGTH.max(a.max(b) / 20)
}

/// How long after its due time a timer's drawing is looked for.
const DRAWS_WITHIN: Duration = Duration::from_millis(300);

/// How soon after a timer fires the draw it makes is looked for (a period's ticks, seen
/// at rest: a loaded machine schedules the woken thread within a few tens of ms).
const TICK_DRAWS_WITHIN: Duration = Duration::from_millis(50);

impl Learnt {
    /// Notes what the timer said pending last did, if it has fired since with no input in
    /// between: `reaction` has the timer and the last input, `changed_at` is when the
    /// screen last changed.
    pub(crate) fn observe(&mut self, reaction: &mut Reaction, changed_at: Instant) {
        let Some(pending) = &reaction.pending_timer else {
            return;
        };
        let now = Instant::now();
        // Unseen until the input after the reply, if any: it may have re-armed the timer.
        let watched_until = if reaction.input_instant > pending.said_at {
            reaction.input_instant
        } else {
            now
        };
        if watched_until < pending.due_at + DRAWS_WITHIN {
            return;
        }
        let drew = if changed_at <= pending.said_at {
            false
        } else if changed_at >= pending.due_at && changed_at <= pending.due_at + DRAWS_WITHIN {
            true
        } else {
            // Changed at another time (a clock, a spinner): nothing learnt.
            reaction.pending_timer = None;
            return;
        };
        let (program, length) = (pending.program.clone(), pending.length);
        reaction.pending_timer = None;
        let same = |r: &LateRecord| r.program == program && r.length.abs_diff(length) <= length / 20;
        match self.late.iter_mut().find(|r| same(r)) {
            Some(record) => {
                record.drew |= drew;
                record.silent += u32::from(!drew);
            }
            None => {
                if self.late.len() == LATE_KEPT {
                    self.late.remove(0);
                }
                self.late.push(LateRecord {
                    program,
                    length,
                    silent: u32::from(!drew),
                    drew,
                });
            }
        }
    }

    /// Notes, as input is about to be written, whether the screen changed since the
    /// program's last rest at a time nothing seen explains ([`Learnt::unprompted_draws`]):
    /// not a timer it rested with (within [`TICK_DRAWS_WITHIN`] after it fired; a period's
    /// later tick only if the screen changed on most of its ticks), not a resize, not what
    /// the last wait said was still pending or at work.
    pub(crate) fn note_unprompted(&mut self, reaction: &Reaction, changed_at: Instant, said: Option<&str>) {
        if self.unprompted_draws
            || reaction.settled < reaction.inputs
            || changed_at <= reaction.rested_at
            || reaction
                .resized_at
                .is_some_and(|at| changed_at.saturating_duration_since(at) < DRAWS_WITHIN)
        {
            return;
        }
        // Something said pending then (a timer, work in flight) may be what drew; a
        // signal timer seen armed is exactly what is looked for.
        let pending = said.is_some_and(|why| {
            crate::operation::pending_in(why).is_some_and(|p| {
                p.split("; ")
                    .any(|c| !c.contains("SIGALRM") && !c.contains("POSIX timer"))
            })
        });
        if pending {
            return;
        }
        // A timer it rested with explains the draw at its firing; a period, at one of its
        // ticks, only if it draws on most of them (a spinner, a clock) — a poller whose
        // ticks draw nothing (an input thread's 100 ms poll) explains nothing.
        let explained = reaction
            .resting
            .iter()
            .zip(&reaction.resting_due)
            .any(|(timer, due)| {
                // A draw comes right after the firing that made it, never before.
                if changed_at < *due {
                    return false;
                }
                let since = changed_at.duration_since(*due);
                let length = timer.due.max(Duration::from_millis(1));
                if since < length {
                    return since <= TICK_DRAWS_WITHIN;
                }
                let ticks = since.as_nanos() / length.as_nanos() + 1;
                let off = Duration::from_nanos((since.as_nanos() % length.as_nanos()) as u64);
                let changes = u128::from(reaction.changes_since_rest);
                off <= TICK_DRAWS_WITHIN && changes >= 2 && changes * 2 >= ticks
            });
        self.unprompted_draws = !explained;
    }

    /// Notes a period of `length` of process `pid`.
    pub(crate) fn note_period(&mut self, pid: i32, length: Duration) {
        if self.is_period(pid, length) {
            return;
        }
        if self.periods.len() == LATE_KEPT {
            self.periods.remove(0);
        }
        self.periods.push((pid, length));
    }

    /// Whether process `pid` has a period learnt as long as `length`.
    pub(crate) fn is_period(&self, pid: i32, length: Duration) -> bool {
        self.periods_of(pid).any(|l| as_long(l, length))
    }

    /// The periods learnt of process `pid`.
    pub(crate) fn periods_of(&self, pid: i32) -> impl Iterator<Item = Duration> + '_ {
        self.periods
            .iter()
            .filter(move |(p, _)| *p == pid)
            .map(|(_, l)| *l)
    }

    /// What was learnt of `program`'s timers of `length` beyond the bound, when they fired
    /// and never drew.
    pub(crate) fn silent_late(&self, program: &str, length: Duration) -> Option<&LateRecord> {
        self.late.iter().find(|r| {
            r.program == program && r.length.abs_diff(length) <= length / 20 && r.silent > 0 && !r.drew
        })
    }
}

/// What readiness waits learnt of the timers that follow one kind of input to one
/// program: how many reactions in a row had only timers that drew nothing, the whole
/// chain's length the last time, and whether any ever drew (`waiting::reaction::Chain`).
#[derive(Clone, Debug)]
pub(crate) struct TimerRecord {
    /// The program whose timers they were (its name).
    pub(crate) program: String,
    /// The input ([`Reaction::input_kind`]).
    pub(crate) input_kind: u64,
    pub(crate) silent: u32,
    /// The timers waited out the last time, in order.
    pub(crate) chain: Vec<Duration>,
    pub(crate) drew: bool,
}

impl Reaction {
    /// The input not yet seen reacted to, if any: its number.
    pub(crate) fn pending(&self) -> Option<u64> {
        (self.inputs > self.settled).then_some(self.inputs)
    }

    /// Notes a write of `bytes`.
    pub(crate) fn note_input(&mut self, bytes: &[u8]) {
        self.inputs += 1;
        self.sent_since_unread += bytes.len();
        self.input_at = crate::readiness::boot_time();
        self.input_instant = Instant::now();
        self.lone_escape = bytes == [0x1b];
        self.input_kind = if bytes.iter().all(|b| *b >= 0x20 && *b != 0x7f) {
            0
        } else {
            use std::hash::{Hash, Hasher};
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            bytes.hash(&mut hasher);
            hasher.finish().max(2)
        };
    }

    /// Notes that input number `input` was seen reacted to, the program then resting
    /// with `timers`.
    /// (`due`: when each of `timers` is due.)
    pub(crate) fn settle(&mut self, input: u64, timers: &[crate::readiness::Timer], due: Vec<Instant>) {
        self.settle_pending(input, timers, due, None);
    }

    /// [`Reaction::settle`], the reaction said to be still pending on timer `pending`.
    pub(crate) fn settle_pending(
        &mut self,
        input: u64,
        timers: &[crate::readiness::Timer],
        due: Vec<Instant>,
        pending: Option<PendingTimer>,
    ) {
        self.settled = self.settled.max(input);
        self.changes_since_rest = 0;
        self.remember_rest();
        self.resting = timers.to_vec();
        self.resting_due = due;
        self.rested_at = Instant::now();
        self.sleepers.clear();
        self.pending_timer = pending;
    }

    /// Keeps the last rest's timers among the `earlier` ones, but the one said pending
    /// (a debounce beyond the bound the program rests with until it fires), each thread's
    /// timer of a length once.
    fn remember_rest(&mut self) {
        let pending = self.pending_timer.as_ref().map(|p| &p.timer);
        for (timer, due) in self.resting.iter().zip(&self.resting_due) {
            let same_thread = |t: &crate::readiness::Timer| t.pid == timer.pid && t.tid == timer.tid;
            let same = |t: &crate::readiness::Timer| same_thread(t) && as_long(t.due, timer.due);
            if pending.is_some_and(same) {
                continue;
            }
            self.earlier.retain(|(t, _)| !same(t));
            if self.earlier.len() == LATE_KEPT {
                self.earlier.remove(0);
            }
            self.earlier.push((timer.clone(), *due));
        }
    }

    /// Notes the program seen done with no input to follow, resting with `timers` (a timer
    /// said pending is kept until seen fired: [`Learnt::observe`]).
    pub(crate) fn rest(&mut self, timers: &[crate::readiness::Timer], due: Vec<Instant>) {
        self.changes_since_rest = 0;
        self.remember_rest();
        self.resting = timers.to_vec();
        self.resting_due = due;
        self.rested_at = Instant::now();
    }
}

impl State {
    /// A session's state before any output; its story's times count from `started`.
    pub(crate) fn new(terminal: Terminal, log: OutputRing, started: Instant) -> State {
        let screen_fingerprint = terminal.fingerprint();
        State {
            terminal,
            generation: 0,
            log,
            exit: None,
            reader_done: false,
            closed: false,
            screen_fingerprint,
            changed_at: Instant::now(),
            whole_frames: true,
            frame_whole_at: None,
            story: super::story::Story::new(started),
            reaction: Reaction {
                inputs: 1,
                settled: 0,
                lone_escape: false,
                input_kind: 1,
                resting: Vec::new(),
                resting_due: Vec::new(),
                earlier: Vec::new(),
                rested_at: Instant::now(),
                pending_timer: None,
                unread_sleepers: Vec::new(),
                sent_since_unread: 0,
                no_readers: Vec::new(),
                input_instant: Instant::now(),
                resized_at: None,
                changes_since_rest: 0,
                input_at: crate::readiness::boot_time(),
                sleepers: Vec::new(),
            },
            reaction_bound: crate::wait::REACTION_BOUND,
            last_waited: None,
            last_send_screen: None,
            learnt: Learnt::default(),
        }
    }

    /// Notes the screen after the terminal changed (output, a resize): if it looks
    /// different, it changed now.
    pub(crate) fn note_screen(&mut self) {
        let fingerprint = self.terminal.fingerprint();
        if fingerprint != self.screen_fingerprint {
            self.screen_fingerprint = fingerprint;
            self.changed_at = Instant::now();
            self.reaction.changes_since_rest = self.reaction.changes_since_rest.saturating_add(1);
        }
    }

    /// The keys sent and the recording a failed test keeps (see `artifacts`).
    pub(crate) fn story_files(&self) -> crate::artifacts::SessionFiles {
        let (cols, rows) = self.terminal.size();
        crate::artifacts::SessionFiles {
            keys: self.story.keys(),
            cast: self.story.cast(&self.log, cols, rows),
            inputs: self.story.inputs(),
            waits: self.story.waits(),
            uptime: self.story.started().elapsed().as_secs_f64(),
        }
    }

    pub(crate) fn snapshot(&self) -> Snapshot {
        let mut snap = self.terminal.snapshot();
        snap.exit = self.exit;
        snap
    }
}

impl Shared {
    pub(crate) fn new(state: State) -> Shared {
        Shared {
            state: Mutex::new(state),
            waiting: AtomicUsize::new(0),
            doorbell: Mutex::new(0),
            rung: Condvar::new(),
            in_flight: AtomicUsize::new(0),
            unwritten: AtomicUsize::new(0),
            traffic: std::sync::atomic::AtomicU64::new(0),
            probe: std::sync::OnceLock::new(),
            reader_tid: std::sync::atomic::AtomicI32::new(0),
        }
    }

    /// Notes `bytes` read from the PTY, on their way to the parser.
    pub(crate) fn note_read(&self, bytes: usize) {
        self.in_flight.fetch_add(bytes, Ordering::SeqCst);
        self.traffic.fetch_add(1, Ordering::SeqCst);
    }

    /// Notes `bytes` put on the screen.
    pub(crate) fn note_parsed(&self, bytes: usize) {
        self.in_flight.fetch_sub(bytes, Ordering::SeqCst);
        self.traffic.fetch_add(1, Ordering::SeqCst);
    }

    /// Notes `bytes` queued for the writer thread. A query's reply is noted before the
    /// output that asked is counted as on the screen, so one of the two is always seen.
    pub(crate) fn note_queued(&self, bytes: usize) {
        self.unwritten.fetch_add(bytes, Ordering::SeqCst);
        self.traffic.fetch_add(1, Ordering::SeqCst);
    }

    /// Notes `bytes` written to the PTY (or dropped by a failed write).
    pub(crate) fn note_written(&self, bytes: usize) {
        self.unwritten.fetch_sub(bytes, Ordering::SeqCst);
        self.traffic.fetch_add(1, Ordering::SeqCst);
    }

    /// Bytes queued for the program and not yet written to the PTY.
    pub(crate) fn unwritten(&self) -> usize {
        self.unwritten.load(Ordering::SeqCst)
    }

    /// How many times bytes have moved between the PTY and the screen (see `traffic`).
    pub(crate) fn traffic(&self) -> u64 {
        self.traffic.load(Ordering::SeqCst)
    }

    /// Bytes read from the PTY and not yet on the screen.
    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::SeqCst)
    }

    /// Notes the calling thread as the PTY reader.
    pub(crate) fn note_reader_thread(&self) {
        #[cfg(target_os = "linux")]
        self.reader_tid
            .store(crate::process::current_thread_id(), Ordering::SeqCst);
    }

    /// Whether the PTY reader is at work: anywhere but asleep in its read, where it may
    /// hold output read from the terminal and not yet counted as in flight.
    pub(crate) fn reader_at_work(&self) -> bool {
        match self.reader_tid.load(Ordering::SeqCst) {
            0 => false,
            tid => !crate::readiness::own_thread_in_read(tid),
        }
    }

    /// Gives the session its readiness probe (once).
    pub(crate) fn set_probe(&self, probe: crate::readiness::Probe) {
        let _ = self.probe.set(probe);
    }

    /// The readiness probe, once the PTY exists.
    pub(crate) fn probe(&self) -> Option<&crate::readiness::Probe> {
        self.probe.get()
    }

    /// Takes the state lock, saying so while blocked so the parser lets this reader in.
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave State half-updated in a way that
        // matters more than losing the session, so keep going with the data.
        match self.state.try_lock() {
            Ok(guard) => return guard,
            Err(TryLockError::Poisoned(p)) => return p.into_inner(),
            Err(TryLockError::WouldBlock) => {}
        }
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let guard = self.state.lock().unwrap_or_else(|p| p.into_inner());
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        guard
    }

    /// Called by the parser after releasing the lock: if readers are blocked on it, let
    /// them take it before the parser does again (for at most [`READERS_TURN`]).
    pub(crate) fn let_readers_in(&self) {
        if self.waiting.load(Ordering::SeqCst) == 0 {
            return;
        }
        let start = Instant::now();
        while self.waiting.load(Ordering::SeqCst) > 0 && start.elapsed() < READERS_TURN {
            std::thread::yield_now();
        }
    }

    /// Releases the lock and sleeps until the doorbell rings or `timeout` passes, then
    /// takes the lock again. A ring between the caller's check and this sleep is not
    /// missed: the count is read before the lock is released.
    pub(crate) fn sleep<'a>(
        &'a self,
        guard: MutexGuard<'a, State>,
        timeout: Duration,
    ) -> MutexGuard<'a, State> {
        let mut rings = self.doorbell.lock().unwrap_or_else(|p| p.into_inner());
        let seen = *rings;
        drop(guard);
        let deadline = Instant::now() + timeout;
        while *rings == seen {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            rings = match self.rung.wait_timeout(rings, deadline - now) {
                Ok((rings, _)) => rings,
                Err(p) => p.into_inner().0,
            };
        }
        drop(rings);
        self.lock()
    }

    /// Wakes every sleeper.
    pub(crate) fn notify(&self) {
        *self.doorbell.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        self.rung.notify_all();
    }
}

/// Turns at sending input, served in the order they were asked for: one request's steps
/// (and the baseline its wait starts from) go to the program as one unit, and requests
/// from several threads or clients run in arrival order. A ticket lock, because std's
/// mutex is neither fair nor ordered.
#[derive(Default)]
pub(crate) struct InputTurns {
    /// (next ticket to hand out, ticket being served)
    tickets: Mutex<(u64, u64)>,
    turn_over: Condvar,
}

/// The right to send; the next caller's turn starts when it is dropped.
pub(crate) struct InputTurn<'a>(&'a InputTurns);

impl InputTurns {
    /// Waits for this caller's turn.
    pub(crate) fn take(&self) -> InputTurn<'_> {
        let mut tickets = self.tickets.lock().unwrap_or_else(|p| p.into_inner());
        let mine = tickets.0;
        tickets.0 += 1;
        while tickets.1 != mine {
            tickets = self.turn_over.wait(tickets).unwrap_or_else(|p| p.into_inner());
        }
        InputTurn(self)
    }
}

impl Drop for InputTurn<'_> {
    fn drop(&mut self) {
        self.0.tickets.lock().unwrap_or_else(|p| p.into_inner()).1 += 1;
        self.0.turn_over.notify_all();
    }
}
