//! Which processes and threads the probe looks at, and what `/proc` says of each: the
//! session's tree and the strays on its terminal, which of them started after the input,
//! their names and start times, and the signal timers they show (see the parent module).

use std::collections::BTreeSet;
use std::time::Duration;

use super::super::{Process, Seen, SignalHistory, SignalMarks, boot_time};

/// Whether thread `tid` of `pid` started after `input` (on the boot clock), to the clock
/// tick.
pub(super) fn started_after(pid: i32, tid: i32, input: Option<Duration>) -> bool {
    let Some(input) = input else {
        return false;
    };
    let Ok(text) = proc_text(format!("/proc/{pid}/task/{tid}/stat")) else {
        return false;
    };
    let Some(started) = split_stat(&text).and_then(|(_, fields)| fields.get(19)?.parse::<u64>().ok()) else {
        return false;
    };
    // SAFETY: sysconf reads a constant.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    started + 1 >= input.as_millis() as u64 * ticks / 1000
}

/// Whose a timer is: the process's name, and the thread's when it is not the main one.
pub(super) fn owner(process: &Process, tid: i32) -> String {
    if tid == process.pid {
        return process.name.clone();
    }
    match proc_text(format!("/proc/{}/task/{tid}/comm", process.pid)) {
        Ok(name) if !name.trim_end().is_empty() && name.trim_end() != process.name => {
            format!("{} (thread {})", process.name, name.trim_end())
        }
        _ => format!("{} (thread {tid})", process.name),
    }
}

/// The process with its name as it is now: one listed just before it called `exec`
/// (bash's child becoming `sleep`) has a new name by the time its threads were read.
pub(super) fn renamed(process: Process) -> Process {
    match proc_text(format!("/proc/{}/comm", process.pid)) {
        Ok(name) if !name.trim_end().is_empty() => Process {
            name: name.trim_end().to_string(),
            ..process
        },
        _ => process,
    }
}

/// Whether process `pid` still runs (a zombie has ended).
pub(super) fn alive(pid: i32) -> bool {
    state_letter(&format!("/proc/{pid}")).is_some_and(|state| !matches!(state.as_str(), "Z" | "X" | "x"))
}

/// The state letter (`R`, `S`, `Z`, …) in the `stat` file of a process or thread
/// directory.
pub(in crate::readiness) fn state_letter(dir: &str) -> Option<String> {
    let text = proc_text(format!("{dir}/stat")).ok()?;
    split_stat(&text).and_then(|(_, fields)| fields.first().map(|s| s.to_string()))
}

