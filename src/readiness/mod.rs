//! Whether the program has finished reacting and waits for the next key, asked of the
//! kernel rather than guessed from the screen.
//!
//! A program waits for input when every thread of every process in the terminal's
//! foreground process group is asleep and one of them is blocked on the terminal: in a
//! `read` of it, or in `poll`, `ppoll`, `select`, `pselect6`, `epoll_wait` or
//! `epoll_pwait(2)` with it among the watched descriptors. The probe reads that from
//! `/proc`: the foreground group from the PTY (`tcgetpgrp`), its processes by walking the
//! session's process tree, each thread's state (`task/TID/stat`) and system call
//! (`task/TID/syscall`: its number and arguments); the descriptors a `poll` or `select`
//! watches from the process's memory (`/proc/PID/mem`, which the host may read as the
//! program's ancestor), an epoll set from `/proc/PID/fdinfo`. A descriptor is the terminal
//! when it is the PTY's slave device, or `/dev/tty` in a process whose controlling
//! terminal that is.
//!
//! Every wake-up source the kernel shows is followed, per thread ([`Timer`]: a period
//! belongs to one thread, and a poller's tick in one hides nothing in another): relative
//! timeouts (`poll`, `select`, `epoll_wait`, `nanosleep`, `FUTEX_WAIT`, `sigtimedwait`),
//! absolute deadlines (`clock_nanosleep` with `TIMER_ABSTIME` — Python's `time.sleep` —,
//! `FUTEX_WAIT_BITSET` and `futex_waitv` — `pthread_cond_timedwait`, every `threading`
//! wait with a timeout —, counted against the clock they name), timerfds watched or read.
//! The reaction's work is looked for wherever it runs: besides the foreground group, every
//! process of the session's tree and every process on the terminal (a grandchild whose
//! parent is gone) that started after the input — a child in a process group or session of
//! its own (fzf's preview) — whose running is work in flight and whose timers are timers of
//! the reaction; and a descendant started before the input outside the foreground group
//! (GNU screen's back end and the shell inside it, a language server) is at work while
//! one of its threads runs, and at rest otherwise. Each sleep of a thread is told from the
//! next by how often it has been scheduled ([`Timer::runs`]), so a relative timeout is
//! counted from when it was first seen. Signal timers
//! (`setitimer`, `timer_create`) have no due time in `/proc`: a POSIX timer created or a
//! SIGALRM handler installed since the input is said (`unseen`), never assumed away; a
//! SIGALRM handler installed before it is said too, as what could not be looked at
//! (`hidden`): re-arming `setitimer` under it leaves no trace there.
//!
//! Anything else is *busy*, with the reason: a thread running, output not yet read from the
//! PTY, a shell waiting for its child, a program sleeping on a timer, blocked on a pipe or
//! socket with the terminal not watched. Where the probe cannot see (no `/proc`, another
//! architecture, a program whose system calls its user may not read, such as a setuid one)
//! it says so: the caller then falls back to a quiet screen.
//!
//! This module knows the PTY and `/proc`, nothing of screens; the session combines its
//! answer with what only the session knows (output read but not yet on the screen).

use std::fmt;
use std::os::fd::RawFd;
use std::path::PathBuf;

