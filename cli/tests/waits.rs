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

#[test]
fn a_megabyte_clipboard_write_and_long_links_leave_every_reply_small() {
    let dir = Dir::new();
    start_bash(&dir, "clip");
    // A megabyte of control characters (each six bytes once escaped in JSON), and a
    // hundred links with 4 KiB URIs.
    dir.ok(&[
        "send",
        "-s",
        "clip",
        "-t",
        r#"printf '\033]52;c;%s\007' "$(head -c 1000000 /dev/zero | base64 -w0)"; for i in $(seq 100); do printf '\033]8;;http://x/%s\033\\L\033]8;;\033\\ ' "$(head -c 4000 /dev/zero | tr '\0' a)"; done; echo; echo done-$((6*7))"#,
        "-k",
        "Enter",
        "--wait",
        "^done-42$",
    ]);
    let out = dir.run(&["capture", "-s", "clip", "--json"]);
    assert!(out.status.success());
    assert!(
        out.stdout.len() < 256 * 1024,
        "a capture of {} bytes",
        out.stdout.len()
    );
    let screen: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(screen["clipboard"]["bytes"], 1_000_000, "{}", screen["clipboard"]);
    assert_eq!(screen["clipboard"]["text"].as_str().unwrap().len(), 1024);
    let links = screen["links"].as_array().unwrap();
    assert_eq!(links.len(), 64);
    assert!(links.iter().all(|l| l["uri"].as_str().unwrap().len() <= 1024));
}

#[test]
fn send_wait_ready_returns_after_the_command_and_wait_ready_holds_at_the_prompt() {
    let dir = Dir::new();
    start_bash(&dir, "r");
    dir.ok(&["wait", "-s", "r", "--ready"]);
    let out = dir.ok(&[
        "send",
        "-s",
        "r",
        "-t",
        "sleep 0.3; echo done-$((6*7))",
        "-k",
        "Enter",
        "--wait-ready",
        "--capture",
    ]);
    assert!(out.contains("\ndone-42\n$"), "{out}");
    // A program still working is not ready: the wait runs out and says why.
    dir.ok(&["send", "-s", "r", "-t", "sleep 30", "-k", "Enter"]);
    let busy = dir.run(&["wait", "-s", "r", "--ready", "--timeout-ms", "300"]);
    assert_eq!(busy.status.code(), Some(1), "{}", text(&busy.stderr));
    assert!(
        text(&busy.stderr).contains("busy: sleep (pid"),
        "{}",
        text(&busy.stderr)
    );
}

#[test]
fn send_capture_without_a_wait_shows_the_screen_after_the_program_reacted() {
    let dir = Dir::new();
    start_bash(&dir, "c");
    // The answer comes 300 ms after the input: a capture taken at once would miss it.
    let out = dir.ok(&[
        "send",
        "-s",
        "c",
        "-t",
        "sleep 0.3; echo late-$((40+2))",
        "-k",
        "Enter",
        "--capture",
    ]);
    assert!(out.contains("\nlate-42\n$"), "{out}");
    // Still busy when the time is up: the screen as it is, and a note why.
    let busy = dir.run(&[
        "send",
        "-s",
        "c",
        "-t",
        "sleep 30",
        "-k",
        "Enter",
        "--capture",
        "--timeout-ms",
        "300",
    ]);
    assert_eq!(busy.status.code(), Some(0), "{}", text(&busy.stderr));
    assert!(
        text(&busy.stdout).contains("$ sleep 30"),
        "{}",
        text(&busy.stdout)
    );
    assert!(
        text(&busy.stderr).contains("not ready within 300 ms: busy: sleep (pid"),
        "{}",
        text(&busy.stderr)
    );
}