/// The processes the probe looks at: every process of the session's tree from `leader`
/// (children by `/proc/PID/task/TID/children`) and the strays on the terminal — those of
/// foreground group `group`, and the others that started after `input` (the reaction's
/// work, wherever it runs: a group or session of its own, a grandchild whose parent is
/// gone). Without the `children` files, every process by its group.
///
/// A process's start time is in clock ticks (10 ms), so one started just before the input
/// can look started after it; `last` (what the last probe saw, left holding this one's)
/// says when a probe first saw each process, and one seen before the input was there
/// before it.
pub(super) fn members(
    leader: i32,
    group: i32,
    strays: &[i32],
    input: Option<Duration>,
    last: &mut Seen,
) -> Result<Vec<Process>, String> {
    let looked_at = boot_time();
    let mut now = Seen::default();
    let mut seen = BTreeSet::new();
    // The leader's tree first (its descendants), then the strays and theirs.
    let mut todo = vec![leader];
    let mut strays = strays.to_vec();
    let mut in_tree = true;
    let mut members = Vec::new();
    let mut tree_readable = true;
    // Every process's children, by one look through /proc, when first needed.
    let mut parents: Option<std::collections::HashMap<i32, Vec<i32>>> = None;
    // A process started after the input, on the boot clock in clock ticks.
    // SAFETY: sysconf reads a constant.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    let after_input = |started: u64, sighted: Duration| {
        input.is_some_and(|at| {
            let in_ticks = at.as_millis() as u64 * ticks / 1000;
            // A tick's rounding: a process started in the input's own tick counts,
            // unless a probe saw it before the input.
            started + 1 >= in_ticks && sighted >= at
        })
    };
    loop {
        let Some(pid) = todo.pop() else {
            if strays.is_empty() {
                break;
            }
            todo.append(&mut strays);
            in_tree = false;
            continue;
        };
        if !seen.insert(pid) {
            continue;
        }
        if let Some((mut process, pgrp, started)) = stat(pid) {
            let sighted = last.first(pid, started).unwrap_or(looked_at);
            now.note(pid, started, sighted);
            process.foreground = pgrp == group;
            process.after_input = after_input(started, sighted);
            process.background = in_tree && !process.foreground && !process.after_input;
            if process.foreground || process.after_input || process.background {
                members.push(process);
            }
        }
        if seen.len() > MAX_PROCESSES {
            return Err(format!(
                "the program has more than {MAX_PROCESSES} processes, too many to follow"
            ));
        }
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            continue;
        };
        let tasks: Vec<_> = tasks.flatten().collect();
        // A process of many threads: its children from one look at every process's parent
        // rather than a file per thread (3,000 threads would cost 3,000 reads a probe).
        if tasks.len() > MANY_THREADS {
            let parents = parents.get_or_insert_with(parents_of_all);
            todo.extend(parents.get(&pid).into_iter().flatten());
            continue;
        }
        for task in tasks {
            match proc_text(task.path().join("children")) {
                Ok(children) => {
                    todo.extend(children.split_whitespace().filter_map(|c| c.parse::<i32>().ok()))
                }
                Err(_) => tree_readable = false,
            }
        }
    }
    // What was found, for the caller to notice a process gone (its children orphaned).
    now.tree = seen.into_iter().collect();
    *last = now;
    if tree_readable {
        return Ok(members);
    }
    // No `children` files (a kernel without them): every process, by its group.
    let all = std::fs::read_dir("/proc").map_err(|e| format!("/proc cannot be listed: {e}"))?;
    Ok(all
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(stat)
        .filter(|(_, pgrp, _)| *pgrp == group)
        .map(|(process, _, _)| Process {
            foreground: true,
            ..process
        })
        .collect())
}

/// The most processes the probe follows: past them the program is not probed (the wait
/// says why and watches the screen instead), so that a program forking without end costs
/// a bounded look.
pub(super) const MAX_PROCESSES: usize = 2048;

/// A process with more threads than this has its children found by its pid among every
/// process's parent instead of in each thread's `children` file.
const MANY_THREADS: usize = 64;

/// The parent of process `pid` (`/proc/PID/stat`'s fourth field).
pub(super) fn parent_of(pid: i32) -> Option<i32> {
    let text = proc_text(format!("/proc/{pid}/stat")).ok()?;
    split_stat(&text).and_then(|(_, fields)| fields.get(1)?.parse().ok())
}

/// Every process's children (by the parent in `/proc/PID/stat`).
fn parents_of_all() -> std::collections::HashMap<i32, Vec<i32>> {
    let mut parents: std::collections::HashMap<i32, Vec<i32>> = std::collections::HashMap::new();
    let Ok(all) = std::fs::read_dir("/proc") else {
        return parents;
    };
    for pid in all
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
    {
        if let Some(parent) = parent_of(pid) {
            parents.entry(parent).or_default().push(pid);
        }
    }
    parents
}

