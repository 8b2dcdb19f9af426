//! Mouse and focus input through the real binary: `send --mouse`, `send --focus`, and the
//! modes `capture --json` and `info --json` report.

mod support;

use support::{Dir, text};

/// A program that enables the mouse (1002 with SGR) and focus events, then echoes what it
/// reads the way the terminal driver does (`^[[<0;2;2M`).
fn start_listener(dir: &Dir, name: &str) {
    dir.ok(&[
        "start",
        "-s",
        name,
        "--",
        "sh",
        "-c",
        r"printf '\033[?1002h\033[?1006h\033[?1004hready\n'; exec cat -v",
    ]);
    dir.ok(&["wait", "-s", name, "--text", "^ready"]);
}

#[test]
fn send_mouse_clicks_in_order_with_the_other_steps() {
    let dir = Dir::new();
    start_listener(&dir, "m");
    let screen = dir.json(&["capture", "-s", "m", "--json"]);
    assert_eq!(screen["mouse"]["tracking"], "button", "{screen}");
    assert_eq!(screen["mouse"]["encoding"], "sgr", "{screen}");
    assert_eq!(screen["focus_events"], true, "{screen}");
    let info = dir.json(&["info", "-s", "m", "--json"]);
    assert_eq!(info["mouse"]["tracking"], "button", "{info}");
    // Text, a click on `ready` (row 0, columns 0-4: its middle is column 2), a focus
    // change and more text, in command-line order.
    dir.ok(&[
        "send",
        "-s",
        "m",
        "-t",
        "a",
        "--mouse",
        "click /ready/",
        "--focus",
        "out",
        "-t",
        "b",
        "-k",
        "Enter",
        "--wait",
        "b$",
    ]);
    let screen = dir.ok(&["capture", "-s", "m"]);
    assert!(screen.contains(r"a^[[<0;3;1M^[[<0;3;1m^[[Ob"), "{screen}");
}

#[test]
fn a_mouse_action_is_refused_when_the_program_has_not_enabled_the_mouse() {
    let dir = Dir::new();
    support::start_bash(&dir, "b");
    let out = dir.run(&["send", "-s", "b", "--mouse", "click 1,1"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("has not enabled mouse reporting"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let screen = dir.json(&["capture", "-s", "b", "--json"]);
    assert_eq!(screen["mouse"]["tracking"], "off");
    let out = dir.run(&["send", "-s", "b", "--focus", "in", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let err: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        err["error"]["message"].as_str().unwrap().contains("focus events"),
        "{err}"
    );
}

#[test]
fn a_bad_mouse_action_is_a_one_line_usage_error() {
    let dir = Dir::new();
    start_listener(&dir, "m");
    for (action, says) in [
        ("tap 1,1", "unknown action `tap`"),
        ("click", "needs a target"),
        ("click 500,1", "off the 80x24 screen"),
        ("click /nowhere/", "matches nothing"),
        ("drag 1,1", "FROM..TO"),
    ] {
        let out = dir.run(&["send", "-s", "m", "--mouse", action]);
        assert_eq!(out.status.code(), Some(2), "{action}");
        let err = text(&out.stderr);
        assert!(err.contains(says), "{action}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    let out = dir.run(&["send", "-s", "m", "--focus", "sideways"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("use `in` or `out`"));
}

#[test]
fn send_per_key_delivers_every_key_to_a_program_that_flushes_keys_typed_ahead() {
    let dir = Dir::new();
    let flushes = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/flushes.py");
    dir.ok(&["start", "-s", "fl", "--", "python3", flushes]);
    dir.ok(&["wait", "-s", "fl", "--text", "^keys: q quits"]);
    dir.ok(&["wait", "-s", "fl", "--ready"]);
    dir.ok(&[
        "send",
        "-s",
        "fl",
        "--per-key",
        "-t",
        "zf",
        "-k",
        "Down",
        "--wait",
        "^got: zf<down>$",
    ]);
    // --typing-ms and --per-key are two ways of typing: given both, one line says so.
    let out = dir.run(&["send", "-s", "fl", "--per-key", "--typing-ms", "5", "-t", "x"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--per-key"), "{}", text(&out.stderr));
}
