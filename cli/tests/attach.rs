//! `tuipilot attach`, driven as a person would drive it: it runs inside a tuipilot session
//! (the person's terminal), watching another.

mod support;

use serde_json::Value;
use support::{Dir, person, screen_with, start_bash, status, text};

#[test]
fn a_watcher_sees_the_agents_screen_live_and_its_keys_do_not_reach_the_program() {
    let dir = Dir::new();
    start_bash(&dir, "agent");
    person(&dir, "watcher", 80, 26, &["-s", "agent", "attach"]);
    person(&dir, "second", 70, 20, &["-s", "agent", "attach"]);
    screen_with(&dir, "watcher", r"^\$");
    dir.ok(&[
        "send",
        "-s",
        "agent",
        "-t",
        "echo from the agent",
        "-k",
        "Enter",
        "--wait",
        "^from the agent$",
    ]);
    // Both watchers show it, drawn from cells: the agent's row, with the status line.
    let seen = screen_with(&dir, "watcher", "^from the agent$");
    assert_eq!(
        status(&seen).trim_end(),
        "tuipilot agent · 80×24 centred · read-only · Ctrl-] leaves"
    );
    screen_with(&dir, "second", "from the agent");
    // Keys typed at a read-only watcher are refused, visibly, and never sent.
    dir.ok(&["send", "-s", "watcher", "-t", "rm -rf x", "-k", "Enter"]);
    let refused = screen_with(&dir, "watcher", "read-only: keys are not sent");
    assert!(
        status(&refused).contains("attach --control sends them"),
        "{}",
        status(&refused)
    );
    dir.ok(&[
        "send",
        "-s",
        "agent",
        "-t",
        "echo still the agents",
        "-k",
        "Enter",
        "--wait",
        "^still the agents$",
    ]);
    let agent = dir.ok(&["capture", "-s", "agent"]);
    assert!(!agent.contains("rm -rf"), "{agent}");
    // The agent's own operations behave as unwatched: its export has no person in it.
    let tape = dir.ok(&["export", "-s", "agent"]);
    assert!(!tape.contains("typed by a person"), "{tape}");
}

#[test]
fn the_leave_key_restores_the_persons_terminal_and_the_session_goes_on() {
    let dir = Dir::new();
    // A program that asks for application cursor keys, the mouse and bracketed paste:
    // the watcher's terminal is put in the same modes while it controls the program.
    dir.ok(&[
        "start",
        "-s",
        "agent",
        "--",
        "bash",
        "--norc",
        "-c",
        r"printf '\033[?1h\033[?1002h\033[?1006h\033[?2004hmodes set\n'; exec cat",
    ]);
    dir.ok(&["wait", "-s", "agent", "--text", "modes set"]);
    person(&dir, "watcher", 80, 25, &["-s", "agent", "attach", "--control"]);
    let watching = screen_with(&dir, "watcher", "modes set");
    assert_eq!(watching["keys"]["application_cursor"], true, "{watching}");
    assert_eq!(watching["mouse"]["tracking"], "button", "{watching}");
    assert_eq!(watching["alternate_screen"], true, "{watching}");
    dir.ok(&["send", "-s", "watcher", "-k", "C-]"]);
    dir.ok(&["wait", "-s", "watcher", "--exit"]);
    let left = dir.json(&["capture", "-s", "watcher", "--json"]);
    assert!(
        left["text"]
            .as_str()
            .unwrap()
            .contains("left session `agent`; it goes on"),
        "{left}"
    );
    assert_eq!(left["alternate_screen"], false, "{left}");
    assert_eq!(left["keys"]["application_cursor"], false, "{left}");
    assert_eq!(left["mouse"]["tracking"], "off", "{left}");
    assert_eq!(left["cursor"]["visible"], true, "{left}");
    // Leaving ended nothing: the agent's session still answers, its program alive.
    let info = dir.info("agent");
    assert_eq!(info["exit"], Value::Null, "{info}");
}