/// The probe's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Readiness {
    /// The program waits for input: `program` (pid `pid`) is blocked on the terminal in
    /// the way `how` says (`reading the terminal`, `polling the terminal (ppoll)`).
    Ready {
        /// The process blocked on the terminal.
        pid: i32,
        /// Its name (`/proc/PID/comm`).
        program: String,
        /// How it waits.
        how: String,
        /// The soonest a thread of the foreground group wakes by itself (a poll, select,
        /// epoll or sleep with a timeout: a spinner's tick, a debounced redraw, a runtime's
        /// timer), as its call was made: the program may draw then without new input.
        wakes_in: Option<std::time::Duration>,
        /// Every thread's own timer, each kept apart: a period belongs to one thread, and
        /// a poller's tick in one says nothing of a one-shot timer in another.
        timers: Vec<Timer>,
        /// Work the input started that goes on outside the foreground group (a child in a
        /// process group or session of its own, a grandchild whose parent is gone),
        /// running: its result may be drawn when it is done.
        in_flight: Vec<String>,
        /// What may still draw at a time the kernel does not show: a signal timer
        /// (`setitimer`, `timer_create`) armed in a process of the reaction.
        unseen: Vec<String>,
        /// What could draw at a time the kernel does not show, with no sign that the input
        /// armed it: a process catching SIGALRM with a handler it installed before the
        /// input (re-arming `setitimer` under it changes nothing `/proc` shows).
        hidden: Vec<String>,
    },
    /// The program is not waiting for input yet.
    Busy {
        /// The process the reason is about, when it is about one.
        pid: Option<i32>,
        /// Its name.
        program: Option<String>,
        /// What it is doing (`running`, `in clock_nanosleep`, `waiting for a child`,
        /// `output not yet read`).
        why: String,
        /// The soonest a sleeping thread of the foreground group wakes by itself (a timer),
        /// when one does: the program goes on then without anything from outside.
        wakes_in: Option<std::time::Duration>,
        /// Every thread of the group is asleep in a way only its own timers (or each
        /// other, or a signal) can end — on a timer, for a child, on a lock, in `pause` —
        /// none on a pipe, a socket or a file that the world could wake: nothing it writes
        /// can come before `wakes_in` (a program that printed and sleeps).
        idle: bool,
        /// The threads asleep on a timer of their own (see [`Timer`]).
        timers: Vec<Timer>,
        /// A thread of the group waits for a child process (a shell for its command).
        for_child: bool,
    },
    /// The probe cannot tell, and why; the caller falls back to a quiet screen.
    Unknown {
        /// Why it cannot tell.
        why: String,
    },
}

/// A thread that wakes by itself: when, and whose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timer {
    /// The process.
    pub pid: i32,
    /// The thread (its task id; the process's own pid for its main thread).
    pub tid: i32,
    /// The process's name and, for a thread other than the main one, the thread's
    /// (`python3`, `python3 (thread asyncio_0)`).
    pub owner: String,
    /// How long until it wakes, as the probe saw it. A relative timeout (`poll`'s, a
    /// relative `nanosleep`'s) is shown whole for as long as the thread sleeps in it; a
    /// deadline's is what is left of it.
    pub due: std::time::Duration,
    /// How many times the thread had been scheduled in when it was seen (the third field of
    /// `/proc/PID/task/TID/schedstat`): a thread still asleep in the same call keeps the
    /// same count, so two sightings with the same count are the same sleep — its timer
    /// counts from the first of them — and a new count is a new sleep. `None` where the
    /// kernel does not keep it.
    pub runs: Option<u64>,
}

impl Readiness {
    /// Whether the program waits for input.
    pub fn is_ready(&self) -> bool {
        matches!(self, Readiness::Ready { .. })
    }

    /// Whether the program is at work rather than asleep: a thread running, or output or
    /// input still on its way. (Asleep — on a timer, a child, a pipe — it may still be busy,
    /// but it writes nothing until something wakes it.)
    pub fn is_working(&self) -> bool {
        match self {
            Readiness::Busy { why, .. } => {
                why == "running" || why.starts_with("output not yet") || why.starts_with("input not yet")
            }
            _ => false,
        }
    }

    /// Whether nothing can make the program write before `soon` has passed: every thread
    /// asleep, only its own timers due, none of them by then (see `Busy::idle`).
    pub fn idle_for(&self, soon: std::time::Duration) -> bool {
        matches!(self, Readiness::Busy { idle: true, wakes_in, .. } if wakes_in.is_none_or(|t| t > soon))
    }

    /// Whether the program is busy and wakes by itself within `soon` (a thread asleep on
    /// a timer due by then: a pause in the middle of drawing, not a wait for the world).
    pub fn wakes_within(&self, soon: std::time::Duration) -> bool {
        matches!(self, Readiness::Busy { wakes_in: Some(t), .. } if *t <= soon)
    }

