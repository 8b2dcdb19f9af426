//! The probe on Linux (x86-64 and arm64): the foreground group's processes and threads
//! from `/proc`, each thread's system call and what it waits on — see the parent module.

use std::os::fd::RawFd;
use std::time::Duration;

use super::{Process, Readiness, Seen, SignalHistory, Timer};

mod processes;
use processes::{
    SignalTimers, alive, members, note_input, owner, parent_of, proc_text, renamed, signal_timers,
    started_after,
};
pub(super) use processes::{listed, on_terminal, process_name, state_letter};

/// System call numbers of this architecture, as libc has them; the calls arm64 does not
/// have (it polls, selects and waits on epoll only through the `p` variants) are `None`.
mod nr {
    pub const READ: i64 = libc::SYS_read;
    pub const READV: i64 = libc::SYS_readv;
    pub const PREAD64: i64 = libc::SYS_pread64;
    pub const PPOLL: i64 = libc::SYS_ppoll;
    pub const PSELECT6: i64 = libc::SYS_pselect6;
    pub const EPOLL_PWAIT: i64 = libc::SYS_epoll_pwait;
    pub const EPOLL_PWAIT2: i64 = libc::SYS_epoll_pwait2;
    pub const WAIT4: i64 = libc::SYS_wait4;
    pub const WAITID: i64 = libc::SYS_waitid;
    pub const NANOSLEEP: i64 = libc::SYS_nanosleep;
    pub const CLOCK_NANOSLEEP: i64 = libc::SYS_clock_nanosleep;
    pub const FUTEX: i64 = libc::SYS_futex;
    pub const FUTEX_WAITV: i64 = libc::SYS_futex_waitv;
    pub const RT_SIGTIMEDWAIT: i64 = libc::SYS_rt_sigtimedwait;
    #[cfg(target_arch = "x86_64")]
    pub const POLL: Option<i64> = Some(libc::SYS_poll);
    #[cfg(target_arch = "x86_64")]
    pub const SELECT: Option<i64> = Some(libc::SYS_select);
    #[cfg(target_arch = "x86_64")]
    pub const EPOLL_WAIT: Option<i64> = Some(libc::SYS_epoll_wait);
    #[cfg(target_arch = "x86_64")]
    pub const PAUSE: Option<i64> = Some(libc::SYS_pause);
    #[cfg(not(target_arch = "x86_64"))]
    pub const POLL: Option<i64> = None;
    #[cfg(not(target_arch = "x86_64"))]
    pub const SELECT: Option<i64> = None;
    #[cfg(not(target_arch = "x86_64"))]
    pub const EPOLL_WAIT: Option<i64> = None;
    #[cfg(not(target_arch = "x86_64"))]
    pub const PAUSE: Option<i64> = None;
}

/// The most threads the probe looks at, over all the program's processes: past them the
/// wait says why and watches the screen instead.
const MAX_THREADS: usize = 16384;

/// What one thread is doing.
enum Thread {
    Running,
    /// Blocked on the terminal, in the way the text says.
    OnTerminal(String, Option<Duration>),
    /// Asleep in a call with a timeout of its own: it wakes by itself then.
    Timed(Sleep, Duration),
    /// Asleep for another reason.
    Asleep(Sleep),
    /// Its system call cannot be read.
    Unreadable(String),
}

/// Why a thread sleeps, most telling first.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Sleep {
    Timer(&'static str),
    Other(String),
    /// Reading a terminal that is not the session's (the shell inside GNU screen or tmux,
    /// on their own pseudo-terminal): waiting for its own input, not at work.
    AnotherTerminal(String),
    Child,
    Lock,
    /// In `pause`: only a signal wakes it (GNU screen's front end, whose input its back
    /// end reads).
    Pause,
    /// Gone, or a zombie: it holds nothing up.
    Exiting,
}

impl Sleep {
    fn words(&self) -> String {
        match self {
            Sleep::Timer(call) => format!("sleeping on a timer ({call})"),
            Sleep::Other(what) => what.clone(),
            Sleep::AnotherTerminal(path) => format!("reading another terminal ({path})"),
            Sleep::Child => "waiting for a child process".into(),
            Sleep::Lock => "waiting on a lock".into(),
            Sleep::Pause => "asleep in pause (only a signal wakes it)".into(),
            Sleep::Exiting => "exiting".into(),
        }
    }
}