#[test]
fn with_control_keys_and_clicks_reach_the_program_and_the_log_says_a_person_typed_them() {
    let dir = Dir::new();
    let cast = dir.work().join("agent.cast");
    dir.ok(&[
        "start",
        "-s",
        "agent",
        "--record",
        &cast.to_string_lossy(),
        "--",
        "bash",
        "--norc",
        "-c",
        r"printf '\033[?1000h\033[?1006hready\n'; exec cat",
    ]);
    dir.ok(&["wait", "-s", "agent", "--text", "ready"]);
    // The same size as the agent's screen plus the status line: no offset.
    person(&dir, "watcher", 80, 25, &["-s", "agent", "attach", "--control"]);
    screen_with(&dir, "watcher", "ready");
    // One write, as a terminal sends a pasted line: typed as two, the person's text and
    // Enter may reach the session as two sends with the agent's wait logged between them.
    dir.ok(&["send", "-s", "watcher", "-t", "typed here\r"]);
    dir.ok(&["wait", "-s", "agent", "--text", "^typed here$"]);
    // A click at column 5, row 3 of the person's terminal reaches cat as the program's
    // own SGR report of that cell (cat's terminal echoes ESC as ^[).
    dir.ok(&["send", "-s", "watcher", "--mouse", "click 5,3"]);
    dir.ok(&["wait", "-s", "agent", "--text", r"\^\[\[<0;6;4M\^\[\[<0;6;4m"]);
    let tape = dir.ok(&["export", "-s", "agent"]);
    assert!(
        tape.contains("# typed by a person:\nType \"typed here\"\nKey Enter"),
        "{tape}"
    );
    let report = dir.ok(&["report", "-s", "agent"]);
    assert!(report.contains("typed by a person: send typed here"), "{report}");
    // The recording's markers say it too (a player's list of steps shows who typed).
    let recording = std::fs::read_to_string(&cast).unwrap();
    assert!(
        recording.contains("typed by a person: send typed here"),
        "{recording}"
    );
    assert!(
        report.contains("typed by a person: send mouse Press(Left) at 5,3"),
        "{report}"
    );
}

#[test]
fn a_larger_session_is_clipped_with_a_note_and_a_resize_of_the_persons_terminal_redraws_it() {
    let dir = Dir::new();
    dir.ok(&[
        "start",
        "-s",
        "agent",
        "--cols",
        "100",
        "--rows",
        "30",
        "--",
        "bash",
        "--norc",
        "-c",
        r"printf 'top left\033[30;80Hbottom right'; exec cat",
    ]);
    dir.ok(&["wait", "-s", "agent", "--text", "bottom right"]);
    person(&dir, "watcher", 60, 16, &["-s", "agent", "attach"]);
    // The cursor is at the bottom right: the window follows it there.
    let clipped = screen_with(&dir, "watcher", "clipped");
    assert!(
        status(&clipped).starts_with("tuipilot agent · 100×30 clipped to cols 33-92, rows 16-30 ·"),
        "{}",
        status(&clipped)
    );
    assert!(
        clipped["text"].as_str().unwrap().contains("bottom right"),
        "{clipped}"
    );
    dir.ok(&["resize", "-s", "watcher", "--cols", "120", "--rows", "40"]);
    let whole = screen_with(&dir, "watcher", "centred");
    let rows: Vec<&str> = whole["text"].as_str().unwrap().lines().collect();
    // Centred: 10 columns and 4 rows of margin around the 100×30 screen.
    assert_eq!(
        rows[4].trim_end(),
        format!("{}top left", " ".repeat(10)),
        "{whole}"
    );
    assert!(rows[33].ends_with("bottom right"), "{whole}");
    // The agent resizing its session redraws the watcher too.
    dir.ok(&["resize", "-s", "agent", "--cols", "90", "--rows", "20"]);
    let resized = screen_with(&dir, "watcher", "90×20 centred");
    assert!(
        status(&resized).starts_with("tuipilot agent · 90×20 centred · read-only"),
        "{resized}"
    );
}

#[test]
fn a_program_that_exits_while_watched_is_shown_ended_and_the_hosts_end_ends_the_view() {
    let dir = Dir::new();
    start_bash(&dir, "agent");
    person(&dir, "watcher", 80, 25, &["-s", "agent", "attach"]);
    screen_with(&dir, "watcher", r"^\$");
    dir.ok(&["send", "-s", "agent", "-t", "exit 3", "-k", "Enter"]);
    dir.ok(&["wait", "-s", "agent", "--exit"]);
    let ended = screen_with(&dir, "watcher", "the program exited with code 3");
    assert!(status(&ended).contains("read-only"), "{ended}");
    dir.ok(&["exit", "-s", "agent"]);
    dir.ok(&["wait", "-s", "watcher", "--exit"]);
    let after = dir.json(&["capture", "-s", "watcher", "--json"]);
    assert!(
        after["text"].as_str().unwrap().contains("session `agent` ended"),
        "{after}"
    );
    assert_eq!(after["alternate_screen"], false, "{after}");
}

#[test]
fn a_signal_that_ends_a_watcher_restores_the_persons_terminal_first() {
    let dir = Dir::new();
    start_bash(&dir, "agent");
    person(&dir, "watcher", 80, 25, &["-s", "agent", "attach", "--control"]);
    let watching = screen_with(&dir, "watcher", r"^\$");
    assert_eq!(watching["alternate_screen"], true);
    let pid = dir.info("watcher")["pid"].as_i64().unwrap();
    // SAFETY: a signal to the watcher's own process.
    unsafe { libc::kill(pid as i32, libc::SIGTERM) };
    dir.ok(&["wait", "-s", "watcher", "--exit"]);
    let after = dir.json(&["capture", "-s", "watcher", "--json"]);
    assert_eq!(after["alternate_screen"], false, "{after}");
    assert_eq!(after["cursor"]["visible"], true, "{after}");
    assert_eq!(dir.info("agent")["exit"], Value::Null);
}