    fn busy(process: Option<&Process>, why: impl Into<String>) -> Readiness {
        Readiness::Busy {
            pid: process.map(|p| p.pid),
            program: process.map(|p| p.name.clone()),
            why: why.into(),
            wakes_in: None,
            idle: false,
            timers: Vec::new(),
            for_child: false,
        }
    }

    /// Busy for a reason about no one process (`output not yet on the screen`, `the
    /// program has exited`): what the session adds to the kernel's answer.
    pub(crate) fn busy_for(why: impl Into<String>) -> Readiness {
        Readiness::busy(None, why)
    }

    fn unknown(why: impl Into<String>) -> Readiness {
        Readiness::Unknown { why: why.into() }
    }
}

impl fmt::Display for Readiness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Readiness::Ready {
                pid, program, how, ..
            } => write!(f, "ready: {program} (pid {pid}) {how}"),
            Readiness::Busy {
                pid: Some(pid),
                program: Some(program),
                why,
                ..
            } => write!(f, "busy: {program} (pid {pid}) {why}"),
            Readiness::Busy { why, .. } => write!(f, "busy: {why}"),
            Readiness::Unknown { why } => write!(f, "readiness unknown: {why}"),
        }
    }
}

/// What the probe needs of a session's terminal: the PTY's master descriptor (owned by the
/// session, which keeps it open as long as the probe is used), the slave's device, and the
/// process the session started (the root of the tree the foreground group is found in).
#[derive(Clone, Debug)]
pub struct Probe {
    master: RawFd,
    slave: Option<(PathBuf, u64)>,
    leader: i32,
    /// Processes on the terminal that are not (or no longer) in the leader's tree — a
    /// grandchild whose parent exited is the init process's child — found by a scan of
    /// `/proc`, which is made at most every [`SCAN_EVERY`].
    strays: std::sync::Arc<std::sync::Mutex<Scan>>,
    /// The signal timers each process had at the last look and when the last input came
    /// (see [`SignalMarks`]).
    signals: std::sync::Arc<std::sync::Mutex<SignalHistory>>,
}

/// What the last probe saw of the program's processes: the pids of the session's tree
/// (to notice one gone, its children orphaned), and when a probe first saw each process
/// it looked at (on the boot clock), by pid and start time (a pid used again starts at
/// another time).
#[derive(Debug, Default)]
pub(crate) struct Seen {
    pub(crate) tree: Vec<i32>,
    first: std::collections::HashMap<i32, (u64, std::time::Duration)>,
}

impl Seen {
    /// When process `pid`, started at `started` (clock ticks since boot), was first seen.
    pub(crate) fn first(&self, pid: i32, started: u64) -> Option<std::time::Duration> {
        self.first
            .get(&pid)
            .filter(|(start, _)| *start == started)
            .map(|(_, seen)| *seen)
    }

    /// Notes that process `pid`, started at `started`, was first seen at `seen`.
    pub(crate) fn note(&mut self, pid: i32, started: u64, seen: std::time::Duration) {
        self.first.insert(pid, (started, seen));
    }
}

/// The processes there were before a program's terminal was made, each by its `/proc`
/// entry's inode number ([`Probe::processes_now`]).
#[derive(Debug, Default)]
pub struct EarlierProcesses(std::collections::HashMap<i32, u64>);

/// What a process shows of its signal timers: the ids of its POSIX timers
/// (`/proc/PID/timers`) and whether it catches SIGALRM (`setitimer`, `alarm`). Their due
/// times are not shown anywhere: a timer created, or a SIGALRM handler installed, since the
/// input is the evidence a reaction may still be drawn by one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SignalMarks {
    pub(crate) timers: Vec<u64>,
    pub(crate) alarm: bool,
}

/// Each process's [`SignalMarks`] at the last look that found the program ready (at rest:
/// its start's handlers installed), and as they were when the last input came.
#[derive(Debug, Default)]
pub(crate) struct SignalHistory {
    pub(crate) latest: std::collections::HashMap<i32, SignalMarks>,
    pub(crate) at_input: Option<(std::time::Duration, std::collections::HashMap<i32, SignalMarks>)>,
}