pub(super) fn check(
    master: RawFd,
    slave: u64,
    leader: i32,
    strays: &[i32],
    input: Option<Duration>,
    signals: &mut SignalHistory,
    seen: &mut Seen,
) -> Readiness {
    if !std::path::Path::new("/proc/self/stat").exists() {
        return Readiness::unknown("/proc is not mounted");
    }
    // SAFETY: tcgetpgrp only reads the descriptor's terminal state.
    let group = unsafe { libc::tcgetpgrp(master) };
    if group <= 0 && !alive(leader) {
        // The session's program has ended and taken the terminal's session with it.
        return Readiness::busy(None, "the program has ended");
    }
    if group <= 0 {
        return Readiness::unknown(format!(
            "the terminal has no foreground process group ({})",
            std::io::Error::last_os_error()
        ));
    }
    let members = match members(leader, group, strays, input, seen) {
        Ok(members) if members.iter().any(|p| p.foreground) => members,
        Ok(_) => return Readiness::busy(None, "no process in the terminal's foreground group"),
        Err(why) => return Readiness::unknown(why),
    };
    // Work outside the foreground group, and timers whose due time cannot be read.
    let mut in_flight: Vec<String> = Vec::new();
    note_input(input, signals);
    // Whether the program was seen at rest before this input: at its start every thread
    // is new, and a helper thread asleep on its pipe is its rest, not the reaction's work.
    let rested_before = signals
        .at_input
        .as_ref()
        .is_some_and(|(_, before)| !before.is_empty());
    let mut ready: Option<(Process, String)> = None;
    // The soonest timer of any thread: the program may draw then without new input; and
    // each thread's, kept apart.
    let mut soonest: Option<Duration> = None;
    let mut timers: Vec<Timer> = Vec::new();
    let mut note_timer = |process: &Process, tid: i32, timer: Option<Duration>| {
        if let Some(t) = timer {
            soonest = Some(soonest.map_or(t, |s: Duration| s.min(t)));
            timers.push(Timer {
                pid: process.pid,
                tid,
                owner: owner(process, tid),
                due: t,
                runs: runs(process.pid, tid),
            });
        }
    };
    let mut asleep: Option<(Process, Sleep)> = None;
    // Whether a thread sleeps where the world can wake it (a pipe, a socket, a file), and
    // whether one waits for a child.
    let mut wakeable = false;
    let mut for_child = false;
    // Threads the input started that wait for a child: each its process and owner.
    let mut child_waiters: Vec<(i32, String)> = Vec::new();
    // Threads looked at so far: past MAX_THREADS the program is not probed.
    let mut looked_at = 0usize;
    for process in &members {
        let Ok(threads) = std::fs::read_dir(format!("/proc/{}/task", process.pid)) else {
            // Gone since it was listed: it waits for nothing.
            continue;
        };
        for tid in threads
            .flatten()
            .filter_map(|t| t.file_name().to_str()?.parse::<i32>().ok())
        {
            looked_at += 1;
            if looked_at > MAX_THREADS {
                return Readiness::unknown(format!(
                    "the program has more than {MAX_THREADS} threads, too many to follow"
                ));
            }
            // A back end or server the program started before the input: at work while
            // it runs (screen's back end drawing, the shell inside it), else at rest.
            if process.background {
                if state_letter(&format!("/proc/{}/task/{tid}", process.pid)).as_deref() == Some("R") {
                    in_flight.push(format!(
                        "{} (pid {}) running, a process the program started",
                        process.name, process.pid
                    ));
                }
                continue;
            }
            match thread(process, tid, slave) {
                // Outside the foreground group (started by the input): work in flight.
                Thread::Running if !process.foreground => {
                    in_flight.push(format!(
                        "{} (pid {}) running outside the foreground group",
                        process.name, process.pid
                    ));
                }
                Thread::Running => return Readiness::busy(Some(process), "running"),
                Thread::OnTerminal(how, timer) if !process.foreground => {
                    note_timer(process, tid, timer);
                    let _ = how;
                }
                Thread::OnTerminal(how, timer) => {
                    note_timer(process, tid, timer);
                    ready.get_or_insert((process.clone(), how));
                }
                // A thread the input started, blocked on a pipe, a socket, a file or the
                // disk, or in a call the probe does not know: what it waits for is the
                // reaction's work, wherever its writer is (or is not yet seen). (One waiting
                // on a lock with no timeout is a pool's idle worker.)
                Thread::Asleep(sleep @ Sleep::Other(_))
                    if rested_before && started_after(process.pid, tid, input) =>
                {
                    in_flight.push(format!(
                        "{} {}, a thread started by the input",
                        owner(process, tid),
                        sleep.words()
                    ));
                }
                // One waiting for its child: work in flight (the child may be exiting, its
                // result not yet drawn), unless that child is what reads the terminal
                // (`sh -c less`: ready when less reads it) — decided below.
                Thread::Asleep(Sleep::Child) if rested_before && started_after(process.pid, tid, input) => {
                    child_waiters.push((process.pid, owner(process, tid)));
                    for_child = true;
                    if asleep.as_ref().is_none_or(|(_, s)| Sleep::Child < *s) {
                        asleep = Some((process.clone(), Sleep::Child));
                    }
                }
                Thread::Timed(_, timer) if !process.foreground => note_timer(process, tid, Some(timer)),
                // Outside the foreground group, blocked reading a pipe, a socket or a file,
                // or on the disk: the reaction's work still on its way. (One waiting in
                // poll, select or epoll without the terminal is a service awaiting events —
                // screen's back end, the shell inside it — not work in flight.)
                Thread::Asleep(Sleep::Other(what))
                    if !process.foreground
                        && (what.starts_with("reading ") || what.starts_with("in uninterruptible")) =>
                {
                    in_flight.push(format!(
                        "{} {what}, outside the foreground group",
                        owner(process, tid)
                    ));
                }
                // Outside the foreground group, waiting for its own child: the work goes on
                // there (the child may be gone already, its result not yet drawn).
                Thread::Asleep(Sleep::Child) if !process.foreground => {
                    in_flight.push(format!(
                        "{} waiting for a child process, outside the foreground group",
                        owner(process, tid)
                    ));
                }
                Thread::Asleep(_) if !process.foreground => {}
                Thread::Timed(sleep, timer) => {
                    note_timer(process, tid, Some(timer));
                    wakeable |= matches!(sleep, Sleep::Other(_));
                    if asleep.as_ref().is_none_or(|(_, s)| sleep < *s) {
                        asleep = Some((process.clone(), sleep));
                    }
                }
                Thread::Asleep(sleep) => {
                    wakeable |= matches!(sleep, Sleep::Other(_));
                    for_child |= sleep == Sleep::Child;
                    if asleep.as_ref().is_none_or(|(_, s)| sleep < *s) {
                        asleep = Some((process.clone(), sleep));
                    }
                }
                Thread::Unreadable(why) => {
                    // A thread that ended while it was read (a worker's last moments) waits
                    // for nothing; only one still there is a blind spot.
                    let base = format!("/proc/{}/task/{tid}", process.pid);
                    if matches!(state_letter(&base).as_deref(), None | Some("Z" | "X" | "x")) {
                        continue;
                    }
                    return Readiness::unknown(format!("{} (pid {}): {why}", process.name, process.pid));
                }
            }
        }
    }
    // A waiter whose child is not the process reading the terminal waits on work in
    // flight: its child computing, or exiting with its result.
    if let Some((on_terminal, _)) = &ready {
        let reader_parent = parent_of(on_terminal.pid);
        for (pid, owner) in child_waiters {
            if reader_parent != Some(pid) {
                in_flight.push(format!(
                    "{owner} waiting for a child process, a thread started by the input"
                ));
            }
        }
    }
    let (SignalTimers { unseen, hidden }, marks) = signal_timers(&members, signals);
    match (
        ready.map(|(p, how)| (renamed(p), how)),
        asleep.map(|(p, s)| (renamed(p), s)),
    ) {
        (Some((process, how)), _) => {
            // At rest: these are the marks a later input is compared with.
            signals.latest = marks;
            Readiness::Ready {
                pid: process.pid,
                program: process.name,
                how,
                wakes_in: soonest,
                timers,
                in_flight,
                unseen,
                hidden,
            }
        }
        (None, Some((process, sleep))) => Readiness::Busy {
            pid: Some(process.pid),
            program: Some(process.name),
            why: sleep.words(),
            wakes_in: soonest,
            idle: !wakeable && in_flight.is_empty(),
            timers,
            for_child,
        },
        (None, None) => Readiness::busy(None, "no thread of the foreground group could be read"),
    }
}