#[test]
fn attach_outside_a_terminal_or_to_no_session_is_one_line_that_says_what_to_do() {
    let dir = Dir::new();
    start_bash(&dir, "agent");
    let out = dir.run(&["attach", "-s", "agent"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr).trim(),
        "tuipilot: a live view needs a terminal: run it in one (stdin and stdout must both be a terminal)"
    );
    let out = dir.run(&["attach", "-s", "nobody"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("tuipilot: no session named `nobody`"),
        "{}",
        text(&out.stderr)
    );
    let out = dir.run(&["record", "-o", "x.txt", "--", "bash"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("name it FILE.tape"),
        "{}",
        text(&out.stderr)
    );
}

/// `/proc/PID` exists: the process is alive (or not yet reaped).
fn alive(pid: i64) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

#[test]
fn a_session_watched_past_its_idle_timeout_goes_on_after_the_watcher_leaves() {
    // Fails on the code before: the idle clock ran while the person watched, so the host
    // stopped within a second of the watcher leaving.
    let dir = Dir::new();
    dir.ok(&[
        "start",
        "-s",
        "agent",
        "--idle-timeout",
        "5",
        "--",
        "sh",
        "-c",
        "echo started; sleep 6; echo late; read x",
    ]);
    let host = dir.info("agent")["host_pid"].as_i64().unwrap();
    person(&dir, "watcher", 80, 26, &["-s", "agent", "attach"]);
    // Watched, with no request to the agent's session, past its idle timeout.
    screen_with(&dir, "watcher", "^late$");
    dir.ok(&["send", "-s", "watcher", "-k", "C-]"]);
    dir.ok(&["wait", "-s", "watcher", "--exit"]);
    // The person's terminal wraps the line anywhere: read it without its spaces.
    let said: String = dir.ok(&["capture", "-s", "watcher"]).split_whitespace().collect();
    assert!(said.contains("until5spasswithnorequestandnowatcher"), "{said}");
    // A while later (the code before stopped it within a second), still with no request to
    // it, the session goes on: its idle clock started again when the watcher left.
    support::start_sh(&dir, "clock", "sleep 2; echo later; read x");
    dir.ok(&["wait", "-s", "clock", "--text", "^later$"]);
    assert!(alive(host), "the host stopped right after its watcher left");
}

#[test]
fn a_watcher_that_stops_reading_catches_up_says_it_was_behind_and_keeps_control() {
    // Fails on the code before: a watcher that read nothing for 5 s was cut off, told
    // the session had ended, and its keys were dropped.
    let dir = Dir::new();
    dir.ok(&[
        "start", "-s", "agent", "--", "sh", "-c",
        "i=0; while [ $i -lt 1500 ]; do i=$((i+1)); echo \"line $i\"; sleep 0.005; done; echo done; read x; echo \"got $x\"; read y",
    ]);
    person(&dir, "watcher", 80, 26, &["-s", "agent", "attach", "--control"]);
    screen_with(&dir, "watcher", "^line ");
    let watcher = dir.info("watcher")["pid"].as_i64().unwrap() as i32;
    // SAFETY: signals to the watcher's own process.
    unsafe { libc::kill(watcher, libc::SIGSTOP) };
    // The session goes on drawing for longer than the old write timeout.
    dir.ok(&["wait", "-s", "agent", "--text", "^done$", "--timeout-ms", "60000"]);
    // SAFETY: as above.
    unsafe { libc::kill(watcher, libc::SIGCONT) };
    let seen = screen_with(&dir, "watcher", "^done$");
    assert!(!status(&seen).contains("ended"), "{}", status(&seen));
    dir.ok(&[
        "wait",
        "-s",
        "watcher",
        "--text",
        "behind: this view stopped reading",
    ]);
    dir.ok(&["send", "-s", "watcher", "-t", "typed", "-k", "Enter"]);
    dir.ok(&["wait", "-s", "agent", "--text", "^got typed$"]);
}

#[test]
fn an_agents_resize_reaches_the_watcher_without_the_program_drawing() {
    let dir = Dir::new();
    support::start_sh(&dir, "agent", "echo quiet; read x");
    person(&dir, "watcher", 120, 40, &["-s", "agent", "attach"]);
    screen_with(&dir, "watcher", "80×24");
    dir.ok(&["resize", "-s", "agent", "--cols", "100", "--rows", "30"]);
    screen_with(&dir, "watcher", "100×30");
}
