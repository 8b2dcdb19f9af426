//! The probe on Linux (x86-64 and arm64): the foreground group's processes and threads
//! from `/proc`, each thread's system call and what it waits on — see the parent module.

use std::collections::BTreeSet;
use std::os::fd::RawFd;
use std::time::Duration;

use super::{Process, Readiness};

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
    Child,
    Lock,
}

impl Sleep {
    fn words(&self) -> String {
        match self {
            Sleep::Timer(call) => format!("sleeping on a timer ({call})"),
            Sleep::Other(what) => what.clone(),
            Sleep::Child => "waiting for a child process".into(),
            Sleep::Lock => "waiting on a lock".into(),
        }
    }
}

pub(super) fn check(master: RawFd, slave: u64, leader: i32) -> Readiness {
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
    let members = match group_members(leader, group) {
        Ok(members) if !members.is_empty() => members,
        Ok(_) => return Readiness::busy(None, "no process in the terminal's foreground group"),
        Err(why) => return Readiness::unknown(why),
    };
    let mut ready: Option<(Process, String)> = None;
    // The soonest timer of any thread: the program may draw then without new input.
    let mut soonest: Option<Duration> = None;
    let mut note_timer = |timer: Option<Duration>| {
        if let Some(t) = timer {
            soonest = Some(soonest.map_or(t, |s: Duration| s.min(t)));
        }
    };
    let mut asleep: Option<(Process, Sleep)> = None;
    // Whether a thread sleeps where the world can wake it (a pipe, a socket, a file).
    let mut wakeable = false;
    for process in &members {
        let Ok(threads) = std::fs::read_dir(format!("/proc/{}/task", process.pid)) else {
            // Gone since it was listed: it waits for nothing.
            continue;
        };
        for tid in threads
            .flatten()
            .filter_map(|t| t.file_name().to_str()?.parse::<i32>().ok())
        {
            match thread(process, tid, slave) {
                Thread::Running => return Readiness::busy(Some(process), "running"),
                Thread::OnTerminal(how, timer) => {
                    note_timer(timer);
                    ready.get_or_insert((process.clone(), how));
                }
                Thread::Timed(sleep, timer) => {
                    note_timer(Some(timer));
                    wakeable |= matches!(sleep, Sleep::Other(_));
                    if asleep.as_ref().is_none_or(|(_, s)| sleep < *s) {
                        asleep = Some((process.clone(), sleep));
                    }
                }
                Thread::Asleep(sleep) => {
                    wakeable |= matches!(sleep, Sleep::Other(_));
                    if asleep.as_ref().is_none_or(|(_, s)| sleep < *s) {
                        asleep = Some((process.clone(), sleep));
                    }
                }
                Thread::Unreadable(why) => {
                    return Readiness::unknown(format!("{} (pid {}): {why}", process.name, process.pid));
                }
            }
        }
    }
    match (
        ready.map(|(p, how)| (renamed(p), how)),
        asleep.map(|(p, s)| (renamed(p), s)),
    ) {
        (Some((process, how)), _) => Readiness::Ready {
            pid: process.pid,
            program: process.name,
            how,
            wakes_in: soonest,
        },
        (None, Some((process, sleep))) => Readiness::Busy {
            pid: Some(process.pid),
            program: Some(process.name),
            why: sleep.words(),
            wakes_in: soonest,
            idle: !wakeable,
        },
        (None, None) => Readiness::busy(None, "no thread of the foreground group could be read"),
    }
}

/// The process with its name as it is now: one listed just before it called `exec`
/// (bash's child becoming `sleep`) has a new name by the time its threads were read.
fn renamed(process: Process) -> Process {
    match std::fs::read_to_string(format!("/proc/{}/comm", process.pid)) {
        Ok(name) if !name.trim_end().is_empty() => Process {
            name: name.trim_end().to_string(),
            ..process
        },
        _ => process,
    }
}

/// Whether process `pid` still runs (a zombie has ended).
fn alive(pid: i32) -> bool {
    state_letter(&format!("/proc/{pid}")).is_some_and(|state| !matches!(state.as_str(), "Z" | "X" | "x"))
}

/// The state letter (`R`, `S`, `Z`, …) in the `stat` file of a process or thread
/// directory.
pub(super) fn state_letter(dir: &str) -> Option<String> {
    let text = std::fs::read_to_string(format!("{dir}/stat")).ok()?;
    split_stat(&text).and_then(|(_, fields)| fields.first().map(|s| s.to_string()))
}