/// Whether the thread whose `/proc` folder is `dir` is asleep (interruptibly: waiting
/// for data, not on a page fault or a lock) in `read`, `readv` or `pread64`.
pub(super) fn asleep_in_read(dir: &str) -> bool {
    if state_letter(dir).as_deref() != Some("S") {
        return false;
    }
    let Ok(call) = proc_text(format!("{dir}/syscall")) else {
        return false;
    };
    let number = call.split_whitespace().next().and_then(|n| n.parse::<i64>().ok());
    matches!(number, Some(n) if n == nr::READ || n == nr::READV || n == nr::PREAD64)
}

/// What thread `tid` of `process` is doing.
fn thread(process: &Process, tid: i32, slave: u64) -> Thread {
    let base = format!("/proc/{}/task/{tid}", process.pid);
    match state_letter(&base).as_deref() {
        None | Some("Z") | Some("X") | Some("x") => return Thread::Asleep(Sleep::Exiting),
        Some("R") => return Thread::Running,
        Some("D") => return Thread::Asleep(Sleep::Other("in uninterruptible disk wait".into())),
        Some("T") | Some("t") => return Thread::Asleep(Sleep::Other("stopped".into())),
        _ => {}
    }
    let call = match proc_text(format!("{base}/syscall")) {
        Ok(call) => call,
        Err(e) => return Thread::Unreadable(format!("its system calls cannot be read ({e})")),
    };
    let mut words = call.split_whitespace();
    let number = match words.next() {
        Some("running") => return Thread::Running,
        Some(number) => number.parse::<i64>().unwrap_or(-1),
        None => return Thread::Unreadable("its system call file is empty".into()),
    };
    let args: Vec<u64> = words
        .take(6)
        .map(|w| u64::from_str_radix(w.trim_start_matches("0x"), 16).unwrap_or(0))
        .collect();
    let arg = |i: usize| args.get(i).copied().unwrap_or(0);
    let is_terminal = |fd: u64| is_terminal(process, fd, slave);
    use nr::*;
    let pid = process.pid;
    // The call's own timeout: milliseconds in a register (negative: none), or a
    // timespec/timeval in the process's memory (NULL: none).
    let millis = |value: u64| (value as i32 >= 0).then(|| Duration::from_millis(u64::from(value as u32)));
    let timespec = |address: u64, micros: bool| -> Option<Duration> {
        if address == 0 {
            return None;
        }
        let bytes = memory(pid, address, 16).ok()?;
        let secs = i64::from_ne_bytes(bytes[..8].try_into().ok()?);
        let frac = i64::from_ne_bytes(bytes[8..].try_into().ok()?);
        let nanos = if micros { frac.checked_mul(1000)? } else { frac };
        Some(Duration::new(
            u64::try_from(secs).ok()?,
            u32::try_from(nanos).ok()?,
        ))
    };
    let on_terminal = |how: &str, wakes_in: Option<Duration>| Thread::OnTerminal(how.to_string(), wakes_in);
    let timed = |sleep: Sleep, timer: Option<Duration>| match timer {
        Some(timer) => Thread::Timed(sleep, timer),
        None => Thread::Asleep(sleep),
    };
    match number {
        n if n == READ || n == READV || n == PREAD64 => {
            if is_terminal(arg(0)) {
                on_terminal("reading the terminal", None)
            } else if let Some(left) = timerfds_due(pid, &[arg(0)]) {
                Thread::Timed(Sleep::Timer("a timerfd"), left)
            } else if let Some(path) = another_terminal(pid, arg(0)) {
                Thread::Asleep(Sleep::AnotherTerminal(path))
            } else {
                Thread::Asleep(Sleep::Other(format!(
                    "reading {}",
                    describe_fd(process.pid, arg(0))
                )))
            }
        }
        n if Some(n) == POLL || n == PPOLL => {
            let name = if n == PPOLL { "ppoll" } else { "poll" };
            match polled(process.pid, arg(0), arg(1)) {
                Ok(fds) if fds.iter().any(|fd| is_terminal(*fd)) => {
                    let wakes_in = if n == PPOLL {
                        timespec(arg(2), false)
                    } else {
                        millis(arg(2))
                    };
                    let wakes_in = sooner(wakes_in, timerfds_due(pid, &fds));
                    on_terminal(&format!("polling the terminal ({name})"), wakes_in)
                }
                Ok(fds) => {
                    let timer = if n == PPOLL {
                        timespec(arg(2), false)
                    } else {
                        millis(arg(2))
                    };
                    let timer = sooner(timer, timerfds_due(pid, &fds));
                    timed(Sleep::Other(format!("in {name} without the terminal")), timer)
                }
                Err(e) => {
                    Thread::Unreadable(format!("the descriptors its {name} watches cannot be read ({e})"))
                }
            }
        }
        n if Some(n) == SELECT || n == PSELECT6 => {
            let name = if n == PSELECT6 { "pselect6" } else { "select" };
            match selected(process.pid, arg(0), arg(1)) {
                Ok(fds) if fds.iter().any(|fd| is_terminal(*fd)) => {
                    let wakes_in = sooner(timespec(arg(4), n != PSELECT6), timerfds_due(pid, &fds));
                    on_terminal(&format!("waiting for the terminal ({name})"), wakes_in)
                }
                Ok(fds) => timed(
                    Sleep::Other(format!("in {name} without the terminal")),
                    sooner(timespec(arg(4), n != PSELECT6), timerfds_due(pid, &fds)),
                ),
                Err(e) => {
                    Thread::Unreadable(format!("the descriptors its {name} watches cannot be read ({e})"))
                }
            }
        }
        n if Some(n) == EPOLL_WAIT || n == EPOLL_PWAIT || n == EPOLL_PWAIT2 => {
            match epolled(process.pid, arg(0)) {
                Ok(fds) if fds.iter().any(|fd| is_terminal(*fd)) => {
                    let wakes_in = if n == EPOLL_PWAIT2 {
                        timespec(arg(3), false)
                    } else {
                        millis(arg(3))
                    };
                    let wakes_in = sooner(wakes_in, timerfds_due(pid, &fds));
                    on_terminal("waiting for the terminal (epoll)", wakes_in)
                }
                Ok(fds) => {
                    let timer = if n == EPOLL_PWAIT2 {
                        timespec(arg(3), false)
                    } else {
                        millis(arg(3))
                    };
                    let timer = sooner(timer, timerfds_due(pid, &fds));
                    timed(Sleep::Other("in epoll_wait without the terminal".into()), timer)
                }
                Err(e) => Thread::Unreadable(format!("its epoll set cannot be read ({e})")),
            }
        }
        n if n == WAIT4 || n == WAITID => Thread::Asleep(Sleep::Child),
        n if n == NANOSLEEP => timed(Sleep::Timer("nanosleep"), timespec(arg(0), false)),
        // TIMER_ABSTIME: a deadline on the named clock (Python's `time.sleep` since 3.11),
        // what is left of it now; else a duration.
        n if n == CLOCK_NANOSLEEP => timed(
            Sleep::Timer("clock_nanosleep"),
            match arg(1) & 1 {
                0 => timespec(arg(2), false),
                _ => timespec(arg(2), false).and_then(|at| left_until(arg(0) as libc::clockid_t, at)),
            },
        ),
        n if Some(n) == PAUSE => Thread::Asleep(Sleep::Pause),
        // FUTEX_WAIT's timeout is relative; FUTEX_WAIT_BITSET's, FUTEX_LOCK_PI's and
        // FUTEX_WAIT_REQUEUE_PI's a deadline (`pthread_cond_timedwait`, Python's
        // `threading` waits with a timeout, executors), on the monotonic clock unless
        // FUTEX_CLOCK_REALTIME says the real-time one (LOCK_PI: always real time).
        n if n == FUTEX => {
            let realtime = arg(1) & 256 != 0;
            let timer = match arg(1) & 0x7f {
                0 => timespec(arg(3), false),
                9 | 11 => timespec(arg(3), false).and_then(|at| {
                    left_until(
                        if realtime {
                            libc::CLOCK_REALTIME
                        } else {
                            libc::CLOCK_MONOTONIC
                        },
                        at,
                    )
                }),
                6 => timespec(arg(3), false).and_then(|at| left_until(libc::CLOCK_REALTIME, at)),
                _ => None,
            };
            timed(Sleep::Lock, timer)
        }
        // futex_waitv(waiters, count, flags, deadline, clock).
        n if n == FUTEX_WAITV => timed(
            Sleep::Lock,
            timespec(arg(3), false).and_then(|at| left_until(arg(4) as libc::clockid_t, at)),
        ),
        // sigtimedwait(set, info, timeout): a signal, or the timeout.
        n if n == RT_SIGTIMEDWAIT => timed(Sleep::Timer("sigtimedwait"), timespec(arg(2), false)),
        -1 => Thread::Asleep(Sleep::Other("asleep outside a system call".into())),
        n => Thread::Asleep(Sleep::Other(format!("in system call {n}"))),
    }
}

