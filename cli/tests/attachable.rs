//! Sessions of a test, library or Python, watched and taken over by a person with
//! `tuipilot attach`: a session made watchable while its test drives it, and a failing
//! test's session kept (`TUIPILOT_KEEP`) until the person who attached leaves.

mod support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use support::{Dir, SignalsAtDefault, eventually, person, screen_with, text};
use tuipilot::Session;
use tuipilot::live::point::WatchPoint;

fn bash() -> Session {
    Session::builder("bash")
        .args(["--norc", "--noprofile"])
        .env("PS1", "$ ")
        .timeout(Duration::from_secs(20))
        .spawn()
        .expect("bash starts")
}

#[test]
fn a_library_session_answers_attach_and_a_person_with_control_types_into_it() {
    let dir = Dir::new();
    let session = Arc::new(bash());
    session.send_text("echo driven by the test\n").unwrap();
    session.wait_for_text("^driven by the test$").unwrap();
    let point =
        WatchPoint::open_in(&dir.0, "libtest", session.clone(), "a program using the library").unwrap();
    // It answers as a host does: `info` names the program, and what only its owner
    // drives is refused with a note saying how to watch it.
    let info = dir.json(&["info", "-s", "libtest", "--json"]);
    assert_eq!(info["pid"], session.pid(), "{info}");
    let refused = dir.run(&["send", "-s", "libtest", "-t", "x"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("belongs to another process (a program using the library)"),
        "{}",
        text(&refused.stderr)
    );
    // A person attaches with control, sees the test's screen and types into it.
    person(&dir, "watcher", 80, 26, &["-s", "libtest", "attach", "--control"]);
    screen_with(&dir, "watcher", "^driven by the test$");
    dir.ok(&["send", "-s", "watcher", "-t", "echo typed by hand", "-k", "Enter"]);
    session.wait_for_text("^typed by hand$").unwrap();
    // The point closed: the watcher is told, and the name is free again.
    drop(point);
    screen_with(&dir, "watcher", "session `libtest` ended");
    assert!(!dir.socket("libtest").exists());
    let again =
        WatchPoint::open_in(&dir.0, "libtest", session.clone(), "a program using the library").unwrap();
    drop(again);
}

#[test]
fn a_watch_point_refuses_a_name_in_use_and_a_name_that_is_not_one() {
    let dir = Dir::new();
    let session = Arc::new(bash());
    let first = WatchPoint::open_in(&dir.0, "taken", session.clone(), "a program using the library").unwrap();
    let err = WatchPoint::open_in(&dir.0, "taken", session.clone(), "a program using the library")
        .unwrap_err()
        .to_string();
    assert!(err.contains("a session named `taken` already runs"), "{err}");
    let err = WatchPoint::open_in(&dir.0, "a b", session, "a program using the library")
        .unwrap_err()
        .to_string();
    assert!(err.contains("invalid session name `a b`"), "{err}");
    drop(first);
}

/// The example of a failing test (`examples/kept_on_failure.rs`), built if need be.
fn failing_test() -> Command {
    let built = Command::new(env!("CARGO"))
        .args([
            "build",
            "-q",
            "-p",
            "tuipilot-cli",
            "--example",
            "kept_on_failure",
        ])
        .status()
        .expect("cargo runs");
    assert!(built.success(), "building the example");
    let exe = std::env::current_exe().unwrap();
    let examples = exe.parent().unwrap().parent().unwrap().join("examples");
    let mut command = Command::new(examples.join("kept_on_failure"));
    command
        .env_remove("CI")
        .env("RUST_BACKTRACE", "0")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .signals_at_default();
    command
}

/// The failing test run in `dir` with `TUIPILOT_KEEP=keep` (and `CI` as given), and the
/// lines of its stderr as they come.
fn run_failing_test(
    dir: &Dir,
    keep: &str,
    ci: Option<&str>,
) -> (std::process::Child, std::sync::mpsc::Receiver<String>) {
    let mut command = failing_test();
    command.env("TUIPILOT_DIR", &dir.0).env("TUIPILOT_KEEP", keep);
    if let Some(ci) = ci {
        command.env("CI", ci);
    }
    let mut child = command.spawn().unwrap();
    let (lines, received) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    (child, received)
}

/// The first line of `lines` that contains `what`, within a minute.
fn line_with(lines: &std::sync::mpsc::Receiver<String>, what: &str) -> String {
    let mut seen = Vec::new();
    loop {
        match lines.recv_timeout(Duration::from_secs(60)) {
            Ok(line) if line.contains(what) => return line,
            Ok(line) => seen.push(line),
            Err(e) => panic!("no line with {what:?} ({e}); saw:\n{}", seen.join("\n")),
        }
    }
}

#[test]
fn a_failing_tests_session_is_kept_with_tuipilot_keep_until_the_person_who_attached_leaves() {
    let dir = Dir::new();
    let (mut child, lines) = run_failing_test(&dir, "10m", None);
    let kept = line_with(&lines, "is kept for");
    // Named after the test, with the command to run.
    assert!(kept.contains("`menus.a_menu_opens_on_f9` (bash, pid"), "{kept}");
    assert!(kept.contains("is kept for 10 min"), "{kept}");
    assert!(
        kept.contains("run `tuipilot -s menus.a_menu_opens_on_f9 attach`"),
        "{kept}"
    );
    // The person sees the screen the test gave up on, and takes the program over.
    person(
        &dir,
        "watcher",
        80,
        26,
        &["-s", "menus.a_menu_opens_on_f9", "attach", "--control"],
    );
    screen_with(&dir, "watcher", "^the screen the test left$");
    dir.ok(&["send", "-s", "watcher", "-t", "echo taken over", "-k", "Enter"]);
    screen_with(&dir, "watcher", "^taken over$");
    // Leaving lets the test end, as failed, with its session gone.
    dir.ok(&["send", "-s", "watcher", "-k", "C-]"]);
    let ended = line_with(&lines, "let go");
    assert!(ended.ends_with("let go: the watcher left"), "{ended}");
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(101));
    assert!(!dir.socket("menus.a_menu_opens_on_f9").exists());
}

#[test]
fn a_kept_session_nobody_attaches_to_ends_at_its_bound_and_ci_keeps_none() {
    let dir = Dir::new();
    let (mut child, lines) = run_failing_test(&dir, "2s", None);
    line_with(&lines, "is kept for 2 s");
    let ended = line_with(&lines, "let go");
    assert!(ended.ends_with("nobody attached within 2 s"), "{ended}");
    assert_eq!(child.wait().unwrap().code(), Some(101));
    assert!(eventually(Duration::from_secs(5), || !dir
        .socket("menus.a_menu_opens_on_f9")
        .exists()));
    // In CI nobody can attach: nothing is kept, and the log says why.
    let (mut child, lines) = run_failing_test(&dir, "1", Some("true"));
    let why = line_with(&lines, "is not kept");
    assert!(why.contains("CI is set"), "{why}");
    assert_eq!(child.wait().unwrap().code(), Some(101));
    // A value it cannot read is said, not guessed at.
    let (mut child, lines) = run_failing_test(&dir, "ten", None);
    let why = line_with(&lines, "is not kept");
    assert!(why.contains("TUIPILOT_KEEP"), "{why}");
    assert_eq!(child.wait().unwrap().code(), Some(101));
}
