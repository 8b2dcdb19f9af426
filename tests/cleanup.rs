//! Ending a session ends every process in it — background jobs, subshells, stopped jobs,
//! programs that ignore SIGHUP — by exit(), kill() and drop alike.

mod common;

use std::time::Duration;

use tuipilot::{ExitStatus, Session};
use tuipilot_testenv::needs;

/// Starts an interactive bash with jobs of every kind and returns it with their pids.
fn bash_with_jobs() -> (Session, Vec<i32>) {
    let s = common::bash().spawn().unwrap();
    s.wait_for_text(r"^\$$").unwrap();
    s.send_text("sleep 1000 & echo bg=$!\r").unwrap();
    s.send_text("(sleep 1001 & echo sub=$!)\r").unwrap();
    // The job says when it runs, so Ctrl-Z reaches it and not bash's own prompt.
    s.send_text("sh -c 'echo fg-started; exec sleep 1002'\r").unwrap();
    s.wait_for_text("^fg-started").unwrap();
    // Stop the foreground job with Ctrl-Z: a stopped process ignores SIGHUP until continued.
    s.press("C-z").unwrap();
    s.wait_for_text("Stopped").unwrap();
    let snap = s.snapshot();
    let pids = vec![s.pid(), printed_pid(&snap, "bg="), printed_pid(&snap, "sub=")];
    for pid in &pids {
        assert!(
            common::alive(*pid),
            "{pid} should be running before the session ends"
        );
    }
    (s, pids)
}

/// The pid a command printed as `TAG<pid>` at the start of a row.
fn printed_pid(snap: &tuipilot::Snapshot, tag: &str) -> i32 {
    let row = snap
        .rows()
        .iter()
        .find_map(|r| r.strip_prefix(tag))
        .expect("the pid line");
    row.trim().parse().expect("a pid")
}

fn assert_all_gone(sid: i32, pids: &[i32]) {
    common::assert_session_gone(sid);
    for pid in pids {
        assert!(!common::alive(*pid), "process {pid} survived");
    }
}

#[test]
fn exit_ends_background_and_stopped_jobs() {
    let (s, pids) = bash_with_jobs();
    let status = s.exit().unwrap();
    assert_eq!(status, ExitStatus::Signaled(1), "bash ends on SIGHUP");
    assert_all_gone(s.pid(), &pids);
}

#[test]
fn kill_ends_everything_at_once() {
    let (s, pids) = bash_with_jobs();
    assert_eq!(s.kill().unwrap(), ExitStatus::Signaled(9));
    assert_all_gone(s.pid(), &pids);
}

#[test]
fn drop_ends_everything() {
    let (s, pids) = bash_with_jobs();
    let sid = s.pid();
    drop(s);
    assert_all_gone(sid, &pids);
}

#[test]
fn exit_escalates_when_signals_are_ignored() {
    let s = Session::builder("sh")
        .args(["-c", "trap '' HUP TERM; echo ready; while :; do sleep 1; done"])
        .exit_grace(Duration::from_millis(200))
        .spawn()
        .unwrap();
    s.wait_for_text("ready").unwrap();
    assert_eq!(s.exit().unwrap(), ExitStatus::Signaled(9));
    common::assert_session_gone(s.pid());
}

#[test]
fn a_shell_that_exits_leaving_a_job_behind_still_reports_its_exit() {
    // The background job keeps the PTY open, so end of file never comes: the exit is
    // detected from the child itself.
    let s = common::bash().spawn().unwrap();
    s.wait_for_text(r"^\$$").unwrap();
    s.send_text("sleep 1000 & echo job=$!; exit 5\r").unwrap();
    assert_eq!(s.wait_exit().unwrap(), ExitStatus::Exited(5));
    let job = printed_pid(&s.snapshot(), "job=");
    assert!(common::alive(job), "the job outlives bash until the session ends");
    let sid = s.pid();
    drop(s);
    assert_all_gone(sid, &[job]);
}

// screen's back end is in a session of its own and outlives a hang-up; every process seen
// at the first signal keeps getting the later ones, even once its parent (the front end)
// is gone and it is no longer the session's descendant.
#[needs(screen)]
#[test]
fn ending_a_session_ends_screens_back_end_that_outlives_its_front_end() {
    let dir = common::screen_dir();
    let s = Session::builder("screen")
        .args(["-q", "sh"])
        .env("SCREENDIR", dir.0.to_str().unwrap())
        .timeout(Duration::from_secs(10))
        .spawn()
        .unwrap();
    s.wait_ready().unwrap();
    // The back end: the front end's child in a session of its own.
    let front = s.pid();
    let back = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .find(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
                fields.get(1) == Some(&front.to_string().as_str())
                    && fields.get(3) != Some(&front.to_string().as_str())
            })
        })
        .expect("screen's back end");
    s.exit().unwrap();
    assert!(
        common::wait_for_pid_exit(back, Duration::from_secs(10)),
        "screen's back end {back} outlived the session"
    );
}