#[test]
fn wait_prompt_then_wait_command_on_a_fresh_shell() {
    let dir = Dir::new();
    dir.ok(&[
        "start",
        "-s",
        "p",
        "--env",
        "PS1=# ",
        "--",
        "bash",
        "--norc",
        "--noprofile",
    ]);
    dir.ok(&["wait", "-s", "p", "--prompt"]);
    let out = dir.ok(&["send", "-s", "p", "-t", "true", "-k", "Enter", "--wait-command"]);
    assert_eq!(out.trim(), "command exited with code 0");
}

#[test]
fn every_wait_says_why_it_ended() {
    let dir = Dir::new();
    start_bash(&dir, "w");
    let sent = dir.json(&[
        "send",
        "-s",
        "w",
        "-t",
        "echo marker-7",
        "-k",
        "Enter",
        "--wait",
        "^marker-7$",
        "--json",
    ]);
    assert_eq!(sent["waited"], "matched /^marker-7$/ at row 1", "{sent}");
    let ready = dir.json(&["wait", "-s", "w", "--ready", "--json"]);
    let why = ready["waited"].as_str().unwrap_or_default();
    assert!(why.starts_with("ready: bash (pid "), "{ready}");
    let quiet = dir.json(&["wait", "-s", "w", "--stable", "100", "--json"]);
    assert!(
        quiet["waited"]
            .as_str()
            .unwrap_or_default()
            .starts_with("quiet for "),
        "{quiet}"
    );
    let command = dir.json(&[
        "send",
        "-s",
        "w",
        "-t",
        "false",
        "-k",
        "Enter",
        "--wait-command",
        "--json",
    ]);
    assert_eq!(command["waited"], "command done (OSC 133), exit 1", "{command}");
}

#[test]
fn wait_wrapped_matches_the_line_the_terminal_wrapped_where_text_sees_rows() {
    let dir = Dir::new();
    let path = "/srv/builds/2026/release-candidate/artifacts/linux/x86_64/tuipilot.tar.gz";
    dir.ok(&[
        "start",
        "-s",
        "p",
        "--cols",
        "40",
        "--",
        "sh",
        "-c",
        &format!("echo {path}; exec sleep 600"),
    ]);
    let whole = format!("^{}$", regex::escape(path));
    let rows = dir.run(&["wait", "-s", "p", "--text", &whole, "--timeout-ms", "300"]);
    assert!(!rows.status.success(), "no one row holds the whole path");
    let joined = dir.json(&["wait", "-s", "p", "--wrapped", &whole, "--json"]);
    assert_eq!(
        joined["waited"],
        format!("matched /{whole}/ in the line wrapped over rows 0-1"),
        "{joined}"
    );
}

#[test]
fn wait_text_in_rows_counts_only_the_matches_inside_them() {
    let dir = Dir::new();
    dir.ok(&[
        "start",
        "-s",
        "t",
        "--",
        "sh",
        "-c",
        "printf 'city\\nTokyo 37.4\\n'; printf '\\033[24;1Hsearch: Tokyo'; exec sleep 600",
    ]);
    let held = dir.json(&[
        "wait",
        "-s",
        "t",
        "--text",
        "Tokyo",
        "--in-rows",
        "0-22",
        "--json",
    ]);
    assert_eq!(
        held["waited"], "text matching /Tokyo/ in rows 0-22 on the screen: held",
        "{held}"
    );
    let out = dir.run(&[
        "wait",
        "-s",
        "t",
        "--text",
        "search",
        "--in-rows",
        "0-22",
        "--timeout-ms",
        "300",
    ]);
    assert!(!out.status.success());
    let said = text(&out.stderr);
    assert!(
        said.contains("found only at row 23 column 0, outside the region (in rows 0-22)"),
        "{said}"
    );
    let bad = dir.run(&["wait", "-s", "t", "--text", "x", "--in-rows", "9-2"]);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad.stderr));
    assert!(
        text(&bad.stderr).contains("--in-rows `9-2` runs backwards"),
        "{}",
        text(&bad.stderr)
    );
}