/// A look through every process for those on the terminal, and the processes the last
/// probe found.
#[derive(Debug, Default)]
struct Scan {
    /// When the look was made (`None`: never).
    at: Option<std::time::Instant>,
    /// The strays it found on the terminal.
    strays: Vec<i32>,
    /// The processes it found off the terminal, by their `/proc` entries' inode numbers:
    /// not read again at the next look (see `linux::on_terminal`).
    off: std::collections::HashMap<i32, u64>,
    /// What the last probe saw of the program's processes.
    seen: Seen,
}

/// How often the probe looks through every process for strays on the terminal.
const SCAN_EVERY: std::time::Duration = std::time::Duration::from_millis(20);

impl Probe {
    /// A probe of the terminal whose master is `master` and slave is `slave` (its path),
    /// for the program started as `leader`.
    pub fn new(master: RawFd, slave: Option<PathBuf>, leader: i32) -> Probe {
        use std::os::unix::fs::MetadataExt;
        let slave = slave.and_then(|path| {
            let device = std::fs::metadata(&path).ok()?.rdev();
            Some((path, device))
        });
        Probe {
            master,
            slave,
            leader,
            strays: Default::default(),
            signals: Default::default(),
        }
    }

    /// Every process there is now, to be given to [`knowing_earlier`](Self::knowing_earlier)
    /// by whoever makes the program's terminal: listed before it exists (the listing alone,
    /// tens of microseconds), none of them can have it as their controlling terminal.
    pub fn processes_now() -> EarlierProcesses {
        EarlierProcesses(linux::listed().collect())
    }

    /// The probe, told which processes were there before the program's terminal was made
    /// ([`processes_now`](Self::processes_now)): its first look for processes on the
    /// terminal reads none of them (a `stat` read costs the kernel ~14 µs a process: a
    /// millisecond on a quiet machine, more on a busy one, in every session's first wait).
    pub fn knowing_earlier(self, earlier: EarlierProcesses) -> Probe {
        let mut scan = self.strays.lock().unwrap_or_else(|p| p.into_inner());
        scan.off = earlier.0;
        drop(scan);
        self
    }

    /// How many bytes of input the terminal holds that the program has not read yet.
    pub fn unread_input(&self) -> usize {
        self.slave
            .as_ref()
            .map_or(0, |(path, _)| usize::try_from(unread_input(path)).unwrap_or(0))
    }

    /// Whether the program waits for input now (see the module's docs).
    pub fn check(&self) -> Readiness {
        self.check_since(None, false, false)
    }

    /// Whether the program waits for input now, counting as part of its reaction the
    /// processes outside the foreground group that started after `input` (the time of the
    /// last input on the boot clock, [`boot_time`]): a child the input started in a group
    /// or session of its own; not a background job started before it. `following`: a
    /// reaction is being followed, so the processes on the terminal are looked for afresh
    /// when one the last look found is gone (a grandchild orphaned a moment ago is no
    /// longer in the tree); `confirming`: the answer is to confirm a "ready", so they are
    /// looked for afresh now.
    pub fn check_since(
        &self,
        input: Option<std::time::Duration>,
        following: bool,
        confirming: bool,
    ) -> Readiness {
        // Output not yet read: busy, without asking about the processes.
        if pending_bytes(self.master) > 0 {
            return Readiness::busy(None, "output not yet read from the terminal");
        }
        let Some((path, slave)) = &self.slave else {
            return Readiness::unknown("the terminal's device is not known");
        };
        let unread = unread_input(path) > 0;
        // The strays are looked for afresh at most every SCAN_EVERY, and at once when a
        // process of the last probe's is gone while a reaction is followed (a child that
        // exits orphans its children, which leave the tree).
        let mut cached = self.strays.lock().unwrap_or_else(|p| p.into_inner());
        let mut signals = self.signals.lock().unwrap_or_else(|p| p.into_inner());
        let scan = &mut *cached;
        let last_tree = scan.seen.tree.clone();
        let fresh_enough = scan.at.is_some_and(|at| at.elapsed() < SCAN_EVERY);
        let mut fresh = !fresh_enough || (following && confirming);
        let strays = match fresh {
            true => linux::on_terminal(*slave, &mut scan.off),
            false => scan.strays.clone(),
        };
        let mut ask = |strays: &[i32], seen: &mut Seen| {
            linux::check(
                self.master,
                *slave,
                self.leader,
                strays,
                input,
                &mut signals,
                seen,
            )
        };
        let mut answer = ask(&strays, &mut scan.seen);
        let mut strays = strays;
        if following && !fresh && last_tree.iter().any(|pid| !scan.seen.tree.contains(pid)) {
            strays = linux::on_terminal(*slave, &mut scan.off);
            answer = ask(&strays, &mut scan.seen);
            fresh = true;
        }
        if fresh {
            scan.at = Some(std::time::Instant::now());
        }
        scan.strays = strays;
        drop(signals);
        drop(cached);
        // Output is looked at again after the processes: a process that drew and then
        // rested or ended while they were read (a child of the input whose whole life
        // fell between two probes) left its output on its way between the terminal's
        // sides (see `pending_bytes`), where under load it stays for tens of
        // milliseconds, unseen by the session's reader until then.
        if pending_bytes(self.master) > 0 {
            return Readiness::busy(None, "output not yet read from the terminal");
        }
        if !unread {
            return answer;
        }
        // Input is waiting to be read: busy, with what the program's threads are doing (a
        // program asleep on its own timer reads it only when it wakes: nmon).
        match &mut answer {
            Readiness::Busy { why, .. } => *why = format!("input not yet read by the program ({why})"),
            _ => answer = Readiness::busy(None, "input not yet read by the program"),
        }
        answer
    }
}