/// The processes of foreground group `group`: the session's tree from `leader`
/// (children by `/proc/PID/task/TID/children`), or every process when that file is
/// missing.
fn group_members(leader: i32, group: i32) -> Result<Vec<Process>, String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![leader];
    let mut members = Vec::new();
    let mut tree_readable = true;
    while let Some(pid) = todo.pop() {
        if !seen.insert(pid) {
            continue;
        }
        if let Some((process, pgrp)) = stat(pid)
            && pgrp == group
        {
            members.push(process);
        }
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            continue;
        };
        for task in tasks.flatten() {
            match std::fs::read_to_string(task.path().join("children")) {
                Ok(children) => {
                    todo.extend(children.split_whitespace().filter_map(|c| c.parse::<i32>().ok()))
                }
                Err(_) => tree_readable = false,
            }
        }
    }
    if tree_readable {
        return Ok(members);
    }
    // No `children` files (a kernel without them): every process, by its group.
    let all = std::fs::read_dir("/proc").map_err(|e| format!("/proc cannot be listed: {e}"))?;
    Ok(all
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(stat)
        .filter(|(_, pgrp)| *pgrp == group)
        .map(|(process, _)| process)
        .collect())
}

/// A process's name, controlling terminal and process group, from `/proc/PID/stat`.
fn stat(pid: i32) -> Option<(Process, i32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (name, fields) = split_stat(&text)?;
    // After the name: state, ppid, pgrp, session, tty_nr.
    let pgrp = fields.get(2)?.parse().ok()?;
    let tty = fields.get(4)?.parse::<i64>().ok()? as u64;
    Some((
        Process {
            pid,
            name: name.to_string(),
            tty,
        },
        pgrp,
    ))
}

/// A `stat` line's name (between the first `(` and the last `)`) and the fields after.
fn split_stat(text: &str) -> Option<(&str, Vec<&str>)> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let name = text.get(open + 1..close)?;
    Some((name, text.get(close + 1..)?.split_whitespace().collect()))
}

/// What thread `tid` of `process` is doing.
fn thread(process: &Process, tid: i32, slave: u64) -> Thread {
    let base = format!("/proc/{}/task/{tid}", process.pid);
    match state_letter(&base).as_deref() {
        // Gone, or a zombie: it holds nothing up.
        None | Some("Z") | Some("X") | Some("x") => {
            return Thread::Asleep(Sleep::Other("exiting".into()));
        }
        Some("R") => return Thread::Running,
        Some("D") => return Thread::Asleep(Sleep::Other("in uninterruptible disk wait".into())),
        Some("T") | Some("t") => return Thread::Asleep(Sleep::Other("stopped".into())),
        _ => {}
    }
    let call = match std::fs::read_to_string(format!("{base}/syscall")) {
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
                Ok(_) => {
                    let timer = if n == PPOLL {
                        timespec(arg(2), false)
                    } else {
                        millis(arg(2))
                    };
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
                Ok(_) => timed(
                    Sleep::Other(format!("in {name} without the terminal")),
                    timespec(arg(4), n != PSELECT6),
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
                Ok(_) => {
                    let timer = if n == EPOLL_PWAIT2 {
                        timespec(arg(3), false)
                    } else {
                        millis(arg(3))
                    };
                    timed(Sleep::Other("in epoll_wait without the terminal".into()), timer)
                }
                Err(e) => Thread::Unreadable(format!("its epoll set cannot be read ({e})")),
            }
        }
        n if n == WAIT4 || n == WAITID => Thread::Asleep(Sleep::Child),
        n if n == NANOSLEEP => timed(Sleep::Timer("nanosleep"), timespec(arg(0), false)),
        // An absolute deadline (TIMER_ABSTIME) is not a duration: no timer is noted.
        n if n == CLOCK_NANOSLEEP => timed(
            Sleep::Timer("clock_nanosleep"),
            (arg(1) & 1 == 0).then(|| timespec(arg(2), false)).flatten(),
        ),
        n if Some(n) == PAUSE => Thread::Asleep(Sleep::Other("in pause".into())),
        // FUTEX_WAIT's timeout is relative (FUTEX_WAIT_BITSET's absolute: not noted).
        n if n == FUTEX => timed(
            Sleep::Lock,
            (arg(1) & 0x7f == 0).then(|| timespec(arg(3), false)).flatten(),
        ),
        -1 => Thread::Asleep(Sleep::Other("asleep outside a system call".into())),
        n => Thread::Asleep(Sleep::Other(format!("in system call {n}"))),
    }
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
            let info = std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{fd}")).ok()?;
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
    let info = std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{epfd}"))?;
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
