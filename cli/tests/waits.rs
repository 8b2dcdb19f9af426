//! The waits on meaning through the real binary: a shell command's end and exit code,
//! bells, the title, the working directory, and the signals `capture --json` reports.

mod support;

use support::{Dir, start_bash, text};

#[test]
fn send_wait_command_runs_a_command_and_reports_its_exit_code() {
    let dir = Dir::new();
    start_bash(&dir, "b");
    let out = dir.ok(&[
        "send",
        "-s",
        "b",
        "-t",
        "echo built; false",
        "-k",
        "Enter",
        "--wait-command",
    ]);
    assert_eq!(out.trim(), "command exited with code 1");
    let reply = dir.json(&[
        "send",
        "-s",
        "b",
        "-t",
        "echo again",
        "-k",
        "Enter",
        "--wait-command",
        "--json",
    ]);
    assert_eq!(reply["command_exit"], 0, "{reply}");
    let output = &reply["last_command"]["output"];
    let rows: Vec<&str> = reply["text"].as_str().unwrap().lines().collect();
    let (start, end) = (
        output["start"].as_u64().unwrap() as usize,
        output["end"].as_u64().unwrap() as usize,
    );
    assert_eq!(&rows[start..end], ["again"], "{reply}");
}

#[test]
fn wait_command_waits_for_the_next_command_to_finish() {
    let dir = Dir::new();
    start_bash(&dir, "b");
    dir.ok(&["send", "-s", "b", "-t", "sleep 1; (exit 3)", "-k", "Enter"]);
    let out = dir.ok(&["wait", "-s", "b", "--command", "--timeout-ms", "20000"]);
    assert_eq!(out.trim(), "command exited with code 3");
}

#[test]
fn wait_for_a_bell_the_title_and_the_working_directory() {
    let dir = Dir::new();
    start_bash(&dir, "b");
    dir.ok(&[
        "send",
        "-s",
        "b",
        "-t",
        r"printf '\033]2;building\007\033]7;file://host/tmp/work%%20dir\007\033]52;c;Y29waWVk\007'",
        "-k",
        "Enter",
        "--wait-command",
    ]);
    dir.ok(&["wait", "-s", "b", "--title", "^build"]);
    dir.ok(&["wait", "-s", "b", "--cwd", "^/tmp/work dir$"]);
    let screen = dir.json(&["capture", "-s", "b", "--json"]);
    assert_eq!(screen["title"], "building");
    assert_eq!(screen["cwd"], "/tmp/work dir");
    assert_eq!(screen["clipboard"]["text"], "copied", "{screen}");
    dir.ok(&["send", "-s", "b", "-t", r"sleep 1; printf '\a'", "-k", "Enter"]);
    dir.ok(&["wait", "-s", "b", "--bell", "--timeout-ms", "20000"]);
    let out = dir.run(&["wait", "-s", "b", "--title", "^never$", "--timeout-ms", "100"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains(r#"note: the title is "building""#),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn without_shell_integration_wait_command_says_why_it_cannot_hold() {
    let dir = Dir::new();
    dir.ok(&[
        "start",
        "-s",
        "n",
        "--no-shell-integration",
        "--env",
        "PS1=$ ",
        "--",
        "bash",
        "--norc",
        "--noprofile",
    ]);
    let out = dir.run(&[
        "send",
        "-s",
        "n",
        "-t",
        "true",
        "-k",
        "Enter",
        "--wait-command",
        "--timeout-ms",
        "300",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no OSC 133 marks"),
        "{}",
        text(&out.stderr)
    );
}