/// How many times thread `tid` of `pid` has been scheduled in (see [`Timer::runs`]).
fn runs(pid: i32, tid: i32) -> Option<u64> {
    let text = proc_text(format!("/proc/{pid}/task/{tid}/schedstat")).ok()?;
    text.split_whitespace().nth(2)?.parse().ok()
}

/// Whether descriptor `fd` of `process` is the terminal: the slave device itself, or
/// `/dev/tty` in a process whose controlling terminal it is.
fn is_terminal(process: &Process, fd: u64, slave: u64) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::metadata(format!("/proc/{}/fd/{fd}", process.pid)) else {
        return false;
    };
    let dev_tty = libc::makedev(5, 0);
    meta.rdev() == slave || (meta.rdev() == dev_tty && process.tty == slave)
}

/// The path of descriptor `fd` of `pid` when it is a terminal device (a pseudo-terminal's
/// slave, a console): the session's own is told apart before.
fn another_terminal(pid: i32, fd: u64) -> Option<String> {
    let target = std::fs::read_link(format!("/proc/{pid}/fd/{fd}")).ok()?;
    let path = target.to_string_lossy().into_owned();
    (path.starts_with("/dev/pts/") || path.starts_with("/dev/tty")).then_some(path)
}

/// What a descriptor is, for a reason: `a pipe`, `a socket`, a file's path.
fn describe_fd(pid: i32, fd: u64) -> String {
    match std::fs::read_link(format!("/proc/{pid}/fd/{fd}")) {
        Ok(target) => {
            let target = target.to_string_lossy().into_owned();
            if target.starts_with("pipe:") {
                "a pipe".into()
            } else if target.starts_with("socket:") {
                "a socket".into()
            } else {
                target
            }
        }
        Err(_) => format!("descriptor {fd}"),
    }
}