/// Every process whose controlling terminal is `slave`: where a process the program started
/// is found once its parent is gone.
///
/// `off` holds the processes an earlier look found on another terminal or none, each by
/// its `/proc` entry's inode number: they are not read again (a `stat` read costs the
/// kernel ~14 µs a process, the listing's inode nothing), and `off` is left holding this
/// look's. A process off the terminal cannot come onto it: a terminal that is a session's
/// controlling terminal is taken by no other session (short of stealing it, which needs
/// `CAP_SYS_ADMIN`), and a child gets its terminal from its parent when it is made, before
/// `/proc` lists it. A pid used again is a new `/proc` entry with a new inode number,
/// read afresh.
pub(in crate::readiness) fn on_terminal(
    slave: u64,
    off: &mut std::collections::HashMap<i32, u64>,
) -> Vec<i32> {
    let mut on = Vec::new();
    let mut still_off = std::collections::HashMap::with_capacity(off.len());
    for (pid, inode) in listed() {
        if off.get(&pid) == Some(&inode) {
            still_off.insert(pid, inode);
            continue;
        }
        match stat(pid) {
            Some((process, _, _)) if process.tty == slave => on.push(pid),
            Some(_) => {
                still_off.insert(pid, inode);
            }
            // Gone since the listing: nothing to remember.
            None => {}
        }
    }
    *off = still_off;
    on
}

/// Every process now, with its `/proc` entry's inode number (what a pid used again does
/// not keep): the listing alone, nothing read.
pub(in crate::readiness) fn listed() -> impl Iterator<Item = (i32, u64)> {
    use std::os::unix::fs::DirEntryExt;
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| Some((entry.file_name().to_str()?.parse::<i32>().ok()?, entry.ino())))
}

/// The name of live process `pid` (`/proc/PID/comm`, up to 15 bytes), if there is one.
pub(in crate::readiness) fn process_name(pid: i32) -> Option<String> {
    let name = proc_text(format!("/proc/{pid}/comm")).ok()?;
    Some(name.trim_end_matches('\n').to_string()).filter(|name| !name.is_empty())
}

/// Keeps the marks of the program's last rest as those the reaction to the input at `input`
/// is compared with, once per input.
pub(super) fn note_input(input: Option<Duration>, history: &mut SignalHistory) {
    if let Some(at) = input
        && history.at_input.as_ref().is_none_or(|(seen, _)| *seen != at)
    {
        history.at_input = Some((at, history.latest.clone()));
    }
}

/// Signal timers of `members` whose due time `/proc` does not show, that the reaction to
/// the last input ([`note_input`]) may have armed — in words — and every member's marks now (kept by
/// the caller when the program is found at rest). The evidence: a POSIX timer
/// (`timer_create`) created, or a SIGALRM handler (`setitimer`, `alarm`) installed, by a
/// process since the program was last seen at rest before the input, or by one started
/// after the input. A process never seen at rest before the input (typed to while it
/// started, installing its handlers) gives no evidence; one that re-arms a timer whose
/// handler it already had cannot be seen at all.
///
/// Called once the program's threads were looked at: what a process did before the rest
/// the probe saw is then in its marks. Marks read before the look could miss a timer made
/// just before that rest and count it, at the next input, as made by the input.
pub(super) fn signal_timers(
    members: &[Process],
    history: &SignalHistory,
) -> (SignalTimers, std::collections::HashMap<i32, SignalMarks>) {
    let marks: std::collections::HashMap<i32, SignalMarks> = members
        .iter()
        .filter(|p| !p.background)
        .map(|p| (p.pid, signal_marks(p.pid)))
        .collect();
    // A program never seen at rest before the input (the start is its first input) gives
    // no evidence: its start installs its handlers.
    let Some((_, before)) = history.at_input.as_ref().filter(|(_, before)| !before.is_empty()) else {
        return (SignalTimers::default(), marks);
    };
    let none = SignalMarks::default();
    let mut hidden = Vec::new();
    let unseen = members
        .iter()
        .filter_map(|process| {
            let now = marks.get(&process.pid)?;
            let then = match (before.get(&process.pid), process.after_input) {
                (Some(then), false) => then,
                (_, true) => &none,
                (None, false) => return None,
            };
            let what = if now.timers.iter().any(|t| !then.timers.contains(t)) {
                "created a POSIX timer (timer_create) after the input"
            } else if now.alarm && !then.alarm {
                "began catching SIGALRM after the input (a timer of setitimer or alarm)"
            } else if now.alarm {
                // A handler installed before: re-arming setitimer or alarm under it changes
                // nothing /proc shows, so any input may have armed one — or none, as in
                // most programs that catch it (top ends on it, fish and emacs catch every
                // signal): said as what could not be looked at, not as seen pending.
                hidden.push(format!(
                    "{} (pid {}) catches SIGALRM, and a timer of setitimer or alarm re-armed under that handler shows nowhere",
                    process.name, process.pid
                ));
                return None;
            } else {
                return None;
            };
            Some(format!(
                "{} (pid {}) {what}, whose due time the kernel does not show",
                process.name, process.pid
            ))
        })
        .collect();
    (SignalTimers { unseen, hidden }, marks)
}

