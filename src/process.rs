//! Process sessions: how a program ended, waiting for it, and ending everything it started.
//!
//! A program started by the engine leads its own process session (its pid is the session
//! id). Ending it means ending every process whose session id is that pid: background
//! jobs of an interactive shell live in other process groups and would otherwise keep
//! running and hold the PTY open. Processes are signalled through pidfds, so a pid reused
//! meanwhile is never hit. [`ExitStatus`] lives here, beside `waitpid`, which produces it.
//!
//! [`find_program`] finds a program as `execvp` would, for the engine and for a server
//! that must check what it is about to run.
//!
//! This module is the floor of the library with `color`: it names no other module, and
//! the error type takes [`ExitStatus`] and [`NotFound`] from it.
//!
//! Every program's session is noted here from its start to its end, so that a process
//! dying of a signal can end the programs it started ([`end_live_sessions`]).
//!
//! [`end_session`] and [`session_alive`] are public for servers that must end a program
//! when they themselves die (the command line's watchdog) and for tests that check nothing
//! was left behind.

use std::ffi::OsStr;
use std::fmt;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How a program ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExitStatus {
    /// It exited with this code.
    Exited(i32),
    /// A signal ended it (the signal number).
    Signaled(i32),
}

impl ExitStatus {
    /// The exit code, if it exited normally.
    pub fn code(&self) -> Option<i32> {
        match self {
            ExitStatus::Exited(code) => Some(*code),
            ExitStatus::Signaled(_) => None,
        }
    }

    /// The signal's name (`SIGKILL`), if a signal ended it.
    pub fn signal(&self) -> Option<String> {
        match self {
            ExitStatus::Exited(_) => None,
            ExitStatus::Signaled(signal) => Some(signal_name(*signal)),
        }
    }

    /// Whether it exited with code 0.
    pub fn success(&self) -> bool {
        *self == ExitStatus::Exited(0)
    }
}

impl fmt::Display for ExitStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExitStatus::Exited(code) => write!(f, "exited with code {code}"),
            ExitStatus::Signaled(signal) => {
                write!(f, "was killed by {}", signal_name(*signal))
            }
        }
    }
}

/// Blocks until the child exits and reaps it.
pub(crate) fn wait_for_exit(pid: i32) -> io::Result<ExitStatus> {
    loop {
        let mut status = 0;
        // SAFETY: waitpid only writes the status integer we pass.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r == pid {
            if libc::WIFSIGNALED(status) {
                return Ok(ExitStatus::Signaled(libc::WTERMSIG(status)));
            }
            return Ok(ExitStatus::Exited(libc::WEXITSTATUS(status)));
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// The calling thread's id (Linux's `gettid`). Made as a system call, not through glibc's
/// wrapper: the wrapper is new in glibc 2.30, and the Python wheel is linked for glibc 2.17,
/// where a module naming it would fail to load.
#[cfg(target_os = "linux")]
pub(crate) fn current_thread_id() -> i32 {
    // SAFETY: gettid has no arguments and no preconditions.
    unsafe { libc::syscall(libc::SYS_gettid) as i32 }
}

/// A process in a session, as listed in `/proc`.
struct Member {
    pid: i32,
    zombie: bool,
}

/// Every process whose session id is `sid` (field 6 of `/proc/PID/stat`).
fn session_members(sid: i32) -> Vec<Member> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut members = Vec::new();
    for entry in dir.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        // One system call per process; the stat file is read only for members.
        // SAFETY: getsid only reads the process table.
        if unsafe { libc::getsid(pid) } != sid {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // The command name is in parentheses and may itself contain spaces or ')'.
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let fields: Vec<&str> = after.split_whitespace().collect();
        // After the name: state, ppid, pgrp, session.
        if fields.get(3).and_then(|s| s.parse::<i32>().ok()) == Some(sid) {
            members.push(Member {
                pid,
                zombie: fields.first() == Some(&"Z"),
            });
        }
    }
    members
}

/// Whether any live (non-zombie) process remains in session `sid`.
pub fn session_alive(sid: i32) -> bool {
    session_members(sid).iter().any(|m| !m.zombie)
}

/// A pidfd: a handle on one process that stays valid even if the pid is reused, and
/// becomes readable when the process exits.
struct PidFd(i32);

impl PidFd {
    fn open(pid: i32) -> Option<PidFd> {
        // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        i32::try_from(fd).ok().filter(|fd| *fd >= 0).map(PidFd)
    }

    /// Whether the process has exited (its pidfd is readable).
    fn exited(&self) -> bool {
        let mut poll = libc::pollfd {
            fd: self.0,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd, no waiting.
        unsafe { libc::poll(&mut poll, 1, 0) == 1 }
    }

    fn signal(&self, signal: i32) {
        // SAFETY: pidfd_send_signal with a null siginfo behaves like kill(2).
        unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                self.0,
                signal,
                std::ptr::null::<libc::siginfo_t>(),
                0,
            );
        }
    }
}