/// Now on the boot clock (`CLOCK_BOOTTIME`, what a process's start time in `/proc` counts
/// on), for [`Probe::check_since`].
pub fn boot_time() -> std::time::Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through the pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut now) };
    std::time::Duration::new(now.tv_sec.max(0) as u64, now.tv_nsec.clamp(0, 999_999_999) as u32)
}

/// Bytes waiting to be read on `fd` (`FIONREAD`; 0 when it cannot be asked).
///
/// A write to one side of a PTY is not in the other side's queue at once: the kernel hands
/// it over from a work queue, which a loaded machine runs milliseconds later, and until
/// then `FIONREAD` says 0 while the bytes are on their way. A terminal's `poll` runs that
/// pending hand-over before it answers (Linux's line discipline does), so a zero-timeout
/// poll comes first and the count then includes every byte already written.
fn pending_bytes(fd: RawFd) -> libc::c_int {
    let mut ask = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one pollfd, zero timeout; a bad descriptor is reported in `revents`.
    unsafe { libc::poll(&mut ask, 1, 0) };
    let mut pending: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int through the pointer; a bad descriptor is an error.
    let r = unsafe { libc::ioctl(fd, libc::FIONREAD, &mut pending) };
    if r == 0 { pending } else { 0 }
}

/// Input written to the terminal that the program has not read: what the slave side holds
/// for reading (whole lines only, in canonical mode, so a line being typed is not counted).
/// The slave is opened for the question and closed at once, never kept: a slave held
/// open would keep the master from seeing the program hang up.
fn unread_input(slave: &std::path::Path) -> libc::c_int {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOCTTY | libc::O_NONBLOCK)
        .open(slave)
    {
        Ok(file) => pending_bytes(file.as_raw_fd()),
        Err(_) => 0,
    }
}

/// Whether thread `tid` of this process is asleep in a `read` (where the kernel says;
/// elsewhere, always). The session asks it of its PTY reader, which is at rest only
/// there: anywhere else it may hold output it took from the terminal and has not yet
/// counted — running, runnable, or in an uninterruptible sleep (a page fault while the
/// bytes are copied out, waiting on the address space's lock another thread holds: seen
/// for 10–20 ms on a loaded machine, with the terminal's queue already empty).
pub(crate) fn own_thread_in_read(tid: i32) -> bool {
    #[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        linux::asleep_in_read(&format!("/proc/self/task/{tid}"))
    }
    #[cfg(not(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64"))))]
    {
        let _ = tid;
        true
    }
}