/// What is left until `deadline` on `clock` (the target's clocks are this machine's; a
/// CPU-time clock or an unknown one: `None`). A deadline passed is due now.
fn left_until(clock: libc::clockid_t, deadline: Duration) -> Option<Duration> {
    if !matches!(
        clock,
        libc::CLOCK_REALTIME | libc::CLOCK_MONOTONIC | libc::CLOCK_BOOTTIME | libc::CLOCK_TAI
    ) {
        return None;
    }
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through the pointer.
    if unsafe { libc::clock_gettime(clock, &mut now) } != 0 {
        return None;
    }
    let now = Duration::new(u64::try_from(now.tv_sec).ok()?, u32::try_from(now.tv_nsec).ok()?);
    Some(deadline.saturating_sub(now))
}

/// The sooner of two timers, either or both absent.
fn sooner(a: Option<Duration>, b: Option<Duration>) -> Option<Duration> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A wait watches at most this many descriptors for timers (a program's event loop watches
/// a handful; a server's thousands are not timers to a terminal program).
const TIMERFDS_CHECKED: usize = 64;

/// When the soonest armed timerfd among `fds` of `pid` fires: a program whose timers are
/// descriptors in its wait (event loops built on timerfd) wakes then,
/// though its call has no timeout of its own. The kernel shows what is left of a timerfd
/// in its fdinfo (`it_value: (SECS, NANOS)`; zero when disarmed).
fn timerfds_due(pid: i32, fds: &[u64]) -> Option<Duration> {
    fds.iter()
        .take(TIMERFDS_CHECKED)
        .filter(|fd| {
            std::fs::read_link(format!("/proc/{pid}/fd/{fd}"))
                .is_ok_and(|target| target.as_os_str() == "anon_inode:[timerfd]")
        })
        .filter_map(|fd| {
            let info = proc_text(format!("/proc/{pid}/fdinfo/{fd}")).ok()?;
            let value = info.lines().find_map(|l| l.strip_prefix("it_value:"))?;
            let (secs, nanos) = value
                .trim()
                .trim_matches(|c| c == '(' || c == ')')
                .split_once(',')?;
            let left = Duration::new(secs.trim().parse().ok()?, nanos.trim().parse().ok()?);
            (!left.is_zero()).then_some(left)
        })
        .min()
}

/// `len` bytes at `address` in process `pid`'s memory.
fn memory(pid: i32, address: u64, len: usize) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let file = std::fs::File::open(format!("/proc/{pid}/mem"))?;
    let mut bytes = vec![0u8; len];
    file.read_exact_at(&mut bytes, address)?;
    Ok(bytes)
}