impl Drop for PidFd {
    fn drop(&mut self) {
        // SAFETY: the descriptor is owned by this value and closed once.
        unsafe { libc::close(self.0) };
    }
}

/// Waits until every process behind `fds` has exited or `deadline` passes.
fn wait_all_exited(fds: &[&PidFd], deadline: Instant) {
    let mut fds = fds.to_vec();
    while !fds.is_empty() {
        let now = Instant::now();
        if now >= deadline {
            return;
        }
        let mut polls: Vec<libc::pollfd> = fds
            .iter()
            .map(|fd| libc::pollfd {
                fd: fd.0,
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        let timeout = i32::try_from((deadline - now).as_millis() + 1).unwrap_or(i32::MAX);
        // SAFETY: polls is a valid array of pollfd of the given length.
        let n = unsafe { libc::poll(polls.as_mut_ptr(), polls.len() as libc::nfds_t, timeout) };
        if n < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return;
        }
        let mut i = 0;
        fds.retain(|_| {
            let keep = polls[i].revents == 0;
            i += 1;
            keep
        });
    }
}

/// The live processes of session `sid` and every descendant of theirs, whatever its
/// session: a program's back end that made a session of its own (GNU screen's) is ended
/// with it. (A daemon whose parent is gone, in a session of its own, cannot be found.)
fn session_and_descendants(sid: i32) -> Vec<i32> {
    let mut todo: Vec<i32> = session_members(sid)
        .into_iter()
        .filter(|m| !m.zombie)
        .map(|m| m.pid)
        .collect();
    let mut seen = std::collections::BTreeSet::new();
    while let Some(pid) = todo.pop() {
        if !seen.insert(pid) {
            continue;
        }
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            continue;
        };
        for task in tasks.flatten() {
            if let Ok(children) = std::fs::read_to_string(task.path().join("children")) {
                todo.extend(children.split_whitespace().filter_map(|c| c.parse::<i32>().ok()));
            }
        }
    }
    seen.into_iter().collect()
}

/// Ends every process in session `sid`, and their descendants in other sessions: each
/// signal in turn, waiting up to its grace period for the processes to exit before moving
/// to the next. Stopped processes are continued after each signal so they can act on it.
/// Returns whether none is left.
pub fn end_session(sid: i32, steps: &[(i32, Duration)]) -> bool {
    // Every process seen at any step keeps getting the later signals: a back end whose
    // front end dies of the first one (GNU screen's, which outlives a hang-up) is no longer
    // the session's descendant after it, yet must still be ended.
    let mut known: Vec<(i32, PidFd)> = Vec::new();
    for &(signal, grace) in steps {
        for pid in session_and_descendants(sid) {
            if !known.iter().any(|(seen, _)| *seen == pid)
                && let Some(fd) = PidFd::open(pid)
            {
                known.push((pid, fd));
            }
        }
        let live: Vec<&PidFd> = known.iter().map(|(_, fd)| fd).filter(|fd| !fd.exited()).collect();
        if live.is_empty() {
            return true;
        }
        for fd in &live {
            fd.signal(signal);
            if signal != libc::SIGKILL {
                fd.signal(libc::SIGCONT);
            }
        }
        wait_all_exited(&live, Instant::now() + grace);
    }
    !session_alive(sid) && known.iter().all(|(_, fd)| fd.exited())
}

/// The process sessions of the programs this process started and has not ended yet.
static LIVE_SESSIONS: std::sync::Mutex<std::collections::BTreeSet<i32>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

/// Notes a program's session as started by this process ([`end_live_sessions`] ends it).
pub(crate) fn note_session_started(sid: i32) {
    LIVE_SESSIONS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(sid);
}

/// Notes a program's session as ended by its owner.
pub(crate) fn note_session_ended(sid: i32) {
    LIVE_SESSIONS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&sid);
}

