//! Files the command line writes, against another user's planted names: a symlink, a hard
//! link or a FIFO at the name of a recording, an export, a JUnit report or a tape's cast
//! never leads the write into another file or hangs the writer; and an interrupted `run`
//! leaves no temporary recording behind.

mod support;

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::{Duration, Instant};

use support::{Dir, SignalsAtDefault, text};

/// A file someone else would like written, and its contents.
fn victim(dir: &Path) -> std::path::PathBuf {
    let victim = dir.join("victim");
    std::fs::write(&victim, "do not touch").unwrap();
    victim
}

fn untouched(victim: &Path) {
    assert_eq!(std::fs::read_to_string(victim).unwrap(), "do not touch");
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

#[test]
fn start_record_refuses_a_symlink_a_hard_link_and_a_fifo_at_the_recording_name() {
    let dir = Dir::new();
    let work = dir.work();
    let victim = victim(&work);
    let symlink = work.join("sym.cast");
    std::os::unix::fs::symlink(&victim, &symlink).unwrap();
    let hard = work.join("hard.cast");
    std::fs::hard_link(&victim, &hard).unwrap();
    let fifo = work.join("fifo.cast");
    mkfifo(&fifo);
    for (planted, why) in [
        (&symlink, "is a symbolic link"),
        (&hard, "has other hard links"),
        (&fifo, "is a FIFO"),
    ] {
        let begun = Instant::now();
        let out = dir.run(&[
            "start",
            "-s",
            "rec",
            "--record",
            planted.to_str().unwrap(),
            "--",
            "sh",
        ]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("refusing to write") && stderr.contains(why),
            "{stderr}"
        );
        assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
        assert!(
            begun.elapsed() < Duration::from_secs(10),
            "a FIFO must not block the start"
        );
    }
    untouched(&victim);
    assert_eq!(std::fs::metadata(&hard).unwrap().nlink(), 2);
}

#[test]
fn export_and_junit_replace_a_planted_link_instead_of_writing_through_it() {
    let dir = Dir::new();
    let work = dir.work();
    let victim = victim(&work);
    dir.ok(&["start", "-s", "ex", "--", "sh"]);
    dir.ok(&[
        "send", "-s", "ex", "-t", "echo hi", "-k", "Enter", "--wait", "^hi$",
    ]);
    let tape = work.join("ex.tape");
    std::os::unix::fs::symlink(&victim, &tape).unwrap();
    let snap = work.join("ex.snap");
    std::fs::hard_link(&victim, &snap).unwrap();
    dir.ok(&["export", "-s", "ex", "-o", tape.to_str().unwrap()]);
    untouched(&victim);
    let meta = std::fs::symlink_metadata(&tape).unwrap();
    assert!(meta.is_file(), "the link was replaced by the export");
    assert_eq!(
        meta.mode() & 0o777,
        0o600,
        "an export holds what was typed: owner only"
    );
    assert!(std::fs::read_to_string(&tape).unwrap().contains("echo hi"));
    dir.ok(&["exit", "-s", "ex"]);

    std::fs::write(work.join("t.tape"), "Type \"x\"\n").unwrap();
    let junit = work.join("junit.xml");
    std::os::unix::fs::symlink(&victim, &junit).unwrap();
    let out = dir.run_in(&work, &["run", "--junit", "junit.xml", "-q", "t.tape"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    untouched(&victim);
    assert!(std::fs::read_to_string(&junit).unwrap().contains("<testsuite"));
}

#[test]
fn a_tapes_output_cast_is_not_written_through_a_planted_link() {
    let dir = Dir::new();
    let work = dir.work();
    let victim = victim(&work);
    std::os::unix::fs::symlink(&victim, work.join("run.cast")).unwrap();
    std::fs::write(work.join("t.tape"), "Output run.cast\nType \"x\"\n").unwrap();
    let out = dir.run_in(&work, &["run", "-q", "t.tape"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("symbolic link"), "{stderr}");
    untouched(&victim);
}

#[test]
fn an_interrupted_run_removes_its_temporary_recording() {
    let dir = Dir::new();
    let work = dir.work();
    let tmp = work.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    // Types a secret into `cat`, then sleeps long enough to be interrupted.
    std::fs::write(
        work.join("t.tape"),
        "Require cat\nType \"cat\"\nEnter\nType \"hunter2\"\nWait /hunter2/\nSleep 60s\n",
    )
    .unwrap();
    // HUP (a closed terminal) and QUIT left the recording before.
    for signal in ["TERM", "INT", "HUP", "QUIT"] {
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_tuipilot"))
            .args(["run", "-q", "t.tape"])
            .signals_at_default()
            .current_dir(&work)
            .env("TUIPILOT_DIR", &dir.0)
            .env("TMPDIR", &tmp)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // The run is under way once its scratch recording holds the typed text.
        let begun = Instant::now();
        let holds_the_secret = || {
            walk(&tmp)
                .iter()
                .any(|f| std::fs::read_to_string(f).is_ok_and(|t| t.contains("hunter2")))
        };
        while !holds_the_secret() {
            assert!(
                begun.elapsed() < Duration::from_secs(30),
                "the run never recorded the typing"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        support::dies_of(child, signal);
        let left = walk(&tmp);
        assert!(left.is_empty(), "SIG{signal} left {left:?}");
    }
}

/// Every file under `dir`, and every directory left there.
fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        found.push(path.clone());
        if path.is_dir() {
            found.extend(walk(&path));
        }
    }
    found
}