/// The signal timers of a reaction whose due time `/proc` does not show, in words
/// ([`signal_timers`]).
#[derive(Default)]
pub(super) struct SignalTimers {
    /// Armed since the input, by the evidence: a POSIX timer created, a SIGALRM handler
    /// installed, by a process since the program's rest before it.
    pub(super) unseen: Vec<String>,
    /// Possibly armed, with no evidence either way: a SIGALRM handler installed before.
    pub(super) hidden: Vec<String>,
}

/// What process `pid` shows of its signal timers.
fn signal_marks(pid: i32) -> SignalMarks {
    let timers = proc_text(format!("/proc/{pid}/timers"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.strip_prefix("ID:")?.trim().parse().ok())
        .collect();
    let alarm = proc_text(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            let caught = status.lines().find_map(|l| l.strip_prefix("SigCgt:"))?;
            u64::from_str_radix(caught.trim(), 16).ok()
        })
        .is_some_and(|caught| caught & (1 << (libc::SIGALRM - 1)) != 0);
    SignalMarks { timers, alarm }
}

/// A process's name, controlling terminal, process group and start time (clock ticks since
/// boot), from `/proc/PID/stat`.
fn stat(pid: i32) -> Option<(Process, i32, u64)> {
    let text = proc_text(format!("/proc/{pid}/stat")).ok()?;
    let (name, fields) = split_stat(&text)?;
    // After the name: state, ppid, pgrp, session, tty_nr, …, starttime (the 20th).
    let pgrp = fields.get(2)?.parse().ok()?;
    let tty = fields.get(4)?.parse::<i64>().ok()? as u64;
    let started = fields.get(19)?.parse().ok()?;
    Some((
        Process {
            pid,
            name: name.to_string(),
            tty,
            foreground: false,
            after_input: false,
            background: false,
        },
        pgrp,
        started,
    ))
}

/// A `stat` line's name (between the first `(` and the last `)`) and the fields after.
fn split_stat(text: &str) -> Option<(&str, Vec<&str>)> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let name = text.get(open + 1..close)?;
    Some((name, text.get(close + 1..)?.split_whitespace().collect()))
}

/// The text of a small `/proc` file, read to its end. Not `std::fs::read_to_string`: it
/// asks the file's size first (`statx`, then `lseek`), which a `/proc` file reports as 0
/// anyway — two system calls of six for every file a probe reads, a dozen or more a look
/// and some for every thread.
pub(super) fn proc_text(path: impl AsRef<std::path::Path>) -> std::io::Result<String> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut text = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => text.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    String::from_utf8(text).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

#[cfg(test)]
mod tests {
    use super::proc_text;

    #[test]
    fn a_files_text_is_read_whole_past_the_first_read_and_bad_utf8_is_an_error() {
        let dir = crate::files::TempDir::new("proc-text").unwrap();
        // Two-byte characters across every 4 KiB boundary of 10 KB.
        let text: String = (0..5000).map(|i| if i % 3 == 0 { 'é' } else { 'x' }).collect();
        let path = dir.path().join("text");
        std::fs::write(&path, &text).unwrap();
        assert_eq!(proc_text(&path).unwrap(), text);
        std::fs::write(&path, b"ok\xff").unwrap();
        let error = proc_text(&path).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
        assert_eq!(
            proc_text("/proc/self/comm").unwrap(),
            std::fs::read_to_string("/proc/self/comm").unwrap()
        );
    }
}