/// Ends the session of every program this process started and has not ended yet — SIGHUP,
/// then SIGTERM, then SIGKILL, 100 ms apart — and says whether none is left. For a process
/// about to die of a signal: its programs would get only the hang-up of their terminal
/// closing, which a program may ignore and outlive it. The command line's signal handling
/// (`files::remove_temporaries_on_signal`) calls it.
pub fn end_live_sessions() -> bool {
    let sessions = std::mem::take(&mut *LIVE_SESSIONS.lock().unwrap_or_else(|p| p.into_inner()));
    let steps = [
        (libc::SIGHUP, Duration::from_millis(100)),
        (libc::SIGTERM, Duration::from_millis(100)),
        (libc::SIGKILL, Duration::from_secs(2)),
    ];
    end_sessions(sessions, &steps)
}

/// [`end_session`] for each of `sessions`, every one of them whether or not an earlier one
/// resisted; says whether none is left.
pub fn end_sessions(sessions: impl IntoIterator<Item = i32>, steps: &[(i32, Duration)]) -> bool {
    let mut all_gone = true;
    for sid in sessions {
        all_gone &= end_session(sid, steps);
    }
    all_gone
}

/// The conventional name of a signal number (`SIGKILL`), or `SIG<n>` if unknown.
pub fn signal_name(signal: i32) -> String {
    const NAMES: [&str; 31] = [
        "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2", "PIPE",
        "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU", "XFSZ",
        "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS",
    ];
    usize::try_from(signal - 1)
        .ok()
        .and_then(|i| NAMES.get(i))
        .map_or_else(|| format!("SIG{signal}"), |n| format!("SIG{n}"))
}

fn is_executable(path: &Path) -> bool {
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// A program [`find_program`] did not find: the name as given and where it looked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotFound {
    /// The program as given.
    pub program: String,
    /// Where it was looked for (`PATH=…`, or the path and why it is not a program).
    pub searched: String,
}

impl fmt::Display for NotFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_not_found(f, &self.program, &self.searched)
    }
}

/// The one spelling of a program not found, for [`NotFound`] and the error it becomes.
pub(crate) fn write_not_found(f: &mut fmt::Formatter<'_>, program: &str, searched: &str) -> fmt::Result {
    write!(
        f,
        "program `{program}` not found: searched {searched}; check the name or give its full path"
    )
}

impl std::error::Error for NotFound {}

/// Finds `program` the way `execvp` would — a name with a `/` relative to `cwd`, any
/// other name in the directories of `path_var` — so a missing one gets a clear error
/// naming where it looked.
pub fn find_program(program: &OsStr, path_var: Option<&OsStr>, cwd: &Path) -> Result<PathBuf, NotFound> {
    let name = Path::new(program);
    let not_found = |searched: String| NotFound {
        program: program.to_string_lossy().into_owned(),
        searched,
    };
    if program.is_empty() {
        return Err(not_found("nothing (the program name is empty)".into()));
    }
    if program.to_string_lossy().contains('/') {
        let full = cwd.join(name);
        if is_executable(&full) {
            return Ok(full);
        }
        let why = if full.exists() {
            "exists but is not an executable file"
        } else {
            "does not exist"
        };
        return Err(not_found(format!("the path {} ({why})", full.display())));
    }
    let path_var = path_var.unwrap_or(OsStr::new(""));
    for dir in std::env::split_paths(path_var) {
        let candidate = cwd.join(dir).join(name);
        if is_executable(&candidate) {
            return Ok(candidate);
        }
    }
    Err(not_found(format!("PATH={}", path_var.to_string_lossy())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_resolution() {
        let cwd = std::env::current_dir().unwrap();
        let path = std::env::var_os("PATH");
        assert!(find_program(OsStr::new("sh"), path.as_deref(), &cwd).is_ok());
        let err = find_program(OsStr::new("no-such-program-xyz"), path.as_deref(), &cwd).unwrap_err();
        assert!(err.to_string().contains("searched PATH="), "{err}");
        let err = find_program(OsStr::new("./no/such/file"), path.as_deref(), &cwd).unwrap_err();
        assert!(err.to_string().contains("does not exist"), "{err}");
    }

    #[test]
    fn signal_names() {
        assert_eq!(signal_name(9), "SIGKILL");
        assert_eq!(signal_name(1), "SIGHUP");
        assert_eq!(signal_name(64), "SIG64");
    }
}