/// A process of the foreground group.
#[derive(Clone, Debug)]
#[cfg_attr(
    not(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64"))),
    allow(dead_code)
)]
struct Process {
    pid: i32,
    name: String,
    /// Its controlling terminal's device (`stat` field 7).
    tty: u64,
    /// Whether it is in the terminal's foreground process group (else a descendant or a
    /// process on the terminal that started after the input).
    foreground: bool,
    /// Whether it started after the last input.
    after_input: bool,
    /// A descendant of the program outside the foreground group that started before the
    /// input (GNU screen's back end and the shell inside it, a language server): at work
    /// only while one of its threads runs.
    background: bool,
}

#[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
mod linux;

#[cfg(not(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64"))))]
mod linux {
    use std::os::fd::RawFd;

    use super::Readiness;

    pub(super) fn check(
        _: RawFd,
        _: u64,
        _: i32,
        _: &[i32],
        _: Option<std::time::Duration>,
        _: &mut super::SignalHistory,
        _: &mut super::Seen,
    ) -> Readiness {
        Readiness::unknown("the kernel's view of a program is read from Linux's /proc, on x86-64 and arm64")
    }

    pub(super) fn on_terminal(_: u64, _: &mut std::collections::HashMap<i32, u64>) -> Vec<i32> {
        Vec::new()
    }

    pub(super) fn listed() -> impl Iterator<Item = (i32, u64)> {
        std::iter::empty()
    }

    pub(super) fn process_name(_: i32) -> Option<String> {
        None
    }
}

/// The name of the live process `pid` on this machine (`/proc/PID/comm`): what a process
/// list shows of it. `None` when there is none, or where `/proc` is not read.
pub fn process_name(pid: i32) -> Option<String> {
    linux::process_name(pid)
}

#[cfg(test)]
#[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
mod tests {
    use std::io::{Read, Write};
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    use super::own_thread_in_read;

    /// Starts a thread that sends its id, then does `work`; returns the id.
    fn thread_doing(work: impl FnOnce() + Send + 'static) -> i32 {
        let (tid_tx, tid_rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tid_tx.send(crate::process::current_thread_id());
            work();
        });
        tid_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("the thread started")
    }

    /// Whether `holds` becomes true of `tid` within 10 s.
    fn becomes(tid: i32, holds: impl Fn(i32) -> bool) -> bool {
        let end = Instant::now() + Duration::from_secs(10);
        while Instant::now() < end {
            if holds(tid) {
                return true;
            }
            std::thread::yield_now();
        }
        false
    }

    /// The syscall a thread of this process is in (`running` while it runs).
    fn call_of(tid: i32) -> String {
        std::fs::read_to_string(format!("/proc/self/task/{tid}/syscall")).unwrap_or_default()
    }

    #[test]
    fn a_reader_blocked_in_read_is_at_rest_and_one_elsewhere_is_not() {
        let (mut reader, mut writer) = std::io::pipe().unwrap();
        let (done_tx, done_rx) = mpsc::channel();
        let tid = thread_doing(move || {
            let mut byte = [0u8; 1];
            let _ = reader.read(&mut byte);
            let _ = done_tx.send(());
            // Then asleep, but not in a read: a reader between two reads.
            std::thread::sleep(Duration::from_secs(30));
        });
        assert!(
            becomes(tid, own_thread_in_read),
            "the reader was never seen asleep in its read"
        );
        writer.write_all(b"x").unwrap();
        done_rx.recv_timeout(Duration::from_secs(10)).unwrap();
        let sleeping = libc::SYS_clock_nanosleep.to_string();
        let nanosleep = libc::SYS_nanosleep.to_string();
        assert!(becomes(tid, |tid| {
            let call = call_of(tid);
            let number = call.split_whitespace().next().unwrap_or("");
            number == sleeping || number == nanosleep
        }));
        assert!(
            !own_thread_in_read(tid),
            "a thread asleep in {} is not in a read",
            call_of(tid)
        );
        // This thread, running: not in a read either.
        assert!(!own_thread_in_read(crate::process::current_thread_id()));
    }
}