/// The descriptors a `poll` on `count` entries at `address` waits to read.
fn polled(pid: i32, address: u64, count: u64) -> std::io::Result<Vec<u64>> {
    // struct pollfd { int fd; short events; short revents; }
    let count = count.min(4096) as usize;
    let bytes = memory(pid, address, count * 8)?;
    Ok(bytes
        .chunks_exact(8)
        .filter(|entry| {
            let events = i16::from_ne_bytes([entry[4], entry[5]]);
            events & (libc::POLLIN | libc::POLLPRI) != 0
        })
        .filter_map(|entry| u64::try_from(i32::from_ne_bytes([entry[0], entry[1], entry[2], entry[3]])).ok())
        .collect())
}

/// The descriptors below `count` set in the read set at `address` of a `select`.
fn selected(pid: i32, count: u64, address: u64) -> std::io::Result<Vec<u64>> {
    if address == 0 {
        return Ok(Vec::new());
    }
    let count = count.min(libc::FD_SETSIZE as u64);
    let bytes = memory(pid, address, count.div_ceil(8) as usize)?;
    Ok((0..count)
        .filter(|fd| bytes[(fd / 8) as usize] & (1 << (fd % 8)) != 0)
        .collect())
}

/// The descriptors epoll set `epfd` of `pid` waits to read (`tfd:` lines of its fdinfo
/// whose events include EPOLLIN).
fn epolled(pid: i32, epfd: u64) -> std::io::Result<Vec<u64>> {
    let info = proc_text(format!("/proc/{pid}/fdinfo/{epfd}"))?;
    Ok(info
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            if words.next()? != "tfd:" {
                return None;
            }
            let fd = words.next()?.parse::<u64>().ok()?;
            let events = words
                .skip_while(|w| *w != "events:")
                .nth(1)
                .and_then(|e| u32::from_str_radix(e, 16).ok())?;
            (events & (libc::EPOLLIN | libc::EPOLLPRI) as u32 != 0).then_some(fd)
        })
        .collect())
}
